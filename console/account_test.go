package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/capgate/capgate/console"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// A signed-in user changes their password with the current one; their other sessions end,
// this one stays; wrong current passwords, short ones and mismatches are refused beside
// their fields and change nothing.
func TestPasswordChange(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		b := signedIn(t, e, "owner@pw.test", tenants.RoleOwner)
		other := e.browser()
		if res := other.signIn("owner@pw.test", password); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("second sign-in: %d", res.StatusCode)
		}
		for _, tc := range []struct {
			name, current, next, confirm, field string
		}{
			{"wrong current", "not-the-password", "another-password-1", "another-password-1", "current"},
			{"too short", password, "short", "short", "new"},
			{"mismatch", password, "another-password-1", "another-password-2", "confirm"},
		} {
			res, page := b.post("/console/account/password", url.Values{"current": {tc.current}, "new": {tc.next}, "confirm": {tc.confirm}})
			if res.StatusCode != http.StatusUnprocessableEntity || doc(t, page).Find(`[data-testid="error-`+tc.field+`"]`).Length() != 1 {
				t.Errorf("%s: %d, no message beside %s", tc.name, res.StatusCode, tc.field)
			}
		}
		if _, err := e.store.CheckPassword(context.Background(), "owner@pw.test", password); err != nil {
			t.Fatal("a refused change changed the password")
		}
		res, _ := b.post("/console/account/password", url.Values{"current": {password}, "new": {"another-password-1"}, "confirm": {"another-password-1"}})
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("change: %d", res.StatusCode)
		}
		if _, err := e.store.CheckPassword(context.Background(), "owner@pw.test", "another-password-1"); err != nil {
			t.Fatal("the new password does not sign in")
		}
		if res, _ := b.do(http.MethodGet, "/console/account", nil); res.StatusCode != http.StatusOK {
			t.Fatalf("the session that changed it ended: %d", res.StatusCode)
		}
		if res, _ := other.do(http.MethodGet, "/console/account", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("the other session still works: %d", res.StatusCode)
		}
	})
}

// An admin makes a one-time reset link for a user; it sets a new password once, ends the
// user's sessions and is audited; used, unknown and other users' links do nothing; owners cannot
// make links.
func TestPasswordResetLink(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		admin := signedIn(t, e, "admin@reset.test", tenants.RoleAdmin)
		owner := signedIn(t, e, "owner@reset.test", tenants.RoleOwner)
		if res, _ := owner.post("/console/admin/password-reset", url.Values{"email": {"admin@reset.test"}}); res.StatusCode != http.StatusNotFound {
			t.Fatalf("an owner made a reset link: %d", res.StatusCode)
		}
		res, page := admin.post("/console/admin/password-reset", url.Values{"email": {"nobody@reset.test"}})
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("unknown email: %d", res.StatusCode)
		}
		res, page = admin.post("/console/admin/password-reset", url.Values{"email": {"owner@reset.test"}})
		link, _ := doc(t, page).Find(`[data-testid="reset-link-value"]`).Attr("value")
		if res.StatusCode != http.StatusOK || !strings.Contains(link, "/console/reset/") {
			t.Fatalf("reset link %q (%d)", link, res.StatusCode)
		}
		path := link[strings.Index(link, "/console/reset/"):]
		anon := e.browser()
		if res, _ := anon.do(http.MethodGet, "/console/reset/not-a-token", nil); res.StatusCode != http.StatusNotFound {
			t.Fatalf("unknown token: %d", res.StatusCode)
		}
		res, form := anon.do(http.MethodGet, path, nil)
		if res.StatusCode != http.StatusOK || !strings.Contains(form, "owner@reset.test") || res.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Fatalf("reset page: %d %s", res.StatusCode, res.Header.Get("Referrer-Policy"))
		}
		// Without the form's token (a cross-site post) nothing happens.
		if res, _ := anon.do(http.MethodPost, path, url.Values{"new": {"reset-password-1"}, "confirm": {"reset-password-1"}}); res.StatusCode != http.StatusForbidden {
			t.Fatalf("reset without csrf: %d", res.StatusCode)
		}
		res, done := anon.do(http.MethodPost, path, url.Values{"_csrf": {csrfOf(t, form)}, "new": {"reset-password-1"}, "confirm": {"reset-password-1"}})
		if res.StatusCode != http.StatusOK || doc(t, done).Find(`[data-testid="reset-done"]`).Length() != 1 {
			t.Fatalf("reset: %d", res.StatusCode)
		}
		if _, err := e.store.CheckPassword(context.Background(), "owner@reset.test", "reset-password-1"); err != nil {
			t.Fatal("the reset password does not sign in")
		}
		if res, _ := owner.do(http.MethodGet, "/console/", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("the user's session survived the reset: %d", res.StatusCode)
		}
		// The link works once.
		if res, _ := anon.do(http.MethodGet, path, nil); res.StatusCode != http.StatusNotFound {
			t.Fatalf("a used link: %d", res.StatusCode)
		}
		log, err := e.store.AuditLog(context.Background(), 1, 0)
		if err != nil || len(log) != 1 || log[0].Action != "user.password" || log[0].Actor != "owner@reset.test" {
			t.Fatalf("audit: %v %+v", err, log)
		}
		for _, ch := range console.Diff(log[0].BeforeState, log[0].AfterState) {
			if strings.Contains(ch.Before+ch.After, "reset-password-1") {
				t.Fatal("the audit shows the password")
			}
		}
	})
}

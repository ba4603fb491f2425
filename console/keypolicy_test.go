package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestKeyPoliciesInConsole: the key form sets a budget, rate, expiry, metadata and manage; a
// row's edit form changes them; roll shows the new secret once and keeps the old one for the
// chosen overlap; the list shows the key's usage; every change is audited.
func TestKeyPoliciesInConsole(t *testing.T) {
	e := newEnv(t, tenantstest.SQLite(t))
	u := e.user("owner@policy.test", tenants.RoleOwner, "pro")
	b := e.browser()
	if res := b.signIn("owner@policy.test", password); res.StatusCode != 303 {
		t.Fatalf("sign-in: %d", res.StatusCode)
	}
	ctx := context.Background()
	exp := time.Now().Add(48 * time.Hour).UTC().Format("2006-01-02T15:04")
	_, page := b.do(http.MethodGet, "/console/keys?mode=test", nil)
	res, created := b.do(http.MethodPost, "/console/keys", url.Values{"_csrf": {csrfOf(t, page)}, "label": {"budgeted"}, "mode": {"test"},
		"budget": {"25"}, "rate": {"5"}, "expires": {exp}, "metadata": {`{"team":"search"}`}, "manage": {"on"}})
	raw, _ := doc(t, created).Find(`[data-testid="new-key-value"]`).Attr("value")
	if res.StatusCode != 200 || !tenants.WellFormedKey(raw) {
		t.Fatalf("created %q (%d)", raw, res.StatusCode)
	}
	k, err := e.store.KeyByHash(ctx, tenants.HashKey(raw))
	if err != nil || k.CreditBudget != 25 || k.RatePerMinute != 5 || !k.Manage || k.ExpiresAt == nil || k.Metadata["team"] != "search" {
		t.Fatalf("stored %+v (%v)", k, err)
	}
	if cell := doc(t, created).Find(`[data-testid="used-` + k.ID + `"]`).Text(); !strings.Contains(cell, "0") || !strings.Contains(cell, "25") {
		t.Errorf("usage cell %q", cell)
	}
	// A bad budget is refused with a message and changes nothing.
	_, page = b.do(http.MethodGet, "/console/keys?mode=test", nil)
	b.do(http.MethodPost, "/console/keys/"+k.ID+"/edit", url.Values{"_csrf": {csrfOf(t, page)}, "mode": {"test"}, "label": {"x"}, "budget": {"lots"}})
	if again, _ := e.store.Key(ctx, k.ID); again.Label != "budgeted" {
		t.Fatal("a refused edit changed the key")
	}
	// Edit: no budget, no expiry, no manage.
	_, page = b.do(http.MethodGet, "/console/keys?mode=test", nil)
	b.do(http.MethodPost, "/console/keys/"+k.ID+"/edit", url.Values{"_csrf": {csrfOf(t, page)}, "mode": {"test"}, "label": {"renamed"}, "budget": {""}, "rate": {"3"}})
	k2, _ := e.store.Key(ctx, k.ID)
	if k2.Label != "renamed" || k2.CreditBudget != 0 || k2.RatePerMinute != 3 || k2.Manage || k2.ExpiresAt != nil {
		t.Fatalf("after edit %+v", k2)
	}
	// Roll with a 1 h overlap.
	_, page = b.do(http.MethodGet, "/console/keys?mode=test", nil)
	_, rolled := b.do(http.MethodPost, "/console/keys/"+k.ID+"/roll", url.Values{"_csrf": {csrfOf(t, page)}, "overlap_hours": {"1"}})
	raw2, _ := doc(t, rolled).Find(`[data-testid="new-key-value"]`).Attr("value")
	if !tenants.WellFormedKey(raw2) || raw2 == raw {
		t.Fatalf("rolled secret %q", raw2)
	}
	if old, err := e.store.KeyByHash(ctx, tenants.HashKey(raw)); err != nil || !old.PreviousValid(time.Now()) {
		t.Fatalf("the old secret is not kept for the overlap: %v", err)
	}
	// Audit.
	log, err := e.store.AuditLog(ctx, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, a := range log {
		if a.Target == k.ID && a.Actor == u.Email {
			seen[a.Action]++
		}
	}
	if seen["key.create"] != 1 || seen["key.update"] != 1 || seen["key.roll"] != 1 {
		t.Fatalf("audit %v", seen)
	}
}

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

// Every state-changing console route writes an audit row with its actor, its target and a
// field-by-field diff; the list below is checked against the console's routes, so a new POST
// route without a case fails this test.
func TestEveryChangeIsAudited(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		admin := signedIn(t, e, "admin@audit.test", tenants.RoleAdmin)
		owner := signedIn(t, e, "owner@audit.test", tenants.RoleOwner)
		ownerUser, err := e.store.CheckPassword(ctx, "owner@audit.test", password)
		if err != nil {
			t.Fatal(err)
		}
		key, _, err := e.store.CreateKey(ctx, ownerUser.TenantID, tenants.ModeLive, "to revoke")
		if err != nil {
			t.Fatal(err)
		}
		key2, _, err := e.store.CreateKey(ctx, ownerUser.TenantID, tenants.ModeLive, "to edit")
		if err != nil {
			t.Fatal(err)
		}
		workout, err := e.store.SaveWorkout(ctx, &tenants.Workout{TenantID: ownerUser.TenantID, Title: "Plank", Provider: "exercisevideo", ExerciseRef: "p1",
			Muscles: `["core"]`, Equipment: `[]`})
		if err != nil {
			t.Fatal(err)
		}
		other, err := e.store.CreateTenant(ctx, "Other", "free", "")
		if err != nil {
			t.Fatal(err)
		}
		client, err := e.store.RegisterOAuthClient(ctx, "Audit host", []string{"http://127.0.0.1:9/cb"})
		if err != nil {
			t.Fatal(err)
		}
		challenge := tenants.S256(strings.Repeat("v", 43))
		grant, _, err := e.store.CreateOAuthGrant(ctx, tenants.GrantRequest{TenantID: ownerUser.TenantID, GrantedBy: "owner@audit.test", Mode: tenants.ModeTest,
			Client: client, RedirectURI: "http://127.0.0.1:9/cb", Challenge: challenge})
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			route   string // the route as the console declares it
			path    string
			who     *browser
			actor   string
			form    url.Values
			action  string
			target  string // "" when the target is created by the change
			changed string // a field the diff must show
		}{
			{"/console/keys", "/console/keys", owner, "owner@audit.test", url.Values{"mode": {"test"}, "label": {"ci"}}, "key.create", "", "label"},
			{"/console/keys/:id/revoke", "/console/keys/" + key.ID + "/revoke", owner, "owner@audit.test", url.Values{}, "key.revoke", key.ID, "revoked"},
			{"/console/keys/:id/edit", "/console/keys/" + key2.ID + "/edit", owner, "owner@audit.test", url.Values{"mode": {"live"}, "label": {"edited"}, "budget": {"7"}}, "key.update", key2.ID, "credit_budget"},
			{"/console/keys/:id/roll", "/console/keys/" + key2.ID + "/roll", owner, "owner@audit.test", url.Values{"overlap_hours": {"1"}}, "key.roll", key2.ID, "prefix"},
			{"/console/sharpen", "/console/sharpen", owner, "owner@audit.test", url.Values{"stage": {"stage1"}}, "sharpen.set_stage", ownerUser.TenantID, "sharpen_stage"},
			{"/console/workouts/:id/delete", "/console/workouts/" + workout.ID + "/delete", owner, "owner@audit.test", url.Values{}, "workout.delete", workout.ID, "title"},
			{"/console/admin/tenants", "/console/admin/tenants", admin, "admin@audit.test", url.Values{"name": {"New Co"}, "plan": {"free"}}, "tenant.create", "", "name"},
			{"/console/admin/tenants/:id/plan", "/console/admin/tenants/" + other.ID + "/plan", admin, "admin@audit.test", url.Values{"plan": {"pro"}}, "tenant.set_plan", other.ID, "plan"},
			{"/console/admin/tenants/:id/status", "/console/admin/tenants/" + other.ID + "/status", admin, "admin@audit.test", url.Values{"status": {"suspended"}}, "tenant.set_status", other.ID, "status"},
			{"/console/admin/plans", "/console/admin/plans", admin, "admin@audit.test", url.Values{"name": {"team"}, "cap": {"5000"}, "rate": {"30"}, "multiplier": {"1"},
				"projects": {"1"}, "items": {"10"}, "capabilities": {"all"}, "sharpen_max": {"stage1"}}, "plan.create", "team", "credit_cap"},
			{"/console/admin/plans/:name", "/console/admin/plans/team", admin, "admin@audit.test", url.Values{"cap": {"6000"}, "rate": {"30"}, "multiplier": {"1"},
				"projects": {"1"}, "items": {"10"}, "capabilities": {"all"}, "sharpen_max": {"stage1"}}, "plan.update", "team", "credit_cap"},
			{"/console/admin/providers/:id", "/console/admin/providers/anthropic", admin, "admin@audit.test", url.Values{"key": {"sk-secret-never-shown"}}, "provider.update", "anthropic", "key"},
			{"/console/admin/password-reset", "/console/admin/password-reset", admin, "admin@audit.test", url.Values{"email": {"owner@audit.test"}}, "user.password_reset", ownerUser.ID, "reset_link"},
			{"/console/oauth/authorize", "/console/oauth/authorize", owner, "owner@audit.test", url.Values{"client_id": {client.ID}, "redirect_uri": {"http://127.0.0.1:9/cb"},
				"response_type": {"code"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}, "mode": {"test"}, "decision": {"allow"}}, "oauth.grant", "", "mode"},
			{"/console/oauth/grants/:id/revoke", "/console/oauth/grants/" + grant.ID + "/revoke", owner, "owner@audit.test", url.Values{}, "oauth.revoke", grant.ID, "revoked"},
			{"/console/account/password", "/console/account/password", owner, "owner@audit.test", url.Values{"current": {password}, "new": {"a-changed-password"}, "confirm": {"a-changed-password"}},
				"user.password", ownerUser.ID, "password"},
		}
		// Signing in and out change no state of the account; a connection test only reads; a run
		// in test mode is an API call (the usage ledger records it; a key it creates is audited
		// as key.create); the reset link's page is audited in TestPasswordResetLink.
		exempt := []string{"/console/login", "/console/logout", "/console/admin/providers/:id/test", "/console/catalog/:id/run",
			"/console/catalog/:id/follow-up", "/console/reset/:token"}
		tested := map[string]bool{}
		for _, r := range exempt {
			tested[r] = true
		}
		for _, tc := range cases {
			tested[tc.route] = true
			t.Run(tc.action, func(t *testing.T) {
				res, _ := tc.who.post(tc.path, tc.form)
				if res.StatusCode != http.StatusSeeOther && res.StatusCode != http.StatusOK {
					t.Fatalf("%s: %d", tc.path, res.StatusCode)
				}
				log, err := e.store.AuditLog(ctx, 1, 0)
				if err != nil || len(log) != 1 {
					t.Fatalf("audit log: %v %d", err, len(log))
				}
				got := log[0]
				if got.Action != tc.action || got.Actor != tc.actor || got.Target == "" || (tc.target != "" && got.Target != tc.target) {
					t.Fatalf("audit row %s by %s on %q, want %s by %s on %q", got.Action, got.Actor, got.Target, tc.action, tc.actor, tc.target)
				}
				diff := console.Diff(got.BeforeState, got.AfterState)
				found := false
				for _, ch := range diff {
					found = found || ch.Field == tc.changed
					if strings.Contains(ch.Before+ch.After, "sk-secret") {
						t.Fatalf("the diff shows a secret: %+v", ch)
					}
				}
				if !found {
					t.Fatalf("diff %+v has no %s", diff, tc.changed)
				}
				// The audit page shows it, one entry per change, in the product's words.
				_, page := admin.do(http.MethodGet, "/console/admin/audit?kind="+strings.Split(tc.action, ".")[0], nil)
				d := doc(t, page)
				if d.Find(`[data-testid="audit-entry"]`).Length() == 0 || !strings.Contains(d.Find(`[data-testid="audit"]`).Text(), tc.changed) {
					t.Fatalf("audit page does not show %s", tc.action)
				}
				if strings.Contains(page, "sk-secret") || strings.Contains(page, `"CreditCap"`) {
					t.Fatal("audit page shows a secret or a Go field name")
				}
			})
		}
		routes := console.ChangeRoutes(e.app)
		if len(routes) != len(cases)+len(exempt) {
			t.Errorf("the console has %d state-changing routes %v; %d are listed here", len(routes), routes, len(cases)+len(exempt))
		}
		for _, route := range routes {
			if !tested[route] {
				t.Errorf("state-changing route %s has no audit case", route)
			}
		}
	})
}

func TestAuditFilterAndEmptyState(t *testing.T) {
	e := newEnv(t, tenantstest.SQLite(t))
	admin := signedIn(t, e, "admin@audit2.test", tenants.RoleAdmin)
	_, page := admin.do(http.MethodGet, "/console/admin/audit", nil)
	if doc(t, page).Find(`[data-testid="audit-empty"]`).Length() != 1 {
		t.Fatal("no empty state")
	}
	admin.post("/console/sharpen", url.Values{"stage": {"stage1"}})
	admin.post("/console/admin/tenants", url.Values{"name": {"Filtered"}, "plan": {"free"}})
	for _, tc := range []struct {
		query string
		want  int
	}{{"", 2}, {"?kind=tenant", 1}, {"?kind=sharpen", 1}, {"?actor=admin%40audit2.test", 2}, {"?actor=nobody%40x.test", 0}} {
		_, page := admin.do(http.MethodGet, "/console/admin/audit"+tc.query, nil)
		if n := doc(t, page).Find(`[data-testid="audit-entry"]`).Length(); n != tc.want {
			t.Errorf("%s: %d entries, want %d", tc.query, n, tc.want)
		}
	}
}

func TestAdminFormsShowMessagesBesideTheField(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		admin := signedIn(t, e, "admin@forms.test", tenants.RoleAdmin)
		plan := url.Values{"cap": {"1000"}, "rate": {"60"}, "multiplier": {"1"}, "projects": {"1"}, "items": {"1"}, "capabilities": {"all"}, "sharpen_max": {"stock"}}
		with := func(v url.Values, k, val string) url.Values {
			out := url.Values{}
			for key, vs := range v {
				out[key] = vs
			}
			out.Set(k, val)
			return out
		}
		cases := []struct {
			name, path string
			form       url.Values
			field      string
		}{
			{"NaN multiplier on create", "/console/admin/plans", with(with(plan, "name", "nan"), "multiplier", "NaN"), "multiplier"},
			{"multiplier out of range on update", "/console/admin/plans/free", with(plan, "multiplier", "1000"), "multiplier"},
			{"rate not a number", "/console/admin/plans/free", with(plan, "rate", "many"), "rate"},
			{"plan name with a space", "/console/admin/plans", with(plan, "name", "two words"), "name"},
			{"tenant without a name", "/console/admin/tenants", url.Values{"name": {""}, "plan": {"free"}}, "name"},
			{"tenant on an unknown plan", "/console/admin/tenants", url.Values{"name": {"Acme"}, "plan": {"gold"}}, "plan"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res, page := admin.post(tc.path, tc.form)
				d := doc(t, page)
				if res.StatusCode != http.StatusUnprocessableEntity || d.Find(`[data-testid="err-`+tc.field+`"]`).Length() != 1 {
					t.Fatalf("%d, message beside %s: %d", res.StatusCode, tc.field, d.Find(`[data-testid="err-`+tc.field+`"]`).Length())
				}
				// The refused input is still in the form.
				if v := tc.form.Get(tc.field); v != "" && tc.field != "plan" {
					if got, _ := d.Find(`[aria-invalid="true"][name="` + tc.field + `"]`).Attr("value"); got != v {
						t.Fatalf("refused value %q, want %q", got, v)
					}
				}
			})
		}
		if p, _ := e.store.Plan(context.Background(), "free"); p.CreditMultiplier != 1 || p.RatePerMinute != 60 {
			t.Fatalf("a refused form changed the plan: %+v", p)
		}
	})
}

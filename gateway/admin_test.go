package gateway_test

// The admin HTTP API (issue 34): the operator's plans and tenants behind GATEWAY_ADMIN_TOKEN,
// audited with the actor admin-token. It is not in the tenants' OpenAPI document, so these
// requests skip the contract check.

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

const adminToken = "admin-token-for-tests-0123456789abcdef"

func adminDo(t *testing.T, e *gatewaytest.Env, method, path, token, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := e.Server.App().Test(req, 30_000)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s %s: not JSON: %s", method, path, b)
	}
	return res.StatusCode, m
}

func TestAdminAPI(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := gatewaytest.New(t, gatewaytest.Options{DB: db, AdminToken: adminToken})
		ctx := context.Background()

		// Authentication: no token, a wrong one, a tenant's API key.
		for _, tok := range []string{"", "wrong", adminToken + "x", e.LiveKey} {
			if st, m := adminDo(t, e, "GET", "/v1/admin/plans", tok, ""); st != 401 || m["error"].(map[string]any)["code"] != "unauthorized" {
				t.Fatalf("token %q: %d %v", tok, st, m)
			}
		}

		st, m := adminDo(t, e, "POST", "/v1/admin/plans", adminToken, `{"name": "team", "credit_cap": 500}`)
		if st != 201 || m["name"] != "team" || m["credit_cap"] != 500.0 || m["rate_per_minute"] != 60.0 {
			t.Fatalf("create plan: %d %v", st, m)
		}
		if st, _ := adminDo(t, e, "POST", "/v1/admin/plans", adminToken, `{"name": "team"}`); st != 409 {
			t.Fatalf("duplicate plan: %d", st)
		}
		if st, m := adminDo(t, e, "PATCH", "/v1/admin/plans/team", adminToken, `{"rate_per_minute": 120}`); st != 200 || m["rate_per_minute"] != 120.0 || m["credit_cap"] != 500.0 {
			t.Fatalf("update plan: %d %v", st, m)
		}
		st, m = adminDo(t, e, "POST", "/v1/admin/tenants", adminToken, `{"name": "Acme", "plan": "team", "email": "ops@acme.test"}`)
		if st != 201 || m["plan"] != "team" || m["status"] != "active" {
			t.Fatalf("create tenant: %d %v", st, m)
		}
		tid := m["id"].(string)
		if st, m := adminDo(t, e, "PATCH", "/v1/admin/tenants/"+tid, adminToken, `{"plan": "pro", "status": "suspended"}`); st != 200 || m["plan"] != "pro" || m["status"] != "suspended" {
			t.Fatalf("update tenant: %d %v", st, m)
		}
		if st, m := adminDo(t, e, "GET", "/v1/admin/tenants?search=acme", adminToken, ""); st != 200 || len(m["tenants"].([]any)) != 1 {
			t.Fatalf("list tenants: %d %v", st, m)
		}

		// Bad input: each a 4xx in the envelope, nothing changed.
		bad := []struct {
			method, path, body string
			status             int
		}{
			{"POST", "/v1/admin/plans", `{"name": "x y"}`, 400},
			{"POST", "/v1/admin/plans", `{"name": "ok", "rate_per_minute": 0}`, 400},
			{"POST", "/v1/admin/plans", `{"name": "ok", "surprise": 1}`, 400},
			{"POST", "/v1/admin/plans", `{}`, 400},
			{"POST", "/v1/admin/plans", `[1]`, 400},
			{"POST", "/v1/admin/plans", `{"name": "a"} {"name": "b"}`, 400},
			{"PATCH", "/v1/admin/plans/team", `{"name": "other"}`, 400},
			{"PATCH", "/v1/admin/plans/nosuch", `{"credit_cap": 1}`, 404},
			{"POST", "/v1/admin/tenants", `{"name": "B", "plan": "nosuch"}`, 400},
			{"POST", "/v1/admin/tenants", `{"name": "B\u0000", "plan": "pro"}`, 400},
			{"PATCH", "/v1/admin/tenants/" + tid, `{"status": "deleted"}`, 400},
			{"PATCH", "/v1/admin/tenants/" + tid, `{"plan": "nosuch"}`, 400},
			{"PATCH", "/v1/admin/tenants/tnt_nosuch", `{"status": "active"}`, 404},
		}
		for _, b := range bad {
			st, m := adminDo(t, e, b.method, b.path, adminToken, b.body)
			if st != b.status || m["error"] == nil {
				t.Errorf("%s %s %s: %d %v", b.method, b.path, b.body, st, m)
			}
		}
		if ten, _ := e.Store.Tenant(ctx, tid); ten.Status != tenants.StatusSuspended || ten.PlanID != "pro" {
			t.Fatalf("a refused change changed the tenant: %+v", ten)
		}

		// Every change is audited with the admin actor, in order.
		es, err := e.Store.AuditLog(ctx, 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := len(es) - 1; i >= 0; i-- {
			if es[i].Actor != gateway.AdminActor {
				t.Errorf("actor %q", es[i].Actor)
			}
			got = append(got, es[i].Action)
		}
		want := "plan.create plan.update tenant.create tenant.set_plan tenant.set_status"
		if strings.Join(got, " ") != want {
			t.Fatalf("audit: %v, want %s", got, want)
		}
	})
}

// TestAdminAPIOffWithoutToken: without GATEWAY_ADMIN_TOKEN the routes do not exist, whatever
// the Authorization header says.
func TestAdminAPIOffWithoutToken(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	for _, tok := range []string{"", "anything"} {
		if st, m := adminDo(t, e, "GET", "/v1/admin/plans", tok, ""); st != 404 || m["error"].(map[string]any)["code"] != "not_found" {
			t.Fatalf("%d %v", st, m)
		}
	}
}

// TestAdminAPIProviders: provider settings over the admin API — the key sealed and never shown,
// the change applied through the hook and audited with the key redacted, bad input refused.
func TestAdminAPIProviders(t *testing.T) {
	db := tenantstest.SQLite(t)
	sealer, err := tenants.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	e := gatewaytest.New(t, gatewaytest.Options{DB: db, AdminToken: adminToken, Sealer: sealer})
	applied := 0
	e.Server.SetProviderSettingsHook(func(context.Context) { applied++ })
	ctx := context.Background()
	id := e.Client.Providers()[0].ID

	st, m := adminDo(t, e, "PUT", "/v1/admin/providers/"+id, adminToken, `{"base_url": "https://upstream.example/v2", "key": "sk-secret-value"}`)
	if st != 200 || m["key_set"] != true || m["base_url"] != "https://upstream.example/v2" || applied != 1 {
		t.Fatalf("put: %d %v (applied %d)", st, m, applied)
	}
	if strings.Contains(toJSON(m), "sk-secret-value") {
		t.Fatalf("the key is shown: %v", m)
	}
	stored, err := e.Store.ProviderSettings(ctx)
	if err != nil || len(stored) != 1 {
		t.Fatalf("stored: %v %v", stored, err)
	}
	if key, err := sealer.Open(id, stored[0].KeyCiphertext); err != nil || key != "sk-secret-value" {
		t.Fatalf("the stored key opens to %q (%v)", key, err)
	}
	st, m = adminDo(t, e, "GET", "/v1/admin/providers", adminToken, "")
	if st != 200 || strings.Contains(toJSON(m), "sk-secret") || len(m["providers"].([]any)) != len(e.Client.Providers()) {
		t.Fatalf("list: %d %v", st, m)
	}
	if st, m := adminDo(t, e, "PUT", "/v1/admin/providers/"+id, adminToken, `{"clear_key": true}`); st != 200 || m["key_set"] != false || m["base_url"] != "https://upstream.example/v2" {
		t.Fatalf("clear key: %d %v", st, m)
	}
	log, err := e.Store.AuditLog(ctx, 10, 0)
	if err != nil || len(log) < 2 || log[0].Actor != gateway.AdminActor || strings.Contains(toJSON(log), "sk-secret") {
		t.Fatalf("audit: %v %v", log, err)
	}

	for _, c := range []struct{ path, body string }{
		{"/v1/admin/providers/" + id, `{"base_url": "javascript:alert(1)"}`},
		{"/v1/admin/providers/" + id, `{"base_url": "https://user:pw@upstream.example"}`},
		{"/v1/admin/providers/" + id, `{"key": "a\u0000b"}`},
		{"/v1/admin/providers/" + id, `{"key": ""}`},
		{"/v1/admin/providers/" + id, `{"key": "k", "clear_key": true}`},
		{"/v1/admin/providers/" + id, `{"base": "https://x.example"}`},
		{"/v1/admin/providers/" + id, `[]`},
		{"/v1/admin/providers/no-such-provider", `{"key": "k"}`},
	} {
		st, m := adminDo(t, e, "PUT", c.path, adminToken, c.body)
		if st < 400 || st >= 500 || m["error"] == nil {
			t.Errorf("PUT %s %s: %d %v", c.path, c.body, st, m)
		}
	}
	if st, _ := adminDo(t, e, "PUT", "/v1/admin/providers/"+id, e.LiveKey, `{"key": "k"}`); st != 401 {
		t.Fatalf("a tenant's key: %d", st)
	}

	// Without a master key, keys cannot be stored: a clear 503, nothing written.
	e2 := gatewaytest.New(t, gatewaytest.Options{DB: tenantstest.SQLite(t), AdminToken: adminToken})
	if st, m := adminDo(t, e2, "PUT", "/v1/admin/providers/"+id, adminToken, `{"key": "k"}`); st != 503 {
		t.Fatalf("no sealer: %d %v", st, m)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

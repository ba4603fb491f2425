package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
)

// A key's policies on /v1: expiry (checked per request, even with the key cached), a rolled
// key's old secret until its overlap ends, the key's own budget (credits_exhausted naming the
// key), Capgate-Max-Credits (refused, nothing charged, no upstream call), the quote matching the
// real charge, and the manage permission on /v1/keys.
func TestKeyPoliciesOnTheAPI(t *testing.T) {
	e := newCapEnv(t, nil)
	ctx := context.Background()
	body := map[string]any{"query": "policies"}

	t.Run("expired key is refused though cached", func(t *testing.T) {
		exp := time.Now().Add(1500 * time.Millisecond)
		k, raw, err := e.Store.CreateKeyWith(ctx, e.Tenant.ID, tenants.ModeLive, tenants.KeyPolicy{Label: "short", ExpiresAt: &exp})
		if err != nil {
			t.Fatal(err)
		}
		wantOK(t, e.exec(raw, "test.page", body)) // now cached for the auth cache's TTL
		for time.Now().Before(*k.ExpiresAt) {
			time.Sleep(100 * time.Millisecond)
		}
		r := wantError(t, e.exec(raw, "test.page", body), 401, "unauthorized")
		if msg := r["message"].(string); !strings.Contains(msg, "expired") {
			t.Fatalf("message %q does not say the key expired", msg)
		}
	})

	t.Run("key budget", func(t *testing.T) {
		_, raw, err := e.Store.CreateKeyWith(ctx, e.Tenant.ID, tenants.ModeLive, tenants.KeyPolicy{Label: "b", CreditBudget: 3})
		if err != nil {
			t.Fatal(err)
		}
		wantOK(t, e.exec(raw, "test.page", body)) // test.page costs 2
		r := wantError(t, e.exec(raw, "test.page", body), 402, "credits_exhausted")
		if hint, _ := r["hint"].(string); !strings.Contains(hint, "key") {
			t.Fatalf("hint %q does not name the key's budget", hint)
		}
		wantOK(t, e.exec(e.LiveKey, "test.page", body)) // the account and its other keys go on
	})

	t.Run("max credits ceiling and quote", func(t *testing.T) {
		before := e.live.Calls()
		bal0 := storedUsed(t, e)
		r := e.DoHeaders(http.MethodPost, "/v1/capabilities/test.page/execute", e.LiveKey, body, map[string]string{"Capgate-Max-Credits": "1"})
		wantError(t, r, 402, "credits_exhausted")
		if e.live.Calls() != before || storedUsed(t, e) != bal0 {
			t.Fatalf("a refused call reached the upstream (%d→%d calls) or charged (%d→%d)", before, e.live.Calls(), bal0, storedUsed(t, e))
		}
		wantError(t, e.DoHeaders(http.MethodPost, "/v1/capabilities/test.page/execute", e.LiveKey, body, map[string]string{"Capgate-Max-Credits": "-1"}), 400, "invalid_request")
		q := e.Do(http.MethodPost, "/v1/capabilities/test.page/quote", e.LiveKey, body)
		wantOK(t, q)
		if e.live.Calls() != before || storedUsed(t, e) != bal0 {
			t.Fatal("a quote reached the upstream or charged")
		}
		quoted := int64(q.JSON["credits"].(float64))
		if q.JSON["upstream"] == "" || q.JSON["served_from_cache"] != false {
			t.Fatalf("quote %s", q.Body)
		}
		x := e.DoHeaders(http.MethodPost, "/v1/capabilities/test.page/execute", e.LiveKey, body, map[string]string{"Capgate-Max-Credits": "2"})
		wantOK(t, x)
		if charged := int64(x.JSON["charged_credits"].(float64)); charged != quoted {
			t.Fatalf("quoted %d, charged %d", quoted, charged)
		}
	})

	t.Run("manage permission and tenant isolation", func(t *testing.T) {
		wantError(t, e.Do(http.MethodGet, "/v1/keys", e.LiveKey, nil), 403, "capability_disabled")
		wantError(t, e.Do(http.MethodPost, "/v1/keys", e.LiveKey, map[string]any{"name": "x"}), 403, "capability_disabled")
		_, mk, err := e.Store.CreateKeyWith(ctx, e.Tenant.ID, tenants.ModeLive, tenants.KeyPolicy{Label: "admin", Manage: true})
		if err != nil {
			t.Fatal(err)
		}
		c := e.Do(http.MethodPost, "/v1/keys", mk, map[string]any{"name": "ci", "credit_budget": 10, "metadata": map[string]any{"team": "a"},
			"scope": map[string]any{"capabilities": []string{"test.page"}}})
		if c.Status != 201 {
			t.Fatalf("create: %d %s", c.Status, c.Body)
		}
		id := c.JSON["key"].(map[string]any)["id"].(string)
		secret := c.JSON["secret"].(string)
		wantOK(t, e.exec(secret, "test.page", body))
		g := e.Do(http.MethodGet, "/v1/keys/"+id, mk, nil)
		wantOK(t, g)
		if g.JSON["credits_used"].(float64) != 2 {
			t.Fatalf("usage %s", g.Body)
		}
		// Another tenant's manage key sees none of it.
		other, _, _ := e.NewTenant("pro")
		_, omk, err := e.Store.CreateKeyWith(ctx, other.ID, tenants.ModeLive, tenants.KeyPolicy{Manage: true})
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, e.Do(http.MethodGet, "/v1/keys/"+id, omk, nil), 404, "not_found")
		wantError(t, e.Do(http.MethodDelete, "/v1/keys/"+id, omk, nil), 404, "not_found")
		wantError(t, e.Do(http.MethodPost, "/v1/keys/"+id+"/roll", omk, nil), 404, "not_found")
		l := e.Do(http.MethodGet, "/v1/keys", omk, nil)
		wantOK(t, l)
		if strings.Contains(string(l.Body), id) {
			t.Fatal("another tenant's list shows the key")
		}
		// Roll with an overlap: both secrets work; a roll without overlap ends the old one.
		r := e.Do(http.MethodPost, "/v1/keys/"+id+"/roll", mk, map[string]any{"overlap_seconds": 3600})
		wantOK(t, r)
		secret2 := r.JSON["secret"].(string)
		wantOK(t, e.exec(secret, "test.page", body))
		wantOK(t, e.exec(secret2, "test.page", body))
		r = e.Do(http.MethodPost, "/v1/keys/"+id+"/roll", mk, map[string]any{"overlap_seconds": 0})
		wantOK(t, r)
		wantError(t, e.exec(secret2, "test.page", body), 401, "unauthorized")
		wantOK(t, e.exec(r.JSON["secret"].(string), "test.page", body))
		// Patch and revoke; bad bodies are invalid_request.
		wantError(t, e.Do(http.MethodPatch, "/v1/keys/"+id, mk, map[string]any{"credit_budget": -1}), 400, "invalid_request")
		wantError(t, e.Do(http.MethodPatch, "/v1/keys/"+id, mk, map[string]any{"bogus": 1}), 400, "invalid_request")
		wantError(t, e.Do(http.MethodPatch, "/v1/keys/"+id, mk, map[string]any{"rate_per_minute": 1 << 30}), 400, "invalid_request")
		p := e.Do(http.MethodPatch, "/v1/keys/"+id, mk, map[string]any{"name": "ci-2", "expires_at": nil})
		wantOK(t, p)
		wantOK(t, e.Do(http.MethodDelete, "/v1/keys/"+id, mk, nil))
		// The audit log holds every change, with the managing key as the actor.
		log, err := e.Store.AuditLog(ctx, 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, a := range log {
			if a.Target == id && strings.HasPrefix(a.Actor, "api key ") {
				seen[a.Action]++
			}
		}
		if seen["key.create"] != 1 || seen["key.roll"] != 2 || seen["key.update"] != 1 || seen["key.revoke"] != 1 {
			t.Fatalf("audit %v", seen)
		}
	})

	t.Run("scoped manage key cannot widen", func(t *testing.T) {
		sc, _ := tenants.NewScope([]string{"test.page"}, nil)
		_, mk, err := e.Store.CreateKeyWith(ctx, e.Tenant.ID, tenants.ModeLive, tenants.KeyPolicy{Manage: true, Scope: sc})
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, e.Do(http.MethodPost, "/v1/keys", mk, map[string]any{"name": "wide"}), 400, "invalid_request")
		if c := e.Do(http.MethodPost, "/v1/keys", mk, map[string]any{"scope": map[string]any{"capabilities": []string{"test.page"}}}); c.Status != 201 {
			t.Fatalf("narrow create: %d %s", c.Status, c.Body)
		}
	})
}

func storedUsed(t *testing.T, e *capEnv) int64 {
	t.Helper()
	plan, err := e.Store.Plan(context.Background(), "pro")
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Store.Balance(context.Background(), e.Tenant, plan, tenants.ModeLive)
	if err != nil {
		t.Fatal(err)
	}
	return b.Used
}

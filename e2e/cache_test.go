package e2e

import (
	"net/http"
	"testing"
)

// TestSharedCacheInTheBinary: the real binary (cache on, its default) answers a repeated
// identical execute from the shared cache, with its own search session, and says so; no-store
// bypasses it.
func TestSharedCacheInTheBinary(t *testing.T) {
	d := newDeployment(t, "sqlite")
	in := d.serve(t, "GATEWAY_SHARED_CACHE=on")
	a, b := d.newTenant(t, "pro"), d.newTenant(t, "pro")
	body := map[string]any{"query": "shared cache in the binary", "num": 3}
	path := "/v1/capabilities/books.search/execute"
	first := in.call(t, http.MethodPost, path, a.Test, body)
	first.mustOK(t, "first call")
	if got := first.Header.Get("Capgate-Cache"); got != "miss" {
		t.Fatalf("first call: Capgate-Cache %q, want miss", got)
	}
	second := in.call(t, http.MethodPost, path, b.Test, body) // another tenant, same request
	second.mustOK(t, "second call")
	if got := second.Header.Get("Capgate-Cache"); got != "hit" || second.Header.Get("Age") == "" {
		t.Fatalf("second call: Capgate-Cache %q, Age %q, want a hit with its age", got, second.Header.Get("Age"))
	}
	if str(second.JSON, "search_id") == str(first.JSON, "search_id") || str(second.JSON, "search_id") == "" {
		t.Fatalf("the hit did not open its own session: %s", second.Body)
	}
	third := in.call(t, http.MethodPost, path, b.Test, body, "Cache-Control", "no-store")
	third.mustOK(t, "no-store call")
	if got := third.Header.Get("Capgate-Cache"); got != "bypass" {
		t.Fatalf("no-store: Capgate-Cache %q, want bypass", got)
	}
}

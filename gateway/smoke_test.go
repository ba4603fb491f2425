package gateway_test

import (
	"net/http"
	"testing"

	"github.com/capgate/capgate/gateway/gatewaytest"
)

func TestSmokeSandboxExecuteAndFollowUp(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	r := e.Do(http.MethodPost, "/v1/capabilities/books.search/execute", e.TestKey, map[string]any{"query": "the lord of the rings", "num": 2})
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	next := r.JSON["next"].(map[string]any)
	ex := next["example"].(map[string]any)
	r2 := e.Do(http.MethodPost, "/v1/follow-up", e.TestKey, ex)
	if r2.Status != 200 {
		t.Fatalf("follow-up %v: %d %s", ex, r2.Status, r2.Body)
	}
	rec := r.JSON["results"].([]any)[0].(map[string]any)
	d := e.Do(http.MethodPost, "/v1/follow-up", e.TestKey, map[string]any{"record_id": rec["record_id"], "action": "details"})
	if d.Status != 200 || d.JSON["cached"] != false {
		t.Fatalf("details: %d %s", d.Status, d.Body)
	}
	d = e.Do(http.MethodPost, "/v1/follow-up", e.TestKey, map[string]any{"record_id": rec["record_id"], "action": "details"})
	if d.Status != 200 || d.JSON["cached"] != true {
		t.Fatalf("details repeat: %d %s", d.Status, d.Body)
	}
	for _, path := range []string{"/v1/catalog", "/v1/capabilities/books.search", "/v1/account", "/v1/nope"} {
		e.Do(http.MethodGet, path, e.TestKey, nil)
	}
	e.Do(http.MethodGet, "/v1/catalog", "", nil)
}

func TestReadyzFollowsTheDatabase(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	if r := e.Do(http.MethodGet, "/readyz", "", nil); r.Status != 200 {
		t.Fatalf("ready: %d %s", r.Status, r.Body)
	}
	if r := e.Do(http.MethodGet, "/healthz", "", nil); r.Status != 200 {
		t.Fatalf("healthz: %d", r.Status)
	}
	if err := e.DB.Close(); err != nil {
		t.Fatal(err)
	}
	r := e.Do(http.MethodGet, "/readyz", "", nil)
	if r.Status != 503 || r.ErrorCode() != "service_unavailable" {
		t.Fatalf("readyz with the database gone: %d %s", r.Status, r.Body)
	}
	if r := e.Do(http.MethodGet, "/healthz", "", nil); r.Status != 200 {
		t.Fatalf("liveness must not depend on the database: %d", r.Status)
	}
}

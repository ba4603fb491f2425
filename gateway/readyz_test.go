package gateway_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestReadyzFailsWhenWritesFail: a database that answers but takes no write (read-only here; a
// full disk in production) makes /readyz fail, so a balancer stops sending calls that could not
// be committed; /healthz stays the liveness check. Once writes succeed again it is ready again.
func TestReadyzFailsWhenWritesFail(t *testing.T) {
	db := tenantstest.SQLite(t)
	e := gatewaytest.New(t, gatewaytest.Options{DB: db})
	if r := e.Do(http.MethodGet, "/readyz", "", nil); r.Status != http.StatusOK {
		t.Fatalf("readyz before: %d %s", r.Status, r.Body)
	}
	// One connection, so the pragma holds for every statement.
	db.DB.DB.SetMaxOpenConns(1)
	if _, err := db.ExecContext(context.Background(), "PRAGMA query_only = ON"); err != nil {
		t.Fatal(err)
	}
	r := e.Do(http.MethodGet, "/readyz", "", nil)
	if r.Status != http.StatusServiceUnavailable || r.ErrorCode() != "service_unavailable" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("readyz with writes failing: %d %s (Retry-After %q)", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	if h := e.Do(http.MethodGet, "/healthz", "", nil); h.Status != http.StatusOK {
		t.Fatalf("healthz is liveness and must stay 200: %d", h.Status)
	}
	if _, err := db.ExecContext(context.Background(), "PRAGMA query_only = OFF"); err != nil {
		t.Fatal(err)
	}
	if r := e.Do(http.MethodGet, "/readyz", "", nil); r.Status != http.StatusOK {
		t.Fatalf("readyz after writes work again: %d %s", r.Status, r.Body)
	}
}

package tenants

import (
	"context"
	"strings"
	"testing"
)

// TestRequestLogErrorFilterUsesItsIndex: the queries Requests builds for an error status or
// class read the partial index of errors (SQLite's plan), not the whole of the tenant's log.
func TestRequestLogErrorFilterUsesItsIndex(t *testing.T) {
	db, err := Open("", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []RequestFilter{{TenantID: "tnt_a", Status: 503}, {TenantID: "tnt_a", Status: 5, StatusClass: true}} {
		var out []RequestEntry
		q, err := f.apply(db.NewSelect().Model(&out))
		if err != nil {
			t.Fatal(err)
		}
		var plan []struct {
			ID      int    `bun:"id"`
			Parent  int    `bun:"parent"`
			NotUsed int    `bun:"notused"`
			Detail  string `bun:"detail"`
		}
		if err := db.NewRaw("EXPLAIN QUERY PLAN "+q.OrderExpr("at_us DESC, id DESC").Limit(51).String()).Scan(context.Background(), &plan); err != nil {
			t.Fatal(err)
		}
		if len(plan) == 0 || !strings.Contains(plan[0].Detail, "request_log_tenant_errors") {
			t.Errorf("%+v: plan %+v does not use request_log_tenant_errors", f, plan)
		}
	}
}

package tenants

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestSegmentQueriesUseTheirIndex: a listing's query reads the tenant's segments by the index of
// their latest entry, in its order (SQLite's plan: no scan of the table, no sort).
func TestSegmentQueriesUseTheirIndex(t *testing.T) {
	db, err := Open("", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := NewStore(db)
	for _, f := range []RequestFilter{{TenantID: "tnt_a"}, {TenantID: "tnt_a", Status: 5, StatusClass: true}} {
		q := s.segmentsBefore(f, 0, math.MaxInt64, math.MinInt64, 64)
		var plan []struct {
			ID      int    `bun:"id"`
			Parent  int    `bun:"parent"`
			NotUsed int    `bun:"notused"`
			Detail  string `bun:"detail"`
		}
		if err := db.NewRaw("EXPLAIN QUERY PLAN "+q.String()).Scan(context.Background(), &plan); err != nil {
			t.Fatal(err)
		}
		var details []string
		for _, p := range plan {
			details = append(details, p.Detail)
		}
		all := strings.Join(details, "; ")
		if !strings.Contains(all, "request_log_segments_tenant") || strings.Contains(all, "TEMP B-TREE") {
			t.Errorf("%+v: plan %q", f, all)

		}
	}
}

package searches_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/uptrace/bun"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/searches"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestCreateGroup: a batch's new sessions written as one group (the writer's multi-row path:
// 70 sessions are statements of 64, 4, 1 and 1 rows), half of them referring to two shared pages
// whose rows each store once, read back whole by another instance (empty caches).
func TestCreateGroup(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		st := newStore(t, db)
		pageA, recsA := pageRecords(st, 3)
		pageB, recsB := pageRecords(st, 2)
		var ws []tenants.Write
		var sessions []*searches.Session
		for i := range 70 {
			tenant := fmt.Sprintf("tnt_%d", i%3)
			switch i % 4 {
			case 0:
				s := placed(st, tenant, recsA)
				ws = append(ws, st.CreateRef(s, st.Page(pageA, "live", "books.search", recsA)))
				sessions = append(sessions, s)
			case 1:
				s := placed(st, tenant, recsB)
				ws = append(ws, st.CreateRef(s, st.Page(pageB, "live", "books.search", recsB)))
				sessions = append(sessions, s)
			default:
				s := newSession(st, tenant, 1+i%5)
				ws = append(ws, st.Create(s))
				sessions = append(sessions, s)
			}
		}
		g, ok := ws[0].(tenants.Grouped)
		if !ok || g.Group() == "" {
			t.Fatal("a new session's write is not grouped")
		}
		if err := db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error { return g.ApplyGroup(ctx, tx, ws) }); err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			w.Committed()
		}
		other := newStore(t, db)
		for _, s := range sessions {
			got, err := other.Get(ctx, s.TenantID, "live", s.ID)
			if err != nil {
				t.Fatalf("session %s: %v", s.ID, err)
			}
			if len(got.Records) != len(s.Records) {
				t.Fatalf("session %s: %d records, want %d", s.ID, len(got.Records), len(s.Records))
			}
			for i, r := range got.Records {
				if r.ID != s.Records[i].ID || string(r.Body) != string(s.Records[i].Body) {
					t.Fatalf("session %s record %d: %s %s, want %s %s", s.ID, i, r.ID, r.Body, s.Records[i].ID, s.Records[i].Body)
				}
			}
		}
		var pages int
		if err := db.NewSelect().Table("searches").ColumnExpr("count(*)").Where("tenant_id = ''").Scan(ctx, &pages); err != nil {
			t.Fatal(err)
		}
		if pages != 2 {
			t.Errorf("%d page rows, want 2", pages)
		}
		// An advance is applied alone: it may be refused.
		if g, _ := st.Advance(sessions[2]).(tenants.Grouped); g == nil || g.Group() != "" {
			t.Error("an advance is grouped")
		}
	})
}

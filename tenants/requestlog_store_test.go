package tenants_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun/migrate"

	"github.com/capgate/capgate/internal/ids"
	"github.com/capgate/capgate/migrations"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestRequestsByID: an id the gateway made is found by the time it carries, a client's own id
// (or a gateway-shaped one whose time is off) by its id row; an id used twice finds both calls;
// another tenant's calls are never found.
func TestRequestsByID(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		l := tenants.NewRequestLog(db, tenants.RequestLogOptions{})
		defer l.Close()
		now := time.Now()
		ours := ids.New("req_", now, 12)
		off := ids.New("req_", now.Add(-time.Hour), 12)
		for i, e := range []tenants.RequestEntry{
			{TenantID: "tnt_a", RequestID: ours, Status: 200, Route: "/mcp", AtUS: now.UnixMicro()},
			{TenantID: "tnt_a", RequestID: ours, Status: 502, Route: "/v1/x", AtUS: now.Add(40 * time.Millisecond).UnixMicro()},
			{TenantID: "tnt_a", RequestID: "client-trace-1", Status: 400, AtUS: now.UnixMicro()},
			{TenantID: "tnt_a", RequestID: off, Status: 200, AtUS: now.UnixMicro()},
			{TenantID: "tnt_b", RequestID: "client-trace-1", Status: 200, AtUS: now.UnixMicro()},
		} {
			l.Record(e)
			if i == 2 {
				if err := l.Flush(ctx); err != nil { // two batches
					t.Fatal(err)
				}
			}
		}
		for i := range 3000 { // others around the same time, so the segments read by time hold more
			l.Record(tenants.RequestEntry{TenantID: "tnt_a", RequestID: ids.New("req_", now, 12), Status: 200, AtUS: now.Add(time.Duration(i) * time.Millisecond).UnixMicro()})
		}
		if err := l.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		s := tenants.NewStore(db)
		for _, tc := range []struct {
			tenant, id string
			statuses   []int
		}{
			{"tnt_a", ours, []int{502, 200}},
			{"tnt_a", "client-trace-1", []int{400}},
			{"tnt_b", "client-trace-1", []int{200}},
			{"tnt_a", off, []int{200}},
			{"tnt_b", ours, nil},
			{"tnt_a", "nobody", nil},
			{"tnt_a", ids.New("req_", now, 12), nil},
		} {
			es, err := s.RequestsByID(ctx, tc.tenant, tc.id)
			if err != nil {
				t.Fatal(err)
			}
			var statuses []int
			for _, e := range es {
				if e.RequestID != tc.id || e.TenantID != tc.tenant {
					t.Fatalf("%s %s: found %+v", tc.tenant, tc.id, e)
				}
				statuses = append(statuses, e.Status)
			}
			if !slices.Equal(statuses, tc.statuses) {
				t.Errorf("%s %s: statuses %v, want %v", tc.tenant, tc.id, statuses, tc.statuses)
			}
		}
	})
}

// TestRequestLogMigrationConverts: the rows of the row-per-call table (migration 43/44) are
// still listed, looked up by request id and summed in usage after the migration to segments.
func TestRequestLogMigrationConverts(t *testing.T) {
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			db, err := tenants.Open(b.DSN(t), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			all, err := migrations.For(string(db.Kind))
			if err != nil {
				t.Fatal(err)
			}
			before := migrate.NewMigrations()
			for _, m := range all.Sorted() {
				if m.Name < "20261127000045" {
					before.Add(m)
				}
			}
			m := migrate.NewMigrator(db.DB, before)
			if err := m.Init(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := m.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			base := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
			// 2,500 calls a second apart, alternately of two tenants, every tenth a 503: over 1,000
			// ids and ten-minute windows, so several segments.
			if _, err := db.NewRaw("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2499) "+
				"INSERT INTO request_log (tenant_id, key_id, mode, via, method, route, capability, action, status, error_code, "+
				"error_message, credits, latency_us, request_id, at_us) SELECT CASE i % 2 WHEN 0 THEN 'tnt_a' ELSE 'tnt_b' END, "+
				"'key_1', 'live', 'api', 'POST', '/v1/x', 'books.search', 'search', CASE i % 10 WHEN 0 THEN 503 ELSE 200 END, "+
				"CASE i % 10 WHEN 0 THEN 'upstream_unavailable' ELSE '' END, 'a \"quoted\" message', 1, 500, 'old-' || i, "+
				"? + i * CAST(1000000 AS BIGINT) FROM n", base.UnixMicro()).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			s := tenants.NewStore(db)
			n, pages, f := 0, 0, tenants.RequestFilter{TenantID: "tnt_a", Limit: 100}
			last := int64(1 << 62)
			for ; ; pages++ {
				es, next, err := s.Requests(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range es {
					if e.AtUS > last || e.ErrorMessage != `a "quoted" message` || e.KeyID != "key_1" {
						t.Fatalf("entry %+v after %d", e, last)
					}
					last = e.AtUS
				}
				n += len(es)
				if f.Cursor = next; next == "" {
					break
				}
			}
			if n != 1250 {
				t.Fatalf("%d converted entries listed, want 1250", n)
			}
			es, err := s.RequestsByID(ctx, "tnt_b", "old-1001")
			if err != nil || len(es) != 1 || es[0].AtUS != base.Add(1001*time.Second).UnixMicro() {
				t.Fatalf("lookup: %+v %v", es, err)
			}
			rows, err := s.UsageSummary(ctx, "tnt_a", tenants.UsageByCapability, base.Add(-time.Hour), base.Add(time.Hour))
			if err != nil || len(rows) != 1 || rows[0].Calls != 1250 || rows[0].Errors != 250 || rows[0].Credits != 1250 || rows[0].AvgLatUS != 500 {
				t.Fatalf("usage %+v %v", rows, err)
			}
			// New segments follow the converted ones.
			l := tenants.NewRequestLog(db, tenants.RequestLogOptions{})
			defer l.Close()
			l.Record(tenants.RequestEntry{TenantID: "tnt_a", Status: 200, AtUS: base.Add(time.Hour).UnixMicro()})
			if err := l.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if es, _, err := s.Requests(ctx, tenants.RequestFilter{TenantID: "tnt_a", Limit: 1}); err != nil || len(es) != 1 || es[0].AtUS != base.Add(time.Hour).UnixMicro() {
				t.Fatalf("after a new write: %+v %v", es, err)
			}
		})
	}
}

// TestRequestLogUsageByHour: usage is summed per hour as batches are written, counts every
// hour a range touches, and outlives the log's own retention.
func TestRequestLogUsageByHour(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		base := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
		l := tenants.NewRequestLog(db, tenants.RequestLogOptions{Retention: time.Hour, Now: func() time.Time { return base.Add(48 * time.Hour) }})
		defer l.Close()
		for i := range 6 { // 10:00, 10:20, 10:40, 11:00, 11:20, 11:40
			l.Record(tenants.RequestEntry{TenantID: "tnt_u", KeyID: "key_1", Capability: "web.search", Status: 200 + 300*(i%2), Credits: 2,
				LatencyUS: 1000, AtUS: base.Add(time.Duration(i) * 20 * time.Minute).UnixMicro()})
			if i == 2 {
				if err := l.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := l.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Prune(ctx); err != nil { // the entries go; the sums stay
			t.Fatal(err)
		}
		s := tenants.NewStore(db)
		for _, tc := range []struct {
			from, to time.Time
			calls    int64
			errors   int64
		}{
			{base, base.Add(2 * time.Hour), 6, 3},
			{base.Add(30 * time.Minute), base.Add(61 * time.Minute), 6, 3}, // touches both hours
			{base.Add(time.Hour), base.Add(2 * time.Hour), 3, 2},
			{base.Add(2 * time.Hour), base.Add(3 * time.Hour), 0, 0},
		} {
			rows, err := s.UsageSummary(ctx, "tnt_u", tenants.UsageByKey, tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			var calls, errs, credits int64
			for _, r := range rows {
				calls, errs, credits = calls+r.Calls, errs+r.Errors, credits+r.Credits
			}
			if calls != tc.calls || errs != tc.errors || credits != 2*calls {
				t.Errorf("%v–%v: %d calls %d errors %d credits, want %d calls", tc.from, tc.to, calls, errs, credits, tc.calls)
			}
		}
		if es, _, _ := s.Requests(ctx, tenants.RequestFilter{TenantID: "tnt_u"}); len(es) != 0 {
			t.Fatalf("%d entries outlived the retention", len(es))
		}
	})
}

// TestRequestLogListingTies: segments whose latest entries arrived on the same microsecond (one
// per batch here, as instances writing at once make them) are each read once across the
// listing's queries, whose keyset continues inside the tie.
func TestRequestLogListingTies(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		l := tenants.NewRequestLog(db, tenants.RequestLogOptions{})
		defer l.Close()
		at := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC).UnixMicro()
		for i := range 23 {
			l.Record(tenants.RequestEntry{TenantID: "tnt_t", Status: 200 + i, AtUS: at})
			if err := l.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		s := tenants.NewStore(db)
		for _, limit := range []int{1, 5, 100} {
			seen := map[int]bool{}
			f := tenants.RequestFilter{TenantID: "tnt_t", Limit: limit}
			for range 100 {
				es, next, err := s.Requests(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range es {
					if seen[e.Status] {
						t.Fatalf("limit %d: %d listed twice", limit, e.Status)
					}
					seen[e.Status] = true
				}
				if f.Cursor = next; next == "" {
					break
				}
			}
			if len(seen) != 23 {
				t.Fatalf("limit %d: %d of 23 listed", limit, len(seen))
			}
		}
	})
}

package tenants_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun/migrate"

	"github.com/capgate/capgate/internal/ids"
	"github.com/capgate/capgate/migrations"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestRequestLogListing: whatever batches the entries were written in (a slow call lands in a
// later batch than calls that arrived after it; another tenant's calls share the batches), a
// listing read page by page gives exactly the tenant's matching entries, newest first, each
// once, for any filter, range and page size; also when a page may decode only a few entries.
func TestRequestLogListing(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		l := tenants.NewRequestLog(db, tenants.RequestLogOptions{})
		defer l.Close()
		r := rand.New(rand.NewPCG(7, 11))
		base := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC).UnixMicro()
		var mine []tenants.RequestEntry
		for batch := range 12 {
			for range 40 + r.IntN(80) {
				at := base + int64(batch)*int64(90*time.Second/time.Microsecond) + r.Int64N(int64(2*time.Minute/time.Microsecond))
				if r.IntN(10) == 0 {
					at -= r.Int64N(int64(20 * time.Minute / time.Microsecond)) // a slow call, or a clock step
				}
				if r.IntN(5) == 0 {
					at = base + int64(batch)*1000 // ties on time
				}
				e := tenants.RequestEntry{TenantID: []string{"tnt_a", "tnt_b"}[r.IntN(2)], KeyID: []string{"key_1", "key_2", "key_3"}[r.IntN(3)],
					Mode: []string{"live", "test"}[r.IntN(2)], Capability: []string{"books.search", "web.search", ""}[r.IntN(3)],
					Status: []int{200, 200, 200, 400, 404, 503}[r.IntN(6)], AtUS: at, RequestID: fmt.Sprintf("r%d", r.IntN(1000))}
				if e.Status >= 400 {
					e.ErrorCode = []string{"invalid_request", "upstream_unavailable"}[r.IntN(2)]
				}
				l.Record(e)
				if e.TenantID == "tnt_a" {
					mine = append(mine, e)
				}
			}
			if err := l.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		s := tenants.NewStore(db)
		mid := time.UnixMicro(base + int64(8*time.Minute/time.Microsecond))
		filters := []tenants.RequestFilter{
			{}, {KeyID: "key_2"}, {Mode: "test", Capability: "books.search"}, {Status: 404}, {Status: 5, StatusClass: true},
			{Status: 2, StatusClass: true}, {ErrorCode: "invalid_request"}, {From: mid}, {To: mid}, {From: mid, To: mid.Add(5 * time.Minute), KeyID: "key_1"},
		}
		for _, scan := range []int{0, 30} {
			if scan > 0 {
				defer tenants.SetMaxScanEntries(scan)()
			}
			for _, f := range filters {
				for _, limit := range []int{1, 7, 100} {
					f.TenantID, f.Limit, f.Cursor = "tnt_a", limit, ""
					var got []tenants.RequestEntry
					for pages := 0; ; pages++ {
						es, next, err := s.Requests(ctx, f)
						if err != nil || len(es) > limit || pages > 2000 {
							t.Fatalf("%+v: %d entries, %d pages (%v)", f, len(es), pages, err)
						}
						got = append(got, es...)
						if next == "" {
							break
						}
						f.Cursor = next
					}
					want := expectedListing(mine, f)
					if len(got) != len(want) {
						t.Fatalf("scan %d %+v: listed %d, want %d", scan, f, len(got), len(want))
					}
					seen := map[int64]bool{}
					for i := range got {
						if seen[got[i].ID] || (i > 0 && got[i].AtUS > got[i-1].AtUS) {
							t.Fatalf("scan %d %+v: entry %d (%+v) repeated or out of order", scan, f, i, got[i])
						}
						seen[got[i].ID] = true
					}
					// Entries on one microsecond may come in any order: compare as sets.
					slices.SortFunc(got, byFields)
					slices.SortFunc(want, byFields)
					for i := range got {
						if byFields(got[i], want[i]) != 0 {
							t.Fatalf("scan %d %+v: entry %d is %+v, want %+v", scan, f, i, got[i], want[i])
						}
					}
				}
			}
		}
	})
}

func byFields(a, b tenants.RequestEntry) int {
	return cmp.Or(cmp.Compare(a.AtUS, b.AtUS), cmp.Compare(a.Status, b.Status), cmp.Compare(a.KeyID, b.KeyID),
		cmp.Compare(a.Mode, b.Mode), cmp.Compare(a.Capability, b.Capability), cmp.Compare(a.RequestID, b.RequestID))
}

// expectedListing is what a listing must give: the entries matching f.
func expectedListing(all []tenants.RequestEntry, f tenants.RequestFilter) []tenants.RequestEntry {
	var out []tenants.RequestEntry
	for _, e := range all {
		switch {
		case f.KeyID != "" && e.KeyID != f.KeyID, f.Mode != "" && e.Mode != f.Mode, f.Capability != "" && e.Capability != f.Capability,
			f.ErrorCode != "" && e.ErrorCode != f.ErrorCode, f.StatusClass && e.Status/100 != f.Status,
			!f.StatusClass && f.Status != 0 && e.Status != f.Status,
			!f.From.IsZero() && e.AtUS < f.From.UnixMicro(), !f.To.IsZero() && e.AtUS >= f.To.UnixMicro():
			continue
		}
		out = append(out, e)
	}
	return out
}

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
			for i := range 2500 { // over 1,000 ids and ten-minute windows: several segments
				at := base.Add(time.Duration(i) * time.Second)
				status, code := 200, ""
				if i%10 == 0 {
					status, code = 503, "upstream_unavailable"
				}
				if _, err := db.NewRaw("INSERT INTO request_log (tenant_id, key_id, mode, via, method, route, capability, action, status, "+
					"error_code, error_message, credits, latency_us, request_id, at_us) VALUES (?, 'key_1', 'live', 'api', 'POST', '/v1/x', "+
					"'books.search', 'search', ?, ?, 'a \"quoted\" message', 1, 500, ?, ?)",
					[]string{"tnt_a", "tnt_b"}[i%2], status, code, fmt.Sprintf("old-%d", i), at.UnixMicro()).Exec(ctx); err != nil {
					t.Fatal(err)
				}
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

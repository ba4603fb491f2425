//go:build !race

package tenants_test

// The request log's listing sweep: thousands of sequential page reads, in which the race
// detector finds nothing the concurrent tests miss; scripts/test.sh runs it in a plain build.

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

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

package tenants_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/internal/ids"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestRequestLogRetention: Prune deletes exactly the entries older than the retention by the
// log's clock (injected: no sleeps), and keeps the rest readable.
func TestRequestLogRetention(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		var now atomic.Int64
		base := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
		now.Store(base.UnixMicro())
		l := tenants.NewRequestLog(db, tenants.RequestLogOptions{Retention: 48 * time.Hour, PruneEvery: time.Hour,
			Now: func() time.Time { return time.UnixMicro(now.Load()) }})
		defer l.Close()
		// 7 days of entries, one an hour, written oldest first as the writer does: 168, of which
		// the last 48 hours are kept.
		for h := 7*24 - 1; h >= 0; h-- {
			l.Record(tenants.RequestEntry{TenantID: "tnt_a", KeyID: "key_a", Status: 200, RequestID: "r",
				AtUS: base.Add(-time.Duration(h)*time.Hour - time.Minute).UnixMicro()})
		}
		if err := l.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		s := tenants.NewStore(db)
		count := func() int {
			es, _, err := s.Requests(ctx, tenants.RequestFilter{TenantID: "tnt_a", Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			return len(es)
		}
		if n := count(); n != 168 {
			t.Fatalf("%d entries written", n)
		}
		n, err := l.Prune(ctx)
		if err != nil || n != 168-48 {
			t.Fatalf("pruned %d (%v), want %d", n, err, 168-48)
		}
		if n := count(); n != 48 {
			t.Fatalf("%d entries kept", n)
		}
		// A day later by the clock, another 24 go.
		now.Store(base.Add(24 * time.Hour).UnixMicro())
		if n, err := l.Prune(ctx); err != nil || n != 24 {
			t.Fatalf("pruned %d (%v)", n, err)
		}
		if _, _, _, pruned := l.Stats(); pruned != 168-48+24 {
			t.Fatalf("pruned counter %d", pruned)
		}
	})
}

// TestRequestLogStoresHostileText: an entry holding a NUL byte or invalid UTF-8 (PostgreSQL
// refuses both) is written cleaned, and does not lose its batch.
func TestRequestLogStoresHostileText(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		l := tenants.NewRequestLog(db, tenants.RequestLogOptions{})
		defer l.Close()
		l.Record(tenants.RequestEntry{TenantID: "tnt_h", Status: 400, ErrorMessage: "bad \x00 byte \xff", Route: "/v1/\xfe", AtUS: time.Now().UnixMicro()})
		l.Record(tenants.RequestEntry{TenantID: "tnt_h", Status: 200, AtUS: time.Now().UnixMicro()})
		if err := l.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		es, _, err := tenants.NewStore(db).Requests(ctx, tenants.RequestFilter{TenantID: "tnt_h"})
		if err != nil || len(es) != 2 {
			t.Fatalf("%d entries (%v)", len(es), err)
		}
		if w, _, f, _ := l.Stats(); w != 2 || f != 0 {
			t.Fatalf("written %d failed %d", w, f)
		}
	})
}

// TestRequestLogNeverBlocks: recording after Close, or into a full buffer, drops and counts
// the entry instead of waiting.
func TestRequestLogNeverBlocks(t *testing.T) {
	db := tenantstest.SQLite(t)
	l := tenants.NewRequestLog(db, tenants.RequestLogOptions{Buffer: 1})
	l.Close()
	for range 10 {
		l.Record(tenants.RequestEntry{TenantID: "tnt_c", Status: 200})
	}
	if _, d, _, _ := l.Stats(); d != 10 {
		t.Fatalf("dropped %d, want 10", d)
	}
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestRequestsNeedTenant: a query without a tenant is refused, never all tenants' entries.
func TestRequestsNeedTenant(t *testing.T) {
	s := tenants.NewStore(tenantstest.SQLite(t))
	if _, _, err := s.Requests(context.Background(), tenants.RequestFilter{}); err == nil {
		t.Fatal("a query without a tenant was answered")
	}
	if _, err := s.UsageSummary(context.Background(), "", tenants.UsageByDay, time.Time{}, time.Time{}); err == nil {
		t.Fatal("usage without a tenant was answered")
	}
}

// BenchmarkRequestLogRecord: what a call pays for its entry (a non-blocking send to the
// buffer), with the writer draining into SQLite behind.
func BenchmarkRequestLogRecord(b *testing.B) {
	l := tenants.NewRequestLog(tenantstest.SQLite(b), tenants.RequestLogOptions{})
	defer l.Close()
	e := tenants.RequestEntry{TenantID: "tnt_bench", KeyID: "key_bench", Mode: "live", Via: "api", Method: "POST",
		Route: "/v1/capabilities/:id/execute", Capability: "books.search", Action: "search", Status: 200, Credits: 1,
		LatencyUS: 800, RequestID: "req_0123456789abcdef"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.AtUS = int64(i)
		l.Record(e)
	}
	b.StopTimer()
	_, dropped, _, _ := l.Stats()
	b.ReportMetric(float64(dropped)/float64(b.N), "dropped/op")
}

// BenchmarkRequestLogWrite: what the background writer spends per logged call (the CPU the log
// takes from the hot path's cores): entries of a few tenants, mostly successes, written in the
// writer's batches into SQLite. Request ids come as the gateway makes them (found by the time they
// carry: no index row) or random, as a client may choose them (an id row each, in an index over
// random keys that dirties a page per row).
func BenchmarkRequestLogWrite(b *testing.B) {
	for _, ids := range []struct {
		name string
		id   func(i int) string
	}{
		{"client-ids", func(int) string { return "req_" + strconv.FormatUint(rand.Uint64(), 36) }},
		{"gateway-ids", func(int) string { return ids.New("req_", time.Now(), 12) }},
	} {
		b.Run(ids.name, func(b *testing.B) {
			l := tenants.NewRequestLog(tenantstest.SQLite(b), tenants.RequestLogOptions{})
			defer l.Close()
			ctx := context.Background()
			tenantIDs := []string{"tnt_0123456789abcdef", "tnt_1123456789abcdef", "tnt_2123456789abcdef", "tnt_3123456789abcdef"}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e := tenants.RequestEntry{TenantID: tenantIDs[i%len(tenantIDs)], KeyID: "key_0123456789abcdef", Mode: "live", Via: "api",
					Method: "POST", Route: "/v1/capabilities/:id/execute", Capability: "books.search", Action: "search", Status: 200,
					Credits: 1, LatencyUS: 800, RequestID: ids.id(i), AtUS: time.Now().UnixMicro()}
				if i%50 == 49 {
					e.Status, e.ErrorCode, e.ErrorMessage = 503, "upstream_unavailable", "the upstream did not answer in time"
				}
				l.Record(e)
				if i%1000 == 999 {
					if err := l.Flush(ctx); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := l.Flush(ctx); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if _, dropped, failed, _ := l.Stats(); dropped+failed != 0 {
				b.Fatalf("dropped %d failed %d", dropped, failed)
			}
		})
	}
}

// TestRequestLogPruneStragglers: entries written a little out of time order (a batch, a slow
// call) are pruned by their own time: none at or after the cutoff goes, and every one well
// before it does.
func TestRequestLogPruneStragglers(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		base := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
		l := tenants.NewRequestLog(db, tenants.RequestLogOptions{Retention: 24 * time.Hour, PruneEvery: time.Hour,
			Now: func() time.Time { return base }})
		defer l.Close()
		cutoff := base.Add(-24 * time.Hour)
		// An entry every 5 minutes over 48 hours, each swapped with its neighbour: never in order.
		var ats []time.Time
		for m := 48 * 60; m > 0; m -= 10 {
			ats = append(ats, base.Add(-time.Duration(m-5)*time.Minute), base.Add(-time.Duration(m)*time.Minute))
		}
		for _, at := range ats {
			l.Record(tenants.RequestEntry{TenantID: "tnt_s", Status: 200, AtUS: at.UnixMicro()})
		}
		if err := l.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Prune(ctx); err != nil {
			t.Fatal(err)
		}
		es, _, err := tenants.NewStore(db).Requests(ctx, tenants.RequestFilter{TenantID: "tnt_s", Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		kept := map[int64]bool{}
		for _, e := range es {
			kept[e.AtUS] = true
		}
		for _, at := range ats {
			switch {
			case !at.Before(cutoff) && !kept[at.UnixMicro()]:
				t.Fatalf("the entry of %v, inside the retention, was pruned", at)
			case at.Before(cutoff.Add(-5*time.Minute)) && kept[at.UnixMicro()]:
				t.Fatalf("the entry of %v, older than the retention, was kept", at)
			}
		}
	})
}

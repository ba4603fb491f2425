package tenants_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// BenchmarkNearCapCalls: each iteration is 64 concurrent 1-credit calls (reserve, then settle
// through the group commit) against a fresh tenant 50 credits below its cap, on PostgreSQL. Near
// the cap every reservation needs a top-up of the lease from the period row; the reported p50
// and p99 are over every call of every iteration (50 succeed, 14 find the cap used up).
func BenchmarkNearCapCalls(b *testing.B) {
	db := tenantstest.Postgres(b)
	ctx := context.Background()
	s := tenants.NewStore(db)
	m := tenants.NewMeter(db, tenants.MeterOptions{})
	defer m.Close()
	base, err := s.Plan(ctx, "free")
	if err != nil {
		b.Fatal(err)
	}
	plan := *base
	plan.CreditCap = 1000
	var lat []time.Duration
	var mu sync.Mutex
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tn, err := s.CreateTenant(ctx, fmt.Sprintf("Near cap %d", i), "free", "")
		if err != nil {
			b.Fatal(err)
		}
		pre, err := m.Reserve(ctx, tn, &plan, tenants.ModeLive, plan.CreditCap-50)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := m.Settle(ctx, pre, plan.CreditCap-50, tenants.LedgerEntry{RequestID: "req_pre", Capability: "web.search", Action: "execute"}); err != nil {
			b.Fatal(err)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		var ok, exhausted int
		for c := 0; c < 64; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				t0 := time.Now()
				r, err := m.Reserve(ctx, tn, &plan, tenants.ModeLive, 1)
				if err == nil {
					_, _, err = m.Settle(ctx, r, 1, tenants.LedgerEntry{RequestID: "req_near", Capability: "web.search", Action: "execute"})
				}
				d := time.Since(t0)
				mu.Lock()
				defer mu.Unlock()
				lat = append(lat, d)
				switch {
				case err == nil:
					ok++
				case errors.Is(err, tenants.ErrCreditsExhausted):
					exhausted++
				default:
					b.Error(err)
				}
			}()
		}
		b.StartTimer()
		close(start)
		wg.Wait()
		b.StopTimer()
		if ok != 50 || exhausted != 14 {
			b.Fatalf("%d calls succeeded, %d found the cap used up; want 50 and 14", ok, exhausted)
		}
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

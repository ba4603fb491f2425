package tenants_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestShownBalanceNeverExceedsLedger: right after a 200-call race against a cap of 30, the used
// this instance shows (each settlement's balance and the account balance) never exceeds what the
// ledger holds. A settlement whose charge a concurrent top-up's read of the period already held
// added it a second time (issue 30: used 32 of a cap of 30 while the ledger said 30).
func TestShownBalanceNeverExceedsLedger(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		m := tenants.NewMeter(db, tenants.MeterOptions{})
		defer m.Close()
		tn, p := newTenant(t, s, "free")
		plan := *p
		plan.CreditCap = 30
		var mu sync.Mutex
		shown := []int64{}
		var wg sync.WaitGroup
		for i := 0; i < 200; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := m.Reserve(ctx, tn, &plan, tenants.ModeLive, 1)
				if errors.Is(err, tenants.ErrCreditsExhausted) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				_, bal, err := m.Settle(ctx, r, 1, tenants.LedgerEntry{RequestID: "req_view", Capability: "web.search", Action: "execute"})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				shown = append(shown, bal.Used)
				mu.Unlock()
			}()
		}
		wg.Wait()
		start, _ := tenants.PeriodAt(tn.PeriodAnchor, time.Now())
		ledger, err := s.LedgerSum(ctx, tn.ID, tenants.ModeLive, start.Truncate(time.Microsecond))
		if err != nil {
			t.Fatal(err)
		}
		if ledger != plan.CreditCap || int64(len(shown)) != ledger {
			t.Fatalf("ledger %d, settled calls %d, want both %d", ledger, len(shown), plan.CreditCap)
		}
		for _, u := range shown {
			if u > ledger {
				t.Fatalf("a settlement showed used %d while the ledger holds %d", u, ledger)
			}
		}
		bal, err := m.Balance(ctx, tn, &plan, tenants.ModeLive)
		if err != nil {
			t.Fatal(err)
		}
		if bal.Used != ledger {
			t.Fatalf("the account shows used %d of %d, the ledger holds %d", bal.Used, bal.Cap, ledger)
		}
	})
}

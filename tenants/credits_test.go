package tenants_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

func newTenant(t *testing.T, s *tenants.Store, plan string) (*tenants.Tenant, *tenants.Plan) {
	t.Helper()
	ctx := context.Background()
	tn, err := s.CreateTenant(ctx, "Acme", plan, "ops@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	return tn, p
}

// 200 concurrent charges of 1 against a remaining allowance of 50 give exactly 50 successes,
// and used equals the ledger sum afterwards.
func TestConcurrentChargesNeverExceedCap(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		m := tenants.NewMeter(db, tenants.MeterOptions{})
		defer m.Close()
		tn, plan := newTenant(t, s, "free")
		// Use up all but 50 of the cap with settled charges.
		pre, err := m.Reserve(ctx, tn, plan, tenants.ModeLive, plan.CreditCap-50)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := m.Settle(ctx, pre, plan.CreditCap-50, tenants.LedgerEntry{RequestID: "req_pre", Capability: "web.search", Action: "execute"}); err != nil {
			t.Fatal(err)
		}
		var ok, exhausted, other atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 200; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := m.Reserve(ctx, tn, plan, tenants.ModeLive, 1)
				switch {
				case errors.Is(err, tenants.ErrCreditsExhausted):
					exhausted.Add(1)
					return
				case err != nil:
					other.Add(1)
					t.Error(err)
					return
				}
				if _, _, err := m.Settle(ctx, r, 1, tenants.LedgerEntry{RequestID: "req_c", Capability: "web.search", Action: "execute"}); err != nil {
					other.Add(1)
					t.Error(err)
					return
				}
				ok.Add(1)
			}()
		}
		wg.Wait()
		if ok.Load() != 50 || exhausted.Load() != 150 || other.Load() != 0 {
			t.Fatalf("successes %d, exhausted %d, errors %d; want 50, 150, 0", ok.Load(), exhausted.Load(), other.Load())
		}
		bal, err := s.Balance(ctx, tn, plan, tenants.ModeLive)
		if err != nil {
			t.Fatal(err)
		}
		if bal.Used != plan.CreditCap {
			t.Fatalf("used %d, want %d", bal.Used, plan.CreditCap)
		}
		start, _ := tenants.PeriodAt(tn.PeriodAnchor, time.Now())
		sum, err := s.LedgerSum(ctx, tn.ID, tenants.ModeLive, start.Truncate(time.Microsecond))
		if err != nil {
			t.Fatal(err)
		}
		if sum != bal.Used {
			t.Fatalf("ledger sum %d != used %d", sum, bal.Used)
		}
	})
}

func TestSettleRefundAndClamp(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		m := tenants.NewMeter(db, tenants.MeterOptions{})
		defer m.Close()
		tn, plan := newTenant(t, s, "free")
		bal := func() int64 {
			t.Helper()
			b, err := s.Balance(ctx, tn, plan, tenants.ModeLive)
			if err != nil {
				t.Fatal(err)
			}
			return b.Used
		}
		// A reservation holds its credits: nothing else can take them until it is refunded. Used
		// counts settled credits only, so a call that never settles never shows in used.
		r, err := m.Reserve(ctx, tn, plan, tenants.ModeLive, 10)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Reserve(ctx, tn, plan, tenants.ModeLive, plan.CreditCap-9); !errors.Is(err, tenants.ErrCreditsExhausted) {
			t.Fatalf("reserve beside a held reservation: %v", err)
		}
		if got := bal(); got != 0 {
			t.Fatalf("after reserve used %d", got)
		}
		if err := m.Refund(ctx, r); err != nil {
			t.Fatal(err)
		}
		if got := bal(); got != 0 {
			t.Fatalf("after refund used %d", got)
		}
		if r2, err := m.Reserve(ctx, tn, plan, tenants.ModeLive, plan.CreditCap); err != nil {
			t.Fatalf("the refunded credits are free again: %v", err)
		} else {
			_ = m.Refund(ctx, r2)
		}
		// Settling lower than reserved gives the difference back.
		r, _ = m.Reserve(ctx, tn, plan, tenants.ModeLive, 10)
		if c, _, err := m.Settle(ctx, r, 4, tenants.LedgerEntry{RequestID: "a", Capability: "x", Action: "execute"}); err != nil || c != 4 {
			t.Fatalf("settle: %d %v", c, err)
		}
		if got := bal(); got != 4 {
			t.Fatalf("used %d, want 4", got)
		}
		// Settling above the reservation is clamped at the cap.
		r, _ = m.Reserve(ctx, tn, plan, tenants.ModeLive, 1)
		c, _, err := m.Settle(ctx, r, plan.CreditCap*2, tenants.LedgerEntry{RequestID: "b", Capability: "x", Action: "execute"})
		if err != nil || c != plan.CreditCap-4 {
			t.Fatalf("clamped settle charged %d (%v), want %d", c, err, plan.CreditCap-4)
		}
		if got := bal(); got != plan.CreditCap {
			t.Fatalf("used %d, want cap", got)
		}
		if _, err := m.Reserve(ctx, tn, plan, tenants.ModeLive, 1); !errors.Is(err, tenants.ErrCreditsExhausted) {
			t.Fatalf("reserve over cap: %v", err)
		}
		// Zero-cost calls still go through, and test mode has its own balance.
		if _, err := m.Reserve(ctx, tn, plan, tenants.ModeLive, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Reserve(ctx, tn, plan, tenants.ModeTest, 5); err != nil {
			t.Fatal(err)
		}
	})
}

func TestPeriodAt(t *testing.T) {
	anchor := time.Date(2026, 1, 31, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		now        time.Time
		start, end string
	}{
		{time.Date(2026, 1, 31, 10, 0, 0, 0, time.UTC), "2026-01-31", "2026-02-28"},
		{time.Date(2026, 2, 28, 9, 59, 0, 0, time.UTC), "2026-01-31", "2026-02-28"},
		{time.Date(2026, 2, 28, 10, 0, 0, 0, time.UTC), "2026-02-28", "2026-03-31"},
		{time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC), "2026-12-31", "2027-01-31"},
		{time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC), "2026-01-31", "2026-02-28"},
	}
	for _, c := range cases {
		s, e := tenants.PeriodAt(anchor, c.now)
		if s.Format("2006-01-02") != c.start || e.Format("2006-01-02") != c.end {
			t.Errorf("PeriodAt(%v) = %v..%v, want %s..%s", c.now, s, e, c.start, c.end)
		}
	}
}

func TestPlanEnablesAndCharge(t *testing.T) {
	free := tenants.Plan{Capabilities: "typical<=1", CreditMultiplier: 1.5}
	if !free.Enables("web.search", 1) || free.Enables("hotels.search", 4) {
		t.Fatal("typical<=1 rule")
	}
	list := tenants.Plan{Capabilities: "web.search, books.search"}
	if !list.Enables("books.search", 0) || list.Enables("music.search", 0) {
		t.Fatal("list rule")
	}
	if got := free.Charge(3, false); got != 5 {
		t.Fatalf("1.5 x 3 rounds up to 5, got %d", got)
	}
	if got := free.Charge(10, true); got != 10 {
		t.Fatalf("no multiplier: %d", got)
	}
}

// TestFreeCallsLeaveNoLedgerRow: a free call that changes nothing (a stored detail, a cached
// lookup repeat) skips the group commit; a free cache hit and a charged call each leave one row.
func TestFreeCallsLeaveNoLedgerRow(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		m := tenants.NewMeter(db, tenants.MeterOptions{})
		defer m.Close()
		tn, plan := newTenant(t, s, "free")
		rows := func() int64 {
			t.Helper()
			n, err := db.NewSelect().Table("ledger").Where("tenant_id = ?", tn.ID).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		settle := func(credits int64, e tenants.LedgerEntry) {
			t.Helper()
			r, err := m.Reserve(ctx, tn, plan, tenants.ModeLive, credits)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := m.Settle(ctx, r, credits, e); err != nil {
				t.Fatal(err)
			}
		}
		settle(0, tenants.LedgerEntry{RequestID: "req_free", Capability: "x", Action: "details"})
		if n := rows(); n != 0 {
			t.Fatalf("a free call that changes nothing wrote %d ledger rows", n)
		}
		settle(0, tenants.LedgerEntry{RequestID: "req_hit", Capability: "x", Action: "execute", Cache: "hit", CreditsSaved: 2})
		settle(2, tenants.LedgerEntry{RequestID: "req_paid", Capability: "x", Action: "execute"})
		if n := rows(); n != 2 {
			t.Fatalf("a free cache hit and a charged call: %d ledger rows, want 2", n)
		}
	})
}

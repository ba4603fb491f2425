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

// A key's own budget holds under concurrency and across two meters (two instances) sharing the
// database: 200 concurrent 1-credit calls on a key with a 10-credit budget give exactly 10
// successes, the others are refused by the key's budget, and the key's used and the ledger agree.
func TestKeyBudgetNeverOvershotAcrossInstances(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		m1 := tenants.NewMeter(db, tenants.MeterOptions{Instance: "a"})
		defer m1.Close()
		m2 := tenants.NewMeter(db, tenants.MeterOptions{Instance: "b"})
		defer m2.Close()
		tn, plan := newTenant(t, s, "free")
		k, _, err := s.CreateKeyWith(ctx, tn.ID, tenants.ModeLive, tenants.KeyPolicy{Label: "budgeted", CreditBudget: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ok, keyOut, other atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 200; i++ {
			m := m1
			if i%2 == 1 {
				m = m2
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := m.ReserveKey(ctx, tn, plan, k, 1)
				switch {
				case errors.Is(err, tenants.ErrKeyCreditsExhausted):
					keyOut.Add(1)
					return
				case err != nil:
					other.Add(1)
					t.Error(err)
					return
				}
				if _, _, err := m.Settle(ctx, r, 1, tenants.LedgerEntry{RequestID: "req_k", KeyID: k.ID, Capability: "web.search", Action: "execute"}); err != nil {
					other.Add(1)
					t.Error(err)
					return
				}
				ok.Add(1)
			}()
		}
		wg.Wait()
		if ok.Load() != 10 || keyOut.Load() != 190 || other.Load() != 0 {
			t.Fatalf("successes %d, key budget refusals %d, errors %d; want 10, 190, 0", ok.Load(), keyOut.Load(), other.Load())
		}
		used, err := s.KeyUsage(ctx, tn, k)
		if err != nil || used != 10 {
			t.Fatalf("key usage %d (%v), want 10", used, err)
		}
		bal, err := s.Balance(ctx, tn, plan, tenants.ModeLive)
		if err != nil || bal.Used != 10 {
			t.Fatalf("tenant used %d (%v), want 10", bal.Used, err)
		}
		// A key without a budget is not limited by the other key's.
		plain, _, err := s.CreateKey(ctx, tn.ID, tenants.ModeLive, "plain")
		if err != nil {
			t.Fatal(err)
		}
		r, err := m1.ReserveKey(ctx, tn, plan, plain, 1)
		if err != nil {
			t.Fatalf("plain key refused: %v", err)
		}
		_ = m1.Refund(ctx, r)
	})
}

// A charge above the reservation takes only what the key's budget still holds, and the tenant
// is charged the same; a refund returns the key's reservation.
func TestKeyBudgetSettleAndRefund(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		m := tenants.NewMeter(db, tenants.MeterOptions{})
		defer m.Close()
		tn, plan := newTenant(t, s, "free")
		k, _, err := s.CreateKeyWith(ctx, tn.ID, tenants.ModeLive, tenants.KeyPolicy{CreditBudget: 5})
		if err != nil {
			t.Fatal(err)
		}
		r, err := m.ReserveKey(ctx, tn, plan, k, 5)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Refund(ctx, r); err != nil {
			t.Fatal(err)
		}
		r, err = m.ReserveKey(ctx, tn, plan, k, 3)
		if err != nil {
			t.Fatalf("after a refund the budget is whole again: %v", err)
		}
		charged, _, err := m.Settle(ctx, r, 9, tenants.LedgerEntry{RequestID: "req_over", KeyID: k.ID, Capability: "web.search", Action: "execute"})
		if err != nil || charged != 5 {
			t.Fatalf("charged %d (%v), want 5 (the key's budget)", charged, err)
		}
		if _, err := m.ReserveKey(ctx, tn, plan, k, 1); !errors.Is(err, tenants.ErrKeyCreditsExhausted) {
			t.Fatalf("want the key's budget exhausted, got %v", err)
		}
		bal, err := s.Balance(ctx, tn, plan, tenants.ModeLive)
		if err != nil || bal.Used != 5 {
			t.Fatalf("tenant used %d (%v), want 5", bal.Used, err)
		}
		sum, err := s.LedgerSum(ctx, tn.ID, tenants.ModeLive, r.PeriodStart)
		if err != nil || sum != 5 {
			t.Fatalf("ledger %d (%v), want 5", sum, err)
		}
	})
}

func TestKeyPolicyValidationRollAndUpdate(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		tn, plan := newTenant(t, s, "free")
		past := time.Now().Add(-time.Hour)
		for _, tc := range []struct {
			name  string
			pol   tenants.KeyPolicy
			field string
		}{
			{"expiry in the past", tenants.KeyPolicy{ExpiresAt: &past}, "expires_at"},
			{"negative budget", tenants.KeyPolicy{CreditBudget: -1}, "credit_budget"},
			{"rate above the plan", tenants.KeyPolicy{RatePerMinute: plan.RatePerMinute + 1}, "rate_per_minute"},
			{"negative rate", tenants.KeyPolicy{RatePerMinute: -1}, "rate_per_minute"},
			{"label NUL", tenants.KeyPolicy{Label: "a\x00b"}, "label"},
			{"metadata too many keys", tenants.KeyPolicy{Metadata: manyKeys(51)}, "metadata"},
		} {
			_, _, err := s.CreateKeyWith(ctx, tn.ID, tenants.ModeLive, tc.pol)
			var ie *tenants.InvalidError
			if !errors.As(err, &ie) || ie.Field != tc.field {
				t.Errorf("%s: got %v, want an invalid %s", tc.name, err, tc.field)
			}
		}
		for _, raw := range []string{`[]`, `"x"`, `{"a":`, `{"a":"` + string(make([]byte, 5000)) + `"}`} {
			if _, err := tenants.ParseMetadata([]byte(raw)); !errors.Is(err, tenants.ErrInvalid) {
				t.Errorf("metadata %.20q accepted: %v", raw, err)
			}
		}
		md, err := tenants.ParseMetadata([]byte(`{"team":"search","n":3}`))
		if err != nil {
			t.Fatal(err)
		}
		k, raw, err := s.CreateKeyWith(ctx, tn.ID, tenants.ModeLive, tenants.KeyPolicy{Label: "ci", Metadata: md, Manage: true, RatePerMinute: 1})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.KeyByHash(ctx, tenants.HashKey(raw))
		if err != nil || !got.Manage || got.Metadata["team"] != "search" || got.RatePerMinute != 1 {
			t.Fatalf("stored key %+v (%v)", got, err)
		}
		// Roll with an overlap: both secrets find the key; only the new one is its hash.
		rolled, raw2, err := s.RollKey(ctx, k.ID, tn.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		old, err := s.KeyByHash(ctx, tenants.HashKey(raw))
		if err != nil || old.ID != k.ID || old.Hash == tenants.HashKey(raw) || !old.PreviousValid(time.Now()) {
			t.Fatalf("old secret after roll: %+v %v", old, err)
		}
		if nk, err := s.KeyByHash(ctx, tenants.HashKey(raw2)); err != nil || nk.ID != k.ID || nk.Hash != rolled.Hash {
			t.Fatalf("new secret: %v", err)
		}
		// Rolling again without an overlap ends both earlier secrets.
		if _, _, err := s.RollKey(ctx, k.ID, tn.ID, 0); err != nil {
			t.Fatal(err)
		}
		for _, r := range []string{raw, raw2} {
			if _, err := s.KeyByHash(ctx, tenants.HashKey(r)); !errors.Is(err, tenants.ErrNotFound) {
				t.Errorf("an earlier secret still finds the key: %v", err)
			}
		}
		if _, _, err := s.RollKey(ctx, k.ID, "ten_other", time.Hour); !errors.Is(err, tenants.ErrNotFound) {
			t.Errorf("another tenant rolled the key: %v", err)
		}
		// Update: a patch changes only what it names; another tenant cannot.
		budget := int64(42)
		_, after, err := s.UpdateKey(ctx, k.ID, tn.ID, tenants.KeyPatch{CreditBudget: &budget})
		if err != nil || after.CreditBudget != 42 || after.Label != "ci" || !after.Manage {
			t.Fatalf("update: %+v %v", after, err)
		}
		if _, _, err := s.UpdateKey(ctx, k.ID, "ten_other", tenants.KeyPatch{CreditBudget: &budget}); !errors.Is(err, tenants.ErrNotFound) {
			t.Errorf("another tenant updated the key: %v", err)
		}
		if _, err := s.RevokeKey(ctx, k.ID, tn.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.UpdateKey(ctx, k.ID, tn.ID, tenants.KeyPatch{CreditBudget: &budget}); !errors.Is(err, tenants.ErrKeyRevoked) {
			t.Errorf("a revoked key was updated: %v", err)
		}
	})
}

func manyKeys(n int) tenants.Metadata {
	m := tenants.Metadata{}
	for i := 0; i < n; i++ {
		m[string(rune('a'+i%26))+string(rune('a'+i/26))] = i
	}
	return m
}

package tenants_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

func TestPlansSeededOnceAndEditable(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		if n, err := s.SeedPlans(ctx); err != nil || n != 0 {
			t.Fatalf("second seed inserted %d (%v)", n, err)
		}
		ps, err := s.Plans(ctx)
		if err != nil || len(ps) != 3 {
			t.Fatalf("plans %v %v", ps, err)
		}
		free, _ := s.Plan(ctx, "free")
		free.CreditCap = 7
		if err := s.UpdatePlan(ctx, free); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SeedPlans(ctx); err != nil {
			t.Fatal(err)
		}
		if p, _ := s.Plan(ctx, "free"); p.CreditCap != 7 {
			t.Fatal("seeding overwrote an edited plan")
		}
		dup := tenants.Plan{ID: "pro", CreditCap: 1, RatePerMinute: 1, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stock"}
		if err := s.CreatePlan(ctx, &dup); !errors.Is(err, tenants.ErrExists) {
			t.Fatalf("duplicate plan: %v", err)
		}
		for _, bad := range []tenants.Plan{
			{ID: "", CreditCap: 1, RatePerMinute: 1, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stock"},
			{ID: "x", CreditCap: 1, RatePerMinute: 0, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stock"},
			{ID: "x", CreditCap: 1, RatePerMinute: 1, CreditMultiplier: 0, Capabilities: "all", SharpenMax: "stock"},
			{ID: "x", CreditCap: 1, RatePerMinute: 1, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stage9"},
		} {
			bad := bad
			if err := s.CreatePlan(ctx, &bad); err == nil {
				t.Errorf("plan %+v accepted", bad)
			}
		}
	})
}

func TestKeysHashedAndRevocable(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		tn, err := s.CreateTenant(ctx, "Acme", "pro", "")
		if err != nil {
			t.Fatal(err)
		}
		k, raw, err := s.CreateKey(ctx, tn.ID, tenants.ModeTest, "ci")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(raw, "cap_test_") || len(raw) != len("cap_test_")+32 || !tenants.WellFormedKey(raw) {
			t.Fatalf("raw key %q", raw)
		}
		if k.Hash == raw || strings.Contains(k.Hash, raw[9:]) || k.Prefix != raw[:12] {
			t.Fatal("key stored in the clear")
		}
		got, err := s.KeyByHash(ctx, tenants.HashKey(raw))
		if err != nil || got.ID != k.ID {
			t.Fatalf("lookup: %v", err)
		}
		other, _ := s.CreateTenant(ctx, "Other", "pro", "")
		if _, err := s.RevokeKey(ctx, k.ID, other.ID); !errors.Is(err, tenants.ErrNotFound) {
			t.Fatalf("revoked by another tenant: %v", err)
		}
		if r, err := s.RevokeKey(ctx, k.ID, tn.ID); err != nil || r.RevokedAt == nil {
			t.Fatalf("revoke: %v", err)
		}
		if _, _, err := s.CreateKey(ctx, "tnt_missing", tenants.ModeLive, ""); err == nil {
			t.Fatal("key for an unknown tenant")
		}
	})
}

func TestTenantsUsersAndSharpen(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		if _, err := s.CreateTenant(ctx, "X", "nope", ""); err == nil {
			t.Fatal("tenant on an unknown plan")
		}
		tn, _ := s.CreateTenant(ctx, "Acme 100%", "free", "ops@acme.test")
		if ts, _ := s.Tenants(ctx, "100%", 10, 0); len(ts) != 1 {
			t.Fatalf("search with a LIKE metacharacter: %d", len(ts))
		}
		if _, err := s.SetStatus(ctx, tn.ID, tenants.StatusSuspended); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetPlan(ctx, "tnt_missing", "pro"); !errors.Is(err, tenants.ErrNotFound) {
			t.Fatalf("set-plan unknown tenant: %v", err)
		}
		if _, err := s.CreateUser(ctx, tn.ID, "Owner@Acme.test", "short", tenants.RoleOwner); err == nil {
			t.Fatal("short password accepted")
		}
		u, err := s.CreateUser(ctx, tn.ID, "Owner@Acme.test", "correct horse battery", tenants.RoleOwner)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CheckPassword(ctx, "owner@acme.test", "correct horse battery"); err != nil {
			t.Fatalf("sign-in: %v", err)
		}
		if _, err := s.CheckPassword(ctx, "owner@acme.test", "wrong password!!"); err == nil {
			t.Fatal("wrong password accepted")
		}
		if u.PasswordHash == "correct horse battery" {
			t.Fatal("password stored in the clear")
		}
		plan, _ := s.Plan(ctx, "free")
		if st, _ := s.SharpenStage(ctx, tn.ID); st != "stock" {
			t.Fatalf("default stage %q", st)
		}
		if err := s.SetSharpenStage(ctx, tn.ID, plan, "stage1"); err == nil {
			t.Fatal("free plan allowed stage1")
		}
		pro, _ := s.Plan(ctx, "pro")
		if err := s.SetSharpenStage(ctx, tn.ID, pro, "stage2"); err != nil {
			t.Fatal(err)
		}
		if err := s.SetSharpenStage(ctx, tn.ID, pro, "stage3"); err != nil {
			t.Fatal(err)
		}
		if st, _ := s.SharpenStage(ctx, tn.ID); st != "stage3" {
			t.Fatalf("stage %q", st)
		}
	})
}

func TestRandomStringAlphabetAndSpread(t *testing.T) {
	seen := map[byte]int{}
	for i := 0; i < 2000; i++ {
		s := tenants.RandomString(16)
		if len(s) != 16 {
			t.Fatalf("length %d", len(s))
		}
		for j := 0; j < len(s); j++ {
			c := s[j]
			if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
				t.Fatalf("character %q outside base62", c)
			}
			seen[c]++
		}
	}
	if len(seen) != 62 {
		t.Fatalf("%d distinct characters in 32,000 draws, want all 62", len(seen))
	}
}

// The readiness write probe commits on both databases, again and again.
func TestProbeWrite(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		for i := 0; i < 2; i++ {
			if err := db.ProbeWrite(context.Background()); err != nil {
				t.Fatalf("probe %d: %v", i, err)
			}
		}
	})
}

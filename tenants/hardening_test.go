package tenants_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

func goodPlan(id string) tenants.Plan {
	return tenants.Plan{ID: id, CreditCap: 1000, RatePerMinute: 60, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stock", ProjectLimit: 1, ItemLimit: 1}
}

// TestPlanValidationRefusesAbsurdValues: every plan writer (CLI, console, store) goes through
// Validate, which refuses non-finite, negative and absurd numbers and capability expressions
// Enables cannot read; the refusal names the field.
func TestPlanValidationRefusesAbsurdValues(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(p *tenants.Plan)
		field string
	}{
		{"NaN multiplier", func(p *tenants.Plan) { p.CreditMultiplier = math.NaN() }, "multiplier"},
		{"+Inf multiplier", func(p *tenants.Plan) { p.CreditMultiplier = math.Inf(1) }, "multiplier"},
		{"-Inf multiplier", func(p *tenants.Plan) { p.CreditMultiplier = math.Inf(-1) }, "multiplier"},
		{"negative multiplier", func(p *tenants.Plan) { p.CreditMultiplier = -1 }, "multiplier"},
		{"zero multiplier", func(p *tenants.Plan) { p.CreditMultiplier = 0 }, "multiplier"},
		{"absurd multiplier", func(p *tenants.Plan) { p.CreditMultiplier = 1e300 }, "multiplier"},
		{"max int64 rate", func(p *tenants.Plan) { p.RatePerMinute = math.MaxInt64 }, "rate"},
		{"rate over the bound", func(p *tenants.Plan) { p.RatePerMinute = tenants.MaxRatePerMinute + 1 }, "rate"},
		{"zero rate", func(p *tenants.Plan) { p.RatePerMinute = 0 }, "rate"},
		{"max int64 cap", func(p *tenants.Plan) { p.CreditCap = math.MaxInt64 }, "cap"},
		{"negative cap", func(p *tenants.Plan) { p.CreditCap = -1 }, "cap"},
		{"typical<=abc", func(p *tenants.Plan) { p.Capabilities = "typical<=abc" }, "capabilities"},
		{"typical<=-1", func(p *tenants.Plan) { p.Capabilities = "typical<=-1" }, "capabilities"},
		{"typical<= huge", func(p *tenants.Plan) { p.Capabilities = "typical<=99999999999999999999" }, "capabilities"},
		{"empty capabilities", func(p *tenants.Plan) { p.Capabilities = "" }, "capabilities"},
		{"list with garbage", func(p *tenants.Plan) { p.Capabilities = "web.search,<script>" }, "capabilities"},
		{"list with an empty id", func(p *tenants.Plan) { p.Capabilities = "web.search,,books.search" }, "capabilities"},
		{"NUL in capabilities", func(p *tenants.Plan) { p.Capabilities = "web.search\x00" }, "capabilities"},
		{"NUL in the name", func(p *tenants.Plan) { p.ID = "a\x00b" }, "name"},
		{"invalid UTF-8 name", func(p *tenants.Plan) { p.ID = "a\xffb" }, "name"},
		{"negative projects", func(p *tenants.Plan) { p.ProjectLimit = -1 }, "projects"},
		{"absurd items", func(p *tenants.Plan) { p.ItemLimit = math.MaxInt32 * 2 }, "items"},
		{"unknown stage", func(p *tenants.Plan) { p.SharpenMax = "stage9" }, "sharpen_max"},
	}
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				p := goodPlan("p" + strings.ToLower(tenants.RandomString(6)))
				tc.edit(&p)
				var inv *tenants.InvalidError
				if err := s.CreatePlan(ctx, &p); !errors.As(err, &inv) || inv.Field != tc.field {
					t.Fatalf("create: err %v, want an InvalidError naming %s", err, tc.field)
				}
				if _, err := s.Plan(ctx, p.ID); !errors.Is(err, tenants.ErrNotFound) {
					t.Fatalf("a refused plan was written: %v", err)
				}
				// Updating an existing plan to the same value is refused too.
				pro, err := s.Plan(ctx, "pro")
				if err != nil {
					t.Fatal(err)
				}
				id := pro.ID
				tc.edit(pro)
				pro.ID = id
				if err := s.UpdatePlan(ctx, pro); tc.field != "name" && !errors.As(err, &inv) {
					t.Fatalf("update: err %v, want an InvalidError", err)
				}
			})
		}
		for _, ok := range []string{"all", "typical<=0", "typical<=1000000", "web.search", "web.search, books.search", "test.search,test.offset"} {
			p := goodPlan("ok" + strings.ToLower(tenants.RandomString(6)))
			p.Capabilities = ok
			if err := s.CreatePlan(ctx, &p); err != nil {
				t.Errorf("capabilities %q refused: %v", ok, err)
			}
		}
	})
}

// TestStoredNaNMultiplierReadsAsOne: a NaN written before the rule (PostgreSQL's CHECK
// (credit_multiplier > 0) lets NaN through, since NaN sorts above every number there) is read as
// 1, so the plan still lists, encodes as JSON and bills list price instead of 0.
func TestStoredNaNMultiplierReadsAsOne(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		p := goodPlan("legacy")
		if err := s.CreatePlan(ctx, &p); err != nil {
			t.Fatal(err)
		}
		if _, err := db.NewUpdate().Table("plans").Set("credit_multiplier = ?", math.NaN()).Where("id = ?", "legacy").Exec(ctx); err != nil {
			if db.Kind == tenants.Postgres {
				t.Fatalf("PostgreSQL refused a NaN: %v", err)
			}
			t.Skipf("SQLite cannot hold a NaN multiplier (%v); only the read path of PostgreSQL is at stake", err)
		}
		got, err := s.Plan(ctx, "legacy")
		if err != nil {
			t.Fatal(err)
		}
		if got.CreditMultiplier != 1 {
			t.Fatalf("stored NaN read as %v, want 1", got.CreditMultiplier)
		}
		if n := got.Charge(7, false); n != 7 {
			t.Fatalf("charge with a corrupt multiplier = %d, want list price 7", n)
		}
		ps, err := s.Plans(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(ps); err != nil {
			t.Fatalf("plan list does not encode: %v", err)
		}
	})
}

func TestChargeNeverFreeNorUnbounded(t *testing.T) {
	for _, m := range []float64{math.NaN(), math.Inf(1), -2, 0} {
		p := tenants.Plan{CreditMultiplier: m}
		if got := p.Charge(10, false); got != 10 {
			t.Errorf("multiplier %v: charge %d, want 10", m, got)
		}
	}
	p := tenants.Plan{CreditMultiplier: tenants.MaxMultiplier}
	if got := p.Charge(math.MaxInt64/4, false); got <= 0 {
		t.Errorf("huge charge overflowed to %d", got)
	}
}

// TestStoreRefusesNULAndInvalidUTF8: every store write of a free-text field refuses a NUL byte
// and invalid UTF-8 with an InvalidError naming the field, on both databases (PostgreSQL would
// otherwise fail with a driver error, reported as an outage).
func TestStoreRefusesNULAndInvalidUTF8(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		tn, err := s.CreateTenant(ctx, "Acme", "pro", "")
		if err != nil {
			t.Fatal(err)
		}
		pro, _ := s.Plan(ctx, "pro")
		prj, err := s.CreateProject(ctx, tenants.ProjectOwner{TenantID: tn.ID, Mode: tenants.ModeLive}, pro, "ok")
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []struct{ name, v string }{{"NUL", "a\x00b"}, {"invalid UTF-8", "a\xc3\x28b"}, {"lone continuation", "\x80"}} {
			writes := []struct {
				field string
				run   func(v string) error
			}{
				{"name", func(v string) error { _, err := s.CreateTenant(ctx, v, "pro", ""); return err }},
				{"email", func(v string) error { _, err := s.CreateTenant(ctx, "T", "pro", v); return err }},
				{"email", func(v string) error {
					_, err := s.CreateUser(ctx, tn.ID, v+"@x.test", "correct horse battery", tenants.RoleOwner)
					return err
				}},
				{"label", func(v string) error { _, _, err := s.CreateKey(ctx, tn.ID, tenants.ModeLive, v); return err }},
				{"name", func(v string) error {
					_, err := s.CreateProject(ctx, tenants.ProjectOwner{TenantID: tn.ID, Mode: tenants.ModeLive}, pro, v)
					return err
				}},
				{"note", func(v string) error {
					return s.AddItem(ctx, pro, &tenants.ProjectItem{ProjectID: prj.ID, TenantID: tn.ID, Mode: tenants.ModeLive, Kind: "note", Note: v})
				}},
				{"target", func(v string) error { return s.Audit(ctx, "admin", "key.create", v, nil, nil) }},
				{"base_url", func(v string) error {
					return s.SaveProviderSetting(ctx, &tenants.ProviderSetting{ProviderID: "reader", BaseURL: v})
				}},
				{"title", func(v string) error {
					_, err := s.SaveWorkout(ctx, &tenants.Workout{TenantID: tn.ID, Title: v, Provider: "p", ExerciseRef: "r", Muscles: "[]", Equipment: "[]"})
					return err
				}},
			}
			for _, w := range writes {
				t.Run(bad.name+" in "+w.field, func(t *testing.T) {
					err := w.run(bad.v)
					var inv *tenants.InvalidError
					if !errors.As(err, &inv) || inv.Field != w.field || !errors.Is(err, tenants.ErrInvalid) {
						t.Fatalf("err %v, want an InvalidError naming %s", err, w.field)
					}
				})
			}
		}
		// A lookup by an id no row can hold is not found, instead of a database error.
		for _, id := range []string{"a\x00b", "\xff"} {
			lookups := map[string]error{}
			_, lookups["plan"] = s.Plan(ctx, id)
			_, lookups["tenant"] = s.Tenant(ctx, id)
			_, lookups["user"] = s.User(ctx, id)
			_, lookups["key"] = s.Key(ctx, id)
			_, lookups["revoke"] = s.RevokeKey(ctx, id, tn.ID)
			owner := tenants.ProjectOwner{TenantID: tn.ID, Mode: tenants.ModeLive}
			_, lookups["project"] = s.Project(ctx, owner, id)
			lookups["delete project"] = s.DeleteProject(ctx, owner, id)
			lookups["delete item"] = s.DeleteItem(ctx, owner, prj.ID, id)
			lookups["add item"] = s.AddItem(ctx, pro, &tenants.ProjectItem{ProjectID: id, TenantID: tn.ID, Mode: tenants.ModeLive, Kind: "note", Note: "n"})
			_, lookups["workout"] = s.Workout(ctx, tn.ID, id)
			_, lookups["set plan"] = s.SetPlan(ctx, id, "pro")
			for what, err := range lookups {
				if !errors.Is(err, tenants.ErrNotFound) {
					t.Errorf("%s %q: err %v, want ErrNotFound", what, id, err)
				}
			}
		}
		// A search for what no stored string can hold matches nothing instead of failing.
		for _, q := range []string{"\x00", "a\x00", "\xff"} {
			if ts, err := s.Tenants(ctx, q, 10, 0); err != nil || len(ts) != 0 {
				t.Errorf("search %q: %d tenants, err %v", q, len(ts), err)
			}
		}
	})
}

// TestIdempotencyScopes: a durable request id claimed in one scope (tenant, key mode, key space)
// is unknown to every other scope, including one whose id spells the first scope's prefix.
func TestIdempotencyScopes(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		live := tenants.IdemScope{TenantID: "tnt_a", Mode: tenants.ModeLive, Space: tenants.SpaceAPI}
		if prev, err := s.BeginIdempotent(ctx, live, "k1", "h1"); err != nil || prev != nil {
			t.Fatalf("first claim: %v %v", prev, err)
		}
		if err := s.FinishIdempotent(ctx, live, "k1", 200, "application/json", `{"mode":"live"}`); err != nil {
			t.Fatal(err)
		}
		others := []struct {
			name string
			sc   tenants.IdemScope
			key  string
		}{
			{"test mode", tenants.IdemScope{TenantID: "tnt_a", Mode: tenants.ModeTest, Space: tenants.SpaceAPI}, "k1"},
			{"projects space", tenants.IdemScope{TenantID: "tnt_a", Mode: tenants.ModeLive, Space: tenants.SpaceProjects}, "k1"},
			{"other tenant", tenants.IdemScope{TenantID: "tnt_b", Mode: tenants.ModeLive, Space: tenants.SpaceAPI}, "k1"},
			{"id spelling a prefix", tenants.IdemScope{TenantID: "tnt_a", Mode: tenants.ModeLive, Space: tenants.SpaceProjects}, "api/live/k1"},
			{"old projects prefix", tenants.IdemScope{TenantID: "tnt_a", Mode: tenants.ModeLive, Space: tenants.SpaceAPI}, "projects:k1"},
		}
		for _, o := range others {
			t.Run(o.name, func(t *testing.T) {
				prev, err := s.BeginIdempotent(ctx, o.sc, o.key, "h2")
				if err != nil || prev != nil {
					t.Fatalf("claim in another scope found %+v (%v)", prev, err)
				}
			})
		}
		// The first scope still replays its own answer.
		prev, err := s.BeginIdempotent(ctx, live, "k1", "h1")
		if err != nil || prev == nil || prev.Response != `{"mode":"live"}` {
			t.Fatalf("replay %+v %v", prev, err)
		}
	})
}

// TestSQLiteFilesPrivate: the database file and its WAL and SHM are owner-only even when the data
// dir already exists (created by an operator with a loose umask), and a loose existing file is
// tightened.
func TestSQLiteFilesPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := tenants.Open("", dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"gateway.db", "gateway.db-wal", "gateway.db-shm"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s mode %o, want 600", name, perm)
		}
	}
	db.Close()

	loose := filepath.Join(dir, "loose.db")
	if err := os.WriteFile(loose, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err = tenants.Open(loose, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if fi, _ := os.Stat(loose); fi.Mode().Perm() != 0o600 {
		t.Errorf("existing file left at %o", fi.Mode().Perm())
	}
}

// TestTxStatementNeedsNoPoolConnection: a transaction's prepared statement must not wait for a
// connection from the pool. On SQLite the transaction holds the write lock and the pool's other
// connections may all be autocommit writers waiting for it (busy_timeout): the request log's
// first batch, preparing its statements beside 50 concurrent idempotency claims, stalled
// every writer for 20 s. Here the pool's only other connection is held while the transaction
// runs statements it has never run; without the fix the first one waits out its deadline.
func TestTxStatementNeedsNoPoolConnection(t *testing.T) {
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			db := b.Open(t)
			ctx := context.Background()
			if _, err := db.ExecContext(ctx, "CREATE TABLE pool_probe (v INTEGER)"); err != nil {
				t.Fatal(err)
			}
			db.DB.DB.SetMaxOpenConns(2)
			insert := db.Rebind("INSERT INTO pool_probe (v) VALUES (?)")
			count := db.Rebind("SELECT COUNT(*) FROM pool_probe WHERE v >= ?")
			for round := range 3 {
				tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				err := db.InTx(tctx, func(ctx context.Context, tx bun.Tx) error {
					held, err := db.DB.DB.Conn(ctx)
					if err != nil {
						return err
					}
					defer held.Close()
					if _, err := db.Exec(ctx, tx, insert, round); err != nil {
						return err
					}
					var n int
					if err := db.QueryRow(ctx, tx, count, 0).Scan(&n); err != nil {
						return err
					}
					if n != round+1 {
						return fmt.Errorf("round %d counted %d rows", round, n)
					}
					return nil
				})
				cancel()
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
			}
		})
	}
}

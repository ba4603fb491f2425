package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/session"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

func newSession(tenant string) *session.Session {
	return &session.Session{ID: session.NewSessionID(), TenantID: tenant, Mode: "live", Capability: "books.search",
		Query: json.RawMessage(`{"query":"x"}`), Filters: json.RawMessage(`[]`), Notes: json.RawMessage(`[]`)}
}

func records(n, from int) []*session.Record {
	out := make([]*session.Record, n)
	for i := range out {
		out[i] = &session.Record{ID: session.NewRecordID(), Position: from + i, Body: `{"title":"t"}`}
	}
	return out
}

func TestStoreLifecycle(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		st, err := session.NewStore(db, time.Hour, 8)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		now := tenants.Now()
		st.SetClock(func() time.Time { return now })
		s := newSession("tnt_a")
		recs := records(5, 0)
		if err := st.Create(ctx, s, recs); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Get(ctx, "tnt_b", "live", s.ID); !errors.Is(err, session.ErrNotFound) {
			t.Fatalf("other tenant: %v", err)
		}
		if _, err := st.Record(ctx, "tnt_b", "live", recs[0].ID); !errors.Is(err, session.ErrNotFound) {
			t.Fatalf("other tenant record: %v", err)
		}
		if _, err := st.Get(ctx, "tnt_a", "test", s.ID); !errors.Is(err, session.ErrNotFound) {
			t.Fatalf("a live session read with a test key: %v", err)
		}
		if _, err := st.Record(ctx, "tnt_a", "test", recs[0].ID); !errors.Is(err, session.ErrNotFound) {
			t.Fatalf("a live record read with a test key: %v", err)
		}
		held, err := st.Held(ctx, s, 2, 2)
		if err != nil || len(held) != 2 || held[0].Position != 2 {
			t.Fatalf("held: %v %v", held, err)
		}
		// Two follow-ups racing on the same version: exactly one wins.
		a, _ := st.Refresh(ctx, "tnt_a", "live", s.ID)
		b, _ := st.Refresh(ctx, "tnt_a", "live", s.ID)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, x := range []*session.Session{a, b} {
			wg.Add(1)
			go func(i int, x *session.Session) {
				defer wg.Done()
				x.LocalOffset = 3
				errs[i] = st.Advance(ctx, x, records(1, 5+i))
			}(i, x)
		}
		wg.Wait()
		conflicts := 0
		for _, err := range errs {
			if errors.Is(err, session.ErrConflict) {
				conflicts++
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if conflicts != 1 {
			t.Fatalf("conflicts %d, want 1 (%v)", conflicts, errs)
		}
		// Details cache: first writer wins, tenant scoped.
		if err := st.PutDetail(ctx, recs[0], "details", `{"detail":1}`); err != nil {
			t.Fatal(err)
		}
		if err := st.PutDetail(ctx, recs[0], "details", `{"detail":2}`); err != nil {
			t.Fatal(err)
		}
		if body, ok, _ := st.Detail(ctx, "tnt_a", recs[0].ID, "details"); !ok || body != `{"detail":1}` {
			t.Fatalf("detail %q %v", body, ok)
		}
		if _, ok, _ := st.Detail(ctx, "tnt_b", recs[0].ID, "details"); ok {
			t.Fatal("detail leaked to another tenant")
		}
		// After the retention: 410 for the session and records, even after a sweep, while
		// unknown ids stay unknown.
		now = now.Add(2 * time.Hour)
		if _, err := st.Get(ctx, "tnt_a", "live", s.ID); !errors.Is(err, session.ErrExpired) {
			t.Fatalf("expired session: %v", err)
		}
		if _, err := st.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		fresh, _ := session.NewStore(db, time.Hour, 8) // another instance, empty edge cache
		defer fresh.Close()
		fresh.SetClock(func() time.Time { return now })
		if _, err := fresh.Record(ctx, "tnt_a", "live", recs[1].ID); !errors.Is(err, session.ErrExpired) {
			t.Fatalf("expired record after sweep: %v", err)
		}
		if _, err := fresh.Record(ctx, "tnt_a", "live", session.NewRecordID()); !errors.Is(err, session.ErrNotFound) {
			t.Fatalf("unknown record: %v", err)
		}
		if _, ok, _ := fresh.Detail(ctx, "tnt_a", recs[0].ID, "details"); ok {
			t.Fatal("expired detail still served")
		}
		// Tombstones are forgotten after the grace period.
		now = now.Add(session.TombstoneGrace + time.Hour)
		if _, err := fresh.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := fresh.Record(ctx, "tnt_a", "live", recs[1].ID); !errors.Is(err, session.ErrNotFound) {
			t.Fatalf("after grace: %v", err)
		}
	})
}

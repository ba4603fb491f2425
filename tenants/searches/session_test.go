package searches_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/searches"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// newStore is a store on db (an instance with its own empty edge caches), closed when the test
// ends.
func newStore(tb testing.TB, db *tenants.DB) *searches.Store {
	tb.Helper()
	st, err := searches.NewStore(db, time.Hour, 8)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	return st
}

func newSession(st *searches.Store, tenant string, n int) *searches.Session {
	s := st.New(tenant, "live", "books.search", json.RawMessage(`{"query":"x"}`))
	s.Filters, s.Notes = json.RawMessage(`[]`), json.RawMessage(`[]`)
	addRecords(s, n, 0)
	return s
}

func addRecords(s *searches.Session, n, from int) {
	for i := 0; i < n; i++ {
		s.Add(&searches.Record{Generation: s.Generation, Position: from + i, Body: json.RawMessage(`{"title":"t"}`)})
	}
}

func TestStoreLifecycle(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		st := newStore(t, db)
		now := tenants.Now()
		st.SetClock(func() time.Time { return now })
		s := newSession(st, "tnt_a", 5)
		recs := s.Records
		if err := db.Apply(ctx, st.Create(s)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Get(ctx, "tnt_b", "live", s.ID); !errors.Is(err, searches.ErrNotFound) {
			t.Fatalf("other tenant: %v", err)
		}
		if _, _, err := st.Record(ctx, "tnt_b", "live", recs[0].ID); !errors.Is(err, searches.ErrNotFound) {
			t.Fatalf("other tenant record: %v", err)
		}
		if _, err := st.Get(ctx, "tnt_a", "test", s.ID); !errors.Is(err, searches.ErrNotFound) {
			t.Fatalf("a live session read with a test key: %v", err)
		}
		if _, _, err := st.Record(ctx, "tnt_a", "test", recs[0].ID); !errors.Is(err, searches.ErrNotFound) {
			t.Fatalf("a live record read with a test key: %v", err)
		}
		got, err := st.Get(ctx, "tnt_a", "live", s.ID)
		if err != nil {
			t.Fatal(err)
		}
		held := got.Held(2, 2)
		if len(held) != 2 || held[0].Position != 2 {
			t.Fatalf("held: %v", held)
		}
		// Two follow-ups racing on the same version: exactly one wins.
		a, _ := st.Get(ctx, "tnt_a", "live", s.ID)
		b, _ := st.Get(ctx, "tnt_a", "live", s.ID)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, x := range []*searches.Session{a, b} {
			wg.Add(1)
			go func(i int, x *searches.Session) {
				defer wg.Done()
				x.LocalOffset = 3
				addRecords(x, 1, 5+i)
				errs[i] = db.Apply(ctx, st.Advance(x))
			}(i, x)
		}
		wg.Wait()
		conflicts := 0
		for _, err := range errs {
			if errors.Is(err, searches.ErrConflict) {
				conflicts++
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if conflicts != 1 {
			t.Fatalf("conflicts %d, want 1 (%v)", conflicts, errs)
		}
		// The record added by the winner is found through its id alone.
		if _, r, err := st.Record(ctx, "tnt_a", "live", a.Records[5].ID); err != nil || r.Position < 5 {
			t.Fatalf("added record: %v %v", r, err)
		}
		// Details cache: first writer wins, tenant scoped.
		if err := db.Apply(ctx, st.PutDetail(s, recs[0], "details", []byte(`{"detail":1}`))); err != nil {
			t.Fatal(err)
		}
		if err := db.Apply(ctx, st.PutDetail(s, recs[0], "details", []byte(`{"detail":2}`))); err != nil {
			t.Fatal(err)
		}
		if body, ok, _ := st.Detail(ctx, "tnt_a", recs[0].ID, "details"); !ok || string(body) != `{"detail":1}` {
			t.Fatalf("detail %q %v", body, ok)
		}
		fresh0 := newStore(t, db)
		if _, ok, _ := fresh0.Detail(ctx, "tnt_b", recs[0].ID, "details"); ok {
			t.Fatal("detail leaked to another tenant")
		}
		// After the retention: 410 for the session and records, even after a sweep, while
		// unknown ids stay unknown.
		now = now.Add(2 * time.Hour)
		if _, err := st.Get(ctx, "tnt_a", "live", s.ID); !errors.Is(err, searches.ErrExpired) {
			t.Fatalf("expired session: %v", err)
		}
		if _, err := st.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		fresh := newStore(t, db) // another instance, empty edge cache
		fresh.SetClock(func() time.Time { return now })
		if _, _, err := fresh.Record(ctx, "tnt_a", "live", recs[1].ID); !errors.Is(err, searches.ErrExpired) {
			t.Fatalf("expired record after sweep: %v", err)
		}
		other := st.New("tnt_a", "live", "books.search", nil)
		addRecords(other, 1, 0)
		if _, _, err := fresh.Record(ctx, "tnt_a", "live", other.Records[0].ID); !errors.Is(err, searches.ErrNotFound) {
			t.Fatalf("unknown record: %v", err)
		}
		if _, ok, _ := fresh.Detail(ctx, "tnt_a", recs[0].ID, "details"); ok {
			t.Fatal("expired detail still served")
		}
		// Tombstones are forgotten after the grace period.
		now = now.Add(searches.TombstoneGrace + time.Hour)
		if _, err := fresh.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		if _, _, err := fresh.Record(ctx, "tnt_a", "live", recs[1].ID); !errors.Is(err, searches.ErrNotFound) {
			t.Fatalf("after grace: %v", err)
		}
	})
}

// TestRoundTrip: a session read back (from the database, with an empty edge cache) equals
// what was written, large ones compressed, stored details and actions included.
func TestRoundTrip(t *testing.T) {
	db := tenantstest.SQLite(t)
	ctx := context.Background()
	st := newStore(t, db)
	for _, n := range []int{0, 1, 25, 400} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := st.New("tnt_a", "test", "web.search", json.RawMessage(`{"query":"ü \u003c"}`))
			s.Filters, s.Notes, s.NextState, s.HasMore = json.RawMessage(`[{"id":"f"}]`), json.RawMessage(`["n"]`), `{"page":2}`, true
			for i := 0; i < n; i++ {
				r := &searches.Record{Position: i, Body: json.RawMessage(fmt.Sprintf(`{"record_id":"x","title":%q}`, strings.Repeat("t", i%300))),
					Ref: json.RawMessage(`{"id":1}`)}
				if i%2 == 0 {
					r.Actions = []string{}
				} else if i%3 == 0 {
					r.Actions = []string{"details", "read"}
					r.Stored = []searches.StoredDetail{{Action: "details", Detail: json.RawMessage(`{"a":1}`), Links: json.RawMessage(`[]`)}}
				}
				s.Add(r)
			}
			if err := db.Apply(ctx, st.Create(s)); err != nil {
				t.Fatal(err)
			}
			other := newStore(t, db)
			got, err := other.Get(ctx, "tnt_a", "test", s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != s.ID || got.Capability != s.Capability || !bytes.Equal(got.Query, s.Query) || got.NextState != s.NextState ||
				got.HasMore != s.HasMore || !bytes.Equal(got.Filters, s.Filters) || !bytes.Equal(got.Notes, s.Notes) || len(got.Records) != n {
				t.Fatalf("session differs: %+v", got)
			}
			for i, r := range got.Records {
				w := s.Records[i]
				if r.ID != w.ID || r.Position != w.Position || !bytes.Equal(r.Body, w.Body) || !bytes.Equal(r.Ref, w.Ref) ||
					fmt.Sprint(r.Actions) != fmt.Sprint(w.Actions) || (r.Actions == nil) != (w.Actions == nil) || len(r.Stored) != len(w.Stored) {
					t.Fatalf("record %d differs: %+v vs %+v", i, r, w)
				}
				if _, rec, err := other.Record(ctx, "tnt_a", "test", w.ID); err != nil || rec.ID != w.ID {
					t.Fatalf("record %s: %v", w.ID, err)
				}
			}
		})
	}
}

// TestMalformedIDs: ids of the wrong shape are unknown, never a panic.
func TestMalformedIDs(t *testing.T) {
	db := tenantstest.SQLite(t)
	st := newStore(t, db)
	for _, id := range []string{"", "rec_", "rec_!!!!!!!!!!!!!!!!", "rec_AAAAAAAAAAAAAAA", "rec_AAAAAAAAAAAAAAAAAAAA", "srch_x", "srch_AAAAAAAAAAAAAAA!"} {
		if _, _, err := st.Record(context.Background(), "t", "live", id); !errors.Is(err, searches.ErrNotFound) {
			t.Errorf("record %q: %v", id, err)
		}
		if _, err := st.Get(context.Background(), "t", "live", id); !errors.Is(err, searches.ErrNotFound) {
			t.Errorf("session %q: %v", id, err)
		}
	}
}

func TestDetailEncoding(t *testing.T) {
	cases := []struct{ detail, links string }{{`{"a":"ü:1"}`, `[]`}, {`1`, ``}, {`"` + strings.Repeat("x", 300) + `"`, `[{"label":"l","url":"u"}]`}}
	for _, c := range cases {
		b := searches.EncodeDetail([]byte(c.detail), []byte(c.links))
		if bytes.IndexByte(b, 0) >= 0 {
			t.Fatalf("NUL byte in %q", b)
		}
		d, l, ok := searches.DecodeDetail(b)
		if !ok || string(d) != c.detail || string(l) != c.links {
			t.Fatalf("round trip of %v: %q %q %v", c, d, l, ok)
		}
	}
	for _, bad := range []string{"", "D", "D:", "Dx:1", "D9:1", `{"detail":1}`, "D-1:x"} {
		if _, _, ok := searches.DecodeDetail([]byte(bad)); ok {
			t.Errorf("%q decoded", bad)
		}
	}
}

// Session ids have the spec's form, are distinct, and sessions made later sort after (their
// keys land together at the end of the primary key's index).
func TestNewIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 2000 {
		id := searches.NewID()
		if !searches.ValidSearchID(id) || seen[id] {
			t.Fatalf("id %q: valid %v, seen before %v", id, searches.ValidSearchID(id), seen[id])
		}
		seen[id] = true
	}
	a := searches.NewID()
	time.Sleep(3 * time.Millisecond)
	b := searches.NewID()
	// The 5-digit time prefix wraps every 10.6 days; the odds of that falling in these 3 ms are
	// 3 in 916 million.
	if a[5:10] >= b[5:10] {
		t.Errorf("an id made 3 ms later does not sort after: %s then %s", a, b)
	}
}

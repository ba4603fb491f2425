package searches_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/searches"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// pageRecords are a fetched page's records: bodies that carry the page session's record ids,
// as the shared cache stores them.
func pageRecords(st *searches.Store, n int) (string, []*searches.Record) {
	page := st.New("", "live", "books.search", nil)
	for i := range n {
		r := &searches.Record{Ref: json.RawMessage(fmt.Sprintf(`{"ref":%d}`, i))}
		page.Add(r)
		r.Body = json.RawMessage(fmt.Sprintf(`{"record_id":%q,"title":"t%d"}`, r.ID, i))
	}
	return page.ID, page.Records
}

// placed gives a new session the page's records under its own ids, as the gateway's place does
// (on copies: the page's bodies stay as fetched).
func placed(st *searches.Store, tenant string, recs []*searches.Record) *searches.Session {
	s := st.New(tenant, "live", "books.search", json.RawMessage(`{"query":"x"}`))
	s.Filters, s.Notes = json.RawMessage(`[]`), json.RawMessage(`[]`)
	for i, r := range recs {
		c := *r
		s.Add(&c)
		c.Body = bytes.Replace(append([]byte(nil), r.Body...), []byte(r.ID), []byte(c.ID), 1)
		c.Position = i
	}
	s.LocalTotal = len(recs)
	return s
}

// TestSharedPageSessions: sessions opened on one shared page store a reference, not a copy;
// every instance (fresh caches) reads them back with their own record ids; the page row belongs
// to no tenant and is written once while its life suffices; the first change writes the session
// whole; a page id that names a tenant's session neither changes nor reveals it.
func TestSharedPageSessions(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		st := newStore(t, db)
		pageID, recs := pageRecords(st, 3)

		a := placed(st, "tnt_a", recs)
		ref := st.Page(pageID, "live", "books.search", recs)
		if err := db.Apply(ctx, st.CreateRef(a, ref)); err != nil {
			t.Fatal(err)
		}
		b := placed(st, "tnt_b", recs)
		if err := db.Apply(ctx, st.CreateRef(b, st.Page(pageID, "live", "books.search", recs))); err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			TenantID string `bun:"tenant_id"`
			Size     int    `bun:"size"`
		}
		if err := db.NewRaw("SELECT tenant_id, length(data) AS size FROM searches ORDER BY tenant_id").Scan(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 3 || rows[0].TenantID != "" {
			t.Fatalf("rows %+v: want the page (no tenant) and two sessions", rows)
		}

		// A second instance: nothing cached.
		other := newStore(t, db)
		for _, s := range []*searches.Session{a, b} {
			got, err := other.Get(ctx, s.TenantID, "live", s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Records) != 3 || got.LocalTotal != 3 {
				t.Fatalf("%s: %d records, local total %d", s.TenantID, len(got.Records), got.LocalTotal)
			}
			for i, r := range got.Records {
				if r.ID != s.Records[i].ID || !bytes.Equal(r.Body, s.Records[i].Body) || string(r.Ref) != fmt.Sprintf(`{"ref":%d}`, i) {
					t.Fatalf("%s record %d: %s %s, want %s %s", s.TenantID, i, r.ID, r.Body, s.Records[i].ID, s.Records[i].Body)
				}
			}
			_, r, err := other.Record(ctx, s.TenantID, "live", s.Records[2].ID)
			if err != nil || !bytes.Equal(r.Body, s.Records[2].Body) {
				t.Fatalf("%s record read alone: %v %s", s.TenantID, err, r.Body)
			}
			if _, _, err := other.Record(ctx, "tnt_c", "live", s.Records[0].ID); !errors.Is(err, searches.ErrNotFound) {
				t.Fatalf("another tenant reads %s's record: %v", s.TenantID, err)
			}
		}
		if _, err := other.Get(ctx, "", "live", pageID); !errors.Is(err, searches.ErrNotFound) {
			t.Fatalf("the page read as a session: %v", err)
		}

		// The first change writes the session whole: it no longer needs the page.
		got, err := other.Get(ctx, "tnt_a", "live", a.ID)
		if err != nil {
			t.Fatal(err)
		}
		addRecords(got, 1, 3)
		got.LocalTotal = 4
		if err := db.Apply(ctx, other.Advance(got)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, "UPDATE searches SET data = ? WHERE tenant_id = ''", []byte{}); err != nil {
			t.Fatal(err)
		}
		third := newStore(t, db)
		if got, err := third.Get(ctx, "tnt_a", "live", a.ID); err != nil || len(got.Records) != 4 {
			t.Fatalf("an advanced session without its page: %v", err)
		}
		if got, err := third.Get(ctx, "tnt_b", "live", b.ID); err != nil || len(got.Records) != 0 {
			t.Fatalf("a session whose page was blanked: %v, want no records", err)
		}
		// A new reference from an instance that did not write the page restores its data.
		c := placed(third, "tnt_c", recs)
		if err := db.Apply(ctx, third.CreateRef(c, third.Page(pageID, "live", "books.search", recs))); err != nil {
			t.Fatal(err)
		}
		fourth := newStore(t, db)
		if got, err := fourth.Get(ctx, "tnt_b", "live", b.ID); err != nil || len(got.Records) != 3 {
			t.Fatalf("after the page was written again: %v", err)
		}

		// A forged page id naming tenant a's session: its row is untouched and never served.
		before := rowOf(t, db, a.ID)
		d := placed(fourth, "tnt_d", recs)
		if err := db.Apply(ctx, fourth.CreateRef(d, fourth.Page(a.ID, "live", "books.search", recs))); err != nil {
			t.Fatal(err)
		}
		if after := rowOf(t, db, a.ID); after != before {
			t.Fatalf("a tenant's session changed under a forged page id: %s -> %s", before, after)
		}
		fifth := newStore(t, db)
		if got, err := fifth.Get(ctx, "tnt_d", "live", d.ID); err != nil || len(got.Records) != 0 {
			t.Fatalf("a session on a forged page: %v, %d records, want none", err, len(got.Records))
		}
	})
}

func rowOf(t *testing.T, db *tenants.DB, id string) string {
	t.Helper()
	var tenant string
	var exp time.Time
	var data []byte
	if err := db.NewRaw("SELECT tenant_id, expires_at, data FROM searches WHERE id = ?", id).Scan(context.Background(), &tenant, &exp, &data); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s %s %x", tenant, exp.UTC(), data)
}

// TestSharedPageWrittenOncePerLife: while this instance knows the page row lives long enough,
// a new reference writes only its own small row.
func TestSharedPageWrittenOncePerLife(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		st := newStore(t, db)
		now := tenants.Now()
		st.SetClock(func() time.Time { return now })
		pageID, recs := pageRecords(st, 2)
		expiry := func() time.Time {
			var exp time.Time
			if err := db.NewRaw("SELECT expires_at FROM searches WHERE id = ?", pageID).Scan(ctx, &exp); err != nil {
				t.Fatal(err)
			}
			return exp
		}
		for i := range 3 {
			s := placed(st, "tnt_a", recs)
			if err := db.Apply(ctx, st.CreateRef(s, st.Page(pageID, "live", "books.search", recs))); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				continue
			}
			if got := expiry(); !got.Equal(now.Add(time.Hour + 15*time.Minute).Truncate(time.Microsecond)) {
				t.Fatalf("reference %d: page expires %s", i, got)
			}
		}
		// Past the slack, the next reference extends the page to its own session's life.
		now = now.Add(20 * time.Minute)
		s := placed(st, "tnt_a", recs)
		if err := db.Apply(ctx, st.CreateRef(s, st.Page(pageID, "live", "books.search", recs))); err != nil {
			t.Fatal(err)
		}
		if got := expiry(); got.Before(s.ExpiresAt) {
			t.Fatalf("page expires %s before its newest session %s", got, s.ExpiresAt)
		}
	})
}

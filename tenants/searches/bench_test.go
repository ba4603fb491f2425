package searches_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/searches"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// BenchmarkSessionCreate: the CPU of writing new sessions (three records each) in the group
// commit's batches of 24 into SQLite, as execute does, with the ids New makes (the time first)
// against fully random ones (a new leaf page of the primary key per session). Run it with a
// fixed count so the table reaches a size where that matters, e.g. -benchtime=100000x.
func BenchmarkSessionCreate(b *testing.B) {
	for _, v := range []struct {
		name string
		id   func() string
	}{
		{"random-ids", func() string { return "srch_" + tenants.RandomString(16) }},
		{"time-ids", searches.NewID},
	} {
		b.Run(v.name, func(b *testing.B) {
			db := tenantstest.SQLite(b)
			st := newStore(b, db)
			ctx := context.Background()
			const batch = 24
			writes := make([]tenants.Write, 0, batch)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s := st.New("tnt_0123456789abcdef", "live", "books.search", json.RawMessage(`{"query":"x"}`))
				s.ID = v.id()
				s.Filters, s.Notes = json.RawMessage(`[]`), json.RawMessage(`[]`)
				addRecords(s, 3, 0)
				writes = append(writes, st.Create(s))
				if len(writes) == batch || i == b.N-1 {
					if err := db.Apply(ctx, writes...); err != nil {
						b.Fatal(err)
					}
					writes = writes[:0]
				}
			}
		})
	}
}

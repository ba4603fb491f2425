package gateway

import (
	"encoding/json"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants/searches"
)

// A stored page that is damaged anywhere decodes to an error (a miss), never a panic, and one
// that decodes places its records under the caller's own ids.
func FuzzDecodeSnapshot(f *testing.F) {
	cp := &providers.Capability{ID: "x.search", Paging: providers.PagingPage, Cost: providers.Cost{Typical: 1}}
	scratch := &searches.Session{ID: "srch_AAAAAAAAAAAAAAAA"}
	var recs []*searches.Record
	for i := range 3 {
		r := &searches.Record{}
		scratch.Add(r)
		if err := renderRecord(r, &providers.Record{Title: "t", URL: "https://example.org", Fields: map[string]any{"n": i},
			Stored: map[string]*providers.Detail{"details": {Body: map[string]any{"a": 1}}}}); err != nil {
			f.Fatal(err)
		}
		recs = append(recs, r)
	}
	next, _ := json.Marshal(2)
	f.Add(encodeSnapshot(scratch.ID, recs, &providers.Page{HasMore: true, Next: next, Notes: []string{"n"}, Credits: providers.Credits(3)}))
	f.Add(encodeSnapshot(scratch.ID, nil, &providers.Page{}))
	f.Add([]byte{snapshotVersion})
	f.Fuzz(func(t *testing.T, b []byte) {
		sn, err := decodeSnapshot(append([]byte(nil), b...))
		if err != nil {
			return
		}
		sess := &searches.Session{ID: "srch_BBBBBBBBBBBBBBBB"}
		for i, r := range sn.place(sess, cp, providers.Request{}) {
			if at := sn.idAt[i]; at >= 0 && string(r.Body[at:at+len(r.ID)]) != r.ID {
				t.Fatalf("record %d: body %s does not carry its id %s", i, r.Body, r.ID)
			}
		}
	})
}

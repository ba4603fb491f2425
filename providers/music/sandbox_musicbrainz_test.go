package music

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// TestSandboxMusicBrainzConsistency is issue 36's property test for the fallback source: 50
// generated searches run on MusicBrainz's sandbox (the state a fallback search continues with)
// must answer records about the query (titles carry its first word, artists are named after
// it, an artist:"…" part is every record's artist), keep the page size, advance with more
// without repeating a record, answer the same again, and describe a record as itself in details.
func TestSandboxMusicBrainzConsistency(t *testing.T) {
	c := providertest.Client(t, Providers(), nil, nil)
	queries := []string{"karma police", "blue monday", "heroes", "river song", "northern lights", "paper planes", "clair de lune"}
	artists := []string{"Radiohead", "New Order", "Sigur Ros", "Aphex Twin"}
	state := json.RawMessage(`{"source":"musicbrainz","offset":0}`)
	for i := range 50 {
		r := rand.New(rand.NewPCG(uint64(i), 3603))
		q := queries[r.IntN(len(queries))]
		artist := ""
		if i%4 == 3 {
			artist = artists[r.IntN(len(artists))]
			q += ` artist:"` + artist + `"`
		}
		kind := []string{"track", "artist", "album"}[i%3]
		num := 1 + r.IntN(5)
		body, _ := json.Marshal(map[string]any{"query": q, "kind": kind, "num": num})
		req := prepare(t, string(body))
		page, err := providertest.ExecuteState(t, c, Search, providers.ModeTest, req, state)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if len(page.Records) == 0 || len(page.Records) > num {
			t.Fatalf("%s: %d records", body, len(page.Records))
		}
		first := strings.Fields(q)[0]
		seen := map[string]bool{}
		check := func(recs []providers.Record) {
			for _, rec := range recs {
				if !strings.Contains(strings.ToLower(rec.Title), first) {
					t.Errorf("%s: %q", body, rec.Title)
				}
				if a := rec.Data.(*MusicRecord).Artist; artist != "" && kind != "artist" && a != artist {
					t.Errorf("%s: %q by %q", body, rec.Title, a)
				}
				if s := fmt.Sprint(rec.Title, providertest.Native(&rec)); strings.Contains(s, "Daft Punk") || strings.Contains(s, "Discovery") {
					t.Errorf("%s: the recorded identity: %s", body, s)
				}
			}
		}
		check(page.Records)
		for _, rec := range page.Records {
			seen[rec.Title] = true
		}
		if i%5 == 0 {
			again, err := providertest.ExecuteState(t, c, Search, providers.ModeTest, req, state)
			if err != nil || fmt.Sprint(providertest.RecordsJSON(again)) != fmt.Sprint(providertest.RecordsJSON(page)) {
				t.Errorf("%s: asked again, another answer (%v)", body, err)
			}
			d, err := providertest.Action(t, c, Search, providers.ModeTest, req, "details", &page.Records[0])
			if err != nil {
				t.Fatalf("%s: details: %v", body, err)
			}
			if b, _ := json.Marshal(d); !strings.Contains(string(b), page.Records[0].Title) {
				t.Errorf("%s: details of %q: %.300s", body, page.Records[0].Title, b)
			}
		}
		if page.HasMore {
			p2, err := providertest.ExecuteState(t, c, Search, providers.ModeTest, req, page.Next)
			if err != nil {
				t.Fatalf("%s: more: %v", body, err)
			}
			if len(p2.Records) == 0 {
				t.Errorf("%s: more answered nothing while has_more", body)
			}
			check(p2.Records)
			for _, rec := range p2.Records {
				if seen[rec.Title] {
					t.Errorf("%s: more repeats %q", body, rec.Title)
				}
			}
		}
		if t.Failed() {
			return
		}
	}
}

package gateway

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
)

// TestRenderedAnswersMatchTheirTypes: answers assembled from stored bytes equal json.Marshal of
// their Go types byte for byte, so the types stay the one description of the wire shape.
func TestRenderedAnswersMatchTheirTypes(t *testing.T) {
	end := time.Date(2026, 12, 24, 10, 30, 0, 123456000, time.UTC)
	far := time.Date(2026, 1, 1, 0, 0, 0, 5, time.FixedZone("x", 3600))
	tricky := "<b>&amp; \u2028 \"q\" \\ \x01 é"
	rec, _ := json.Marshal(map[string]any{"record_id": "rec_x", "title": tricky, "n": json.Number("9007199254740993")})
	cached := true
	execs := []executeResponse{
		{SearchID: "srch_x", Capability: "web.search", Results: []json.RawMessage{}, RecordActions: []string{},
			Next: nextStep{URL: followUpPath, Actions: []string{}}, Balance: balanceJSON{Cap: 5, PeriodEnd: &end}},
		{SearchID: "srch_" + tricky, Capability: "books.search", Results: []json.RawMessage{rec, rec}, ResultCount: 2, HasMore: true,
			Filters: []providers.Filter{{}}, Notes: []string{tricky}, RecordActions: []string{"details"}, ChargedCredits: 3,
			Next:    nextStep{URL: followUpPath, Actions: []string{"more", "update"}, Example: map[string]any{"search_id": "srch_x", "action": "more"}},
			Balance: balanceJSON{Used: 7, Cap: 1 << 40, PeriodEnd: &end}},
		{Results: nil, Balance: balanceJSON{}},
		{SearchID: "srch_y", Capability: "x.search", Results: []json.RawMessage{rec}, Notes: []string{"a", ""},
			Next: nextStep{URL: followUpPath, Actions: []string{"update"}, Example: map[string]any{"search_id": "srch_y", "action": "update",
				"params": map[string]any{"num": 10, "q": tricky, "tags": []any{1.5, nil, true}}}},
			Balance: balanceJSON{PeriodEnd: &time.Time{}}},
		{Next: nextStep{Example: map[string]any{}}, Balance: balanceJSON{PeriodEnd: &far}},
	}
	for i, r := range execs {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.appendJSON(nil); !bytes.Equal(got, want) {
			t.Errorf("execute %d:\n got %s\nwant %s", i, got, want)
		}
	}
	links := []providers.Link{{Label: tricky, URL: "https://example.com/?a=1&b=<2>"}}
	linksJSON, _ := json.Marshal(links)
	details := []recordFollowUpResponse{
		{RecordID: "rec_x", Action: "details", Detail: rec, Links: links, linksJSON: linksJSON, ChargedCredits: 4, Balance: balanceJSON{Used: 1, Cap: 2, PeriodEnd: &end}},
		{RecordID: "rec_x", Action: "details", Detail: json.RawMessage(`null`), Links: []providers.Link{}, Cached: &cached, Balance: balanceJSON{PeriodEnd: &end}},
	}
	for i, r := range details {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.appendJSON(nil); !bytes.Equal(got, want) {
			t.Errorf("detail %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

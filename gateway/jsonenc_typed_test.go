package gateway

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants/searches"
)

// typedTestInner is declared out of key order on purpose: the encoder sorts.
type typedTestInner struct {
	Z     string            `json:"z"`
	A     *float64          `json:"a,omitempty"`
	M     map[string]int    `json:"m,omitempty"`
	Label string            `json:"label,omitempty"`
	Tags  []string          `json:"tags"`
	Any   any               `json:"any,omitempty"`
	Raw   json.RawMessage   `json:"raw,omitempty"`
	When  time.Time         `json:"when,omitzero"`
	Sub   map[string]string `json:"sub"`
}

type typedTestRecord struct {
	Zeta     int               `json:"zeta"`
	Alpha    string            `json:"alpha,omitempty"`
	Price    *float64          `json:"price,omitempty"`
	Inner    *typedTestInner   `json:"inner,omitempty"`
	Items    []typedTestInner  `json:"items,omitempty"`
	Free     map[string]any    `json:"free,omitempty"` // free-form: the upstream's own keys
	Flag     bool              `json:"flag"`
	Number   json.Number       `json:"number,omitempty"`
	Count    uint16            `json:"count,omitempty"`
	Big      int64             `json:"big"`
	Rating   float64           `json:"rating"`
	Byname   map[string]*int64 `json:"byname,omitempty"`
	Skipped  string            `json:"-"`
	Snippetz string            `json:"snippetz,omitempty"`
}

// canonicalJSON is v's JSON with every object's keys in order: what the map-built records wrote.
func canonicalJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// randomTypedRecord fills a typedTestRecord with values that exercise the encoder: empty and
// set optionals, strings that need escaping, floats of every format, nil and empty collections.
func randomTypedRecord(rng *rand.Rand) typedTestRecord {
	strs := []string{"", "plain", "<b>&amp;</b>", "quote\" back\\slash", "\x00\x1f", "é 中文 🎵", "\u2028"}
	floats := []float64{0, -1, 0.1, 1e-7, 123456789, 1e21, 3.141592653589793, -2.5e-10}
	str := func() string { return strs[rng.Intn(len(strs))] }
	fl := func() *float64 {
		if rng.Intn(3) == 0 {
			return nil
		}
		f := floats[rng.Intn(len(floats))]
		return &f
	}
	inner := func() typedTestInner {
		in := typedTestInner{Z: str(), A: fl(), Label: str()}
		switch rng.Intn(3) {
		case 0:
			in.Tags = []string{str(), str()}
		case 1:
			in.Tags = []string{}
		}
		if rng.Intn(2) == 0 {
			in.M = map[string]int{str(): rng.Intn(100), "z": -3}
		}
		if rng.Intn(2) == 0 {
			in.Sub = map[string]string{"b": str(), "a": str()}
		}
		switch rng.Intn(4) {
		case 0:
			in.Any = map[string]any{"q": str(), "n": json.Number("7")}
		case 1:
			in.Any = []any{str(), 2.5, nil}
		case 2:
			in.Any = typedTestInner{Z: "nested struct in any", Tags: []string{}}
		}
		if rng.Intn(2) == 0 {
			in.Raw = json.RawMessage(` {"a": [2],  "b": 1} `) // kept as sent (compacted), so sorted here
		}
		if rng.Intn(2) == 0 {
			in.When = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
		}
		return in
	}
	rec := typedTestRecord{Zeta: rng.Intn(1000) - 500, Alpha: str(), Price: fl(), Flag: rng.Intn(2) == 0,
		Big: rng.Int63(), Rating: floats[rng.Intn(len(floats))], Count: uint16(rng.Intn(3)), Snippetz: str(), Skipped: "never"}
	if rng.Intn(3) > 0 {
		in := inner()
		rec.Inner = &in
	}
	for range rng.Intn(3) {
		rec.Items = append(rec.Items, inner())
	}
	if rng.Intn(2) == 0 {
		rec.Free = map[string]any{"k": []any{str(), 1.5, map[string]any{"b": true, "a": nil}}, "n": json.Number("12")}
	}
	if rng.Intn(2) == 0 {
		rec.Number = json.Number("9007199254740993")
	}
	if rng.Intn(2) == 0 {
		n := int64(rng.Intn(10))
		rec.Byname = map[string]*int64{"y": &n, "x": nil}
	}
	return rec
}

// TestTypedRecordMatchesMarshal: a typed record renders as json.Marshal of the map it replaced
// (its fields plus record_id, title, url and snippet, keys sorted), for random values.
func TestTypedRecordMatchesMarshal(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	for i := 0; i < 1000; i++ {
		rec := randomTypedRecord(rng)
		r := providers.Record{Title: "t<" + rec.Alpha, Data: &rec}
		if i%2 == 0 {
			r.URL, r.Snippet = "https://x.test/?a=1&b=2", "s"
		}
		out := &searches.Record{ID: "rec_AAAAAAAAAAAAAAAA"}
		if err := renderRecord(out, &r); err != nil {
			t.Fatal(err)
		}
		merged := map[string]any{}
		dec := json.NewDecoder(bytes.NewReader(canonicalJSON(t, &rec)))
		dec.UseNumber()
		if err := dec.Decode(&merged); err != nil {
			t.Fatal(err)
		}
		merged["record_id"], merged["title"] = out.ID, r.Title
		if r.URL != "" {
			merged["url"], merged["snippet"] = r.URL, r.Snippet
		}
		want := canonicalJSON(t, merged)
		if !bytes.Equal(out.Body, want) {
			t.Fatalf("record %d:\n got %s\nwant %s", i, out.Body, want)
		}
	}
}

// TestTypedRecordWithFields: typed data and map fields together (a capability part way through
// its conversion) render as one sorted object; base keys are the record's own.
func TestTypedRecordWithFields(t *testing.T) {
	price := 12.5
	r := providers.Record{Title: "T", Snippet: "S", Data: &typedTestRecord{Zeta: 1, Price: &price, Alpha: "a"},
		Fields: map[string]any{"middle": "m", "title": "shadowed", "url": "shadowed"}}
	out := &searches.Record{ID: "rec_B"}
	if err := renderRecord(out, &r); err != nil {
		t.Fatal(err)
	}
	want := `{"alpha":"a","big":0,"flag":false,"middle":"m","price":12.5,"rating":0,"record_id":"rec_B","snippet":"S","title":"T","zeta":1}`
	if string(out.Body) != want {
		t.Errorf("got  %s\nwant %s", out.Body, want)
	}
}

// TestTypedRecordRefusesNonStruct: data that is not a struct pointer is an internal error, not
// a panic.
func TestTypedRecordRefusesNonStruct(t *testing.T) {
	for _, data := range []any{"text", (*typedTestRecord)(nil), 3} {
		if err := renderRecord(&searches.Record{ID: "rec_C"}, &providers.Record{Title: "x", Data: data}); err == nil {
			t.Errorf("%T: no error", data)
		}
	}
}

// typedBenchRecord is BenchmarkRenderRecordBody's record as a typed record.
type typedBenchRecord struct {
	Artist     string `json:"artist"`
	Album      string `json:"album"`
	DurationS  int    `json:"duration_s"`
	Rank       int    `json:"rank"`
	Explicit   bool   `json:"explicit"`
	PreviewURL string `json:"preview_url"`
	Release    struct {
		Year  json.Number `json:"year"`
		Label string      `json:"label"`
	} `json:"release"`
}

func BenchmarkRenderRecord(b *testing.B) {
	fields := map[string]any{"artist": "Daft Punk", "album": "Homework", "duration_s": 429, "rank": 875373, "explicit": false,
		"preview_url": "https://cdnt-preview.dzcdn.net/api/1/1/a/b/c/0/abc.mp3", "release": map[string]any{"year": json.Number("1997"), "label": "Virgin"}}
	typed := &typedBenchRecord{Artist: "Daft Punk", Album: "Homework", DurationS: 429, Rank: 875373,
		PreviewURL: "https://cdnt-preview.dzcdn.net/api/1/1/a/b/c/0/abc.mp3"}
	typed.Release.Year, typed.Release.Label = "1997", "Virgin"
	base := providers.Record{Title: "Around the World", URL: "https://www.deezer.com/track/3135556", Snippet: "Daft Punk — Homework (1997)"}
	b.Run("fields", func(b *testing.B) {
		r := base
		r.Fields = fields
		for b.Loop() {
			_ = renderRecord(&searches.Record{ID: "rec_AAAAAAAAAAAAAAAA"}, &r)
		}
	})
	b.Run("typed", func(b *testing.B) {
		r := base
		r.Data = typed
		for b.Loop() {
			_ = renderRecord(&searches.Record{ID: "rec_AAAAAAAAAAAAAAAA"}, &r)
		}
	})
	var m, ty searches.Record
	rm, rt := base, base
	rm.Fields, rt.Data = fields, typed
	_ = renderRecord(&searches.Record{ID: "rec_AAAAAAAAAAAAAAAA"}, &rm)
	_ = renderRecord(&m, &rm)
	_ = renderRecord(&ty, &rt)
	if !bytes.Equal(m.Body, ty.Body) {
		b.Fatalf("typed %s\nfields %s", ty.Body, m.Body)
	}
}

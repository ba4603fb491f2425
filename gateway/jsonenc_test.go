package gateway

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants/searches"
)

// TestAppendAnyMatchesMarshal: the record renderer writes what encoding/json writes.
func TestAppendAnyMatchesMarshal(t *testing.T) {
	strs := []string{"", "plain", "<b>&amp;</b>", "quote\" back\\slash", "\x00\x01\x1f\x7f", "\b\f\n\r\t", "é ü 中文 🎵",
		"\u2028\u2029", "bad \xff\xfe utf8", "\xed\xa0\x80 surrogate", "tab\there"}
	floats := []float64{0, -0.0, 1, -1, 0.1, 1e-6, 9.99e-7, 1e-7, 123456789, 1e20, 1e21, 1.5e300, -2.5e-10, math.MaxFloat64, math.SmallestNonzeroFloat64, 3.141592653589793}
	cases := []any{nil, true, false, 0, -7, int64(math.MaxInt64), json.Number("9007199254740993"), json.Number("1.50"), json.Number(""),
		[]string{"a", "<"}, []string(nil), []any(nil), map[string]any(nil), []any{}, map[string]any{},
		map[string]int{"b": 1, "a": 2}, struct{ A int }{3}}
	for _, s := range strs {
		cases = append(cases, s, map[string]any{s: s})
	}
	for _, f := range floats {
		cases = append(cases, f)
	}
	cases = append(cases, map[string]any{"z": 1.0, "a": []any{"x", 2.5, nil, map[string]any{"k": "<v>", "j": json.Number("7")}}, "m": []string{"\u2028"}})
	for _, c := range cases {
		want, werr := json.Marshal(c)
		got, gerr := appendAny(nil, c)
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Errorf("%#v:\n got %s (%v)\nwant %s (%v)", c, got, gerr, want, werr)
		}
	}
	// Random trees of the shapes adapters build.
	rng := rand.New(rand.NewSource(1))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch k := rng.Intn(8); {
		case k == 0 || depth > 3:
			return strs[rng.Intn(len(strs))]
		case k == 1:
			return rng.NormFloat64() * math.Pow(10, float64(rng.Intn(50)-25))
		case k == 2:
			return rng.Intn(1000) - 500
		case k == 3:
			return rng.Intn(2) == 0
		case k == 4:
			n := rng.Intn(4)
			out := make([]any, n)
			for i := range out {
				out[i] = gen(depth + 1)
			}
			return out
		default:
			n := rng.Intn(5)
			out := map[string]any{}
			for i := 0; i < n; i++ {
				out[strs[rng.Intn(len(strs))]+string(rune('a'+rng.Intn(26)))] = gen(depth + 1)
			}
			return out
		}
	}
	for i := 0; i < 2000; i++ {
		v := gen(0)
		want, _ := json.Marshal(v)
		got, _ := appendAny(nil, v)
		if !bytes.Equal(got, want) {
			t.Fatalf("tree %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

func BenchmarkRenderRecordBody(b *testing.B) {
	body := map[string]any{"record_id": "rec_AAAAAAAAAAAAAAAA", "title": "Around the World", "url": "https://www.deezer.com/track/3135556",
		"artist": "Daft Punk", "album": "Homework", "duration_s": 429, "rank": 875373, "explicit": false, "preview_url": "https://cdnt-preview.dzcdn.net/api/1/1/a/b/c/0/abc.mp3",
		"snippet": "Daft Punk — Homework (1997)", "release": map[string]any{"year": json.Number("1997"), "label": "Virgin"}}
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(body)
		}
	})
	b.Run("appendAny", func(b *testing.B) {
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			buf, _ = appendAny(buf[:0], body)
		}
	})
}

// TestRenderRecordMatchesMergedMap: a rendered record is json.Marshal of its fields merged with
// record_id, title, url and snippet (url and snippet left out when empty).
func TestRenderRecordMatchesMergedMap(t *testing.T) {
	cases := []providers.Record{
		{Title: "t"},
		{Title: "<t>", URL: "https://x.test/?a=1&b=2", Snippet: "s\u2028", Fields: map[string]any{"a": 1, "z": []any{"x"}, "url": "shadowed", "title": "shadowed", "record_id": "x"}},
		{Fields: map[string]any{"snippet": "kept out when empty", "m": map[string]any{"k": json.Number("12345678901234567890")}}},
	}
	for i, r := range cases {
		out := &searches.Record{ID: "rec_AAAAAAAAAAAAAAAA"}
		if err := renderRecord(out, &r); err != nil {
			t.Fatal(err)
		}
		merged := map[string]any{}
		for k, v := range r.Fields {
			merged[k] = v
		}
		merged["record_id"], merged["title"] = out.ID, r.Title
		delete(merged, "url")
		delete(merged, "snippet")
		if r.URL != "" {
			merged["url"] = r.URL
		}
		if r.Snippet != "" {
			merged["snippet"] = r.Snippet
		}
		want, _ := json.Marshal(merged)
		if !bytes.Equal(out.Body, want) {
			t.Errorf("record %d:\n got %s\nwant %s", i, out.Body, want)
		}
	}
}

package openalex

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/capgate/capgate/providers"
)

func TestRebuildAbstract(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string
	}{
		{"absent", ``, ""},
		{"null", `null`, ""},
		{"empty", `{}`, ""},
		{"not an object", `["Despite","growing"]`, ""},
		{"one word", `{"Hello": [0]}`, "Hello"},
		{"words at several positions", `{"the": [0, 4, 8], "cat": [1], "saw": [2], "dog": [5], "and": [3], "ran": [6], "from": [7], "house.": [9]}`,
			"the cat saw and the dog ran from the house."},
		{"object order does not matter", `{"c":[2],"a":[0],"b":[1]}`, "a b c"},
		{"unsorted positions", `{"x":[3,1],"y":[2,0]}`, "y x y x"},
		{"gaps are skipped", `{"first":[0],"after":[5],"gap":[2]}`, "first gap after"},
		{"no position zero", `{"starts":[7],"late":[9]}`, "starts late"},
		{"duplicate position keeps the first word by sort order", `{"beta":[1],"alpha":[1],"zero":[0]}`, "zero alpha"},
		{"punctuation and unicode kept", `{"Résumé:":[0],"naïve":[1],"café,":[2],"日本語":[3]}`, "Résumé: naïve café, 日本語"},
		{"positions of the wrong type ignored", `{"ok":[0],"bad":["1",-1,2.5,null,{}],"also":[1]}`, "ok also"},
		{"position list of the wrong type ignored", `{"ok":[0],"bad":3,"worse":"x","also":[1]}`, "ok also"},
		{"float positions that are whole count", `{"a":[0.0],"b":[1e0]}`, "a b"},
		{"blank words ignored", `{"":[0],"  ":[1],"word":[2]}`, "word"},
		{"words trimmed", `{" padded ":[0],"x":[1]}`, "padded x"},
		{"huge position", `{"a":[0],"b":[4294967296]}`, "a b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := rebuildAbstract(json.RawMessage(tc.in)); got != tc.want {
				t.Errorf("rebuildAbstract(%s) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}

	t.Run("round trip of a real abstract", func(t *testing.T) {
		text := "Despite growing interest in Open Access (OA) to scholarly literature, there is an unmet need for " +
			"large-scale, up-to-date, and reproducible studies assessing the prevalence and characteristics of OA. " +
			"We address this need using oaDOI, an open online service that determines OA status for 67 million articles."
		index := map[string][]int{}
		for i, w := range strings.Fields(text) {
			index[w] = append(index[w], i)
		}
		raw, _ := json.Marshal(index)
		if got := rebuildAbstract(raw); got != text {
			t.Errorf("round trip =\n%q\nwant\n%q", got, text)
		}
	})

	t.Run("bounded", func(t *testing.T) {
		var b strings.Builder
		b.WriteByte('{')
		for i := 0; i < maxAbstractWords+50; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"w%d":[%d]`, i, i)
		}
		b.WriteByte('}')
		if n := len(strings.Fields(rebuildAbstract(json.RawMessage(b.String())))); n != maxAbstractWords {
			t.Errorf("%d words, want %d", n, maxAbstractWords)
		}
	})
}

func TestExcerpt(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"short text", 20, "short text"},
		{"exactly ten", 11, "exactly ten"},
		{"  spaces   collapsed\n here ", 40, "spaces collapsed here"},
		{"cut at the last space before the limit", 15, "cut at the…"},
		{"punctuation, trimmed before the mark", 14, "punctuation…"},
		{"averyveryverylongwordwithoutspaces", 10, "averyvery…"},
		{"ünïcödé wörds are counted as runes", 12, "ünïcödé…"},
	}
	for _, tc := range cases {
		got := providers.ClipLine(tc.in, tc.max) // the rule (providers.Clip): at most max runes with the "…"
		if got != tc.want {
			t.Errorf("excerpt(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
		if utf8.RuneCountInString(strings.TrimSuffix(got, "…")) > tc.max {
			t.Errorf("excerpt(%q, %d) = %q is longer than %d runes", tc.in, tc.max, got, tc.max)
		}
	}
}

func TestWorkID(t *testing.T) {
	cases := map[string]string{
		"https://openalex.org/W2741809807":       "W2741809807",
		"https://openalex.org/works/W2741809807": "W2741809807",
		"HTTPS://OPENALEX.ORG/W2741809807":       "W2741809807",
		"http://openalex.org/W1":                 "W1",
		"W2741809807":                            "W2741809807",
		"w2741809807":                            "W2741809807",
		" W42 ":                                  "W42",
		"https://openalex.org/A5048491430":       "",
		"https://openalex.org/W":                 "",
		"W12x":                                   "",
		"https://example.org/W1":                 "",
		"":                                       "",
	}
	for in, want := range cases {
		if got := workID(in); got != want {
			t.Errorf("workID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBareDOI(t *testing.T) {
	cases := map[string]string{
		"https://doi.org/10.7717/peerj.4375":                   "10.7717/peerj.4375",
		"http://doi.org/10.7717/peerj.4375":                    "10.7717/peerj.4375",
		"https://dx.doi.org/10.1038/nature17946":               "10.1038/nature17946",
		"HTTPS://DOI.ORG/10.1016/j.physletb.2012.08.020":       "10.1016/j.physletb.2012.08.020",
		"doi:10.1371/journal.pone.0013636":                     "10.1371/journal.pone.0013636",
		"10.1016/s0021-9258(19)52451-6":                        "10.1016/s0021-9258(19)52451-6",
		"https://doi.org/10.1002/(sici)1097-4571(199806)49:8<": "10.1002/(sici)1097-4571(199806)49:8<",
		"not a doi":                       "",
		"https://doi.org/11.1/x":          "",
		"https://doi.org/10.1234":         "",
		"https://doi.org/10.1/with space": "",
		"":                                "",
	}
	for in, want := range cases {
		if got := bareDOI(in); got != want {
			t.Errorf("bareDOI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLenientDecoding(t *testing.T) {
	t.Run("optInt", func(t *testing.T) {
		cases := []struct {
			in   string
			want optInt
		}{
			{`2018`, optInt{2018, true}}, {`2018.0`, optInt{2018, true}}, {`-3`, optInt{-3, true}},
			{`2018.5`, optInt{}}, {`"2018"`, optInt{}}, {`null`, optInt{}}, {`[1]`, optInt{}}, {`true`, optInt{}},
			{`1e300`, optInt{}},
		}
		for _, tc := range cases {
			var got optInt
			if err := json.Unmarshal([]byte(tc.in), &got); err != nil || got != tc.want {
				t.Errorf("optInt(%s) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
		}
	})
	t.Run("a work of odd types decodes without error", func(t *testing.T) {
		var w work
		raw := `{"id":1,"doi":null,"display_name":[],"title":"  A   title ","publication_year":"x","type":{},
			"primary_location":{"source":"PeerJ"},"open_access":[],"authorships":{"a":1},"cited_by_count":"9",
			"counts_by_year":"none","best_oa_location":7}`
		if err := json.Unmarshal([]byte(raw), &w); err != nil {
			t.Fatal(err)
		}
		if w.title() != "A title" || w.venue() != "" || w.authors(20) != nil || w.PublicationYear.OK || w.CitedByCount.OK ||
			w.OpenAccess.OK || w.CountsByYear.OK || w.BestOALocation.OK || w.ID != "" || w.Type != "" {
			t.Errorf("work = %+v", w)
		}
	})
	t.Run("authors", func(t *testing.T) {
		var w work
		raw := `{"authorships":[{"author":{"display_name":" Ada Lovelace "}},{"author":null,"raw_author_name":"C. Babbage"},
			{"author":{"display_name":null},"raw_author_name":null},{"author":{"display_name":"Mary Somerville"}}]}`
		if err := json.Unmarshal([]byte(raw), &w); err != nil {
			t.Fatal(err)
		}
		if got := w.authors(20); !reflect.DeepEqual(got, []string{"Ada Lovelace", "C. Babbage", "Mary Somerville"}) {
			t.Errorf("authors = %q", got)
		}
		if got := w.authors(2); !reflect.DeepEqual(got, []string{"Ada Lovelace", "C. Babbage"}) {
			t.Errorf("authors(2) = %q", got)
		}
	})
}

func TestAuthorize(t *testing.T) {
	r, _ := http.NewRequest(http.MethodGet, "https://api.openalex.org/works?search=a+b&page=2", nil)
	authorize(r, "my key&x=1")
	q := r.URL.Query()
	if q.Get("api_key") != "my key&x=1" || q.Get("search") != "a b" || q.Get("page") != "2" || len(q) != 3 {
		t.Errorf("query after authorize = %v", q)
	}
	if r.Header.Get("Authorization") != "" {
		t.Errorf("Authorization header set")
	}
}

package legal

import (
	"reflect"
	"strings"
	"testing"
)

func TestSPARQLString(t *testing.T) {
	for in, want := range map[string]string{
		`data`:                   `"data"`,
		`say "hi"`:               `"say \"hi\""`,
		`back\slash`:             `"back\\slash"`,
		`\u0022`:                 `"\\u0022"`,
		`l'Union`:                `"l\'Union"`,
		"line\nbreak\r\ttab":     `"line\nbreak\r\ttab"`,
		"bell\a nul\x00 del\x7f": `"bell nul del"`,
		"Protección – ∑ 東京":      `"Protección – ∑ 東京"`,
		"":                       `""`,
		"bad \xff utf8":          `"bad  utf8"`,
	} {
		if got := sparqlString(in); got != want {
			t.Errorf("sparqlString(%q) = %s, want %s", in, got, want)
		}
		// Whatever the input, the literal decodes back to the input without its dropped controls.
		lits, skeleton := literals(t, sparqlString(in))
		if skeleton != `"?"` || len(lits) != 1 {
			t.Errorf("sparqlString(%q) is not one literal: %s", in, sparqlString(in))
		}
	}
}

func TestSearchTerms(t *testing.T) {
	for in, want := range map[string][]string{
		"Data Protection":              {"data", "protection"},
		"  data   data DATA ":          {"data"},
		"Case C-131/12.":               {"case", "c-131/12"},
		"Regulation (EU) 2016/679":     {"regulation", "eu", "2016/679"},
		"l'Union européenne":           {"l'union", "européenne"},
		`"right to be forgotten"`:      {"right", "to", "be", "forgotten"},
		`x") } ; DROP ALL #`:           {"x", "drop", "all"},
		`\u0022 } UNION { ?s ?p ?o`:    {"u0022", "union", "s", "p", "o"},
		"<http://evil.example/> ?work": {"http", "evil.example", "work"},
		"Ελληνικά δεδομένα":            {"ελληνικά", "δεδομένα"},
		"--- /// ... '''":              nil,
		"":                             nil,
		strings.Repeat("w", 3) + " a b c d e f g h i j k l m n": {"www", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"},
	} {
		if got := searchTerms(in); !reflect.DeepEqual(got, want) {
			t.Errorf("searchTerms(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSPARQLInjection builds queries from hostile input, both through the query's word split and
// with the raw text handed straight to the escaper, and checks that the query's structure is the
// one of a harmless query: every user text is inside a string literal and decodes back unchanged.
func TestSPARQLInjection(t *testing.T) {
	hostile := []string{
		`x" ) } ; DELETE WHERE { ?s ?p ?o } #`,
		`\" } UNION { ?s ?p ?o } #`,
		`\u0022) } LIMIT 1000000 #`,
		"x\"\n} LIMIT 999999\n#",
		`'single' "double" ''' """`,
		`<http://evil.example/> ?work cdm:x ?y .`,
		`")) } } SELECT * WHERE { ?s ?p ?o } #`,
		"\\\\\" ) } #",
	}
	for _, q := range hostile {
		for name, terms := range map[string][]string{"split": searchTerms(q), "raw": {q, "second " + q}} {
			if len(terms) == 0 {
				continue
			}
			query := euQuery(terms, euTypes(""), "ENG", 4, 0)
			lits, skeleton := literals(t, query)
			benign := make([]string, len(terms))
			for i := range benign {
				benign[i] = "w"
			}
			_, want := literals(t, euQuery(benign, euTypes(""), "ENG", 4, 0))
			if skeleton != want {
				t.Errorf("%s %q changed the query's structure:\n%s", name, q, query)
			}
			var wantLits []string
			for _, term := range terms {
				wantLits = append(wantLits, strings.Map(func(r rune) rune {
					if r == '\n' || r == '\r' || r == '\t' || r >= ' ' && r != 0x7f {
						return r
					}
					return -1
				}, term))
			}
			if !reflect.DeepEqual(lits, wantLits) {
				t.Errorf("%s %q: literals %q, want %q", name, q, lits, wantLits)
			}
		}
	}
}

// literals scans a SPARQL text, decodes its double-quoted string literals (ECHAR escapes) and
// returns them with the text in which each literal is replaced by "?". An unterminated literal or an
// unknown escape fails the test.
func literals(t *testing.T, query string) ([]string, string) {
	t.Helper()
	var lits []string
	var skel strings.Builder
	rs := []rune(query)
	for i := 0; i < len(rs); i++ {
		if rs[i] != '"' {
			skel.WriteRune(rs[i])
			continue
		}
		var lit strings.Builder
		closed := false
		for i++; i < len(rs); i++ {
			switch r := rs[i]; {
			case r == '"':
				closed = true
			case r == '\n' || r == '\r':
				t.Fatalf("raw line break inside a literal: %q", query)
			case r == '\\':
				i++
				if i == len(rs) {
					t.Fatalf("dangling escape: %q", query)
				}
				esc, ok := map[rune]rune{'t': '\t', 'b': '\b', 'n': '\n', 'r': '\r', 'f': '\f', '"': '"', '\'': '\'', '\\': '\\'}[rs[i]]
				if !ok {
					t.Fatalf("unknown escape \\%c in %q", rs[i], query)
				}
				lit.WriteRune(esc)
			default:
				lit.WriteRune(r)
			}
			if closed {
				break
			}
		}
		if !closed {
			t.Fatalf("unterminated literal: %q", query)
		}
		lits = append(lits, lit.String())
		skel.WriteString(`"?"`)
	}
	return lits, skel.String()
}

package legal

import (
	"fmt"
	"strings"
	"unicode"
)

// CDM vocabulary of the Publications Office (http://publications.europa.eu/ontology/cdm#) and
// its authority tables.
const (
	cdmNS          = "http://publications.europa.eu/ontology/cdm#"
	resourceTypeNS = "http://publications.europa.eu/resource/authority/resource-type/"
	languageNS     = "http://publications.europa.eu/resource/authority/language/"
)

// maxTerms bounds the words of a title search (each is one CONTAINS test).
const maxTerms = 12

// kindTypes are the resource types (cdm:work_has_resource-type) of each kind.
var kindTypes = map[string][]string{
	"judgment":    {"JUDG"},
	"legislation": {"REG", "REG_IMPL", "REG_DEL", "DIR", "DIR_IMPL", "DIR_DEL", "DEC", "DEC_IMPL", "DEC_DEL"},
	"opinion":     {"OPIN_AG", "VIEW_AG", "OPIN_JUR"},
}

// allKinds is the order types are listed in when no kind is given.
var allKinds = []string{"judgment", "legislation", "opinion"}

// typeKinds maps a resource type back to the record's document_kind.
var typeKinds = map[string]string{
	"JUDG": "judgment",
	"REG":  "regulation", "REG_IMPL": "regulation", "REG_DEL": "regulation",
	"DIR": "directive", "DIR_IMPL": "directive", "DIR_DEL": "directive",
	"DEC": "decision", "DEC_IMPL": "decision", "DEC_DEL": "decision",
	"OPIN_AG": "advocate_general_opinion", "VIEW_AG": "advocate_general_opinion",
	"OPIN_JUR": "court_opinion",
}

// searchTerms splits a query into the lower-case words a title must contain: runs of letters and
// digits, keeping inner - / . ' ’ so that "C-131/12", "2016/679" and "l'Union" stay one word.
// Everything else (quotes, backslashes, brackets, braces, operators) only separates words, so no
// character with a meaning in SPARQL ever reaches the query; the literal is escaped all the same.
func searchTerms(query string) []string {
	isWord := func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) || strings.ContainsRune("-/.'’", r)
	}
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !isWord(r) }) {
		w = strings.Trim(w, "-/.'’")
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == maxTerms {
			break
		}
	}
	return out
}

// sparqlString writes s as a SPARQL double-quoted string literal (STRING_LITERAL2): the quote,
// the backslash and the line breaks are escaped with ECHAR sequences; other control characters
// are dropped (they have no place in a title search).
func sparqlString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if unicode.IsControl(r) || r == unicode.ReplacementChar {
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// euQuery is the SPARQL query of one page: works of the given resource types with a CELEX number
// whose expression in the language has a title containing every term; one row per work with its
// ECLI (case law), its document date and its resource type; newest first, then by CELEX, so
// LIMIT/OFFSET pages are stable. limit is one more than the page size, to tell whether another
// page follows.
func euQuery(terms []string, types []string, lang3 string, limit, offset int) string {
	var b strings.Builder
	b.WriteString("PREFIX cdm: <" + cdmNS + ">\n")
	b.WriteString("SELECT ?work ?celex (SAMPLE(?e) AS ?ecli) (SAMPLE(?t) AS ?title) (MAX(?d) AS ?date) (SAMPLE(?rt) AS ?type)\n")
	b.WriteString("WHERE {\n")
	b.WriteString("  VALUES ?rt {")
	for _, t := range types {
		b.WriteString(" <" + resourceTypeNS + t + ">")
	}
	b.WriteString(" }\n")
	b.WriteString("  ?work cdm:work_has_resource-type ?rt ;\n")
	b.WriteString("        cdm:resource_legal_id_celex ?celex .\n")
	b.WriteString("  ?expr cdm:expression_belongs_to_work ?work ;\n")
	b.WriteString("        cdm:expression_uses_language <" + languageNS + lang3 + "> ;\n")
	b.WriteString("        cdm:expression_title ?t .\n")
	b.WriteString("  FILTER(")
	for i, term := range terms {
		if i > 0 {
			b.WriteString(" && ")
		}
		b.WriteString("CONTAINS(LCASE(STR(?t)), " + sparqlString(term) + ")")
	}
	b.WriteString(")\n")
	b.WriteString("  OPTIONAL { ?work cdm:case-law_ecli ?e }\n")
	b.WriteString("  OPTIONAL { ?work cdm:work_date_document ?d }\n")
	b.WriteString("}\n")
	b.WriteString("GROUP BY ?work ?celex\n")
	b.WriteString("ORDER BY DESC(?date) ?celex\n")
	fmt.Fprintf(&b, "LIMIT %d\nOFFSET %d\n", limit, offset)
	return b.String()
}

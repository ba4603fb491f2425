package legal

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

var (
	sparqlTermRe = regexp.MustCompile(`CONTAINS\(LCASE\(STR\(\?t\)\), "((?:[^"\\]|\\.)*)"\)`)
	sparqlTypeRe = regexp.MustCompile(`<` + regexp.QuoteMeta(resourceTypeNS) + `([A-Z_]+)>`)
	sparqlLimit  = regexp.MustCompile(`(?m)^LIMIT ([0-9]+)`)
)

// generateCellarSearch answers a title search whose words the recorded rows do not hold with a
// synthetic set (issue 36): every title (its short form too: the parties name the topic) holds
// every searched word, the rows are of the requested
// resource types, newest first, and LIMIT/OFFSET walk through a total drawn from the query, so
// more advances and ends. ok is false when the recorded answer already matches the words (the
// golden files pin it) or the query cannot be read.
func generateCellarSearch(query string, fixture []byte) ([]byte, bool) {
	var terms []string
	for _, m := range sparqlTermRe.FindAllStringSubmatch(query, -1) {
		terms = append(terms, strings.ReplaceAll(m[1], `\"`, `"`))
	}
	var types []string
	for _, m := range sparqlTypeRe.FindAllStringSubmatch(query, -1) {
		types = append(types, m[1])
	}
	lm := sparqlLimit.FindStringSubmatch(query)
	om := sparqlOffset.FindStringSubmatch(query)
	if len(terms) == 0 || len(types) == 0 || lm == nil || om == nil {
		return nil, false
	}
	text := strings.ToLower(string(fixture))
	held := true
	for _, t := range terms {
		held = held && strings.Contains(text, t)
	}
	doc := providers.JSONObject(fixture)
	res, _ := doc["results"].(map[string]any)
	tmpls := providers.Templates(res["bindings"])
	if held || len(tmpls) == 0 {
		return nil, false
	}
	limit, _ := strconv.Atoi(lm[1])
	offset, _ := strconv.Atoi(om[1])
	lang := "en"
	if l, _ := tmpls[0]["title"].(map[string]any); l != nil {
		if s, ok := l["xml:lang"].(string); ok {
			lang = s
		}
	}
	key := strings.Join(terms, " ") + "\x00" + strings.Join(types, ",")
	total := 6 + providers.Rand("cellar", key).IntN(15)
	topic := strings.Join(terms, " ")
	// Dates newest first, as the query orders them: each row a few months before the previous.
	date := time.Now().UTC().AddDate(0, -1, 0)
	rows := []any{}
	for i := 0; i < min(offset+limit, total); i++ {
		rr := providers.Rand("cellar row", key, strconv.Itoa(i))
		date = date.AddDate(0, -1-rr.IntN(8), -rr.IntN(20))
		if i < offset {
			continue
		}
		rt := types[i%len(types)]
		y, n := date.Year(), 1+rr.IntN(899)
		var celex, title, ecli string
		party := strings.Fields(providers.SynthPerson(key, i))
		switch typeKinds[rt] {
		case "judgment":
			celex = fmt.Sprintf("6%04dCJ%04d", y-1, n)
			ecli = fmt.Sprintf("ECLI:EU:C:%d:%d", y, 100+rr.IntN(900))
			title = fmt.Sprintf("Judgment of the Court of %d %s %d.#%s v Sandbox Authority (%s).#Reference for a preliminary ruling — %s.#Case C-%d/%02d.",
				date.Day(), date.Month(), y, party[len(party)-1], topic, topic, n, (y-1)%100)
		case "advocate_general_opinion", "court_opinion":
			celex = fmt.Sprintf("6%04dCC%04d", y-1, n)
			ecli = fmt.Sprintf("ECLI:EU:C:%d:%d", y, 100+rr.IntN(900))
			title = fmt.Sprintf("Opinion of Advocate General %s delivered on %d %s %d.#%s v Sandbox Authority (%s).#%s.#Case C-%d/%02d.",
				party[len(party)-1], date.Day(), date.Month(), y, party[0], topic, topic, n, (y-1)%100)
		default:
			letter, name := "R", "Regulation"
			switch typeKinds[rt] {
			case "directive":
				letter, name = "L", "Directive"
			case "decision":
				letter, name = "D", "Decision"
			}
			celex = fmt.Sprintf("3%04d%s%04d", y, letter, n)
			title = fmt.Sprintf("%s (EU) %d/%d of the European Parliament and of the Council of %d %s %d on %s (synthetic test-mode act)",
				name, y, n, date.Day(), date.Month(), y, topic)
		}
		row := providers.FromTemplate(tmpls, i)
		set := func(k, v string) {
			if t, ok := row[k].(map[string]any); ok {
				t["value"] = v
			} else {
				row[k] = map[string]any{"type": "literal", "value": v}
			}
		}
		set("work", "http://publications.europa.eu/resource/cellar/"+providers.Slug(celex)+"-sandbox")
		set("celex", celex)
		set("title", title)
		if t, ok := row["title"].(map[string]any); ok {
			t["xml:lang"] = lang
		}
		set("date", date.Format(time.DateOnly))
		set("type", resourceTypeNS+rt)
		if ecli != "" {
			set("ecli", ecli)
		} else {
			delete(row, "ecli")
		}
		rows = append(rows, row)
	}
	res["bindings"] = rows
	return providers.JSONBytes(doc), true
}

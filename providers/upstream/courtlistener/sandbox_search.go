package courtlistener

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// recordedQuery is the query of the recorded search pages (the golden files pin their mapping).
const recordedQuery = "right to privacy"

// sandboxPageSize is how many results a generated search page holds, as the v4 search pages.
const sandboxPageSize = 20

// generatedSearch tells whether a search is one the sandbox generates (issue 36): any but the
// recorded query without a date filter, the reserved miss and "noresults" (the recorded empty
// answer).
func generatedSearch(r *http.Request) bool {
	v := r.URL.Query()
	words, _ := splitClause(v.Get("q"))
	w := strings.ToLower(strings.TrimSpace(words))
	if w == "" || providers.IsSandboxMiss(w) || strings.Contains(w, "noresults") {
		return false
	}
	return w != recordedQuery || v.Get("filed_after") != "" || v.Get("filed_before") != ""
}

// splitClause splits "(words) AND court_jurisdiction:(…)" into the words and the clause.
func splitClause(q string) (words, clause string) {
	if strings.HasPrefix(q, "(") {
		if i := strings.LastIndex(q, ") AND "); i > 0 {
			return q[1:i], q[i+len(") AND "):]
		}
	}
	return q, ""
}

type sandboxCourt struct{ name, id, cite string }

var (
	federalCourts = []sandboxCourt{
		{"Supreme Court of the United States", "scotus", "SCOTUS"},
		{"Court of Appeals for the Ninth Circuit", "ca9", "9th Cir."},
		{"Court of Appeals for the Second Circuit", "ca2", "2d Cir."},
		{"District Court, S.D. New York", "nysd", "S.D.N.Y."},
		{"District Court, N.D. California", "cand", "N.D. Cal."},
	}
	stateCourts = []sandboxCourt{
		{"California Supreme Court", "cal", "Cal."},
		{"Court of Appeals of Texas", "texapp", "Tex. App."},
		{"New York Court of Appeals", "ny", "N.Y."},
		{"Supreme Court of Pennsylvania", "pa", "Pa."},
	}
	otherParties = []string{"United States", "City of Springfield", "State Board of Education", "Acme Holdings, Inc.",
		"County of Riverside", "Department of Revenue", "Northwind Traders LLC", "Harbor Transit Authority"}
)

// generateSearch answers a search with a synthetic set of opinions about it: case names carry
// the query (in the full name), filing dates fall in filed_after..filed_before, courts follow the
// federal or state clause, and the cursor walks through a total drawn from the request.
func generateSearch(r *http.Request, fixture []byte, status int) ([]byte, int) {
	if status != http.StatusOK {
		return fixture, status
	}
	doc := providers.JSONObject(fixture)
	tmpls := providers.Templates(doc["results"])
	if len(tmpls) == 0 {
		return fixture, status
	}
	v := r.URL.Query()
	words, clause := splitClause(v.Get("q"))
	topic := strings.Join(strings.Fields(words), " ")
	courts := append(append([]sandboxCourt{}, federalCourts...), stateCourts...)
	switch {
	case strings.Contains(clause, "(F "):
		courts = federalCourts
	case strings.Contains(clause, "(S "):
		courts = stateCourts
	}
	fromY, toY := 1950, time.Now().UTC().Year()
	if y, err := strconv.Atoi(prefix4(v.Get("filed_after"))); err == nil {
		fromY = y
	}
	if y, err := strconv.Atoi(prefix4(v.Get("filed_before"))); err == nil {
		toY = y
	}
	key := strings.ToLower(v.Get("q") + "\x00" + v.Get("filed_after") + "\x00" + v.Get("filed_before"))
	total := 0
	if fromY <= toY {
		total = 8 + providers.Rand("courtlistener search", key).IntN(25)
	}
	offset := 0
	if c := v.Get("cursor"); strings.HasPrefix(c, "sbx") {
		offset, _ = strconv.Atoi(strings.TrimPrefix(c, "sbx"))
	}
	results := []any{}
	for i := max(offset, 0); i < min(offset+sandboxPageSize, total); i++ {
		rec := providers.FromTemplate(tmpls, i)
		rr := providers.Rand("courtlistener case", key, strconv.Itoa(i))
		court := courts[rr.IntN(len(courts))]
		year := fromY + rr.IntN(toY-fromY+1)
		filed := time.Date(year, time.Month(1+rr.IntN(12)), 1+rr.IntN(28), 0, 0, 0, 0, time.UTC)
		if now := time.Now().UTC(); filed.After(now) {
			filed = now.AddDate(0, 0, -1-rr.IntN(30))
		}
		id := 10_000_000 + rr.IntN(80_000_000)
		party := strings.Fields(providers.SynthPerson(key, i))
		name := party[len(party)-1] + " v. " + otherParties[rr.IntN(len(otherParties))]
		rec["caseName"] = name
		rec["caseNameFull"] = fmt.Sprintf("%s (a synthetic test-mode case on %s)", name, topic)
		rec["cluster_id"], rec["docket_id"] = id, id+1
		rec["absolute_url"] = fmt.Sprintf("/opinion/%d/%s/", id, providers.Slug(name))
		rec["court"], rec["court_id"], rec["court_citation_string"] = court.name, court.id, court.cite
		rec["dateFiled"] = filed.Format(time.DateOnly)
		rec["dateArgued"] = filed.AddDate(0, -2, 0).Format(time.DateOnly)
		rec["docketNumber"] = fmt.Sprintf("%02d-%d", year%100, 100+rr.IntN(9000))
		rec["citeCount"] = rr.IntN(2000)
		rec["judge"] = providers.SynthPerson(key+"judge", i)
		rec["suitNature"] = ""
		vol := 400 + rr.IntN(600)
		rec["citation"] = []any{fmt.Sprintf("%d F.3d %d", vol, 1+rr.IntN(1400))}
		if court.id == "scotus" {
			// A U.S. Reports volume of the filing year (volume 277 was 1928, about three a year).
			rec["citation"] = []any{fmt.Sprintf("%d U.S. %d", max(277+(year-1928)*3, 1), 1+rr.IntN(900))}
		} else if court.cite != "" && !strings.HasPrefix(court.id, "ca") && !strings.HasSuffix(court.id, "d") {
			rec["citation"] = []any{fmt.Sprintf("%d %s %d", 1+rr.IntN(400), court.cite, 1+rr.IntN(1400))}
		}
		if ops, ok := rec["opinions"].([]any); ok {
			for k, o := range ops {
				if m, ok := o.(map[string]any); ok {
					m["id"] = id + k
					m["snippet"] = topic
				}
			}
		}
		results = append(results, rec)
	}
	doc["results"] = results
	doc["count"] = total
	doc["previous"] = nil
	doc["next"] = nil
	if offset+sandboxPageSize < total {
		nv := url.Values{"type": {"o"}, "q": {v.Get("q")}, "cursor": {"sbx" + strconv.Itoa(offset+sandboxPageSize)}}
		for _, k := range []string{"filed_after", "filed_before"} {
			if v.Get(k) != "" {
				nv.Set(k, v.Get(k))
			}
		}
		doc["next"] = "https://www.courtlistener.com" + APIPrefix + "search/?" + nv.Encode()
	}
	return providers.JSONBytes(doc), http.StatusOK
}

func prefix4(s string) string {
	if len(s) < 4 {
		return ""
	}
	return s[:4]
}

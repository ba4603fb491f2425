package serpapi

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
)

// The sandbox answers any search (issue 18): the recorded answer of the engine is rewritten so
// that its topic (the recorded query's words) becomes the requested query's, in every text of the
// answer (titles, snippets, names, questions), never in URLs. A recorded query gets the recorded
// answer unchanged. Paging ends: from the third page on, the answer has no next link.
func init() {
	providers.RegisterGenerators(ProviderID, providers.GeneratedRoute{Path: "/search.json", Generate: generateSearch})
}

// sandboxTotal is how many results an offset-paged engine holds for any query in the sandbox.
const sandboxTotal = 30

func intParam(q map[string][]string, k string) int {
	if v := q[k]; len(v) > 0 {
		n, _ := strconv.Atoi(v[0])
		return n
	}
	return 0
}

// lastPage tells whether a paging request reaches the sandbox's last page: the one holding the
// result at sandboxTotal for Google's offset paging (start), the third page for page numbers.
func lastPage(q map[string][]string) bool {
	google := len(q["engine"]) > 0 && q["engine"][0] == "google"
	return (google && intParam(q, "start")+10 >= sandboxTotal) || intParam(q, "page") >= 2
}

// endResults cuts the result lists of an offset-paged answer at sandboxTotal.
func endResults(doc map[string]any, start int) {
	left := max(sandboxTotal-start, 0)
	for k, v := range doc {
		if arr, ok := v.([]any); ok && strings.HasSuffix(k, "_results") && len(arr) > left {
			doc[k] = arr[:left]
		}
	}
}

func generateSearch(r *http.Request, fixture []byte, status int) ([]byte, int) {
	doc := providers.JSONObject(fixture)
	if doc == nil || status != http.StatusOK {
		return fixture, status
	}
	q := r.URL.Query()
	if providers.IsSandboxMiss(q.Get("q")) {
		// The reserved miss answers as the engine answers a search without results.
		if b, err := fs.ReadFile(sandboxFS, path.Join("sandbox", path.Base(q.Get("engine")), "empty.json")); err == nil {
			return b, http.StatusOK
		}
		return providers.EmptyAnswer(fixture), http.StatusOK
	}
	if gen := worldEngines[q.Get("engine")]; gen != nil {
		recorded := isRecorded(doc, q)
		work := providers.Clone(doc).(map[string]any)
		if out, st, ok := gen(work, q); ok && (st != http.StatusOK || !recorded) {
			return out, st
		}
	}
	params, _ := doc["search_parameters"].(map[string]any)
	recorded, _ := params["q"].(string)
	asked := q.Get("q")
	// Google's web results are offset-paged by start; other engines' recorded pages end paging.
	if start := intParam(q, "start"); start > 0 && q.Get("engine") == "google" {
		endResults(doc, start)
	}
	if lastPage(q) {
		for _, k := range []string{"serpapi_pagination", "pagination"} {
			if p, ok := doc[k].(map[string]any); ok {
				delete(p, "next")
				delete(p, "next_link")
				delete(p, "next_page_token")
			}
		}
	}
	if recorded != "" && asked != "" && !strings.EqualFold(strings.TrimSpace(asked), strings.TrimSpace(recorded)) {
		providers.RewriteTopic(doc, recorded, asked)
		if local, ok := localNames[recorded]; ok {
			providers.RewriteTopic(doc, local, asked)
			movePlaces(doc, recorded, asked)
		}
		params["q"] = asked
	}
	rewriteParams(doc, params, q)
	if q.Get("engine") == "google_shopping" {
		offerRatingOrder(doc)
	}
	return providers.JSONBytes(doc), http.StatusOK
}

// sandboxRatingToken is the shoprs token of the sandbox's rating order.
const sandboxRatingToken = "sandbox-rating-high-to-low"

// offerRatingOrder adds a "Rating: high to low" option to the answer's "Sort by" filter, as
// Google Shopping offers for many searches, so that a sandbox search can sort by rating.
func offerRatingOrder(doc map[string]any) {
	filters, _ := doc["filters"].([]any)
	var sortBy map[string]any
	for _, f := range filters {
		if m, ok := f.(map[string]any); ok && m["type"] == "Sort by" {
			sortBy = m
		}
	}
	if sortBy == nil {
		sortBy = map[string]any{"type": "Sort by", "input_type": "link", "options": []any{}}
		doc["filters"] = append(filters, sortBy)
	}
	opts, _ := sortBy["options"].([]any)
	for _, o := range opts {
		if m, ok := o.(map[string]any); ok && m["text"] == "Rating: high to low" {
			return
		}
	}
	sortBy["options"] = append(opts, map[string]any{"text": "Rating: high to low", "shoprs": sandboxRatingToken,
		"serpapi_link": "https://serpapi.com/search.json?engine=google_shopping&shoprs=" + sandboxRatingToken})
}

// echoed are the request parameters whose recorded values the answers repeat (airports, dates,
// places): a different asked value replaces the recorded one wherever it stands as a word.
var echoed = []string{"departure_id", "arrival_id", "outbound_date", "return_date", "check_in_date", "check_out_date"}

func rewriteParams(doc map[string]any, params map[string]any, q url.Values) {
	for _, k := range echoed {
		rec, _ := params[k].(string)
		asked := q.Get(k)
		if rec == "" || asked == "" || rec == asked || strings.Contains(asked, ",") {
			continue
		}
		providers.RewriteStrings(doc, func(_, s string) string {
			if strings.Contains(s, "://") {
				return s
			}
			return providers.ReplaceWord(s, rec, asked)
		})
		params[k] = asked
	}
}

// localNames are the local spellings of recorded place queries that the recorded answers use.
var localNames = map[string]string{"Lisbon": "Lisboa"}

// movePlaces shifts every gps_coordinates of an answer about the recorded place to the asked one.
func movePlaces(doc map[string]any, recorded, asked string) {
	from, ok1 := providers.PlaceNamed(recorded)
	to, ok2 := providers.PlaceNamed(asked)
	if !ok1 || !ok2 {
		return
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if g, ok := x["gps_coordinates"].(map[string]any); ok {
				if lat, ok := g["latitude"].(json.Number); ok {
					f, _ := lat.Float64()
					g["latitude"] = f - from.Lat + to.Lat
				}
				if lon, ok := g["longitude"].(json.Number); ok {
					f, _ := lon.Float64()
					g["longitude"] = f - from.Lon + to.Lon
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
}

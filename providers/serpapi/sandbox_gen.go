package serpapi

import (
	"net/http"
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

// questionWords are dropped from a recorded query to find its topic ("how tall is the eiffel
// tower" is about "eiffel tower").
var questionWords = map[string]bool{"how": true, "tall": true, "is": true, "the": true, "what": true, "a": true, "of": true, "in": true}

// topicOf is a query without operators (site:, a ticker's exchange) and question words.
func topicOf(q string) string {
	var words []string
	for _, w := range strings.Fields(q) {
		if strings.Contains(w, ":") && !strings.HasSuffix(w, ":") {
			if head, _, _ := strings.Cut(w, ":"); head != "" && strings.ToUpper(head) == head {
				words = append(words, head) // a ticker such as GOOGL:NASDAQ
			}
			continue
		}
		words = append(words, w)
	}
	out := words
	for len(out) > 1 && questionWords[strings.ToLower(out[0])] {
		out = out[1:]
	}
	return strings.Join(out, " ")
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
		rewriteTopic(doc, recorded, asked)
		params["q"] = asked
	}
	return providers.JSONBytes(doc), http.StatusOK
}

// rewriteTopic replaces the recorded query's topic by the asked one in every text of the answer;
// comma-separated queries (trends comparisons) are replaced term by term.
func rewriteTopic(doc map[string]any, recorded, asked string) {
	from, to := strings.Split(recorded, ","), strings.Split(asked, ",")
	type pair struct{ from, to string }
	var pairs []pair
	for i, f := range from {
		t := to[min(i, len(to)-1)]
		ft, tt := topicOf(strings.TrimSpace(f)), topicOf(strings.TrimSpace(t))
		if ft == "" || tt == "" {
			continue
		}
		pairs = append(pairs, pair{ft, tt})
		// A multi-word topic also appears by its last word alone ("the Eiffel Tower" → "Tower").
		if fw := strings.Fields(ft); len(fw) > 1 && len(fw[0]) > 3 {
			pairs = append(pairs, pair{fw[0], tt})
		}
	}
	providers.RewriteStrings(doc, func(key, s string) string {
		if strings.HasPrefix(s, "http") || strings.Contains(s, "://") || key == "q" || strings.HasSuffix(key, "_token") || strings.HasSuffix(key, "_id") {
			return s
		}
		for _, p := range pairs {
			repl := p.to
			if s != "" && strings.ToUpper(s[:1]) == s[:1] {
				repl = providers.TitleCase(p.to)
			}
			s = providers.ReplaceFold(s, p.from, repl)
		}
		return s
	})
}

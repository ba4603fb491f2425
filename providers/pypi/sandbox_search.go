package pypi

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// The discovery search's web search, restricted to the index's project pages, answers any query
// with project pages named from the query's words (issue 36), ten a page over a total drawn
// from the query, so more advances and ends; their details verify as synthetic projects of the
// same name. The recorded query gets the recorded page (the golden files pin it). The route
// goes before the shared web search generator and matches only site-restricted project searches.
func init() {
	providers.PrependGenerators(serpapi.ProviderID, providers.GeneratedRoute{Path: "/search.json", Match: projectSearch, Generate: generateProjectSearch})
}

// recordedProjectSearch is the query of the recorded site search.
const recordedProjectSearch = "http client"

// projectSearch tells whether a web search is one of pypkg.search's this route generates:
// Google, restricted to /project/ pages, neither the recorded query nor the reserved miss (the
// shared generator answers those as it answers every web search).
func projectSearch(r *http.Request) bool {
	q := r.URL.Query()
	words, host := splitSiteQuery(q.Get("q"))
	return q.Get("engine") == searchEngine && host != "" && strings.TrimSpace(words) != "" &&
		!providers.IsSandboxMiss(words) && !strings.EqualFold(strings.TrimSpace(words), recordedProjectSearch)
}

// splitSiteQuery splits "words site:<host>/project/" into the words and the host.
func splitSiteQuery(q string) (words, host string) {
	i := strings.LastIndex(q, " site:")
	if i < 0 || !strings.HasSuffix(q, "/project/") {
		return q, ""
	}
	return strings.TrimSpace(q[:i]), strings.TrimSuffix(q[i+len(" site:"):], "/project/")
}

func generateProjectSearch(r *http.Request, fixture []byte, status int) ([]byte, int) {
	v := r.URL.Query()
	words, host := splitSiteQuery(v.Get("q"))
	if status != http.StatusOK {
		return fixture, status
	}
	doc := providers.JSONObject(fixture)
	tmpls := providers.Templates(doc["organic_results"])
	if len(tmpls) == 0 {
		return fixture, status
	}
	key := strings.ToLower(strings.Join(strings.Fields(words), " "))
	total := 14 + providers.Rand("pypi search", key).IntN(17)
	start, _ := strconv.Atoi(v.Get("start"))
	start = max(start, 0)
	names := providers.PackageNames(words, total)
	topic := strings.Join(providers.QueryWords(words), " ")
	results := []any{}
	for i := start; i < min(start+googlePageSize, total); i++ {
		o := providers.FromTemplate(tmpls, i)
		name := names[i]
		link := "https://" + host + "/project/" + name + "/"
		o["position"] = i - start + 1
		o["title"] = name + " · PyPI"
		o["link"] = link
		o["redirect_link"] = "https://www.google.com/url?sa=t&url=" + url.QueryEscape(link)
		o["displayed_link"] = "https://" + host + " › project › " + name
		o["snippet"] = fmt.Sprintf("%s: a synthetic test-mode project for %s.", name, topic)
		o["snippet_highlighted_words"] = []any{topic}
		results = append(results, o)
	}
	doc["organic_results"] = results
	if params, ok := doc["search_parameters"].(map[string]any); ok {
		params["q"] = v.Get("q")
	}
	if info, ok := doc["search_information"].(map[string]any); ok {
		info["query_displayed"] = v.Get("q")
		info["total_results"] = total
	}
	next := ""
	if start+googlePageSize < total {
		nq := url.Values{"engine": {searchEngine}, "q": {v.Get("q")}, "start": {strconv.Itoa(start + googlePageSize)}}
		next = "https://serpapi.com/search.json?" + nq.Encode()
	}
	for _, k := range []string{"serpapi_pagination", "pagination"} {
		if next == "" {
			delete(doc, k)
			continue
		}
		doc[k] = map[string]any{"current": start/googlePageSize + 1, "next": next, "next_link": next}
	}
	return providers.JSONBytes(doc), http.StatusOK
}

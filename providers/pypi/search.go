package pypi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// searchEngine is the SerpApi engine of the discovery search; googlePageSize the most organic
// results Google serves per request (it stopped honouring num in 2025).
const (
	searchEngine   = "google"
	googlePageSize = 10
)

// Search is pypkg.search (spec 4.30).
var Search = &providers.Capability{
	ID:      "pypkg.search",
	Fresh:   time.Hour,
	Title:   "Python package discovery",
	Summary: "Find candidate projects on the Python package index with a web search restricted to its project pages; candidates are verified on demand.",
	Description: "The Python package index has no search API, so this capability runs a Google web search (through " +
		"SerpApi) restricted to the index's project pages: the query becomes \"<query> site:<index host>/project/\", " +
		"the index host being the one this deployment configures. `query` (string, required, 1 to 300 characters, not " +
		"blank); `num` (integer, 1 to 20, default 10: search results per page; each page continues where the previous one ended). " +
		"Results are unverified candidates: only links of the form https://<index host>/project/<name>/ (optionally " +
		"with a version segment) are kept, other links are dropped, and a project appears once per page (by its " +
		"normalized name), so a page can be empty while has_more is true, and a project can recur on later pages. " +
		"Each record: title, url and snippet from the search result; keys (all always): package (string, the " +
		"PEP 503 normalized project name from the link), source (\"web_search\") and verified (boolean, false: the " +
		"index has not been asked yet). Google serves at most about 10 results per request, so with num above 10 a " +
		"page holds at most about 10 results and the next page continues where it ended " +
		"(a note says so). Follow-ups: more (next provider page, 1 credit), update (change query or num; paging " +
		"restarts), and the record action details (free, cached on repeat): verifies the candidate against the " +
		"index and answers its official latest-version metadata (name, version, summary, requires_python, " +
		"project_urls, license) with verified true; a candidate the index does not know answers not_found.",
	Topic:     topic,
	Request:   searchRequestSchema,
	Paging:    providers.PagingPage,
	Cost:      providers.Cost{Typical: 1, Basis: "1 credit per page of results (one SerpApi Google search, $0.001); verifying a candidate with details is free."},
	Deadline:  15 * time.Second,
	Providers: []string{serpapi.ProviderID, indexID},
	Actions: []providers.Action{{
		Name: "details",
		Description: "Verifies the candidate against the Python package index and answers its official latest-version " +
			"metadata (name, version, summary, requires_python, project_urls, license) with verified true; not_found " +
			"when the index has no such project. Free, cached on repeat.",
		Kind:    providers.ActionLookup,
		Credits: 0,
		Run:     verifyCandidate,
	}},
	Examples: []providers.Example{
		{Title: "Projects for a task", Body: providers.ExampleBody(`{"query": "http client"}`)},
		{Title: "Five candidates per page", Body: providers.ExampleBody(`{"query": "async http requests", "num": 5}`)},
	},
	Execute: executeSearch,
	Record:  CandidateRecord{},
}

const searchRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "pypkg.search request",
  "description": "Find candidate projects on the Python package index with a web search restricted to its project pages.",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 300,
      "pattern": "\\S",
      "description": "What the project does or is called, as typed into a web search (for example \"http client\" or \"yaml parser\"). Must not be blank. The restriction to the index's project pages is added by the gateway."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 20,
      "default": 10,
      "description": "Search results per page, 1 to 20 (default 10); each page continues where the previous one ended. Google serves at most about 10 per request."
    }
  }
}`

// searchState is the opaque paging state: the 1-based page to fetch and the search result it
// starts at (the results consumed so far, so nothing is skipped when Google serves fewer than num).
type searchState struct {
	Page  int `json:"page"`
	Start int `json:"start,omitempty"`
}

// candidateRef is a search record's Ref: the normalized project name to verify.
type candidateRef struct {
	Package string `json:"package"`
}

type organicResult struct {
	Title   lenient.Str `json:"title"`
	Link    lenient.Str `json:"link"`
	Snippet lenient.Str `json:"snippet"`
}

type googleAnswer struct {
	OrganicResults    lenient.List[organicResult] `json:"organic_results"`
	SerpapiPagination lenient.Obj[pagination]     `json:"serpapi_pagination"`
	Pagination        lenient.Obj[pagination]     `json:"pagination"`
}

type pagination struct {
	Next lenient.Str `json:"next"`
}

func executeSearch(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	num, ok := call.Request.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	st := searchState{Page: 1}
	if len(call.State) > 0 {
		if err := json.Unmarshal(call.State, &st); err != nil || st.Page < 2 {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
	}
	host, err := indexHost(call)
	if err != nil {
		return nil, err
	}
	q := url.Values{"q": {strings.TrimSpace(call.Request.Str("query")) + " site:" + host + "/project/"}}
	start := st.Start
	if start == 0 {
		start = (st.Page - 1) * num
	}
	if start > 0 {
		q.Set("start", strconv.Itoa(start))
	}
	var body googleAnswer
	meta, err := serpapi.Search(ctx, call, searchEngine, q, &body)
	if err != nil {
		return nil, err
	}
	out := &providers.Page{Records: []providers.Record{}}
	if meta.NoResults() {
		return out, nil // nothing (more) for this query
	}
	organic := body.OrganicResults
	used := min(num, len(organic))
	seen := map[string]bool{}
	for _, r := range organic[:used] {
		name, ok := candidateName(string(r.Link), host)
		if !ok || seen[name] {
			continue
		}
		seen[name] = true
		ref, _ := json.Marshal(candidateRef{Package: name})
		title := string(r.Title)
		if title == "" {
			title = name
		}
		out.Records = append(out.Records, providers.Record{
			Title:   title,
			URL:     string(r.Link),
			Snippet: string(r.Snippet),
			Data:    &CandidateRecord{Package: name, Source: "web_search"},
			Ref:     ref,
		})
	}
	next := func(p lenient.Obj[pagination]) bool { return p.V != nil && p.V.Next != "" }
	if used > 0 && (used < len(organic) || next(body.SerpapiPagination) || next(body.Pagination)) {
		out.HasMore = true
		out.Next, _ = json.Marshal(searchState{Page: st.Page + 1, Start: start + used})
		if num > googlePageSize && used < num {
			out.Notes = append(out.Notes, fmt.Sprintf("Google served %d results for this page, fewer than num (%d): it serves at most "+
				"about %d per request; the next page continues at result %d.", used, num, googlePageSize, start+used+1))
		}
	}
	return out, nil
}

// indexHost is the host of the configured package index: the site the search is restricted to.
func indexHost(call *providers.Call) (string, error) {
	idx := call.Upstream(indexID)
	if !idx.Available() {
		return "", providers.Errorf(providers.CodeCapabilityUnavailable,
			"pypkg.search needs the Python package index's base URL to restrict the search to its project pages").
			WithHint("An operator must set PROVIDER_PYPI_URL.")
	}
	u, err := url.Parse(idx.BaseURL)
	if err != nil || u.Host == "" {
		return "", providers.Errorf(providers.CodeCapabilityUnavailable,
			"the configured Python package index URL has no host to restrict the search to").WithHint("An operator must fix PROVIDER_PYPI_URL.")
	}
	return strings.ToLower(u.Host), nil
}

// candidateName reads the project of a search result link: https://<host>/project/<name>/,
// optionally with a /<version>/ segment. ok is false for any other link.
func candidateName(link, host string) (string, bool) {
	u, err := url.Parse(link)
	if err != nil || u.Scheme != "https" || !strings.EqualFold(u.Host, host) {
		return "", false
	}
	parts := strings.Split(strings.TrimSuffix(u.Path, "/"), "/")
	if len(parts) < 3 || len(parts) > 4 || parts[0] != "" || parts[1] != "project" || !projectName.MatchString(parts[2]) {
		return "", false
	}
	if len(parts) == 4 && !releaseName.MatchString(parts[3]) {
		return "", false
	}
	return normalizeName(parts[2]), true
}

// verifyCandidate is the details lookup: the index's latest release of the candidate.
func verifyCandidate(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref candidateRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil || !projectName.MatchString(ref.Package) {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this record carries no project name, so it cannot be verified")
	}
	rel, err := fetchRelease(ctx, call, ref.Package, "")
	if err != nil {
		var unknown *errProjectUnknown
		if errors.As(err, &unknown) {
			return nil, providers.Errorf(providers.CodeNotFound,
				"the Python package index has no project named %q: the search result is not a live project page (the project may have been removed or renamed)", ref.Package)
		}
		return nil, err
	}
	info := rel.Info.V
	body := &CandidateDetail{Name: firstNonEmpty(string(info.Name), ref.Package), Verified: true,
		Version: string(info.Version), Summary: string(info.Summary), RequiresPython: string(info.RequiresPython),
		ProjectURLs: projectURLs(info), License: string(info.License)}
	return &providers.Detail{Body: body, Links: releaseLinks(info)}, nil
}

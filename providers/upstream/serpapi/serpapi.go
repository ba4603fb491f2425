// Package serpapi is the SerpApi upstream shared by every capability that reads a search engine
// through it (web, news, patents, hotels, flights, places, shopping, jobs, trends, markets and
// the package-index discovery search): one provider id `serpapi`, its key, its error
// vocabulary, and one sandbox that serves recorded-shape fixtures for every engine.
//
// SerpApi (https://serpapi.com/search-api, /search-errors, /api-status-and-error-codes):
// GET {base}/search.json?engine=…&api_key=…. Failures come as HTTP 4xx/5xx with {"error": "…"};
// a search can also answer HTTP 200 with search_metadata.status "Error" and an error message,
// and an empty result set is a *successful* search whose top-level error says the engine
// returned no results ("Google hasn't returned any results for this query.").
// A 429 means the hourly throughput or the account's searches are used up.
package serpapi

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// ProviderID is the provider id (PROVIDER_SERPAPI_URL / PROVIDER_SERPAPI_KEY).
const ProviderID = "serpapi"

//go:embed sandbox
var sandboxFS embed.FS

var provider = &providers.Provider{
	ID:          ProviderID,
	Title:       "SerpApi",
	Cache:       providers.CacheRule{MaxAge: time.Hour, Rule: "SerpApi itself serves an identical search from its cache for 1 hour (free, not counted); the results are Google's, so kept no longer than SerpApi keeps them", Source: "SerpApi search API, no_cache parameter (\"Cache expires after 1h\"), as quoted in SerpApi's client libraries"},
	BaseURL:     "https://serpapi.com",
	KeyRequired: true,
	SignUp:      "https://serpapi.com/users/sign_up",
	Authorize: func(r *http.Request, key string) {
		q := r.URL.Query()
		q.Set("api_key", key)
		r.URL.RawQuery = q.Encode()
	},
	Sandbox: http.HandlerFunc(serveSandbox),
}

// Provider is the SerpApi provider (the same value for every family that uses it).
func Provider() *providers.Provider { return provider }

// Meta is the part of every SerpApi answer that says how the search went.
type Meta struct {
	SearchMetadata struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"search_metadata"`
	Error string `json:"error"`
}

// NoResults tells whether a successful search answered that the engine returned nothing.
func (m Meta) NoResults() bool {
	e := strings.ToLower(m.Error)
	return m.SearchMetadata.Status != "Error" && (strings.Contains(e, "hasn't returned any results") ||
		strings.Contains(e, "no results") || strings.Contains(e, "returned any results"))
}

// Search calls search.json for an engine and decodes the answer into out (which should embed
// Meta or be decoded separately). It maps SerpApi's failures to the error vocabulary, including an
// HTTP 200 answer whose error is not the no-results answer, and returns meta so the adapter can
// tell an empty result set (meta.NoResults()) from a page that simply holds nothing.
func Search(ctx context.Context, call *providers.Call, engine string, params url.Values, out any) (Meta, error) {
	u := call.Upstream(ProviderID)
	q := url.Values{}
	for k, vs := range params {
		q[k] = vs
	}
	q.Set("engine", engine)
	q.Set("output", "json")
	var meta Meta
	resp, err := u.Get(ctx, "/search.json", q, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return meta, mapError(err)
	}
	if err := u.Decode(resp, &meta); err != nil {
		return meta, err
	}
	// Any error that is not the no-results answer is a failure, whatever the status says: the
	// adapters read an empty answer as "no results" only when meta.NoResults() says so.
	if meta.Error != "" && !meta.NoResults() {
		return meta, &providers.Error{Code: providers.CodeProviderError, Message: "SerpApi could not complete the search: " + meta.Error}
	}
	if out != nil {
		if err := u.Decode(resp, out); err != nil {
			return meta, err
		}
	}
	return meta, nil
}

// mapError puts SerpApi's own message into the error and names the allowance case.
func mapError(err error) error {
	e, ok := providers.AsError(err)
	if !ok {
		return err
	}
	var body struct {
		Error string `json:"error"`
	}
	if len(e.Body) > 0 && json.Unmarshal(e.Body, &body) == nil && body.Error != "" {
		out := *e
		switch {
		case e.UpstreamStatus == http.StatusTooManyRequests && strings.Contains(strings.ToLower(body.Error), "run out of searches"):
			out.Code, out.Message = providers.CodeProviderAllowance, "SerpApi: "+body.Error
		case e.UpstreamStatus == http.StatusUnauthorized || e.UpstreamStatus == http.StatusForbidden:
			out.Message = "SerpApi refused this deployment's key: " + body.Error
			out.Hint = "an operator must set a valid PROVIDER_SERPAPI_KEY"
		default:
			out.Message = "SerpApi: " + body.Error
		}
		return &out
	}
	return err
}

// selectors name the fixture of a sandbox request: the first parameter present picks
// sandbox/<engine>/<file>.json when that file exists.
var selectors = []struct{ param, file string }{
	{"property_token", "property"},
	{"product_id", "product"},
	{"immersive_product_page_token", "product"},
	{"booking_token", "booking"},
	{"departure_token", "return"},
	{"place_id", "place"},
	{"data_cid", "place"},
	{"patent_id", "patent"},
	{"shoprs", "filtered"},
	{"return_date", "roundtrip"}, // google_flights: a round-trip search lists outbound flights
}

// paging parameters: a request carrying one asks for sandbox/<engine>/page2.json.
var paging = []string{"start", "next_page_token", "page_token", "page", "offset"}

// serveSandbox answers search.json from sandbox/<engine>/: a selector file, page2.json on a
// paging request, empty.json for a query containing "noresults", else default.json.
func serveSandbox(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	q := r.URL.Query()
	if r.URL.Path != "/search.json" && r.URL.Path != "/search" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"Not Found"}`))
		return
	}
	if q.Get("api_key") == "" {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}`))
		return
	}
	engine := q.Get("engine")
	dir := path.Join("sandbox", path.Base(engine))
	pick := func(name string) bool {
		b, err := fs.ReadFile(sandboxFS, path.Join(dir, name+".json"))
		if err != nil {
			return false
		}
		_, _ = w.Write(b)
		return true
	}
	if strings.Contains(strings.ToLower(q.Get("q")), "noresults") && pick("empty") {
		return
	}
	// A search restricted to one site (pypkg.search's "site:…/project/") has its own fixtures,
	// a first page and a last one.
	if strings.Contains(q.Get("q"), "site:") {
		for _, p := range paging {
			if v := q.Get(p); v != "" && v != "0" && v != "1" && pick("site-page2") {
				return
			}
		}
		if pick("site") {
			return
		}
	}
	for _, s := range selectors {
		if q.Get(s.param) != "" && pick(s.file) {
			return
		}
	}
	// An engine that answers several kinds of data (google_trends' data_type) has a fixture per
	// kind, named after the value in lower case (geo_map_0.json, related_queries.json).
	if dt := q.Get("data_type"); dt != "" && pick(strings.ToLower(path.Base(dt))) {
		return
	}
	for _, p := range paging {
		if v := q.Get(p); v != "" && v != "0" && v != "1" && pick("page2") {
			return
		}
	}
	if pick("default") {
		return
	}
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write([]byte(`{"error":"Unsupported ` + strings.ReplaceAll(engine, `"`, "") + ` search engine."}`))
}

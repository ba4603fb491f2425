package serpapi

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const testKey = "serp-test-key"

// fakeSerpApi answers every request with status, headers and body, and hands each request to check.
func fakeSerpApi(t *testing.T, status int, header map[string]string, body string, check func(r *http.Request)) *providers.Client {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if check != nil {
			check(r)
		}
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	})
	return providertest.Client(t, []*providers.Provider{Provider()}, map[string]http.Handler{ProviderID: h},
		map[string]string{ProviderID: testKey})
}

func call(client *providers.Client, mode providers.Mode) *providers.Call {
	return providers.NewCall(&providers.Capability{ID: "test.search"}, providers.Request{}, nil, mode, "tnt_test", client)
}

func search(t *testing.T, client *providers.Client, mode providers.Mode, engine string, params url.Values, out any) (Meta, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return Search(ctx, call(client, mode), engine, params, out)
}

func TestProvider(t *testing.T) {
	p := Provider()
	if p != Provider() || p.ID != "serpapi" || p.BaseURL != "https://serpapi.com" || !p.KeyRequired || p.Sandbox == nil || p.Authorize == nil {
		t.Errorf("provider = %+v", p)
	}
	r := httptest.NewRequest(http.MethodGet, "https://serpapi.com/search.json?engine=google&q=a+b", nil)
	p.Authorize(r, "k&y")
	if got := r.URL.Query(); got.Get("api_key") != "k&y" || got.Get("q") != "a b" || got.Get("engine") != "google" {
		t.Errorf("authorized query = %v", got)
	}
}

func TestSearchRequestAndAnswer(t *testing.T) {
	var seen *http.Request
	client := fakeSerpApi(t, http.StatusOK, nil,
		`{"search_metadata":{"id":"64afe2d915afff17e18d922f","status":"Success"},"search_parameters":{"engine":"google_patents","q":"(Coffee)"},"organic_results":[{"position":1,"title":"Foaming soluble coffee powder"}]}`,
		func(r *http.Request) { seen = r.Clone(r.Context()) })
	var out struct {
		OrganicResults []struct {
			Title string `json:"title"`
		} `json:"organic_results"`
	}
	meta, err := search(t, client, providers.ModeLive, "google_patents", url.Values{"q": {"(Coffee)"}, "num": {"10"}, "engine": {"ignored"}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if meta.SearchMetadata.ID != "64afe2d915afff17e18d922f" || meta.SearchMetadata.Status != "Success" || meta.Error != "" || meta.NoResults() {
		t.Errorf("meta = %+v", meta)
	}
	if len(out.OrganicResults) != 1 || out.OrganicResults[0].Title != "Foaming soluble coffee powder" {
		t.Errorf("out = %+v", out)
	}
	want := url.Values{"engine": {"google_patents"}, "q": {"(Coffee)"}, "num": {"10"}, "output": {"json"}, "api_key": {testKey}}
	if seen.Method != http.MethodGet || seen.URL.Path != "/search.json" || !reflect.DeepEqual(seen.URL.Query(), want) {
		t.Errorf("request %s %s %v, want GET /search.json %v", seen.Method, seen.URL.Path, seen.URL.Query(), want)
	}
	if seen.Header.Get("Accept") != "application/json" || seen.Header.Get("User-Agent") != "capgate/test (+tests@example.com)" {
		t.Errorf("headers = %v", seen.Header)
	}

	t.Run("nil out only reads the metadata", func(t *testing.T) {
		if _, err := search(t, client, providers.ModeLive, "google_patents", nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("no key configured", func(t *testing.T) {
		c := providertest.Client(t, []*providers.Provider{Provider()}, nil, nil)
		_, err := search(t, c, providers.ModeLive, "google_patents", nil, nil)
		if providertest.ErrorCode(err) != providers.CodeCapabilityUnavailable || !strings.Contains(err.Error(), "PROVIDER_SERPAPI_KEY") {
			t.Errorf("error = %v", err)
		}
	})
}

func TestSearchErrors(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		header  map[string]string
		body    string
		code    providers.Code
		retry   bool
		message string
		hint    bool
	}{
		{"invalid key", 401, nil, `{"error":"Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}`,
			providers.CodeProviderError, false, "SerpApi refused this deployment's key: Invalid API key.", true},
		{"account without permission", 403, nil, `{"error":"The account associated with this API key doesn't have permission to perform the request."}`,
			providers.CodeProviderError, false, "SerpApi refused this deployment's key: The account", true},
		{"run out of searches", 429, nil, `{"error":"Your account has run out of searches."}`,
			providers.CodeProviderAllowance, false, "SerpApi: Your account has run out of searches.", false},
		{"run out of searches with a Retry-After", 429, map[string]string{"Retry-After": "30"}, `{"error":"Your account has run out of searches."}`,
			providers.CodeProviderAllowance, false, "run out of searches", false},
		{"hourly throughput, short Retry-After", 429, map[string]string{"Retry-After": "20"}, `{"error":"The number of requests sent using this API key exceeds the hourly throughput limit."}`,
			providers.CodeRateLimited, true, "SerpApi: The number of requests", false},
		{"hourly throughput, no Retry-After", 429, nil, `{"error":"The number of requests sent using this API key exceeds the hourly throughput limit."}`,
			providers.CodeProviderAllowance, false, "SerpApi: The number of requests", false},
		{"missing parameter", 400, nil, `{"error":"Missing query ` + "`q`" + ` parameter."}`,
			providers.CodeProviderError, false, "SerpApi: Missing query", false},
		{"server error", 500, nil, `{"error":"Something went wrong."}`, providers.CodeProviderError, true, "SerpApi: Something went wrong.", false},
		{"search status Error (503)", 503, nil, `{"search_metadata":{"id":"64c32cfeb68f8bc186aaa013","status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`,
			providers.CodeProviderError, true, "SerpApi: We couldn't get valid results", false},
		{"search status Error in a 200", 200, nil, `{"search_metadata":{"id":"64c32cfeb68f8bc186aaa013","status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`,
			providers.CodeProviderError, true, "SerpApi could not complete the search: We couldn't get valid results", false},
		{"error in a Success answer that is not the no-results one", 200, nil, `{"search_metadata":{"id":"64c32cfeb68f8bc186aaa014","status":"Success"},"error":"Invalid page_token."}`,
			providers.CodeProviderError, true, "SerpApi could not complete the search: Invalid page_token.", false},
		{"error body without JSON", 502, nil, `<html>Bad Gateway</html>`, providers.CodeProviderError, true, "serpapi failed (HTTP 502)", false},
		{"error body with another shape", 404, nil, `{"message":"gone"}`, providers.CodeProviderError, false, "serpapi refused the request (HTTP 404)", false},
		{"malformed JSON", 200, nil, `{"search_metadata":`, providers.CodeProviderError, true, "serpapi answered malformed JSON", false},
		{"error of another type", 200, nil, `{"search_metadata":{"status":"Success"},"error":{"code":1}}`, providers.CodeProviderError, true, "malformed JSON", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client := fakeSerpApi(t, tc.status, tc.header, tc.body, nil)
			_, err := search(t, client, providers.ModeLive, "google_patents", url.Values{"q": {"coffee"}}, nil)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code {
				t.Fatalf("error = %v, want %s", err, tc.code)
			}
			if e.IsRetryable() != tc.retry || !strings.HasPrefix(e.Message, tc.message) && !strings.Contains(e.Message, tc.message) {
				t.Errorf("retryable %v message %q; want %v and %q", e.IsRetryable(), e.Message, tc.retry, tc.message)
			}
			if (e.Hint != "") != tc.hint {
				t.Errorf("hint = %q", e.Hint)
			}
			if strings.Contains(e.Message, testKey) || strings.Contains(e.Hint, testKey) {
				t.Errorf("error leaks the key: %q %q", e.Message, e.Hint)
			}
		})
	}
}

func TestNoResults(t *testing.T) {
	t.Run("empty search is a success", func(t *testing.T) {
		client := fakeSerpApi(t, http.StatusOK, nil, `{"search_metadata":{"id":"6540ac26b68f8b2910019dd5","status":"Success"},
			"search_information":{"organic_results_state":"Fully empty"},"error":"Google hasn't returned any results for this query."}`, nil)
		var out map[string]json.RawMessage
		meta, err := search(t, client, providers.ModeLive, "google_patents", url.Values{"q": {"xyzzy"}}, &out)
		if err != nil {
			t.Fatal(err)
		}
		if !meta.NoResults() || out["organic_results"] != nil || out["search_information"] == nil {
			t.Errorf("meta %+v out %v", meta, out)
		}
	})

	cases := []struct {
		status, err string
		want        bool
	}{
		{"Success", "Google hasn't returned any results for this query.", true},
		{"Success", "Google Patents hasn't returned any results for this query.", true},
		{"Success", "No results found.", true},
		{"", "Google hasn't returned any results for this query.", true},
		{"Error", "Google hasn't returned any results for this query.", false},
		{"Error", "We couldn't get valid results for this search. Please try again later.", false},
		{"Success", "", false},
		{"Success", "Invalid patent_id.", false},
	}
	for _, tc := range cases {
		var m Meta
		m.SearchMetadata.Status, m.Error = tc.status, tc.err
		if got := m.NoResults(); got != tc.want {
			t.Errorf("NoResults(status %q, error %q) = %v, want %v", tc.status, tc.err, got, tc.want)
		}
	}
}

// sandboxGet calls the sandbox handler directly with a query.
func sandboxGet(t *testing.T, p string, q url.Values) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "http://serpapi.sandbox.invalid"+p+"?"+q.Encode(), nil)
	w := httptest.NewRecorder()
	serveSandbox(w, r)
	return w
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(sandboxFS, path.Join("sandbox", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSandboxSelection(t *testing.T) {
	key := url.Values{"api_key": {"sandbox"}}
	with := func(kv ...string) url.Values {
		q := url.Values{"api_key": {"sandbox"}}
		for i := 0; i+1 < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return q
	}
	cases := []struct {
		name   string
		path   string
		q      url.Values
		status int
		file   string // expected fixture, or "" to check the body contains errText
		errTxt string
	}{
		{"first page", "/search.json", with("engine", "google_patents", "q", "coffee"), 200, "google_patents/default.json", ""},
		{"page 1 is the first page", "/search.json", with("engine", "google_patents", "q", "coffee", "page", "1"), 200, "google_patents/default.json", ""},
		{"page 0 is the first page", "/search.json", with("engine", "google_patents", "q", "coffee", "page", "0"), 200, "google_patents/default.json", ""},
		{"later page", "/search.json", with("engine", "google_patents", "q", "coffee", "page", "2"), 200, "google_patents/page2.json", ""},
		{"any later page", "/search.json", with("engine", "google_patents", "q", "coffee", "page", "7", "num", "12"), 200, "google_patents/page2.json", ""},
		{"no results", "/search.json", with("engine", "google_patents", "q", "NoResults please", "page", "2"), 200, "google_patents/empty.json", ""},
		{"/search path", "/search", with("engine", "google_patents", "q", "coffee"), 200, "google_patents/default.json", ""},
		{"details by patent_id", "/search.json", with("engine", "google_patents_details", "patent_id", "patent/US8110241B2/en"), 200, "google_patents_details/patent.json", ""},
		{"details without patent_id", "/search.json", with("engine", "google_patents_details"), 400, "", "Unsupported google_patents_details search engine."},
		{"unknown engine", "/search.json", with("engine", "no_such_engine", "q", "x"), 400, "", "Unsupported no_such_engine search engine."},
		{"engine path is confined to the sandbox", "/search.json", with("engine", "../google_patents", "q", "x"), 200, "google_patents/default.json", ""},
		{"engine cannot reach other files", "/search.json", with("engine", "../../serpapi.go", "q", "x"), 400, "", "Unsupported"},
		{"no key", "/search.json", url.Values{"engine": {"google_patents"}, "q": {"x"}}, 401, "", "Invalid API key"},
		{"unknown path", "/account.json", key, 404, "", "Not Found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := sandboxGet(t, tc.path, tc.q)
			if w.Code != tc.status || w.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("status %d type %q, want %d JSON", w.Code, w.Header().Get("Content-Type"), tc.status)
			}
			if tc.file != "" {
				if w.Body.String() != fixture(t, tc.file) {
					t.Errorf("body is not %s", tc.file)
				}
				return
			}
			var body struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || !strings.Contains(body.Error, tc.errTxt) {
				t.Errorf("body %s, want an error containing %q", w.Body.String(), tc.errTxt)
			}
		})
	}

	t.Run("through the client in test mode", func(t *testing.T) {
		client := providertest.Client(t, []*providers.Provider{Provider()}, nil, nil)
		var out struct {
			Info struct {
				PageNumber int `json:"page_number"`
			} `json:"search_information"`
		}
		meta, err := search(t, client, providers.ModeTest, "google_patents", url.Values{"q": {"coffee"}, "page": {"2"}}, &out)
		if err != nil || meta.SearchMetadata.Status != "Success" || out.Info.PageNumber != 1 {
			t.Errorf("meta %+v out %+v err %v", meta, out, err)
		}
		meta, err = search(t, client, providers.ModeTest, "google_patents", url.Values{"q": {"noresults"}}, nil)
		if err != nil || !meta.NoResults() {
			t.Errorf("meta %+v err %v", meta, err)
		}
		_, err = search(t, client, providers.ModeTest, "no_such_engine", nil, nil)
		if e, ok := providers.AsError(err); !ok || e.Code != providers.CodeProviderError || e.UpstreamStatus != 400 {
			t.Errorf("error = %v", err)
		}
	})
}

// TestSandboxFixtures checks that every fixture is one JSON object whose search_metadata.status,
// when present, is one SerpApi documents.
func TestSandboxFixtures(t *testing.T) {
	n := 0
	err := fs.WalkDir(sandboxFS, "sandbox", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		n++
		b, err := fs.ReadFile(sandboxFS, p)
		if err != nil {
			return err
		}
		var m Meta
		var obj map[string]json.RawMessage
		if json.Unmarshal(b, &obj) != nil || obj == nil || json.Unmarshal(b, &m) != nil {
			t.Errorf("%s is not a JSON object in SerpApi's shape", p)
			return nil
		}
		switch m.SearchMetadata.Status {
		case "", "Success", "Error", "Processing", "Queued":
		default:
			t.Errorf("%s: search_metadata.status %q", p, m.SearchMetadata.Status)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("no sandbox fixtures")
	}
}

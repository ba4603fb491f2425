package pypi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// serveSearch answers SerpApi's search.json with a fixture whose index host is the fake's.
func serveSearch(t *testing.T, u *upstreams, fixture string) {
	t.Helper()
	host := strings.TrimPrefix(u.indexURL(), "http://")
	body := strings.ReplaceAll(string(providertest.Fixture(t, fixture)), "index.example", host)
	body = strings.ReplaceAll(body, "INDEX.EXAMPLE", strings.ToUpper(host))
	u.serp.handle("/search.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	})
}

// checkSearchRequest asserts the one SerpApi request: engine, key, query and start.
func checkSearchRequest(t *testing.T, r *http.Request, q, start string) {
	t.Helper()
	want := url.Values{"engine": {"google"}, "output": {"json"}, "api_key": {serpKey}, "q": {q}}
	if start != "" {
		want.Set("start", start)
	}
	if r.URL.Path != "/search.json" || !reflect.DeepEqual(r.URL.Query(), want) || r.Header.Get("Accept") != "application/json" {
		t.Errorf("request %s %v\nwant %v", r.URL.Path, r.URL.Query(), want)
	}
}

func TestSearchGolden(t *testing.T) {
	u := newUpstreams(t)
	serveSearch(t, u, "serpapi_site.json")
	page, err := execute(t, u.client, Search, providers.ModeLive, `{"query":"  yaml parser "}`)
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(u.indexURL(), "http://")
	golden(t, "search_yaml", page, host, "index.example")
	reqs := u.serp.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d SerpApi requests", len(reqs))
	}
	checkSearchRequest(t, reqs[0], "yaml parser site:"+host+"/project/", "")
	if len(u.index.Requests()) != 0 {
		t.Error("the search itself must not call the index")
	}
	var got []string
	for _, r := range page.Records {
		got = append(got, providertest.Native(&r)["package"].(string))
		if providertest.Native(&r)["source"] != "web_search" || providertest.Native(&r)["verified"] != false || r.Title == "" {
			t.Errorf("record %+v", r)
		}
	}
	// num 10 of 11 results: the 11th (yq) is left for the next page; duplicates and non-project links dropped.
	if want := []string{"pyyaml", "ruamel-yaml", "yamale"}; !reflect.DeepEqual(got, want) {
		t.Errorf("packages %v, want %v", got, want)
	}
	if !page.HasMore || string(page.Next) != `{"page":2,"start":10}` {
		t.Errorf("has_more %v next %s", page.HasMore, page.Next)
	}
}

func TestSearchPaging(t *testing.T) {
	u := newUpstreams(t)
	serveSearch(t, u, "serpapi_site.json")
	host := strings.TrimPrefix(u.indexURL(), "http://")
	req := prepare(t, Search, `{"query":"yaml parser","num":5}`)
	page, err := providertest.ExecuteState(t, u.client, Search, providers.ModeLive, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !page.HasMore || string(page.Next) != `{"page":2,"start":5}` || len(page.Records) != 2 {
		t.Fatalf("page 1: has_more %v next %s records %d", page.HasMore, page.Next, len(page.Records))
	}
	// Page 2 (a later answer with only non-project links): empty, and more is still possible.
	serveSearch(t, u, "serpapi_site_noprojects.json")
	page2, err := providertest.ExecuteState(t, u.client, Search, providers.ModeLive, req, page.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(page2.Records) != 0 || !page2.HasMore || string(page2.Next) != `{"page":3,"start":7}` {
		t.Errorf("page 2: records %d has_more %v next %s", len(page2.Records), page2.HasMore, page2.Next)
	}
	page3, err := providertest.ExecuteState(t, u.client, Search, providers.ModeLive, req, page2.Next)
	if err != nil {
		t.Fatal(err)
	}
	_ = page3
	reqs := u.serp.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	q := "yaml parser site:" + host + "/project/"
	checkSearchRequest(t, reqs[0], q, "")
	checkSearchRequest(t, reqs[1], q, "5")
	checkSearchRequest(t, reqs[2], q, "7")

	t.Run("bad state", func(t *testing.T) {
		for _, st := range []string{`{"page":1}`, `{"page":0}`, `nope`, `{"page":"2"}`} {
			_, err := providertest.ExecuteState(t, u.client, Search, providers.ModeLive, req, json.RawMessage(st))
			if providertest.ErrorCode(err) != providers.CodeInternal {
				t.Errorf("state %s: error = %v", st, err)
			}
		}
	})
}

func TestSearchPageSize(t *testing.T) {
	cases := []struct {
		name    string
		num     int
		organic int
		next    bool
		more    bool
		note    bool
	}{
		{"fewer results than num, more pages", 10, 10, true, true, false},
		{"num above Google's page", 20, 10, true, true, true},
		{"results beyond num", 3, 10, false, true, false},
		{"last page", 10, 4, false, false, false},
		{"no results at all", 10, 0, true, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstreams(t)
			host := strings.TrimPrefix(u.indexURL(), "http://")
			var organic []map[string]any
			for i := 0; i < tc.organic; i++ {
				organic = append(organic, map[string]any{"position": i + 1, "title": "p · PyPI",
					"link": "https://" + host + "/project/p" + string(rune('a'+i)) + "/", "snippet": "s"})
			}
			ans := map[string]any{"search_metadata": map[string]any{"id": "1", "status": "Success"}, "organic_results": organic}
			if tc.next {
				ans["serpapi_pagination"] = map[string]any{"current": 1, "next": "https://serpapi.com/search.json?start=10"}
			}
			b, _ := json.Marshal(ans)
			u.serp.serve("/search.json", 200, string(b))
			page, err := execute(t, u.client, Search, providers.ModeLive, fmt.Sprintf(`{"query":"x","num":%d}`, tc.num))
			if err != nil {
				t.Fatal(err)
			}
			if page.HasMore != tc.more || (len(page.Notes) > 0) != tc.note || len(page.Records) != min(tc.num, tc.organic) {
				t.Errorf("has_more %v notes %q records %d", page.HasMore, page.Notes, len(page.Records))
			}
		})
	}
}

func TestSearchAnswers(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		code   providers.Code
	}{
		{"no results", 200, `{"search_metadata":{"id":"1","status":"Success"},"search_information":{"organic_results_state":"Fully empty"},"error":"Google hasn't returned any results for this query."}`, ""},
		{"search failed", 200, `{"search_metadata":{"id":"1","status":"Error"},"error":"Couldn't get valid results."}`, providers.CodeProviderError},
		{"invalid key", 401, `{"error":"Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}`, providers.CodeProviderError},
		{"searches used up", 429, `{"error":"Your account has run out of searches."}`, providers.CodeProviderAllowance},
		{"malformed", 200, `{"organic_results":[`, providers.CodeProviderError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstreams(t)
			u.serp.serve("/search.json", tc.status, tc.body)
			page, err := execute(t, u.client, Search, providers.ModeLive, `{"query":"zzqx"}`)
			if providertest.ErrorCode(err) != tc.code {
				t.Fatalf("error = %v, want %q", err, tc.code)
			}
			if tc.code == "" && (len(page.Records) != 0 || page.HasMore) {
				t.Errorf("page %+v", page)
			}
		})
	}
}

func TestSearchNeedsTheIndexURL(t *testing.T) {
	serp := newFake(t)
	client := providertest.Client(t, Providers(), map[string]http.Handler{serpapi.ProviderID: serp},
		map[string]string{serpapi.ProviderID: serpKey})
	_, err := execute(t, client, Search, providers.ModeLive, `{"query":"http client"}`)
	if e, ok := providers.AsError(err); !ok || e.Code != providers.CodeCapabilityUnavailable || !strings.Contains(e.Hint, "PROVIDER_PYPI_URL") {
		t.Errorf("error = %v, want capability_unavailable naming PROVIDER_PYPI_URL", err)
	}
	if len(serp.Requests()) != 0 {
		t.Error("searched without knowing the index host")
	}
}

func TestSearchSandboxHost(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	page, err := execute(t, client, Search, providers.ModeTest, `{"query":"http client"}`)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "sandbox_search", page)
	var got []string
	for _, r := range page.Records {
		got = append(got, providertest.Native(&r)["package"].(string))
	}
	if want := []string{"requests", "httpx", "urllib3", "requests-toolbelt", "aiohttp", "httpie"}; !reflect.DeepEqual(got, want) {
		t.Errorf("sandbox candidates %v, want %v", got, want)
	}
}

func TestCandidateName(t *testing.T) {
	host := "index.example"
	cases := map[string]string{
		"https://index.example/project/requests/":            "requests",
		"https://index.example/project/requests":             "requests",
		"https://index.example/project/Flask_SQLAlchemy/":    "flask-sqlalchemy",
		"https://index.example/project/requests/2.31.0/":     "requests",
		"https://INDEX.EXAMPLE/project/ruamel.yaml/#history": "ruamel-yaml",
		"https://index.example/project/x/1.0/?a=b":           "x",
		"http://index.example/project/requests/":             "",
		"https://other.example/project/requests/":            "",
		"https://index.example/project/":                     "",
		"https://index.example/project/requests/2.0/files/":  "",
		"https://index.example/search/?q=requests":           "",
		"https://index.example/user/someone/":                "",
		"https://index.example/simple/requests/":             "",
		"https://index.example/project/-bad-/":               "",
		"https://index.example/project/x/ 1.0/":              "",
		"https://index.example//project/requests/":           "",
		"":            "",
		"::not a url": "",
	}
	for link, want := range cases {
		got, ok := candidateName(link, host)
		if got != want || ok != (want != "") {
			t.Errorf("candidateName(%q) = %q, %v; want %q", link, got, ok, want)
		}
	}
}

func TestSearchDetails(t *testing.T) {
	req := prepare(t, Search, `{"query":"x"}`)
	rec := func(ref string) *providers.Record {
		return &providers.Record{Title: "x", Ref: json.RawMessage(ref)}
	}
	t.Run("verified", func(t *testing.T) {
		u := newUpstreams(t)
		u.index.serve("/pypi/sampleproject/json", http.StatusOK, "project_sampleproject.json")
		d, err := providertest.Action(t, u.client, Search, providers.ModeLive, req, "details", rec(`{"package":"sampleproject"}`))
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "search_details", d)
		if b := d.Body.(*CandidateDetail); !b.Verified || b.Version != "4.0.0" {
			t.Errorf("detail %v", b)
		}
		if d.Credits != nil {
			t.Errorf("credits %d", *d.Credits)
		}
	})
	t.Run("unknown candidate", func(t *testing.T) {
		u := newUpstreams(t)
		_, err := providertest.Action(t, u.client, Search, providers.ModeLive, req, "details", rec(`{"package":"not-a-project"}`))
		if e, ok := providers.AsError(err); !ok || e.Code != providers.CodeNotFound || !strings.Contains(e.Message, "not-a-project") {
			t.Errorf("error = %v, want not_found", err)
		}
	})
	t.Run("index failing", func(t *testing.T) {
		u := newUpstreams(t)
		u.index.handle("/pypi/x/json", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) })
		_, err := providertest.Action(t, u.client, Search, providers.ModeLive, req, "details", rec(`{"package":"x"}`))
		if e, ok := providers.AsError(err); !ok || e.Code != providers.CodeProviderError || !e.IsRetryable() {
			t.Errorf("error = %v, want a retryable provider_error", err)
		}
	})
	for _, ref := range []string{``, `{}`, `{"package":"a b"}`, `[1]`} {
		t.Run("unusable ref "+ref, func(t *testing.T) {
			u := newUpstreams(t)
			_, err := providertest.Action(t, u.client, Search, providers.ModeLive, req, "details", rec(ref))
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest || len(u.index.Requests()) != 0 {
				t.Errorf("error = %v", err)
			}
		})
	}
}

func TestSearchSchema(t *testing.T) {
	cases := []struct {
		body  string
		paths []string
	}{
		{`{"query":"http client"}`, nil},
		{`{"query":"x","num":1}`, nil},
		{`{"query":"x","num":20}`, nil},
		{`{"query":"` + strings.Repeat("q", 300) + `"}`, nil},
		{`{"query":"` + strings.Repeat("q", 301) + `"}`, []string{"/query"}},
		{`{"query":""}`, []string{"/query"}},
		{`{"query":"   "}`, []string{"/query"}},
		{`{"query":"x","num":0}`, []string{"/num"}},
		{`{"query":"x","num":21}`, []string{"/num"}},
		{`{"query":"x","site":"y"}`, []string{"/site"}},
		{`{}`, []string{"/query"}},
	}
	for _, tc := range cases {
		t.Run(tc.body[:min(len(tc.body), 40)], func(t *testing.T) {
			req, err := providertest.Prepare(t, Search, tc.body)
			if got := violationPaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violations %v, want %v (%v)", got, tc.paths, err)
			}
			if err == nil {
				if n, _ := req.Int("num"); n < 1 {
					t.Error("num default not applied")
				}
			}
		})
	}
}

package social

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const testXKey = "test-x-bearer-token"

// upstream is the shared recording stand-in for X or Reddit.
type upstream = providertest.Upstream

const jsonType = "application/json; charset=utf-8"

// sandboxFake serves the provider's own sandbox fixtures from a live fake.
func sandboxFake(id string) *upstream { return providertest.SandboxUpstream(Providers(), id) }

// testRedditKey is PROVIDER_REDDIT_KEY of the tests: <client id>:<client secret>:<reddit username>.
const (
	testRedditKey   = "p-jcoLKBynTLew:gko_LXELoV07ZBNUXrvWZfzE3aI:capgate_tests"
	testRedditToken = "eyJhbGciOiJSUzI1NiIsImtpZCI6IlNIQTI1NjpzS3dsMnlsV0VtMjVmcXhwTU40cWY4MXE2OWFFdWFyMnpLMUdhVGxjdWNZIiwidHlwIjoiSldUIn0.test"
	testRedditUA    = "server:capgate:test (by /u/capgate_tests)"
)

// oauthFront answers Reddit's token endpoint (in the documented shape, recording each token
// request) and passes every other request to the API fake behind it.
type oauthFront struct {
	api    http.Handler
	tokens *upstream
}

func (o oauthFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == redditTokenPath {
		o.tokens.ServeHTTP(w, r)
		return
	}
	o.api.ServeHTTP(w, r)
}

func tokenEndpoint() *upstream {
	return providertest.ServeBody(200, `{"access_token": "`+testRedditToken+`", "token_type": "bearer", "expires_in": 86400, "scope": "*"}`, "application/json; charset=UTF-8")
}

// testProviders are Providers() with Reddit's 100-requests-a-minute spacing lifted, so the tests
// do not wait on it (TestCapabilityDeclaration checks the real declaration).
func testProviders() []*providers.Provider {
	provs := Providers()
	for _, p := range provs {
		if p.ID == redditID {
			p.RequestsPerSecond = 0
		}
	}
	return provs
}

// client builds a live client whose X and Reddit are the given fakes (both with their keys;
// Reddit's token endpoint answered in front of its fake).
func client(tb testing.TB, x, reddit http.Handler) *providers.Client {
	tb.Helper()
	return providertest.Client(tb, testProviders(), map[string]http.Handler{xID: x, redditID: oauthFront{api: reddit, tokens: tokenEndpoint()}},
		map[string]string{xID: testXKey, redditID: testRedditKey})
}

func prepare(tb testing.TB, body string) providers.Request {
	tb.Helper()
	req, err := providertest.Prepare(tb, Search, body)
	if err != nil {
		tb.Fatalf("body %s: %v", body, err)
	}
	return req
}

func run(tb testing.TB, c *providers.Client, body string, state json.RawMessage) (*providers.Page, error) {
	tb.Helper()
	return providertest.ExecuteState(tb, c, Search, providers.ModeLive, prepare(tb, body), state)
}

func mustRun(tb testing.TB, c *providers.Client, body string, state json.RawMessage) *providers.Page {
	tb.Helper()
	page, err := run(tb, c, body, state)
	if err != nil {
		tb.Fatalf("body %s: %v", body, err)
	}
	return page
}

func TestCapabilityDeclaration(t *testing.T) {
	c := Search
	if c.ID != "social.search" || c.Topic != "Media and social" || c.Paging != providers.PagingToken {
		t.Errorf("id/topic/paging = %q/%q/%q", c.ID, c.Topic, c.Paging)
	}
	if c.Deadline != 15*time.Second || c.Cost.Typical != 2 || c.Cost.Basis == "" || strings.Contains(c.Cost.Basis, "\n") {
		t.Errorf("deadline/cost = %v/%d/%q", c.Deadline, c.Cost.Typical, c.Cost.Basis)
	}
	if len(c.Providers) != 0 {
		t.Errorf("providers = %v", c.Providers)
	}
	a, ok := c.Action("details")
	if !ok || a.Kind != providers.ActionLookup || a.Credits != 5 || a.Run == nil {
		t.Errorf("details action = %+v", a)
	}
	if got := c.SearchActions(); !reflect.DeepEqual(got, []string{"more", "update"}) {
		t.Errorf("search actions = %v", got)
	}
	if len(c.Examples) < 2 || c.Title == "" || c.Summary == "" || c.Description == "" {
		t.Errorf("examples %d, title %q, summary %q", len(c.Examples), c.Title, c.Summary)
	}
	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Error("the body schema must be draft 2020-12 with additionalProperties false")
	}
	for name, p := range doc["properties"].(map[string]any) {
		if d, _ := p.(map[string]any)["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	if got := Capabilities(); len(got) != 1 || got[0] != Search {
		t.Errorf("Capabilities() = %v", got)
	}
	byID := map[string]*providers.Provider{}
	for _, p := range Providers() {
		byID[p.ID] = p
		if p.Sandbox == nil {
			t.Errorf("provider %s has no sandbox", p.ID)
		}
	}
	x, rd := byID[xID], byID[redditID]
	if x == nil || !x.KeyRequired || x.BaseURL != "https://api.x.com" || x.Authorize == nil {
		t.Fatalf("x provider = %+v", x)
	}
	r, _ := http.NewRequest(http.MethodGet, "https://api.x.com/2/users/by", nil)
	x.Authorize(r, "abc")
	if got := r.Header.Get("Authorization"); got != "Bearer abc" {
		t.Errorf("X Authorization = %q", got)
	}
	if rd == nil || !rd.KeyRequired || rd.BaseURL != "https://oauth.reddit.com" || rd.Authorize == nil || rd.RequestsPerSecond != 100.0/60 {
		t.Errorf("reddit provider = %+v (keyed, OAuth host, 100 requests a minute)", rd)
	}
	if !strings.Contains(c.Description, "PROVIDER_REDDIT_KEY") || !strings.Contains(c.Description, "only with OAuth") {
		t.Error("the catalog description must say why platform_b is unavailable without Reddit credentials")
	}
}

func TestRequestSchemaAndRules(t *testing.T) {
	long := strings.Repeat("é", 300)
	// 101 distinct short handles fit in 300 characters: 37 of one character, 64 of two.
	var handles []string
	chars := "abcdefghijklmnopqrstuvwxyz0123456789_"
	for _, c := range chars {
		handles = append(handles, string(c))
	}
	for i := 0; len(handles) < 101; i++ {
		handles = append(handles, string(chars[i/len(chars)])+string(chars[i%len(chars)]))
	}
	cases := []struct {
		name  string
		body  string
		paths []string
	}{
		{"minimal platform_a", `{"platform":"platform_a","query":"artemis"}`, nil},
		{"minimal platform_b", `{"platform":"platform_b","query":"rust"}`, nil},
		{"all fields", `{"platform":"platform_b","query":"rust","kind":"profiles","num":25}`, nil},
		{"300 characters", `{"platform":"platform_b","query":"` + long + `"}`, nil},
		{"num 1", `{"platform":"platform_a","query":"x","num":1}`, nil},
		{"handles with @ and commas", `{"platform":"platform_a","kind":"profiles","query":"@NASA, SpaceX esa"}`, nil},
		{"100 handles", `{"platform":"platform_a","kind":"profiles","query":"` + strings.Join(handles[:100], " ") + `"}`, nil},
		{"keyword profiles on platform_b", `{"platform":"platform_b","kind":"profiles","query":"rust-lang fans!"}`, nil},
		{"missing platform", `{"query":"x"}`, []string{"/platform"}},
		{"unknown platform", `{"platform":"platform_c","query":"x"}`, []string{"/platform"}},
		{"missing query", `{"platform":"platform_a"}`, []string{"/query"}},
		{"empty query", `{"platform":"platform_a","query":""}`, []string{"/query"}},
		{"blank query", `{"platform":"platform_a","query":" \t "}`, []string{"/query"}},
		{"301 characters", `{"platform":"platform_a","query":"` + long + `x"}`, []string{"/query"}},
		{"query not a string", `{"platform":"platform_a","query":42}`, []string{"/query"}},
		{"unknown kind", `{"platform":"platform_a","query":"x","kind":"communities"}`, []string{"/kind"}},
		{"num zero", `{"platform":"platform_a","query":"x","num":0}`, []string{"/num"}},
		{"num 26", `{"platform":"platform_a","query":"x","num":26}`, []string{"/num"}},
		{"num fractional", `{"platform":"platform_a","query":"x","num":2.5}`, []string{"/num"}},
		{"num as string", `{"platform":"platform_a","query":"x","num":"5"}`, []string{"/num"}},
		{"unknown key", `{"platform":"platform_a","query":"x","sort":"top"}`, []string{"/sort"}},
		{"two problems", `{"platform":"x","num":100}`, []string{"/num", "/platform", "/query"}},
		// Rule beyond the schema: platform_a profiles are looked up by handle.
		{"profile handle with a hyphen", `{"platform":"platform_a","kind":"profiles","query":"rust-lang"}`, []string{"/query"}},
		{"profile handle too long", `{"platform":"platform_a","kind":"profiles","query":"abcdefghijklmnop"}`, []string{"/query"}},
		{"profile query only @", `{"platform":"platform_a","kind":"profiles","query":"@ ,"}`, []string{"/query"}},
		{"101 handles", `{"platform":"platform_a","kind":"profiles","query":"` + strings.Join(handles, " ") + `"}`, []string{"/query"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, Search, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			got := providertest.ViolationPaths(err)
			slices.Sort(got)
			got = slices.Compact(got) // "" breaks both minLength and the non-blank pattern
			if !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violation paths = %v, want %v", got, tc.paths)
			}
		})
	}
	t.Run("defaults", func(t *testing.T) {
		req := prepare(t, `{"platform":"platform_a","query":"x"}`)
		if req.Str("kind") != kindPosts {
			t.Errorf("kind = %v, want posts", req["kind"])
		}
		if n, _ := req.Int("num"); n != 10 {
			t.Errorf("num = %v, want 10", req["num"])
		}
	})
	t.Run("rule on update", func(t *testing.T) {
		// The gateway checks the merged query: switching a keyword search to platform_a profiles
		// is refused at /query.
		merged := providers.Request{"platform": "platform_a", "kind": "profiles", "query": "space agencies", "num": json.Number("10")}
		up := &providers.Update{Previous: providers.Request{"platform": "platform_a", "query": "space agencies"}, Params: providers.Request{"kind": "profiles"}}
		vs := Search.Rules(merged, up)
		if len(vs) != 0 {
			// "space agencies" is two valid handles: allowed.
			t.Fatalf("violations = %v", vs)
		}
		merged["query"] = "space-agencies"
		if vs := Search.Rules(merged, up); len(vs) != 1 || vs[0].Path != "/query" {
			t.Errorf("violations = %v", vs)
		}
	})
	t.Run("handles parsed", func(t *testing.T) {
		got, msg := parseHandles(" @NASA,SpaceX;nasa\tesa ")
		if msg != "" || !reflect.DeepEqual(got, []string{"NASA", "SpaceX", "esa"}) {
			t.Errorf("handles = %v, %q", got, msg)
		}
	})
}

func TestExamples(t *testing.T) {
	for _, ex := range Search.Examples {
		body, err := json.Marshal(ex.Body)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("sandbox/"+ex.Title, func(t *testing.T) {
			c := providertest.Client(t, testProviders(), nil, nil)
			page, err := providertest.Execute(t, c, Search, providers.ModeTest, string(body))
			if err != nil {
				t.Fatal(err)
			}
			checkExamplePage(t, page, ex.Body.Request())
		})
		t.Run("live/"+ex.Title, func(t *testing.T) {
			x, rd := sandboxFake(xID), sandboxFake(redditID)
			if ex.Body.Request()["platform"] == platformA {
				rd = providertest.Refuse(t, "Reddit")
			} else {
				x = providertest.Refuse(t, "X")
			}
			page, err := providertest.Execute(t, client(t, x, rd), Search, providers.ModeLive, string(body))
			if err != nil {
				t.Fatal(err)
			}
			checkExamplePage(t, page, ex.Body.Request())
			for _, r := range x.Requests() {
				if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "capgate/test") {
					t.Errorf("User-Agent = %q", ua)
				}
			}
			for _, r := range rd.Requests() {
				if ua := r.Header.Get("User-Agent"); ua != testRedditUA {
					t.Errorf("Reddit User-Agent = %q", ua)
				}
			}
		})
	}
}

func checkExamplePage(t *testing.T, page *providers.Page, body map[string]any) {
	t.Helper()
	if len(page.Records) == 0 {
		t.Fatal("no records")
	}
	num := 10
	if n, ok := body["num"].(int); ok {
		num = n
	}
	if len(page.Records) > num {
		t.Errorf("%d records, num %d", len(page.Records), num)
	}
	want := recordPost
	if body["kind"] == kindProfiles {
		want = recordProfile
	}
	for _, r := range page.Records {
		fields := providertest.Native(&r)
		if r.Title == "" || fields["platform"] != body["platform"] || fields["kind"] != want || len(r.Ref) == 0 {
			t.Errorf("record %+v", r)
		}
		for k, v := range fields {
			if v == "" || v == nil {
				t.Errorf("record %q: key %s is empty", r.Title, k)
			}
		}
	}
}

// TestRecordDetails runs the details action on the first record of each example in the sandbox
// and on a live fake, and checks the charge of each platform and kind.
func TestRecordDetails(t *testing.T) {
	cases := []struct {
		example int
		golden  string
		credits *int // nil: the action's 5 credits
		path    string
	}{
		{0, "sandbox_x_post_details", nil, "/2/tweets/"},
		{1, "sandbox_reddit_post_details", providers.Credits(0), "/comments/1fm3k2q"},
		{2, "sandbox_x_profile_details", providers.Credits(10), "/2/users/11348282"},
		{3, "sandbox_reddit_profile_details", providers.Credits(0), "/user/rustacean_jo/about"},
	}
	for _, tc := range cases {
		ex := Search.Examples[tc.example]
		body, _ := json.Marshal(ex.Body)
		t.Run(tc.golden, func(t *testing.T) {
			c := providertest.Client(t, testProviders(), nil, nil)
			req := prepare(t, string(body))
			page, err := providertest.ExecuteState(t, c, Search, providers.ModeTest, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			rec := page.Records[0]
			d, err := providertest.Action(t, c, Search, providers.ModeTest, req, "details", &rec)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Credits, tc.credits) {
				t.Errorf("credits = %v, want %v", deref(d.Credits), deref(tc.credits))
			}
			if len(d.Links) == 0 || d.Links[0].URL == "" {
				t.Errorf("links = %v", d.Links)
			}
			providertest.Golden(t, tc.golden, map[string]any{"detail": d.Body, "links": d.Links})

			// The same lookup against a live fake: the path the adapter asks for.
			x, rd := sandboxFake(xID), sandboxFake(redditID)
			lc := client(t, x, rd)
			if _, err := providertest.Action(t, lc, Search, providers.ModeLive, req, "details", &rec); err != nil {
				t.Fatal(err)
			}
			reqs := append(x.Requests(), rd.Requests()...)
			if len(reqs) != 1 || !strings.HasPrefix(reqs[0].URL.Path, tc.path) {
				t.Errorf("requests = %v, want one to %s", paths(reqs), tc.path)
			}
		})
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func paths(reqs []*http.Request) []string {
	out := make([]string, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, r.URL.String())
	}
	return out
}

func TestDetailsRefusesUnusableRef(t *testing.T) {
	c := client(t, providertest.Refuse(t, "X"), providertest.Refuse(t, "Reddit"))
	for _, ref := range []string{``, `{}`, `{"platform":"platform_a","kind":"post","id":"12a"}`,
		`{"platform":"platform_b","kind":"profile","name":"a/b"}`, `{"platform":"platform_c","kind":"post","id":"1"}`} {
		rec := &providers.Record{Title: "x", Ref: json.RawMessage(ref)}
		_, err := providertest.Action(t, c, Search, providers.ModeLive, nil, "details", rec)
		if providertest.ErrorCode(err) != providers.CodeInternal {
			t.Errorf("ref %s: error = %v, want internal_error", ref, err)
		}
	}
}

func TestRecordWithoutUsableIDOffersNoAction(t *testing.T) {
	rec := xPostRecord(xItem{Tweet: rawObject(`{"text":"no id here"}`)})
	if rec.Actions == nil || len(rec.Actions) != 0 || len(rec.Ref) != 0 {
		t.Errorf("record = %+v, want no actions and no ref", rec)
	}
	if rec.Title != "no id here" || rec.URL != "" {
		t.Errorf("record = %+v", rec)
	}
}

func TestBadPagingState(t *testing.T) {
	c := client(t, providertest.Refuse(t, "X"), providertest.Refuse(t, "Reddit"))
	for _, tc := range []struct{ body, state string }{
		{`{"platform":"platform_a","query":"x"}`, `[1,2]`},
		{`{"platform":"platform_a","query":"nasa","kind":"profiles"}`, `{"offset":-1}`},
		{`{"platform":"platform_b","query":"x"}`, `{"after":""}`},
		{`{"platform":"platform_b","query":"x"}`, `"t3_abc"`},
	} {
		_, err := run(t, c, tc.body, json.RawMessage(tc.state))
		if providertest.ErrorCode(err) != providers.CodeInternal {
			t.Errorf("%s with state %s: error = %v, want internal_error", tc.body, tc.state, err)
		}
	}
}

func TestPlatformAWithoutKey(t *testing.T) {
	// No X key in this deployment: platform_a is unavailable, platform_b still works.
	rd := sandboxFake(redditID)
	c := providertest.Client(t, testProviders(), map[string]http.Handler{xID: providertest.Refuse(t, "X"), redditID: oauthFront{api: rd, tokens: tokenEndpoint()}},
		map[string]string{redditID: testRedditKey})
	_, err := run(t, c, `{"platform":"platform_a","query":"artemis"}`, nil)
	if providertest.ErrorCode(err) != providers.CodeCapabilityUnavailable {
		t.Fatalf("error = %v, want capability_unavailable", err)
	}
	if e, _ := providers.AsError(err); !strings.Contains(e.Message, "PROVIDER_X_KEY") {
		t.Errorf("message = %q", e.Message)
	}
	if page := mustRun(t, c, `{"platform":"platform_b","query":"rust"}`, nil); len(page.Records) == 0 {
		t.Error("platform_b returned nothing")
	}
}

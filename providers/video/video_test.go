package video

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/providertest"
)

// Keys the fakes expect; the client adds them as each provider's Authorize says.
const (
	ytKey = "yt-test-key"
	sdKey = "sd-test-key"
)

// upstream is the shared recording stand-in for YouTube or Supadata.
type upstream = providertest.Upstream

const jsonType = "application/json; charset=UTF-8"

func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// serve answers every request with a file and a status.
func serve(tb testing.TB, status int, file string) *upstream {
	tb.Helper()
	return providertest.ServeFile(tb, status, file, jsonType)
}

func serveBody(status int, body string) *upstream {
	return providertest.ServeBody(status, body, jsonType)
}

// sandboxFake serves a provider's own sandbox from a live fake, with the provider's base path
// (/youtube/v3, /v1) put back before the sandbox routes it.
func sandboxFake(id string) *upstream { return providertest.SandboxUpstreamAtBase(Providers(), id) }

// client points both providers at fakes, with keys.
func client(tb testing.TB, yt, tr http.Handler) *providers.Client {
	tb.Helper()
	return providertest.Client(tb, Providers(), map[string]http.Handler{youtubeID: yt, transcriptsID: tr},
		map[string]string{youtubeID: ytKey, transcriptsID: sdKey})
}

func prepare(tb testing.TB, body string) providers.Request {
	tb.Helper()
	req, err := providertest.Prepare(tb, Search, body)
	if err != nil {
		tb.Fatalf("body %s: %v", body, err)
	}
	return req
}

func run(tb testing.TB, c *providers.Client, body, state string) (*providers.Page, error) {
	tb.Helper()
	var st json.RawMessage
	if state != "" {
		st = json.RawMessage(state)
	}
	return providertest.ExecuteState(tb, c, Search, providers.ModeLive, prepare(tb, body), st)
}

func record(id string) *providers.Record {
	return &providers.Record{Title: "a video", URL: watchURL + id, Ref: mustJSON(videoRef{ID: id})}
}

func action(tb testing.TB, c *providers.Client, mode providers.Mode, name string, rec *providers.Record) (*providers.Detail, error) {
	tb.Helper()
	return providertest.Action(tb, c, Search, mode, prepare(tb, `{"query":"surf"}`), name, rec)
}

func TestCapabilityDeclaration(t *testing.T) {
	c := Search
	if c.ID != "video.search" || c.Topic != "Media and social" || c.Paging != providers.PagingToken {
		t.Errorf("id/topic/paging = %q/%q/%q", c.ID, c.Topic, c.Paging)
	}
	if c.Deadline != 15*time.Second || c.Cost.Typical != 0 || c.Cost.Basis == "" || !strings.Contains(c.Cost.Basis, "$0.004") {
		t.Errorf("deadline/cost = %v/%d/%q", c.Deadline, c.Cost.Typical, c.Cost.Basis)
	}
	if !reflect.DeepEqual(c.Providers, []string{"youtube"}) {
		t.Errorf("providers = %v", c.Providers)
	}
	if got := c.ActionNames(); !reflect.DeepEqual(got, []string{"details", "transcript"}) {
		t.Errorf("actions = %v", got)
	}
	if a, _ := c.Action("details"); a.Kind != providers.ActionLookup || a.Credits != 0 || a.Run == nil || a.Description == "" {
		t.Errorf("details action = %+v", a)
	}
	if a, _ := c.Action("transcript"); a.Kind != providers.ActionLookup || a.Credits != 4 || a.Run == nil || a.Description == "" {
		t.Errorf("transcript action = %+v", a)
	}
	if got := c.SearchActions(); !reflect.DeepEqual(got, []string{"more", "update"}) {
		t.Errorf("search actions = %v", got)
	}
	if len(c.Examples) < 2 {
		t.Errorf("%d examples, want at least 2", len(c.Examples))
	}
	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Error("the body schema must be draft 2020-12 with additionalProperties false")
	}
	props := doc["properties"].(map[string]any)
	for _, name := range []string{"query", "num", "published_after", "duration"} {
		p, ok := props[name].(map[string]any)
		if !ok {
			t.Fatalf("property %s missing", name)
		}
		if d, _ := p["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	if len(props) != 4 {
		t.Errorf("%d properties, want 4", len(props))
	}
	if props["published_after"].(map[string]any)["format"] != "date-time" {
		t.Error("published_after must have format date-time")
	}
	if got := Capabilities(); len(got) != 1 || got[0] != Search {
		t.Errorf("Capabilities() = %v", got)
	}
	ps := Providers()
	if len(ps) != 2 || ps[0].ID != youtubeID || ps[1].ID != transcriptsID {
		t.Fatalf("providers = %v", ps)
	}
	for _, p := range ps {
		if !p.KeyRequired || p.Authorize == nil || p.Sandbox == nil || p.BaseURL == "" {
			t.Errorf("provider %s: keyed with a sandbox and a base URL expected", p.ID)
		}
	}
	if ps[0].BaseURL != "https://www.googleapis.com/youtube/v3" || ps[1].BaseURL != "https://api.supadata.ai/v1" {
		t.Errorf("base URLs %q %q", ps[0].BaseURL, ps[1].BaseURL)
	}
}

func TestRequestSchema(t *testing.T) {
	long := strings.Repeat("é", 300)
	cases := []struct {
		name  string
		body  string
		paths []string
	}{
		{"minimal", `{"query":"surf"}`, nil},
		{"all fields", `{"query":"surf","num":50,"published_after":"2024-01-01T00:00:00Z","duration":"long"}`, nil},
		{"offset and fraction", `{"query":"surf","published_after":"2024-01-01T09:30:00.250+02:00"}`, nil},
		{"lower-case t and z", `{"query":"surf","published_after":"2024-01-01t00:00:00z"}`, nil},
		{"300 characters", `{"query":"` + long + `"}`, nil},
		{"num 1", `{"query":"surf","num":1}`, nil},
		{"each duration short", `{"query":"surf","duration":"short"}`, nil},
		{"each duration medium", `{"query":"surf","duration":"medium"}`, nil},
		{"missing query", `{}`, []string{"/query"}},
		{"empty query", `{"query":""}`, []string{"/query"}},
		{"blank query", `{"query":" \t "}`, []string{"/query"}},
		{"301 characters", `{"query":"` + long + `x"}`, []string{"/query"}},
		{"query not a string", `{"query":7}`, []string{"/query"}},
		{"num zero", `{"query":"x","num":0}`, []string{"/num"}},
		{"num 51", `{"query":"x","num":51}`, []string{"/num"}},
		{"num fractional", `{"query":"x","num":2.5}`, []string{"/num"}},
		{"num as string", `{"query":"x","num":"5"}`, []string{"/num"}},
		{"date only", `{"query":"x","published_after":"2024-01-01"}`, []string{"/published_after"}},
		{"no time zone", `{"query":"x","published_after":"2024-01-01T00:00:00"}`, []string{"/published_after"}},
		{"not a date", `{"query":"x","published_after":"yesterday"}`, []string{"/published_after"}},
		{"impossible day", `{"query":"x","published_after":"2024-02-30T00:00:00Z"}`, []string{"/published_after"}},
		{"duration any", `{"query":"x","duration":"any"}`, []string{"/duration"}},
		{"duration upper case", `{"query":"x","duration":"LONG"}`, []string{"/duration"}},
		{"unknown key", `{"query":"x","order":"date"}`, []string{"/order"}},
		{"several problems", `{"num":100,"duration":"tiny"}`, []string{"/duration", "/num", "/query"}},
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
		req := prepare(t, `{"query":"x"}`)
		if n, _ := req.Int("num"); n != 10 {
			t.Errorf("num = %v, want 10", req["num"])
		}
		if req.Has("duration") || req.Has("published_after") {
			t.Errorf("optional fields without defaults were filled: %v", req)
		}
	})
}

func TestSearchGolden(t *testing.T) {
	cases := []struct {
		name, fixture, body string
	}{
		{"search_page1", "search_page1.json", `{"query":"surfing","num":6}`},
		{"search_edge", "search_edge.json", `{"query":"edge cases"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			yt := serve(t, http.StatusOK, filepath.Join("testdata", tc.fixture))
			page, err := run(t, client(t, yt, providertest.Refuse(t, "transcripts")), tc.body, "")
			if err != nil {
				t.Fatal(err)
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
			for _, r := range page.Records {
				if r.Title == "" || !strings.HasPrefix(r.URL, "https://www.youtube.com/watch?v=") || len(r.Ref) == 0 {
					t.Errorf("record %+v", r)
				}
				if r.Actions != nil {
					t.Errorf("%q: actions %v, want all", r.Title, r.Actions)
				}
				if _, ok := r.Data.(*VideoRecord); !ok || len(r.Fields) != 0 {
					t.Errorf("%q: data %T, fields %v", r.Title, r.Data, r.Fields)
				}
			}
		})
	}
}

func TestSearchRequest(t *testing.T) {
	cases := []struct {
		name string
		body string
		want url.Values
	}{
		{"defaults", `{"query":"  how to surf  "}`, url.Values{
			"part": {"snippet"}, "type": {"video"}, "q": {"how to surf"}, "maxResults": {"10"}, "key": {ytKey}}},
		{"all filters", `{"query":"surf","num":50,"published_after":"2024-01-01T09:30:00+02:00","duration":"long"}`, url.Values{
			"part": {"snippet"}, "type": {"video"}, "q": {"surf"}, "maxResults": {"50"}, "key": {ytKey},
			"publishedAfter": {"2024-01-01T07:30:00Z"}, "videoDuration": {"long"}}},
		{"fraction rounds up", `{"query":"surf","published_after":"2024-01-01T00:00:00.25Z","duration":"short"}`, url.Values{
			"part": {"snippet"}, "type": {"video"}, "q": {"surf"}, "maxResults": {"10"}, "key": {ytKey},
			"publishedAfter": {"2024-01-01T00:00:01Z"}, "videoDuration": {"short"}}},
		{"leap second and lower case", `{"query":"surf","published_after":"2016-12-31t23:59:60z","duration":"medium"}`, url.Values{
			"part": {"snippet"}, "type": {"video"}, "q": {"surf"}, "maxResults": {"10"}, "key": {ytKey},
			"publishedAfter": {"2017-01-01T00:00:00Z"}, "videoDuration": {"medium"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			yt := serve(t, http.StatusOK, "testdata/search_page1.json")
			if _, err := run(t, client(t, yt, providertest.Refuse(t, "transcripts")), tc.body, ""); err != nil {
				t.Fatal(err)
			}
			reqs := yt.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != http.MethodGet || r.URL.Path != "/search" {
				t.Errorf("request %s %s", r.Method, r.URL.Path)
			}
			if got := r.URL.Query(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("query = %v, want %v", got, tc.want)
			}
			if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "capgate/test") {
				t.Errorf("User-Agent = %q", ua)
			}
			if r.Header.Get("x-api-key") != "" {
				t.Error("the transcript key was sent to YouTube")
			}
		})
	}
}

func TestPaging(t *testing.T) {
	yt := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
		file := "testdata/search_page1.json"
		if r.URL.Query().Get("pageToken") == "CBkQAA" {
			file = "testdata/search_page2.json"
		}
		_, _ = w.Write(readFile(t, file))
	}}
	c := client(t, yt, providertest.Refuse(t, "transcripts"))
	req := prepare(t, `{"query":"surfing","num":6}`)
	p1, err := providertest.ExecuteState(t, c, Search, providers.ModeLive, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p1.HasMore || string(p1.Next) != `{"token":"CBkQAA"}` {
		t.Fatalf("page 1: has_more %v next %s", p1.HasMore, p1.Next)
	}
	p2, err := providertest.ExecuteState(t, c, Search, providers.ModeLive, req, p1.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Records) != 3 || p2.Records[0].Title != "Hawaiian Summer Surfing" {
		t.Fatalf("page 2 records: %+v", p2.Records)
	}
	if p2.Records[1].Title != `"Pacific Dreams" A California Surfing Film` || p2.Records[2].Snippet != "" {
		t.Errorf("page 2 mapping: %q / snippet %q", p2.Records[1].Title, p2.Records[2].Snippet)
	}
	if !p2.HasMore || string(p2.Next) != `{"token":"CDIQAA"}` {
		t.Errorf("page 2: has_more %v next %s", p2.HasMore, p2.Next)
	}
	reqs := yt.Requests()
	if len(reqs) != 2 || reqs[0].URL.Query().Has("pageToken") || reqs[1].URL.Query().Get("pageToken") != "CBkQAA" {
		t.Errorf("requests %v", reqs)
	}
	// The second page keeps the query's other parameters.
	if q := reqs[1].URL.Query(); q.Get("q") != "surfing" || q.Get("maxResults") != "6" || q.Get("type") != "video" {
		t.Errorf("page 2 query %v", q)
	}

	t.Run("last page", func(t *testing.T) {
		yt := serve(t, http.StatusOK, "testdata/search_edge.json")
		page, err := run(t, client(t, yt, providertest.Refuse(t, "transcripts")), `{"query":"x"}`, `{"token":"CDIQAA"}`)
		if err != nil {
			t.Fatal(err)
		}
		if page.HasMore || page.Next != nil {
			t.Errorf("has_more %v next %s, want the end", page.HasMore, page.Next)
		}
	})
	t.Run("empty page keeps has_more", func(t *testing.T) {
		yt := serveBody(http.StatusOK, `{"kind":"youtube#searchListResponse","nextPageToken":"CGQQAA","pageInfo":{"totalResults":1000000,"resultsPerPage":10},"items":[]}`)
		page, err := run(t, client(t, yt, providertest.Refuse(t, "transcripts")), `{"query":"x"}`, `{"token":"CFoQAA"}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) != 0 || !page.HasMore || string(page.Next) != `{"token":"CGQQAA"}` {
			t.Errorf("page %+v", page)
		}
	})
	for _, st := range []string{`{}`, `{"token":""}`, `{"token":5}`, `[1]`, `not json`} {
		t.Run("unreadable state "+st, func(t *testing.T) {
			_, err := run(t, client(t, providertest.Refuse(t, "youtube"), providertest.Refuse(t, "transcripts")), `{"query":"x"}`, st)
			if providertest.ErrorCode(err) != providers.CodeInternal {
				t.Errorf("error = %v, want internal_error", err)
			}
		})
	}
}

func TestSearchErrors(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		body      string
		file      string
		header    http.Header
		code      providers.Code
		retryable bool
		hint      bool
		message   string
	}{
		{name: "quota exceeded", status: 403, file: "youtube_quota.json", code: providers.CodeProviderAllowance, hint: true,
			message: "YouTube's daily quota for this gateway is used up: The request cannot be completed because you have exceeded your quota."},
		{name: "key invalid", status: 400, file: "youtube_key_invalid.json", code: providers.CodeProviderError, hint: true,
			message: "YouTube refused this deployment's API key: Bad Request"},
		{name: "key invalid, current body", status: 400, file: "youtube_key_invalid_v2.json", code: providers.CodeProviderError, hint: true,
			message: "YouTube refused this deployment's API key: API key not valid. Please pass a valid API key."},
		{name: "missing key", status: 403, file: "sandbox/youtube_error_no_key.json", code: providers.CodeProviderError, hint: true,
			message: "YouTube refused this deployment's API key: The request is missing a valid API key."},
		{name: "rate limit", status: 403, file: "youtube_rate_limit.json", code: providers.CodeRateLimited, retryable: true,
			message: "YouTube is rate limiting this gateway: Rate Limit Exceeded"},
		{name: "backend error", status: 500, file: "youtube_backend_error.json", code: providers.CodeProviderError, retryable: true,
			message: "YouTube: Backend Error"},
		{name: "bad request", status: 400, file: "youtube_bad_filter.json", code: providers.CodeProviderError,
			message: "YouTube: Request contains an invalid argument."},
		{name: "429 with a short Retry-After", status: 429, body: `{"error":{"code":429,"message":"Too many requests"}}`,
			header: http.Header{"Retry-After": {"3"}}, code: providers.CodeRateLimited, retryable: true, message: "YouTube: Too many requests"},
		{name: "503 without a body", status: 503, body: ``, code: providers.CodeProviderError, retryable: true},
		{name: "error object in a 200", status: 200, file: "youtube_quota.json", code: providers.CodeProviderAllowance, hint: true},
		{name: "malformed JSON", status: 200, body: `{"kind":"youtube#searchListResponse","items":[`, code: providers.CodeProviderError, retryable: true},
		{name: "HTML instead of JSON", status: 200, body: `<html>sorry</html>`, code: providers.CodeProviderError, retryable: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body
			if tc.file != "" {
				path := tc.file
				if !strings.Contains(path, "/") {
					path = filepath.Join("testdata", path)
				}
				body = string(readFile(t, path))
			}
			yt := &upstream{Answer: func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tc.header {
					w.Header()[k] = v
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(body))
			}}
			_, err := run(t, client(t, yt, providertest.Refuse(t, "transcripts")), `{"query":"surf"}`, "")
			e, ok := providers.AsError(err)
			if !ok {
				t.Fatalf("error = %v, want a providers.Error", err)
			}
			if e.Code != tc.code || e.IsRetryable() != tc.retryable {
				t.Errorf("code %s retryable %v, want %s %v (%v)", e.Code, e.IsRetryable(), tc.code, tc.retryable, err)
			}
			if tc.hint != (e.Hint != "") {
				t.Errorf("hint %q", e.Hint)
			}
			if tc.message != "" && e.Message != tc.message {
				t.Errorf("message %q, want %q", e.Message, tc.message)
			}
			if strings.Contains(e.Message, "<a") || strings.Contains(e.Message, ytKey) {
				t.Errorf("message leaks markup or the key: %q", e.Message)
			}
			if tc.code == providers.CodeRateLimited && e.RetryAfter <= 0 {
				t.Error("rate_limited without Retry-After")
			}
		})
	}
}

func TestTranscriptsNotConfigured(t *testing.T) {
	yt := serve(t, http.StatusOK, "testdata/search_page1.json")
	c := providertest.Client(t, Providers(), map[string]http.Handler{youtubeID: yt}, map[string]string{youtubeID: ytKey})
	page, err := run(t, c, `{"query":"surfing"}`, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) == 0 || len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "transcript") {
		t.Fatalf("records %d notes %v", len(page.Records), page.Notes)
	}
	for _, r := range page.Records {
		if !reflect.DeepEqual(r.Actions, []string{"details"}) {
			t.Errorf("%q: actions %v, want only details", r.Title, r.Actions)
		}
	}
	_, err = action(t, c, providers.ModeLive, "transcript", &page.Records[0])
	if providertest.ErrorCode(err) != providers.CodeCapabilityUnavailable {
		t.Errorf("transcript without a provider: %v, want capability_unavailable", err)
	}
}

func TestDetails(t *testing.T) {
	t.Run("golden", func(t *testing.T) {
		yt := serve(t, http.StatusOK, "testdata/videos.json")
		d, err := action(t, client(t, yt, providertest.Refuse(t, "transcripts")), providers.ModeLive, "details", record("D-lhorsDlUQ"))
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "details", d)
		if d.Credits != nil {
			t.Errorf("credits = %d, want the action's 0", *d.Credits)
		}
		reqs := yt.Requests()
		if len(reqs) != 1 || reqs[0].URL.Path != "/videos" {
			t.Fatalf("requests %v", reqs)
		}
		want := url.Values{"part": {"snippet,contentDetails,statistics"}, "id": {"D-lhorsDlUQ"}, "key": {ytKey}}
		if got := reqs[0].URL.Query(); !reflect.DeepEqual(got, want) {
			t.Errorf("query %v, want %v", got, want)
		}
		body := d.Body.(*VideoDetail)
		// The recorded video has 20 tags: the first 10 are kept, in order.
		if tags := body.Tags; len(tags) != maxTags || tags[0] != "Google" || tags[9] != "google assistant developers" {
			t.Errorf("tags = %q", tags)
		}
		// Statistics are strings in the API and numbers here.
		if body.Views == nil || *body.Views != 8087 || body.Likes == nil || *body.Likes != 190 || body.Comments == nil || *body.Comments != 32 || body.DurationSeconds != 1267 {
			t.Errorf("numbers: %#v", body)
		}
	})

	t.Run("caps and absent statistics", func(t *testing.T) {
		yt := serve(t, http.StatusOK, "testdata/videos_long.json")
		d, err := action(t, client(t, yt, providertest.Refuse(t, "transcripts")), providers.ModeLive, "details", record("LongStream1"))
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body.(*VideoDetail)
		raw := readFile(t, "testdata/videos_long.json")
		var src struct {
			Items []struct {
				Snippet struct {
					Description string   `json:"description"`
					Tags        []string `json:"tags"`
				} `json:"snippet"`
			} `json:"items"`
		}
		if err := json.Unmarshal(raw, &src); err != nil {
			t.Fatal(err)
		}
		if n := utf8.RuneCountInString(src.Items[0].Snippet.Description); n <= maxDescription {
			t.Fatalf("fixture description has %d characters; it must exceed %d", n, maxDescription)
		}
		if n := len(src.Items[0].Snippet.Tags); n <= maxTags {
			t.Fatalf("fixture has %d tags; it must exceed %d", n, maxTags)
		}
		desc := body.Description
		if n := utf8.RuneCountInString(desc); n != maxDescription || !strings.HasSuffix(desc, "ÉÈÊËÎ") || !utf8.ValidString(desc) {
			t.Errorf("description: %d characters, ends %q", n, desc[len(desc)-12:])
		}
		if !strings.HasPrefix(src.Items[0].Snippet.Description, desc) {
			t.Error("the description is not a prefix of the source's")
		}
		want := []string{"WSL", "pipeline", "Pipe Pro", "surfing", "live", "contest", "north shore", "hawaii", "day 1", "full broadcast"}
		if got := body.Tags; !reflect.DeepEqual(got, want) {
			t.Errorf("tags = %q", got)
		}
		if body.DurationSeconds != 93784 || body.Definition != "sd" || body.Views == nil || *body.Views != 1024 {
			t.Errorf("body %v", body)
		}
		if body.Likes != nil || body.Comments != nil {
			t.Errorf("likes or comments present although the source hides them: %v %v", body.Likes, body.Comments)
		}
	})

	t.Run("sparse video", func(t *testing.T) {
		yt := serveBody(http.StatusOK, `{"kind":"youtube#videoListResponse","items":[{"kind":"youtube#video","id":"AAAAAAAAAA1",
			"snippet":{"title":" Live now ","tags":null,"description":"","publishedAt":7},"contentDetails":{"duration":"P0D"},
			"statistics":{"viewCount":"not a number","likeCount":12,"commentCount":"-1"}}]}`)
		d, err := action(t, client(t, yt, providertest.Refuse(t, "transcripts")), providers.ModeLive, "details", record("AAAAAAAAAA1"))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := json.Marshal(d.Body); string(got) != `{"likes":12,"title":"Live now"}` {
			t.Errorf("body %s", got)
		}
		if len(d.Links) != 1 || d.Links[0].URL != "https://www.youtube.com/watch?v=AAAAAAAAAA1" {
			t.Errorf("links %v", d.Links)
		}
	})

	gone := []struct {
		name   string
		status int
		body   string
	}{
		{"empty items", 200, `{"kind":"youtube#videoListResponse","etag":"x","items":[],"pageInfo":{"totalResults":0,"resultsPerPage":0}}`},
		{"no items", 200, `{"kind":"youtube#videoListResponse"}`},
		{"another video", 200, `{"kind":"youtube#videoListResponse","items":[{"id":"BBBBBBBBBBB"}]}`},
		{"videoNotFound", 404, `{"error":{"code":404,"message":"The video identified by the id parameter could not be found.","errors":[{"message":"The video identified by the id parameter could not be found.","domain":"youtube.video","reason":"videoNotFound"}]}}`},
	}
	for _, tc := range gone {
		t.Run("gone: "+tc.name, func(t *testing.T) {
			yt := serveBody(tc.status, tc.body)
			_, err := action(t, client(t, yt, providertest.Refuse(t, "transcripts")), providers.ModeLive, "details", record("AAAAAAAAAA1"))
			if providertest.ErrorCode(err) != providers.CodeNotFound {
				t.Errorf("error = %v, want not_found", err)
			}
		})
	}

	t.Run("quota on a lookup", func(t *testing.T) {
		yt := serve(t, http.StatusForbidden, "testdata/youtube_quota.json")
		_, err := action(t, client(t, yt, providertest.Refuse(t, "transcripts")), providers.ModeLive, "details", record("AAAAAAAAAA1"))
		if providertest.ErrorCode(err) != providers.CodeProviderAllowance {
			t.Errorf("error = %v, want provider_allowance", err)
		}
	})

	for _, ref := range []string{"", `{}`, `{"id":""}`, `{"id":"a/b"}`, `not json`} {
		t.Run("unusable ref "+ref, func(t *testing.T) {
			rec := &providers.Record{Title: "x", Ref: json.RawMessage(ref)}
			c := client(t, providertest.Refuse(t, "youtube"), providertest.Refuse(t, "transcripts"))
			for _, name := range []string{"details", "transcript"} {
				if _, err := action(t, c, providers.ModeLive, name, rec); providertest.ErrorCode(err) != providers.CodeInternal {
					t.Errorf("%s: error = %v, want internal_error", name, err)
				}
			}
		})
	}
}

func TestParseISODuration(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"PT21M7S", 1267, true}, {"PT1H2M3S", 3723, true}, {"PT4M", 240, true}, {"PT33S", 33, true},
		{"PT2H", 7200, true}, {"P1DT2H3M4S", 93784, true}, {"P1D", 86400, true}, {"P0D", 0, true},
		{"PT1.6S", 2, true}, {"P1W", 604800, true}, {"pt5m", 300, true},
		{"", 0, false}, {"P", 0, false}, {"PT", 0, false}, {"15:33", 0, false}, {"P1Y", 0, false}, {"PT-5S", 0, false},
	}
	for _, tc := range cases {
		got, ok := parseISODuration(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseISODuration(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestTranscript(t *testing.T) {
	t.Run("golden", func(t *testing.T) {
		sd := serve(t, http.StatusOK, "testdata/transcript.json")
		d, err := action(t, client(t, providertest.Refuse(t, "youtube"), sd), providers.ModeLive, "transcript", record("dQw4w9WgXcQ"))
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "transcript", d)
		reqs := sd.Requests()
		if len(reqs) != 1 || reqs[0].URL.Path != "/transcript" {
			t.Fatalf("requests %v", reqs)
		}
		want := url.Values{"url": {"https://www.youtube.com/watch?v=dQw4w9WgXcQ"}, "mode": {"native"}, "text": {"false"}}
		if got := reqs[0].URL.Query(); !reflect.DeepEqual(got, want) {
			t.Errorf("query %v, want %v", got, want)
		}
		if got := reqs[0].Header.Get("x-api-key"); got != sdKey {
			t.Errorf("x-api-key = %q", got)
		}
		if ua := reqs[0].Header.Get("User-Agent"); !strings.HasPrefix(ua, "capgate/test") {
			t.Errorf("User-Agent = %q", ua)
		}
		body := d.Body.(*TranscriptDetail)
		if body.TimestampsTruncated {
			t.Error("timestamps_truncated present without a cap")
		}
		if d.Credits != nil {
			t.Errorf("credits = %d, want the action's 4", *d.Credits)
		}
	})

	t.Run("caps", func(t *testing.T) {
		// Supadata's documented shape, 2,500 segments whose text totals over 60,000 characters.
		const n = 2500
		chunks := make([]map[string]any, n)
		total := 0
		for i := range chunks {
			text := fmt.Sprintf("segment %04d says something about waves and boards", i)
			total += utf8.RuneCountInString(text) + 1
			chunks[i] = map[string]any{"text": text, "offset": i * 2000, "duration": 1900, "lang": "en"}
		}
		if total <= maxTranscriptText || n <= maxTimestamps {
			t.Fatalf("fixture too small: %d characters, %d segments", total, n)
		}
		b, _ := json.Marshal(map[string]any{"content": chunks, "lang": "en", "availableLangs": []string{"en"}})
		sd := serveBody(http.StatusOK, string(b))
		d, err := action(t, client(t, providertest.Refuse(t, "youtube"), sd), providers.ModeLive, "transcript", record("AAAAAAAAAA1"))
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body.(*TranscriptDetail)
		stamps := body.Timestamps
		text := body.Text
		if len(stamps) != maxTimestamps || !body.TimestampsTruncated || body.Segments != n {
			t.Errorf("%d timestamps, truncated %v, segments %v", len(stamps), body.TimestampsTruncated, body.Segments)
		}
		if utf8.RuneCountInString(text) > maxTranscriptText || utf8.RuneCountInString(text) < maxTranscriptText-1 {
			t.Errorf("text has %d characters, want %d", utf8.RuneCountInString(text), maxTranscriptText)
		}
		if !strings.HasPrefix(text, "segment 0000 says something about waves and boards segment 0001") {
			t.Errorf("text starts %q", text[:80])
		}
		last := stamps[len(stamps)-1]
		if last.Start != 3998 || last.Duration == nil || *last.Duration != 1.9 || last.Text != "segment 1999 says something about waves and boards" {
			t.Errorf("last timestamp %+v", last)
		}
	})

	t.Run("plain text content", func(t *testing.T) {
		sd := serveBody(http.StatusOK, `{"content":"Never gonna give you up,\nnever gonna let you down...","lang":"en","availableLangs":["en","es","zh-TW"]}`)
		d, err := action(t, client(t, providertest.Refuse(t, "youtube"), sd), providers.ModeLive, "transcript", record("dQw4w9WgXcQ"))
		if err != nil {
			t.Fatal(err)
		}
		want := &TranscriptDetail{Language: "en", AvailableLanguages: []string{"en", "es", "zh-TW"}, Segments: 0,
			Timestamps: []timestamp{}, Text: "Never gonna give you up, never gonna let you down..."}
		if !reflect.DeepEqual(d.Body, want) {
			t.Errorf("body %#v", d.Body)
		}
	})

	t.Run("language from the chunks", func(t *testing.T) {
		sd := serveBody(http.StatusOK, `{"content":[{"text":"hola","offset":0,"duration":900,"lang":"es"}]}`)
		d, err := action(t, client(t, providertest.Refuse(t, "youtube"), sd), providers.ModeLive, "transcript", record("AAAAAAAAAA1"))
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body.(*TranscriptDetail)
		if body.Language != "es" || !reflect.DeepEqual(body.AvailableLanguages, []string{"es"}) || body.Segments != 1 {
			t.Errorf("body %#v", body)
		}
	})

	errs := []struct {
		name      string
		status    int
		file      string
		body      string
		header    http.Header
		code      providers.Code
		retryable bool
	}{
		{name: "no captions (206)", status: 206, file: "supadata_transcript-unavailable.json", code: providers.CodeNotFound},
		{name: "video not found", status: 404, file: "supadata_not-found.json", code: providers.CodeNotFound},
		{name: "bad key", status: 401, file: "supadata_unauthorized.json", code: providers.CodeProviderError},
		{name: "plan", status: 402, file: "supadata_upgrade-required.json", code: providers.CodeProviderError},
		{name: "quota used up", status: 429, file: "supadata_limit-exceeded.json", code: providers.CodeProviderAllowance},
		{name: "rate limited", status: 429, file: "supadata_limit-exceeded.json", header: http.Header{"Retry-After": {"2"}},
			code: providers.CodeRateLimited, retryable: true},
		{name: "invalid request", status: 400, file: "supadata_invalid-request.json", code: providers.CodeProviderError},
		{name: "internal error", status: 500, file: "supadata_internal-error.json", code: providers.CodeProviderError, retryable: true},
		{name: "unknown code on a 4xx", status: 418, body: `{"error":"teapot","message":"Teapot","details":"short and stout"}`, code: providers.CodeProviderError},
		{name: "plain 502", status: 502, body: `Bad Gateway`, code: providers.CodeProviderError, retryable: true},
		{name: "malformed JSON", status: 200, body: `{"content":[{"text":`, code: providers.CodeProviderError, retryable: true},
		{name: "no content", status: 200, body: `{"lang":"en","availableLangs":["en"]}`, code: providers.CodeProviderError, retryable: true},
	}
	for _, tc := range errs {
		t.Run("error: "+tc.name, func(t *testing.T) {
			body := tc.body
			if tc.file != "" {
				body = string(readFile(t, filepath.Join("testdata", tc.file)))
			}
			sd := &upstream{Answer: func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tc.header {
					w.Header()[k] = v
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(body))
			}}
			_, err := action(t, client(t, providertest.Refuse(t, "youtube"), sd), providers.ModeLive, "transcript", record("AAAAAAAAAA1"))
			e, ok := providers.AsError(err)
			if !ok {
				t.Fatalf("error = %v", err)
			}
			if e.Code != tc.code || e.IsRetryable() != tc.retryable {
				t.Errorf("code %s retryable %v, want %s %v (%v)", e.Code, e.IsRetryable(), tc.code, tc.retryable, err)
			}
			if strings.Contains(e.Message, sdKey) {
				t.Errorf("message leaks the key: %q", e.Message)
			}
		})
	}

	t.Run("job", func(t *testing.T) {
		defer setPoll(time.Millisecond)()
		polls := 0
		sd := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/transcript":
				w.WriteHeader(http.StatusAccepted)
				_, _ = w.Write([]byte(`{"jobId":"123e4567-e89b-12d3-a456-426614174000"}`))
			case "/transcript/123e4567-e89b-12d3-a456-426614174000":
				polls++
				if polls < 3 {
					_, _ = w.Write([]byte(`{"status":"active"}`))
					return
				}
				_, _ = w.Write([]byte(`{"status":"completed","error":null,"content":[{"text":"hello","offset":0,"duration":1000,"lang":"en"}],"lang":"en","availableLangs":["en"]}`))
			default:
				w.WriteHeader(http.StatusNotFound)
			}
		}}
		d, err := action(t, client(t, providertest.Refuse(t, "youtube"), sd), providers.ModeLive, "transcript", record("AAAAAAAAAA1"))
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body.(*TranscriptDetail)
		if body.Text != "hello" || body.Segments != 1 || polls != 3 {
			t.Errorf("body %v after %d polls", body, polls)
		}
		for _, r := range sd.Requests() {
			if r.Header.Get("x-api-key") != sdKey {
				t.Errorf("%s without the key", r.URL.Path)
			}
		}
	})

	t.Run("job failed", func(t *testing.T) {
		defer setPoll(time.Millisecond)()
		sd := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/transcript" {
				w.WriteHeader(http.StatusAccepted)
				_, _ = w.Write([]byte(`{"jobId":"job-1"}`))
				return
			}
			_, _ = w.Write([]byte(`{"status":"failed","error":{"error":"transcript-unavailable","message":"Transcript Unavailable","details":"No transcript is available for this video"}}`))
		}}
		_, err := action(t, client(t, providertest.Refuse(t, "youtube"), sd), providers.ModeLive, "transcript", record("AAAAAAAAAA1"))
		if providertest.ErrorCode(err) != providers.CodeNotFound {
			t.Errorf("error = %v, want not_found", err)
		}
	})

	t.Run("job never finishes", func(t *testing.T) {
		defer setPoll(20 * time.Millisecond)()
		sd := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/transcript" {
				w.WriteHeader(http.StatusAccepted)
				_, _ = w.Write([]byte(`{"jobId":"job-2"}`))
				return
			}
			_, _ = w.Write([]byte(`{"status":"queued"}`))
		}}
		c := client(t, providertest.Refuse(t, "youtube"), sd)
		a, _ := Search.Action("transcript")
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		_, err := a.Run(ctx, providers.NewCall(Search, prepare(t, `{"query":"x"}`), nil, providers.ModeLive, "tnt_test", c), record("AAAAAAAAAA1"))
		if providertest.ErrorCode(err) != providers.CodeProviderTimeout {
			t.Errorf("error = %v, want provider_timeout", err)
		}
	})
}

func setPoll(d time.Duration) func() {
	old := jobPollInterval
	jobPollInterval = d
	return func() { jobPollInterval = old }
}

func TestExamples(t *testing.T) {
	for _, ex := range Search.Examples {
		body, err := json.Marshal(ex.Body)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("sandbox/"+ex.Title, func(t *testing.T) {
			c := providertest.Client(t, Providers(), nil, nil)
			req := prepare(t, string(body))
			page, err := providertest.ExecuteState(t, c, Search, providers.ModeTest, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			pages := []*providers.Page{page}
			for p := page; p.HasMore; {
				if p, err = providertest.ExecuteState(t, c, Search, providers.ModeTest, req, p.Next); err != nil {
					t.Fatal(err)
				}
				if len(pages) > 5 {
					t.Fatal("sandbox paging does not end")
				}
				pages = append(pages, p)
			}
			transcripts := 0
			for _, p := range pages {
				checkExamplePage(t, p)
				for i := range p.Records {
					rec := &p.Records[i]
					d, err := providertest.Action(t, c, Search, providers.ModeTest, req, "details", rec)
					if err != nil {
						t.Fatalf("details of %q: %v", rec.Title, err)
					}
					if b := d.Body.(*VideoDetail); b.Title == "" || b.DurationSeconds == 0 || len(d.Links) == 0 {
						t.Errorf("details of %q: %v %v", rec.Title, b, d.Links)
					}
					d, err = providertest.Action(t, c, Search, providers.ModeTest, req, "transcript", rec)
					switch {
					case err == nil:
						transcripts++
						if b := d.Body.(*TranscriptDetail); b.Text == "" || len(b.Timestamps) == 0 {
							t.Errorf("transcript of %q: %v", rec.Title, b)
						}
					case providertest.ErrorCode(err) != providers.CodeNotFound:
						t.Errorf("transcript of %q: %v", rec.Title, err)
					}
				}
			}
			if transcripts == 0 {
				t.Error("no sandbox record has a transcript")
			}
		})
		t.Run("live/"+ex.Title, func(t *testing.T) {
			yt, sd := sandboxFake(youtubeID), sandboxFake(transcriptsID)
			c := client(t, yt, sd)
			page, err := providertest.Execute(t, c, Search, providers.ModeLive, string(body))
			if err != nil {
				t.Fatal(err)
			}
			checkExamplePage(t, page)
			rec := &page.Records[0]
			if _, err := action(t, c, providers.ModeLive, "details", rec); err != nil {
				t.Errorf("details: %v", err)
			}
			if _, err := action(t, c, providers.ModeLive, "transcript", rec); err != nil {
				t.Errorf("transcript: %v", err)
			}
			if r := sd.Requests(); len(r) != 1 || r[0].Header.Get("x-api-key") != sdKey {
				t.Errorf("transcript requests %v", r)
			}
			q := yt.Requests()[0].URL.Query()
			if q.Get("q") != ex.Body.Request()["query"] || q.Get("key") != ytKey {
				t.Errorf("query %v", q)
			}
			if d, _ := ex.Body.Request()["duration"].(string); q.Get("videoDuration") != d {
				t.Errorf("videoDuration %q, want %q", q.Get("videoDuration"), d)
			}
			if n, ok := ex.Body.Request().Int("num"); ok && q.Get("maxResults") != fmt.Sprint(n) {
				t.Errorf("maxResults %q, want %d", q.Get("maxResults"), n)
			}
		})
	}
}

func checkExamplePage(t *testing.T, page *providers.Page) {
	t.Helper()
	if len(page.Records) == 0 {
		t.Fatal("no records")
	}
	for _, r := range page.Records {
		if r.Title == "" || r.URL == "" || len(r.Ref) == 0 || r.Data.(*VideoRecord).Channel == "" || r.Data.(*VideoRecord).PublishedAt == "" || r.Data.(*VideoRecord).Thumbnail == "" {
			t.Errorf("record %+v", r)
		}
	}
	if len(page.Notes) != 0 {
		t.Errorf("notes %v", page.Notes)
	}
}

func TestSandbox(t *testing.T) {
	c := providertest.Client(t, Providers(), nil, nil)
	page, err := providertest.Execute(t, c, Search, providers.ModeTest, `{"query":"how to surf","num":4}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "sandbox_surf", providertest.RecordsJSON(page))

	t.Run("unknown video", func(t *testing.T) {
		_, err := action(t, c, providers.ModeTest, "details", record("AAAAAAAAAA9"))
		if providertest.ErrorCode(err) != providers.CodeNotFound {
			t.Errorf("error = %v, want not_found", err)
		}
	})
	t.Run("transcript", func(t *testing.T) {
		d, err := action(t, c, providers.ModeTest, "transcript", record("f6kdp27TYZs"))
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "sandbox_transcript", d)
	})
	t.Run("fixtures are well-formed", func(t *testing.T) {
		entries, err := sandboxFiles.ReadDir("sandbox")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, _ := sandboxFiles.ReadFile("sandbox/" + e.Name())
			if !json.Valid(b) {
				t.Errorf("%s is not valid JSON", e.Name())
			}
		}
		for _, id := range sandboxVideos {
			if _, err := sandboxFiles.ReadFile("sandbox/videos_" + id + ".json"); err != nil {
				t.Errorf("video %s: %v", id, err)
			}
		}
	})
}

func TestHelpers(t *testing.T) {
	t.Run("clipRunes", func(t *testing.T) {
		cases := []struct {
			in   string
			n    int
			want string
			cut  bool
		}{
			{"hello", 5, "hello", false}, {"hello world", 6, "hello", true}, {"ééééé", 3, "ééé", true}, {"", 3, "", false},
		}
		for _, tc := range cases {
			got, cut := providers.Truncate(tc.in, tc.n)
			if got != tc.want || cut != tc.cut {
				t.Errorf("clipRunes(%q, %d) = %q, %v", tc.in, tc.n, got, cut)
			}
		}
	})
	t.Run("normalizeTime", func(t *testing.T) {
		cases := map[string]string{
			"2019-12-05T19:00:10.000Z": "2019-12-05T19:00:10Z", "2024-03-01T10:00:00+01:00": "2024-03-01T09:00:00Z",
			"2016-12-31T23:59:60Z": "2017-01-01T00:00:00Z", "not a date": "", "2019-12-05": "", "": "",
		}
		for in, want := range cases {
			if got := normalizeTime(in); got != want {
				t.Errorf("normalizeTime(%q) = %q, want %q", in, got, want)
			}
		}
	})
	t.Run("pickThumbnail", func(t *testing.T) {
		if got := pickThumbnail(map[string]thumbnail{"default": {URL: "d"}, "medium": {URL: "m"}, "high": {URL: "h"}}); got != "m" {
			t.Errorf("got %q, want medium", got)
		}
		if got := pickThumbnail(map[string]thumbnail{"default": {URL: "d"}, "high": {URL: "h"}}); got != "d" {
			t.Errorf("got %q, want default", got)
		}
		if got := pickThumbnail(map[string]thumbnail{"high": {URL: "h"}}); got != "" {
			t.Errorf("got %q, want none", got)
		}
	})
	t.Run("optInt", func(t *testing.T) {
		cases := []struct {
			in   string
			want lenient.Int
		}{
			{`"8087"`, lenient.Int{V: 8087, OK: true}}, {`12`, lenient.Int{V: 12, OK: true}}, {`"1.5"`, lenient.Int{}}, {`null`, lenient.Int{}},
			{`"x"`, lenient.Int{}}, {`[1]`, lenient.Int{}}, {`" 42 "`, lenient.Int{V: 42, OK: true}},
		}
		for _, tc := range cases {
			var got lenient.Int
			if err := json.Unmarshal([]byte(tc.in), &got); err != nil || got != tc.want {
				t.Errorf("optInt(%s) = %+v, %v", tc.in, got, err)
			}
		}
	})
}

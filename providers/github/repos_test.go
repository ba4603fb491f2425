package github

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func TestSearchMapsRepositories(t *testing.T) {
	f := newFake(t)
	f.serve("/search/repositories", http.StatusOK, "search.json")
	page, err := providertest.Execute(t, f.client(t), RepoSearch, providers.ModeLive,
		`{"query":"tetris language:javascript","sort":"stars","num":4}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "search", providertest.RecordsJSON(page))

	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	q := reqs[0].URL.Query()
	want := map[string]string{"q": "tetris language:javascript", "sort": "stars", "order": "desc", "per_page": "4", "page": "1"}
	for k, v := range want {
		if got := q.Get(k); got != v {
			t.Errorf("query %s = %q, want %q", k, got, v)
		}
	}
	if got := reqs[0].Header.Get("Accept"); got != mediaJSON {
		t.Errorf("Accept = %q", got)
	}
	if !page.HasMore || string(page.Next) != `{"page":2}` {
		t.Fatalf("has_more %v next %s, want true {\"page\":2}", page.HasMore, page.Next)
	}
}

func TestSearchSendsTokenWhenConfigured(t *testing.T) {
	f := newFake(t)
	f.token = "github_pat_test"
	f.serve("/search/repositories", http.StatusOK, "search_empty.json")
	page, err := providertest.Execute(t, f.client(t), RepoSearch, providers.ModeLive, `{"query":"nothing matches this"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 0 || page.HasMore {
		t.Fatalf("empty search: %d records, has_more %v", len(page.Records), page.HasMore)
	}
	// best_match is GitHub's default ranking: no sort or order is sent.
	q := f.Requests()[0].URL.Query()
	if q.Has("sort") || q.Has("order") {
		t.Fatalf("best_match sent sort=%q order=%q", q.Get("sort"), q.Get("order"))
	}
}

func TestSearchPaging(t *testing.T) {
	f := newFake(t)
	page1 := providertest.Fixture(t, "search_page1.json")
	page2 := providertest.Fixture(t, "search_page2.json")
	f.routes["/search/repositories"] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("page") == "2" {
			_, _ = w.Write(page2)
			return
		}
		_, _ = w.Write(page1)
	}
	client := f.client(t)
	req := prepare(t, `{"query":"http router language:go","num":2}`)
	first, err := providertest.ExecuteState(t, client, RepoSearch, providers.ModeLive, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !first.HasMore || len(first.Records) != 2 {
		t.Fatalf("first page: %d records, has_more %v", len(first.Records), first.HasMore)
	}
	second, err := providertest.ExecuteState(t, client, RepoSearch, providers.ModeLive, req, first.Next)
	if err != nil {
		t.Fatal(err)
	}
	if second.HasMore || len(second.Records) != 2 {
		t.Fatalf("last page: %d records, has_more %v", len(second.Records), second.HasMore)
	}
	if first.Records[0].Title == second.Records[0].Title {
		t.Fatalf("the second page repeats the first: %s", first.Records[0].Title)
	}
	providertest.Golden(t, "search_pages", []any{providertest.RecordsJSON(first), providertest.RecordsJSON(second)})
}

func TestSearchStopsAtTheThousandResultCap(t *testing.T) {
	f := newFake(t)
	f.serve("/search/repositories", http.StatusOK, "search.json") // total_count 2345
	client := f.client(t)
	req := prepare(t, `{"query":"tetris","num":50}`)

	last, err := providertest.ExecuteState(t, client, RepoSearch, providers.ModeLive, req, json.RawMessage(`{"page":20}`))
	if err != nil {
		t.Fatal(err)
	}
	if last.HasMore || len(last.Notes) != 1 || !strings.Contains(last.Notes[0], "first 1,000 results") ||
		!strings.Contains(last.Notes[0], "2,345") {
		t.Fatalf("page 20 of 50: has_more %v notes %q", last.HasMore, last.Notes)
	}
	if _, err := providertest.ExecuteState(t, client, RepoSearch, providers.ModeLive, req, json.RawMessage(`{"page":21}`)); providertest.ErrorCode(err) != providers.CodeInternal {
		t.Fatalf("a state past the cap: %v", err)
	}
	if n := len(f.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1: a state past the cap never reaches GitHub", n)
	}
}

func TestSearchIncompleteResultsNote(t *testing.T) {
	f := newFake(t)
	f.serve("/search/repositories", http.StatusOK, "search_incomplete.json")
	page, err := providertest.Execute(t, f.client(t), RepoSearch, providers.ModeLive, `{"query":"tetris"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "timed out") {
		t.Fatalf("notes %q", page.Notes)
	}
	providertest.Golden(t, "search_incomplete", providertest.RecordsJSON(page))
}

func TestRequestRules(t *testing.T) {
	sixOps := "a AND b OR c NOT d AND e OR f AND g"
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"missing query", `{}`, []string{"/query"}},
		{"blank query", `{"query":"   "}`, []string{"/query"}},
		{"query too long", `{"query":"` + strings.Repeat("x", 257) + `"}`, []string{"/query"}},
		{"too many operators", `{"query":"` + sixOps + `"}`, []string{"/query"}},
		{"unknown sort", `{"query":"go","sort":"newest"}`, []string{"/sort"}},
		{"num too small", `{"query":"go","num":0}`, []string{"/num"}},
		{"num too large", `{"query":"go","num":51}`, []string{"/num"}},
		{"unknown key", `{"query":"go","language":"go"}`, []string{"/language"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, RepoSearch, tc.body)
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("error %v, want invalid_request", err)
			}
			if got := uniquePaths(err); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("violation paths %q, want %q", got, tc.want)
			}
		})
	}
	// Operators inside quotes and lower-case "and" are keywords, not operators.
	if _, err := providertest.Prepare(t, RepoSearch, `{"query":"\"a AND b OR c NOT d AND e OR f AND g\" and or not"}`); err != nil {
		t.Fatalf("quoted operators refused: %v", err)
	}
	req := prepare(t, `{"query":"go"}`)
	if req.Str("sort") != "best_match" || req.Str("query") != "go" {
		t.Fatalf("defaults: %v", req)
	}
	if n, _ := req.Int("num"); n != 10 {
		t.Fatalf("default num %d", n)
	}
}

func TestSearchErrors(t *testing.T) {
	for _, tc := range []struct {
		name, fixture string
		status        int
		header        map[string]string
		code          providers.Code
		retryAfter    time.Duration
		path          string
	}{
		{name: "query GitHub cannot run", fixture: "error_422_query.json", status: 422, code: providers.CodeInvalidRequest, path: "/query"},
		{name: "missing qualifier target", fixture: "error_422_missing.json", status: 422, code: providers.CodeInvalidRequest, path: "/query"},
		{name: "primary rate limit", fixture: "error_403_rate_limit.json", status: 403, code: providers.CodeRateLimited, retryAfter: rateLimitWait},
		{name: "secondary rate limit", fixture: "error_403_secondary.json", status: 403, code: providers.CodeRateLimited, retryAfter: rateLimitWait},
		{name: "429 with Retry-After", fixture: "error_403_secondary.json", status: 429, header: map[string]string{"Retry-After": "7"},
			code: providers.CodeRateLimited, retryAfter: 7 * time.Second},
		{name: "bad token", fixture: "error_401.json", status: 401, code: providers.CodeProviderError},
		{name: "blocked for legal reasons", fixture: "error_451_blocked.json", status: 451, code: providers.CodeProviderError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.answer("/search/repositories", tc.status, string(providertest.Fixture(t, tc.fixture)), tc.header)
			_, err := providertest.Execute(t, f.client(t), RepoSearch, providers.ModeLive, `{"query":"user:nobody-here"}`)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code {
				t.Fatalf("error %v, want %s", err, tc.code)
			}
			if tc.retryAfter != 0 && e.RetryAfter != tc.retryAfter {
				t.Fatalf("Retry-After %v, want %v", e.RetryAfter, tc.retryAfter)
			}
			if tc.path != "" && !reflect.DeepEqual(providertest.ViolationPaths(err), []string{tc.path}) {
				t.Fatalf("violations %q, want %s", providertest.ViolationPaths(err), tc.path)
			}
			if tc.code == providers.CodeProviderError && e.IsRetryable() {
				t.Fatalf("a refused request is not retryable: %v", err)
			}
			if strings.Contains(e.Message, "http://127.0.0.1") {
				t.Fatalf("message quotes the upstream URL: %s", e.Message)
			}
		})
	}
	t.Run("page past the first 1,000 results", func(t *testing.T) {
		f := newFake(t)
		f.serve("/search/repositories", 422, "error_422_cap.json")
		page, err := providertest.Execute(t, f.client(t), RepoSearch, providers.ModeLive, `{"query":"go"}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) != 0 || page.HasMore || len(page.Notes) != 1 {
			t.Fatalf("cap answer: %d records, has_more %v, notes %q", len(page.Records), page.HasMore, page.Notes)
		}
	})
	t.Run("answer without items", func(t *testing.T) {
		f := newFake(t)
		f.answer("/search/repositories", 200, `{"total_count": 3, "incomplete_results": false}`, nil)
		_, err := providertest.Execute(t, f.client(t), RepoSearch, providers.ModeLive, `{"query":"go"}`)
		if providertest.ErrorCode(err) != providers.CodeProviderError {
			t.Fatalf("error %v, want provider_error", err)
		}
	})
}

func TestReadmeDetails(t *testing.T) {
	rec := &providers.Record{Title: "chvin/react-tetris", URL: "https://github.com/chvin/react-tetris",
		Ref: json.RawMessage(`{"owner":"chvin","repo":"react-tetris"}`)}
	req := prepare(t, `{"query":"tetris"}`)

	t.Run("base64 content", func(t *testing.T) {
		f := newFake(t)
		f.serve("/repos/chvin/react-tetris/readme", http.StatusOK, "readme.json")
		d, err := providertest.Action(t, f.client(t), RepoSearch, providers.ModeLive, req, "details", rec)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "readme", d)
		if d.Credits != nil {
			t.Fatalf("README lookups cost the action's 0 credits, got %d", *d.Credits)
		}
	})
	t.Run("over 1 MB: the raw media type", func(t *testing.T) {
		f := newFake(t)
		large := providertest.Fixture(t, "readme_large.json")
		raw := "# react-tetris\n" + strings.Repeat("é", maxReadmeChars)
		f.routes["/repos/chvin/react-tetris/readme"] = func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Accept") == mediaRaw {
				_, _ = w.Write([]byte(raw))
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(large)
		}
		d, err := providertest.Action(t, f.client(t), RepoSearch, providers.ModeLive, req, "details", rec)
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body.(*ReadmeDetail)
		md := body.Markdown
		if !body.Truncated || len([]rune(md)) != maxReadmeChars || !strings.HasPrefix(md, "# react-tetris") {
			t.Fatalf("truncated %v, %d characters", body.Truncated, len([]rune(md)))
		}
		if n := len(f.Requests()); n != 2 {
			t.Fatalf("%d requests, want 2 (metadata, then raw)", n)
		}
	})
	t.Run("no README", func(t *testing.T) {
		f := newFake(t)
		_, err := providertest.Action(t, f.client(t), RepoSearch, providers.ModeLive, req, "details", rec)
		if providertest.ErrorCode(err) != providers.CodeNotFound {
			t.Fatalf("error %v, want not_found", err)
		}
	})
	t.Run("record without a repository", func(t *testing.T) {
		f := newFake(t)
		bad := &providers.Record{Title: "x", Ref: json.RawMessage(`{"owner":"../etc","repo":"passwd"}`)}
		_, err := providertest.Action(t, f.client(t), RepoSearch, providers.ModeLive, req, "details", bad)
		if providertest.ErrorCode(err) != providers.CodeInvalidRequest || len(f.Requests()) != 0 {
			t.Fatalf("error %v after %d requests, want invalid_request before any", err, len(f.Requests()))
		}
	})
}

func TestBoundText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		max            int
		truncated      bool
	}{
		{"short", "abc", "abc", 5, false},
		{"exact", "abcde", "abcde", 5, false},
		{"cut on characters", "ééééé", "éé", 2, true},
		{"byte-order mark", "\uFEFFabc", "abc", 5, false},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb", 5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, tr := boundText([]byte(tc.in), tc.max)
			if got != tc.want || tr != tc.truncated {
				t.Fatalf("boundText(%q, %d) = %q, %v", tc.in, tc.max, got, tr)
			}
		})
	}
}

// TestSandbox runs what the gateway runs for test keys: every example, details on its first
// record and, while has_more, the next page.
func TestSandbox(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	for _, ex := range RepoSearch.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			b, _ := json.Marshal(ex.Body)
			page, err := providertest.Execute(t, client, RepoSearch, providers.ModeTest, string(b))
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 {
				t.Fatal("the sandbox answered no records")
			}
			req := prepare(t, string(b))
			d, err := providertest.Action(t, client, RepoSearch, providers.ModeTest, req, "details", &page.Records[0])
			if err != nil {
				t.Fatalf("details of %s: %v", page.Records[0].Title, err)
			}
			if md := d.Body.(*ReadmeDetail).Markdown; md == "" {
				t.Fatalf("details of %s without markdown", page.Records[0].Title)
			}
			if page.HasMore {
				next, err := providertest.ExecuteState(t, client, RepoSearch, providers.ModeTest, req, page.Next)
				if err != nil {
					t.Fatal(err)
				}
				if len(next.Records) == 0 || next.Records[0].Title == page.Records[0].Title {
					t.Fatalf("the next page is empty or repeats the first")
				}
			}
		})
	}
	providertest.Golden(t, "sandbox_routers", sandboxPage(t, client, `{"query":"http router language:go","sort":"stars","num":5}`))
}

func sandboxPage(t *testing.T, client *providers.Client, body string) any {
	t.Helper()
	page, err := providertest.Execute(t, client, RepoSearch, providers.ModeTest, body)
	if err != nil {
		t.Fatal(err)
	}
	return providertest.RecordsJSON(page)
}

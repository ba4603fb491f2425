package social

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// TestXMapping maps X's documented answers (testdata, with optional parts present and absent,
// nulls and a mistyped count) to records: the golden files are the reviewed mapping.
func TestXMapping(t *testing.T) {
	cases := []struct {
		name, fixture, body string
	}{
		{"x_search_recent", "testdata/x_search_recent.json", `{"platform":"platform_a","query":"artemis"}`},
		{"x_search_recent_num3", "testdata/x_search_recent.json", `{"platform":"platform_a","query":"artemis","num":3}`},
		{"x_search_recent_empty", "testdata/x_search_recent_empty.json", `{"platform":"platform_a","query":"zzzqqq"}`},
		{"x_users_by", "testdata/x_users_by.json", `{"platform":"platform_a","kind":"profiles","query":"nasa nosuchhandle42 orbit_watcher"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := client(t, providertest.ServeFile(t, 200, tc.fixture, jsonType), providertest.Refuse(t, "Reddit"))
			page := mustRun(t, c, tc.body, nil)
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
		})
	}
}

// TestXDetailMapping maps a long post (full text in note_tweet, a quoted post) to its details.
func TestXDetailMapping(t *testing.T) {
	c := client(t, providertest.ServeFile(t, 200, "testdata/x_tweet_note.json", jsonType), providertest.Refuse(t, "Reddit"))
	rec := &providers.Record{Title: "p", Ref: mustJSON(recordRef{Platform: platformA, Kind: recordPost, ID: "2102369614951363794"})}
	d, err := providertest.Action(t, c, Search, providers.ModeLive, nil, "details", rec)
	if err != nil {
		t.Fatal(err)
	}
	if d.Credits != nil {
		t.Errorf("credits = %d, want the action's 5", *d.Credits)
	}
	providertest.Golden(t, "x_tweet_note_details", map[string]any{"detail": d.Body, "links": d.Links})
}

// TestXRequests asserts the exact path, query, auth and User-Agent of every X call.
func TestXRequests(t *testing.T) {
	searchQuery := func(max, token string) url.Values {
		q := url.Values{
			"query":        {"artemis from:NASA -is:retweet"},
			"max_results":  {max},
			"tweet.fields": {"created_at,public_metrics,author_id,lang"},
			"expansions":   {"author_id"},
			"user.fields":  {"username,name,verified,public_metrics,location"},
		}
		if token != "" {
			q.Set("next_token", token)
		}
		return q
	}
	cases := []struct {
		name  string
		body  string
		state string
		path  string
		query url.Values
	}{
		{"search num 5 asks for X's minimum of 10", `{"platform":"platform_a","query":"artemis from:NASA -is:retweet","num":5}`, "",
			"/2/tweets/search/recent", searchQuery("10", "")},
		{"search num 25", `{"platform":"platform_a","query":"artemis from:NASA -is:retweet","num":25}`, "",
			"/2/tweets/search/recent", searchQuery("25", "")},
		{"search next page", `{"platform":"platform_a","query":"artemis from:NASA -is:retweet","num":12}`, `{"next_token":"b26v89c19zqg8o3f"}`,
			"/2/tweets/search/recent", searchQuery("12", "b26v89c19zqg8o3f")},
		{"search next page after a buffer", `{"platform":"platform_a","query":"artemis from:NASA -is:retweet","num":4}`,
			`{"next_token":"tok2","buffer":[{"tweet":{"id":"1","text":"a"}}]}`, "/2/tweets/search/recent", searchQuery("10", "tok2")},
		{"profiles by handle", `{"platform":"platform_a","kind":"profiles","query":"@NASA, SpaceX nasa"}`, "",
			"/2/users/by", url.Values{"usernames": {"NASA,SpaceX"}, "user.fields": {"username,name,verified,public_metrics,location,description,created_at"}}},
		{"profiles second page", `{"platform":"platform_a","kind":"profiles","query":"a b c d","num":2}`, `{"offset":2}`,
			"/2/users/by", url.Values{"usernames": {"c,d"}, "user.fields": {"username,name,verified,public_metrics,location,description,created_at"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := providertest.ServeFile(t, 200, "testdata/x_search_recent_empty.json", jsonType)
			c := client(t, x, providertest.Refuse(t, "Reddit"))
			var st json.RawMessage
			if tc.state != "" {
				st = json.RawMessage(tc.state)
			}
			if _, err := run(t, c, tc.body, st); err != nil {
				t.Fatal(err)
			}
			reqs := x.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			checkXRequest(t, reqs[0], tc.path, tc.query)
		})
	}
	t.Run("details", func(t *testing.T) {
		x := sandboxFake(xID)
		c := client(t, x, providertest.Refuse(t, "Reddit"))
		post := &providers.Record{Title: "p", Ref: mustJSON(recordRef{Platform: platformA, Kind: recordPost, ID: "2101934871123456789"})}
		user := &providers.Record{Title: "u", Ref: mustJSON(recordRef{Platform: platformA, Kind: recordProfile, ID: "11348282"})}
		for _, rec := range []*providers.Record{post, user} {
			if _, err := providertest.Action(t, c, Search, providers.ModeLive, nil, "details", rec); err != nil {
				t.Fatal(err)
			}
		}
		reqs := x.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests", len(reqs))
		}
		checkXRequest(t, reqs[0], "/2/tweets/2101934871123456789", url.Values{
			"tweet.fields": {"created_at,public_metrics,author_id,lang,conversation_id,note_tweet,possibly_sensitive,referenced_tweets,reply_settings"},
			"expansions":   {"author_id"},
			"user.fields":  {"username,name,verified,public_metrics,location"},
		})
		checkXRequest(t, reqs[1], "/2/users/11348282", url.Values{
			"user.fields": {"created_at,description,location,name,username,verified,verified_type,public_metrics,profile_image_url,url,protected,pinned_tweet_id"},
		})
	})
}

func checkXRequest(t *testing.T, r *http.Request, path string, query url.Values) {
	t.Helper()
	if r.Method != http.MethodGet || r.URL.Path != path {
		t.Errorf("request = %s %s, want GET %s", r.Method, r.URL.Path, path)
	}
	if got := r.URL.Query(); !reflect.DeepEqual(got, query) {
		t.Errorf("query = %v\nwant    %v", got, query)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testXKey {
		t.Errorf("Authorization = %q", got)
	}
	if ua := r.Header.Get("User-Agent"); ua != "capgate/test (+tests@example.com)" {
		t.Errorf("User-Agent = %q", ua)
	}
}

// TestXPostPaging walks a platform_a search with num 3: X's minimum page is 10, so the first
// page reads 10 posts and keeps 7 in the paging state; `more` serves them without a new read,
// then continues with X's next_token.
func TestXPostPaging(t *testing.T) {
	x := sandboxFake(xID)
	c := client(t, x, providertest.Refuse(t, "Reddit"))
	body := `{"platform":"platform_a","query":"artemis","num":3}`
	var all []string
	var state json.RawMessage
	var pages []*providers.Page
	for i := 0; i < 10; i++ {
		page := mustRun(t, c, body, state)
		pages = append(pages, page)
		for _, r := range page.Records {
			all = append(all, r.URL)
		}
		if !page.HasMore {
			if len(page.Next) != 0 {
				t.Errorf("page %d: next %s without has_more", i+1, page.Next)
			}
			break
		}
		var st xPostState
		if err := json.Unmarshal(page.Next, &st); err != nil {
			t.Fatalf("page %d: next %s: %v", i+1, page.Next, err)
		}
		state = page.Next
	}
	// 10 posts on X's first page plus 4 on its second: 5 pages of 3, 3, 3, 3, 2.
	sizes := []int{}
	for _, p := range pages {
		sizes = append(sizes, len(p.Records))
	}
	if !reflect.DeepEqual(sizes, []int{3, 3, 3, 3, 2}) {
		t.Errorf("page sizes = %v", sizes)
	}
	seen := map[string]bool{}
	for _, u := range all {
		if seen[u] {
			t.Errorf("post %s shown twice", u)
		}
		seen[u] = true
	}
	if len(all) != 14 {
		t.Errorf("%d posts in all, want 14", len(all))
	}
	reqs := x.Requests()
	if len(reqs) != 2 {
		t.Fatalf("X was called %d times, want 2 (the buffer serves the rest): %v", len(reqs), paths(reqs))
	}
	if q := reqs[0].URL.Query(); q.Get("max_results") != "10" || q.Has("next_token") {
		t.Errorf("first read = %v", q)
	}
	if q := reqs[1].URL.Query(); q.Get("max_results") != "10" || q.Get("next_token") != "b26v89c19zqg8o3fpzbmzepuc1fmrhkdhv8ntz7ah3r0d" {
		t.Errorf("second read = %v", q)
	}
	// The first page's state carries X's cursor and the 7 posts not shown yet.
	var st xPostState
	_ = json.Unmarshal(pages[0].Next, &st)
	if st.NextToken == "" || len(st.Buffer) != 7 {
		t.Errorf("first state: token %q, %d buffered", st.NextToken, len(st.Buffer))
	}
}

func TestXProfilePaging(t *testing.T) {
	// A fake users/by that knows every handle it is asked for.
	x := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
		var data []map[string]any
		for i, name := range strings.Split(r.URL.Query().Get("usernames"), ",") {
			data = append(data, map[string]any{"id": fmt.Sprint(1000 + i), "username": strings.ToUpper(name), "name": "User " + name})
		}
		w.Header().Set("Content-Type", jsonType)
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	}}
	c := client(t, x, providertest.Refuse(t, "Reddit"))
	handles := make([]string, 30)
	for i := range handles {
		handles[i] = fmt.Sprintf("user_%02d", i)
	}
	body := `{"platform":"platform_a","kind":"profiles","num":25,"query":"` + strings.Join(handles, " ") + `"}`
	p1 := mustRun(t, c, body, nil)
	if len(p1.Records) != 25 || !p1.HasMore || string(p1.Next) != `{"offset":25}` {
		t.Fatalf("page 1: %d records, has_more %v, next %s", len(p1.Records), p1.HasMore, p1.Next)
	}
	p2 := mustRun(t, c, body, p1.Next)
	if len(p2.Records) != 5 || p2.HasMore || p2.Next != nil {
		t.Fatalf("page 2: %d records, has_more %v, next %s", len(p2.Records), p2.HasMore, p2.Next)
	}
	if p2.Records[0].Data.(*Record).Author != "USER_25" || p2.Records[4].Data.(*Record).Author != "USER_29" {
		t.Errorf("page 2 records: %v .. %v", p2.Records[0].Data, p2.Records[4].Data)
	}
	reqs := x.Requests()
	if len(reqs) != 2 || len(strings.Split(reqs[0].URL.Query().Get("usernames"), ",")) != 25 ||
		reqs[1].URL.Query().Get("usernames") != "user_25,user_26,user_27,user_28,user_29" {
		t.Errorf("requests = %v", paths(reqs))
	}
}

func TestXErrors(t *testing.T) {
	search := `{"platform":"platform_a","query":"artemis((("}`
	profiles := `{"platform":"platform_a","kind":"profiles","query":"NASA"}`
	cases := []struct {
		name      string
		status    int
		file      string
		body      string // used when file is ""
		request   string
		code      providers.Code
		retryable bool
		path      string // violation path of invalid_request
		message   string
	}{
		{"invalid query", 400, "testdata/x_error_invalid_query.json", "", search, providers.CodeInvalidRequest, false, "/query", "Unmatched parenthesis"},
		{"unauthorized", 401, "testdata/x_error_unauthorized.json", "", search, providers.CodeProviderError, false, "", "PROVIDER_X_KEY"},
		// The body of X's 402 (pay-per-use credits depleted) could not be confirmed; the mapping
		// depends on the status only.
		{"credits used up", 402, "", `{"title":"CreditsDepleted","detail":"Your enrolled account does not have any credits to fulfill this request.","type":"https://api.twitter.com/2/problems/credits"}`,
			search, providers.CodeProviderAllowance, false, "", "credits are used up"},
		{"unsupported authentication", 403, "testdata/x_error_unsupported_auth.json", "", profiles, providers.CodeProviderError, false, "", "OAuth 2.0 Application-Only is forbidden"},
		{"client forbidden", 403, "testdata/x_error_client_forbidden.json", "", search, providers.CodeProviderError, false, "", "needs API access"},
		{"rate limited", 429, "testdata/x_error_too_many_requests.json", "", search, providers.CodeRateLimited, true, "", "rate limiting"},
		{"usage capped", 429, "testdata/x_error_usage_capped.json", "", search, providers.CodeProviderAllowance, false, "", "Monthly product cap"},
		{"server error", 503, "", `{"title":"Service Unavailable","detail":"Service Unavailable","type":"about:blank","status":503}`,
			search, providers.CodeProviderError, true, "", "HTTP 503"},
		{"malformed JSON", 200, "", `{"data":[{"id":"1"`, search, providers.CodeProviderError, true, "", "malformed JSON"},
		{"HTML instead of JSON", 200, "", `<html><body>maintenance</body></html>`, search, providers.CodeProviderError, true, "", "malformed JSON"},
		{"errors-only answer", 200, "", `{"errors":[{"title":"Invalid Request","detail":"One or more parameters to your request was invalid.","type":"https://api.twitter.com/2/problems/invalid-request"}]}`,
			search, providers.CodeInvalidRequest, false, "/query", "parameters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var x *upstream
			if tc.file != "" {
				x = providertest.ServeFile(t, tc.status, tc.file, jsonType)
			} else {
				x = providertest.ServeBody(tc.status, tc.body, jsonType)
			}
			_, err := run(t, client(t, x, providertest.Refuse(t, "Reddit")), tc.request, nil)
			checkError(t, err, tc.code, tc.retryable, tc.path, tc.message)
			if tc.code == providers.CodeRateLimited {
				if e, _ := providers.AsError(err); e.RetryAfter != time.Minute {
					t.Errorf("Retry-After = %v", e.RetryAfter)
				}
			}
		})
	}
	t.Run("rate limited with Retry-After", func(t *testing.T) {
		x := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
			_, _ = w.Write([]byte(`{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}`))
		}}
		_, err := run(t, client(t, x, providertest.Refuse(t, "Reddit")), search, nil)
		checkError(t, err, providers.CodeRateLimited, true, "", "rate limiting")
		if e, _ := providers.AsError(err); e.RetryAfter != 7*time.Second {
			t.Errorf("Retry-After = %v", e.RetryAfter)
		}
	})
	t.Run("post lookup not found", func(t *testing.T) {
		c := client(t, providertest.ServeFile(t, 200, "testdata/x_tweet_not_found.json", jsonType), providertest.Refuse(t, "Reddit"))
		rec := &providers.Record{Title: "p", Ref: mustJSON(recordRef{Platform: platformA, Kind: recordPost, ID: "1346889436626259968"})}
		_, err := providertest.Action(t, c, Search, providers.ModeLive, nil, "details", rec)
		checkError(t, err, providers.CodeNotFound, false, "", "Could not find tweet")
	})
	t.Run("user lookup 404", func(t *testing.T) {
		c := client(t, providertest.ServeBody(404, `{"title":"Not Found Error","type":"about:blank","status":404,"detail":"Not Found"}`, jsonType), providertest.Refuse(t, "Reddit"))
		rec := &providers.Record{Title: "u", Ref: mustJSON(recordRef{Platform: platformA, Kind: recordProfile, ID: "1"})}
		_, err := providertest.Action(t, c, Search, providers.ModeLive, nil, "details", rec)
		checkError(t, err, providers.CodeNotFound, false, "", "no such")
	})
}

func checkError(t *testing.T, err error, code providers.Code, retryable bool, path, message string) {
	t.Helper()
	e, ok := providers.AsError(err)
	if !ok {
		t.Fatalf("error = %v, want %s", err, code)
	}
	if e.Code != code || e.IsRetryable() != retryable {
		t.Errorf("error = %s (retryable %v): %s; want %s (retryable %v)", e.Code, e.IsRetryable(), e.Message, code, retryable)
	}
	if path != "" {
		if got := providertest.ViolationPaths(err); !reflect.DeepEqual(got, []string{path}) {
			t.Errorf("violation paths = %v, want [%s]", got, path)
		}
	}
	if !strings.Contains(e.Message, message) {
		t.Errorf("message %q does not mention %q", e.Message, message)
	}
}

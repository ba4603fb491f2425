package social

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// TestRedditMapping maps Reddit listings (testdata: a recorded-shape page with deleted authors,
// link and text posts, a child of another kind, nulls and mistyped fields) to records.
func TestRedditMapping(t *testing.T) {
	cases := []struct {
		name, fixture, body string
	}{
		{"reddit_search_link", "testdata/reddit_search_link.json", `{"platform":"platform_b","query":"rust async runtime"}`},
		{"reddit_search_link_num2", "testdata/reddit_search_link.json", `{"platform":"platform_b","query":"rust async runtime","num":2}`},
		{"reddit_search_user", "testdata/reddit_search_user.json", `{"platform":"platform_b","kind":"profiles","query":"rustacean"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := client(t, providertest.Refuse(t, "X"), providertest.ServeFile(t, 200, tc.fixture, jsonType))
			page := mustRun(t, c, tc.body, nil)
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
		})
	}
}

func TestRedditDetailMapping(t *testing.T) {
	cases := []struct {
		name, fixture string
		ref           recordRef
	}{
		{"reddit_comments_details", "testdata/reddit_comments.json", recordRef{Platform: platformB, Kind: recordPost, ID: "1fh2cq1"}},
		{"reddit_user_suspended_details", "testdata/reddit_user_suspended.json", recordRef{Platform: platformB, Kind: recordProfile, Name: "rustacean_spam99"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := client(t, providertest.Refuse(t, "X"), providertest.ServeFile(t, 200, tc.fixture, jsonType))
			d, err := providertest.Action(t, c, Search, providers.ModeLive, nil, "details", &providers.Record{Title: "r", Ref: mustJSON(tc.ref)})
			if err != nil {
				t.Fatal(err)
			}
			if d.Credits == nil || *d.Credits != 0 {
				t.Errorf("credits = %v, want 0", d.Credits)
			}
			providertest.Golden(t, tc.name, map[string]any{"detail": d.Body, "links": d.Links})
		})
	}
}

// TestRedditRequests asserts the exact path and query of every Reddit call, with the bearer token
// and Reddit's User-Agent form.
func TestRedditRequests(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		state string
		path  string
		query url.Values
	}{
		{"posts", `{"platform":"platform_b","query":"rust async runtime","num":5}`, "",
			"/search", url.Values{"q": {"rust async runtime"}, "type": {"link"}, "limit": {"5"}, "raw_json": {"1"}}},
		{"posts next page", `{"platform":"platform_b","query":"rust async runtime"}`, `{"after":"t3_1fe0zz3"}`,
			"/search", url.Values{"q": {"rust async runtime"}, "type": {"link"}, "limit": {"10"}, "raw_json": {"1"}, "after": {"t3_1fe0zz3"}}},
		{"profiles", `{"platform":"platform_b","kind":"profiles","query":"rustacean","num":3}`, "",
			"/search", url.Values{"q": {"rustacean"}, "type": {"user"}, "limit": {"3"}, "raw_json": {"1"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rd := sandboxFake(redditID)
			c := client(t, providertest.Refuse(t, "X"), rd)
			var st json.RawMessage
			if tc.state != "" {
				st = json.RawMessage(tc.state)
			}
			if _, err := run(t, c, tc.body, st); err != nil {
				t.Fatal(err)
			}
			reqs := rd.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			checkRedditRequest(t, reqs[0], tc.path, tc.query)
		})
	}
	t.Run("details", func(t *testing.T) {
		rd := sandboxFake(redditID)
		c := client(t, providertest.Refuse(t, "X"), rd)
		post := &providers.Record{Title: "p", Ref: mustJSON(recordRef{Platform: platformB, Kind: recordPost, ID: "1fm3k2q"})}
		user := &providers.Record{Title: "u", Ref: mustJSON(recordRef{Platform: platformB, Kind: recordProfile, Name: "rustacean_jo"})}
		for _, rec := range []*providers.Record{post, user} {
			if _, err := providertest.Action(t, c, Search, providers.ModeLive, nil, "details", rec); err != nil {
				t.Fatal(err)
			}
		}
		reqs := rd.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests", len(reqs))
		}
		checkRedditRequest(t, reqs[0], "/comments/1fm3k2q", url.Values{"raw_json": {"1"}, "limit": {"10"}, "depth": {"1"}, "sort": {"top"}})
		checkRedditRequest(t, reqs[1], "/user/rustacean_jo/about", url.Values{"raw_json": {"1"}})
	})
}

func checkRedditRequest(t *testing.T, r *http.Request, path string, query url.Values) {
	t.Helper()
	if r.Method != http.MethodGet || r.URL.Path != path {
		t.Errorf("request = %s %s, want GET %s", r.Method, r.URL.Path, path)
	}
	if got := r.URL.Query(); !reflect.DeepEqual(got, query) {
		t.Errorf("query = %v\nwant    %v", got, query)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testRedditToken {
		t.Errorf("Authorization = %q, want the application-only bearer token", got)
	}
	if ua := r.Header.Get("User-Agent"); ua != testRedditUA {
		t.Errorf("User-Agent = %q, want Reddit's <platform>:<app id>:<version> (by /u/<user>) form", ua)
	}
}

// TestRedditPaging walks a platform_b search: page 1 → Next (Reddit's after) → page 2 (the last).
func TestRedditPaging(t *testing.T) {
	rd := sandboxFake(redditID)
	c := client(t, providertest.Refuse(t, "X"), rd)
	body := `{"platform":"platform_b","query":"rust async runtime"}`
	p1 := mustRun(t, c, body, nil)
	if len(p1.Records) != 6 || !p1.HasMore || string(p1.Next) != `{"after":"t3_1fe0zz3"}` {
		t.Fatalf("page 1: %d records, has_more %v, next %s", len(p1.Records), p1.HasMore, p1.Next)
	}
	p2 := mustRun(t, c, body, p1.Next)
	if len(p2.Records) != 3 || p2.HasMore || p2.Next != nil {
		t.Fatalf("page 2: %d records, has_more %v, next %s", len(p2.Records), p2.HasMore, p2.Next)
	}
	if p2.Records[0].Title == p1.Records[0].Title {
		t.Error("page 2 repeats page 1")
	}
	reqs := rd.Requests()
	if len(reqs) != 2 || reqs[0].URL.Query().Has("after") || reqs[1].URL.Query().Get("after") != "t3_1fe0zz3" {
		t.Errorf("requests = %v", paths(reqs))
	}
}

func TestRedditErrors(t *testing.T) {
	search := `{"platform":"platform_b","query":"rust"}`
	cases := []struct {
		name        string
		status      int
		file        string
		body        string
		contentType string
		code        providers.Code
		retryable   bool
		message     string
	}{
		{"blocked network page", 403, "testdata/reddit_blocked.html", "", "text/html; charset=utf-8", providers.CodeProviderError, false, "datacenter networks"},
		{"blocked page with HTTP 200", 200, "testdata/reddit_blocked.html", "", "text/html; charset=utf-8", providers.CodeProviderError, false, "datacenter networks"},
		{"forbidden JSON on search", 403, "", `{"message":"Forbidden","error":403}`, jsonType, providers.CodeProviderError, false, "datacenter networks"},
		{"rate limited", 429, "testdata/reddit_error_too_many_requests.json", "", jsonType, providers.CodeRateLimited, true, "rate limiting"},
		{"server error", 500, "", `<html><body><h1>500 Internal Server Error</h1></body></html>`, "text/html", providers.CodeProviderError, true, "HTTP 500"},
		{"malformed JSON", 200, "", `{"kind":"Listing","data":{"children":[`, jsonType, providers.CodeProviderError, true, "malformed JSON"},
		{"no listing", 200, "", `{"kind":"Listing"}`, jsonType, providers.CodeProviderError, true, "without a listing"},
		{"bad request", 400, "", `{"message":"Bad Request","error":400}`, jsonType, providers.CodeInvalidRequest, false, "Reddit refused the query"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var rd *upstream
			if tc.file != "" {
				rd = providertest.ServeFile(t, tc.status, tc.file, tc.contentType)
			} else {
				rd = providertest.ServeBody(tc.status, tc.body, tc.contentType)
			}
			_, err := run(t, client(t, providertest.Refuse(t, "X"), rd), search, nil)
			checkError(t, err, tc.code, tc.retryable, "", tc.message)
			if tc.code == providers.CodeRateLimited {
				if e, _ := providers.AsError(err); e.RetryAfter != time.Minute {
					t.Errorf("Retry-After = %v", e.RetryAfter)
				}
			}
		})
	}
	lookups := []struct {
		name    string
		status  int
		file    string
		ref     recordRef
		code    providers.Code
		message string
	}{
		{"unknown user", 404, "testdata/reddit_error_not_found.json", recordRef{Platform: platformB, Kind: recordProfile, Name: "nobody_here_123"}, providers.CodeNotFound, "no such account"},
		{"post in a private community", 403, "testdata/reddit_error_private.json", recordRef{Platform: platformB, Kind: recordPost, ID: "1fm3k2q"}, providers.CodeNotFound, "(private)"},
		{"blocked on lookup", 403, "testdata/reddit_blocked.html", recordRef{Platform: platformB, Kind: recordPost, ID: "1fm3k2q"}, providers.CodeProviderError, "datacenter networks"},
		{"empty comments answer", 200, "", recordRef{Platform: platformB, Kind: recordPost, ID: "1fm3k2q"}, providers.CodeNotFound, "no such post"},
	}
	for _, tc := range lookups {
		t.Run(tc.name, func(t *testing.T) {
			var rd *upstream
			if tc.file != "" {
				rd = providertest.ServeFile(t, tc.status, tc.file, jsonType)
			} else {
				rd = providertest.ServeBody(tc.status, `[]`, jsonType)
			}
			c := client(t, providertest.Refuse(t, "X"), rd)
			_, err := providertest.Action(t, c, Search, providers.ModeLive, nil, "details", &providers.Record{Title: "r", Ref: mustJSON(tc.ref)})
			checkError(t, err, tc.code, tc.code != providers.CodeNotFound && tc.code != providers.CodeProviderError, "", tc.message)
		})
	}
}

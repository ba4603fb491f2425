package pageread

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// TestReaderRequest asserts exactly what the adapter sends the reader.
func TestReaderRequest(t *testing.T) {
	for _, key := range []string{"", "jina_key_123"} {
		t.Run("key="+key, func(t *testing.T) {
			site := okSite()
			in := newInternet(t, site, map[string]string{"www.example.org": "93.184.216.34"})
			withGuard(t, in.guard)
			rd := echoReader(t, "")
			c := readerClient(t, rd, key)
			page, err := execLive(t, c, `{"url":"https://www.example.org/a%20b/c%2Fd?q=1&r=two#section"}`)
			if err != nil {
				t.Fatal(err)
			}
			reqs := rd.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d reader requests", len(reqs))
			}
			r := reqs[0]
			if r.Method != http.MethodGet {
				t.Errorf("method = %s", r.Method)
			}
			if got, want := r.URL.EscapedPath(), "/https://www.example.org/a%20b/c%2Fd"; got != want {
				t.Errorf("path = %q, want %q", got, want)
			}
			if r.URL.RawQuery != "q=1&r=two" {
				t.Errorf("query = %q (the page's own query goes along, the fragment does not)", r.URL.RawQuery)
			}
			if got := r.Header.Get("Accept"); got != "application/json" {
				t.Errorf("Accept = %q", got)
			}
			if got := r.Header.Get("X-Return-Format") + r.Header.Get("X-Respond-With"); got != "" {
				t.Errorf("return format %q sent; the reader's default (main content as Markdown) is wanted", got)
			}
			if n, err := strconv.Atoi(r.Header.Get("X-Timeout")); err != nil || n < 1 || n > 10 {
				t.Errorf("X-Timeout = %q, want 1..10 seconds", r.Header.Get("X-Timeout"))
			}
			wantAuth := ""
			if key != "" {
				wantAuth = "Bearer " + key
			}
			if got := r.Header.Get("Authorization"); got != wantAuth {
				t.Errorf("Authorization = %q, want %q", got, wantAuth)
			}
			// The pre-flight went to the page itself first, with HEAD, and never sent the key.
			sreqs := site.Requests()
			if len(sreqs) != 1 || sreqs[0].Method != http.MethodHead || sreqs[0].URL.RequestURI() != "/a%20b/c%2Fd?q=1&r=two" {
				t.Fatalf("pre-flight requests = %v", sreqs)
			}
			if sreqs[0].Header.Get("Authorization") != "" || sreqs[0].Header.Get("User-Agent") != preflightUA {
				t.Errorf("pre-flight headers = %v", sreqs[0].Header)
			}
			if got := in.dials(); !reflect.DeepEqual(got, []string{"93.184.216.34:443"}) {
				t.Errorf("dialled %v", got)
			}
			rec := page.Records[0]
			if rec.URL != "https://www.example.org/a%20b/c%2Fd?q=1&r=two" || rec.Title != "Echo" {
				t.Errorf("record = %+v", rec)
			}
		})
	}
}

func TestMappingGolden(t *testing.T) {
	cases := []struct {
		name, file, ctype, url string
		maxChars               int
	}{
		{"reader_page", "reader_page.json", "application/json; charset=utf-8", "https://www.example.org/cafe/history", 50000},
		{"reader_page_truncated", "reader_page.json", "application/json; charset=utf-8", "https://www.example.org/cafe/history", 1000},
		{"reader_untitled", "reader_untitled.json", "application/json", "https://www.example.org/blank", 50000},
		{"reader_oddtypes", "reader_oddtypes.json", "application/json", "https://www.example.org/odd", 50000},
		{"reader_text", "reader_page.txt", "text/plain; charset=utf-8", "https://en.wikipedia.org/wiki/Hollow_Knight", 50000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := newInternet(t, okSite(), map[string]string{"www.example.org": "93.184.216.34", "en.wikipedia.org": "208.80.154.224"})
			withGuard(t, in.guard)
			c := readerClient(t, serveFile(t, http.StatusOK, "testdata/"+tc.file, tc.ctype), "")
			body, _ := json.Marshal(map[string]any{"url": tc.url, "max_chars": tc.maxChars})
			page, err := execLive(t, c, string(body))
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) != 1 || page.HasMore || page.Next != nil {
				t.Fatalf("page = %+v", page)
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
		})
	}
}

func TestTruncation(t *testing.T) {
	cases := []struct {
		in    string
		max   int
		want  string
		trunc bool
	}{
		{"abcdef", 3, "abc", true},
		{"abc", 3, "abc", false},
		{"abc", 4, "abc", false},
		{"héllo", 2, "hé", true},
		{"日本語のページ", 3, "日本語", true},
		{"a🍰b", 2, "a🍰", true},
		{"a🍰b", 1, "a", true},
		{"", 5, "", false},
	}
	for _, tc := range cases {
		got, trunc := providers.Truncate(tc.in, tc.max)
		if got != tc.want || trunc != tc.trunc || !utf8.ValidString(got) {
			t.Errorf("cut(%q, %d) = %q, %v; want %q, %v", tc.in, tc.max, got, trunc, tc.want, tc.trunc)
		}
	}
	t.Run("record", func(t *testing.T) {
		in := newInternet(t, okSite(), map[string]string{"www.example.org": "93.184.216.34"})
		withGuard(t, in.guard)
		long := strings.Repeat("é🍰", 900) // 1,800 characters, 5,400 bytes
		c := readerClient(t, serveBody(t, 200, `{"code":200,"status":20000,"data":{"title":"T","url":"https://www.example.org/","content":"`+long+`"}}`, "application/json"), "")
		page, err := execLive(t, c, `{"url":"https://www.example.org/","max_chars":1001}`)
		if err != nil {
			t.Fatal(err)
		}
		data := page.Records[0].Data.(*PageRecord)
		md := data.Markdown
		if utf8.RuneCountInString(md) != 1001 || !strings.HasSuffix(md, "é") || !data.Truncated {
			t.Errorf("markdown has %d characters, truncated %v", utf8.RuneCountInString(md), data.Truncated)
		}
	})
}

func TestReaderErrors(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		file      string
		body      string
		ctype     string
		header    map[string]string
		code      providers.Code
		retryable *bool
		paths     []string
		msg       string
		retry     time.Duration
	}{
		{name: "400 URL refused", status: 400, file: "error_400_param.json", code: providers.CodeInvalidRequest, paths: []string{"/url"}, msg: "could not be resolved"},
		{name: "401 bad key", status: 401, file: "error_401.json", code: providers.CodeProviderError, retryable: no, msg: "API key"},
		{name: "402 balance", status: 402, file: "error_402.json", code: providers.CodeProviderAllowance, retryable: no, msg: "balance"},
		{name: "422 navigation timeout", status: 422, file: "error_422_timeout.json", code: providers.CodeProviderError, retryable: yes, msg: "Navigation timeout"},
		{name: "422 no content", status: 422, file: "error_422_nocontent.json", code: providers.CodeProviderError, retryable: no, msg: "No content available"},
		{name: "429 with Retry-After", status: 429, file: "error_429.json", header: map[string]string{"Retry-After": "3"}, code: providers.CodeRateLimited, retryable: yes, retry: 3 * time.Second},
		{name: "429 with retryAfter in the body only", status: 429, file: "error_429.json", code: providers.CodeRateLimited, retryable: yes, retry: 7 * time.Second},
		{name: "429 long wait", status: 429, file: "error_429.json", header: map[string]string{"Retry-After": "3600"}, code: providers.CodeProviderAllowance, retryable: no},
		{name: "451 blocked domain", status: 451, file: "error_451.json", code: providers.CodeProviderError, retryable: no, msg: "blocked until"},
		{name: "503 crashed", status: 503, file: "error_503.json", code: providers.CodeProviderError, retryable: yes, msg: "overloaded"},
		{name: "502 HTML from a proxy", status: 502, body: "<html>Bad gateway</html>", ctype: "text/html", code: providers.CodeProviderError, retryable: yes},
		{name: "200 malformed JSON", status: 200, body: `{"code":200,"data":{"title":`, code: providers.CodeProviderError},
		{name: "200 without data", status: 200, file: "reader_null_data.json", code: providers.CodeProviderError, msg: "without a page"},
		{name: "200 JSON array", status: 200, body: `[]`, ctype: "application/json", code: providers.CodeProviderError},
		{name: "200 with an error code inside", status: 200, file: "error_422_nocontent.json", code: providers.CodeProviderError, retryable: no, msg: "No content available"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := newInternet(t, okSite(), map[string]string{"www.example.org": "93.184.216.34"})
			withGuard(t, in.guard)
			ctype := tc.ctype
			if ctype == "" {
				ctype = "application/json; charset=utf-8"
			}
			body := tc.body
			if tc.file != "" {
				body = string(providertest.Fixture(t, tc.file))
			}
			rd := &reader{TB: t, UserAgent: wantUA, Answer: func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", ctype)
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(body))
			}}
			_, err := execLive(t, readerClient(t, rd, ""), `{"url":"https://www.example.org/page"}`)
			e := wantError(t, err, tc.code, tc.retryable, tc.paths...)
			if tc.msg != "" && !strings.Contains(e.Message, tc.msg) {
				t.Errorf("message %q does not contain %q", e.Message, tc.msg)
			}
			if tc.retry != 0 && e.RetryAfter != tc.retry {
				t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tc.retry)
			}
		})
	}
}

// TestReportedURLChecked: the reader fetches the page itself, so the final URL it reports is
// checked like the caller's; a non-public one is a provider_error and nothing is returned.
func TestReportedURLChecked(t *testing.T) {
	cases := []struct {
		name, report string
		code         providers.Code
		wantURL      string
	}{
		{"private literal", "http://10.0.0.1/admin", providers.CodeProviderError, ""},
		{"metadata", "http://169.254.169.254/latest/meta-data/iam/", providers.CodeProviderError, ""},
		{"IPv6 loopback", "http://[::1]:8080/", providers.CodeProviderError, ""},
		{"localhost", "http://localhost/", providers.CodeProviderError, ""},
		{"name resolving to a private address", "https://intranet.example.org/", providers.CodeProviderError, ""},
		{"name that does not resolve", "https://gone.example.net/", providers.CodeProviderError, ""},
		{"not http", "file:///etc/passwd", providers.CodeProviderError, ""},
		{"another public host", "https://www.example.net/moved", "", "https://www.example.net/moved"},
		{"same URL", "https://www.example.org/page", "", "https://www.example.org/page"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := newInternet(t, okSite(), map[string]string{
				"www.example.org": "93.184.216.34", "www.example.net": "93.184.216.35", "intranet.example.org": "10.20.30.40"})
			withGuard(t, in.guard)
			page, err := execLive(t, readerClient(t, echoReader(t, tc.report), ""), `{"url":"https://www.example.org/page"}`)
			if tc.code != "" {
				wantError(t, err, tc.code, no)
				if page != nil {
					t.Errorf("a page was returned: %+v", page)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if page.Records[0].URL != tc.wantURL {
				t.Errorf("url = %q, want %q", page.Records[0].URL, tc.wantURL)
			}
		})
	}
}

func TestRead(t *testing.T) {
	withGuard(t, noNetwork(t))
	client := providertest.Client(t, Providers(), nil, nil)
	call := providers.NewCall(readCap, providers.Request{}, nil, providers.ModeTest, "tnt_test", client)
	cases := []struct {
		max       int
		wantChars int
		truncated bool
	}{
		{0, 7398, false},         // default 50,000
		{10, 1000, true},         // clamped up to 1,000
		{5000, 5000, true},       // as asked
		{1_000_000, 7398, false}, // clamped down to 200,000
	}
	for _, tc := range cases {
		d, err := Read(context.Background(), call, "https://en.wikipedia.org/wiki/Web_scraping", tc.max)
		if err != nil {
			t.Fatal(err)
		}
		b := d.Body.(*ReadDetail)
		md := b.Markdown
		if utf8.RuneCountInString(md) != tc.wantChars || b.Truncated != tc.truncated {
			t.Errorf("max %d: %d characters, truncated %v", tc.max, utf8.RuneCountInString(md), b.Truncated)
		}
		if b.Title != "Web scraping" || b.URL != "https://en.wikipedia.org/wiki/Web_scraping" || b.FetchedAt != "2025-05-05T10:00:00Z" {
			t.Errorf("detail = %v", b)
		}
		var keys map[string]any
		if raw, _ := json.Marshal(b); json.Unmarshal(raw, &keys) != nil || len(keys) != 5 {
			t.Errorf("detail keys = %v", keys)
		}
		if !reflect.DeepEqual(d.Links, []providers.Link{{Label: "page", URL: "https://en.wikipedia.org/wiki/Web_scraping"}}) {
			t.Errorf("links = %v", d.Links)
		}
		if d.Credits != nil {
			t.Errorf("credits = %v, want the action's", *d.Credits)
		}
	}
	t.Run("invalid URL", func(t *testing.T) {
		_, err := Read(context.Background(), call, "not a url", 0)
		wantError(t, err, providers.CodeInvalidRequest, nil, "/url")
	})
}

func TestTimeBudgets(t *testing.T) {
	ctx := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(context.Background(), d)
		t.Cleanup(cancel)
		return c
	}
	if got := readerTimeout(context.Background()); got != 10 {
		t.Errorf("no deadline: %d", got)
	}
	if got := readerTimeout(ctx(15 * time.Second)); got != 10 {
		t.Errorf("15 s: %d", got)
	}
	if got := readerTimeout(ctx(6500 * time.Millisecond)); got != 3 {
		t.Errorf("6.5 s: %d", got)
	}
	if got := readerTimeout(ctx(time.Second)); got != 1 {
		t.Errorf("1 s: %d", got)
	}
	if got := preflightBudget(ctx(15 * time.Second)); got != 4*time.Second {
		t.Errorf("pre-flight of 15 s: %v", got)
	}
	if got := preflightBudget(ctx(3 * time.Second)); got > time.Second || got < 900*time.Millisecond {
		t.Errorf("pre-flight of 3 s: %v", got)
	}
}

func TestTextAnswer(t *testing.T) {
	p := parseTextPage(string(providertest.Fixture(t, "reader_page.txt")))
	if p.Title != "Hollow Knight" || p.URL != "https://en.wikipedia.org/wiki/Hollow_Knight" || len(p.Warnings) != 1 {
		t.Errorf("parsed = %+v", p)
	}
	if !strings.HasPrefix(p.Content, "| Hollow Knight |") {
		t.Errorf("content = %q", p.Content)
	}
	raw := parseTextPage("# Just markdown\n\nNo header.")
	if raw.Title != "" || raw.Content != "# Just markdown\n\nNo header." {
		t.Errorf("headerless = %+v", raw)
	}
}

// TestSandboxPagesLive reads the sandbox's recorded pages in live mode, through the guard and the
// pre-flight, with the sandbox answering as the reader (web.read's examples are these pages).
func TestSandboxPagesLive(t *testing.T) {
	for _, tc := range []struct {
		url      string
		maxChars int
	}{
		{"https://example.com/", 0},
		{"https://en.wikipedia.org/wiki/Web_scraping", 2000},
		{"https://en.wikipedia.org/wiki/Markdown", 20000},
	} {
		t.Run(tc.url, func(t *testing.T) {
			in := newInternet(t, okSite(), map[string]string{"example.com": "93.184.215.14", "en.wikipedia.org": "208.80.154.224"})
			withGuard(t, in.guard)
			rd := &reader{TB: t, UserAgent: wantUA, Answer: Providers()[0].Sandbox.ServeHTTP}
			body := map[string]any{"url": tc.url}
			wantMax := DefaultMaxChars
			if tc.maxChars > 0 {
				body["max_chars"], wantMax = tc.maxChars, tc.maxChars
			}
			b, _ := json.Marshal(body)
			page, err := execLive(t, readerClient(t, rd, ""), string(b))
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) != 1 || page.HasMore {
				t.Fatalf("page = %+v", page)
			}
			rec := page.Records[0]
			data := rec.Data.(*PageRecord)
			if rec.Title == "" || rec.URL != tc.url || data.Source != "reader" || data.FetchedAt != "2025-05-05T10:00:00Z" {
				t.Errorf("record = %+v", rec)
			}
			md := data.Markdown
			n := utf8.RuneCountInString(md)
			if md == "" || n > wantMax || data.Truncated != (n == wantMax) {
				t.Errorf("markdown %d characters (max %d), truncated %v", n, wantMax, data.Truncated)
			}
			if reqs := rd.Requests(); len(reqs) != 1 || targetOf(reqs[0]) != tc.url {
				t.Errorf("reader requests = %v", reqs)
			}
		})
	}
}

// TestSandboxChecks: test mode touches no network, yet the literal checks and the address
// checks of the sandbox's own host map still apply.
func TestSandboxChecks(t *testing.T) {
	withGuard(t, noNetwork(t))
	client := providertest.Client(t, Providers(), nil, nil)
	t.Run("literal checks still apply", func(t *testing.T) {
		for _, u := range []string{"http://127.0.0.1/", "http://169.254.169.254/", "http://[::1]/", "http://localhost/", "http://１２７。１/"} {
			call := providers.NewCall(readCap, providers.Request{}, nil, providers.ModeTest, "tnt_test", client)
			_, err := Read(context.Background(), call, u, 0)
			wantError(t, err, providers.CodeInvalidRequest, nil, "/url")
		}
	})
	t.Run("sandbox resolver checks addresses", func(t *testing.T) {
		sandboxHosts["evil.example.com"] = sandboxHosts["example.com"][:1:1]
		sandboxHosts["evil.example.com"] = append(sandboxHosts["evil.example.com"], mustAddr("127.0.0.1"))
		t.Cleanup(func() { delete(sandboxHosts, "evil.example.com") })
		_, err := providertest.Execute(t, client, readCap, providers.ModeTest, `{"url":"https://evil.example.com/"}`)
		wantError(t, err, providers.CodeInvalidRequest, nil, "/url")
	})
}

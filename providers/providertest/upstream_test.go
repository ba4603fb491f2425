package providertest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// spyTB records what the Upstream reports instead of failing the test.
type spyTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (s *spyTB) Errorf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

func TestUpstream(t *testing.T) {
	type call struct{ method, path, ua, body string }
	cases := []struct {
		name     string
		want     string // Upstream.UserAgent
		calls    []call
		wantErrs int
	}{
		{"records every request in order", "", []call{{"GET", "/a?q=1", "x", ""}, {"POST", "/b", "y", "grant=1"}}, 0},
		{"the right User-Agent passes", UserAgent, []call{{"GET", "/a", UserAgent, ""}, {"GET", "/b", UserAgent, ""}}, 0},
		{"a wrong User-Agent is reported", UserAgent, []call{{"GET", "/a", "curl/8", ""}, {"GET", "/b", UserAgent, ""}, {"GET", "/c", "", ""}}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spy := &spyTB{TB: t}
			var seen []string // the bodies Answer read
			u := &Upstream{TB: spy, UserAgent: tc.want, Answer: func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				seen = append(seen, string(b))
				w.WriteHeader(http.StatusAccepted)
			}}
			srv := httptest.NewServer(u)
			defer srv.Close()
			for _, c := range tc.calls {
				req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("User-Agent", c.ua)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					t.Errorf("%s: status %d, want the answer's 202", c.path, resp.StatusCode)
				}
			}
			got := u.Requests()
			if len(got) != len(tc.calls) {
				t.Fatalf("%d requests recorded, want %d", len(got), len(tc.calls))
			}
			for i, c := range tc.calls {
				r := got[i]
				if r.Method != c.method || r.URL.RequestURI() != c.path || r.Header.Get("User-Agent") != c.ua {
					t.Errorf("request %d = %s %s UA %q, want %s %s UA %q", i, r.Method, r.URL.RequestURI(), r.Header.Get("User-Agent"), c.method, c.path, c.ua)
				}
				for _, again := range [][]*http.Request{got, u.Requests()} { // every call reads the body afresh
					if r := again[i]; r.Body != nil {
						b, _ := io.ReadAll(r.Body)
						if string(b) != c.body {
							t.Errorf("request %d: recorded body %q, want %q", i, b, c.body)
						}
					} else if c.body != "" {
						t.Errorf("request %d: no recorded body, want %q", i, c.body)
					}
				}
				if seen[i] != c.body {
					t.Errorf("request %d: Answer read body %q, want %q", i, seen[i], c.body)
				}
			}
			if len(spy.errs) != tc.wantErrs {
				t.Errorf("%d errors reported %q, want %d", len(spy.errs), spy.errs, tc.wantErrs)
			}
		})
	}
}

func TestServeBodyAndRefuse(t *testing.T) {
	cases := []struct {
		name       string
		up         func(tb *spyTB) *Upstream
		wantStatus int
		wantType   string
		wantBody   string
		wantErrs   int
	}{
		{"ServeBody", func(*spyTB) *Upstream { return ServeBody(http.StatusTeapot, `{"a":1}`, "application/json") }, http.StatusTeapot, "application/json", `{"a":1}`, 0},
		{"ServeFile", func(tb *spyTB) *Upstream { return ServeFile(tb, http.StatusOK, "upstream_test.go", "text/plain") }, http.StatusOK, "text/plain", "package providertest", 0},
		{"ServeBody without a type", func(*spyTB) *Upstream { return ServeBody(http.StatusOK, `[]`) }, http.StatusOK, JSONType, `[]`, 0},
		{"Refuse", func(tb *spyTB) *Upstream { return Refuse(tb, "X") }, http.StatusTeapot, "", "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spy := &spyTB{TB: t}
			u := tc.up(spy)
			srv := httptest.NewServer(u)
			defer srv.Close()
			resp, err := http.Get(srv.URL + "/p")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || (tc.wantType != "" && resp.Header.Get("Content-Type") != tc.wantType) || !strings.HasPrefix(string(b), tc.wantBody) {
				t.Errorf("answer %d %q %.40q, want %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), b, tc.wantStatus, tc.wantType, tc.wantBody)
			}
			if n := len(u.Requests()); n != 1 {
				t.Errorf("%d requests recorded, want 1", n)
			}
			if len(spy.errs) != tc.wantErrs {
				t.Errorf("errors %q, want %d", spy.errs, tc.wantErrs)
			}
		})
	}
}

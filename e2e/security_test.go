package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// proxyLikeNginx is a reverse proxy on loopback that does what deploy/nginx.conf does with the
// client address: it overwrites X-Forwarded-For with the address the connection came from.
func proxyLikeNginx(t *testing.T, backend string) *httptest.Server {
	t.Helper()
	target, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host
		host, _, _ := net.SplitHostPort(r.In.RemoteAddr)
		r.Out.Header.Set("X-Forwarded-For", host) // proxy_set_header X-Forwarded-For $remote_addr
	}}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv
}

// clientFrom is an HTTP client whose connections leave from a given loopback address, so one
// machine plays several clients; it follows no redirects.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{
		Timeout:       30 * time.Second,
		Transport:     &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// signIn loads the sign-in form (for its CSRF cookie) and posts email and password; it returns
// the status of the post. header is added to both requests.
func signIn(t *testing.T, c *http.Client, base, email, password string, header map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/console/login", nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	var token string
	for _, ck := range res.Cookies() {
		if ck.Name == "capgate_login" {
			token = ck.Value
		}
	}
	if token == "" {
		t.Fatalf("GET /console/login: %d, no capgate_login cookie", res.StatusCode)
	}
	form := url.Values{"email": {email}, "password": {password}, "_csrf": {token}}
	req, _ = http.NewRequest(http.MethodPost, base+"/console/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: "capgate_login", Value: token})
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// failUntilLimited signs in with wrong passwords for fresh emails until the address limit answers
// 429; it fails the test when no limit comes within 40 tries.
func failUntilLimited(t *testing.T, c *http.Client, base string, header map[string]string) {
	t.Helper()
	for i := 0; i < 40; i++ {
		st := signIn(t, c, base, fmt.Sprintf("nobody%d-%d@example.test", i, time.Now().UnixNano()), "wrong password!!", header)
		if st == http.StatusTooManyRequests {
			return
		}
		if st != http.StatusUnauthorized {
			t.Fatalf("bad sign-in %d: status %d, want 401 or 429", i, st)
		}
	}
	t.Fatal("40 bad sign-ins from one client were never limited")
}

// TestBehindReverseProxy: with GATEWAY_TRUSTED_PROXIES naming the proxy, each client behind it
// has its own sign-in address limit (before, every client was the proxy's address and five bad
// sign-ins locked everyone out), and an X-Forwarded-For sent by a client (to the proxy or
// straight to the gateway) names nobody.
func TestBehindReverseProxy(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		d := newDeployment(t, backend)
		in := d.serve(t, "GATEWAY_TRUSTED_PROXIES=127.0.0.1/32")
		m := firstStartLines["password"].FindStringSubmatch(in.stdout.String())
		if m == nil {
			t.Fatalf("no admin password on the first start:\n%s", in.stdout.String())
		}
		admin, password := "admin@capgate.local", m[1]
		proxy := proxyLikeNginx(t, in.Base)

		cases := []struct {
			name     string
			attacker string            // the client that guesses
			base     func() string     // where it sends its guesses
			header   map[string]string // what it adds
			victim   string            // a client that must still sign in through the proxy
		}{
			{"one client behind the proxy", "127.0.0.2", func() string { return proxy.URL }, nil, "127.0.0.3"},
			{"a client spoofing X-Forwarded-For to the proxy", "127.0.0.4", func() string { return proxy.URL }, map[string]string{"X-Forwarded-For": "127.0.0.5"}, "127.0.0.5"},
			{"a client spoofing X-Forwarded-For to the gateway", "127.0.0.6", func() string { return in.Base }, map[string]string{"X-Forwarded-For": "127.0.0.7"}, "127.0.0.7"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				failUntilLimited(t, clientFrom(tc.attacker), tc.base(), tc.header)
				if st := signIn(t, clientFrom(tc.attacker), tc.base(), admin, password, tc.header); st != http.StatusTooManyRequests {
					t.Errorf("the limited client signed in: %d", st)
				}
				if st := signIn(t, clientFrom(tc.victim), proxy.URL, admin, password, nil); st != http.StatusSeeOther {
					t.Fatalf("another client behind the proxy: status %d, want 303 (signed in)", st)
				}
			})
		}
	})
}

// TestShippedProxyConfig: deploy/nginx.conf overwrites X-Forwarded-For with the connection's
// address (what proxyLikeNginx imitates and what fiber's first-address rule needs), and
// compose.yaml trusts exactly the proxy.
func TestShippedProxyConfig(t *testing.T) {
	nginx, err := os.ReadFile(filepath.Join("..", "deploy", "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	xff := regexp.MustCompile(`(?m)^\s*proxy_set_header\s+X-Forwarded-For\s+(\S+);`).FindAllStringSubmatch(string(nginx), -1)
	if len(xff) != 1 || xff[0][1] != "$remote_addr" {
		t.Fatalf("deploy/nginx.conf sets X-Forwarded-For %v, want exactly once to $remote_addr", xff)
	}
	compose, err := os.ReadFile(filepath.Join("..", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	lb := regexp.MustCompile(`ipv4_address:\s*(\S+)`).FindStringSubmatch(string(compose))
	trusted := regexp.MustCompile(`GATEWAY_TRUSTED_PROXIES:\s*(\S+)`).FindStringSubmatch(string(compose))
	if lb == nil || trusted == nil || trusted[1] != lb[1]+"/32" {
		t.Fatalf("compose.yaml: lb address %v, GATEWAY_TRUSTED_PROXIES %v; want the gateways to trust exactly the lb", lb, trusted)
	}
}

// TestBinaryHardening: the real binary keeps its SQLite files owner-only in a data dir that
// already exists, routes strictly (the console included), guards /metrics with METRICS_TOKEN and
// answers ambiguous framing with 400.
func TestBinaryHardening(t *testing.T) {
	d := newDeployment(t, "sqlite")
	if err := os.Chmod(d.DataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	in := d.serve(t, "METRICS_TOKEN=e2e-metrics-token")

	t.Run("SQLite files 0600", func(t *testing.T) {
		in.get(t, "/readyz", "").mustOK(t, "readyz")
		for _, name := range []string{"gateway.db", "gateway.db-wal", "gateway.db-shm", "master.key"} {
			fi, err := os.Stat(filepath.Join(d.DataDir, name))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if perm := fi.Mode().Perm(); perm != 0o600 {
				t.Errorf("%s is %o, want 600", name, perm)
			}
		}
	})

	t.Run("routes", func(t *testing.T) {
		noRedirect := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		cases := []struct {
			path, auth string
			want       int
		}{
			{"/metrics", "", 401},
			{"/metrics", "Bearer e2e-metrics-token", 200},
			{"/METRICS", "Bearer e2e-metrics-token", 404},
			{"/metrics/", "Bearer e2e-metrics-token", 404},
			{"/healthz", "", 200},
			{"/Healthz", "", 404},
			{"/v1/openapi.json", "", 200},
			{"/v1/OPENAPI.json", "", 404},
			{"/console/login", "", 200},
			{"/console/", "", 303},
			{"/console/static/console.css", "", 200},
			{"/console/static/console.js", "", 200},
			{"/CONSOLE/login", "", 404},
		}
		for _, tc := range cases {
			req, _ := http.NewRequest(http.MethodGet, in.Base+tc.path, nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			res, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("GET %s: %d, want %d", tc.path, res.StatusCode, tc.want)
			}
			if res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("GET %s: no X-Content-Type-Options: nosniff", tc.path)
			}
		}
	})

	t.Run("framing", func(t *testing.T) {
		conn, err := net.Dial("tcp", strings.TrimPrefix(in.Base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		smuggled := "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
		fmt.Fprintf(conn, "POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: %d\r\n\r\n{}%s", 2+len(smuggled), smuggled)
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		all, _ := io.ReadAll(conn) // the server closes the connection after its one answer
		if n := strings.Count(string(all), "HTTP/1.1 "); n != 1 || !strings.HasPrefix(string(all), "HTTP/1.1 400") {
			t.Fatalf("%d answers, want one 400:\n%s", n, all)
		}
	})
}

// TestPlanCLIRefusesAbsurdValues: `admin plan create` and `plan update` refuse what the issue
// found accepted (NaN, huge rate, typical<=abc), exit 2 and write nothing; plan list keeps working.
func TestPlanCLIRefusesAbsurdValues(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		d := newDeployment(t, backend)
		cases := []struct {
			name string
			args []string
			says string
		}{
			{"NaN multiplier", []string{"--multiplier", "NaN"}, "multiplier"},
			{"Inf multiplier", []string{"--multiplier", "+Inf"}, "multiplier"},
			{"max int64 rate", []string{"--rate", "9223372036854775807"}, "rate"},
			{"typical<=abc", []string{"--capabilities", "typical<=abc"}, "capabilities"},
			{"absurd cap", []string{"--cap", "9223372036854775807"}, "cap"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				for _, verb := range []string{"create", "update"} {
					name := "absurd"
					if verb == "update" {
						name = "pro"
					}
					res := d.run(t, append([]string{"admin", "plan", verb, "--name", name}, tc.args...)...)
					if res.Code != 2 || !strings.Contains(res.Stderr, tc.says) || res.Stdout != "" {
						t.Fatalf("plan %s %v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", verb, tc.args, res.Code, res.Stdout, res.Stderr, tc.says)
					}
				}
			})
		}
		plans := d.admin(t, "plan", "list")
		list, _ := plans["plans"].([]any)
		for _, p := range list {
			pm, _ := p.(map[string]any)
			if pm["name"] == "absurd" {
				t.Fatalf("a refused plan was written: %v", pm)
			}
			if pm["name"] == "pro" && (pm["rate_per_minute"] != float64(600) || pm["credit_multiplier"] != float64(1)) {
				t.Fatalf("a refused update changed pro: %v", pm)
			}
		}
	})
}

// consoleSession signs in through the real sign-in form and returns the session cookie and the
// CSRF token of the signed-in forms.
func consoleSession(t *testing.T, base, email, password string) (*http.Cookie, string) {
	t.Helper()
	c := clientFrom("127.0.0.1")
	res, err := c.Get(base + "/console/login")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var login *http.Cookie
	for _, ck := range res.Cookies() {
		if ck.Name == "capgate_login" {
			login = ck
		}
	}
	if login == nil {
		t.Fatal("no capgate_login cookie")
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/console/login", strings.NewReader(url.Values{"email": {email}, "password": {password}, "_csrf": {login.Value}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(login)
	res, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var session *http.Cookie
	for _, ck := range res.Cookies() {
		if ck.Name == "capgate_console" && ck.Value != "" {
			session = ck
		}
	}
	if session == nil {
		t.Fatalf("sign-in: %d, no session cookie", res.StatusCode)
	}
	page := consoleGet(t, base, session, "/console/")
	m := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no CSRF token on the console home")
	}
	return session, m[1]
}

// consoleGet loads a console page, following redirects, and returns its HTML (status 200 required).
func consoleGet(t *testing.T, base string, session *http.Cookie, path string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	req.AddCookie(session)
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d\n%s", path, res.StatusCode, b)
	}
	return string(b)
}

// TestConsoleRefusesUnstorableInput: through the real console, a NUL byte in a key label or a
// tenant name and absurd plan values are refused by the store's validation (no 500, no database
// error in the page, nothing written), and the tenant search for %00 answers.
func TestConsoleRefusesUnstorableInput(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		d := newDeployment(t, backend)
		in := d.serve(t)
		m := firstStartLines["password"].FindStringSubmatch(in.stdout.String())
		if m == nil {
			t.Fatal("no admin password on the first start")
		}
		session, csrf := consoleSession(t, in.Base, "admin@capgate.local", m[1])
		for _, q := range []string{"%00", "a%00b", "%FF", "%C3%28"} {
			consoleGet(t, in.Base, session, "/console/admin/tenants?q="+q)
		}
		plan := func(name, mult, rate, caps string) url.Values {
			return url.Values{"name": {name}, "cap": {"1000"}, "rate": {rate}, "multiplier": {mult}, "capabilities": {caps},
				"sharpen_max": {"stock"}, "projects": {"1"}, "items": {"1"}}
		}
		cases := []struct {
			name, path string
			form       url.Values
		}{
			{"NUL in a key label", "/console/keys", url.Values{"label": {"ci\x00key"}, "mode": {"test"}}},
			{"invalid UTF-8 in a key label", "/console/keys", url.Values{"label": {"ci\xffkey"}, "mode": {"test"}}},
			{"NUL in a tenant name", "/console/admin/tenants", url.Values{"name": {"Evil\x00Corp"}, "plan": {"pro"}, "email": {""}}},
			{"NaN multiplier on create", "/console/admin/plans", plan("nanplan", "NaN", "60", "all")},
			{"huge rate on create", "/console/admin/plans", plan("fastplan", "1", "9223372036854775807", "all")},
			{"typical<=abc on create", "/console/admin/plans", plan("oddplan", "1", "60", "typical<=abc")},
			{"NaN multiplier on update", "/console/admin/plans/pro", plan("pro", "NaN", "600", "all")},
		}
		noRedirect := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				tc.form.Set("_csrf", csrf)
				req, _ := http.NewRequest(http.MethodPost, in.Base+tc.path, strings.NewReader(tc.form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.AddCookie(session)
				res, err := noRedirect.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode >= 500 {
					t.Fatalf("%d\n%s", res.StatusCode, b)
				}
				page := string(b)
				if loc := res.Header.Get("Location"); loc != "" {
					page = consoleGet(t, in.Base, session, loc)
				}
				for _, leak := range []string{"SQL", "syntax error", "SQLSTATE", "invalid byte sequence"} {
					if strings.Contains(page, leak) {
						t.Fatalf("the answer shows a database error (%s)", leak)
					}
				}
			})
		}
		plans := d.admin(t, "plan", "list")
		for _, p := range plans["plans"].([]any) {
			pm := p.(map[string]any)
			if n := pm["name"]; n == "nanplan" || n == "fastplan" || n == "oddplan" {
				t.Errorf("a refused plan was written: %v", pm)
			}
			if pm["name"] == "pro" && pm["credit_multiplier"] != float64(1) {
				t.Errorf("a refused update changed pro: %v", pm)
			}
		}
		ts := d.admin(t, "tenant", "list")
		for _, tn := range ts["tenants"].([]any) {
			if strings.Contains(tn.(map[string]any)["name"].(string), "Evil") {
				t.Errorf("a refused tenant was written: %v", tn)
			}
		}
	})
}

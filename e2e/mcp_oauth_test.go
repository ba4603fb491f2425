package e2e

// OAuth 2.1 sign-in of MCP hosts against the real binary (issue 32): the TypeScript SDK's own
// OAuth client completes the whole flow (e2e/js/oauth-client.mjs), and each refusal the
// authorization server and the resource owe is checked over HTTP on SQLite and PostgreSQL.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// owner is an account owner signed in to the console: the cookies a browser would carry and the
// session's CSRF token.
type owner struct {
	cookies map[string]string
	csrf    string
}

// header is the Cookie header of the owner's browser.
func (o *owner) header() string {
	var parts []string
	for k, v := range o.cookies {
		parts = append(parts, k+"="+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

var noRedirects = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// browse sends a console request as the owner (form nil: GET) and returns the answer.
func (o *owner) browse(t *testing.T, in *instance, method, path string, form url.Values) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, in.Base+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range o.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	res, err := noRedirects.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	for _, ck := range res.Cookies() {
		if ck.MaxAge < 0 {
			delete(o.cookies, ck.Name)
		} else {
			o.cookies[ck.Name] = ck.Value
		}
	}
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// signInOwner makes a console user of the tenant and signs it in.
func signInOwner(t *testing.T, d *deployment, in *instance, tenantID string) *owner {
	t.Helper()
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("e2e-correct-horse-battery"), 0o600); err != nil {
		t.Fatal(err)
	}
	email := "owner-" + strings.ToLower(tenantID) + "@e2e.test"
	d.admin(t, "user", "create", "--tenant", tenantID, "--email", email, "--password-file", pw)
	o := &owner{cookies: map[string]string{}}
	_, login := o.browse(t, in, http.MethodGet, "/console/login", nil)
	m := csrfInput.FindStringSubmatch(login)
	if m == nil {
		t.Fatalf("no CSRF token on the sign-in page")
	}
	if res, _ := o.browse(t, in, http.MethodPost, "/console/login", url.Values{"_csrf": {m[1]}, "email": {email}, "password": {"e2e-correct-horse-battery"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", res.StatusCode)
	}
	_, page := o.browse(t, in, http.MethodGet, "/console/keys", nil)
	if m = csrfInput.FindStringSubmatch(page); m == nil {
		t.Fatalf("no CSRF token on the keys page:\n%.500s", page)
	}
	o.csrf = m[1]
	return o
}

// oauthRun is what e2e/js/oauth-client.mjs reports.
type oauthRun struct {
	Error         string         `json:"error"`
	Unauthorized  bool           `json:"unauthorized"`
	Registered    map[string]any `json:"registered"`
	AuthorizeURL  string         `json:"authorizeUrl"`
	ConsentStatus int            `json:"consentStatus"`
	ConsentPage   string         `json:"consentPage"`
	Redirect      string         `json:"redirect"`
	Tokens1       map[string]any `json:"tokens1"`
	Tokens2       map[string]any `json:"tokens2"`
	Tools1        []string       `json:"tools1"`
	Call1         tsToolResult   `json:"call1"`
	Call2         tsToolResult   `json:"call2"`
	RefreshResult string         `json:"refreshResult"`
	RevokeStatus  int            `json:"revokeStatus"`
	AfterRevoke   struct {
		Status          int    `json:"status"`
		WWWAuthenticate string `json:"wwwAuthenticate"`
		Body            string `json:"body"`
	} `json:"afterRevoke"`
}

var (
	accessTokenShape  = regexp.MustCompile(`^cap_oat_[0-9A-Za-z]{40}$`)
	refreshTokenShape = regexp.MustCompile(`^cap_ort_[0-9A-Za-z]{40}$`)
)

// TestMCPOAuthTypeScriptSDK: the TypeScript SDK's OAuth client signs in to /mcp as a host does:
// the 401's WWW-Authenticate leads it to the protected-resource and authorization-server
// metadata, it registers itself, sends the owner to the consent page with a PKCE S256 challenge,
// exchanges the code, lists and calls tools with the access token (limited to what the owner
// allowed), refreshes (a rotated pair), revokes, and the revoked token is answered 401 with
// WWW-Authenticate.
func TestMCPOAuthTypeScriptSDK(t *testing.T) {
	dir := jsDir(t)
	d := newDeployment(t, "sqlite")
	in := d.serve(t)
	tk := d.newTenant(t, "pro")
	o := signInOwner(t, d, in, tk.ID)

	input, _ := json.Marshal(map[string]any{"url": in.Base + "/mcp", "cookie": o.header(), "csrf": o.csrf, "mode": "test",
		"capabilities": "weather.forecast, recipes.search",
		"call":         map[string]any{"name": "weather.forecast", "arguments": map[string]any{"location": "Berlin"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "oauth-client.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node oauth-client.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var run oauthRun
	if err := json.Unmarshal(stdout.Bytes(), &run); err != nil {
		t.Fatalf("oauth-client.mjs printed no JSON: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if run.Error != "" {
		t.Fatalf("the TypeScript SDK's OAuth flow failed at %s\nredirect: %s\nconsent page (%d): %.1500s", run.Error, run.Redirect, run.ConsentStatus, run.ConsentPage)
	}

	// Discovery and registration.
	if !run.Unauthorized {
		t.Error("the first connect was not refused with the SDK's UnauthorizedError")
	}
	clientID, _ := run.Registered["client_id"].(string)
	if !strings.HasPrefix(clientID, "oac_") || run.Registered["token_endpoint_auth_method"] != "none" {
		t.Errorf("registration: %v", run.Registered)
	}
	// The authorization request: PKCE S256, the /mcp resource, at the console's endpoint.
	au, err := url.Parse(run.AuthorizeURL)
	if err != nil || au.Path != "/console/oauth/authorize" {
		t.Fatalf("authorization URL %q", run.AuthorizeURL)
	}
	q := au.Query()
	if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 || q.Get("resource") != in.Base+"/mcp" || q.Get("state") == "" {
		t.Errorf("authorization request %v", q)
	}
	if run.ConsentStatus != http.StatusOK || !strings.Contains(run.ConsentPage, "capgate e2e host") || !strings.Contains(run.ConsentPage, `data-testid="oauth-consent"`) {
		t.Errorf("consent page: %d %.500s", run.ConsentStatus, run.ConsentPage)
	}
	back, err := url.Parse(run.Redirect)
	if err != nil || !strings.HasPrefix(run.Redirect, "http://127.0.0.1:33418/callback?") || back.Query().Get("code") == "" || back.Query().Get("iss") != in.Base {
		t.Errorf("the consent sent the browser to %q", run.Redirect)
	}

	// Tokens, and the grant's scope on the tool list.
	a1, _ := run.Tokens1["access_token"].(string)
	r1, _ := run.Tokens1["refresh_token"].(string)
	if !accessTokenShape.MatchString(a1) || !refreshTokenShape.MatchString(r1) || run.Tokens1["token_type"] != "Bearer" {
		t.Fatalf("first token pair %v", run.Tokens1)
	}
	tools := slices.Clone(run.Tools1)
	slices.Sort(tools)
	if want := []string{"find_capabilities", "follow_up", "recipes.search", "weather.forecast"}; !slices.Equal(tools, want) {
		t.Errorf("tools with the grant %v, want %v", tools, want)
	}
	for i, call := range []tsToolResult{run.Call1, run.Call2} {
		// The grant is a test one: the sandbox answered.
		if call.IsError || call.StructuredContent == nil || len(call.Content) == 0 || !strings.Contains(call.Content[0].Text, "Test mode") {
			t.Errorf("call %d: %.1000v", i+1, call)
		}
	}

	// Refresh rotated both tokens.
	a2, _ := run.Tokens2["access_token"].(string)
	r2, _ := run.Tokens2["refresh_token"].(string)
	if run.RefreshResult != "AUTHORIZED" || !accessTokenShape.MatchString(a2) || !refreshTokenShape.MatchString(r2) || a2 == a1 || r2 == r1 {
		t.Errorf("refresh: %s, pair %v after %v", run.RefreshResult, run.Tokens2, run.Tokens1)
	}

	// Revoked: 401 with WWW-Authenticate naming the metadata, in the spec's envelope.
	if run.RevokeStatus != http.StatusOK {
		t.Errorf("revocation: %d", run.RevokeStatus)
	}
	if run.AfterRevoke.Status != http.StatusUnauthorized {
		t.Errorf("the revoked token: %d %s", run.AfterRevoke.Status, run.AfterRevoke.Body)
	}
	wantChallenge := `Bearer resource_metadata="` + in.Base + `/.well-known/oauth-protected-resource/mcp"`
	if !strings.HasPrefix(run.AfterRevoke.WWWAuthenticate, wantChallenge) || !strings.Contains(run.AfterRevoke.WWWAuthenticate, `error="invalid_token"`) {
		t.Errorf("WWW-Authenticate %q, want %s, error=\"invalid_token\"", run.AfterRevoke.WWWAuthenticate, wantChallenge)
	}
	var env map[string]any
	if json.Unmarshal([]byte(run.AfterRevoke.Body), &env) != nil || str(env, "error", "code") != "unauthorized" {
		t.Errorf("the revoked token's answer is not the envelope: %s", run.AfterRevoke.Body)
	}
	// The first access token belongs to the same grant: revoked too.
	if r := in.get(t, "/v1/account", a1); r.Status != http.StatusUnauthorized {
		t.Errorf("the first access token after revocation: %d", r.Status)
	}

	// The console lists the grant, revoked, beside the test keys.
	_, keys := o.browse(t, in, http.MethodGet, "/console/keys?mode=test", nil)
	if !strings.Contains(keys, `data-testid="grants"`) || !strings.Contains(keys, "capgate e2e host") || !strings.Contains(keys, "revoked") {
		t.Errorf("the keys page does not list the revoked grant:\n%.3000s", keys)
	}
}

// oauthClient is a host signing in by hand: registration, consent as the owner, code exchange.
type oauthClient struct {
	in       *instance
	id       string
	redirect string
}

func registerClient(t *testing.T, in *instance, redirect string) *oauthClient {
	t.Helper()
	res, body := oauthPost(t, in, "/oauth/register", "application/json", `{"client_name":"hand host","redirect_uris":["`+redirect+`"]}`)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d %s", res.StatusCode, body)
	}
	var m map[string]any
	_ = json.Unmarshal([]byte(body), &m)
	return &oauthClient{in: in, id: str(m, "client_id"), redirect: redirect}
}

func oauthPost(t *testing.T, in *instance, path, contentType, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, in.Base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	res, err := noRedirects.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// token posts a token request and returns the status and the JSON answer.
func (c *oauthClient) token(t *testing.T, form url.Values) (int, map[string]any) {
	t.Helper()
	if form.Get("client_id") == "" {
		form.Set("client_id", c.id)
	}
	res, body := oauthPost(t, c.in, "/oauth/token", "application/x-www-form-urlencoded", form.Encode())
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("token answer is not JSON: %d %s", res.StatusCode, body)
	}
	if res.StatusCode != http.StatusOK {
		if _, ok := m["error"].(string); !ok {
			t.Fatalf("token error without an OAuth error: %d %s", res.StatusCode, body)
		}
		if res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("token error without Cache-Control: no-store")
		}
	}
	return res.StatusCode, m
}

func newVerifier(t *testing.T) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func s256(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// authorize has the owner allow the client (mode, capabilities) and returns the code, or the
// answer when none came back.
func (c *oauthClient) authorize(t *testing.T, o *owner, redirect, challenge, method, mode, capabilities string) (code string, res *http.Response, page string) {
	t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {redirect}, "state": {"s1"},
		"code_challenge": {challenge}, "code_challenge_method": {method}, "resource": {c.in.Base + "/mcp"}}
	res, page = o.browse(t, c.in, http.MethodGet, "/console/oauth/authorize?"+q.Encode(), nil)
	if res.StatusCode != http.StatusOK {
		return "", res, page
	}
	form := url.Values{"_csrf": {o.csrf}, "mode": {mode}, "capabilities": {capabilities}, "decision": {"allow"}}
	for k, v := range q {
		form[k] = v
	}
	res, page = o.browse(t, c.in, http.MethodPost, "/console/oauth/authorize", form)
	if res.StatusCode != http.StatusSeeOther {
		return "", res, page
	}
	loc, _ := url.Parse(res.Header.Get("Location"))
	return loc.Query().Get("code"), res, page
}

// signIn runs the whole flow and returns the token answer.
func (c *oauthClient) signIn(t *testing.T, o *owner, mode, capabilities string) map[string]any {
	t.Helper()
	v := newVerifier(t)
	code, res, page := c.authorize(t, o, c.redirect, s256(v), "S256", mode, capabilities)
	if code == "" {
		t.Fatalf("no code: %d %s %.500s", res.StatusCode, res.Header.Get("Location"), page)
	}
	st, tok := c.token(t, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {c.redirect}, "code_verifier": {v}})
	if st != http.StatusOK {
		t.Fatalf("token: %d %v", st, tok)
	}
	return tok
}

// TestOAuthRefusals: every attack on the flow the issue names is refused with OAuth's error on
// the OAuth endpoints and the spec's envelope on /v1 and /mcp, on SQLite and PostgreSQL.
func TestOAuthRefusals(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		d := newDeployment(t, backend)
		in := d.serve(t, "GATEWAY_OAUTH_ACCESS_TTL=2s")
		tk := d.newTenant(t, "pro")
		o := signInOwner(t, d, in, tk.ID)
		const cb = "http://127.0.0.1:33418/callback"
		c := registerClient(t, in, cb)

		t.Run("metadata", func(t *testing.T) {
			for path, want := range map[string]string{
				"/.well-known/oauth-protected-resource/mcp": in.Base + "/mcp",
				"/.well-known/oauth-protected-resource":     in.Base,
			} {
				r := in.get(t, path, "")
				if r.Status != http.StatusOK || str(r.JSON, "resource") != want || !slices.Equal(toStrings(r.JSON["authorization_servers"]), []string{in.Base}) {
					t.Errorf("%s: %d %s", path, r.Status, r.Body)
				}
			}
			r := in.get(t, "/.well-known/oauth-authorization-server", "")
			if r.Status != http.StatusOK || str(r.JSON, "issuer") != in.Base || !slices.Equal(toStrings(r.JSON["code_challenge_methods_supported"]), []string{"S256"}) ||
				str(r.JSON, "authorization_endpoint") != in.Base+"/console/oauth/authorize" || str(r.JSON, "registration_endpoint") != in.Base+"/oauth/register" {
				t.Errorf("authorization server metadata: %d %s", r.Status, r.Body)
			}
			r = in.call(t, http.MethodPost, "/mcp", "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"}, "Accept", "application/json, text/event-stream")
			if r.Status != http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+in.Base+`/.well-known/oauth-protected-resource/mcp"` {
				t.Errorf("/mcp without a token: %d %q", r.Status, r.Header.Get("WWW-Authenticate"))
			}
			requireEnvelope(t, r, http.StatusUnauthorized, "unauthorized")
			r = in.get(t, "/v1/account", "cap_oat_"+strings.Repeat("x", 40))
			requireEnvelope(t, r, http.StatusUnauthorized, "unauthorized")
			if r.Header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+in.Base+`/.well-known/oauth-protected-resource", error="invalid_token", error_description="the access token is unknown, expired or revoked"` {
				t.Errorf("/v1 with an unknown token: WWW-Authenticate %q", r.Header.Get("WWW-Authenticate"))
			}
			// A key keeps working as before.
			in.get(t, "/v1/account", tk.Test).mustOK(t, "a test key")
		})

		t.Run("registration", func(t *testing.T) {
			for _, body := range []string{
				`{"redirect_uris":["http://evil.example/cb"]}`,                             // http off loopback
				`{"redirect_uris":["https://host.example/cb#frag"]}`,                       // fragment
				`{"redirect_uris":["javascript:alert(1)"]}`,                                // not a URL of a host
				`{"redirect_uris":[]}`,                                                     // none
				`{"redirect_uris":["https://a.example/` + strings.Repeat("x", 600) + `"]}`, // too long
				`{"redirect_uris":["https://a.example/cb"],"grant_types":["client_credentials"]}`,
				`not json`,
			} {
				res, b := oauthPost(t, in, "/oauth/register", "application/json", body)
				var m map[string]any
				if res.StatusCode != http.StatusBadRequest || json.Unmarshal([]byte(b), &m) != nil || !strings.HasPrefix(str(m, "error"), "invalid_") {
					t.Errorf("register %.60s: %d %s", body, res.StatusCode, b)
				}
			}
			res, b := oauthPost(t, in, "/oauth/register", "application/json", `{"redirect_uris":["https://a.example/cb"],"client_name":"`+strings.Repeat("n", 20000)+`"}`)
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(b, "invalid_client_metadata") {
				t.Errorf("a 20 KB registration: %d %s", res.StatusCode, b)
			}
		})

		t.Run("unregistered redirect URI", func(t *testing.T) {
			_, res, page := c.authorize(t, o, "http://127.0.0.1:33418/other", s256(newVerifier(t)), "S256", "test", "")
			if res.StatusCode != http.StatusBadRequest || res.Header.Get("Location") != "" || !strings.Contains(page, `data-testid="oauth-error"`) {
				t.Errorf("unregistered redirect URI: %d Location %q", res.StatusCode, res.Header.Get("Location"))
			}
			// A redirect URI at the token endpoint other than the authorization request's.
			v := newVerifier(t)
			code, _, _ := c.authorize(t, o, cb, s256(v), "S256", "test", "")
			st, m := c.token(t, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {"http://127.0.0.1:33418/x"}, "code_verifier": {v}})
			if st != http.StatusBadRequest || m["error"] != "invalid_grant" {
				t.Errorf("token with another redirect URI: %d %v", st, m)
			}
		})

		t.Run("plain PKCE", func(t *testing.T) {
			for _, method := range []string{"plain", ""} {
				v := newVerifier(t)
				code, res, _ := c.authorize(t, o, cb, v, method, "test", "")
				loc, _ := url.Parse(res.Header.Get("Location"))
				if code != "" || res.StatusCode != http.StatusSeeOther || loc.Query().Get("error") != "invalid_request" || loc.Query().Get("state") != "s1" {
					t.Errorf("code_challenge_method %q: %d %s", method, res.StatusCode, res.Header.Get("Location"))
				}
			}
		})

		t.Run("wrong code_verifier", func(t *testing.T) {
			v := newVerifier(t)
			code, _, _ := c.authorize(t, o, cb, s256(v), "S256", "test", "")
			st, m := c.token(t, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {cb}, "code_verifier": {newVerifier(t)}})
			if st != http.StatusBadRequest || m["error"] != "invalid_grant" {
				t.Errorf("wrong verifier: %d %v", st, m)
			}
			// Another client cannot redeem it either.
			other := registerClient(t, in, cb)
			st, m = other.token(t, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {cb}, "code_verifier": {v}})
			if st != http.StatusBadRequest || m["error"] != "invalid_grant" {
				t.Errorf("another client's code: %d %v", st, m)
			}
		})

		t.Run("reused code", func(t *testing.T) {
			v := newVerifier(t)
			code, _, _ := c.authorize(t, o, cb, s256(v), "S256", "test", "")
			form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {cb}, "code_verifier": {v}}
			st, first := c.token(t, form)
			if st != http.StatusOK {
				t.Fatalf("first exchange: %d %v", st, first)
			}
			st, m := c.token(t, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {cb}, "code_verifier": {v}})
			if st != http.StatusBadRequest || m["error"] != "invalid_grant" {
				t.Errorf("second exchange: %d %v", st, m)
			}
			// The replay revoked what the first exchange issued.
			requireEnvelope(t, in.get(t, "/v1/account", str(first, "access_token")), http.StatusUnauthorized, "unauthorized")
		})

		t.Run("refresh token reuse", func(t *testing.T) {
			tok := c.signIn(t, o, "test", "")
			st, next := c.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {str(tok, "refresh_token")}})
			if st != http.StatusOK {
				t.Fatalf("refresh: %d %v", st, next)
			}
			if r := in.get(t, "/v1/account", str(next, "access_token")); r.Status != http.StatusOK {
				t.Fatalf("the rotated access token: %d", r.Status)
			}
			st, m := c.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {str(tok, "refresh_token")}})
			if st != http.StatusBadRequest || m["error"] != "invalid_grant" {
				t.Errorf("the old refresh token again: %d %v", st, m)
			}
			// The family is revoked: the new refresh token and access token too.
			st, m = c.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {str(next, "refresh_token")}})
			if st != http.StatusBadRequest || m["error"] != "invalid_grant" {
				t.Errorf("the rotated refresh token after reuse: %d %v", st, m)
			}
			requireEnvelope(t, in.get(t, "/v1/account", str(next, "access_token")), http.StatusUnauthorized, "unauthorized")
		})

		t.Run("another tenant's search ids", func(t *testing.T) {
			tok := c.signIn(t, o, "test", "")
			other := d.newTenant(t, "pro")
			theirs := in.call(t, http.MethodPost, "/v1/capabilities/weather.forecast/execute", other.Test, map[string]any{"location": "Berlin"}).mustOK(t, "other tenant's search")
			rec := dig(theirs.JSON, "results").([]any)[0].(map[string]any)
			r := in.call(t, http.MethodPost, "/v1/follow-up", str(tok, "access_token"), map[string]any{"record_id": str(rec, "record_id"), "action": "details"})
			requireEnvelope(t, r, http.StatusNotFound, "record_unknown")
			r = in.call(t, http.MethodPost, "/v1/follow-up", str(tok, "access_token"), map[string]any{"search_id": str(theirs.JSON, "search_id"), "action": "more"})
			requireEnvelope(t, r, http.StatusNotFound, "not_found")
			// Over MCP too: the follow_up tool reports the record as unknown.
			r = in.call(t, http.MethodPost, "/mcp", str(tok, "access_token"), map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
				"params": map[string]any{"name": "follow_up", "arguments": map[string]any{"record_id": str(rec, "record_id"), "action": "details"}}},
				"Accept", "application/json, text/event-stream")
			if !strings.Contains(string(r.Body), "record_unknown") || strings.Contains(string(r.Body), str(rec, "title")) {
				t.Errorf("follow_up of another tenant's record over MCP: %s", r.Body)
			}
		})

		t.Run("test grant calling live", func(t *testing.T) {
			tok := c.signIn(t, o, "test", "")
			r := in.get(t, "/v1/account", str(tok, "access_token")).mustOK(t, "account")
			if str(r.JSON, "key", "mode") != "test" {
				t.Errorf("a test grant's account: %s", r.Body)
			}
			// Its search is the sandbox's, and a live key's session is not its.
			live := in.call(t, http.MethodPost, "/v1/capabilities/weather.forecast/execute", tk.Live, map[string]any{"location": "Berlin"})
			if live.Status == http.StatusOK {
				rec := dig(live.JSON, "results").([]any)[0].(map[string]any)
				r = in.call(t, http.MethodPost, "/v1/follow-up", str(tok, "access_token"), map[string]any{"record_id": str(rec, "record_id"), "action": "details"})
				requireEnvelope(t, r, http.StatusNotFound, "record_unknown")
			}
			r = in.call(t, http.MethodPost, "/v1/capabilities/weather.forecast/execute", str(tok, "access_token"), map[string]any{"location": "Berlin"}).mustOK(t, "test execute")
			if !strings.Contains(string(r.Body), "Test mode") {
				t.Errorf("a test grant's call was not the sandbox's: %.500s", r.Body)
			}
		})

		t.Run("scope", func(t *testing.T) {
			tok := c.signIn(t, o, "test", "weather.forecast")
			r := in.call(t, http.MethodPost, "/v1/capabilities/recipes.search/execute", str(tok, "access_token"), map[string]any{"query": "pasta"})
			requireEnvelope(t, r, http.StatusForbidden, "capability_disabled")
			in.call(t, http.MethodPost, "/v1/capabilities/weather.forecast/execute", str(tok, "access_token"), map[string]any{"location": "Berlin"}).mustOK(t, "in scope")
		})

		t.Run("expired access token", func(t *testing.T) {
			tok := c.signIn(t, o, "test", "")
			in.get(t, "/v1/account", str(tok, "access_token")).mustOK(t, "fresh token")
			var last *response
			if _, ok := eventually(20*time.Second, func() bool {
				last = in.call(t, http.MethodPost, "/mcp", str(tok, "access_token"), map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"}, "Accept", "application/json, text/event-stream")
				return last.Status == http.StatusUnauthorized
			}); !ok {
				t.Fatalf("the access token still works past its lifetime: %d", last.Status)
			}
			requireEnvelope(t, last, http.StatusUnauthorized, "unauthorized")
			if !strings.Contains(last.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
				t.Errorf("WWW-Authenticate %q", last.Header.Get("WWW-Authenticate"))
			}
			// The refresh token still gets a new one.
			st, next := c.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {str(tok, "refresh_token")}})
			if st != http.StatusOK {
				t.Fatalf("refresh after expiry: %d %v", st, next)
			}
		})

		t.Run("revoked in the console", func(t *testing.T) {
			tok := c.signIn(t, o, "live", "")
			in.get(t, "/v1/account", str(tok, "access_token")).mustOK(t, "before revoking")
			_, page := o.browse(t, in, http.MethodGet, "/console/keys?mode=live", nil)
			m := regexp.MustCompile(`/console/oauth/grants/(oag_[0-9A-Za-z]+)/revoke`).FindAllStringSubmatch(page, -1)
			if len(m) == 0 {
				t.Fatalf("no grant to revoke on the keys page:\n%.2000s", page)
			}
			for _, g := range m {
				if res, _ := o.browse(t, in, http.MethodPost, "/console/oauth/grants/"+g[1]+"/revoke", url.Values{"_csrf": {o.csrf}}); res.StatusCode != http.StatusSeeOther {
					t.Fatalf("revoke: %d", res.StatusCode)
				}
			}
			requireEnvelope(t, in.get(t, "/v1/account", str(tok, "access_token")), http.StatusUnauthorized, "unauthorized")
		})
	})
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

package social

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const redditPosts = `{"platform":"platform_b","query":"rust async runtime","num":5}`

// moveClock sets the package clock to a fixed instant and returns a function moving it on.
func moveClock(t *testing.T) func(d time.Duration) {
	t.Helper()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock = func() time.Time { return now }
	t.Cleanup(func() { clock = time.Now })
	return func(d time.Duration) { now = now.Add(d) }
}

// TestRedditOAuthFlow: the application-only token is asked for once (POST grant_type=
// client_credentials with the client id and secret as Basic credentials, Reddit's User-Agent),
// reused while it lasts, and renewed when it expires.
func TestRedditOAuthFlow(t *testing.T) {
	advance := moveClock(t)
	tokens, api := tokenEndpoint(), sandboxFake(redditID)
	var bodies []string
	front := oauthFront{api: api, tokens: &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		tokens.Answer(w, r)
	}}}
	c := providertest.Client(t, testProviders(), map[string]http.Handler{xID: providertest.Refuse(t, "X"), redditID: front},
		map[string]string{redditID: testRedditKey})
	mustRun(t, c, redditPosts, nil)
	mustRun(t, c, redditPosts, nil)
	reqs := front.tokens.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d token requests for two searches, want one (the token is cached)", len(reqs))
	}
	r := reqs[0]
	id, secret, ok := r.BasicAuth()
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/access_token" || !ok || id != "p-jcoLKBynTLew" || secret != "gko_LXELoV07ZBNUXrvWZfzE3aI" ||
		r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || bodies[0] != "grant_type=client_credentials" ||
		r.Header.Get("User-Agent") != testRedditUA {
		t.Fatalf("token request %s %s basic %v %q %q, type %q, body %q, UA %q", r.Method, r.URL.Path, ok, id, secret,
			r.Header.Get("Content-Type"), bodies[0], r.Header.Get("User-Agent"))
	}
	for _, r := range api.Requests() {
		checkRedditRequest(t, r, "/search", r.URL.Query())
	}
	advance(24 * time.Hour) // expires_in 86400
	mustRun(t, c, redditPosts, nil)
	if n := len(front.tokens.Requests()); n != 2 {
		t.Errorf("%d token requests after the token expired, want 2", n)
	}
}

func TestRedditTokenHost(t *testing.T) {
	c := providertest.Client(t, testProviders(), nil, map[string]string{redditID: testRedditKey})
	u := c.Upstream(redditID, providers.ModeLive)
	if u.BaseURL != "https://oauth.reddit.com" || redditSessionFor(u).tokenURL != "https://www.reddit.com/api/v1/access_token" {
		t.Errorf("API %s, token %s", u.BaseURL, redditSessionFor(u).tokenURL)
	}
}

func TestRedditCredentialsRefused(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
	}{
		{"wrong secret", 401, `{"message": "Unauthorized", "error": 401}`},
		{"grant refused", 200, `{"error": "unsupported_grant_type"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			api := providertest.Refuse(t, "the Reddit API")
			front := oauthFront{api: api, tokens: providertest.ServeBody(tc.status, tc.body, "application/json; charset=UTF-8")}
			c := providertest.Client(t, testProviders(), map[string]http.Handler{xID: providertest.Refuse(t, "X"), redditID: front},
				map[string]string{redditID: testRedditKey})
			_, err := run(t, c, redditPosts, nil)
			e, ok := providers.AsError(err)
			if !ok || e.Code != providers.CodeProviderError || e.IsRetryable() || !strings.Contains(e.Hint, "PROVIDER_REDDIT_KEY") {
				t.Fatalf("error %v", err)
			}
		})
	}
}

// TestRedditTokenRenewedAfter401: a token Reddit no longer accepts is dropped and the call
// retried once with a fresh one.
func TestRedditTokenRenewedAfter401(t *testing.T) {
	var calls atomic.Int32
	sb := sandboxFake(redditID)
	api := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"message": "Unauthorized", "error": 401}`))
			return
		}
		sb.Answer(w, r)
	}}
	front := oauthFront{api: api, tokens: tokenEndpoint()}
	c := providertest.Client(t, testProviders(), map[string]http.Handler{xID: providertest.Refuse(t, "X"), redditID: front},
		map[string]string{redditID: testRedditKey})
	if page := mustRun(t, c, redditPosts, nil); len(page.Records) == 0 {
		t.Fatal("no records after the retry")
	}
	if len(front.tokens.Requests()) != 2 || len(api.Requests()) != 2 {
		t.Errorf("token requests %d, API requests %d; want 2 and 2", len(front.tokens.Requests()), len(api.Requests()))
	}
}

// TestRedditAllowanceHeaders: with X-Ratelimit-Remaining at 0, calls fail fast until
// X-Ratelimit-Reset instead of drawing 429s.
func TestRedditAllowanceHeaders(t *testing.T) {
	advance := moveClock(t)
	sb := sandboxFake(redditID)
	api := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Ratelimit-Used", "100")
		w.Header().Set("X-Ratelimit-Remaining", "0.0")
		w.Header().Set("X-Ratelimit-Reset", "120")
		sb.Answer(w, r)
	}}
	c := client(t, providertest.Refuse(t, "X"), api)
	mustRun(t, c, redditPosts, nil)
	_, err := run(t, c, redditPosts, nil)
	e, ok := providers.AsError(err)
	if !ok || e.Code != providers.CodeRateLimited || e.RetryAfter < 120*time.Second || e.RetryAfter > 122*time.Second {
		t.Fatalf("error %v, want rate_limited with Retry-After about 120 s", err)
	}
	if n := len(api.Requests()); n != 1 {
		t.Errorf("%d API requests while the allowance is spent, want 1", n)
	}
	advance(121 * time.Second)
	mustRun(t, c, redditPosts, nil)
	if n := len(api.Requests()); n != 2 {
		t.Errorf("%d API requests after the reset, want 2", n)
	}
}

func TestRedditTooManyRequestsWaitsForReset(t *testing.T) {
	moveClock(t)
	api := providertest.ServeFile(t, 429, "testdata/reddit_error_too_many_requests.json", jsonType)
	c := client(t, providertest.Refuse(t, "X"), api)
	_, err := run(t, c, redditPosts, nil)
	if e, ok := providers.AsError(err); !ok || e.Code != providers.CodeRateLimited || e.RetryAfter != defaultRetry {
		t.Fatalf("error %v", err)
	}
}

func TestRedditWithoutKey(t *testing.T) {
	c := providertest.Client(t, testProviders(), map[string]http.Handler{xID: providertest.Refuse(t, "X"), redditID: providertest.Refuse(t, "Reddit")},
		map[string]string{xID: testXKey})
	_, err := run(t, c, redditPosts, nil)
	e, ok := providers.AsError(err)
	if !ok || e.Code != providers.CodeCapabilityUnavailable || !strings.Contains(e.Message, "PROVIDER_REDDIT_KEY") ||
		!strings.Contains(e.Message, "OAuth") {
		t.Fatalf("error %v", err)
	}
}

func TestRedditUserAgent(t *testing.T) {
	cases := []struct{ clientUA, key, want string }{
		{"capgate/1.4.2 (+ops@example.com)", "id:secret:capgate_bot", "server:capgate:1.4.2 (by /u/capgate_bot)"},
		{"capgate/1.4.2", "id:secret:/u/capgate_bot", "server:capgate:1.4.2 (by /u/capgate_bot)"},
		{"capgate/dev", "id:secret", "server:capgate:dev"},
		{"", "sandbox", "server:capgate:dev"},
	}
	for _, tc := range cases {
		r, _ := http.NewRequest(http.MethodGet, "https://oauth.reddit.com/search", nil)
		r.Header.Set("User-Agent", tc.clientUA)
		redditAuthorize(r, tc.key)
		if got := r.Header.Get("User-Agent"); got != tc.want {
			t.Errorf("UA(%q, %q) = %q, want %q", tc.clientUA, tc.key, got, tc.want)
		}
	}
}

package social

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
)

// Reddit's Data API (see doc.go): application-only OAuth with the client_credentials grant
// against www.reddit.com/api/v1/access_token, then every call on oauth.reddit.com with the bearer
// token, a User-Agent of the form <platform>:<app id>:<version> (by /u/<user>), and 100 queries a
// minute per OAuth client id, reported in X-Ratelimit-Used/-Remaining/-Reset.
const (
	redditAPI        = "https://oauth.reddit.com"
	redditTokenURL   = "https://www.reddit.com/api/v1/access_token"
	redditTokenPath  = "/api/v1/access_token"
	redditPerMinute  = 100
	redditKeyFormat  = "<client id>:<client secret>:<reddit username>"
	redditTokenSlack = time.Minute // a token is renewed this long before it expires
)

// clock is the time source of the token cache and the allowance pause (tests move it).
var clock = time.Now

// redditCreds is PROVIDER_REDDIT_KEY read as <client id>:<client secret>:<reddit username>.
type redditCreds struct {
	id, secret, user string
}

func parseRedditKey(key string) redditCreds {
	parts := strings.SplitN(key, ":", 3)
	c := redditCreds{id: parts[0]}
	if len(parts) > 1 {
		c.secret = parts[1]
	}
	if len(parts) > 2 {
		c.user = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(parts[2]), "/"), "u/")
	}
	return c
}

// redditUserAgent is the User-Agent Reddit's rules ask for: server:capgate:<version> (by /u/<user>).
// The version is the one the shared client announces (capgate/<version> ...).
func redditUserAgent(clientUA string, c redditCreds) string {
	version := "dev"
	if rest, ok := strings.CutPrefix(clientUA, "capgate/"); ok {
		if f := strings.Fields(rest); len(f) > 0 {
			version = f[0]
		}
	}
	ua := "server:capgate:" + version
	if c.user != "" {
		ua += " (by /u/" + c.user + ")"
	}
	return ua
}

// redditAuthorize identifies every Reddit request as Reddit's rules ask; the bearer token (and the
// token request's Basic credentials) are set by the OAuth flow in redditCall.
func redditAuthorize(r *http.Request, key string) {
	r.Header.Set("User-Agent", redditUserAgent(r.Header.Get("User-Agent"), parseRedditKey(key)))
}

// redditSession is the cached token and the allowance pause of one deployment's credentials.
type redditSession struct {
	mu          sync.Mutex
	tokenURL    string
	creds       redditCreds
	token       string
	expires     time.Time
	pausedUntil time.Time
}

var redditSessions sync.Map // tokenURL + "\x00" + key → *redditSession

func redditSessionFor(u *providers.Upstream) *redditSession {
	tokenURL := u.BaseURL + redditTokenPath
	if strings.TrimRight(u.BaseURL, "/") == redditAPI {
		tokenURL = redditTokenURL
	}
	s, _ := redditSessions.LoadOrStore(tokenURL+"\x00"+u.Key, &redditSession{tokenURL: tokenURL, creds: parseRedditKey(u.Key)})
	return s.(*redditSession)
}

// redditCall is GET path?q on Reddit's OAuth host with a cached application-only token. A 401
// (a revoked or expired token) drops the token and retries once with a fresh one. When Reddit
// said the allowance is spent, calls fail fast until its reset.
func redditCall(ctx context.Context, u *providers.Upstream, path string, q url.Values) (*providers.Response, error) {
	if !u.Available() {
		return nil, &providers.Error{Code: providers.CodeCapabilityUnavailable,
			Message: "platform_b needs Reddit Data API credentials, which this deployment has not configured: Reddit serves API " +
				"clients only with OAuth (PROVIDER_REDDIT_KEY = " + redditKeyFormat + ")",
			Hint: "platform_a works when PROVIDER_X_KEY is set"}
	}
	s := redditSessionFor(u)
	if err := s.paused(); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		token, err := s.bearer(ctx, u)
		if err != nil {
			return nil, err
		}
		h := acceptJSON()
		h.Set("Authorization", "Bearer "+token)
		resp, err := u.Get(ctx, path, q, h)
		if err == nil {
			s.note(resp.Header)
			return resp, nil
		}
		if e, ok := providers.AsError(err); ok && e.UpstreamStatus == http.StatusUnauthorized && attempt == 0 {
			s.drop(token)
			continue
		}
		if e, ok := providers.AsError(err); ok && e.UpstreamStatus == http.StatusTooManyRequests && e.RetryAfter <= 0 {
			out := *e
			out.RetryAfter = s.wait()
			return nil, &out
		}
		return nil, err
	}
}

// paused is the rate_limited error while Reddit's reported allowance is spent.
func (s *redditSession) paused() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if wait := s.pausedUntil.Sub(clock()); wait > 0 {
		return &providers.Error{Code: providers.CodeRateLimited, RetryAfter: wait.Round(time.Second) + time.Second,
			Message: fmt.Sprintf("this gateway used up Reddit's allowance of %d requests a minute; retry after Reddit's reset", redditPerMinute)}
	}
	return nil
}

// wait is how long Reddit's last reported window has left (0 when unknown).
func (s *redditSession) wait() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w := s.pausedUntil.Sub(clock()); w > 0 {
		return w
	}
	return 0
}

// note reads Reddit's X-Ratelimit-Remaining and X-Ratelimit-Reset (seconds to the end of the
// window): with nothing left, calls pause until the reset.
func (s *redditSession) note(h http.Header) {
	remaining, err1 := strconv.ParseFloat(strings.TrimSpace(h.Get("X-Ratelimit-Remaining")), 64)
	reset, err2 := strconv.ParseFloat(strings.TrimSpace(h.Get("X-Ratelimit-Reset")), 64)
	if err1 != nil || err2 != nil || remaining >= 1 || reset <= 0 {
		return
	}
	s.mu.Lock()
	s.pausedUntil = clock().Add(time.Duration(reset * float64(time.Second)))
	s.mu.Unlock()
}

func (s *redditSession) drop(token string) {
	s.mu.Lock()
	if s.token == token {
		s.token = ""
	}
	s.mu.Unlock()
}

// bearer returns the cached token, fetching a new one when none is held or it is about to expire.
// The lock is held across the fetch so concurrent calls share one token request.
func (s *redditSession) bearer(ctx context.Context, u *providers.Upstream) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token != "" && clock().Before(s.expires) {
		return s.token, nil
	}
	token, ttl, err := s.fetch(ctx, u)
	if err != nil {
		return "", err
	}
	s.token, s.expires = token, clock().Add(ttl-min(redditTokenSlack, ttl/2))
	return token, nil
}

// redditToken is the access token answer: {"access_token", "token_type": "bearer", "expires_in",
// "scope"}, or {"error": "<code>"} (with HTTP 200 for a grant Reddit does not accept).
type redditToken struct {
	AccessToken string          `json:"access_token"`
	TokenType   string          `json:"token_type"`
	ExpiresIn   float64         `json:"expires_in"`
	Error       json.RawMessage `json:"error"`
}

// fetch asks for an application-only token: POST grant_type=client_credentials with the client id
// and secret as HTTP Basic credentials.
func (s *redditSession) fetch(ctx context.Context, u *providers.Upstream) (string, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.tokenURL, strings.NewReader("grant_type=client_credentials"))
	if err != nil {
		return "", 0, &providers.Error{Code: providers.CodeInternal, Message: "could not build the Reddit token request", Cause: err}
	}
	req.SetBasicAuth(s.creds.id, s.creds.secret)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := u.Do(req)
	if err != nil {
		if e, ok := providers.AsError(err); ok && (e.UpstreamStatus == http.StatusUnauthorized || e.UpstreamStatus == http.StatusBadRequest) {
			var body redditErrorBody
			_ = json.Unmarshal(e.Body, &body)
			return "", 0, redditCredentialsRefused(e.UpstreamStatus, string(body.Message), e)
		}
		return "", 0, err
	}
	var t redditToken
	if err := u.Decode(resp, &t); err != nil {
		return "", 0, err
	}
	if t.AccessToken == "" {
		var code string
		_ = json.Unmarshal(t.Error, &code)
		return "", 0, redditCredentialsRefused(resp.Status, code, nil)
	}
	ttl := time.Duration(t.ExpiresIn * float64(time.Second))
	if ttl <= 0 {
		ttl = time.Hour
	}
	return t.AccessToken, ttl, nil
}

// redditCredentialsRefused is the error of a refused token request. It carries no UpstreamStatus
// so that redditError, which maps the API's answers, passes it on unchanged.
func redditCredentialsRefused(status int, detail string, cause error) error {
	if detail == "" {
		detail = http.StatusText(status)
	}
	return &providers.Error{Code: providers.CodeProviderError, Retryable: ptr(false), Cause: cause,
		Message: fmt.Sprintf("Reddit refused this deployment's OAuth client credentials (HTTP %d: %s)", status, strings.TrimSpace(detail)),
		Hint:    "an operator must set PROVIDER_REDDIT_KEY to " + redditKeyFormat + " of a Reddit app of type script or web"}
}

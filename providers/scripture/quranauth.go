package scripture

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
)

// The Quran Foundation API (api-docs.quran.foundation, quran/api-js): with PROVIDER_QURAN_KEY set
// to "client_id:client_secret", calls go to the Content API (KeyedURL
// https://apis.quran.foundation/content/api/v4, the same paths and answers as the keyless v4
// host) with an OAuth2 client-credentials token: POST {oauth2}/oauth2/token, HTTP Basic
// client_id:client_secret, grant_type=client_credentials&scope=content, answered
// {access_token, expires_in, scope, token_type}; each call then carries x-auth-token and
// x-client-id. Without the key the keyless api.quran.com/api/v4 remains the fallback.
const (
	quranAuthID    = "quran_oauth"
	quranAuthURL   = "https://oauth2.quran.foundation"
	quranContent   = "https://apis.quran.foundation/content/api/v4"
	quranKeyFormat = "PROVIDER_QURAN_KEY=<client_id>:<client_secret>"
	// quranTokenMargin renews a token this long before it expires.
	quranTokenMargin = 30 * time.Second
)

// quranAPI is Quran.com's API as one call reaches it.
type quranAPI struct {
	u        *providers.Upstream
	auth     *providers.Upstream // token host; nil on the keyless path
	clientID string
	secret   string
}

// quranFor picks the authenticated Content API when a live call has credentials, else the
// keyless host (and the sandbox for test keys).
func quranFor(c *providers.Call) (*quranAPI, error) {
	api := &quranAPI{u: c.Upstream(quranID)}
	if c.Mode != providers.ModeLive || api.u.Key == "" {
		return api, nil
	}
	id, secret, ok := strings.Cut(api.u.Key, ":")
	if !ok || id == "" || secret == "" {
		return nil, providers.Errorf(providers.CodeProviderError, "the Quran Foundation credentials of this deployment are malformed").
			WithRetryable(false).WithHint("The gateway operator must set " + quranKeyFormat + ".")
	}
	api.auth, api.clientID, api.secret = c.Upstream(quranAuthID), id, secret
	return api, nil
}

// getJSON calls GET path?q, with the OAuth2 headers on the authenticated path.
func (q *quranAPI) getJSON(ctx context.Context, path string, params url.Values, out any) error {
	h := http.Header{"Accept": {"application/json"}}
	if q.auth != nil {
		tok, err := q.token(ctx)
		if err != nil {
			return err
		}
		h.Set("x-auth-token", tok)
		h.Set("x-client-id", q.clientID)
	}
	resp, err := q.u.Get(ctx, path, params, h)
	if err != nil {
		if e, ok := providers.AsError(err); ok && q.auth != nil && e.UpstreamStatus == http.StatusUnauthorized {
			quranTokens.forget(q.cacheKey()) // an expired or revoked token: the next call asks again
		}
		return err
	}
	return q.u.Decode(resp, out)
}

func (q *quranAPI) cacheKey() string { return q.auth.BaseURL + "\x00" + q.clientID }

// token returns a cached access token, or asks the token endpoint for one.
func (q *quranAPI) token(ctx context.Context) (string, error) {
	key := q.cacheKey()
	if tok, ok := quranTokens.get(key); ok {
		return tok, nil
	}
	body := url.Values{"grant_type": {"client_credentials"}, "scope": {"content"}}
	req, err := q.auth.NewRequest(ctx, http.MethodPost, "/oauth2/token", nil, strings.NewReader(body.Encode()))
	if err != nil {
		return "", err
	}
	req.SetBasicAuth(url.QueryEscape(q.clientID), url.QueryEscape(q.secret))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := q.auth.Do(req)
	if err != nil {
		return "", quranTokenError(err)
	}
	var t struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := q.auth.Decode(resp, &t); err != nil {
		return "", err
	}
	if t.AccessToken == "" {
		return "", providers.Errorf(providers.CodeProviderError, "the Quran Foundation token endpoint answered without an access token").WithRetryable(true)
	}
	quranTokens.put(key, t.AccessToken, time.Duration(t.ExpiresIn)*time.Second)
	return t.AccessToken, nil
}

// refusal reads a 4xx answer other than 429 (throttling is the client's to map): the error and
// the first non-empty of the named string members of its JSON body, else "HTTP <status>". ok is
// false for any other error, which callers pass on unchanged.
func refusal(err error, members ...string) (e *providers.Error, msg string, ok bool) {
	e, ok = providers.AsError(err)
	if !ok || e.UpstreamStatus < 400 || e.UpstreamStatus >= 500 || e.UpstreamStatus == http.StatusTooManyRequests {
		return nil, "", false
	}
	if msg = bodyText(e.Body, members...); msg == "" {
		msg = fmt.Sprintf("HTTP %d", e.UpstreamStatus)
	}
	return e, msg, true
}

// bodyText is the first non-empty of the named string members of a JSON object.
func bodyText(b []byte, members ...string) string {
	var body map[string]json.RawMessage
	_ = json.Unmarshal(b, &body)
	for _, m := range members {
		var s string
		if json.Unmarshal(body[m], &s) == nil && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// quranTokenError maps the token endpoint's OAuth2 errors ({"error", "error_description"}): a
// refused client is the operator's to fix, not retried.
func quranTokenError(err error) error {
	e, msg, ok := refusal(err, "error")
	if !ok {
		return err
	}
	if d := bodyText(e.Body, "error_description"); d != "" {
		msg += ": " + d
	}
	// No UpstreamStatus: the caller's mapping of Content API statuses must not take it for one.
	return (&providers.Error{Code: providers.CodeProviderError, Message: "the Quran Foundation refused this gateway's credentials (" + msg + ")",
		Cause: err}).WithRetryable(false).
		WithHint("The gateway operator must check " + quranKeyFormat + " (a client of the Quran Foundation API with the content scope).")
}

// quranTokens caches access tokens per token host and client until shortly before they expire.
var quranTokens = &tokenCache{tokens: map[string]cachedToken{}, now: time.Now}

type tokenCache struct {
	mu     sync.Mutex
	tokens map[string]cachedToken
	now    func() time.Time
}

type cachedToken struct {
	value   string
	expires time.Time
}

func (c *tokenCache) get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tokens[key]
	if !ok || !c.now().Add(quranTokenMargin).Before(t.expires) {
		return "", false
	}
	return t.value, true
}

func (c *tokenCache) put(key, value string, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tokens[key] = cachedToken{value: value, expires: c.now().Add(ttl)}
}

func (c *tokenCache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.tokens, key)
}

package gateway

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/internal/telemetry"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// Principal is the authenticated caller: key, tenant and plan. An OAuth access token
// (oauth.go) is a Principal too: its Key is the grant's (ID the grant id, the grant's mode and
// scope), and Grant is set.
type Principal struct {
	Key    *tenants.APIKey
	Tenant *tenants.Tenant
	Plan   *tenants.Plan
	// Manage: the key may call the management API (requireManage).
	Manage bool
	Grant  *tenants.OAuthGrant
}

// Mode is the provider mode of the caller's key.
func (p *Principal) Mode() providers.Mode {
	if p.Key.Mode == tenants.ModeTest {
		return providers.ModeTest
	}
	return providers.ModeLive
}

func principalOf(c *fiber.Ctx) *Principal {
	p, _ := c.Locals("principal").(*Principal)
	return p
}

// authCache keeps key lookups per instance for a few seconds: a revocation elsewhere applies
// within the TTL, on this instance at once (forget).
type authCache struct {
	store Accounts
	ttl   time.Duration

	mu      sync.Mutex
	entries map[string]authEntry
	touched map[string]time.Time
}

type authEntry struct {
	p       *Principal // nil: the key is unknown or revoked
	expires time.Time
}

func newAuthCache(store Accounts, ttl time.Duration) *authCache {
	return &authCache{store: store, ttl: ttl, entries: map[string]authEntry{}, touched: map[string]time.Time{}}
}

func (a *authCache) forget() {
	a.mu.Lock()
	a.entries = map[string]authEntry{}
	a.mu.Unlock()
}

func (a *authCache) lookup(ctx context.Context, raw string) (*Principal, error) {
	return a.lookupHash(ctx, tenants.HashKey(raw), tenants.WellFormedAccessToken(raw))
}

// lookupHash is lookup of a key's (or, oauth, an access token's) hash.
func (a *authCache) lookupHash(ctx context.Context, hash string, oauth bool) (*Principal, error) {
	now := time.Now()
	a.mu.Lock()
	e, ok := a.entries[hash]
	a.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.p, nil
	}
	expires := now.Add(a.ttl)
	var p *Principal
	var err error
	if oauth {
		var until time.Time
		p, until, err = a.loadOAuth(ctx, hash)
		if !until.IsZero() && until.Before(expires) {
			expires = until // an access token is never served from the cache past its lifetime
		}
	} else {
		p, err = a.load(ctx, hash)
	}
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	if len(a.entries) > 100000 {
		a.entries = map[string]authEntry{}
	}
	a.entries[hash] = authEntry{p: p, expires: expires}
	a.mu.Unlock()
	return p, nil
}

func (a *authCache) load(ctx context.Context, hash string) (*Principal, error) {
	k, err := a.store.KeyByHash(ctx, hash)
	if errors.Is(err, tenants.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if k.RevokedAt != nil {
		return nil, nil
	}
	t, err := a.store.Tenant(ctx, k.TenantID)
	if err != nil {
		return nil, err
	}
	p, err := a.store.Plan(ctx, t.PlanID)
	if err != nil {
		return nil, err
	}
	return &Principal{Key: k, Tenant: t, Plan: p, Manage: k.Manage}, nil
}

// loadOAuth makes the Principal of an OAuth access token: its grant's tenant, mode and scope.
func (a *authCache) loadOAuth(ctx context.Context, hash string) (*Principal, time.Time, error) {
	g, until, err := a.store.OAuthAccess(ctx, hash)
	if errors.Is(err, tenants.ErrNotFound) {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	t, err := a.store.Tenant(ctx, g.TenantID)
	if err != nil {
		return nil, time.Time{}, err
	}
	p, err := a.store.Plan(ctx, t.PlanID)
	if err != nil {
		return nil, time.Time{}, err
	}
	k := &tenants.APIKey{ID: g.ID, TenantID: g.TenantID, Mode: g.Mode, Label: "OAuth: " + g.ClientName, Prefix: "cap_oat_", CreatedAt: g.CreatedAt,
		Scope: g.Scope}
	return &Principal{Key: k, Tenant: t, Plan: p, Grant: g}, until, nil
}

// touch records last use at most once a minute per key (or grant) and instance.
func (a *authCache) touch(ctx context.Context, p *Principal) {
	keyID := p.Key.ID
	now := time.Now()
	a.mu.Lock()
	last := a.touched[keyID]
	due := now.Sub(last) > time.Minute
	if due {
		a.touched[keyID] = now
	}
	a.mu.Unlock()
	if !due {
		return
	}
	if p.Grant != nil {
		_ = a.store.TouchOAuthGrant(ctx, keyID, tenants.Now())
		return
	}
	_ = a.store.TouchKey(ctx, keyID, tenants.Now())
}

// rateCountedLocal marks a request already counted against the rate limit: an MCP message and the
// read-only /v1 requests it dispatches count once (gateway/mcp.go).
const rateCountedLocal = "rate_counted"

func unauthorized(msg string) *Error {
	return &Error{Code: providers.CodeUnauthorized, Message: msg,
		Hint: "send Authorization: Bearer cap_live_… (or cap_test_… for the sandbox), or an OAuth access token"}
}

// challenge is a 401 with RFC 6750's and RFC 9728's WWW-Authenticate: it points an MCP host at
// the protected-resource metadata, from which it finds the authorization server and signs in.
// invalidToken adds error="invalid_token" (a token was sent but is not good).
func (s *Server) challenge(c *fiber.Ctx, msg string, invalidToken bool) error {
	v := `Bearer resource_metadata="` + s.resourceMetadataURL(c.Path()) + `"`
	if invalidToken {
		v += `, error="invalid_token", error_description="` + strings.ReplaceAll(msg, `"`, "'") + `"`
	}
	c.Set(fiber.HeaderWWWAuthenticate, v)
	return unauthorized(msg)
}

// authenticate requires a valid bearer key of an active tenant.
func (s *Server) authenticate(c *fiber.Ctx) error {
	if p, ok := c.Locals(consolePrincipal{}).(*Principal); ok && p != nil {
		// An in-process call of the console (TestCall); no request from outside can set it.
		if p.Tenant.Status != tenants.StatusActive {
			return unauthorized("the account is suspended")
		}
		c.Locals("principal", p)
		return c.Next()
	}
	h := c.Get(fiber.HeaderAuthorization)
	if h == "" {
		return s.challenge(c, "missing API key", false)
	}
	scheme, raw, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return s.challenge(c, "the Authorization header must use the Bearer scheme", false)
	}
	raw = strings.TrimSpace(raw)
	oauth := tenants.WellFormedAccessToken(raw)
	if !oauth && !tenants.WellFormedKey(raw) {
		return s.challenge(c, "the API key is malformed", true)
	}
	ctx, span := telemetry.Start(c.UserContext(), "authenticate")
	hash := tenants.HashKey(raw)
	p, err := s.auth.lookupHash(ctx, hash, oauth)
	telemetry.End(span, err, string(providers.CodeServiceUnavailable))
	if err != nil {
		return &Error{Code: providers.CodeServiceUnavailable, Message: "the account store is unavailable; retry shortly", Cause: err}
	}
	if p == nil {
		if oauth {
			return s.challenge(c, "the access token is unknown, expired or revoked", true)
		}
		return s.challenge(c, "the API key is unknown or revoked", true)
	}
	// Expiry is checked on every request, never cached past it (the cache may hold the key).
	if now := time.Now(); p.Key.Expired(now) {
		e := unauthorized("the API key expired at " + p.Key.ExpiresAt.UTC().Format(time.RFC3339))
		e.Hint = "create a new key, or extend this key's expires_at"
		return e
	} else if p.Grant == nil && p.Key.Hash != hash && !p.Key.PreviousValid(now) {
		// The previous secret of a rolled key: valid only until the roll's overlap ends.
		e := unauthorized("this secret was replaced when the key was rolled and its overlap has ended")
		e.Hint = "use the key's new secret"
		return e
	}
	if p.Tenant.Status != tenants.StatusActive {
		c.Locals(logSuspendedLocal, p) // the request log shows the tenant its refused call
		return unauthorized("the account is suspended")
	}
	c.Locals("principal", p)
	s.auth.touch(c.UserContext(), p)
	return c.Next()
}

// limitRate applies the tenant's plan rate (after authenticate) and sets the RateLimit-*
// headers; a request the agents' protocol already counted passes.
func (s *Server) limitRate(c *fiber.Ctx) error {
	if counted, _ := c.Locals(rateCountedLocal).(bool); counted {
		return c.Next()
	}
	p := principalOf(c)
	ctx, span := telemetry.Start(c.UserContext(), "rate limit")
	rr, err := s.opts.Limiter.Allow(ctx, p.Tenant.ID, p.Plan.RatePerMinute)
	keyLimited := false
	if err == nil && rr.Allowed && p.Key.RatePerMinute > 0 {
		// A key with its own rate (never above the plan's) is limited by its own bucket too; the
		// headers show the tighter allowance. Keys without one add no work.
		var kr RateResult
		kr, err = s.opts.Limiter.Allow(ctx, keyRateID(p.Key.ID), p.Key.EffectiveRate(p.Plan))
		if err == nil && (!kr.Allowed || kr.Remaining < rr.Remaining) {
			rr, keyLimited = kr, true
		}
	}
	telemetry.End(span, err, "limiter_unavailable")
	if err != nil {
		// Fail open: a limiter outage must not take the API down. It is measured per call and
		// logged once per outage (a line per call flooded the log while every call succeeded).
		if s.limiterDown.CompareAndSwap(false, true) {
			s.log.Warn("rate limiter unavailable; requests pass unlimited until it answers again", "request_id", requestID(c), "err", err)
		}
		s.metrics.limiterErrors.Inc()
	} else {
		if s.limiterDown.CompareAndSwap(true, false) {
			s.log.Info("rate limiter answers again")
		}
		c.Set("RateLimit-Limit", strconv.Itoa(rr.Limit))
		c.Set("RateLimit-Remaining", strconv.Itoa(rr.Remaining))
		c.Set("RateLimit-Reset", strconv.Itoa(int(math.Ceil(rr.ResetAfter.Seconds()))))
		if !rr.Allowed {
			s.metrics.rateLimited.Inc()
			if keyLimited {
				return &Error{Code: providers.CodeRateLimited, Message: "rate limit reached for this API key",
					RetryAfter: rr.RetryAfter, Hint: "this key has its own rate_per_minute; wait for Retry-After seconds, or raise the key's rate up to the plan's"}
			}
			return &Error{Code: providers.CodeRateLimited, Message: "rate limit reached for this account's plan",
				RetryAfter: rr.RetryAfter, Hint: "wait for Retry-After seconds; RateLimit-* headers show the allowance"}
		}
	}
	return c.Next()
}

// keyRateID is a key's own bucket in the limiter (tenant ids never start with it).
func keyRateID(keyID string) string { return "key:" + keyID }

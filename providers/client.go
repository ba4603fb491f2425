package providers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sony/gobreaker/v2"
)

// DefaultMaxBody is the upstream response size limit (the spec's 8 MiB metadata limit).
const DefaultMaxBody = 8 << 20

// Provider is one upstream API.
type Provider struct {
	ID    string
	Title string
	// BaseURL is the default base URL; "" when every deployment must set PROVIDER_<ID>_URL.
	BaseURL string
	// KeyRequired makes the provider unavailable until a key is set.
	KeyRequired bool
	// KeyNote ends the unavailable reason of a KeyRequired provider without a key: which key.
	KeyNote string
	// SignUp is the page where an operator gets the provider's key (the console's going-live card).
	SignUp string
	// OwnHostKey is the key used, when none is set, with a base URL other than BaseURL (the
	// deployment's own mirror, or a test double): there KeyRequired, which comes from the
	// public host's terms, does not hold.
	OwnHostKey string
	// KeyOf names the provider whose key this one uses when it has none of its own (several hosts
	// of one account).
	KeyOf string
	// KeyedURL replaces the default BaseURL when a key is in use (a commercial host); a base URL
	// the deployment set is kept.
	KeyedURL string
	// Authorize adds the key to a request (header or query parameter); nil for keyless providers.
	Authorize func(r *http.Request, key string)
	// Sandbox answers the provider's real endpoint paths with recorded-shape fixtures for test keys.
	Sandbox http.Handler
	// RequestsPerSecond, when set, bounds the calls to the provider (evenly spaced); shared by the
	// fleet when a Redis pacer is configured.
	RequestsPerSecond float64
	// Limits are further documented allowances (per minute, hour, day), paced like
	// RequestsPerSecond.
	Limits []Limit
	// LimitGroup names an allowance several providers share (hosts of one upstream); default ID.
	LimitGroup string
	// ContactRequired makes the provider unavailable in live mode until GATEWAY_CONTACT is set:
	// the upstream requires contact details in the User-Agent. It is the public host's policy, so
	// a base URL of the deployment's own (PROVIDER_<ID>_URL) is not held to it.
	ContactRequired bool
	// MaxBody overrides DefaultMaxBody.
	MaxBody int64
	// Cache is what the provider's terms allow the shared upstream cache to keep (cache.go).
	Cache CacheRule
}

// AcceptsKey tells whether the provider takes a key of its own, required or optional (keyless
// providers, and hosts that use another provider's key, take none).
func (p *Provider) AcceptsKey() bool {
	return p.KeyRequired || p.Authorize != nil || p.KeyedURL != ""
}

// Setting is a provider's deployment configuration.
type Setting struct {
	URL string
	Key string
}

// ClientOptions configures the upstream client.
type ClientOptions struct {
	Version    string
	Contact    string
	Registerer prometheus.Registerer
	// BreakerFailures consecutive failures open a provider's breaker (default 5).
	BreakerFailures uint32
	// BreakerTimeout is how long an open breaker fails fast before a trial call (default 30 s).
	BreakerTimeout time.Duration
	// Transport overrides the live transport (tests).
	Transport http.RoundTripper
	// Pacer holds calls under the providers' limits (default: in memory, this process only).
	Pacer Pacer
	// TraceProviders lists the providers whose live calls carry the W3C traceparent (the
	// deployment's own upstreams that join its traces). None by default: a third party's terms
	// or a request signature may not allow an extra header.
	TraceProviders []string
}

// Client is the one upstream HTTP client: deadline, per-provider breaker, size limit, 429
// handling, error mapping, User-Agent, redirect guard and metrics, applied once for every adapter.
type Client struct {
	opts      ClientOptions
	providers map[string]*Provider
	order     []*Provider
	userAgent string
	live      *http.Client

	mu       sync.RWMutex
	settings map[string]Setting
	lastErr  map[string]ProviderError

	breakers map[string]*gobreaker.CircuitBreaker[*Response]
	// bad is each live provider's run of bad answers: breaker failures and 2xx answers its adapter
	// could not decode. The breaker trips on it, since gobreaker counts the 2xx as a success
	// before the adapter decodes it.
	bad     map[string]*atomic.Uint32
	limits  map[string][]pacedLimit
	pacer   Pacer
	sandbox map[string]*http.Client
	traced  map[string]bool // providers that receive the traceparent
	// testBreakers are test mode's own breakers, per tenant (sandboxfault.go).
	testBreakers sandboxBreakers

	mCalls   *prometheus.CounterVec
	mLatency *prometheus.HistogramVec
	mBreaker *prometheus.GaugeVec
}

// ProviderError is the last failure seen from a provider, for the admin console.
type ProviderError struct {
	At      time.Time
	Message string
}

// Response is an upstream answer read in full (within the size limit).
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// badBefore is the provider's run of bad answers that this 2xx answer ended; an answer that
	// then does not decode puts it back, one longer (see Upstream.Decode).
	badBefore uint32
	live      bool
}

// NewClient builds the client for the given providers.
func NewClient(provs []*Provider, opts ClientOptions) *Client {
	if opts.BreakerFailures == 0 {
		opts.BreakerFailures = 5
	}
	if opts.BreakerTimeout == 0 {
		opts.BreakerTimeout = 30 * time.Second
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	c := &Client{
		opts:      opts,
		providers: map[string]*Provider{},
		settings:  map[string]Setting{},
		lastErr:   map[string]ProviderError{},
		breakers:  map[string]*gobreaker.CircuitBreaker[*Response]{},
		bad:       map[string]*atomic.Uint32{},
		limits:    map[string][]pacedLimit{},
		pacer:     opts.Pacer,
		sandbox:   map[string]*http.Client{},
		traced:    map[string]bool{},
		userAgent: "capgate/" + opts.Version,
	}
	for _, id := range opts.TraceProviders {
		c.traced[id] = true
	}
	if c.pacer == nil {
		c.pacer = NewMemoryPacer()
	}
	if opts.Contact != "" {
		c.userAgent += " (+" + opts.Contact + ")"
	}
	c.mCalls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "capgate_upstream_requests_total",
		Help: "Upstream calls by provider and outcome."}, []string{"provider", "outcome"})
	c.mLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "capgate_upstream_request_duration_seconds",
		Help: "Upstream call latency.", Buckets: prometheus.DefBuckets}, []string{"provider"})
	c.mBreaker = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "capgate_upstream_breaker_state",
		Help: "Breaker state per provider: 0 closed, 1 half-open, 2 open."}, []string{"provider"})
	if opts.Registerer != nil {
		opts.Registerer.MustRegister(c.mCalls, c.mLatency, c.mBreaker)
	}
	transport := opts.Transport
	if transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 64
		t.ResponseHeaderTimeout = 60 * time.Second
		transport = t
	}
	c.live = &http.Client{Transport: transport, CheckRedirect: c.checkRedirect}
	for _, p := range provs {
		if _, dup := c.providers[p.ID]; dup {
			panic("providers: duplicate provider id " + p.ID)
		}
		c.providers[p.ID] = p
		c.order = append(c.order, p)
		c.settings[p.ID] = Setting{URL: p.BaseURL}
		id := p.ID
		bad := &atomic.Uint32{}
		c.bad[id] = bad
		c.breakers[id] = gobreaker.NewCircuitBreaker[*Response](gobreaker.Settings{
			Name:        id,
			MaxRequests: 1,
			Timeout:     opts.BreakerTimeout,
			ReadyToTrip: func(cn gobreaker.Counts) bool {
				return cn.ConsecutiveFailures >= opts.BreakerFailures || bad.Load() >= opts.BreakerFailures
			},
			IsSuccessful: func(err error) bool {
				return err == nil || !isBreakerFailure(err)
			},
			OnStateChange: func(name string, from, to gobreaker.State) {
				c.mBreaker.WithLabelValues(name).Set(float64(to))
			},
		})
		c.mBreaker.WithLabelValues(id).Set(0)
		c.limits[id] = limitsOf(p)
		if p.Sandbox != nil {
			c.sandbox[id] = &http.Client{Transport: handlerTransport{SandboxOf(p)}}
		}
	}
	return c
}

// Providers lists the providers in registration order.
func (c *Client) Providers() []*Provider { return c.order }

// Provider finds a provider by id.
func (c *Client) Provider(id string) (*Provider, bool) {
	p, ok := c.providers[id]
	return p, ok
}

// Configure sets a provider's base URL and key; an empty URL keeps the provider's default.
func (c *Client) Configure(id string, s Setting) error {
	p, ok := c.providers[id]
	if !ok {
		return fmt.Errorf("unknown provider %q", id)
	}
	if s.URL == "" {
		s.URL = p.BaseURL
	}
	s.URL = strings.TrimRight(s.URL, "/")
	c.mu.Lock()
	c.settings[id] = s
	c.mu.Unlock()
	return nil
}

// Setting returns a provider's current configuration.
func (c *Client) Setting(id string) Setting {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.settings[id]
}

// Configured tells whether the provider can be called live, and why not.
func (c *Client) Configured(id string) (bool, string) {
	p, ok := c.providers[id]
	if !ok {
		return false, fmt.Sprintf("provider %s is not built into this gateway", id)
	}
	s := c.Setting(id)
	if s.URL == "" {
		return false, fmt.Sprintf("provider %s has no base URL in this deployment (set PROVIDER_%s_URL)", id, envName(id))
	}
	if p.ContactRequired && c.opts.Contact == "" && s.URL == p.BaseURL {
		return false, contactMissing(p)
	}
	if p.KeyRequired && c.effective(p).Key == "" {
		why := fmt.Sprintf("provider %s has no API key in this deployment (set PROVIDER_%s_KEY)", id, envName(id))
		if p.KeyNote != "" {
			why += ": " + p.KeyNote
		}
		return false, why
	}
	return true, ""
}

func envName(id string) string { return strings.ToUpper(id) }

// BreakerState is closed, half-open or open.
func (c *Client) BreakerState(id string) string {
	if b, ok := c.breakers[id]; ok {
		return b.State().String()
	}
	return "unknown"
}

// LastError is the provider's most recent failure, if any.
func (c *Client) LastError(id string) (ProviderError, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.lastErr[id]
	return e, ok
}

// Upstream returns the provider as a call in the given mode reaches it.
func (c *Client) Upstream(id string, mode Mode) *Upstream {
	p, ok := c.providers[id]
	if !ok {
		panic("providers: capability uses unregistered provider " + id)
	}
	u := &Upstream{c: c, p: p, mode: mode}
	if mode == ModeTest {
		u.BaseURL = sandboxBase(p)
		u.Key = "sandbox"
		return u
	}
	s := c.effective(p)
	u.BaseURL, u.Key = s.URL, s.Key
	return u
}

// effective is the setting live calls use: the key of KeyOf when the provider has none, and the
// KeyedURL instead of the default base URL when a key is in use.
func (c *Client) effective(p *Provider) Setting {
	s := c.Setting(p.ID)
	if s.Key == "" && p.KeyOf != "" {
		s.Key = c.Setting(p.KeyOf).Key
	}
	if s.Key == "" && p.OwnHostKey != "" && s.URL != p.BaseURL {
		s.Key = p.OwnHostKey
	}
	if s.Key != "" && p.KeyedURL != "" && s.URL == p.BaseURL {
		s.URL = p.KeyedURL
	}
	return s
}

func sandboxBase(p *Provider) string {
	base := "http://" + p.ID + ".sandbox.invalid"
	if u, err := url.Parse(p.BaseURL); err == nil {
		base += strings.TrimRight(u.Path, "/")
	}
	return base
}

func ptr[T any](v T) *T { return &v }

func sizeLabel(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// errCanceled marks a call whose caller went away: not the provider's fault.
var errCanceled = errors.New("the request was cancelled by its caller")

func transportError(ctx context.Context, id string, err error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return &Error{Code: CodeProviderTimeout, Message: fmt.Sprintf("the call to %s was cancelled", id), Cause: errCanceled}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || isTimeout(err) {
		return &Error{Code: CodeProviderTimeout, Message: fmt.Sprintf("%s did not answer in time", id), Cause: err}
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return &Error{Code: CodeProviderError, Message: fmt.Sprintf("%s refused the connection", id), Retryable: ptr(false), Cause: err}
	}
	var redirect *redirectRefused
	if errors.As(err, &redirect) {
		return &Error{Code: CodeProviderError, Message: redirect.Error(), Retryable: ptr(false), Cause: err}
	}
	return &Error{Code: CodeProviderError, Message: fmt.Sprintf("%s could not be reached", id), Retryable: ptr(true), Cause: err}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isBreakerFailure: transport failures, timeouts and 5xx count against a provider's breaker;
// a refusal of one request (4xx, oversize, 429) does not.
func isBreakerFailure(err error) bool {
	// A refused redirect is the target's doing (a caller-supplied URL), and a cancelled call the
	// caller's: neither says the provider is failing.
	var rr *redirectRefused
	if errors.As(err, &rr) || errors.Is(err, errCanceled) {
		return false
	}
	e, ok := AsError(err)
	if !ok {
		return true
	}
	switch e.Code {
	case CodeProviderTimeout:
		return true
	case CodeProviderError:
		return e.UpstreamStatus == 0 || e.UpstreamStatus >= 500
	}
	return false
}

// parseRetryAfter reads Retry-After (seconds or an HTTP date); given is false when it is absent
// or unreadable. A date in the past means "now".
func parseRetryAfter(v string) (wait time.Duration, given bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
}

type redirectRefused struct{ host string }

func (r *redirectRefused) Error() string {
	return "the upstream redirected to a private address (" + r.host + "); the redirect was refused"
}

// checkRedirect refuses a redirect from a public host to a loopback, private, link-local or
// metadata address, and more than 5 redirects.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	origin := via[0].URL.Hostname()
	originPublic, _ := HostIsPublic(req.Context(), nil, origin)
	if !originPublic {
		return nil // a configured private base URL (an internal mirror, a test fake) is trusted
	}
	public, err := HostIsPublic(req.Context(), nil, req.URL.Hostname())
	if err != nil || !public {
		return &redirectRefused{host: req.URL.Hostname()}
	}
	return nil
}

// handlerTransport serves requests from an http.Handler: the sandbox.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if f := sandboxScopeOf(req.Context()).fault; f == FaultTimeout {
		return nil, sandboxTimeout{}
	} else if res := faultResponse(f, req); res != nil {
		return res, nil
	}
	rec := newRecorder()
	t.h.ServeHTTP(rec, req)
	return rec.result(req), nil
}

package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/capgate/capgate/internal/telemetry"
	"github.com/capgate/capgate/providers/lenient"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/sony/gobreaker/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
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

// Upstream is one provider bound to a call's mode.
type Upstream struct {
	c       *Client
	p       *Provider
	mode    Mode
	BaseURL string
	Key     string
}

// ID is the provider id.
func (u *Upstream) ID() string { return u.p.ID }

// Available tells whether calls can be made (always in the sandbox).
func (u *Upstream) Available() bool {
	if u.mode == ModeTest {
		return u.p.Sandbox != nil
	}
	ok, _ := u.c.Configured(u.p.ID)
	return ok
}

// BreakerOpen tells whether the provider's breaker is failing fast (fallback adapters check it).
func (u *Upstream) BreakerOpen() bool {
	return u.mode == ModeLive && u.c.breakers[u.p.ID].State() == gobreaker.StateOpen
}

// URL joins the base URL, a path and a query.
func (u *Upstream) URL(path string, q url.Values) string {
	s := u.BaseURL + path
	if len(q) > 0 {
		if strings.Contains(s, "?") {
			s += "&" + q.Encode()
		} else {
			s += "?" + q.Encode()
		}
	}
	return s
}

// NewRequest builds a request to path under the base URL.
func (u *Upstream) NewRequest(ctx context.Context, method, path string, q url.Values, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u.URL(path, q), body)
	if err != nil {
		return nil, &Error{Code: CodeInternal, Message: "could not build the upstream request", Cause: err}
	}
	return req, nil
}

// Get calls GET path?q and returns the answer (2xx only; other statuses are errors).
func (u *Upstream) Get(ctx context.Context, path string, q url.Values, header http.Header) (*Response, error) {
	req, err := u.NewRequest(ctx, http.MethodGet, path, q, nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	return u.Do(req)
}

// GetJSON calls GET path?q and decodes the JSON answer into out.
func (u *Upstream) GetJSON(ctx context.Context, path string, q url.Values, out any) error {
	resp, err := u.Get(ctx, path, q, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return err
	}
	return u.Decode(resp, out)
}

// Decode decodes a JSON answer in one streaming pass (lenient.Unmarshal: encoding/json's
// semantics, the lenient types read from the token stream); malformed JSON is a provider_error.
func (u *Upstream) Decode(resp *Response, out any) error {
	if err := lenient.Unmarshal(resp.Body, out); err != nil {
		e := &Error{Code: CodeProviderError, Message: fmt.Sprintf("%s answered malformed JSON", u.p.ID), Cause: err}
		u.c.noteError(u.p.ID, e)
		u.Undecodable(resp, e)
		return e
	}
	return nil
}

// Undecodable reports a live 2xx answer the adapter could not use (not JSON, not the documented
// shape) to the provider's breaker as a failure: a provider that answers garbage is failing as
// much as one that answers 500.
func (u *Upstream) Undecodable(resp *Response, err error) {
	if resp == nil || !resp.live {
		return
	}
	id := u.p.ID
	u.c.bad[id].Add(resp.badBefore + 1)
	resp.live = false // once per answer
	_, _ = u.c.breakers[id].Execute(func() (*Response, error) { return nil, err })
}

// readAnswer reads at most limit+1 bytes of an answer. A declared length within the limit sizes
// the buffer up front (one allocation instead of io.ReadAll's doublings); the declaration is
// only a hint, so a body longer or shorter than declared is still read exactly.
func readAnswer(res *http.Response, limit int64) ([]byte, error) {
	r := io.LimitReader(res.Body, limit+1)
	n := res.ContentLength
	if n <= 0 || n > limit {
		return io.ReadAll(r)
	}
	buf := make([]byte, 0, n+1) // +1: a longer body shows without a reallocation
	for {
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		case len(buf) == cap(buf): // longer than declared
			rest, err := io.ReadAll(r)
			return append(buf, rest...), err
		}
	}
}

// Do sends the request through the limiter and breaker, with the User-Agent and key added, and
// maps every failure to the error vocabulary. Statuses outside 2xx are errors carrying the status.
// While tracing is on, the call is a client span (provider, method, status, error code: never
// the URL, which may hold a key or the query) and a provider listed in TraceProviders receives
// the traceparent.
func (u *Upstream) Do(req *http.Request) (*Response, error) {
	if !telemetry.Enabled() {
		return u.do(req)
	}
	ctx, span := telemetry.Start(req.Context(), "upstream "+u.p.ID, trace.WithSpanKind(trace.SpanKindClient))
	req = req.WithContext(ctx)
	// Before do, which adds the key: a signature then covers every header sent.
	if u.mode == ModeLive && u.c.traced[u.p.ID] {
		telemetry.Inject(ctx, req.Header)
	}
	resp, err := u.do(req)
	if span.IsRecording() {
		attrs := []attribute.KeyValue{attribute.String("capgate.provider", u.p.ID), attribute.String("capgate.mode", string(u.mode)),
			attribute.String("http.request.method", req.Method), attribute.String("capgate.breaker_state", u.c.BreakerState(u.p.ID))}
		if resp != nil {
			attrs = append(attrs, attribute.Int("http.response.status_code", resp.Status))
		} else if e, ok := AsError(err); ok && e.UpstreamStatus != 0 {
			attrs = append(attrs, attribute.Int("http.response.status_code", e.UpstreamStatus))
		}
		span.SetAttributes(attrs...)
	}
	code := ""
	if err != nil {
		code = string(codeOf(err))
	}
	telemetry.End(span, err, code)
	return resp, err
}

func (u *Upstream) do(req *http.Request) (*Response, error) {
	id := u.p.ID
	ctx := req.Context()
	if !u.Available() {
		why := fmt.Sprintf("provider %s has no sandbox for test keys", id)
		if u.mode == ModeLive {
			_, why = u.c.Configured(id)
		}
		return nil, &Error{Code: CodeCapabilityUnavailable, Message: why}
	}
	req.Header.Set("User-Agent", u.c.userAgent)
	if u.p.Authorize != nil && u.Key != "" {
		u.p.Authorize(req, u.Key)
	}
	if u.mode == ModeTest {
		return u.sandboxDo(req)
	}
	if len(u.c.limits[id]) > 0 {
		if err := u.c.pace(ctx, u); err != nil {
			e := &Error{Code: CodeProviderTimeout, Message: fmt.Sprintf("%s did not answer in time (queued behind its request rate limit)", id), Cause: err}
			u.c.mCalls.WithLabelValues(id, string(e.Code)).Inc()
			u.c.noteError(id, e)
			return nil, e
		}
	}
	start := time.Now()
	resp, err := u.c.breakers[id].Execute(func() (*Response, error) { return u.send(u.c.live, req) })
	u.c.mLatency.WithLabelValues(id).Observe(time.Since(start).Seconds())
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		u.c.mCalls.WithLabelValues(id, "breaker_open").Inc()
		return nil, &Error{Code: CodeServiceUnavailable, Message: fmt.Sprintf("%s is failing; calls are paused for a moment", id),
			RetryAfter: u.c.opts.BreakerTimeout, Cause: err}
	}
	if err != nil {
		if isBreakerFailure(err) {
			u.c.bad[id].Add(1)
		} else {
			u.c.bad[id].Store(0)
		}
		u.c.mCalls.WithLabelValues(id, string(codeOf(err))).Inc()
		u.c.noteError(id, err)
		return nil, err
	}
	resp.badBefore, resp.live = u.c.bad[id].Swap(0), true
	u.c.mCalls.WithLabelValues(id, "ok").Inc()
	return resp, nil
}

func codeOf(err error) Code {
	if e, ok := AsError(err); ok {
		return e.Code
	}
	return CodeInternal
}

func (c *Client) noteError(id string, err error) {
	c.mu.Lock()
	c.lastErr[id] = ProviderError{At: time.Now().UTC(), Message: err.Error()}
	c.mu.Unlock()
}

func (u *Upstream) send(hc *http.Client, req *http.Request) (*Response, error) {
	id := u.p.ID
	ctx := req.Context()
	res, err := hc.Do(req)
	if err != nil {
		// The URL may carry a key (a query parameter or a path segment): keep only the cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, transportError(ctx, id, err)
	}
	defer res.Body.Close()
	limit := u.p.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	body, err := readAnswer(res, limit)
	if err != nil {
		if ctx.Err() != nil || isTimeout(err) {
			return nil, transportError(ctx, id, err)
		}
		// Connected and answering, then the body broke off: not "could not be reached".
		return nil, &Error{Code: CodeProviderError, Message: fmt.Sprintf("%s sent a truncated answer", id), Retryable: ptr(true),
			UpstreamStatus: 0, Cause: err}
	}
	if int64(len(body)) > limit {
		return nil, &Error{Code: CodeProviderError, Message: fmt.Sprintf("%s answered more than %s", id, sizeLabel(limit)),
			Retryable: ptr(false), UpstreamStatus: res.StatusCode}
	}
	r := &Response{Status: res.StatusCode, Header: res.Header, Body: body}
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
		return r, nil
	case res.StatusCode == http.StatusTooManyRequests:
		wait, given := parseRetryAfter(res.Header.Get("Retry-After"))
		if given && wait <= time.Minute {
			return nil, &Error{Code: CodeRateLimited, Message: fmt.Sprintf("%s is rate limiting this gateway; retry shortly", id),
				RetryAfter: wait, UpstreamStatus: 429, Body: body}
		}
		return nil, &Error{Code: CodeProviderAllowance, Message: fmt.Sprintf("%s's allowance for this gateway is used up", id),
			RetryAfter: wait, UpstreamStatus: 429, Body: body}
	case res.StatusCode >= 500:
		return nil, &Error{Code: CodeProviderError, Message: fmt.Sprintf("%s failed (HTTP %d)", id, res.StatusCode),
			Retryable: ptr(true), UpstreamStatus: res.StatusCode, Body: body}
	default:
		return nil, &Error{Code: CodeProviderError, Message: fmt.Sprintf("%s refused the request (HTTP %d)", id, res.StatusCode),
			Retryable: ptr(false), UpstreamStatus: res.StatusCode, Body: body}
	}
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

// Package gateway is the HTTP surface of capgate: the fiber app, its middleware (request id,
// recovery, logging, metrics, authentication, rate limits, body limit) and the handlers of the
// /v1 API. Every error leaves through one handler as the spec's envelope.
package gateway

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/capgate/capgate/gateway/sharedcache"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// maxBody is the largest request body the API accepts, and the HTTP server's read limit too:
// fasthttp allocates a body's declared length before reading it, so a larger read limit let each
// unauthenticated connection hold that much memory (100 slow connections took 871 MB at 8 MiB).
// A body over the limit is answered 413 in the envelope and the connection closed.
const maxBody = 1 << 20

// DefaultMaxConnsPerIP is the default cap on connections open at once from one client address.
const DefaultMaxConnsPerIP = 512

// DrainTimeout is how long a stopping server lets running requests finish (SIGTERM): a
// deployment's termination grace period must cover it (deploy/helm checks).
const DrainTimeout = 30 * time.Second

// Options are the server's dependencies.
type Options struct {
	// DB is checked by readiness (reachable, migrations current).
	DB           *tenants.DB
	Accounts     Accounts
	Meter        Meter
	Sessions     Searches
	Client       *providers.Client
	Capabilities []*providers.Capability
	Limiter      RateLimiter
	Logger       *slog.Logger
	Registry     *prometheus.Registry
	PublicURL    string
	SessionTTL   time.Duration
	Version      string
	// KeyCacheTTL bounds how long another instance may keep serving a revoked key (default 5 s).
	KeyCacheTTL time.Duration
	// Reviewers is sharpen's panel of reviewer families (providers/upstream/reviewers.NewPanel, with the
	// deployment's SHARPEN_MODEL_<FAMILY>_<TIER> overrides); nil: sharpen has no reviewer.
	Reviewers Reviewers
	// Ready adds checks to /readyz beyond the database (for example Redis).
	Ready func(ctx context.Context) error
	// TrustedProxies lists the addresses (IPs or CIDRs) of the reverse proxies in front; only a
	// request from one of them has its client address taken from X-Forwarded-For (c.IP()).
	TrustedProxies []string
	// MetricsToken, when set, is the bearer token /metrics requires.
	MetricsToken string
	// MaxConnsPerIP caps the connections open at once from one client address (the TCP peer;
	// TrustedProxies are exempt). 0 means DefaultMaxConnsPerIP, negative means no cap.
	MaxConnsPerIP int
	// MCPAllowedOrigins and MCPAllowedHosts add to the origins and hosts /mcp accepts besides the
	// public URL and loopback ("*": any); see mcp_origin.go.
	MCPAllowedOrigins []string
	MCPAllowedHosts   []string
	// UpstreamCache, when set, is the shared cache of upstream answers (cache.go); nil answers
	// every page from the upstream (Capgate-Cache: bypass).
	UpstreamCache *sharedcache.Cache
	// RequestLog, when set, receives every answered call to /v1 and /mcp whose tenant is known
	// (requestlog.go); nil records nothing.
	RequestLog RequestLog
	// AdminToken, when set, enables the admin API (admin.go) for Authorization: Bearer <token>.
	AdminToken string
	// Sealer seals provider keys given over the admin API (nil: keys cannot be stored there).
	Sealer *tenants.Sealer
	// OAuthAccessTTL and OAuthRefreshTTL are the lifetimes of OAuth tokens (oauth.go; defaults
	// DefaultOAuthAccessTTL, DefaultOAuthRefreshTTL); OAuthRegistrationsPerMinute limits dynamic
	// client registrations per client address (0: the default, negative: no limit).
	OAuthAccessTTL              time.Duration
	OAuthRefreshTTL             time.Duration
	OAuthRegistrationsPerMinute int
}

// Server is the gateway.
type Server struct {
	opts Options
	// providersChanged applies stored provider settings after an admin API change.
	providersChanged atomic.Pointer[func(context.Context)]
	store            Accounts
	meter            Meter
	log              *slog.Logger
	auth             *authCache
	metrics          *metrics
	app              *fiber.App
	caps             map[string]*providers.Capability
	order            []*providers.Capability
	sessions         Searches
	origins          *originPolicy
	upcache          *sharedcache.Cache
	reqlog           RequestLog

	cacheMetrics *cacheMetrics

	limiterDown atomic.Bool // the rate limiter failed and has not answered since (logged once)

	openapiOnce sync.Once
	// samples keeps the API reference's test-mode samples by capability id (reference.go).
	samples sync.Map
	// inProcess is the app's handler for the console's test calls (reference.go).
	inProcessOnce sync.Once
	inProcess     fasthttp.RequestHandler
	openapiJSON   []byte
	openapiErr    error
}

// New builds the server and its routes.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Registry == nil {
		opts.Registry = prometheus.NewRegistry()
	}
	if opts.Limiter == nil {
		opts.Limiter = NewMemoryLimiter()
	}
	if opts.SessionTTL == 0 {
		opts.SessionTTL = 24 * time.Hour
	}
	if opts.KeyCacheTTL == 0 {
		opts.KeyCacheTTL = 5 * time.Second
	}
	if opts.OAuthAccessTTL <= 0 {
		opts.OAuthAccessTTL = DefaultOAuthAccessTTL
	}
	if opts.OAuthRefreshTTL <= 0 {
		opts.OAuthRefreshTTL = DefaultOAuthRefreshTTL
	}
	if opts.OAuthRegistrationsPerMinute == 0 {
		opts.OAuthRegistrationsPerMinute = DefaultOAuthRegistrationsPerMinute
	}
	opts.PublicURL = strings.TrimRight(opts.PublicURL, "/")
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{
		opts:    opts,
		store:   opts.Accounts,
		meter:   opts.Meter,
		log:     opts.Logger,
		metrics: newMetrics(opts.Registry, opts.Reviewers),
	}
	registerStoreFaults(opts.Registry, opts.Meter, opts.Sessions)
	s.auth = newAuthCache(s.store, opts.KeyCacheTTL)
	s.origins = newOriginPolicy(opts.PublicURL, opts.MCPAllowedOrigins, opts.MCPAllowedHosts)
	s.sessions = opts.Sessions
	s.upcache = opts.UpstreamCache
	s.reqlog = opts.RequestLog
	s.cacheMetrics = newCacheMetrics(opts.Registry, s.upcache)
	s.caps = map[string]*providers.Capability{}
	for _, c := range opts.Capabilities {
		if _, dup := s.caps[c.ID]; dup {
			panic("gateway: duplicate capability " + c.ID)
		}
		s.caps[c.ID] = c
		s.order = append(s.order, c)
	}
	s.app = fiber.New(fiber.Config{
		AppName:               "capgate",
		BodyLimit:             maxBody,
		ErrorHandler:          s.errorHandler,
		DisableStartupMessage: true,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          90 * time.Second,
		IdleTimeout:           120 * time.Second,
		ReadBufferSize:        16 << 10,
		// An answer up to 16 KiB (a page of results with its headers) leaves in one write: with
		// fasthttp's default 4 KiB the headers went in one system call and the body in another.
		WriteBufferSize: 16 << 10,
		// /METRICS and /metrics/ are not /metrics: a path rule in a proxy in front cannot be
		// sidestepped by spelling a path another way.
		StrictRouting: true,
		CaseSensitive: true,
		// The client address is the proxy's X-Forwarded-For only when the connection comes from
		// a trusted proxy, which must overwrite the header (deploy/nginx.conf); fiber takes its
		// first valid address.
		ProxyHeader:             fiber.HeaderXForwardedFor,
		EnableTrustedProxyCheck: true,
		TrustedProxies:          opts.TrustedProxies,
		EnableIPValidation:      true,
	})
	s.routes()
	return s
}

// App is the fiber app (tests call App().Test).
func (s *Server) App() *fiber.App { return s.app }

// Listen serves on addr until ctx ends, then shuts down gracefully.
func (s *Server) Listen(ctx context.Context, addr string) error {
	ln, err := Bind(addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Bind opens the API's listening socket on the network the server answers on (TCP over IPv4,
// fiber's default). Port 0 takes a free port, which the listener's Addr names: bound before
// the server is made, the public URL can name it too.
func Bind(addr string) (net.Listener, error) { return net.Listen(fiber.NetworkTCP4, addr) }

// Serve answers on ln (from Bind) until ctx ends, as Listen does.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	conns := newUnusedConns(ln)
	if n := s.opts.MaxConnsPerIP; n >= 0 {
		if n == 0 {
			n = DefaultMaxConnsPerIP
		}
		conns.limitPerIP(n, s.opts.TrustedProxies)
	}
	errc := make(chan error, 1)
	go func() { errc <- s.app.Listener(conns) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		done := make(chan struct{})
		defer close(done)
		go func() { // also catches a connection accepted while the listener closes
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				conns.closeUnused()
				select {
				case <-done:
					return
				case <-t.C:
				}
			}
		}()
		return s.app.ShutdownWithTimeout(DrainTimeout)
	}
}

// ForgetKeys drops cached key lookups so a revocation or plan change on this instance applies at once.
func (s *Server) ForgetKeys() { s.auth.forget() }

// RunMaintenance sweeps expired sessions and durable request ids every interval until ctx ends.
func (s *Server) RunMaintenance(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.sessions.Sweep(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("session sweep failed", "err", err)
			}
			if _, err := s.store.SweepIdempotent(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("idempotency sweep failed", "err", err)
			}
			if _, err := s.store.SweepOAuth(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("oauth sweep failed", "err", err)
			}
		}
	}
}

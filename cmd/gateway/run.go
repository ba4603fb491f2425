package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/console"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/sharedcache"
	"github.com/capgate/capgate/internal/telemetry"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/fitness"
	"github.com/capgate/capgate/providers/registry"
	"github.com/capgate/capgate/providers/upstream/reviewers"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/searches"
)

// Version is set at build time with -ldflags "-X main.Version=…".
var Version = "0.1.0-dev"

// usageError is a wrong invocation: one line on stderr, exit status 2, nothing written.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

const usage = `usage: gateway <command>
  serve                 apply pending migrations, then serve on GATEWAY_ADDR
  migrate               apply migrations and seed the default plans
  admin plan|tenant|key|user …   administer (prints one JSON object)
  version               print the version`

func run(ctx context.Context, args []string, env getenv, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "version", "--version", "-v":
		err = writeJSON(stdout, map[string]string{"version": Version, "api_version": gateway.APIVersion, "contract_revision": gateway.ContractRevision})
	case "serve":
		err = serve(ctx, args[1:], env, stdout, stderr)
	case "migrate":
		err = migrateCmd(ctx, args[1:], env, stdout)
	case "admin":
		err = admin(ctx, args[1:], env, stdout)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
	default:
		err = usagef("unknown command %q (serve, migrate, admin, version)", args[0])
	}
	if err == nil {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "gateway: "+ue.msg)
		return 2
	}
	fmt.Fprintln(stderr, "gateway: "+oneLine(err.Error()))
	return 1
}

func oneLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// openDB opens and migrates the database and seeds the default plans.
func openDB(ctx context.Context, cfg *Config) (*tenants.DB, int, error) {
	db, err := tenants.Open(cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, 0, err
	}
	n, err := db.Migrate(ctx)
	if err != nil {
		db.Close()
		return nil, 0, fmt.Errorf("migrate: %w", err)
	}
	if _, err := tenants.NewStore(db).SeedPlans(ctx); err != nil {
		db.Close()
		return nil, 0, fmt.Errorf("seed plans: %w", err)
	}
	return db, n, nil
}

func migrateCmd(ctx context.Context, args []string, env getenv, stdout io.Writer) error {
	if len(args) > 0 {
		return usagef("migrate takes no arguments")
	}
	cfg, err := loadConfig(env, nil)
	if err != nil {
		return usagef("%v", err)
	}
	db, n, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	return writeJSON(stdout, map[string]any{"applied": n, "dialect": db.Kind})
}

// listen binds the API's socket before the server is made: GATEWAY_ADDR with port 0 takes a
// free port (tests start many instances at once; a port picked first and bound later can be
// taken by another process in between), and the default public URL names the port bound.
func listen(cfg *Config) (net.Listener, error) {
	ln, err := gateway.Bind(cfg.Addr)
	if err != nil {
		return nil, err
	}
	if cfg.publicURLFromAddr {
		cfg.PublicURL = "http://" + ln.Addr().String()
	}
	return ln, nil
}

// newCaches makes the shared upstream cache (nil when off) and the session store; close
// closes both.
func newCaches(cfg *Config, db *tenants.DB, rdb *redis.Client, log *slog.Logger) (*sharedcache.Cache, *searches.Store, func(), error) {
	upcache, sessionMB, err := newSharedCache(cfg, rdb, log)
	if err != nil {
		return nil, nil, nil, err
	}
	sessions, err := searches.NewStore(db, cfg.SessionTTL, sessionMB)
	if err != nil {
		if upcache != nil {
			upcache.Close()
		}
		return nil, nil, nil, err
	}
	return upcache, sessions, func() {
		sessions.Close()
		if upcache != nil {
			upcache.Close()
		}
	}, nil
}

func serve(ctx context.Context, args []string, env getenv, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return usagef("serve takes no arguments; configure it with the environment")
	}
	cfg, err := loadConfig(env, registry.ProviderIDs())
	if err != nil {
		return usagef("%v", err)
	}
	log := cfg.logger(stderr)
	if err := cfg.ensureMasterKey(); err != nil {
		return err
	}
	db, applied, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	log.Info("database ready", "dialect", db.Kind, "migrations_applied", applied)

	flushTraces, err := startTracing(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer flushTraces() // after the drain: the spans of the last calls and commits are flushed too

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(tenants.Collectors()...)
	// With Redis, tenants' rate limits and the upstreams' politeness limits hold for the fleet.
	var lim *gateway.RedisLimiter
	var rdb *redis.Client
	clientOpts := providers.ClientOptions{Version: Version, Contact: cfg.Contact, Registerer: reg, TraceProviders: cfg.TraceProviders}
	if cfg.RedisURL != "" {
		if lim, rdb, err = connectRedis(ctx, cfg.RedisURL, log); err != nil {
			return err
		}
		defer rdb.Close()
		clientOpts.Pacer = redisPacer(rdb, log)
	}
	client, err := newClient(cfg, clientOpts, log)
	if err != nil {
		return err
	}
	upcache, sessions, closeCaches, err := newCaches(cfg, db, rdb, log)
	if err != nil {
		return err
	}
	defer closeCaches()

	var signIns console.SignInLimiter
	store := tenants.NewStore(db)
	meter := tenants.NewMeter(db, tenants.MeterOptions{LeaseTTL: cfg.LeaseTTL, Logger: log})
	// Leases go back to their periods once the server has stopped answering.
	defer meter.Close()
	startMeter(ctx, meter, reg, log)
	// The request log is written off the hot path; Close (deferred, after the server stopped)
	// writes what is still buffered.
	reqlog := startRequestLog(db, cfg, reg, log)
	defer reqlog.Close()
	panel := reviewers.NewPanel(cfg.SharpenModels)  // sharpen's reviewer families (gateway.Reviewers)
	sealer, err := tenants.NewSealer(cfg.MasterKey) // provider keys given over the admin API
	if err != nil {
		return err
	}
	ln, err := listen(cfg)
	if err != nil {
		return err
	}
	defer ln.Close() // closed by the server when it serves; here for the returns before that
	opts := gateway.Options{DB: db, Accounts: store, Meter: meter, Sessions: sessions, Client: client, RequestLog: reqlog, AdminToken: cfg.AdminToken, Sealer: sealer,
		Capabilities: registry.CapabilitiesWith(registry.TenantWorkouts(store)),
		Logger:       log, Registry: reg, PublicURL: cfg.PublicURL, SessionTTL: cfg.SessionTTL, Version: Version,
		Reviewers: panel, TrustedProxies: cfg.TrustedProxies, MetricsToken: cfg.MetricsToken, MaxConnsPerIP: cfg.MaxConnsPerIP,
		MCPAllowedOrigins: cfg.MCPAllowedOrigins, MCPAllowedHosts: cfg.MCPAllowedHosts, UpstreamCache: upcache,
		OAuthAccessTTL: cfg.OAuthAccessTTL, OAuthRefreshTTL: cfg.OAuthRefreshTTL, OAuthRegistrationsPerMinute: cfg.OAuthRegistrationsPerMinute}
	if rdb != nil {
		opts.Limiter = lim
		signIns = console.NewRedisSignInLimiter(rdb)
		// Redis is not part of readiness: without it the limits fail open (docs/operations.md),
		// and a balancer draining every instance while Redis is down would stop a working fleet.
	}
	srv := gateway.New(opts)
	if err := mountConsole(ctx, cfg, srv, store, client, panel, opts.Capabilities, signIns, log); err != nil {
		return err
	}
	// Instances starting together on one database bootstrap once.
	if err := db.Exclusive(ctx, func(ctx context.Context) error {
		return bootstrap(ctx, store, cfg, client.ContactProviders(), stdout)
	}); err != nil {
		return err
	}
	go srv.RunMaintenance(ctx, time.Minute)
	if cfg.PprofAddr != "" {
		go servePprof(ctx, cfg.PprofAddr, log)
	}
	log.Info("serving", "addr", ln.Addr().String(), "public_url", cfg.PublicURL, "version", Version)
	return srv.Serve(ctx, ln)
}

// startTracing sets up tracing as configured; the returned func flushes the spans left.
func startTracing(ctx context.Context, cfg *Config, log *slog.Logger) (func(), error) {
	shutdownTracing, err := telemetry.Setup(ctx, cfg.Tracing, Version)
	if err != nil {
		return nil, err
	}
	if cfg.Tracing.Enabled {
		log.Info("tracing on: spans go to the OTLP/HTTP endpoint", "endpoint", cfg.Tracing.Endpoint, "traceparent_providers", cfg.TraceProviders)
	}
	return func() {
		flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := shutdownTracing(flushCtx); err != nil {
			log.Warn("flushing traces failed", "err", err)
		}
	}, nil
}

// connectRedis opens the fleet's Redis (rate limits, upstream pacing, the shared cache) and checks
// that it answers.
func connectRedis(ctx context.Context, url string, log *slog.Logger) (*gateway.RedisLimiter, *redis.Client, error) {
	lim, rdb, err := gateway.NewRedisLimiter(url)
	if err != nil {
		return nil, nil, usagef("REDIS_URL: %v", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pingCtx).Err(); err != nil && !errors.Is(err, redis.Nil) {
		rdb.Close()
		return nil, nil, fmt.Errorf("redis: %w", err)
	}
	return lim, rdb, nil
}

// redisPacer paces the upstreams for the fleet through Redis, this instance alone while Redis is
// down.
func redisPacer(rdb *redis.Client, log *slog.Logger) *providers.RedisPacer {
	pacer := providers.NewRedisPacer(rdb, func(err error) {
		log.Warn("redis unavailable for upstream pacing; pacing this instance alone until it is back", "err", err)
	})
	pacer.OnRecover = func() { log.Info("redis is back for upstream pacing") }
	return pacer
}

// newSharedCache is the shared upstream cache (nil when GATEWAY_SHARED_CACHE is off) and the
// megabytes left for sessions: GATEWAY_CACHE_MB is the whole in-process budget, a quarter holds
// the shared cache's in-process tier, the rest the sessions.
func newSharedCache(cfg *Config, rdb *redis.Client, log *slog.Logger) (*sharedcache.Cache, int, error) {
	if !cfg.SharedCache {
		return nil, cfg.CacheMB, nil
	}
	upMB := max(cfg.CacheMB/4, 1)
	uo := sharedcache.Options{MemoryMB: upMB, Logger: log}
	if rdb != nil {
		uo.Redis = rdb
	}
	upcache, err := sharedcache.New(uo)
	if err != nil {
		return nil, 0, err
	}
	return upcache, max(cfg.CacheMB-upMB, 1), nil
}

// newClient is the upstream client of every provider, configured from the environment.
func newClient(cfg *Config, opts providers.ClientOptions, log *slog.Logger) (*providers.Client, error) {
	client := providers.NewClient(registry.Providers(), opts)
	if missing := client.ContactProviders(); len(missing) > 0 {
		log.Warn(contactNotice(missing))
	}
	for _, p := range client.Providers() {
		if u, k := cfg.ProviderURLs[p.ID], cfg.ProviderKeys[p.ID]; u != "" || k != "" {
			if err := client.Configure(p.ID, providers.Setting{URL: u, Key: k}); err != nil {
				return nil, err
			}
		}
	}
	return client, nil
}

// startMeter returns the leases of stopped instances and exports the group-commit writer's
// counters.
func startMeter(ctx context.Context, meter *tenants.Meter, reg prometheus.Registerer, log *slog.Logger) {
	if n, err := meter.Reconcile(ctx); err != nil {
		log.Warn("lease reconciliation failed", "err", err)
	} else if n > 0 {
		log.Info("returned the expired credit leases of stopped instances", "leases", n)
	}
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "capgate_commit_batches_total",
			Help: "Transactions of the group-commit writer (ledger rows and session writes)."},
			func() float64 { b, _ := meter.CommitStats(); return float64(b) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "capgate_commit_calls_total",
			Help: "Calls committed by the group-commit writer; divided by the batches, the average batch size."},
			func() float64 { _, c := meter.CommitStats(); return float64(c) }))
}

// startRequestLog starts the request log's background writer and exports its counters.
func startRequestLog(db *tenants.DB, cfg *Config, reg prometheus.Registerer, log *slog.Logger) *tenants.RequestLog {
	reqlog := tenants.NewRequestLog(db, tenants.RequestLogOptions{Logger: log, Retention: cfg.RequestLogRetention})
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "capgate_request_log_written_total",
			Help: "Request log entries written."},
			func() float64 { w, _, _, _ := reqlog.Stats(); return float64(w) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "capgate_request_log_dropped_total",
			Help: "Request log entries dropped because the writer's buffer was full (the call was never held up)."},
			func() float64 { _, d, _, _ := reqlog.Stats(); return float64(d) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "capgate_request_log_failed_total",
			Help: "Request log entries lost to a failed batch insert."},
			func() float64 { _, _, f, _ := reqlog.Stats(); return float64(f) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "capgate_request_log_pruned_total",
			Help: "Request log entries deleted after the retention."},
			func() float64 { _, _, _, p := reqlog.Stats(); return float64(p) }))
	return reqlog
}

// mountConsole serves the web console on the gateway's app and keeps the provider settings an
// admin saves there in force.
func mountConsole(ctx context.Context, cfg *Config, srv *gateway.Server, store *tenants.Store, client *providers.Client,
	panel *reviewers.Panel, caps []*providers.Capability, signIns console.SignInLimiter, log *slog.Logger) error {
	sealer, err := tenants.NewSealer(cfg.MasterKey)
	if err != nil {
		return err
	}
	envSettings := map[string]providers.Setting{}
	for _, p := range client.Providers() {
		envSettings[p.ID] = providers.Setting{URL: cfg.ProviderURLs[p.ID], Key: cfg.ProviderKeys[p.ID]}
	}
	cons := console.New(console.Options{Store: store, Client: client, Capabilities: caps, Sealer: sealer,
		Logger: log, Env: envSettings, ReviewerModels: reviewerModels(cfg.SharpenModels), RetiredReviewers: retiredReviewers(panel),
		AccessChanged: srv.ForgetKeys, SignInLimiter: signIns, PublicURL: cfg.PublicURL,
		Videos:    fitness.NewPlayer(client, fitness.PlayerOptions{SandboxVideo: console.SandboxVideo}),
		TestCalls: srv,
		Samples: func(ctx context.Context, id string) (console.SampleAnswer, error) {
			s, err := srv.Sample(ctx, id)
			if err != nil {
				return console.SampleAnswer{}, err
			}
			return console.SampleAnswer(*s), nil
		}})
	cons.Mount(srv.App())
	srv.SetProviderSettingsHook(cons.ApplyProviderSettings)
	// Provider settings saved in the console apply now and are re-read every 5 s, so every
	// instance follows an admin's change.
	go cons.SyncProviders(ctx, 5*time.Second)
	return nil
}

// bootstrap creates, on the very first start, a demo tenant with a live and a test key and a
// console admin with a generated password, and prints them once.
func bootstrap(ctx context.Context, store *tenants.Store, cfg *Config, needContact []*providers.Provider, stdout io.Writer) error {
	existing, err := store.Tenants(ctx, "", 1, 0)
	if err != nil || len(existing) > 0 {
		return err
	}
	t, err := store.CreateTenant(ctx, "Demo", "pro", "admin@capgate.local")
	if err != nil {
		return err
	}
	_, live, err := store.CreateKey(ctx, t.ID, tenants.ModeLive, "demo live key")
	if err != nil {
		return err
	}
	_, test, err := store.CreateKey(ctx, t.ID, tenants.ModeTest, "demo test key")
	if err != nil {
		return err
	}
	password := tenants.RandomString(20)
	if _, err := store.CreateUser(ctx, t.ID, "admin@capgate.local", password, tenants.RoleAdmin); err != nil {
		return err
	}
	fmt.Fprintf(stdout, `
capgate first start: a demo tenant was created. These secrets are shown once.
  tenant        %s (plan pro)
  live key      %s
  test key      %s   (sandbox: recorded provider answers, separate balance)
  console       %s/console/
  admin login   admin@capgate.local
  password      %s

Try: curl -s -H "Authorization: Bearer %s" %s/v1/catalog

`, t.ID, live, test, cfg.PublicURL, password, test, cfg.PublicURL)
	if len(needContact) > 0 {
		fmt.Fprintf(stdout, "%s\n\n", contactNotice(needContact))
	}
	return nil
}

// servePprof serves the Go profiler on its own loopback listener (never on the API's).
func servePprof(ctx context.Context, addr string, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	log.Info("profiler listening", "addr", addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("profiler stopped", "err", err)
	}
}

// contactNotice says which providers wait for GATEWAY_CONTACT.
func contactNotice(ps []*providers.Provider) string {
	names := make([]string, 0, len(ps))
	for _, p := range ps {
		names = append(names, p.Title)
	}
	return fmt.Sprintf("%s is not set: %s require contact details in the User-Agent and stay unavailable to live keys "+
		"until it is (an email address or URL, e.g. %s=ops@example.com).", providers.ContactSetting, strings.Join(names, ", "), providers.ContactSetting)
}

// retiredReviewers hands the console the reviewer panel's list of reviewer models the vendors refused as
// unknown.
func retiredReviewers(panel *reviewers.Panel) func() []console.RetiredReviewer {
	return func() []console.RetiredReviewer {
		var out []console.RetiredReviewer
		for _, r := range panel.Retired() {
			out = append(out, console.RetiredReviewer{Family: r.Family, Title: r.Title, Tier: r.Tier, Model: r.Model, Setting: r.Setting,
				Message: fmt.Sprintf("HTTP %d: %s", r.Status, r.VendorMessage), At: r.At})
		}
		return out
	}
}

// reviewerModels names, per reviewer family, the model each sharpen tier uses.
func reviewerModels(overrides map[string]map[string]string) map[string]string {
	out := map[string]string{}
	for _, f := range reviewers.Families() {
		out[f.ID] = reviewers.ModelsLine(f.ID, overrides)
	}
	return out
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/console"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/session"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/fitness"
	"github.com/capgate/capgate/providers/registry"
	"github.com/capgate/capgate/tenants"
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

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	client := providers.NewClient(registry.Providers(), providers.ClientOptions{Version: Version, Contact: cfg.Contact, Registerer: reg})
	for _, p := range client.Providers() {
		if u, k := cfg.ProviderURLs[p.ID], cfg.ProviderKeys[p.ID]; u != "" || k != "" {
			if err := client.Configure(p.ID, providers.Setting{URL: u, Key: k}); err != nil {
				return err
			}
		}
	}
	sessions, err := session.NewStore(db, cfg.SessionTTL, cfg.CacheMB)
	if err != nil {
		return err
	}
	defer sessions.Close()

	var signIns console.SignInLimiter
	opts := gateway.Options{DB: db, Client: client, Capabilities: registry.Capabilities(), Sessions: sessions,
		Logger: log, Registry: reg, PublicURL: cfg.PublicURL, SessionTTL: cfg.SessionTTL, Version: Version,
		SharpenModels: cfg.SharpenModels}
	if cfg.RedisURL != "" {
		lim, rdb, err := gateway.NewRedisLimiter(cfg.RedisURL)
		if err != nil {
			return usagef("REDIS_URL: %v", err)
		}
		defer rdb.Close()
		opts.Limiter = lim
		signIns = console.NewRedisSignInLimiter(rdb)
		opts.Ready = func(ctx context.Context) error { return rdb.Ping(ctx).Err() }
		pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := rdb.Ping(pingCtx).Err(); err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("redis: %w", err)
		}
	}
	srv := gateway.New(opts)
	sealer, err := tenants.NewSealer(cfg.MasterKey)
	if err != nil {
		return err
	}
	envSettings := map[string]providers.Setting{}
	for _, p := range client.Providers() {
		envSettings[p.ID] = providers.Setting{URL: cfg.ProviderURLs[p.ID], Key: cfg.ProviderKeys[p.ID]}
	}
	cons := console.New(console.Options{Store: srv.Store(), Client: client, Capabilities: opts.Capabilities, Sealer: sealer,
		Logger: log, Env: envSettings, AccessChanged: srv.ForgetKeys, SignInLimiter: signIns,
		Videos: fitness.NewPlayer(client, fitness.PlayerOptions{SandboxVideo: console.SandboxVideo})})
	cons.Mount(srv.App())
	// Provider settings saved in the console apply now and are re-read every 5 s, so every
	// instance follows an admin's change.
	go cons.SyncProviders(ctx, 5*time.Second)
	// Instances starting together on one database bootstrap once.
	if err := db.Exclusive(ctx, func(ctx context.Context) error { return bootstrap(ctx, srv.Store(), cfg, stdout) }); err != nil {
		return err
	}
	go srv.RunMaintenance(ctx, time.Minute)
	log.Info("serving", "addr", cfg.Addr, "public_url", cfg.PublicURL, "version", Version)
	return srv.Listen(ctx, cfg.Addr)
}

// bootstrap creates, on the very first start, a demo tenant with a live and a test key and a
// console admin with a generated password, and prints them once.
func bootstrap(ctx context.Context, store *tenants.Store, cfg *Config, stdout io.Writer) error {
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
	return nil
}

package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/internal/telemetry"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/reviewers"
)

// Config is the whole configuration, read from the environment (one typed table; the README
// documents every entry). Secrets also accept NAME_FILE, the path of a file holding the value.
type Config struct {
	Addr        string
	DatabaseURL string
	DataDir     string
	RedisURL    string
	PublicURL   string
	// publicURLFromAddr: PublicURL is the default made of Addr (GATEWAY_PUBLIC_URL unset), so
	// with port 0 in Addr it names the port bound instead.
	publicURLFromAddr bool
	MasterKey         []byte
	Contact           string
	SessionTTL        time.Duration
	// LeaseTTL: how long a stopped instance's credit lease holds credits before any instance
	// returns them to the period (GATEWAY_LEASE_TTL, default 60s).
	LeaseTTL time.Duration
	// PprofAddr serves net/http/pprof on a separate listener (GATEWAY_PPROF_ADDR, loopback only).
	PprofAddr string
	LogLevel  slog.Level
	LogFormat string
	CacheMB   int
	// SharedCache enables the shared upstream cache (GATEWAY_SHARED_CACHE, default on).
	SharedCache  bool
	ProviderURLs map[string]string
	ProviderKeys map[string]string
	// SharpenModels: SHARPEN_MODEL_<FAMILY>_<TIER> (for example SHARPEN_MODEL_OPENAI_ULTRA).
	SharpenModels map[string]map[string]string
	// TrustedProxies: GATEWAY_TRUSTED_PROXIES, comma-separated IPs or CIDRs of the reverse
	// proxies whose X-Forwarded-For names the client.
	TrustedProxies []string
	// MetricsToken: METRICS_TOKEN (or METRICS_TOKEN_FILE), the bearer token /metrics requires.
	MetricsToken string
	// MaxConnsPerIP: GATEWAY_MAX_CONNS_PER_IP, connections open at once from one client address
	// (default 512; 0 turns the cap off; GATEWAY_TRUSTED_PROXIES are exempt).
	MaxConnsPerIP int
	// Tracing: on when the standard OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set.
	Tracing telemetry.Config
	// TraceProviders: GATEWAY_TRACE_PROVIDERS, comma-separated ids of the providers whose calls
	// carry the W3C traceparent (none by default).
	TraceProviders []string
	// MCPAllowedOrigins, MCPAllowedHosts: GATEWAY_MCP_ALLOWED_ORIGINS and GATEWAY_MCP_ALLOWED_HOSTS,
	// comma-separated origins (scheme://host[:port]) and hosts (host[:port]) /mcp accepts besides
	// the public URL and loopback; "*" allows any.
	MCPAllowedOrigins []string
	MCPAllowedHosts   []string
	// RequestLogRetention: GATEWAY_REQUEST_LOG_RETENTION, how long the request log keeps a call
	// (default 720h, 30 days; 1h to 8760h).
	RequestLogRetention time.Duration
	// AdminToken: GATEWAY_ADMIN_TOKEN (or GATEWAY_ADMIN_TOKEN_FILE), the bearer token of the
	// admin HTTP API (/v1/admin/…); unset, the admin API does not exist.
	AdminToken string
	// OAuth for MCP hosts: GATEWAY_OAUTH_ACCESS_TTL (default 1h, 1s to 24h),
	// GATEWAY_OAUTH_REFRESH_TTL (default 720h, 1m to 8760h) and
	// GATEWAY_OAUTH_REGISTRATIONS_PER_MINUTE (per client address, default 10; 0: no limit).
	OAuthAccessTTL, OAuthRefreshTTL time.Duration
	OAuthRegistrationsPerMinute     int
}

type getenv func(string) string

// secret reads NAME, or the file named by NAME_FILE.
func secret(env getenv, name string) (string, error) {
	if v := env(name); v != "" {
		return v, nil
	}
	if f := env(name + "_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("%s_FILE: %w", name, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	return "", nil
}

func loadConfig(env getenv, providerIDs []string) (*Config, error) {
	c := &Config{
		Addr:         or(env("GATEWAY_ADDR"), "127.0.0.1:8080"),
		DataDir:      or(env("GATEWAY_DATA_DIR"), "data"),
		RedisURL:     env("REDIS_URL"),
		Contact:      env("GATEWAY_CONTACT"),
		LogFormat:    or(env("LOG_FORMAT"), "text"),
		ProviderURLs: map[string]string{},
		ProviderKeys: map[string]string{},
		CacheMB:      32,
		SharedCache:  true,
	}
	var err error
	if c.DatabaseURL, err = secret(env, "DATABASE_URL"); err != nil {
		return nil, err
	}
	if c.RedisURL == "" {
		if c.RedisURL, err = secret(env, "REDIS_URL"); err != nil {
			return nil, err
		}
	}
	if c.Contact != "" {
		if err := providers.ValidContact(c.Contact); err != nil {
			return nil, fmt.Errorf("%s %v", providers.ContactSetting, err)
		}
	}
	c.PublicURL = strings.TrimRight(or(env("GATEWAY_PUBLIC_URL"), "http://"+c.Addr), "/")
	c.publicURLFromAddr = env("GATEWAY_PUBLIC_URL") == ""
	ttl := or(env("SESSION_TTL"), "24h")
	if c.SessionTTL, err = time.ParseDuration(ttl); err != nil || c.SessionTTL < time.Second {
		return nil, fmt.Errorf("SESSION_TTL %q: want a Go duration of at least 1s, such as 24h", ttl)
	}
	if v := env("GATEWAY_CACHE_MB"); v != "" {
		if c.CacheMB, err = strconv.Atoi(v); err != nil || c.CacheMB < 1 || c.CacheMB > 1<<16 {
			return nil, fmt.Errorf("GATEWAY_CACHE_MB %q: want megabytes of session cache, 1 to 65536", v)
		}
	}
	switch v := env("GATEWAY_SHARED_CACHE"); v {
	case "", "on":
	case "off":
		c.SharedCache = false
	default:
		return nil, fmt.Errorf("GATEWAY_SHARED_CACHE %q: want on or off", v)
	}
	if c.PprofAddr = env("GATEWAY_PPROF_ADDR"); c.PprofAddr != "" {
		host, _, err := net.SplitHostPort(c.PprofAddr)
		if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
			return nil, fmt.Errorf("GATEWAY_PPROF_ADDR %q: want a loopback host:port such as 127.0.0.1:6060", c.PprofAddr)
		}
	}
	at := or(env("GATEWAY_OAUTH_ACCESS_TTL"), "1h")
	if c.OAuthAccessTTL, err = time.ParseDuration(at); err != nil || c.OAuthAccessTTL < time.Second || c.OAuthAccessTTL > 24*time.Hour {
		return nil, fmt.Errorf("GATEWAY_OAUTH_ACCESS_TTL %q: want a Go duration from 1s to 24h, such as 1h", at)
	}
	rt := or(env("GATEWAY_OAUTH_REFRESH_TTL"), "720h")
	if c.OAuthRefreshTTL, err = time.ParseDuration(rt); err != nil || c.OAuthRefreshTTL < time.Minute || c.OAuthRefreshTTL > 8760*time.Hour {
		return nil, fmt.Errorf("GATEWAY_OAUTH_REFRESH_TTL %q: want a Go duration from 1m to 8760h, such as 720h", rt)
	}
	c.OAuthRegistrationsPerMinute = gateway.DefaultOAuthRegistrationsPerMinute
	if v := env("GATEWAY_OAUTH_REGISTRATIONS_PER_MINUTE"); v != "" {
		if c.OAuthRegistrationsPerMinute, err = strconv.Atoi(v); err != nil || c.OAuthRegistrationsPerMinute < 0 || c.OAuthRegistrationsPerMinute > 100000 {
			return nil, fmt.Errorf("GATEWAY_OAUTH_REGISTRATIONS_PER_MINUTE %q: want a count per minute, 0 for no limit", v)
		}
		if c.OAuthRegistrationsPerMinute == 0 {
			c.OAuthRegistrationsPerMinute = -1 // the server's "no limit"
		}
	}
	lt := or(env("GATEWAY_LEASE_TTL"), "60s")
	if c.LeaseTTL, err = time.ParseDuration(lt); err != nil || c.LeaseTTL < time.Second || c.LeaseTTL > time.Hour {
		return nil, fmt.Errorf("GATEWAY_LEASE_TTL %q: want a Go duration from 1s to 1h, such as 60s", lt)
	}
	if c.AdminToken, err = secret(env, "GATEWAY_ADMIN_TOKEN"); err != nil {
		return nil, err
	}
	if c.AdminToken != "" && len(c.AdminToken) < 32 {
		return nil, errors.New("GATEWAY_ADMIN_TOKEN must be at least 32 characters (openssl rand -base64 32)")
	}
	rl := or(env("GATEWAY_REQUEST_LOG_RETENTION"), "720h")
	if c.RequestLogRetention, err = time.ParseDuration(rl); err != nil || c.RequestLogRetention < time.Hour || c.RequestLogRetention > 8760*time.Hour {
		return nil, fmt.Errorf("GATEWAY_REQUEST_LOG_RETENTION %q: want a Go duration from 1h to 8760h, such as 720h (30 days)", rl)
	}
	if err := c.LogLevel.UnmarshalText([]byte(or(env("LOG_LEVEL"), "info"))); err != nil {
		return nil, fmt.Errorf("LOG_LEVEL: %w", err)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return nil, fmt.Errorf("LOG_FORMAT %q: want text or json", c.LogFormat)
	}
	if err := c.loadEdge(env, providerIDs); err != nil {
		return nil, err
	}
	if err := c.loadProviders(env, providerIDs); err != nil {
		return nil, err
	}
	return c, nil
}

// loadEdge reads what faces clients and operators: trusted proxies, the metrics token, the
// per-address connection cap, tracing and the MCP origins and hosts.
func (c *Config) loadEdge(env getenv, providerIDs []string) error {
	var err error
	if c.TrustedProxies, err = trustedProxies(env("GATEWAY_TRUSTED_PROXIES")); err != nil {
		return err
	}
	if c.MetricsToken, err = secret(env, "METRICS_TOKEN"); err != nil {
		return err
	}
	c.MaxConnsPerIP = gateway.DefaultMaxConnsPerIP
	if v := env("GATEWAY_MAX_CONNS_PER_IP"); v != "" {
		if c.MaxConnsPerIP, err = strconv.Atoi(v); err != nil || c.MaxConnsPerIP < 0 || c.MaxConnsPerIP > 1<<20 {
			return fmt.Errorf("GATEWAY_MAX_CONNS_PER_IP %q: want a count of connections, 0 for no cap", v)
		}
		if c.MaxConnsPerIP == 0 {
			c.MaxConnsPerIP = -1 // the server's "no cap"
		}
	}
	if c.Tracing, err = telemetry.FromEnv(env); err != nil {
		return err
	}
	if c.TraceProviders, err = traceProviders(env("GATEWAY_TRACE_PROVIDERS"), providerIDs); err != nil {
		return err
	}
	if c.MCPAllowedOrigins, err = mcpOrigins(env("GATEWAY_MCP_ALLOWED_ORIGINS")); err != nil {
		return err
	}
	if c.MCPAllowedHosts, err = mcpHosts(env("GATEWAY_MCP_ALLOWED_HOSTS")); err != nil {
		return err
	}
	return nil
}

// loadProviders reads the master key, the sharpen reviewer models and every provider's URL and
// key.
func (c *Config) loadProviders(env getenv, providerIDs []string) error {
	mk, err := secret(env, "GATEWAY_MASTER_KEY")
	if err != nil {
		return err
	}
	if mk != "" {
		if c.MasterKey, err = decodeMasterKey(mk); err != nil {
			return err
		}
	}
	c.SharpenModels = map[string]map[string]string{}
	for _, f := range reviewers.Families() {
		for _, tier := range reviewers.Tiers {
			if m := env(reviewers.Setting(f.ID, tier)); m != "" {
				if c.SharpenModels[f.ID] == nil {
					c.SharpenModels[f.ID] = map[string]string{}
				}
				c.SharpenModels[f.ID][tier] = m
			}
		}
	}
	for _, id := range providerIDs {
		up := strings.ToUpper(id)
		if v := env("PROVIDER_" + up + "_URL"); v != "" {
			c.ProviderURLs[id] = v
		}
		k, err := secret(env, "PROVIDER_"+up+"_KEY")
		if err != nil {
			return err
		}
		if k != "" {
			c.ProviderKeys[id] = k
		}
	}
	return nil
}

// trustedProxies parses GATEWAY_TRUSTED_PROXIES; a wrong entry is refused rather than ignored,
// since an ignored one silently makes every client look like the proxy.
func trustedProxies(v string) ([]string, error) {
	return list(v, func(f string) error {
		if strings.Contains(f, "/") {
			if _, err := netip.ParsePrefix(f); err != nil {
				return fmt.Errorf("GATEWAY_TRUSTED_PROXIES: %q is not a CIDR such as 10.0.0.0/8", f)
			}
		} else if _, err := netip.ParseAddr(f); err != nil {
			return fmt.Errorf("GATEWAY_TRUSTED_PROXIES: %q is not an IP address or CIDR", f)
		}
		return nil
	})
}

// traceProviders parses GATEWAY_TRACE_PROVIDERS; an unknown id is refused (a typo would
// silently leave a provider out of the traces). Commands that call no provider pass no ids and
// skip the check.
func traceProviders(v string, known []string) ([]string, error) {
	return list(v, func(f string) error {
		if known != nil && !slices.Contains(known, f) {
			return fmt.Errorf("GATEWAY_TRACE_PROVIDERS: %q is not a provider of this gateway", f)
		}
		return nil
	})
}

// mcpOrigins parses GATEWAY_MCP_ALLOWED_ORIGINS: "*" or origins such as https://app.example.com
// (scheme, host and optional port; no path). A wrong entry is refused rather than ignored.
func mcpOrigins(v string) ([]string, error) {
	return list(v, func(f string) error {
		if f == "*" {
			return nil
		}
		u, err := url.Parse(f)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.TrimRight(u.Path, "/") != "" ||
			u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return fmt.Errorf("GATEWAY_MCP_ALLOWED_ORIGINS: %q is not an origin such as https://app.example.com", f)
		}
		return nil
	})
}

// mcpHosts parses GATEWAY_MCP_ALLOWED_HOSTS: "*" or hosts such as mcp.example.com or
// mcp.example.com:8443.
func mcpHosts(v string) ([]string, error) {
	return list(v, func(f string) error {
		if f == "*" {
			return nil
		}
		if u, err := url.Parse("http://" + f); err != nil || u.Host != f || u.Hostname() == "" {
			return fmt.Errorf("GATEWAY_MCP_ALLOWED_HOSTS: %q is not a host such as mcp.example.com or mcp.example.com:8443", f)
		}
		return nil
	})
}

// list splits a comma-separated setting, drops blanks, and refuses the whole setting at the
// first entry check refuses (a wrong entry is never silently ignored).
func list(v string, check func(string) error) ([]string, error) {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if err := check(f); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func decodeMasterKey(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != 32 {
		return nil, errors.New("GATEWAY_MASTER_KEY must be 32 bytes in standard base64 (openssl rand -base64 32)")
	}
	return b, nil
}

// ensureMasterKey generates the master key into the data dir on the first embedded run.
func (c *Config) ensureMasterKey() error {
	if c.MasterKey != nil {
		return nil
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "sqlite") && strings.Contains(c.DatabaseURL, "://") {
		return errors.New("GATEWAY_MASTER_KEY is required with an external database (every instance must share it)")
	}
	path := filepath.Join(c.DataDir, "master.key")
	if b, err := os.ReadFile(path); err == nil {
		k, err := decodeMasterKey(string(b))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		c.MasterKey = k
		return nil
	}
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return err
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(base64.StdEncoding.EncodeToString(k)+"\n"), 0o600); err != nil {
		return err
	}
	c.MasterKey = k
	return nil
}

func (c *Config) logger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.LogLevel}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

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
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/reviewers"
)

// Config is the whole configuration, read from the environment (one typed table; the README
// documents every entry). Secrets also accept NAME_FILE, the path of a file holding the value.
type Config struct {
	Addr        string
	DatabaseURL string
	DataDir     string
	RedisURL    string
	PublicURL   string
	MasterKey   []byte
	Contact     string
	SessionTTL  time.Duration
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
	lt := or(env("GATEWAY_LEASE_TTL"), "60s")
	if c.LeaseTTL, err = time.ParseDuration(lt); err != nil || c.LeaseTTL < time.Second || c.LeaseTTL > time.Hour {
		return nil, fmt.Errorf("GATEWAY_LEASE_TTL %q: want a Go duration from 1s to 1h, such as 60s", lt)
	}
	if err := c.LogLevel.UnmarshalText([]byte(or(env("LOG_LEVEL"), "info"))); err != nil {
		return nil, fmt.Errorf("LOG_LEVEL: %w", err)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return nil, fmt.Errorf("LOG_FORMAT %q: want text or json", c.LogFormat)
	}
	if c.TrustedProxies, err = trustedProxies(env("GATEWAY_TRUSTED_PROXIES")); err != nil {
		return nil, err
	}
	if c.MetricsToken, err = secret(env, "METRICS_TOKEN"); err != nil {
		return nil, err
	}
	mk, err := secret(env, "GATEWAY_MASTER_KEY")
	if err != nil {
		return nil, err
	}
	if mk != "" {
		if c.MasterKey, err = decodeMasterKey(mk); err != nil {
			return nil, err
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
			return nil, err
		}
		if k != "" {
			c.ProviderKeys[id] = k
		}
	}
	return c, nil
}

// trustedProxies parses GATEWAY_TRUSTED_PROXIES; a wrong entry is refused rather than ignored,
// since an ignored one silently makes every client look like the proxy.
func trustedProxies(v string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.Contains(f, "/") {
			if _, err := netip.ParsePrefix(f); err != nil {
				return nil, fmt.Errorf("GATEWAY_TRUSTED_PROXIES: %q is not a CIDR such as 10.0.0.0/8", f)
			}
		} else if _, err := netip.ParseAddr(f); err != nil {
			return nil, fmt.Errorf("GATEWAY_TRUSTED_PROXIES: %q is not an IP address or CIDR", f)
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

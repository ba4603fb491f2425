package providers_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/tenants/tenantstest"
)

func TestValidContact(t *testing.T) {
	cases := []struct {
		in string
		ok bool
	}{
		{"ops@example.com", true},
		{"https://example.com/contact", true},
		{"http://example.org", true},
		{"", false},
		{"ops", false},
		{"ops@localhost", false},
		{"Ops <ops@example.com>", false},
		{"ops@example.com (Ops)", false},
		{"https://", false},
		{"ftp://example.com", false},
		{"https://user:pw@example.com", false},
		{"ops @example.com", false},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			err := providers.ValidContact(tc.in)
			if (err == nil) != tc.ok {
				t.Fatalf("ValidContact(%q) = %v, want ok %v", tc.in, err, tc.ok)
			}
		})
	}
}

func TestContactRequired(t *testing.T) {
	up := newUpstream(t, status(200, `{}`))
	p := fakeProvider()
	p.ContactRequired = true
	p.BaseURL = up.URL // the fake stands for the public host, whose policy the contact is
	t.Run("without a contact the provider is unavailable, naming GATEWAY_CONTACT", func(t *testing.T) {
		c := newClient(t, p, up.URL, "", providers.ClientOptions{})
		ok, why := c.Configured(fakeID)
		if ok || !strings.Contains(why, "GATEWAY_CONTACT") {
			t.Fatalf("Configured = %v, %q; want unavailable naming GATEWAY_CONTACT", ok, why)
		}
		_, err := call(t, c)
		wantError(t, err, providers.CodeCapabilityUnavailable, false)
		if up.hits.Load() != 0 {
			t.Fatal("a call without a contact reached the upstream")
		}
		if got := c.ContactProviders(); len(got) != 1 || got[0].ID != fakeID {
			t.Fatalf("ContactProviders = %v, want the fake", got)
		}
		// Test keys reach the sandbox whatever the contact.
		p2 := *p
		p2.Sandbox = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) })
		sc := newClient(t, &p2, up.URL, "", providers.ClientOptions{})
		if _, err := sc.Upstream(fakeID, providers.ModeTest).Get(context.Background(), "/thing", nil, nil); err != nil {
			t.Fatalf("sandbox call: %v", err)
		}
	})
	t.Run("with a contact it is sent in the User-Agent", func(t *testing.T) {
		var ua string
		up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { ua = r.UserAgent(); _, _ = w.Write([]byte(`{}`)) })
		c := newClient(t, p, up.URL, "", providers.ClientOptions{Version: "1.0", Contact: "ops@example.com"})
		if ok, why := c.Configured(fakeID); !ok {
			t.Fatalf("unavailable with a contact: %s", why)
		}
		if _, err := call(t, c); err != nil {
			t.Fatal(err)
		}
		if ua != "capgate/1.0 (+ops@example.com)" {
			t.Fatalf("User-Agent %q", ua)
		}
		if got := c.ContactProviders(); len(got) != 0 {
			t.Fatalf("ContactProviders = %v with a contact set", got)
		}
	})
}

// arrivals is a fake upstream recording when each call arrived.
type arrivals struct {
	mu sync.Mutex
	at []time.Time
}

func (a *arrivals) handler(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.at = append(a.at, time.Now())
	a.mu.Unlock()
	_, _ = w.Write([]byte(`{}`))
}

// burst sends n concurrent calls spread over the clients, each to its provider id in turn.
func burst(t *testing.T, n int, clients []*providers.Client, ids []string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		c, id := clients[i%len(clients)], ids[i%len(ids)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if _, err := c.Upstream(id, providers.ModeLive).Get(ctx, "/thing", nil, nil); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// arrivalJitter is how many calls paced into a window may arrive bunched into it on a loaded
// machine (race detector, other builds): the time from the pacer to the handler varies. Two
// instances without a shared allowance would put twice the limit into a window, far above it.
const arrivalJitter = 2

func TestPacing(t *testing.T) {
	limit := providers.Limit{Requests: 4, Per: 400 * time.Millisecond}
	hosts := func() []*providers.Provider {
		return []*providers.Provider{
			{ID: "host_a", Title: "A", LimitGroup: "shared", Limits: []providers.Limit{limit}},
			{ID: "host_b", Title: "B", LimitGroup: "shared", Limits: []providers.Limit{limit}},
		}
	}
	newFleetClient := func(t *testing.T, url string, pacer providers.Pacer) *providers.Client {
		c := providers.NewClient(hosts(), providers.ClientOptions{Pacer: pacer})
		for _, id := range []string{"host_a", "host_b"} {
			if err := c.Configure(id, providers.Setting{URL: url}); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	const calls = 16
	t.Run("one instance: the hosts of a group share one allowance in memory", func(t *testing.T) {
		a := &arrivals{}
		up := newUpstream(t, a.handler)
		c := newFleetClient(t, up.URL, nil)
		burst(t, calls, []*providers.Client{c}, []string{"host_a", "host_b"})
		if got := providertest.MaxInWindow(a.at, limit.Per); got > limit.Requests+arrivalJitter {
			t.Fatalf("%d calls in one %s window, want at most %d (+%d for arrival jitter)", got, limit.Per, limit.Requests, arrivalJitter)
		}
	})
	t.Run("two instances sharing Redis share the allowance", func(t *testing.T) {
		url := tenantstest.RedisURL(t)
		if url == "" {
			t.Skip("no Redis test server (set CAPGATE_TEST_REDIS_URL)")
		}
		opts, err := redis.ParseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		a := &arrivals{}
		up := newUpstream(t, a.handler)
		var clients []*providers.Client
		for i := 0; i < 2; i++ {
			rdb := redis.NewClient(opts)
			t.Cleanup(func() { _ = rdb.Close() })
			pacer := providers.NewRedisPacer(rdb, func(err error) { t.Errorf("redis: %v", err) })
			clients = append(clients, newFleetClient(t, up.URL, pacer))
		}
		burst(t, calls, clients, []string{"host_a", "host_b"})
		if got := providertest.MaxInWindow(a.at, limit.Per); got > limit.Requests+arrivalJitter {
			t.Fatalf("%d calls in one %s window across two instances, want at most %d (+%d for arrival jitter)", got, limit.Per, limit.Requests, arrivalJitter)
		}
	})
}

func TestMaxInWindow(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := []time.Time{t0, t0.Add(50 * time.Millisecond), t0.Add(990 * time.Millisecond), t0.Add(time.Second), t0.Add(1500 * time.Millisecond)}
	if got := providertest.MaxInWindow(at, time.Second); got != 3 {
		t.Fatalf("MaxInWindow = %d, want 3", got)
	}
	if got := providertest.MaxInWindow(nil, time.Second); got != 0 {
		t.Fatalf("MaxInWindow(nil) = %d", got)
	}
}

// A free tier's limit (Keyless) holds without a key and is lifted with one.
func TestKeylessLimit(t *testing.T) {
	for _, key := range []string{"", "paid"} {
		t.Run("key "+key, func(t *testing.T) {
			up := newUpstream(t, status(200, `{}`))
			p := fakeProvider()
			p.Limits = []providers.Limit{{Requests: 1, Per: time.Hour, Keyless: true}}
			c := newClient(t, p, up.URL, key, providers.ClientOptions{})
			if _, err := call(t, c); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			_, err := c.Upstream(fakeID, providers.ModeLive).Get(ctx, "/thing", nil, nil)
			if key == "" {
				wantError(t, err, providers.CodeProviderTimeout, true)
			} else if err != nil {
				t.Fatalf("second call with a key: %v", err)
			}
		})
	}
}

// With Redis down the pacer falls back to this instance's own pacing and reports the outage
// once, not once per call.
func TestRedisPacerReportsAnOutageOnce(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { _ = rdb.Close() })
	var reports int
	var mu sync.Mutex
	pacer := providers.NewRedisPacer(rdb, func(error) { mu.Lock(); reports++; mu.Unlock() })
	lim := providers.Limit{Requests: 1000, Per: time.Second}
	for i := 0; i < 5; i++ {
		if err := pacer.Wait(context.Background(), "host_down", lim); err != nil {
			t.Fatalf("call %d: %v (the fallback paces without Redis)", i, err)
		}
	}
	if reports != 1 {
		t.Fatalf("the outage was reported %d times over 5 calls, want once", reports)
	}
}

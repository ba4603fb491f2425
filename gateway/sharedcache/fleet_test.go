package sharedcache_test

import (
	"context"
	"crypto/rand"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/sharedcache"
	"github.com/capgate/capgate/tenants/tenantstest"
)

func fleet(t *testing.T) (a, b *sharedcache.Cache) {
	t.Helper()
	u := tenantstest.RedisURL(t)
	if u == "" {
		t.Skip("CAPGATE_TEST_REDIS_URL not set")
	}
	opts, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	mk := func() *sharedcache.Cache {
		rdb := redis.NewClient(opts)
		c, err := sharedcache.New(sharedcache.Options{MemoryMB: 8, Redis: rdb})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(); rdb.Close() })
		return c
	}
	return mk(), mk()
}

func newKey(t *testing.T) sharedcache.Key {
	var k sharedcache.Key
	if _, err := rand.Read(k[:]); err != nil {
		t.Fatal(err)
	}
	return k
}

// waitFor polls cond (a barrier, not a timing assertion): the test only goes on once it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestFleetCoalescing: concurrent identical misses on two instances sharing Redis make one
// upstream call; the other instance's callers get the answer as shared.
func TestFleetCoalescing(t *testing.T) {
	a, b := fleet(t)
	k := newKey(t)
	var calls atomic.Int32
	release := make(chan struct{})
	fetch := func(c *sharedcache.Cache) func() ([]byte, error) {
		return func() ([]byte, error) {
			calls.Add(1)
			<-release
			v := []byte(`{"answer":42}`)
			c.Put(context.Background(), k, v, time.Minute)
			return v, nil
		}
	}
	type result struct {
		v      []byte
		shared bool
		err    error
	}
	var wg sync.WaitGroup
	results := make(chan result, 20)
	run := func(c *sharedcache.Cache) {
		defer wg.Done()
		v, shared, err := c.Coalesce(context.Background(), k, 10*time.Second, fetch(c))
		results <- result{v, shared, err}
	}
	// Instance A's first caller takes the fleet lock and blocks in the upstream call.
	wg.Add(1)
	go run(a)
	waitFor(t, "A's upstream call", func() bool { return calls.Load() == 1 })
	for range 9 {
		wg.Add(1)
		go run(a)
	}
	for range 10 {
		wg.Add(1)
		go run(b)
	}
	waitFor(t, "every caller waiting", func() bool { return a.Waiting() == 10 && b.Waiting() == 10 && b.FleetWaiting() == 1 })
	close(release)
	wg.Wait()
	close(results)
	shared := 0
	for r := range results {
		if r.err != nil || string(r.v) != `{"answer":42}` {
			t.Fatalf("a caller got %q, %v", r.v, r.err)
		}
		if r.shared {
			shared++
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d upstream calls for 20 concurrent identical misses on two instances; want 1", n)
	}
	if shared != 19 {
		t.Fatalf("%d callers marked shared; want 19 (all but the one that called the upstream)", shared)
	}
}

// TestFleetCoalescingHolderFails: when the lock holder's call fails (nothing stored), the other
// instance calls the upstream itself instead of waiting out the lock.
func TestFleetCoalescingHolderFails(t *testing.T) {
	a, b := fleet(t)
	k := newKey(t)
	var calls atomic.Int32
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, _, err := a.Coalesce(context.Background(), k, time.Minute, func() ([]byte, error) {
			calls.Add(1)
			<-release
			return nil, errors.New("upstream down")
		})
		done <- err
	}()
	waitFor(t, "A's upstream call", func() bool { return calls.Load() == 1 })
	got := make(chan []byte, 1)
	go func() {
		v, _, err := b.Coalesce(context.Background(), k, time.Minute, func() ([]byte, error) {
			calls.Add(1)
			return []byte("fresh"), nil
		})
		if err != nil {
			t.Error(err)
		}
		got <- v
	}()
	waitFor(t, "B waiting on A's lock", func() bool { return b.Waiting() == 1 && b.FleetWaiting() == 1 })
	close(release)
	if err := <-done; err == nil {
		t.Fatal("A's failed call answered no error")
	}
	if v := <-got; string(v) != "fresh" || calls.Load() != 2 {
		t.Fatalf("B got %q after %d calls; want its own fetch (2 calls)", v, calls.Load())
	}
}

// TestFleetCoalescingWantsNewerAnswer: a caller that passed over the stored answer (too old, or
// no-cache) waits for the holder's new one, not the old one already in Redis.
func TestFleetCoalescingWantsNewerAnswer(t *testing.T) {
	a, b := fleet(t)
	k := newKey(t)
	a.Put(context.Background(), k, []byte("old"), time.Minute)
	var calls atomic.Int32
	release := make(chan struct{})
	go func() {
		_, _, _ = a.Coalesce(context.Background(), k, time.Minute, func() ([]byte, error) {
			calls.Add(1)
			<-release
			a.Put(context.Background(), k, []byte("new"), time.Minute)
			return []byte("new"), nil
		})
	}()
	waitFor(t, "A's upstream call", func() bool { return calls.Load() == 1 })
	got := make(chan []byte, 1)
	go func() {
		v, shared, err := b.Coalesce(context.Background(), k, time.Minute, func() ([]byte, error) {
			calls.Add(1)
			return []byte("own"), nil
		})
		if err != nil || !shared {
			t.Errorf("B: shared %v, err %v", shared, err)
		}
		got <- v
	}()
	waitFor(t, "B waiting on A's lock", func() bool { return b.Waiting() == 1 && b.FleetWaiting() == 1 })
	close(release)
	if v := <-got; string(v) != "new" || calls.Load() != 1 {
		t.Fatalf("B got %q after %d upstream calls; want A's new answer and 1 call", v, calls.Load())
	}
}

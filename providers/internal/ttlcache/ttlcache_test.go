package ttlcache_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/providers/internal/ttlcache"
)

// clock is a settable time source for the cache.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// place stands for a geocoder match; a nil *place is a miss.
type place struct{ Name string }

func newTestCache(max int) (*ttlcache.Cache[*place], *clock) {
	clk := &clock{t: time.Date(2026, 9, 24, 12, 0, 0, 0, time.UTC)}
	c := ttlcache.New[*place](max, time.Hour, time.Minute)
	c.SetClock(clk.now)
	return c, clk
}

func TestCache(t *testing.T) {
	berlin := &place{Name: "Berlin, Germany"}

	t.Run("hit until the TTL, then gone", func(t *testing.T) {
		c, clk := newTestCache(4)
		c.Put("berlin", berlin)
		if p, ok := c.Get("berlin"); !ok || p != berlin {
			t.Fatalf("get = %v, %v; want the stored place", p, ok)
		}
		clk.advance(59 * time.Minute)
		if _, ok := c.Get("berlin"); !ok {
			t.Error("expired before its TTL")
		}
		clk.advance(time.Minute)
		if _, ok := c.Get("berlin"); ok {
			t.Error("still served at its TTL")
		}
		if c.Len() != 0 {
			t.Errorf("expired entry kept: %d entries", c.Len())
		}
	})

	t.Run("a miss is remembered for the shorter TTL", func(t *testing.T) {
		c, clk := newTestCache(4)
		c.Put("atlantis", nil)
		if p, ok := c.Get("atlantis"); !ok || p != nil {
			t.Fatalf("get = %v, %v; want a cached miss", p, ok)
		}
		clk.advance(time.Minute)
		if _, ok := c.Get("atlantis"); ok {
			t.Error("miss served past its TTL")
		}
	})

	t.Run("bounded: expired entries go first, then the one closest to expiry", func(t *testing.T) {
		c, clk := newTestCache(3)
		c.Put("a", berlin)
		clk.advance(time.Second)
		c.Put("b", berlin)
		clk.advance(time.Second)
		c.Put("c", berlin)
		c.Put("d", berlin) // full: "a" expires first
		if c.Len() != 3 {
			t.Fatalf("%d entries, want the bound 3", c.Len())
		}
		if _, ok := c.Get("a"); ok {
			t.Error(`"a" should have been evicted`)
		}
		for _, k := range []string{"b", "c", "d"} {
			if _, ok := c.Get(k); !ok {
				t.Errorf("%q evicted, want kept", k)
			}
		}
		c.Put("miss", nil) // evicts "b"; the miss expires in a minute
		clk.advance(2 * time.Minute)
		c.Put("e", berlin) // the expired miss is swept, nothing live is dropped
		for _, k := range []string{"c", "d", "e"} {
			if _, ok := c.Get(k); !ok {
				t.Errorf("%q evicted, want kept", k)
			}
		}
		c.Put("c", berlin) // replacing a present key evicts nothing
		if c.Len() != 3 {
			t.Errorf("%d entries after a refresh, want 3", c.Len())
		}
	})

	t.Run("safe for concurrent use", func(t *testing.T) {
		c, clk := newTestCache(16)
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 200 {
					k := fmt.Sprintf("p%d", (g*7+i)%40)
					if i%3 == 0 {
						c.Put(k, berlin)
					} else {
						c.Get(k)
					}
					if i%50 == 0 {
						clk.advance(time.Minute)
					}
				}
			})
		}
		wg.Wait()
		if c.Len() > 16 {
			t.Errorf("%d entries, over the bound 16", c.Len())
		}
	})
}

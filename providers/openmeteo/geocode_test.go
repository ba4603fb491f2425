package openmeteo

import (
	"fmt"
	"sync"
	"testing"
	"time"
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

func (c *placeCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func newTestCache(max int) (*placeCache, *clock) {
	clk := &clock{t: time.Date(2026, 9, 24, 12, 0, 0, 0, time.UTC)}
	c := newPlaceCache(max, time.Hour, time.Minute)
	c.now = clk.now
	return c, clk
}

func TestPlaceCache(t *testing.T) {
	berlin := &place{Name: "Berlin, Germany", Lat: 52.52437, Lon: 13.41053}

	t.Run("hit until the TTL, then gone", func(t *testing.T) {
		c, clk := newTestCache(4)
		c.put("berlin", berlin)
		if p, ok := c.get("berlin"); !ok || p != berlin {
			t.Fatalf("get = %v, %v; want the stored place", p, ok)
		}
		clk.advance(59 * time.Minute)
		if _, ok := c.get("berlin"); !ok {
			t.Error("expired before its TTL")
		}
		clk.advance(time.Minute)
		if _, ok := c.get("berlin"); ok {
			t.Error("still served at its TTL")
		}
		if c.len() != 0 {
			t.Errorf("expired entry kept: %d entries", c.len())
		}
	})

	t.Run("a miss is remembered for the shorter TTL", func(t *testing.T) {
		c, clk := newTestCache(4)
		c.put("atlantis", nil)
		if p, ok := c.get("atlantis"); !ok || p != nil {
			t.Fatalf("get = %v, %v; want a cached miss", p, ok)
		}
		clk.advance(time.Minute)
		if _, ok := c.get("atlantis"); ok {
			t.Error("miss served past its TTL")
		}
	})

	t.Run("bounded: expired entries go first, then the one closest to expiry", func(t *testing.T) {
		c, clk := newTestCache(3)
		c.put("a", berlin)
		clk.advance(time.Second)
		c.put("b", berlin)
		clk.advance(time.Second)
		c.put("c", berlin)
		c.put("d", berlin) // full: "a" expires first
		if c.len() != 3 {
			t.Fatalf("%d entries, want the bound 3", c.len())
		}
		if _, ok := c.get("a"); ok {
			t.Error(`"a" should have been evicted`)
		}
		for _, k := range []string{"b", "c", "d"} {
			if _, ok := c.get(k); !ok {
				t.Errorf("%q evicted, want kept", k)
			}
		}
		c.put("miss", nil) // evicts "b"; the miss expires in a minute
		clk.advance(2 * time.Minute)
		c.put("e", berlin) // the expired miss is swept, nothing live is dropped
		for _, k := range []string{"c", "d", "e"} {
			if _, ok := c.get(k); !ok {
				t.Errorf("%q evicted, want kept", k)
			}
		}
		c.put("c", berlin) // replacing a present key evicts nothing
		if c.len() != 3 {
			t.Errorf("%d entries after a refresh, want 3", c.len())
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
						c.put(k, berlin)
					} else {
						c.get(k)
					}
					if i%50 == 0 {
						clk.advance(time.Minute)
					}
				}
			})
		}
		wg.Wait()
		if c.len() > 16 {
			t.Errorf("%d entries, over the bound 16", c.len())
		}
	})
}

func TestDisplayName(t *testing.T) {
	cases := []struct {
		parts []string
		want  string
	}{
		{[]string{"Berlin", "Berlin", "Germany"}, "Berlin, Germany"},
		{[]string{"Enschede", "Overijssel", "The Netherlands"}, "Enschede, Overijssel, The Netherlands"},
		{[]string{"Antarctica", "", ""}, "Antarctica"},
		{[]string{"", "", ""}, ""},
	}
	for _, tc := range cases {
		if got := displayName(tc.parts...); got != tc.want {
			t.Errorf("displayName(%q) = %q, want %q", tc.parts, got, tc.want)
		}
	}
}

// Package ttlcache is a small bounded in-process map whose entries expire, for upstream answers
// that repeat and that an upstream asks clients not to fetch again and again: geocoder matches
// (with misses remembered for a shorter time) and ebook texts.
package ttlcache

import (
	"sync"
	"time"
)

// Cache maps keys to values for a limited time, safe for concurrent use. The zero value of V
// records a miss ("nothing matched"), kept for missTTL instead of ttl. When full, expired entries
// go first, then the one closest to expiry.
type Cache[V comparable] struct {
	mu      sync.Mutex
	max     int
	ttl     time.Duration
	missTTL time.Duration
	now     func() time.Time
	entries map[string]entry[V]
}

type entry[V comparable] struct {
	value   V
	expires time.Time
}

// New makes a cache of at most max entries.
func New[V comparable](max int, ttl, missTTL time.Duration) *Cache[V] {
	return &Cache[V]{max: max, ttl: ttl, missTTL: missTTL, now: time.Now, entries: map[string]entry[V]{}}
}

// SetClock replaces the time source (tests).
func (c *Cache[V]) SetClock(now func() time.Time) {
	c.mu.Lock()
	c.now = now
	c.mu.Unlock()
}

// Get returns the value of key while it is fresh; an expired entry is dropped.
func (c *Cache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		var zero V
		return zero, false
	}
	if !c.now().Before(e.expires) {
		delete(c.entries, key)
		var zero V
		return zero, false
	}
	return e.value, true
}

// Put stores v under key for ttl, or for missTTL when v is the zero value.
func (c *Cache[V]) Put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if _, present := c.entries[key]; !present && len(c.entries) >= c.max {
		c.evict(now)
	}
	ttl := c.ttl
	var zero V
	if v == zero {
		ttl = c.missTTL
	}
	c.entries[key] = entry[V]{value: v, expires: now.Add(ttl)}
}

// Len is the number of entries held, expired ones not yet swept included.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// evict drops the expired entries, or else the one closest to expiry, to make room for one more.
func (c *Cache[V]) evict(now time.Time) {
	var oldest string
	var oldestAt time.Time
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
			continue
		}
		if oldest == "" || e.expires.Before(oldestAt) {
			oldest, oldestAt = k, e.expires
		}
	}
	if len(c.entries) >= c.max {
		delete(c.entries, oldest)
	}
}

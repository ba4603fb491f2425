package pypi

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/capgate/capgate/providers"
)

// Limits of the pypistats cache (spec 4.23 and section 8).
const (
	downloadsCacheSize = 256
	downloadsCacheTTL  = 24 * time.Hour
	// defaultPause is how long new lookups wait after a 429 without a usable Retry-After.
	defaultPause = time.Hour
)

// downloadCache is the per-process cache of pypistats answers, keyed by package and endpoint.
// Its rules are the spec's: an entry is fresh for 24 hours from retrieval; at most 256 entries;
// a fresh entry is never evicted, so a miss for a new key while all 256 are fresh is refused
// (service_unavailable, Retry-After = time until the oldest entry expires) without calling
// pypistats; after an upstream 429, misses are refused until the pause ends while fresh entries
// are still served. A small mutex-guarded map is used rather than bigcache: bigcache sizes
// shards in bytes and evicts the oldest entries when a shard fills, whatever their age, so it
// cannot express "never evict a fresh entry" or "at most 256 entries".
type downloadCache struct {
	now func() time.Time

	mu          sync.Mutex
	entries     map[string]cacheEntry
	pending     map[string]bool // misses being fetched: they hold a slot
	pausedUntil time.Time
}

type cacheEntry struct {
	data    any
	fetched time.Time
}

func newDownloadCache(now func() time.Time) *downloadCache {
	return &downloadCache{now: now, entries: map[string]cacheEntry{}, pending: map[string]bool{}}
}

// get returns the entry of key while it is fresh; an expired entry is dropped.
func (c *downloadCache) get(key string) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return cacheEntry{}, false
	}
	if !c.now().Before(e.fetched.Add(downloadsCacheTTL)) {
		delete(c.entries, key)
		return cacheEntry{}, false
	}
	return e, true
}

// reserve admits a miss for key before pypistats is called: it is refused while lookups are
// paused, or when every slot holds a fresh entry (or a fetch in flight). release frees the slot
// of a fetch that stored nothing; put keeps it.
func (c *downloadCache) reserve(key string) (release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if now.Before(c.pausedUntil) {
		return nil, pausedError(c.pausedUntil.Sub(now), false)
	}
	for k, e := range c.entries {
		if !now.Before(e.fetched.Add(downloadsCacheTTL)) {
			delete(c.entries, k)
		}
	}
	if !c.pending[key] {
		if len(c.entries)+len(c.pending) >= downloadsCacheSize {
			return nil, c.fullError(now)
		}
		c.pending[key] = true
	}
	return func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}, nil
}

// put stores a fetched answer in the slot its miss reserved.
func (c *downloadCache) put(key string, data any, fetched time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = cacheEntry{data: data, fetched: fetched}
	delete(c.pending, key)
}

// pause refuses new misses for d (an earlier, longer pause stays).
func (c *downloadCache) pause(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if until := c.now().Add(d); until.After(c.pausedUntil) {
		c.pausedUntil = until
	}
}

// fullError is the refusal of a new key while every slot is fresh; callers hold c.mu.
func (c *downloadCache) fullError(now time.Time) error {
	wait := time.Second // every slot is a fetch in flight: try again shortly
	first := true
	for _, e := range c.entries {
		if w := e.fetched.Add(downloadsCacheTTL).Sub(now); first || w < wait {
			wait, first = w, false
		}
	}
	wait = max(wait, time.Second)
	return &providers.Error{
		Code: providers.CodeServiceUnavailable,
		Message: fmt.Sprintf("the download statistics cache is full: it holds %d package answers that stay fresh for 24 hours "+
			"and are never evicted early; a new package can be looked up in %s", downloadsCacheSize, roundWait(wait)),
		Hint:       "Packages looked up in the last 24 hours are still answered from the cache.",
		RetryAfter: wait,
	}
}

// pausedError refuses a miss while pypistats has asked this gateway to wait; fresh is true for
// the answer to the 429 itself. A short wait is rate_limited, a long one provider_allowance.
func pausedError(wait time.Duration, fresh bool) error {
	msg := "pypistats is limiting this gateway's requests"
	if !fresh {
		msg = "new download lookups are paused because pypistats limited this gateway's requests"
	}
	code := providers.CodeProviderAllowance
	if wait <= time.Minute {
		code = providers.CodeRateLimited
	}
	return &providers.Error{
		Code:       code,
		Message:    fmt.Sprintf("%s; new lookups can be made in %s (answers already cached are still served)", msg, roundWait(wait)),
		RetryAfter: wait,
	}
}

func roundWait(d time.Duration) time.Duration {
	if d < time.Second {
		return time.Second
	}
	return d.Round(time.Second)
}

// downloadCaches holds the live cache and one test cache per tenant, so sandbox (test key)
// lookups never fill or read the live cache, and a tenant rehearsing a 429 (Capgate-Sandbox-Fault)
// pauses only its own sandbox lookups.
type downloadCaches struct {
	now  func() time.Time
	live *downloadCache
	mu   sync.Mutex
	test map[string]*downloadCache
}

func newDownloadCaches(now func() time.Time) *downloadCaches {
	return &downloadCaches{now: now, live: newDownloadCache(now), test: map[string]*downloadCache{}}
}

func (cs *downloadCaches) testFor(tenant string) *downloadCache {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.test[tenant]
	if !ok {
		if len(cs.test) >= 10000 {
			cs.test = map[string]*downloadCache{} // bounded; a sandbox cache is cheap to refill
		}
		c = newDownloadCache(cs.now)
		cs.test[tenant] = c
	}
	return c
}

// processCaches is the process's caches; tests swap in fresh ones with their own clock.
var processCaches atomic.Pointer[downloadCaches]

func init() { processCaches.Store(newDownloadCaches(time.Now)) }

func cacheFor(mode providers.Mode, tenant string) *downloadCache {
	cs := processCaches.Load()
	if mode == providers.ModeTest {
		return cs.testFor(tenant)
	}
	return cs.live
}

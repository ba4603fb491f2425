// Package sharedcache keeps upstream answers for every caller of the gateway: an in-process tier
// (bigcache, within the deployment's memory budget) in front of an optional fleet-wide tier in
// Redis (bounded by per-entry TTLs and a size limit), so an answer one instance fetched is served
// by the others. It stores opaque values under 32-byte keys; what a value means, and who may be
// served it, is decided by the caller (gateway/cache.go).
//
// Every entry carries its own key, when it was stored and until when it may be served, and a
// CRC-32C of its s2-compressed payload: an entry that is foreign (another key under the same
// name), expired, truncated or corrupt is a miss, never an error. A Redis that fails is skipped
// for a few seconds (the in-process tier answers alone) and the outage is logged once.
package sharedcache

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/allegro/bigcache/v3"
	"github.com/klauspost/compress/s2"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"
)

// Key names an entry: a hash of everything the answer depends on.
type Key [32]byte

// Tier is where a hit came from.
type Tier string

const (
	TierMemory Tier = "memory"
	TierRedis  Tier = "redis"
)

// Outcome of a lookup.
type Outcome int

const (
	Miss    Outcome = iota // nothing stored under the key, or too old for the caller
	Hit                    // a valid entry
	Corrupt                // something was stored but it is foreign, truncated or damaged: a miss
)

// String names the outcome as the metrics and traces do.
func (o Outcome) String() string {
	switch o {
	case Hit:
		return "hit"
	case Corrupt:
		return "corrupt"
	}
	return "miss"
}

// MaxValue bounds one stored (compressed) entry; a larger answer is not cached.
const MaxValue = 4 << 20

const (
	magic     = "CGU1"
	headerLen = len(magic) + 32 + 8 + 8 + 4
	// redisPrefix keeps the cache's keys apart from the rate limiters' in the same Redis.
	redisPrefix = "capgate:upcache:"
	// redisBackoff is how long a failed Redis is left alone before it is tried again.
	redisBackoff = 5 * time.Second
	// redisTimeout bounds one Redis round trip: a slow Redis must not cost more than a miss.
	redisTimeout = 250 * time.Millisecond
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Options configure a cache.
type Options struct {
	// MemoryMB is the in-process tier's share of the deployment's memory budget.
	MemoryMB int
	// Redis, when set, is the fleet-wide tier.
	Redis redis.UniversalClient
	// MaxAge is the longest TTL any entry gets (the in-process tier's life window).
	MaxAge time.Duration
	Logger *slog.Logger
	// Now is the clock (tests).
	Now func() time.Time
}

// Cache is the two-tier store plus the per-instance coalescing of misses.
type Cache struct {
	mem    *bigcache.BigCache
	redis  redis.UniversalClient
	log    *slog.Logger
	now    func() time.Time
	flight singleflight.Group

	redisDownUntil atomic.Int64 // unix nanoseconds; 0 when Redis is believed up
	downLogged     atomic.Bool
	// RedisErrors counts failed Redis round trips (metrics).
	RedisErrors atomic.Int64
	waiting     atomic.Int64
	fleetWait   atomic.Int64
}

// New makes a cache.
func New(o Options) (*Cache, error) {
	if o.MemoryMB <= 0 {
		o.MemoryMB = 8
	}
	if o.MaxAge <= 0 {
		o.MaxAge = 24 * time.Hour
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	cfg := bigcache.DefaultConfig(o.MaxAge)
	cfg.Shards = 64
	cfg.MaxEntriesInWindow = 4096
	cfg.MaxEntrySize = 8 << 10
	cfg.HardMaxCacheSize = o.MemoryMB
	cfg.CleanWindow = time.Minute
	cfg.Verbose = false
	mem, err := bigcache.New(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	return &Cache{mem: mem, redis: o.Redis, log: o.Logger, now: o.Now}, nil
}

// Close releases the in-process tier.
func (c *Cache) Close() error { return c.mem.Close() }

// Fleet tells whether a Redis tier is configured.
func (c *Cache) Fleet() bool { return c.redis != nil }

// Waiting is the number of callers waiting for another caller's upstream call right now.
func (c *Cache) Waiting() int64 { return c.waiting.Load() }

// FleetWaiting is the number of this instance's fetches now waiting on another instance's fleet
// lock (each has read the answer it passed over and found the lock held).
func (c *Cache) FleetWaiting() int64 { return c.fleetWait.Load() }

// Entry is a valid stored answer.
type Entry struct {
	Value    []byte // the caller's own copy
	StoredAt time.Time
	Age      time.Duration // by the cache's clock
	Tier     Tier
}

// Get looks the key up in memory, then in Redis (promoting a Redis hit to memory). maxAge > 0
// accepts only an entry stored at most maxAge ago.
func (c *Cache) Get(ctx context.Context, k Key, maxAge time.Duration) (Entry, Outcome) {
	out := Miss
	if raw, err := c.mem.Get(memKey(k)); err == nil {
		e, o := c.open(raw, k, maxAge)
		if o == Hit {
			e.Tier = TierMemory
			return e, Hit
		}
		out = max(out, o)
	}
	if !c.redisUp() {
		return Entry{}, out
	}
	rctx, cancel := context.WithTimeout(ctx, redisTimeout)
	raw, err := c.redis.Get(rctx, redisKey(k)).Bytes()
	cancel()
	switch {
	case errors.Is(err, redis.Nil):
		c.redisWorks()
		return Entry{}, out
	case err != nil:
		if ctx.Err() == nil {
			c.redisFailed(err)
		}
		return Entry{}, out
	}
	c.redisWorks()
	e, o := c.open(raw, k, maxAge)
	if o != Hit {
		return Entry{}, max(out, o)
	}
	if left := time.Until(expiresAt(raw)); left > 0 {
		_ = c.mem.Set(memKey(k), raw) // raw is ours: go-redis hands out a fresh slice
	}
	e.Tier = TierRedis
	return e, Hit
}

// Put stores value under k for ttl in both tiers. Errors are not the caller's concern: a value
// not stored is a later miss.
func (c *Cache) Put(ctx context.Context, k Key, value []byte, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	raw := c.seal(k, value, ttl)
	if len(raw) > MaxValue {
		return
	}
	_ = c.mem.Set(memKey(k), raw)
	if !c.redisUp() {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), redisTimeout)
	err := c.redis.Set(rctx, redisKey(k), raw, ttl).Err()
	cancel()
	if err != nil {
		c.redisFailed(err)
		return
	}
	c.redisWorks()
}

// Coalesce runs fetch once for all concurrent callers of the same key on this instance: the
// first caller's fetch runs detached from any one caller (so one caller leaving does not fail
// the others), and each caller waits for it no longer than its own ctx allows. shared is true
// for every caller but the one whose call started the fetch. Each caller gets a copy of its own.
//
// With a Redis tier, the instances coalesce too: before it calls fetch, an instance's one caller
// takes a lock in Redis for at most lockTTL (SET NX PX). An instance that finds the lock held
// waits for the holder's answer to appear in Redis instead of calling the upstream itself (its
// callers get shared = true), and fetches on its own when the lock goes without an answer (the
// holder failed, or the answer may not be stored) or lockTTL passes. fetch is expected to Put
// what may be stored before it returns. lockTTL <= 0 coalesces on this instance only.
func (c *Cache) Coalesce(ctx context.Context, k Key, lockTTL time.Duration, fetch func() ([]byte, error)) (value []byte, shared bool, err error) {
	started := false
	fleet := false
	ch := c.flight.DoChan(memKey(k), func() (any, error) {
		started = true
		if lockTTL > 0 && c.redisUp() {
			v, release := c.awaitFleet(k, lockTTL)
			if v != nil {
				fleet = true
				return v, nil
			}
			defer release()
		}
		return fetch()
	})
	// started is set before DoChan returns only for the caller whose call runs fetch (DoChan
	// starts it in a goroutine, so read it after the result arrives instead).
	c.waiting.Add(1)
	defer c.waiting.Add(-1)
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Shared && !started, r.Err
		}
		// Every caller gets its own copy: callers write into what they are given.
		return bytes.Clone(r.Val.([]byte)), fleet || (r.Shared && !started), nil
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
}

// fleetPoll bounds the wait between two looks at Redis for another instance's answer.
const (
	fleetPollMin = 10 * time.Millisecond
	fleetPollMax = 100 * time.Millisecond
)

// releaseLock deletes the fleet lock only while it still holds this instance's token (the lock
// may have expired and been taken by another instance since).
var releaseLock = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// awaitFleet takes the fleet lock of k (then returns a nil value and the release of the lock) or
// waits until the lock's holder has stored a new answer (then returns it). Any Redis failure
// ends the wait with a nil value: the caller fetches on its own, as without a Redis tier.
func (c *Cache) awaitFleet(k Key, lockTTL time.Duration) (value []byte, release func()) {
	noop := func() {}
	lock := redisPrefix + "lock:" + hex.EncodeToString(k[:])
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return nil, noop
	}
	deadline := c.now().Add(lockTTL)
	// The answer already in Redis when the wait begins is one the caller chose not to take (too
	// old for its max-age, or a no-cache refresh): only a newer one ends the wait.
	var before []byte
	if raw, err := c.redisGet(k); err == nil && len(raw) >= headerLen {
		before = bytes.Clone(raw[36:44])
	}
	for {
		ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
		ok, err := c.redis.SetNX(ctx, lock, token, lockTTL).Result()
		cancel()
		if err != nil {
			c.redisFailed(err)
			return nil, noop
		}
		if ok {
			c.redisWorks()
			return nil, func() {
				ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
				defer cancel()
				if err := releaseLock.Run(ctx, c.redis, []string{lock}, token).Err(); err != nil {
					c.redisFailed(err)
				}
			}
		}
		// Another instance is fetching: wait for its answer, or for its lock to go.
		c.fleetWait.Add(1)
		v, again := c.pollFleet(k, lock, before, deadline)
		c.fleetWait.Add(-1)
		if !again {
			return v, noop
		}
	}
}

// pollFleet waits for the fleet lock's holder to store an answer newer than before (then returns
// it) or for the lock to go without one (then again is true: try to take the lock).
func (c *Cache) pollFleet(k Key, lock string, before []byte, deadline time.Time) (value []byte, again bool) {
	wait := fleetPollMin
	for {
		if !c.now().Before(deadline) {
			return nil, false
		}
		time.Sleep(wait)
		wait = min(wait*2, fleetPollMax)
		raw, err := c.redisGet(k)
		switch {
		case err == nil && len(raw) >= headerLen && !bytes.Equal(raw[36:44], before):
			if e, o := c.open(raw, k, 0); o == Hit {
				_ = c.mem.Set(memKey(k), raw)
				return e.Value, false
			}
		case err != nil && !errors.Is(err, redis.Nil):
			c.redisFailed(err)
			return nil, false
		}
		ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
		n, err := c.redis.Exists(ctx, lock).Result()
		cancel()
		if err != nil {
			c.redisFailed(err)
			return nil, false
		}
		if n == 0 {
			return nil, true // the holder is gone without a new answer: try to take the lock
		}
	}
}

// redisGet reads k's raw entry from Redis under the round-trip bound.
func (c *Cache) redisGet(k Key) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	return c.redis.Get(ctx, redisKey(k)).Bytes()
}

func (c *Cache) redisUp() bool {
	if c.redis == nil {
		return false
	}
	until := c.redisDownUntil.Load()
	return until == 0 || c.now().UnixNano() >= until
}

func (c *Cache) redisFailed(err error) {
	c.RedisErrors.Add(1)
	c.redisDownUntil.Store(c.now().Add(redisBackoff).UnixNano())
	if c.downLogged.CompareAndSwap(false, true) {
		c.log.Warn("shared upstream cache: Redis is unavailable; serving from this instance's memory only until it answers again", "err", err)
	}
}

func (c *Cache) redisWorks() {
	if c.redisDownUntil.Load() != 0 {
		c.redisDownUntil.Store(0)
	}
	if c.downLogged.Load() && c.downLogged.CompareAndSwap(true, false) {
		c.log.Info("shared upstream cache: Redis answers again")
	}
}

// seal is magic | key | stored at | expires at (unix ns) | crc32c(payload) | s2(value).
func (c *Cache) seal(k Key, value []byte, ttl time.Duration) []byte {
	now := c.now()
	buf := make([]byte, headerLen+s2.MaxEncodedLen(len(value)))
	copy(buf, magic)
	copy(buf[4:], k[:])
	binary.LittleEndian.PutUint64(buf[36:], uint64(now.UnixNano()))
	binary.LittleEndian.PutUint64(buf[44:], uint64(now.Add(ttl).UnixNano()))
	payload := s2.Encode(buf[headerLen:], value)
	binary.LittleEndian.PutUint32(buf[52:], crc32.Checksum(payload, castagnoli))
	return buf[:headerLen+len(payload)]
}

// open checks an entry and decompresses its value.
func (c *Cache) open(raw []byte, k Key, maxAge time.Duration) (Entry, Outcome) {
	if len(raw) < headerLen || string(raw[:4]) != magic || [32]byte(raw[4:36]) != k {
		return Entry{}, Corrupt
	}
	stored := int64(binary.LittleEndian.Uint64(raw[36:]))
	expires := int64(binary.LittleEndian.Uint64(raw[44:]))
	now := c.now().UnixNano()
	if now >= expires || stored > now+int64(time.Minute) {
		return Entry{}, Miss
	}
	if maxAge > 0 && now-stored > int64(maxAge) {
		return Entry{}, Miss
	}
	payload := raw[headerLen:]
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(raw[52:]) {
		return Entry{}, Corrupt
	}
	n, err := s2.DecodedLen(payload)
	if err != nil || n > 8*MaxValue {
		return Entry{}, Corrupt
	}
	value, err := s2.Decode(make([]byte, n), payload)
	if err != nil {
		return Entry{}, Corrupt
	}
	return Entry{Value: value, StoredAt: time.Unix(0, stored), Age: time.Duration(max(now-stored, 0))}, Hit
}

func expiresAt(raw []byte) time.Time {
	return time.Unix(0, int64(binary.LittleEndian.Uint64(raw[44:])))
}

func memKey(k Key) string { return string(k[:]) }

func redisKey(k Key) string { return redisPrefix + hex.EncodeToString(k[:]) }

// RedisKey is the Redis key of k (tests corrupt entries through it).
func RedisKey(k Key) string { return redisKey(k) }

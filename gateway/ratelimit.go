package gateway

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"
)

// RateResult is one rate-limit decision and what the RateLimit-* headers report.
type RateResult struct {
	Allowed    bool
	Limit      int
	Remaining  int
	RetryAfter time.Duration // when denied
	ResetAfter time.Duration // until the allowance is whole again
}

// RateLimiter decides per tenant (all its keys together) against a per-minute rate with a burst
// of one minute's allowance.
type RateLimiter interface {
	Allow(ctx context.Context, tenantID string, perMinute int) (RateResult, error)
}

// MemoryLimiter is the single-instance limiter (golang.org/x/time/rate token buckets).
type MemoryLimiter struct {
	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	perMinute int
	l         *rate.Limiter
}

// NewMemoryLimiter makes an in-process limiter.
func NewMemoryLimiter() *MemoryLimiter { return &MemoryLimiter{buckets: map[string]*bucket{}} }

// Allow takes one token from the tenant's bucket.
func (m *MemoryLimiter) Allow(_ context.Context, tenantID string, perMinute int) (RateResult, error) {
	now := time.Now()
	m.mu.Lock()
	b := m.buckets[tenantID]
	if b == nil || b.perMinute != perMinute {
		b = &bucket{perMinute: perMinute, l: rate.NewLimiter(rate.Limit(float64(perMinute)/60), perMinute)}
		m.buckets[tenantID] = b
	}
	m.mu.Unlock()
	perSec := float64(perMinute) / 60
	res := RateResult{Limit: perMinute}
	r := b.l.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		res.RetryAfter = d
	} else {
		res.Allowed = true
	}
	tokens := b.l.TokensAt(now)
	if tokens < 0 {
		tokens = 0
	}
	res.Remaining = int(math.Floor(tokens))
	res.ResetAfter = time.Duration((float64(perMinute) - tokens) / perSec * float64(time.Second))
	return res, nil
}

// RedisLimiter holds limits across instances (github.com/go-redis/redis_rate, GCRA in Redis).
type RedisLimiter struct {
	l *redis_rate.Limiter
}

// NewRedisLimiter uses the Redis at url.
func NewRedisLimiter(url string) (*RedisLimiter, *redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, err
	}
	rdb := redis.NewClient(opts)
	return &RedisLimiter{l: redis_rate.NewLimiter(rdb)}, rdb, nil
}

// Allow takes one request from the tenant's allowance.
func (r *RedisLimiter) Allow(ctx context.Context, tenantID string, perMinute int) (RateResult, error) {
	res, err := r.l.Allow(ctx, "capgate:rate:"+tenantID, redis_rate.PerMinute(perMinute))
	if err != nil {
		return RateResult{}, err
	}
	out := RateResult{Allowed: res.Allowed > 0, Limit: perMinute, Remaining: res.Remaining, ResetAfter: res.ResetAfter}
	if !out.Allowed {
		out.RetryAfter = res.RetryAfter
	}
	return out, nil
}

package console

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"
)

// SignInLimit allows Burst failed sign-ins, then one more every Per/Burst (a token bucket that
// refills in Per).
type SignInLimit struct {
	Burst int
	Per   time.Duration
}

// SignInLimits are the two limits of failed sign-ins: per account (the normalised email the
// user lookup matches on), against guessing one password from many addresses; and per client
// address, against one address trying many accounts.
type SignInLimits struct {
	PerEmail, PerAddress SignInLimit
}

// DefaultSignInLimits: an address is shared by an office behind NAT, so it gets more.
var DefaultSignInLimits = SignInLimits{
	PerEmail:   SignInLimit{Burst: 5, Per: 15 * time.Minute},
	PerAddress: SignInLimit{Burst: 20, Per: 15 * time.Minute},
}

// SignInLimiter counts failed sign-ins per key. Only failures count; Reset is called for the
// signed-in account's own key, never for an address or another account.
type SignInLimiter interface {
	// Wait is how long until key may fail once more (0: it may now).
	Wait(ctx context.Context, key string, l SignInLimit) (time.Duration, error)
	Fail(ctx context.Context, key string, l SignInLimit) error
	Reset(ctx context.Context, key string) error
}

var (
	_ SignInLimiter = (*MemorySignInLimiter)(nil)
	_ SignInLimiter = (*RedisSignInLimiter)(nil)
)

// MemorySignInLimiter keeps the counters of a single instance (golang.org/x/time/rate buckets).
type MemorySignInLimiter struct {
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// NewMemorySignInLimiter makes an in-process limiter.
func NewMemorySignInLimiter() *MemorySignInLimiter {
	return &MemorySignInLimiter{buckets: map[string]*rate.Limiter{}}
}

// maxBuckets bounds the map: beyond it, buckets that have refilled (no recent failure) go.
const maxBuckets = 10000

func (m *MemorySignInLimiter) bucket(key string, l SignInLimit, now time.Time) *rate.Limiter {
	b := m.buckets[key]
	if b == nil {
		if len(m.buckets) >= maxBuckets {
			for k, old := range m.buckets {
				if old.TokensAt(now) >= float64(old.Burst()) {
					delete(m.buckets, k)
				}
			}
		}
		b = rate.NewLimiter(rate.Every(l.Per/time.Duration(l.Burst)), l.Burst)
		m.buckets[key] = b
	}
	return b
}

// Wait reports the time until the bucket holds a whole token.
func (m *MemorySignInLimiter) Wait(_ context.Context, key string, l SignInLimit) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.buckets[key]
	if b == nil {
		return 0, nil
	}
	now := time.Now()
	if tokens := b.TokensAt(now); tokens < 1 {
		return time.Duration((1 - tokens) / float64(b.Limit()) * float64(time.Second)), nil
	}
	return 0, nil
}

// Fail takes a token.
func (m *MemorySignInLimiter) Fail(_ context.Context, key string, l SignInLimit) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.bucket(key, l, now).AllowN(now, 1)
	return nil
}

// Reset forgets the key.
func (m *MemorySignInLimiter) Reset(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.buckets, key)
	return nil
}

// RedisSignInLimiter shares the counters of every instance through Redis
// (github.com/go-redis/redis_rate, GCRA), so a fleet of N instances still allows one limit.
type RedisSignInLimiter struct {
	l *redis_rate.Limiter
}

// NewRedisSignInLimiter uses rdb.
func NewRedisSignInLimiter(rdb *redis.Client) *RedisSignInLimiter {
	return &RedisSignInLimiter{l: redis_rate.NewLimiter(rdb)}
}

func redisLimit(l SignInLimit) redis_rate.Limit {
	return redis_rate.Limit{Rate: l.Burst, Burst: l.Burst, Period: l.Per}
}

const redisPrefix = "capgate:signin:"

// Wait asks without spending (a cost of 0): the bucket may fail once more when a whole token is
// left.
func (r *RedisSignInLimiter) Wait(ctx context.Context, key string, l SignInLimit) (time.Duration, error) {
	res, err := r.l.AllowN(ctx, redisPrefix+key, redisLimit(l), 0)
	if err != nil {
		return 0, err
	}
	if res.Remaining >= 1 {
		return 0, nil
	}
	// ResetAfter is the time until the bucket is full; one token comes Burst-1 intervals sooner.
	interval := l.Per / time.Duration(l.Burst)
	wait := res.ResetAfter - time.Duration(l.Burst-1)*interval
	if res.Allowed == 0 {
		wait = res.RetryAfter
	}
	return time.Duration(math.Max(float64(wait), float64(time.Second))), nil
}

// Fail spends one token.
func (r *RedisSignInLimiter) Fail(ctx context.Context, key string, l SignInLimit) error {
	_, err := r.l.AllowN(ctx, redisPrefix+key, redisLimit(l), 1)
	return err
}

// Reset forgets the key.
func (r *RedisSignInLimiter) Reset(ctx context.Context, key string) error {
	return r.l.Reset(ctx, redisPrefix+key)
}

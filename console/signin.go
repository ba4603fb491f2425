package console

import (
	"context"
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

// SignInLimiter counts sign-in attempts per key. An attempt is taken from the allowance
// before the password is checked, so however many guesses arrive at once, at most the allowance
// is ever checked; a successful sign-in gives its attempt back, so only failures stay counted.
// Reset is called for the signed-in account's own key, never for an address or another account.
type SignInLimiter interface {
	// Take spends one attempt of key's allowance. With none left it spends nothing and returns a
	// nil Attempt and how long until one is left.
	Take(ctx context.Context, key string, l SignInLimit) (Attempt, time.Duration, error)
	Reset(ctx context.Context, key string) error
}

// Attempt is one taken attempt; Give returns it to the allowance.
type Attempt interface {
	Give(ctx context.Context) error
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

// Take spends a token when one is there now.
func (m *MemorySignInLimiter) Take(_ context.Context, key string, l SignInLimit) (Attempt, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	b := m.bucket(key, l, now)
	if tokens := b.TokensAt(now); tokens < 1 {
		return nil, time.Duration((1 - tokens) / float64(b.Limit()) * float64(time.Second)), nil
	}
	b.AllowN(now, 1)
	return memoryAttempt{m: m, b: b}, 0, nil
}

type memoryAttempt struct {
	m *MemorySignInLimiter
	b *rate.Limiter
}

// Give puts the token back. x/time/rate has no call for it: a Reservation's Cancel restores
// nothing once its time to act has passed, which for an immediate one is at once. AllowN with
// -1 adds one token (the limiter caps tokens at the burst on its next update), and only while
// the bucket is not full. A bucket Reset meanwhile is no longer in the map: the token goes to
// the old one, which nothing reads.
func (a memoryAttempt) Give(context.Context) error {
	a.m.mu.Lock()
	defer a.m.mu.Unlock()
	now := time.Now()
	if a.b.TokensAt(now) < float64(a.b.Burst()) {
		a.b.AllowN(now, -1)
	}
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
	rdb *redis.Client
	l   *redis_rate.Limiter
}

// NewRedisSignInLimiter uses rdb.
func NewRedisSignInLimiter(rdb *redis.Client) *RedisSignInLimiter {
	return &RedisSignInLimiter{rdb: rdb, l: redis_rate.NewLimiter(rdb)}
}

func redisLimit(l SignInLimit) redis_rate.Limit {
	return redis_rate.Limit{Rate: l.Burst, Burst: l.Burst, Period: l.Per}
}

const redisPrefix = "capgate:signin:"

// Take spends one token atomically (redis_rate's AllowN) or nothing when none is left.
func (r *RedisSignInLimiter) Take(ctx context.Context, key string, l SignInLimit) (Attempt, time.Duration, error) {
	res, err := r.l.AllowN(ctx, redisPrefix+key, redisLimit(l), 1)
	if err != nil {
		return nil, 0, err
	}
	if res.Allowed == 0 {
		return nil, max(res.RetryAfter, time.Second), nil
	}
	return redisAttempt{r: r, key: key, l: l}, 0, nil
}

type redisAttempt struct {
	r   *RedisSignInLimiter
	key string
	l   SignInLimit
}

// giveBack moves the GCRA's theoretical arrival time of a redis_rate key back by one emission
// interval, never before now, and deletes the key when that leaves the bucket full. It reads and
// writes the value exactly as redis_rate's own script does ("rate:" + key, seconds since
// 2017-01-01 from Redis's clock). redis_rate's AllowN with a cost of -1 cannot be used: it skips
// the write when the bucket comes out full, so the token would never come back.
var giveBack = redis.NewScript(`
redis.replicate_commands()
local key = KEYS[1]
local interval = tonumber(ARGV[1])
local tat = redis.call("GET", key)
if not tat then
  return 0
end
local t = redis.call("TIME")
local now = (t[1] - 1483228800) + (t[2] / 1000000)
local new_tat = tonumber(tat) - interval
if new_tat <= now then
  redis.call("DEL", key)
else
  redis.call("SET", key, new_tat, "EX", math.ceil(new_tat - now))
end
return 1
`)

// Give returns the token to the shared bucket.
func (a redisAttempt) Give(ctx context.Context) error {
	interval := a.l.Per.Seconds() / float64(a.l.Burst)
	return giveBack.Run(ctx, a.r.rdb, []string{"rate:" + redisPrefix + a.key}, interval).Err()
}

// Reset forgets the key.
func (r *RedisSignInLimiter) Reset(ctx context.Context, key string) error {
	return r.l.Reset(ctx, redisPrefix+key)
}

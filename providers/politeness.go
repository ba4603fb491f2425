package providers

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"
)

// Limit is an upstream's documented allowance: at most Requests calls in any window of Per.
type Limit struct {
	Requests int
	Per      time.Duration
	// Burst is how many calls may go back to back (default 1: calls evenly spaced). The pace is
	// lowered so that the burst plus the steady rate never exceed Requests in one window.
	Burst int
	// Keyless marks a free tier's limit, lifted while the provider is called with a key.
	Keyless bool
}

func (l Limit) burst() int {
	if l.Burst < 1 {
		return 1
	}
	if l.Burst > l.Requests {
		return l.Requests
	}
	return l.Burst
}

// steady is how many calls per window the pace allows besides the burst: with GCRA, any window
// of Per then holds at most steady+burst-1 = Requests calls.
func (l Limit) steady() int { return l.Requests - l.burst() + 1 }

func (l Limit) String() string { return fmt.Sprintf("%d/%s", l.Requests, l.Per) }

// perSecond expresses a RequestsPerSecond bound as a Limit (calls evenly spaced).
func perSecond(rps float64) Limit {
	return Limit{Requests: 1, Per: time.Duration(float64(time.Second) / rps)}
}

// Pacer holds calls to an upstream under its limits. The in-memory pacer serves one instance;
// the Redis pacer shares every allowance across a fleet, as SEC, Nominatim, MusicBrainz and the
// Library of Congress count calls per client, not per process.
type Pacer interface {
	// Wait blocks until one call under l may be made for key, or fails when ctx ends first.
	Wait(ctx context.Context, key string, l Limit) error
}

// MemoryPacer paces calls within this process (golang.org/x/time/rate).
type MemoryPacer struct {
	mu       sync.Mutex
	limiters map[string]*rate.Limiter
}

// NewMemoryPacer makes an in-process pacer.
func NewMemoryPacer() *MemoryPacer { return &MemoryPacer{limiters: map[string]*rate.Limiter{}} }

// Wait takes one call from key's allowance, waiting for it.
func (m *MemoryPacer) Wait(ctx context.Context, key string, l Limit) error {
	m.mu.Lock()
	lim := m.limiters[key]
	if lim == nil {
		lim = rate.NewLimiter(rate.Every(l.Per/time.Duration(l.steady())), l.burst())
		m.limiters[key] = lim
	}
	m.mu.Unlock()
	return lim.Wait(ctx)
}

// RedisPacer paces calls across every instance sharing one Redis (github.com/go-redis/redis_rate,
// GCRA on the Redis clock). When Redis fails, a call is paced in memory instead of refused.
type RedisPacer struct {
	l        *redis_rate.Limiter
	fallback *MemoryPacer
	onError  func(error)
	down     atomic.Bool // Redis failed and has not answered since
	// OnRecover (may be nil) hears that Redis answers again after an outage.
	OnRecover func()
}

// NewRedisPacer paces through rdb; onError (may be nil) hears of Redis failures.
//
// onError is called once per outage: at the first failure after Redis last answered (a warning
// per call would flood the log while every call still succeeds on the fallback); OnRecover, when
// set, when Redis answers again.
func NewRedisPacer(rdb *redis.Client, onError func(error)) *RedisPacer {
	return &RedisPacer{l: redis_rate.NewLimiter(rdb), fallback: NewMemoryPacer(), onError: onError}
}

// Wait asks Redis for one call of key's allowance until it is granted.
func (r *RedisPacer) Wait(ctx context.Context, key string, l Limit) error {
	lim := redis_rate.Limit{Rate: l.steady(), Burst: l.burst(), Period: l.Per}
	for {
		res, err := r.l.Allow(ctx, "capgate:upstream:"+key, lim)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if r.down.CompareAndSwap(false, true) && r.onError != nil {
				r.onError(err)
			}
			return r.fallback.Wait(ctx, key, l)
		}
		if r.down.CompareAndSwap(true, false) && r.OnRecover != nil {
			r.OnRecover()
		}
		if res.Allowed > 0 {
			return nil
		}
		wait := res.RetryAfter
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return fmt.Errorf("waiting %s for %s would pass the deadline: %w", wait, key, context.DeadlineExceeded)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// limitsOf are the allowances a provider's calls are paced under, with their pacing keys: the
// declared Limits and RequestsPerSecond, counted per LimitGroup (default: the provider id).
func limitsOf(p *Provider) []pacedLimit {
	group := p.LimitGroup
	if group == "" {
		group = p.ID
	}
	ls := append([]Limit(nil), p.Limits...)
	if p.RequestsPerSecond > 0 {
		ls = append(ls, perSecond(p.RequestsPerSecond))
	}
	out := make([]pacedLimit, 0, len(ls))
	for _, l := range ls {
		if l.Requests > 0 && l.Per > 0 {
			out = append(out, pacedLimit{key: group + ":" + l.String(), Limit: l})
		}
	}
	return out
}

type pacedLimit struct {
	key string
	Limit
}

// pace waits for every limit of the provider in turn (a free tier's limits only without a key).
func (c *Client) pace(ctx context.Context, u *Upstream) error {
	for _, l := range c.limits[u.p.ID] {
		if l.Keyless && u.Key != "" {
			continue
		}
		if err := c.pacer.Wait(ctx, l.key, l.Limit); err != nil {
			return err
		}
	}
	return nil
}

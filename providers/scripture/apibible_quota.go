package scripture

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
)

// API.Bible's documented allowance (docs.api.bible, "Rate Limiting" of the API reference's
// getting-started page): "Each API key or app is allowed to request up to 500 consecutive verses
// at a time and make 5,000 queries per day."
const (
	// apiBibleDailyQueries is the calls one key may make in a day.
	apiBibleDailyQueries = 5000
	// apiBibleMaxVerses is the most consecutive verses one request may ask for; the search's
	// limit (num, at most 25 by the spec) stays far below it, and it is clamped here so no change
	// of num can send more.
	apiBibleMaxVerses = 500
)

// apiBibleQuota counts this process's live API.Bible calls per UTC day, per base URL (one
// deployment key each), so that the 5,001st call of a day is refused here with a clear
// provider_allowance instead of being sent; an API.Bible 429 uses up the rest of the day as well
// (a Starter plan's monthly allowance ends the same way). Per process: instances of a fleet each
// count their own calls.
var apiBibleQuota = newDailyQuota(apiBibleDailyQueries, time.Now)

type dailyQuota struct {
	mu    sync.Mutex
	limit int
	now   func() time.Time
	day   map[string]string // base URL → UTC date of the count
	used  map[string]int
}

func newDailyQuota(limit int, now func() time.Time) *dailyQuota {
	return &dailyQuota{limit: limit, now: now, day: map[string]string{}, used: map[string]int{}}
}

// take counts one call for base; false with the time until the next UTC day when the day's
// allowance is used up.
func (q *dailyQuota) take(base string) (bool, time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now().UTC()
	today := now.Format(time.DateOnly)
	if q.day[base] != today {
		q.day[base], q.used[base] = today, 0
	}
	if q.used[base] >= q.limit {
		return false, untilNextUTCDay(now)
	}
	q.used[base]++
	return true, 0
}

// exhaust uses up the rest of today's allowance for base (API.Bible said it is used up).
func (q *dailyQuota) exhaust(base string) time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now().UTC()
	q.day[base], q.used[base] = now.Format(time.DateOnly), q.limit
	return untilNextUTCDay(now)
}

func untilNextUTCDay(now time.Time) time.Duration {
	y, m, d := now.Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC).Sub(now)
}

// apiBibleAllowanceError is the answer once the day's API.Bible calls are used up: retryable at
// the next UTC day, with the way to read Scripture meanwhile.
func apiBibleAllowanceError(wait time.Duration, byUpstream bool) error {
	why := fmt.Sprintf("API.Bible allows %d requests a day per key and this gateway has used today's", apiBibleDailyQueries)
	if byUpstream {
		why = "API.Bible answered that this gateway's allowance is used up"
	}
	e := providers.Errorf(providers.CodeProviderAllowance, "%s; whole-Bible phrase search resumes in %s (at 00:00 UTC)",
		why, max(wait.Round(time.Minute), time.Minute)).
		WithRetryable(true).WithHint("Look passages up by reference, or search within a passage by giving both reference and query: those use bible-api.com.")
	e.RetryAfter = wait
	return e
}

// apiBibleAllowanceUsedUp tells whether an API.Bible error is its allowance refusal (429).
func apiBibleAllowanceUsedUp(err error) bool {
	e, ok := providers.AsError(err)
	return ok && e.UpstreamStatus == http.StatusTooManyRequests
}

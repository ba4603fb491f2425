package fitness

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
)

// Playback bounds (spec 4.26: video URLs are cached across users for up to 24 hours, bounded by
// the provider's expiry).
const (
	// MaxCacheAge is the longest a video URL is served from the cache.
	MaxCacheAge = 24 * time.Hour
	// signedURLLife is YMove's documented life of a pre-signed video URL, used when the URL itself
	// carries no expiry.
	signedURLLife = 48 * time.Hour
	// expiryMargin keeps a URL from being handed out just before it expires (the player still has
	// to load it).
	expiryMargin = 5 * time.Minute
	// DefaultCacheEntries bounds the cache (one entry per provider exercise and mode).
	DefaultCacheEntries = 4096
	lookupTimeout       = 15 * time.Second
	testRefPrefix       = "test:"
)

// ExerciseRef is the exercise reference saved with a workout: the provider's exercise id, prefixed
// "test:" when a test key found it, so its demonstration is renewed from the sandbox, never live.
func ExerciseRef(mode providers.Mode, id string) string {
	if mode == providers.ModeTest {
		return testRefPrefix + id
	}
	return id
}

// parseRef splits a saved exercise reference into the mode to renew it in and the provider id.
func parseRef(ref string) (providers.Mode, string) {
	if id, ok := strings.CutPrefix(ref, testRefPrefix); ok {
		return providers.ModeTest, id
	}
	return providers.ModeLive, ref
}

// PlayerOptions configure a Player; zero values take the defaults.
type PlayerOptions struct {
	// Now is the clock (tests inject one).
	Now func() time.Time
	// MaxEntries bounds the cache (DefaultCacheEntries).
	MaxEntries int
	// SandboxVideo, when set, is what a demonstration found with a test key plays: the sandbox
	// answers real-shaped lookups, but it has no media host behind its signed URLs.
	SandboxVideo string
}

// Player resolves the current video URL of a saved workout's demonstration. URLs are cached in
// this process across tenants, keyed by provider exercise (and mode), for at most MaxCacheAge and
// never past the URL's own expiry; an expired entry is renewed by a lookup at the provider, which
// costs the caller nothing. Safe for concurrent use; one renewal per exercise runs at a time.
type Player struct {
	client   *providers.Client
	now      func() time.Time
	max      int
	sandbox  string
	mu       sync.Mutex
	cache    map[string]cachedVideo
	inflight map[string]*renewal
}

type cachedVideo struct {
	url   string
	until time.Time // served while now is before until
}

type renewal struct {
	done chan struct{}
	url  string
	err  error
}

// NewPlayer makes a player that renews URLs through the client (live or sandbox by the ref).
func NewPlayer(client *providers.Client, opts PlayerOptions) *Player {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultCacheEntries
	}
	return &Player{client: client, now: opts.Now, max: opts.MaxEntries, sandbox: opts.SandboxVideo,
		cache: map[string]cachedVideo{}, inflight: map[string]*renewal{}}
}

// VideoURL answers the URL to play a saved workout's demonstration now. Errors are
// *providers.Error: workout_unavailable (404) when the workout has no demonstration or the provider
// no longer offers one; media_stale (409) when the cached URL has expired and cannot be renewed.
func (p *Player) VideoURL(ctx context.Context, provider, exerciseRef string, videoAvailable bool) (string, error) {
	mode, id := parseRef(exerciseRef)
	if !videoAvailable || provider != VideoProviderID || strings.TrimSpace(id) == "" {
		return "", providers.Errorf(providers.CodeWorkoutUnavailable, "this workout has no demonstration video")
	}
	key := string(mode) + "\x00" + id
	p.mu.Lock()
	if c, ok := p.cache[key]; ok && p.now().Before(c.until) {
		p.mu.Unlock()
		return c.url, nil
	}
	r, running := p.inflight[key]
	if !running {
		r = &renewal{done: make(chan struct{})}
		p.inflight[key] = r
	}
	p.mu.Unlock()

	if !running {
		// The renewal outlives a caller that goes away: its answer is cached for everyone.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
		r.url, r.err = p.renew(rctx, key, mode, id)
		cancel()
		p.mu.Lock()
		delete(p.inflight, key)
		p.mu.Unlock()
		close(r.done)
		return r.url, r.err
	}
	select {
	case <-r.done:
		return r.url, r.err
	case <-ctx.Done():
		return "", providers.Errorf(providers.CodeMediaStale, "the demonstration video link was still being renewed when the request ended")
	}
}

// renew looks the exercise up, checks the URL's expiry and caches it.
func (p *Player) renew(ctx context.Context, key string, mode providers.Mode, id string) (string, error) {
	link, expires, err := p.lookup(ctx, mode, id)
	if err != nil {
		p.mu.Lock()
		delete(p.cache, key) // an expired entry is never served again
		p.mu.Unlock()
		if providers.CodeOf(err) == providers.CodeWorkoutUnavailable || providers.CodeOf(err) == providers.CodeMediaStale {
			return "", err
		}
		return "", &providers.Error{Code: providers.CodeMediaStale,
			Message: "the demonstration video link has expired and could not be renewed right now: " + providers.MessageOf(err),
			Hint:    "retry in a moment", Cause: err}
	}
	now := p.now()
	until := now.Add(MaxCacheAge)
	if e := expires.Add(-expiryMargin); e.Before(until) {
		until = e
	}
	if !now.Before(until) {
		return "", providers.Errorf(providers.CodeMediaStale, "the provider answered a demonstration video link that has already expired").
			WithHint("retry later")
	}
	if mode == providers.ModeTest && p.sandbox != "" {
		link = p.sandbox
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, renewing := p.cache[key]; !renewing && len(p.cache) >= p.max {
		p.evict(now)
	}
	p.cache[key] = cachedVideo{url: link, until: until}
	return link, nil
}

// evict drops expired entries, then the entries that expire soonest, until one slot is free.
func (p *Player) evict(now time.Time) {
	for k, c := range p.cache {
		if !now.Before(c.until) {
			delete(p.cache, k)
		}
	}
	for len(p.cache) >= p.max {
		var victim string
		var soonest time.Time
		for k, c := range p.cache {
			if victim == "" || c.until.Before(soonest) {
				victim, soonest = k, c.until
			}
		}
		delete(p.cache, victim)
	}
}

// cached reports the cache size (tests).
func (p *Player) cached() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.cache)
}

// lookup fetches the exercise with its signed video URLs: GET /exercises/{id} (videos are
// included by default on this endpoint).
func (p *Player) lookup(ctx context.Context, mode providers.Mode, id string) (string, time.Time, error) {
	if p.client == nil {
		return "", time.Time{}, providers.Errorf(providers.CodeMediaStale, "the exercise video provider is not available to this console").WithRetryable(false)
	}
	if _, ok := p.client.Provider(VideoProviderID); !ok {
		return "", time.Time{}, providers.Errorf(providers.CodeMediaStale, "the exercise video provider is not built into this gateway").WithRetryable(false)
	}
	u := p.client.Upstream(VideoProviderID, mode)
	if !u.Available() {
		return "", time.Time{}, providers.Errorf(providers.CodeMediaStale,
			"the exercise video provider is not configured in this deployment, so the demonstration cannot be renewed").WithRetryable(false)
	}
	var body struct {
		Data *ymoveExercise `json:"data"`
	}
	err := getJSON(ctx, u, "/exercises/"+url.PathEscape(id), nil, &body)
	if e, ok := providers.AsError(err); ok {
		if code, _ := errorDetail(e.Body); e.UpstreamStatus == 404 || code == "NOT_FOUND" {
			return "", time.Time{}, providers.Errorf(providers.CodeWorkoutUnavailable, "the provider no longer offers this exercise")
		}
	}
	if err != nil {
		return "", time.Time{}, err
	}
	link := pickVideo(body.Data)
	if link == "" {
		return "", time.Time{}, providers.Errorf(providers.CodeWorkoutUnavailable, "the provider has no demonstration video for this exercise any more")
	}
	return link, urlExpiry(link, p.now()), nil
}

// pickVideo chooses the MP4 every browser plays (HLS needs a player library): the primary video,
// else the first one with a URL, else the exercise's own videoUrl.
func pickVideo(ex *ymoveExercise) string {
	if ex == nil {
		return ""
	}
	var first string
	for _, v := range ex.Videos {
		if v.VideoURL == nil || !isWebURL(*v.VideoURL) {
			continue
		}
		if v.IsPrimary {
			return *v.VideoURL
		}
		if first == "" {
			first = *v.VideoURL
		}
	}
	if first != "" {
		return first
	}
	if ex.VideoURL != nil && isWebURL(*ex.VideoURL) {
		return *ex.VideoURL
	}
	return ""
}

func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// urlExpiry reads a signed URL's expiry: a CDN token's expires (Unix seconds; Bunny, CloudFront
// canned policy and S3 v2 URLs), X-Amz-Date plus X-Amz-Expires (S3 v4), X-Goog-Date plus
// X-Goog-Expires (Cloud Storage v4), se (an Azure SAS token's signed expiry, ISO 8601), or the
// DateLessThan of a CloudFront custom policy (Policy, CloudFront's URL-safe base64 JSON). Without
// one, YMove's documented 48 hours from now apply.
func urlExpiry(link string, now time.Time) time.Time {
	u, err := url.Parse(link)
	if err != nil {
		return now.Add(signedURLLife)
	}
	q := u.Query()
	for _, k := range []string{"expires", "Expires"} {
		if n, err := strconv.ParseInt(q.Get(k), 10, 64); err == nil && n > 0 {
			return time.Unix(n, 0)
		}
	}
	for _, p := range [][2]string{{"X-Amz-Date", "X-Amz-Expires"}, {"X-Goog-Date", "X-Goog-Expires"}} {
		if start, err := time.Parse("20060102T150405Z", q.Get(p[0])); err == nil {
			if secs, err := strconv.Atoi(q.Get(p[1])); err == nil && secs >= 0 {
				return start.Add(time.Duration(secs) * time.Second)
			}
		}
	}
	if se := q.Get("se"); se != "" && q.Get("sig") != "" {
		for _, layout := range []string{time.RFC3339, "2006-01-02T15:04Z", time.DateOnly} {
			if t, err := time.Parse(layout, se); err == nil {
				return t
			}
		}
	}
	if t, ok := cloudFrontPolicyExpiry(q.Get("Policy")); ok {
		return t
	}
	return now.Add(signedURLLife)
}

// cloudFrontPolicyExpiry reads the earliest DateLessThan of a CloudFront custom policy
// ({"Statement": [{"Condition": {"DateLessThan": {"AWS:EpochTime": N}}}]}), encoded in
// CloudFront's URL-safe base64 (+ as -, = as _, / as ~).
func cloudFrontPolicyExpiry(policy string) (time.Time, bool) {
	if policy == "" {
		return time.Time{}, false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.NewReplacer("-", "+", "_", "=", "~", "/").Replace(policy))
	if err != nil {
		return time.Time{}, false
	}
	var doc struct {
		Statement []struct {
			Condition struct {
				DateLessThan struct {
					EpochTime int64 `json:"AWS:EpochTime"`
				} `json:"DateLessThan"`
			} `json:"Condition"`
		} `json:"Statement"`
	}
	if json.Unmarshal(raw, &doc) != nil {
		return time.Time{}, false
	}
	var earliest int64
	for _, st := range doc.Statement {
		if n := st.Condition.DateLessThan.EpochTime; n > 0 && (earliest == 0 || n < earliest) {
			earliest = n
		}
	}
	if earliest == 0 {
		return time.Time{}, false
	}
	return time.Unix(earliest, 0), true
}

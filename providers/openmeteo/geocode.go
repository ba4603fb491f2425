package openmeteo

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
)

// place is a geocoded location.
type place struct {
	Name      string // display name: "Berlin, Germany"
	Lat, Lon  float64
	Timezone  string
	Elevation *float64
}

// geocodingResponse is GET /v1/search: results is absent when nothing matched; empty fields are
// left out of a result.
type geocodingResponse struct {
	errorBody
	Results []struct {
		ID        int64    `json:"id"`
		Name      string   `json:"name"`
		Latitude  *float64 `json:"latitude"`
		Longitude *float64 `json:"longitude"`
		Elevation *float64 `json:"elevation"`
		Timezone  string   `json:"timezone"`
		Country   string   `json:"country"`
		Admin1    string   `json:"admin1"`
	} `json:"results"`
}

// geocodeCache keeps geocoder answers in process: the public geocoder is rate limited per IP
// and place names repeat.
var geocodeCache = newPlaceCache(1024, 24*time.Hour, time.Hour)

// geocode resolves a place name to its best match (count=1), or nil when nothing matched.
func geocode(ctx context.Context, call *providers.Call, name string) (*place, error) {
	u := call.Upstream(ProviderGeocoding)
	// The base URL is part of the key so sandbox, live and differently configured hosts never mix.
	key := u.BaseURL + "\x00" + placeKey(name)
	if p, ok := geocodeCache.get(key); ok {
		return p, nil
	}
	var resp geocodingResponse
	q := url.Values{"name": {strings.TrimSpace(name)}, "count": {"1"}, "language": {"en"}, "format": {"json"}}
	if err := u.GetJSON(ctx, "/v1/search", q, &resp); err != nil {
		return nil, upstreamError(ProviderGeocoding, err)
	}
	if err := refusedInBody(ProviderGeocoding, resp.errorBody); err != nil {
		return nil, err
	}
	var p *place
	if len(resp.Results) > 0 {
		r := resp.Results[0]
		if r.Latitude == nil || r.Longitude == nil {
			return nil, providers.Errorf(providers.CodeProviderError,
				"%s answered a place without coordinates", ProviderGeocoding)
		}
		p = &place{Name: displayName(r.Name, r.Admin1, r.Country), Lat: *r.Latitude, Lon: *r.Longitude,
			Timezone: r.Timezone, Elevation: r.Elevation}
		if p.Name == "" {
			p.Name = coordinates(p.Lat, p.Lon)
		}
	}
	geocodeCache.put(key, p)
	return p, nil
}

// displayName joins the place, its first administrative area and its country, skipping repeats
// ("Berlin, Berlin, Germany" becomes "Berlin, Germany").
func displayName(parts ...string) string {
	var out []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" || (len(out) > 0 && strings.EqualFold(out[len(out)-1], p)) {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ", ")
}

// placeKey normalizes a place name for the cache: case and runs of spaces do not matter.
func placeKey(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(name), " "))
}

func coordinates(lat, lon float64) string {
	return fmt.Sprintf("%s, %s", formatNumber(lat), formatNumber(lon))
}

// placeCache is a small bounded map with expiry, safe for concurrent use. A nil place records
// that nothing matched; misses expire sooner than hits.
type placeCache struct {
	mu      sync.Mutex
	max     int
	ttl     time.Duration
	missTTL time.Duration
	now     func() time.Time
	entries map[string]placeEntry
}

type placeEntry struct {
	place   *place
	expires time.Time
}

func newPlaceCache(max int, ttl, missTTL time.Duration) *placeCache {
	return &placeCache{max: max, ttl: ttl, missTTL: missTTL, now: time.Now, entries: map[string]placeEntry{}}
}

func (c *placeCache) get(key string) (*place, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	if !c.now().Before(e.expires) {
		delete(c.entries, key)
		return nil, false
	}
	return e.place, true
}

func (c *placeCache) put(key string, p *place) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if _, present := c.entries[key]; !present && len(c.entries) >= c.max {
		c.evict(now)
	}
	ttl := c.ttl
	if p == nil {
		ttl = c.missTTL
	}
	c.entries[key] = placeEntry{place: p, expires: now.Add(ttl)}
}

// evict drops the expired entries, or else the one closest to expiry, to make room for one more.
func (c *placeCache) evict(now time.Time) {
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

package openmeteo

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/ttlcache"
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
var geocodeCache = ttlcache.New[*place](1024, 24*time.Hour, time.Hour)

// geocode resolves a place name to its best match (count=1), or nil when nothing matched.
func geocode(ctx context.Context, call *providers.Call, name string) (*place, error) {
	u := call.Upstream(ProviderGeocoding)
	// The base URL is part of the key so sandbox, live and differently configured hosts never mix.
	key := u.BaseURL + "\x00" + placeKey(name)
	if p, ok := geocodeCache.Get(key); ok {
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
	geocodeCache.Put(key, p)
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

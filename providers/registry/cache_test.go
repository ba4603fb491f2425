package registry

import (
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
)

// Every provider declares its caching rule (what its terms allow the shared upstream cache to
// keep) in its own declaration; this table is the README's provider table in test form, one row
// per rule, so a change of a rule is a deliberate change of both.
func TestProviderCacheRules(t *testing.T) {
	want := map[string]time.Duration{
		"serpapi": time.Hour, "reader": 5 * time.Minute, "openalex": 24 * time.Hour, "openlibrary": 24 * time.Hour,
		"gutendex": 24 * time.Hour, "wikisource": 24 * time.Hour, "gutenberg": 24 * time.Hour,
		"sec": 24 * time.Hour, "secdata": time.Hour, "courtlistener": 24 * time.Hour, "cellar": 24 * time.Hour,
		"eurlex": 24 * time.Hour, "loc": 24 * time.Hour, "historical": 24 * time.Hour, "scrape": time.Hour,
		"bibleapi": 24 * time.Hour, "apibible": 0, "quran": time.Hour, "quran_oauth": time.Hour,
		"github": time.Hour, "npm": time.Hour, "npmdownloads": time.Hour, "pypi": time.Hour, "pypistats": time.Hour,
		"deezer": time.Hour, "musicbrainz": 24 * time.Hour, "x": 5 * time.Minute, "reddit": 5 * time.Minute,
		"youtube": 24 * time.Hour, "transcripts": time.Hour, "mealdb": 24 * time.Hour, "exercisevideo": 0,
		"wger": 24 * time.Hour, "openmeteo": time.Hour, "openmeteo_geocoding": 24 * time.Hour,
		"openmeteo_airquality": time.Hour, "openmeteo_marine": time.Hour, "ors": time.Hour, "osrm": time.Hour,
		"nominatim": 24 * time.Hour, "googleroutes": 0, "zillow": 15 * time.Minute,
		// sharpen's reviewers: model answers are never cached (no rule declared).
		"anthropic": 0, "openai": 0, "google": 0, "xai": 0, "mistral": 0, "deepseek": 0, "meta": 0,
	}
	seen := map[string]bool{}
	for _, p := range Providers() {
		seen[p.ID] = true
		t.Run(p.ID, func(t *testing.T) {
			w, ok := want[p.ID]
			if !ok {
				t.Fatalf("provider %s has no row here: declare its cache rule and add it", p.ID)
			}
			if p.Cache.MaxAge != w {
				t.Errorf("MaxAge = %s, want %s", p.Cache.MaxAge, w)
			}
			if _, reviewer := map[string]bool{"anthropic": true, "openai": true, "google": true, "xai": true, "mistral": true, "deepseek": true, "meta": true}[p.ID]; !reviewer && (p.Cache.Rule == "" || p.Cache.Source == "") {
				t.Errorf("the rule and its source must be stated: %+v", p.Cache)
			}
		})
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("provider %s is listed here but not registered", id)
		}
	}
}

// What the rules mean for the capabilities: the shortest of the capability's freshness and the
// MaxAge of every provider it declares or used; never for a personal capability or a provider
// whose terms forbid it.
func TestCapabilityCacheFor(t *testing.T) {
	client := providers.NewClient(Providers(), providers.ClientOptions{})
	caps := map[string]*providers.Capability{}
	for _, c := range Capabilities() {
		caps[c.ID] = c
	}
	for _, tc := range []struct {
		capability string
		used       []string
		want       time.Duration
	}{
		{"transit.routes", nil, 0},    // Google Maps Platform: no caching of directions
		{"fitness.exercises", nil, 0}, // personal: saved to the caller's account
		{"social.search", []string{"x"}, 5 * time.Minute},
		{"social.search", []string{"reddit"}, 5 * time.Minute},
		{"scripture.search", []string{"bibleapi"}, time.Hour}, // bounded by the declared quran (an hour)
		{"scripture.search", []string{"apibible"}, 0},         // FUMS: each answer's token is the caller's
		{"web.search", nil, time.Hour},                        // SerpApi's own hour
		{"web.read", nil, 5 * time.Minute},                    // the reader's 300 s
		{"weather.forecast", nil, 10 * time.Minute},           // the capability's freshness is shorter
		{"realestate.search", nil, 15 * time.Minute},
		{"video.search", []string{"youtube", "transcripts"}, time.Hour},
		{"music.search", []string{"deezer", "musicbrainz"}, time.Hour},
		{"recipes.search", nil, 24 * time.Hour},
		{"markets.quote", nil, time.Minute},
		{"companies.financials", nil, time.Hour}, // bounded by data.sec.gov's hour
	} {
		t.Run(tc.capability+"/"+func() string {
			if len(tc.used) == 0 {
				return "declared"
			}
			return tc.used[0]
		}(), func(t *testing.T) {
			cp := caps[tc.capability]
			if cp == nil {
				t.Fatalf("no capability %s", tc.capability)
			}
			call := providers.NewCall(cp, nil, nil, providers.ModeLive, "tnt_x", client)
			for _, id := range tc.used {
				call.Upstream(id)
			}
			if got := client.CacheFor(cp, call); got != tc.want {
				t.Errorf("CacheFor = %s, want %s", got, tc.want)
			}
		})
	}
}

// Every capability decides how fresh its answers must be (or that they are personal): a new
// capability cannot reach the shared cache, or stay out of it, by omission.
func TestEveryCapabilityDeclaresFreshness(t *testing.T) {
	for _, c := range Capabilities() {
		if c.Fresh <= 0 && !c.Personal {
			t.Errorf("%s declares neither Fresh nor Personal", c.ID)
		}
	}
}

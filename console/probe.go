package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
)

// probe is one cheap, documented read of a provider: "test connection" makes it with the
// provider's configured base URL and key, through the provider client (breaker, limits, errors).
type probe struct {
	path   string
	header http.Header
	query  url.Values
}

// providerProbes lists the providers with a free call documented for this purpose; paths are
// relative to each provider's base URL as registered.
var providerProbes = map[string]probe{
	// Models API, list models: https://docs.anthropic.com/en/api/models-list
	"anthropic": {"/v1/models", http.Header{"Anthropic-Version": {"2023-06-01"}}, nil},
	// List models: https://platform.openai.com/docs/api-reference/models/list
	"openai": {"/models", nil, nil},
	// models.list: https://ai.google.dev/api/models#method:-models.list
	"google": {"/v1beta/models", nil, nil},
	// List models: https://docs.x.ai/docs/api-reference#list-models
	"xai": {"/models", nil, nil},
	// List models: https://docs.mistral.ai/api/#tag/models
	"mistral": {"/models", nil, nil},
	// Lists models: https://api-docs.deepseek.com/api/list-models
	"deepseek": {"/models", nil, nil},
	// Account API, free of searches: https://serpapi.com/account-api
	"serpapi": {"/account.json", nil, nil},
	// Rate limit status, not counted against the limit: https://docs.github.com/en/rest/rate-limit/rate-limit
	"github": {"/rate_limit", http.Header{"Accept": {"application/vnd.github+json"}}, nil},
	// meta has no probe: the Llama API whose list models this called was retired on 2026-07-06
	// and its successor's own documentation could not be read (providers/upstream/reviewers doc.go).
	// One work by its id (lookups are free): https://docs.openalex.org/api-entities/works/get-a-single-work
	"openalex": {"/works/W2741809807", nil, nil},
	// One work as JSON: https://openlibrary.org/dev/docs/api/books
	"openlibrary": {"/works/OL45804W.json", nil, nil},
	// One book by id: https://gutendex.com (GET /books?ids=)
	"gutendex": {"/books/", nil, url.Values{"ids": {"1"}}},
	// Site information (MediaWiki action API): https://www.mediawiki.org/wiki/API:Siteinfo
	"wikisource": {"/api.php", nil, url.Values{"action": {"query"}, "meta": {"siteinfo"}, "format": {"json"}}},
	// The API root lists its endpoints: https://www.courtlistener.com/help/api/rest/
	"courtlistener": {"/api/rest/v4/", nil, nil},
	// One verse: https://bible-api.com (GET /BOOK+CHAPTER:VERSE)
	"bibleapi": {"/john+3:16", nil, nil},
	// The Bibles the key may read: https://docs.api.bible (GET /v1/bibles)
	"apibible": {"/v1/bibles", nil, url.Values{"language": {"eng"}}},
	// One chapter's information: https://api-docs.quran.com (GET /chapters/{id})
	"quran": {"/chapters/1", nil, nil},
	// The registry's ping: https://github.com/npm/registry/blob/main/docs/REGISTRY-API.md
	"npm": {"/-/ping", nil, nil},
	// One project's JSON: https://docs.pypi.org/api/json/
	"pypi": {"/pypi/pip/json", nil, nil},
	// Recent downloads of one package: https://pypistats.org/api/
	"pypistats": {"/api/packages/pip/recent", nil, nil},
	// The genre list: https://developers.deezer.com/api/genre
	"deezer": {"/genre", nil, nil},
	// One artist by MBID: https://musicbrainz.org/doc/MusicBrainz_API
	"musicbrainz": {"/ws/2/artist/5b11f4ce-a62d-471e-81fc-a69a8278c7da", nil, url.Values{"fmt": {"json"}}},
	// The muscle list: https://wger.de/en/software/api
	"wger": {"/api/v2/muscle/", nil, nil},
	// Current temperature at one place: https://open-meteo.com/en/docs
	"openmeteo":            {"/v1/forecast", nil, url.Values{"latitude": {"52.52"}, "longitude": {"13.41"}, "current": {"temperature_2m"}}},
	"openmeteo_geocoding":  {"/v1/search", nil, url.Values{"name": {"Berlin"}, "count": {"1"}}},
	"openmeteo_airquality": {"/v1/air-quality", nil, url.Values{"latitude": {"52.52"}, "longitude": {"13.41"}, "current": {"pm10"}}},
	"openmeteo_marine":     {"/v1/marine", nil, url.Values{"latitude": {"54.54"}, "longitude": {"10.23"}, "current": {"wave_height"}}},
	// The documented example route: https://project-osrm.org/docs/v5.24.0/api/#route-service
	"osrm": {"/route/v1/driving/13.388860,52.517037;13.385983,52.496891", nil, url.Values{"overview": {"false"}}},
	// The server's status: https://nominatim.org/release-docs/latest/api/Status/
	"nominatim": {"/status", nil, url.Values{"format": {"json"}}},
	// The account's usage, free of credits: https://www.scrapingbee.com/documentation/#usage
	"scrape": {"/api/v1/usage", nil, nil},
	// One video's id part (1 quota unit): https://developers.google.com/youtube/v3/docs/videos/list
	"youtube": {"/videos", nil, url.Values{"part": {"id"}, "id": {"dQw4w9WgXcQ"}}},
}

const probeTimeout = 10 * time.Second

// testProvider makes the provider's probe and shows the answer's status. It changes no setting.
func (cn *Console) testProvider(c *fiber.Ctx) error {
	id := c.Params("id")
	pr, ok := providerProbes[id]
	if _, known := cn.opts.Client.Provider(id); !ok || !known {
		return cn.notFound(c)
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), probeTimeout)
	defer cancel()
	start := time.Now()
	resp, err := cn.opts.Client.Upstream(id, providers.ModeLive).Get(ctx, pr.path, pr.query, pr.header)
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		return back(c, "/console/admin/providers", "", fmt.Errorf("test of %s failed after %s: %s", id, took, providers.MessageOf(err)))
	}
	return back(c, "/console/admin/providers", fmt.Sprintf("Test of %s: GET %s answered HTTP %d in %s.", id, pr.path, resp.Status, took), nil)
}

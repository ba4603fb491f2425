package video

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// Provider ids (PROVIDER_YOUTUBE_URL / PROVIDER_YOUTUBE_KEY, PROVIDER_TRANSCRIPTS_URL /
// PROVIDER_TRANSCRIPTS_KEY).
const (
	youtubeID     = "youtube"
	transcriptsID = "transcripts"
)

// Default base URLs: the YouTube Data API v3 and Supadata's API v1.
const (
	youtubeAPI  = "https://www.googleapis.com/youtube/v3"
	supadataAPI = "https://api.supadata.ai/v1"
)

// Public YouTube pages: record URLs and detail links point there whatever base URL a deployment
// configures for API calls (a mirror or a test fake is never shown to callers).
const (
	watchURL   = "https://www.youtube.com/watch?v="
	channelURL = "https://www.youtube.com/channel/"
)

//go:embed sandbox/*.json
var sandboxFiles embed.FS

// Providers lists the upstreams of this package: the YouTube Data API v3 (search and video
// details, key sent as the key query parameter) and Supadata's transcript API (key sent in the
// x-api-key header). Both need a key; neither documents a per-second bound for API-key clients
// (YouTube meters a daily quota in units, Supadata a plan-dependent rate), so none is set.
func Providers() []*providers.Provider {
	return []*providers.Provider{
		{
			ID:          youtubeID,
			Title:       "YouTube Data API v3",
			Cache:       providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "stored API data must be refreshed or deleted within the policy's period (30 days); statistics move, so a day", Source: "developers.google.com/youtube/terms/developer-policies (storage and refresh of API data)"},
			BaseURL:     youtubeAPI,
			KeyRequired: true,
			SignUp:      "https://console.cloud.google.com/apis/library/youtube.googleapis.com",
			Authorize: func(r *http.Request, key string) {
				q := r.URL.Query()
				q.Set("key", key)
				r.URL.RawQuery = q.Encode()
			},
			Sandbox: youtubeSandbox(),
		},
		{
			ID:          transcriptsID,
			Title:       "Supadata transcripts",
			Cache:       providers.CacheRule{MaxAge: time.Hour, Rule: "terms not found; an hour", Source: "not found: conservative hour"},
			BaseURL:     supadataAPI,
			KeyRequired: true,
			SignUp:      "https://supadata.ai/",
			Authorize: func(r *http.Request, key string) {
				r.Header.Set("x-api-key", key)
			},
			Sandbox: transcriptsSandbox(),
		},
	}
}

func sandboxSub() fs.FS {
	sub, err := fs.Sub(sandboxFiles, "sandbox")
	if err != nil {
		panic(err)
	}
	return sub
}

// sandboxVideos are the videos the sandbox search fixtures return; each has a videos.list
// fixture (sandbox/videos_<id>.json).
var sandboxVideos = []string{
	// search_surf_p1.json
	"gQ_1zX-F_No", "i2hewkFijuY", "_Z56nIAQj7Q", "W7h-Yho8EB0",
	// search_surf_p2.json
	"67QNw2xQlsk", "nkhpGC10OVw",
	// search_go_talks.json
	"f6kdp27TYZs", "oV9rvDllKEg", "QDDwwePbDtw",
}

// sandboxTranscripts are the sandbox videos that have captions (sandbox/transcript_<id>.json);
// the others answer Supadata's transcript-unavailable (HTTP 206), as captionless videos do.
var sandboxTranscripts = []string{"gQ_1zX-F_No", "W7h-Yho8EB0", "67QNw2xQlsk", "f6kdp27TYZs", "oV9rvDllKEg"}

// youtubeSandbox answers the YouTube endpoints the adapter calls. Search: the Go-talks answer
// for a query about Go, the second surf page for any pageToken, else the first surf page (a
// sandbox has fixed data). Videos: each sandbox video's answer, else YouTube's empty list (an
// unknown or removed video). A request without a key gets YouTube's missing-key refusal.
func youtubeSandbox() http.Handler {
	routes := []providers.SandboxRoute{
		{Path: "/youtube/v3/*", Match: func(r *http.Request) bool { return r.URL.Query().Get("key") == "" },
			File: "youtube_error_no_key.json", Status: http.StatusForbidden},
		{Path: "/youtube/v3/search", Match: func(r *http.Request) bool {
			q := " " + strings.ToLower(r.URL.Query().Get("q")) + " "
			return strings.Contains(q, " go ") || strings.Contains(q, "golang")
		}, File: "search_go_talks.json"},
		{Path: "/youtube/v3/search", Match: func(r *http.Request) bool { return r.URL.Query().Get("pageToken") != "" },
			File: "search_surf_p2.json"},
		{Path: "/youtube/v3/search", File: "search_surf_p1.json"},
	}
	for _, id := range sandboxVideos {
		routes = append(routes, providers.SandboxRoute{Path: "/youtube/v3/videos", Match: paramIs("id", id), File: "videos_" + id + ".json"})
	}
	routes = append(routes, providers.SandboxRoute{Path: "/youtube/v3/videos", File: "videos_none.json"})
	return providers.SandboxHandler(sandboxSub(), routes...)
}

// transcriptsSandbox answers Supadata's GET /v1/transcript: the captioned sandbox videos'
// transcripts, else transcript-unavailable with HTTP 206.
func transcriptsSandbox() http.Handler {
	var routes []providers.SandboxRoute
	for _, id := range sandboxTranscripts {
		routes = append(routes, providers.SandboxRoute{Path: "/v1/transcript", Match: paramIs("url", watchURL+id), File: "transcript_" + id + ".json"})
	}
	routes = append(routes, providers.SandboxRoute{Path: "/v1/transcript", File: "transcript_unavailable.json", Status: http.StatusPartialContent})
	return providers.SandboxHandler(sandboxSub(), routes...)
}

func paramIs(name, value string) func(r *http.Request) bool {
	return func(r *http.Request) bool { return r.URL.Query().Get(name) == value }
}

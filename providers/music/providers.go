package music

import (
	"embed"
	"net/http"
	"strconv"
	"time"

	"github.com/capgate/capgate/providers"
)

// Provider ids (PROVIDER_DEEZER_URL, PROVIDER_MUSICBRAINZ_URL).
const (
	deezerID      = "deezer"
	musicbrainzID = "musicbrainz"
)

//go:embed sandbox/*.json
var sandboxFS embed.FS

// Providers lists the upstreams of this package: Deezer (primary) and MusicBrainz (fallback).
// Both are keyless. MusicBrainz requires a User-Agent naming the application and a contact
// (capgate/<version> (+contact)), so it is unavailable in live mode until GATEWAY_CONTACT is set,
// and at most one request a second per client (shared by the fleet when Redis is configured).
func Providers() []*providers.Provider {
	return []*providers.Provider{
		{
			ID:      deezerID,
			Title:   "Deezer",
			Cache:   providers.CacheRule{MaxAge: time.Hour, Rule: "catalogue metadata; an hour", Source: "Deezer API terms not found this session: conservative hour"},
			BaseURL: "https://api.deezer.com",
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: "/search", Match: laterPage("index"), File: "sandbox/deezer_search_track_page2.json"},
				providers.SandboxRoute{Path: "/search", File: "sandbox/deezer_search_track.json"},
				providers.SandboxRoute{Path: "/search/artist", File: "sandbox/deezer_search_artist.json"},
				providers.SandboxRoute{Path: "/search/album", File: "sandbox/deezer_search_album.json"},
				providers.SandboxRoute{Path: "/track/*", File: "sandbox/deezer_track.json"},
				providers.SandboxRoute{Path: "/artist/*", File: "sandbox/deezer_artist.json"},
				providers.SandboxRoute{Path: "/album/*", File: "sandbox/deezer_album.json"},
			),
		},
		{
			ID:                musicbrainzID,
			Title:             "MusicBrainz",
			Cache:             providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "core data is CC0; a day", Source: "MusicBrainz data licence (CC0 core data; not re-read this session)"},
			BaseURL:           "https://musicbrainz.org",
			RequestsPerSecond: 1,
			ContactRequired:   true,
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: "/ws/2/recording", Match: laterPage("offset"), File: "sandbox/musicbrainz_recording_search_page2.json"},
				providers.SandboxRoute{Path: "/ws/2/recording", File: "sandbox/musicbrainz_recording_search.json"},
				providers.SandboxRoute{Path: "/ws/2/artist", File: "sandbox/musicbrainz_artist_search.json"},
				providers.SandboxRoute{Path: "/ws/2/release", File: "sandbox/musicbrainz_release_search.json"},
				providers.SandboxRoute{Path: "/ws/2/recording/*", File: "sandbox/musicbrainz_recording.json"},
				providers.SandboxRoute{Path: "/ws/2/artist/*", File: "sandbox/musicbrainz_artist.json"},
				providers.SandboxRoute{Path: "/ws/2/release/*", File: "sandbox/musicbrainz_release.json"},
			),
		},
	}
}

// laterPage matches a sandbox request for any page after the first (the paging parameter > 0).
func laterPage(param string) func(r *http.Request) bool {
	return func(r *http.Request) bool {
		n, err := strconv.Atoi(r.URL.Query().Get(param))
		return err == nil && n > 0
	}
}

package music

import "github.com/capgate/capgate/providers/internal/lenient"

// MusicRecord is a music.search record: a track, an artist or an album, from Deezer or (as the
// fallback) MusicBrainz; a key the source does not give is absent.
type MusicRecord struct {
	Kind           string `json:"kind" doc:"track, artist or album"`
	Artist         string `json:"artist,omitempty"`
	Album          string `json:"album,omitempty" doc:"track: its album"`
	Duration       string `json:"duration,omitempty" doc:"track: m:ss"`
	Explicit       *bool  `json:"explicit,omitempty"`
	PreviewURL     string `json:"preview_url,omitempty" doc:"track: a 30-second preview (Deezer)"`
	Fans           *int64 `json:"fans,omitempty" doc:"artist: Deezer fans"`
	Albums         *int64 `json:"albums,omitempty" doc:"artist: album count (Deezer)"`
	Picture        string `json:"picture,omitempty" doc:"artist: image URL (Deezer)"`
	Tracks         *int64 `json:"tracks,omitempty" doc:"album: track count"`
	Type           string `json:"type,omitempty" doc:"album: album, single, ep, ..."`
	Cover          string `json:"cover,omitempty" doc:"album: cover image URL (Deezer)"`
	Country        string `json:"country,omitempty" doc:"MusicBrainz: ISO country code"`
	Disambiguation string `json:"disambiguation,omitempty" doc:"MusicBrainz: tells same-named entries apart"`
	MusicBrainzID  string `json:"musicbrainz_id,omitempty" doc:"MusicBrainz: the entity's MBID"`
}

// MusicDetail is the details answer; fields in key order (a detail is written in declared order).
type MusicDetail struct {
	Album           string `json:"album,omitempty"`
	Albums          *int64 `json:"albums,omitempty"`
	Artist          string `json:"artist,omitempty"`
	Country         string `json:"country,omitempty"`
	Cover           string `json:"cover,omitempty"`
	Disambiguation  string `json:"disambiguation,omitempty"`
	Duration        string `json:"duration,omitempty"`
	DurationSeconds *int64 `json:"duration_seconds,omitempty"`
	Explicit        *bool  `json:"explicit,omitempty"`
	Fans            *int64 `json:"fans,omitempty"`
	Kind            string `json:"kind"`
	// Metadata is what one source alone gives (Deezer's BPM and rank, MusicBrainz's ISRCs and
	// labels), so its keys differ by source and kind: kept as a map.
	Metadata      map[string]any `json:"metadata"`
	MusicBrainzID string         `json:"musicbrainz_id,omitempty"`
	Name          string         `json:"name,omitempty"`
	Picture       string         `json:"picture,omitempty"`
	PreviewURL    string         `json:"preview_url,omitempty"`
	Release       string         `json:"release,omitempty"`
	Source        string         `json:"source"`
	Title         string         `json:"title,omitempty"`
	Tracklist     []TrackEntry   `json:"tracklist,omitempty"`
	Tracks        *int64         `json:"tracks,omitempty"`
	Type          string         `json:"type,omitempty"`
	URL           string         `json:"url,omitempty"`
}

// TrackEntry is one track of an album's details; fields in key order.
type TrackEntry struct {
	Disc       *int64 `json:"disc,omitempty"`
	Duration   string `json:"duration,omitempty"`
	Explicit   *bool  `json:"explicit,omitempty"`
	Number     string `json:"number,omitempty"`
	Position   int    `json:"position,omitempty"`
	PreviewURL string `json:"preview_url,omitempty"`
	Title      string `json:"title,omitempty"`
}

// intPtr and boolPtr are a lenient value when present.
func intPtr(v lenient.Int) *int64 {
	if v.OK {
		return &v.V
	}
	return nil
}

func boolPtr(v lenient.Bool) *bool {
	if v.OK {
		return &v.V
	}
	return nil
}

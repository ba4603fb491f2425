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
	Album           string       `json:"album,omitempty"`
	Albums          *int64       `json:"albums,omitempty"`
	Artist          string       `json:"artist,omitempty"`
	Country         string       `json:"country,omitempty"`
	Cover           string       `json:"cover,omitempty"`
	Disambiguation  string       `json:"disambiguation,omitempty"`
	Duration        string       `json:"duration,omitempty"`
	DurationSeconds *int64       `json:"duration_seconds,omitempty"`
	Explicit        *bool        `json:"explicit,omitempty"`
	Fans            *int64       `json:"fans,omitempty"`
	Kind            string       `json:"kind"`
	Metadata        Metadata     `json:"metadata" doc:"what one source alone gives: Deezer's tempo and rank, MusicBrainz's ISRCs and labels"`
	MusicBrainzID   string       `json:"musicbrainz_id,omitempty"`
	Name            string       `json:"name,omitempty"`
	Picture         string       `json:"picture,omitempty"`
	PreviewURL      string       `json:"preview_url,omitempty"`
	Release         string       `json:"release,omitempty"`
	Source          string       `json:"source"`
	Title           string       `json:"title,omitempty"`
	Tracklist       []TrackEntry `json:"tracklist,omitempty"`
	Tracks          *int64       `json:"tracks,omitempty"`
	Type            string       `json:"type,omitempty"`
	URL             string       `json:"url,omitempty"`
}

// Metadata is the source's own facts of a track, artist or album; its keys differ by source and
// kind, each absent when not given. Fields in key order.
type Metadata struct {
	Area             string        `json:"area,omitempty" doc:"MusicBrainz artist"`
	Barcode          string        `json:"barcode,omitempty" doc:"MusicBrainz release"`
	BeginArea        string        `json:"begin_area,omitempty" doc:"MusicBrainz artist"`
	BPM              *float64      `json:"bpm,omitempty" doc:"Deezer track: tempo"`
	Contributors     []Contributor `json:"contributors,omitempty" doc:"Deezer track and album"`
	DeezerID         string        `json:"deezer_id,omitempty"`
	DiskNumber       *int64        `json:"disk_number,omitempty" doc:"Deezer track"`
	Fans             *int64        `json:"fans,omitempty" doc:"Deezer album"`
	FirstReleaseDate string        `json:"first_release_date,omitempty" doc:"MusicBrainz release"`
	Gain             *float64      `json:"gain,omitempty" doc:"Deezer track: replay gain in dB"`
	Gender           string        `json:"gender,omitempty" doc:"MusicBrainz artist"`
	Genres           []string      `json:"genres,omitempty"`
	ISRC             string        `json:"isrc,omitempty" doc:"Deezer track"`
	ISRCs            []string      `json:"isrcs,omitempty" doc:"MusicBrainz recording"`
	Label            string        `json:"label,omitempty" doc:"Deezer album"`
	Labels           []LabelInfo   `json:"labels,omitempty" doc:"MusicBrainz release"`
	LifeSpan         *LifeSpan     `json:"life_span,omitempty" doc:"MusicBrainz artist"`
	Packaging        string        `json:"packaging,omitempty" doc:"MusicBrainz release"`
	Radio            *bool         `json:"radio,omitempty" doc:"Deezer artist: has a radio"`
	Rank             *int64        `json:"rank,omitempty" doc:"Deezer track: popularity"`
	Readable         *bool         `json:"readable,omitempty" doc:"Deezer track: playable"`
	Releases         []ReleaseRef  `json:"releases,omitempty" doc:"MusicBrainz recording: the releases it appears on"`
	SecondaryTypes   []string      `json:"secondary_types,omitempty" doc:"MusicBrainz release"`
	SortName         string        `json:"sort_name,omitempty" doc:"MusicBrainz artist"`
	Status           string        `json:"status,omitempty" doc:"MusicBrainz release"`
	TrackPosition    *int64        `json:"track_position,omitempty" doc:"Deezer track"`
	Type             string        `json:"type,omitempty" doc:"MusicBrainz artist: person, group, ..."`
	UPC              string        `json:"upc,omitempty" doc:"Deezer album"`
	Video            *bool         `json:"video,omitempty" doc:"MusicBrainz recording"`
}

// Contributor is a credited artist and role.
type Contributor struct {
	Name string `json:"name"`
	Role string `json:"role,omitempty"`
}

// LabelInfo is a release's label and catalog number.
type LabelInfo struct {
	CatalogNumber string `json:"catalog_number,omitempty"`
	Name          string `json:"name,omitempty"`
}

// LifeSpan is an artist's active years.
type LifeSpan struct {
	Begin string `json:"begin,omitempty"`
	End   string `json:"end,omitempty"`
	Ended *bool  `json:"ended,omitempty"`
}

// ReleaseRef is one release of a recording.
type ReleaseRef struct {
	Country       string `json:"country,omitempty"`
	Date          string `json:"date,omitempty"`
	MusicBrainzID string `json:"musicbrainz_id,omitempty"`
	Status        string `json:"status,omitempty"`
	Title         string `json:"title,omitempty"`
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

func floatPtr(v lenient.Float) *float64 {
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

package music

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Search is music.search (spec section 4.12): tracks, artists or albums from Deezer, with
// MusicBrainz as the fallback source.
var Search = &providers.Capability{
	ID:      "music.search",
	Fresh:   time.Hour,
	Title:   "Music search",
	Summary: "Find tracks, artists or albums, with preview links, durations, fan counts and covers.",
	Description: "Searches a music catalog (Deezer) for tracks, artists or albums. `query` is free text " +
		"(1 to 300 characters); `kind` picks tracks (default), artists or albums; `num` sets the page size " +
		"(1 to 25, default 10). Every record has `kind`; tracks carry `artist`, `album`, `duration` (m:ss), " +
		"`explicit` and `preview_url` (a 30-second preview); artists carry `fans`, `albums` and `picture`; " +
		"albums carry `artist`, `tracks` (track count), `type` (album, ep, single, compile), `cover` and " +
		"`explicit`. Keys are left out when the source has no value. When the primary source is unavailable " +
		"the search runs on the fallback source MusicBrainz, whose records have a smaller key set (no " +
		"`explicit`, `preview_url`, `fans`, `albums`, `picture` or `cover`) plus `country`, `disambiguation` " +
		"and `musicbrainz_id`; `notes` says so, and `more` continues on the source the search started on. " +
		"Follow-ups: `more` (next page by provider offset), `update` (change any request field; paging " +
		"restarts), and the record action `details` (free): album, duration, release date, preview and " +
		"further metadata of a track; name, fans, albums and picture of an artist (with `title` and `name` " +
		"equal); release date, label, genres and track list of an album.",
	Topic: "Media and social",
	Request: `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 300,
      "pattern": "\\S",
      "description": "What to search for: a title, an artist name, or both (for example \"daft punk around the world\"). Must not be blank."
    },
    "kind": {
      "type": "string",
      "enum": ["track", "artist", "album"],
      "default": "track",
      "description": "What the results are: tracks (songs), artists or albums."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 25,
      "default": 10,
      "description": "Results per page, 1 to 25."
    }
  }
}`,
	Paging: providers.PagingOffset,
	Actions: []providers.Action{{
		Name: "details",
		Description: "Looks the record up at its source (free): for a track its album, duration, release date, " +
			"preview link and metadata (ISRC, tempo, contributors); for an artist its name, fans, album count " +
			"and picture; for an album its release date, duration, label, genres and track list.",
		Kind:    providers.ActionLookup,
		Credits: 0,
		Run:     details,
	}},
	Cost: providers.Cost{
		Typical: 0,
		Basis:   "Free: the music sources are keyless public APIs, so searches, more, update and details cost nothing.",
	},
	Deadline:  15 * time.Second,
	Providers: []string{deezerID},
	Examples: []providers.Example{
		{Title: "Tracks matching a title and artist", Body: providers.ExampleBody(`{"query": "daft punk harder better faster stronger", "num": 5}`)},
		{Title: "Artists by name", Body: providers.ExampleBody(`{"query": "Daft Punk", "kind": "artist"}`)},
		{Title: "Albums by title", Body: providers.ExampleBody(`{"query": "Discovery", "kind": "album", "num": 5}`)},
	},
	Record:  MusicRecord{},
	Execute: execute,
}

// deezerMaxBudget bounds the primary source's first-page call so a timeout still leaves the
// fallback time to answer within the 15 s deadline.
const deezerMaxBudget = 8 * time.Second

// acceptJSON is the Accept header of every upstream call (fresh each time: the client keeps it).
func acceptJSON() http.Header { return http.Header{"Accept": {"application/json"}} }

func execute(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	query := strings.TrimSpace(call.Request.Str("query"))
	kind := call.Request.Str("kind")
	if _, ok := mbEntities[kind]; !ok {
		kind = "track"
	}
	num, ok := call.Request.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	st, err := decodeState(call.State)
	if err != nil {
		return nil, err
	}
	if st.Source == musicbrainzID { // a fallback search continues on the fallback
		page, err := searchMusicBrainz(ctx, call.Upstream(musicbrainzID), query, kind, num, st.Offset)
		if err != nil {
			return nil, err
		}
		page.Notes = []string{fallbackNote(kind, "this search started there because the primary source, Deezer, was unavailable")}
		return page, nil
	}
	dz := call.Upstream(deezerID)
	mb := call.Upstream(musicbrainzID)
	// A Deezer search continues on Deezer: switching sources mid-search would mix two result sets.
	if !firstPage(call.State) || !mb.Available() {
		return searchDeezer(ctx, dz, query, kind, num, st.Offset)
	}
	var why string
	switch {
	case !dz.Available():
		why = "Deezer is not configured in this deployment"
	case dz.BreakerOpen():
		why = "Deezer is failing and calls to it are paused"
	default:
		dctx, cancel := context.WithTimeout(ctx, providers.PrimaryBudget(ctx, deezerMaxBudget))
		page, err := searchDeezer(dctx, dz, query, kind, num, 0)
		cancel()
		if err == nil || !providers.FallbackWorthy(err) || ctx.Err() != nil {
			return page, err
		}
		why = "Deezer failed: " + providers.MessageOf(err)
	}
	page, err := searchMusicBrainz(ctx, mb, query, kind, num, 0)
	if err != nil {
		return nil, err
	}
	page.Notes = []string{fallbackNote(kind, why)}
	return page, nil
}

// fallbackNote tells the caller the fallback source answered, why, and which keys it lacks.
func fallbackNote(kind, why string) string {
	return "These results come from the fallback source MusicBrainz (" + why + "). Its records lack these keys: " +
		strings.Join(fallbackAbsent[kind], ", ") + "; they carry country, disambiguation and musicbrainz_id where MusicBrainz has them."
}

// pageState is the paging state of the following page: which source is paging and from where.
type pageState struct {
	Source string `json:"source"`
	Offset int    `json:"offset"`
}

func encodeState(source string, offset int) json.RawMessage {
	return mustJSON(pageState{Source: source, Offset: offset})
}

// firstPage tells whether the paging state asks for the first page (none is stored yet).
func firstPage(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

func decodeState(raw json.RawMessage) (pageState, error) {
	if firstPage(raw) {
		return pageState{Source: deezerID}, nil
	}
	var st pageState
	if err := json.Unmarshal(raw, &st); err != nil || (st.Source != deezerID && st.Source != musicbrainzID) || st.Offset < 0 {
		return pageState{}, &providers.Error{Code: providers.CodeInternal, Message: "the stored paging state of this search is unreadable"}
	}
	return st, nil
}

// recordRef is what the details action needs: the source, the kind and the source's id.
type recordRef struct {
	Source string `json:"source"`
	Kind   string `json:"kind"`
	ID     string `json:"id"`
}

var (
	deezerIDPattern = regexp.MustCompile(`^-?[0-9]{1,20}$`)
	mbidPattern     = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

func (r recordRef) valid() bool {
	if _, ok := mbEntities[r.Kind]; !ok {
		return false
	}
	switch r.Source {
	case deezerID:
		return deezerIDPattern.MatchString(r.ID)
	case musicbrainzID:
		return mbidPattern.MatchString(r.ID)
	}
	return false
}

// withRef sets the record's details reference, or offers no record action when the source gave
// no usable id.
func withRef(rec providers.Record, kind, source string, id lenient.ID) providers.Record {
	ref := recordRef{Source: source, Kind: kind, ID: string(id)}
	if !ref.valid() {
		rec.Actions = []string{}
		return rec
	}
	rec.Ref = mustJSON(ref)
	return rec
}

func details(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref recordRef
	if err := json.Unmarshal(rec.Ref, &ref); err != nil || !ref.valid() {
		return nil, &providers.Error{Code: providers.CodeInternal, Message: "the record carries no usable music reference"}
	}
	if ref.Source == musicbrainzID {
		return musicbrainzDetail(ctx, call.Upstream(musicbrainzID), ref)
	}
	return deezerDetail(ctx, call.Upstream(deezerID), ref)
}

// mustJSON marshals this package's own state and reference structs (strings and ints only,
// which cannot fail to marshal).
func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// appendLink adds a link when the URL is known.
func appendLink(links []providers.Link, label, url string) []providers.Link {
	if url == "" {
		return links
	}
	return append(links, providers.Link{Label: label, URL: url})
}

// plural renders a count with its noun ("1 album", "32 albums").
func plural(n int64, noun string) string {
	s := formatCount(n) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}

// formatCount writes an integer with thousands separators.
func formatCount(n int64) string {
	digits := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return sign + b.String()
}

package music

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
)

// mbSearchPath matches the fallback's searches (/ws/2/recording, /ws/2/artist, /ws/2/release).
func mbSearchPath(r *http.Request) bool {
	switch r.URL.Path {
	case "/ws/2/recording", "/ws/2/artist", "/ws/2/release":
		return true
	}
	return false
}

// mbListKey is the list member of each MusicBrainz search answer.
var mbListKey = map[string]string{"recording": "recordings", "artist": "artists", "release": "releases"}

// synthUUID is a UUID-shaped id drawn from the parts (MusicBrainz ids are UUIDs).
func synthUUID(parts ...string) string {
	r := providers.Rand(append([]string{"mbid"}, parts...)...)
	a, b := r.Uint64(), r.Uint64()
	return fmt.Sprintf("%08x-%04x-5%03x-a%03x-%012x", uint32(a>>32), uint16(a>>16), uint16(a)&0xfff, uint16(b>>48)&0xfff, b&0xffffffffffff)
}

// generateMBSearch answers a MusicBrainz search the way the Deezer sandbox answers one (issue
// 36): recordings and releases titled with the query's words (an artist:"…" part is every
// record's artist), artists named after the query, offset and limit walking through a total
// drawn from the query so the last page ends. The recorded queries get the recorded answers.
func generateMBSearch(recorded []string) providers.Generator {
	topicGen := providers.LimitResults("limit", providers.TopicSearch("query", recorded...))
	return func(r *http.Request, fixture []byte, status int) ([]byte, int) {
		q := strings.TrimSpace(r.URL.Query().Get("query"))
		if status != http.StatusOK || recordedTopic(q, recorded, fixture) {
			return topicGen(r, fixture, status)
		}
		return synthMBSearch(r, q, fixture, status)
	}
}

// synthMBSearch answers the search for q (its path names the entity) with a synthetic set of 8
// to 10 records, the page that offset and limit ask for.
func synthMBSearch(r *http.Request, q string, fixture []byte, status int) ([]byte, int) {
	v := r.URL.Query()
	entity := strings.TrimPrefix(r.URL.Path, "/ws/2/")
	doc := providers.JSONObject(fixture)
	list := mbListKey[entity]
	tmpls := providers.Templates(doc[list])
	if len(tmpls) == 0 {
		return fixture, status
	}
	s := newSynthSearch(entity, q)
	total := 8 + providers.Rand("musicbrainz", s.seed).IntN(3)
	offset, _ := strconv.Atoi(v.Get("offset"))
	offset = max(offset, 0)
	limit, err := strconv.Atoi(v.Get("limit"))
	if err != nil || limit < 1 {
		limit = 25
	}
	items := []any{}
	for i := offset; i < min(offset+limit, total); i++ {
		rec := providers.FromTemplate(tmpls, i)
		s.fillMB(rec, i)
		items = append(items, rec)
	}
	doc[list] = items
	doc["count"], doc["offset"] = total, offset
	return providers.JSONBytes(doc), http.StatusOK
}

// fillMB fills rec, a MusicBrainz record of the searched entity, as the search's i-th record
// and remembers it for its lookup.
func (s synthSearch) fillMB(rec map[string]any, i int) {
	rr := providers.Rand("musicbrainz-item", s.seed, strconv.Itoa(i))
	id := synthUUID(s.seed, strconv.Itoa(i))
	a := s.artistOf(i)
	credit := []any{map[string]any{"name": a, "artist": map[string]any{"id": synthUUID("artist", strings.ToLower(a)), "name": a,
		"sort-name": a, "disambiguation": "synthetic test-mode artist"}}}
	year := 1965 + rr.IntN(60)
	date := fmt.Sprintf("%04d-%02d-%02d", year, 1+rr.IntN(12), 1+rr.IntN(28))
	rec["id"], rec["score"] = id, 100-i*3
	switch s.kind {
	case "artist":
		name := synthArtistName(s.q, i)
		rec["name"], rec["sort-name"] = name, name
		rec["disambiguation"] = "synthetic test-mode artist"
		rec["life-span"] = map[string]any{"begin": strconv.Itoa(year), "ended": nil}
		delete(rec, "aliases")
		delete(rec, "isnis")
		rememberKey("artist/"+id, synthItem{Artist: name})
	case "release":
		title := synthAlbumTitle(s.words, i)
		rec["title"], rec["date"], rec["artist-credit"] = title, date, credit
		if rg, ok := rec["release-group"].(map[string]any); ok {
			rg["id"], rg["title"] = synthUUID("release-group", id), title
		}
		if ev, ok := rec["release-events"].([]any); ok {
			for _, e := range ev {
				if m, ok := e.(map[string]any); ok {
					m["date"] = date
				}
			}
		}
		rec["barcode"] = fmt.Sprintf("%012d", rr.Int64N(1e12))
		delete(rec, "label-info")
		rememberKey("release/"+id, synthItem{Title: title, Artist: a, Album: title})
	default:
		title := synthTrackTitle(s.words, i)
		rec["title"], rec["length"], rec["first-release-date"] = title, (120+rr.IntN(300))*1000, date
		rec["artist-credit"] = credit
		delete(rec, "isrcs")
		setMBReleases(rec, id, title, s.words, date)
		rememberKey("recording/"+id, synthItem{Title: title, Artist: a, Album: s.words})
	}
}

// setMBReleases points the releases of rec, the recording id titled title, at synthetic
// releases named album and dated date.
func setMBReleases(rec map[string]any, id, title, album, date string) {
	rels, ok := rec["releases"].([]any)
	if !ok {
		return
	}
	for k, x := range rels {
		m, ok := x.(map[string]any)
		if !ok {
			continue
		}
		m["id"], m["title"], m["date"] = synthUUID("release", id, strconv.Itoa(k)), album, date
		if rg, ok := m["release-group"].(map[string]any); ok {
			rg["id"], rg["title"] = synthUUID("release-group", id, strconv.Itoa(k)), album
		}
		if media, ok := m["media"].([]any); ok {
			for _, md := range media {
				if mm, ok := md.(map[string]any); ok {
					for _, tr := range providers.Templates(mm["track"]) {
						tr["title"], tr["id"] = title, synthUUID("track", id)
					}
				}
			}
		}
	}
}

func rememberKey(key string, it synthItem) {
	synthItems.Lock()
	defer synthItems.Unlock()
	if len(synthItems.m) >= 20000 {
		synthItems.m = map[string]synthItem{}
	}
	synthItems.m[key] = it
}

// generateMBLookup answers a generated recording's, artist's or release's lookup as itself.
func generateMBLookup(r *http.Request, fixture []byte, status int) ([]byte, int) {
	segs := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/ws/2/"), "/"), "/")
	if len(segs) != 2 {
		return fixture, status
	}
	it, ok := recall(segs[0] + "/" + segs[1])
	doc := providers.JSONObject(fixture)
	if !ok || doc == nil {
		return fixture, status
	}
	doc["id"] = segs[1]
	credit := func() {
		if ac, ok := doc["artist-credit"].([]any); ok {
			for _, x := range ac {
				if m, ok := x.(map[string]any); ok {
					m["name"] = it.Artist
					if a, ok := m["artist"].(map[string]any); ok {
						a["name"], a["sort-name"], a["id"] = it.Artist, it.Artist, synthUUID("artist", strings.ToLower(it.Artist))
						a["disambiguation"] = "synthetic test-mode artist"
					}
				}
			}
		}
	}
	switch segs[0] {
	case "artist":
		doc["name"], doc["sort-name"] = it.Artist, it.Artist
		doc["disambiguation"] = "synthetic test-mode artist"
		delete(doc, "isnis")
		delete(doc, "ipis")
	case "recording":
		doc["title"] = it.Title
		credit()
		delete(doc, "isrcs")
		for _, rel := range providers.Templates(doc["releases"]) {
			rel["title"] = it.Album
		}
	case "release":
		doc["title"] = it.Title
		credit()
		if rg, ok := doc["release-group"].(map[string]any); ok {
			rg["title"] = it.Title
		}
		for _, md := range providers.Templates(doc["media"]) {
			for k, tr := range providers.Templates(md["tracks"]) {
				tr["title"] = fmt.Sprintf("%s (Track %d)", it.Title, k+1)
				if rec, ok := tr["recording"].(map[string]any); ok {
					rec["title"] = tr["title"]
				}
			}
		}
	}
	return providers.JSONBytes(doc), http.StatusOK
}

package music

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/capgate/capgate/providers"
)

// The sandbox's Deezer searches answer any query with a synthetic set about it (issue 36): track
// and album titles carry the query's words (an artist:"…" part of the query is every record's
// artist), an artist search finds the asked name first; index/limit walk through the set and the
// last page ends. A generated track's, artist's or album's lookup describes the same record. The
// recorded queries get the recorded answers; MusicBrainz (the fallback) answers the same way
// (sandbox_musicbrainz.go).
func init() {
	recorded := []string{"daft punk harder better faster stronger", "Daft Punk", "Discovery"}
	providers.RegisterGenerators(deezerID,
		providers.GeneratedRoute{Path: "/search*", Generate: generateDeezerSearch(recorded)},
		providers.GeneratedRoute{Path: "/track/*", Generate: generateDeezerLookup},
		providers.GeneratedRoute{Path: "/artist/*", Generate: generateDeezerLookup},
		providers.GeneratedRoute{Path: "/album/*", Generate: generateDeezerLookup})
	providers.RegisterGenerators(musicbrainzID,
		providers.GeneratedRoute{Path: "/ws/2/*", Match: mbSearchPath, Generate: generateMBSearch(recorded)},
		providers.GeneratedRoute{Path: "/ws/2/*", Generate: generateMBLookup})
}

// synthItem is what a generated record's lookup repeats about it.
type synthItem struct{ Title, Artist, Album string }

var synthItems = struct {
	sync.Mutex
	m map[string]synthItem
}{m: map[string]synthItem{}}

func remember(kind string, id int, it synthItem) {
	synthItems.Lock()
	defer synthItems.Unlock()
	if len(synthItems.m) >= 20000 {
		synthItems.m = map[string]synthItem{}
	}
	synthItems.m[kind+"/"+strconv.Itoa(id)] = it
}

func recall(key string) (synthItem, bool) {
	synthItems.Lock()
	defer synthItems.Unlock()
	it, ok := synthItems.m[key]
	return it, ok
}

// splitArtist reads an artist:"…" part of a Deezer query.
func splitArtist(q string) (artist, rest string) {
	i := strings.Index(strings.ToLower(q), `artist:"`)
	if i < 0 {
		return "", q
	}
	after := q[i+len(`artist:"`):]
	end := strings.Index(after, `"`)
	if end < 0 {
		return "", q
	}
	return after[:end], strings.TrimSpace(q[:i] + after[end+1:])
}

var versions = []string{"", " (Live)", " (Remastered)", " (Acoustic)", " (Radio Edit)", " (Demo)", " (Extended Mix)", " (Reprise)"}

// generateDeezerSearch answers a search the recorded answers do not cover with a synthetic set
// about its words (synthDeezerSearch).
func generateDeezerSearch(recorded []string) providers.Generator {
	topicGen := providers.LimitResults("limit", providers.TopicSearch("q", recorded...))
	return func(r *http.Request, fixture []byte, status int) ([]byte, int) {
		q := strings.TrimSpace(r.URL.Query().Get("q"))
		if status != http.StatusOK || recordedTopic(q, recorded, fixture) {
			return topicGen(r, fixture, status)
		}
		return synthDeezerSearch(r, q, fixture, status)
	}
}

// recordedTopic tells whether the recorded answers serve the query q: it is empty or the
// sandbox's miss, one of the recorded queries, or words the recorded answer is about.
func recordedTopic(q string, recorded []string, fixture []byte) bool {
	if q == "" || providers.IsSandboxMiss(q) {
		return true
	}
	for _, rec := range recorded {
		if strings.EqualFold(q, rec) {
			return true
		}
	}
	return holdsAll(strings.ToLower(string(fixture)), q)
}

// synthSearch is what every record of a generated search shares: the kind of record searched,
// the query, its artist:"…" part and title words, and the seed drawn from kind and query.
type synthSearch struct{ kind, q, artist, words, seed string }

// newSynthSearch reads the search for q of a kind of record.
func newSynthSearch(kind, q string) synthSearch {
	artist, rest := splitArtist(q)
	words := providers.TitleCase(strings.Trim(rest, `"`))
	if words == "" {
		words = providers.TitleCase(artist)
	}
	return synthSearch{kind: kind, q: q, artist: artist, words: words, seed: strings.ToLower(kind + "\x00" + q)}
}

// artistOf is the i-th record's artist: the query's artist:"…" part, or a synthetic name.
func (s synthSearch) artistOf(i int) string {
	a := s.artist
	if a == "" {
		a = providers.SynthName(s.seed, i%3, "")
	}
	return providers.TitleCase(a)
}

// synthArtistName is the i-th artist a search for q finds: q itself, then bands named after it.
func synthArtistName(q string, i int) string {
	name := providers.TitleCase(q)
	if i > 0 {
		name = fmt.Sprintf("%s %s", name, []string{"Tribute Band", "Orchestra", "Trio", "& Friends", "Revival", "Quartet"}[(i-1)%6])
		if i > 6 {
			name += " " + strconv.Itoa(i/6+1)
		}
	}
	return name
}

// synthAlbumTitle is the i-th album titled with words: words itself, then its other editions.
func synthAlbumTitle(words string, i int) string {
	title := words
	if i > 0 {
		title = fmt.Sprintf("%s%s", words, []string{" Vol. 2", " (Deluxe)", " Live", " Sessions", " Revisited", " II"}[(i-1)%6])
		if i > 6 {
			title += " " + strconv.Itoa(i/6+1)
		}
	}
	return title
}

// synthTrackTitle is the i-th track titled with words: its versions, then further takes of them.
func synthTrackTitle(words string, i int) string {
	title := words + versions[i%len(versions)]
	if i >= len(versions) {
		title += fmt.Sprintf(" [Take %d]", i/len(versions)+1)
	}
	return title
}

// synthDeezerSearch answers the search for q (its path names the kind) with a synthetic set of
// 8 to 10 records; index and limit page through it, next pointing at the following page.
func synthDeezerSearch(r *http.Request, q string, fixture []byte, status int) ([]byte, int) {
	v := r.URL.Query()
	doc := providers.JSONObject(fixture)
	tmpls := providers.Templates(doc["data"])
	if len(tmpls) == 0 {
		return fixture, status
	}
	kind := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/search"), "/")
	s := newSynthSearch(kind, q)
	total := 8 + providers.Rand("deezer", s.seed).IntN(3)
	index, _ := strconv.Atoi(v.Get("index"))
	limit, err := strconv.Atoi(v.Get("limit"))
	if err != nil || limit < 1 {
		limit = 25
	}
	data := []any{}
	for i := max(index, 0); i < min(index+limit, total); i++ {
		rec := providers.FromTemplate(tmpls, i)
		s.fillDeezer(rec, i)
		data = append(data, rec)
	}
	doc["data"] = data
	doc["total"] = total
	delete(doc, "prev")
	if index+limit < total {
		doc["next"] = fmt.Sprintf("https://api.deezer.com/search%s?q=%s&limit=%d&index=%d", strings.TrimSuffix("/"+kind, "/"), q, limit, index+limit)
	} else {
		delete(doc, "next")
	}
	return providers.JSONBytes(doc), http.StatusOK
}

// fillDeezer fills rec, a Deezer record of the searched kind, as the search's i-th record and
// remembers it for its lookup.
func (s synthSearch) fillDeezer(rec map[string]any, i int) {
	rr := providers.Rand("deezer-item", s.seed, strconv.Itoa(i))
	id := 900000000 + int(rr.Uint32()%90000000)
	a := s.artistOf(i)
	artistID := 90000000 + int(providers.Rand("deezer-artist", strings.ToLower(a)).Uint32()%9000000)
	switch s.kind {
	case "artist":
		name := synthArtistName(s.q, i)
		rec["id"], rec["name"] = id, name
		rec["link"] = fmt.Sprintf("https://www.deezer.com/artist/%d", id)
		rec["nb_album"], rec["nb_fan"] = 1+rr.IntN(40), rr.IntN(5000000)
		remember("artist", id, synthItem{Artist: name})
	case "album":
		title := synthAlbumTitle(s.words, i)
		rec["id"], rec["title"] = id, title
		rec["link"] = fmt.Sprintf("https://www.deezer.com/album/%d", id)
		rec["nb_tracks"] = 6 + rr.IntN(14)
		setDeezerArtist(rec, artistID, a)
		remember("album", id, synthItem{Title: title, Artist: a, Album: title})
	default:
		title := synthTrackTitle(s.words, i)
		rec["id"], rec["title"], rec["title_short"] = id, title, s.words
		rec["title_version"] = strings.TrimSpace(versions[i%len(versions)])
		rec["link"] = fmt.Sprintf("https://www.deezer.com/track/%d", id)
		rec["duration"] = 120 + rr.IntN(300)
		rec["rank"] = rr.IntN(1000000)
		setDeezerArtist(rec, artistID, a)
		album := s.words
		if al, ok := rec["album"].(map[string]any); ok {
			albumID := 80000000 + int(rr.Uint32()%9000000)
			al["id"], al["title"] = albumID, album
			al["tracklist"] = fmt.Sprintf("https://api.deezer.com/album/%d/tracks", albumID)
			remember("album", albumID, synthItem{Title: album, Artist: a, Album: album})
		}
		remember("track", id, synthItem{Title: title, Artist: a, Album: album})
	}
}

// setDeezerArtist names the artist of a Deezer track or album record.
func setDeezerArtist(rec map[string]any, id int, name string) {
	if art, ok := rec["artist"].(map[string]any); ok {
		art["id"], art["name"] = id, name
		art["link"] = fmt.Sprintf("https://www.deezer.com/artist/%d", id)
		art["tracklist"] = fmt.Sprintf("https://api.deezer.com/artist/%d/top?limit=50", id)
	}
}

// generateDeezerLookup answers a generated track, artist or album as itself (the recorded
// lookup's shape, the generated record's names).
func generateDeezerLookup(r *http.Request, fixture []byte, status int) ([]byte, int) {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(segs) != 2 {
		return fixture, status
	}
	it, ok := recall(segs[0] + "/" + segs[1])
	doc := providers.JSONObject(fixture)
	if !ok || doc == nil {
		return fixture, status
	}
	id, _ := strconv.Atoi(segs[1])
	doc["id"] = id
	switch segs[0] {
	case "artist":
		doc["name"] = it.Artist
		doc["link"] = fmt.Sprintf("https://www.deezer.com/artist/%d", id)
	default:
		doc["title"] = it.Title
		if _, ok := doc["title_short"]; ok {
			doc["title_short"] = it.Title
		}
		doc["link"] = fmt.Sprintf("https://www.deezer.com/%s/%d", segs[0], id)
		if art, ok := doc["artist"].(map[string]any); ok {
			art["name"] = it.Artist
		}
		if al, ok := doc["album"].(map[string]any); ok {
			al["title"] = it.Album
		}
		if c, ok := doc["contributors"].([]any); ok {
			for _, x := range c {
				if m, ok := x.(map[string]any); ok {
					m["name"] = it.Artist
				}
			}
		}
		if tr, ok := doc["tracks"].(map[string]any); ok {
			for i, x := range providers.Templates(tr["data"]) {
				x["title"] = fmt.Sprintf("%s (Track %d)", it.Title, i+1)
				if art, ok := x["artist"].(map[string]any); ok {
					art["name"] = it.Artist
				}
			}
		}
	}
	return providers.JSONBytes(doc), http.StatusOK
}

// holdsAll tells whether every word of q (letters and digits) appears in text.
func holdsAll(text, q string) bool {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= 0x80)
		})
	}
	have := map[string]bool{}
	for _, w := range split(text) {
		have[w] = true
	}
	words := split(q)
	for _, w := range words {
		if !have[w] {
			return false
		}
	}
	return len(words) > 0
}

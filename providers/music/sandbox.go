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

func generateDeezerSearch(recorded []string) providers.Generator {
	topicGen := providers.LimitResults("limit", providers.TopicSearch("q", recorded...))
	return func(r *http.Request, fixture []byte, status int) ([]byte, int) {
		v := r.URL.Query()
		q := strings.TrimSpace(v.Get("q"))
		if status != http.StatusOK || q == "" || providers.IsSandboxMiss(q) {
			return topicGen(r, fixture, status)
		}
		for _, rec := range recorded {
			if strings.EqualFold(q, rec) {
				return topicGen(r, fixture, status)
			}
		}
		if holdsAll(strings.ToLower(string(fixture)), q) {
			return topicGen(r, fixture, status) // the recorded answer is about these words
		}
		doc := providers.JSONObject(fixture)
		tmpls := providers.Templates(doc["data"])
		if len(tmpls) == 0 {
			return fixture, status
		}
		kind := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/search"), "/")
		artist, rest := splitArtist(q)
		words := providers.TitleCase(strings.Trim(rest, `"`))
		if words == "" {
			words = providers.TitleCase(artist)
		}
		seed := strings.ToLower(kind + "\x00" + q)
		total := 8 + providers.Rand("deezer", seed).IntN(3)
		index, _ := strconv.Atoi(v.Get("index"))
		limit, err := strconv.Atoi(v.Get("limit"))
		if err != nil || limit < 1 {
			limit = 25
		}
		data := []any{}
		for i := max(index, 0); i < min(index+limit, total); i++ {
			rec := providers.FromTemplate(tmpls, i)
			rr := providers.Rand("deezer-item", seed, strconv.Itoa(i))
			id := 900000000 + int(rr.Uint32()%90000000)
			a := artist
			if a == "" {
				a = providers.SynthName(seed, i%3, "")
			}
			a = providers.TitleCase(a)
			artistID := 90000000 + int(providers.Rand("deezer-artist", strings.ToLower(a)).Uint32()%9000000)
			setArtist := func(m map[string]any) {
				if art, ok := m["artist"].(map[string]any); ok {
					art["id"], art["name"] = artistID, a
					art["link"] = fmt.Sprintf("https://www.deezer.com/artist/%d", artistID)
					art["tracklist"] = fmt.Sprintf("https://api.deezer.com/artist/%d/top?limit=50", artistID)
				}
			}
			switch kind {
			case "artist":
				name := providers.TitleCase(q)
				if i > 0 {
					name = fmt.Sprintf("%s %s", name, []string{"Tribute Band", "Orchestra", "Trio", "& Friends", "Revival", "Quartet"}[(i-1)%6])
					if i > 6 {
						name += " " + strconv.Itoa(i/6+1)
					}
				}
				rec["id"], rec["name"] = id, name
				rec["link"] = fmt.Sprintf("https://www.deezer.com/artist/%d", id)
				rec["nb_album"], rec["nb_fan"] = 1+rr.IntN(40), rr.IntN(5000000)
				remember("artist", id, synthItem{Artist: name})
			case "album":
				title := words
				if i > 0 {
					title = fmt.Sprintf("%s%s", words, []string{" Vol. 2", " (Deluxe)", " Live", " Sessions", " Revisited", " II"}[(i-1)%6])
					if i > 6 {
						title += " " + strconv.Itoa(i/6+1)
					}
				}
				rec["id"], rec["title"] = id, title
				rec["link"] = fmt.Sprintf("https://www.deezer.com/album/%d", id)
				rec["nb_tracks"] = 6 + rr.IntN(14)
				setArtist(rec)
				remember("album", id, synthItem{Title: title, Artist: a, Album: title})
			default:
				title := words + versions[i%len(versions)]
				if i >= len(versions) {
					title += fmt.Sprintf(" [Take %d]", i/len(versions)+1)
				}
				rec["id"], rec["title"], rec["title_short"] = id, title, words
				rec["title_version"] = strings.TrimSpace(versions[i%len(versions)])
				rec["link"] = fmt.Sprintf("https://www.deezer.com/track/%d", id)
				rec["duration"] = 120 + rr.IntN(300)
				rec["rank"] = rr.IntN(1000000)
				setArtist(rec)
				album := words
				if al, ok := rec["album"].(map[string]any); ok {
					albumID := 80000000 + int(rr.Uint32()%9000000)
					al["id"], al["title"] = albumID, album
					al["tracklist"] = fmt.Sprintf("https://api.deezer.com/album/%d/tracks", albumID)
					remember("album", albumID, synthItem{Title: album, Artist: a, Album: album})
				}
				remember("track", id, synthItem{Title: title, Artist: a, Album: album})
			}
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

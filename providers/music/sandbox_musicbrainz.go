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
		v := r.URL.Query()
		q := strings.TrimSpace(v.Get("query"))
		if status != http.StatusOK || q == "" || providers.IsSandboxMiss(q) {
			return topicGen(r, fixture, status)
		}
		for _, rec := range recorded {
			if strings.EqualFold(q, rec) {
				return topicGen(r, fixture, status)
			}
		}
		if holdsAll(strings.ToLower(string(fixture)), q) {
			return topicGen(r, fixture, status)
		}
		entity := strings.TrimPrefix(r.URL.Path, "/ws/2/")
		doc := providers.JSONObject(fixture)
		list := mbListKey[entity]
		tmpls := providers.Templates(doc[list])
		if len(tmpls) == 0 {
			return fixture, status
		}
		artist, rest := splitArtist(q)
		words := providers.TitleCase(strings.Trim(rest, `"`))
		if words == "" {
			words = providers.TitleCase(artist)
		}
		seed := strings.ToLower(entity + "\x00" + q)
		total := 8 + providers.Rand("musicbrainz", seed).IntN(3)
		offset, _ := strconv.Atoi(v.Get("offset"))
		offset = max(offset, 0)
		limit, err := strconv.Atoi(v.Get("limit"))
		if err != nil || limit < 1 {
			limit = 25
		}
		items := []any{}
		for i := offset; i < min(offset+limit, total); i++ {
			rec := providers.FromTemplate(tmpls, i)
			rr := providers.Rand("musicbrainz-item", seed, strconv.Itoa(i))
			id := synthUUID(seed, strconv.Itoa(i))
			a := artist
			if a == "" {
				a = providers.SynthName(seed, i%3, "")
			}
			a = providers.TitleCase(a)
			credit := []any{map[string]any{"name": a, "artist": map[string]any{"id": synthUUID("artist", strings.ToLower(a)), "name": a,
				"sort-name": a, "disambiguation": "synthetic test-mode artist"}}}
			year := 1965 + rr.IntN(60)
			date := fmt.Sprintf("%04d-%02d-%02d", year, 1+rr.IntN(12), 1+rr.IntN(28))
			rec["id"], rec["score"] = id, 100-i*3
			switch entity {
			case "artist":
				name := providers.TitleCase(q)
				if i > 0 {
					name = fmt.Sprintf("%s %s", name, []string{"Tribute Band", "Orchestra", "Trio", "& Friends", "Revival", "Quartet"}[(i-1)%6])
					if i > 6 {
						name += " " + strconv.Itoa(i/6+1)
					}
				}
				rec["name"], rec["sort-name"] = name, name
				rec["disambiguation"] = "synthetic test-mode artist"
				rec["life-span"] = map[string]any{"begin": strconv.Itoa(year), "ended": nil}
				delete(rec, "aliases")
				delete(rec, "isnis")
				rememberKey("artist/"+id, synthItem{Artist: name})
			case "release":
				title := words
				if i > 0 {
					title = fmt.Sprintf("%s%s", words, []string{" Vol. 2", " (Deluxe)", " Live", " Sessions", " Revisited", " II"}[(i-1)%6])
					if i > 6 {
						title += " " + strconv.Itoa(i/6+1)
					}
				}
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
				title := words + versions[i%len(versions)]
				if i >= len(versions) {
					title += fmt.Sprintf(" [Take %d]", i/len(versions)+1)
				}
				rec["title"], rec["length"], rec["first-release-date"] = title, (120+rr.IntN(300))*1000, date
				rec["artist-credit"] = credit
				delete(rec, "isrcs")
				if rels, ok := rec["releases"].([]any); ok {
					for k, x := range rels {
						if m, ok := x.(map[string]any); ok {
							m["id"], m["title"], m["date"] = synthUUID("release", id, strconv.Itoa(k)), words, date
							if rg, ok := m["release-group"].(map[string]any); ok {
								rg["id"], rg["title"] = synthUUID("release-group", id, strconv.Itoa(k)), words
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
				}
				rememberKey("recording/"+id, synthItem{Title: title, Artist: a, Album: words})
			}
			items = append(items, rec)
		}
		doc[list] = items
		doc["count"], doc["offset"] = total, offset
		return providers.JSONBytes(doc), http.StatusOK
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

package video

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// The sandbox's searches carry the asked query's words and page size, and every video has a
// transcript (issue 18): a video without a recorded transcript gets one of the recorded transcripts
// (chosen by its id), so the transcript action answers on every sandbox record.
func init() {
	providers.RegisterGenerators(youtubeID, providers.GeneratedRoute{Path: "/youtube/v3/search", Generate: generateSearch})
	providers.RegisterGenerators(youtubeID, providers.GeneratedRoute{Path: "/youtube/v3/videos", Generate: generateVideo})
	providers.RegisterGenerators(transcriptsID, providers.GeneratedRoute{Path: "/v1/transcript", Generate: generateTranscript})
}

func generateTranscript(r *http.Request, fixture []byte, status int) ([]byte, int) {
	u, err := url.Parse(r.URL.Query().Get("url"))
	if status == http.StatusOK || err != nil {
		return fixture, status
	}
	id := u.Query().Get("v")
	if id == "" || providers.IsSandboxMiss(id) || !strings.HasPrefix(r.URL.Query().Get("url"), watchURL) {
		return fixture, status
	}
	videosMu.Lock()
	v, ok := generated[id]
	videosMu.Unlock()
	if ok {
		return generatedTranscript(v), http.StatusOK
	}
	b, err := fs.ReadFile(sandboxSub(), "transcript_"+providers.PickName(id, sandboxTranscripts)+".json")
	if err != nil {
		return fixture, status
	}
	return b, http.StatusOK
}

// Searches (issue 36): the recorded queries (surfing, Go talks) keep their recorded answers; any
// other is a synthetic set of videos about the query's words, published after publishedAfter
// and of the asked videoDuration, maxResults per page by pageToken, ending after videosTotal; a
// generated video's videos.list answer describes it (title, channel, duration, statistics).
var recordedSearch = providers.LimitResults("maxResults", providers.TopicSearch("q", "how to surf", "go concurrency patterns"))

const videosTotal = 40

var videoForms = []string{"%s — full tutorial", "%s in 10 minutes", "Everything you need to know about %s", "%s for beginners",
	"I tried %s for 30 days", "%s explained simply", "The truth about %s", "%s: a complete guide", "%s (live session)",
	"Top 5 %s mistakes", "%s Q&A", "A day of %s"}

// generatedVideo is what a generated search result's videos.list answer needs again.
type generatedVideo struct {
	title, channel, description string
	published                   time.Time
	seconds                     int
}

var (
	videosMu  sync.Mutex
	generated = map[string]generatedVideo{}
)

// durationRange is the length range in seconds of YouTube's videoDuration values.
func durationRange(d string) (int, int) {
	switch d {
	case "short":
		return 30, 239
	case "medium":
		return 240, 1200
	case "long":
		return 1201, 7200
	}
	return 30, 3600
}

const idChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func generateSearch(r *http.Request, fixture []byte, status int) ([]byte, int) {
	q := r.URL.Query()
	query := strings.TrimSpace(q.Get("q"))
	lower := " " + strings.ToLower(query) + " "
	if status != http.StatusOK || query == "" || providers.IsSandboxMiss(query) || strings.Contains(lower, "surf") ||
		strings.Contains(lower, " go ") || strings.Contains(lower, "golang") {
		return recordedSearch(r, fixture, status)
	}
	doc := providers.JSONObject(fixture)
	tmpls := providers.Templates(doc["items"])
	if len(tmpls) == 0 {
		return fixture, status
	}
	size, _ := strconv.Atoi(q.Get("maxResults"))
	if size < 1 || size > 50 {
		size = 5
	}
	from, _ := strconv.Atoi(strings.TrimPrefix(q.Get("pageToken"), "SBX"))
	from = max(from, 0)
	topic := providers.TopicWords(query)
	seed := strings.ToLower(query + "|" + q.Get("videoDuration"))
	now := providers.SandboxToday()
	oldest := now.AddDate(-5, 0, 0)
	if t, err := time.Parse(time.RFC3339, q.Get("publishedAfter")); err == nil {
		oldest = t.UTC()
	}
	lo, hi := durationRange(q.Get("videoDuration"))
	total := videosTotal
	if !oldest.Before(now) {
		total = 0 // nothing is published after today
	}
	items := []any{}
	for i := from; i < min(from+size, total); i++ {
		rr := providers.Rand("video", seed, strconv.Itoa(i))
		var id strings.Builder
		for range 11 {
			id.WriteByte(idChars[rr.IntN(len(idChars))])
		}
		vid := id.String()
		title := fmt.Sprintf(videoForms[i%len(videoForms)], providers.TitleCase(topic))
		channel := providers.SynthName(seed+"channel", i%7, "TV")
		var published time.Time
		if span := now.Sub(oldest); span > 0 {
			published = oldest.Add(time.Duration(rr.Float64() * float64(span))).Truncate(time.Second)
		} else {
			published = oldest.Add(time.Hour)
		}
		v := generatedVideo{title: title, channel: channel, published: published, seconds: lo + rr.IntN(hi-lo+1),
			description: providers.TopicSnippet(topic, i)}
		videosMu.Lock()
		if len(generated) > 20000 {
			clear(generated)
		}
		generated[vid] = v
		videosMu.Unlock()
		it := providers.FromTemplate(tmpls, i)
		it["id"] = searchResultID{Kind: "youtube#video", VideoID: lenient.Str(vid)}
		it["etag"] = vid + "etag"
		it["snippet"] = fillSnippet(it["snippet"], vid, v)
		items = append(items, it)
	}
	doc["items"] = items
	delete(doc, "prevPageToken")
	delete(doc, "nextPageToken")
	if from+size < total {
		doc["nextPageToken"] = "SBX" + strconv.Itoa(from+size)
	}
	if from > 0 {
		doc["prevPageToken"] = "SBX" + strconv.Itoa(max(from-size, 0))
	}
	doc["pageInfo"] = pageInfo{TotalResults: total, ResultsPerPage: size}
	return providers.JSONBytes(doc), http.StatusOK
}

// fillSnippet fills a search or videos.list snippet template with a generated video.
func fillSnippet(tmpl any, id string, v generatedVideo) map[string]any {
	sn, _ := tmpl.(map[string]any)
	if sn == nil {
		// A recorded snippet holds whatever keys YouTube sent, so it stays a generic map (an empty
		// one when the template has none).
		sn = map[string]any{}
	}
	at := v.published.UTC().Format(time.RFC3339)
	if _, ok := sn["publishTime"]; ok {
		sn["publishTime"] = at
	}
	sn["publishedAt"] = at
	sn["channelId"] = "UC" + providers.Slug(v.channel)
	sn["title"], sn["description"], sn["channelTitle"] = v.title, v.description, v.channel
	sn["thumbnails"] = snippetThumbnails{
		Default: thumbnailImage{URL: "https://i.ytimg.com/vi/" + id + "/default.jpg", Width: 120, Height: 90},
		Medium:  thumbnailImage{URL: "https://i.ytimg.com/vi/" + id + "/mqdefault.jpg", Width: 320, Height: 180},
		High:    thumbnailImage{URL: "https://i.ytimg.com/vi/" + id + "/hqdefault.jpg", Width: 480, Height: 360},
	}
	if _, ok := sn["localized"]; ok {
		sn["localized"] = localizedSnippet{Title: v.title, Description: v.description}
	}
	if _, ok := sn["tags"]; ok {
		sn["tags"] = []string{strings.ToLower(v.title)}
	}
	return sn
}

// generateVideo answers videos.list for a generated video.
func generateVideo(r *http.Request, fixture []byte, status int) ([]byte, int) {
	id := r.URL.Query().Get("id")
	videosMu.Lock()
	v, ok := generated[id]
	videosMu.Unlock()
	if !ok || status != http.StatusOK {
		return fixture, status
	}
	tmpl := providers.JSONObject(mustFile("videos_W7h-Yho8EB0.json"))
	items := providers.Templates(tmpl["items"])
	if len(items) == 0 {
		return fixture, status
	}
	it := items[0]
	it["id"], it["etag"] = id, id+"etag"
	it["snippet"] = fillSnippet(it["snippet"], id, v)
	if cd, ok := it["contentDetails"].(map[string]any); ok {
		cd["duration"] = fmt.Sprintf("PT%dM%dS", v.seconds/60, v.seconds%60)
		if v.seconds >= 3600 {
			cd["duration"] = fmt.Sprintf("PT%dH%dM%dS", v.seconds/3600, v.seconds%3600/60, v.seconds%60)
		}
	}
	rr := providers.Rand("stats", id)
	views := 1000 + rr.IntN(5000000)
	it["statistics"] = videoStatistics{ViewCount: strconv.Itoa(views), LikeCount: strconv.Itoa(views / 50),
		FavoriteCount: "0", CommentCount: strconv.Itoa(views / 900)}
	tmpl["items"] = []any{it}
	return providers.JSONBytes(tmpl), http.StatusOK
}

func mustFile(name string) []byte {
	b, _ := fs.ReadFile(sandboxSub(), name)
	return b
}

// generatedTranscript is a generated video's captions in Supadata's shape: lines about its topic
// spread over its length.
func generatedTranscript(v generatedVideo) []byte {
	lines := []string{"[Music]", "hi everyone, welcome back to " + v.channel, "today: " + strings.ToLower(v.title),
		v.description, "let's get started", "that's it for today, thanks for watching", "[Music]"}
	step := v.seconds * 1000 / len(lines)
	var content []transcriptSegment
	for i, l := range lines {
		content = append(content, transcriptSegment{Text: l, Offset: i * step, Duration: step * 9 / 10, Lang: "en"})
	}
	return providers.JSONBytes(transcriptAnswer{Content: content, Lang: "en", AvailableLangs: []string{"en"}})
}

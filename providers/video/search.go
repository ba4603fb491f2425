package video

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Search is video.search (spec section 4.21): videos from the YouTube Data API v3, with
// details from videos.list and transcripts from Supadata.
var Search = &providers.Capability{
	ID:      "video.search",
	Fresh:   time.Hour,
	Title:   "Video search",
	Summary: "Find videos on the video platform by keywords, with channel, publish date, thumbnail, details and transcripts.",
	Description: "Searches the video platform (YouTube) for videos matching `query` (1 to 300 characters; the " +
		"platform's search syntax applies, e.g. `boating|sailing -fishing`). `num` sets the page size (1 to 50, " +
		"default 10); `published_after` (an RFC 3339 date-time such as 2024-01-01T00:00:00Z) keeps videos " +
		"published at or after that instant; `duration` keeps short (under 4 minutes), medium (4 to 20 minutes) " +
		"or long (over 20 minutes) videos. Each record has `title`, `url` (the watch page) and `snippet` (the " +
		"start of the description) and, when the source has them, `channel` (string), `published_at` (RFC 3339 " +
		"string) and `thumbnail` (string: the medium-size image when offered, else the default size). " +
		"Follow-ups: `more` (next page by the provider's cursor), `update` (change any request field; paging " +
		"restarts), and two record actions: `details` (free): title, channel, published_at, duration_seconds " +
		"(integer), views, likes, comments (numbers), description (up to 3,000 characters), tags (up to 10) and " +
		"definition (hd or sd), every key only when the platform has it; `transcript` (4 credits, $0.004 per " +
		"video): language (string), available_languages (string[]), segments (integer, the source's caption " +
		"segment count), text (the joined transcript, up to 60,000 characters), timestamps (up to 2,000 " +
		"{start, duration, text} entries in seconds) and timestamps_truncated (true, only when the 2,000 cap " +
		"cut the list). A video without captions answers the transcript action with not_found (not charged).",
	Topic:   "Media and social",
	Request: requestSchema,
	Paging:  providers.PagingToken,
	Actions: []providers.Action{
		{
			Name: "details",
			Description: "The video's record on the platform (free): title, channel, publish date, duration in " +
				"seconds, view, like and comment counts, description (up to 3,000 characters), up to 10 tags and " +
				"definition (hd or sd); keys the platform does not report are left out. Links: the watch page " +
				"and the channel page.",
			Kind:    providers.ActionLookup,
			Credits: 0,
			Run:     details,
		},
		{
			Name: "transcript",
			Description: "The video's existing captions as a transcript (4 credits, $0.004 per video): language, " +
				"available languages, segment count, the joined text (up to 60,000 characters) and up to 2,000 " +
				"timestamped segments (start and duration in seconds); timestamps_truncated is true when the " +
				"segment list was cut. Videos without captions answer not_found and are not charged.",
			Kind:    providers.ActionLookup,
			Credits: 4,
			Run:     transcript,
		},
	},
	Cost: providers.Cost{
		Typical: 0,
		Basis: "Search, more, update and details are free (YouTube Data API quota, no per-call charge); " +
			"the transcript action costs $0.004 per video (4 credits), charged once per record.",
	},
	Deadline:  15 * time.Second,
	Providers: []string{youtubeID},
	Examples: []providers.Example{
		{Title: "Videos on a topic, four per page", Body: providers.ExampleBody(`{"query": "how to surf", "num": 4}`)},
		{Title: "Long talks published after a date", Body: providers.ExampleBody(`{"query": "go concurrency patterns", "duration": "long", "published_after": "2012-01-01T00:00:00Z"}`)},
	},
	Execute: execute,
	Record:  VideoRecord{},
}

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "video.search request",
  "description": "Search the video platform for videos.",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 300,
      "pattern": "\\S",
      "description": "What to search for, 1 to 300 characters (for example \"how to surf\"). The platform's operators work: | for OR, a leading - to exclude a word. Must not be blank."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 50,
      "default": 10,
      "description": "Results per page, 1 to 50."
    },
    "published_after": {
      "type": "string",
      "format": "date-time",
      "description": "Only videos published at or after this instant: an RFC 3339 date-time with a time zone, for example 2024-01-01T00:00:00Z or 2024-01-01T09:00:00+02:00."
    },
    "duration": {
      "type": "string",
      "enum": ["short", "medium", "long"],
      "description": "Only videos of this length: short (under 4 minutes), medium (4 to 20 minutes) or long (over 20 minutes). Omit for any length."
    }
  }
}`

// pageState is the paging state of the following page: YouTube's nextPageToken.
type pageState struct {
	Token string `json:"token"`
}

func firstPage(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

func decodeState(raw json.RawMessage) (pageState, error) {
	if firstPage(raw) {
		return pageState{}, nil
	}
	var st pageState
	if err := json.Unmarshal(raw, &st); err != nil || st.Token == "" {
		return pageState{}, &providers.Error{Code: providers.CodeInternal, Message: "the stored paging state of this search is unreadable"}
	}
	return st, nil
}

// videoRef is the record's Ref: the video id, all the record actions need.
type videoRef struct {
	ID string `json:"id"`
}

// videoIDPattern accepts YouTube video ids (11 characters of [A-Za-z0-9_-] today); the bound is
// looser so that a longer future id still works, while anything else is refused.
var videoIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func refOf(rec *providers.Record) (string, error) {
	var ref videoRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil || !videoIDPattern.MatchString(ref.ID) {
		return "", &providers.Error{Code: providers.CodeInternal, Message: "the record carries no usable video id"}
	}
	return ref.ID, nil
}

func watchPage(id string) string { return watchURL + url.QueryEscape(id) }

// acceptJSON is the Accept header of every upstream call (fresh each time: the client keeps it).
func acceptJSON() http.Header { return http.Header{"Accept": {"application/json"}} }

// searchListResponse is YouTube's search.list answer (the fields the records use).
type searchListResponse struct {
	NextPageToken lenient.Str                `json:"nextPageToken"`
	Items         lenient.List[searchResult] `json:"items"`
	Error         json.RawMessage            `json:"error"`
}

type searchResult struct {
	ID      lenient.Opt[searchResultID] `json:"id"`
	Snippet lenient.Opt[searchSnippet]  `json:"snippet"`
}

type searchResultID struct {
	Kind    lenient.Str `json:"kind"`
	VideoID lenient.Str `json:"videoId"`
}

type searchSnippet struct {
	PublishedAt  lenient.Str                       `json:"publishedAt"`
	PublishTime  lenient.Str                       `json:"publishTime"`
	ChannelID    lenient.Str                       `json:"channelId"`
	Title        lenient.Str                       `json:"title"`
	Description  lenient.Str                       `json:"description"`
	Thumbnails   lenient.Opt[map[string]thumbnail] `json:"thumbnails"`
	ChannelTitle lenient.Str                       `json:"channelTitle"`
}

type thumbnail struct {
	URL lenient.Str `json:"url"`
}

func execute(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	st, err := decodeState(call.State)
	if err != nil {
		return nil, err
	}
	num, ok := call.Request.Int("num")
	if !ok || num < 1 || num > 50 {
		num = 10
	}
	q := url.Values{}
	q.Set("part", "snippet")
	q.Set("type", "video")
	q.Set("q", strings.TrimSpace(call.Request.Str("query")))
	q.Set("maxResults", strconv.Itoa(num))
	if st.Token != "" {
		q.Set("pageToken", st.Token)
	}
	if s := call.Request.Str("published_after"); s != "" {
		t, ok := parseDateTime(s)
		if !ok {
			return nil, providers.InvalidField("/published_after", "published_after is not an RFC 3339 date-time")
		}
		q.Set("publishedAfter", formatPublishedAfter(t))
	}
	if d := call.Request.Str("duration"); d != "" {
		q.Set("videoDuration", d)
	}

	u := call.Upstream(youtubeID)
	resp, err := u.Get(ctx, "/search", q, acceptJSON())
	if err != nil {
		return nil, youtubeError(err, "")
	}
	var body searchListResponse
	if err := u.Decode(resp, &body); err != nil {
		return nil, err
	}
	if len(body.Error) > 0 && string(body.Error) != "null" {
		// YouTube reports failures with an HTTP error status; a 200 carrying an error object is
		// read the same way rather than shown as an empty result.
		return nil, youtubeError(&providers.Error{Code: providers.CodeProviderError, Message: "youtube reported an error",
			Retryable: ptr(false), UpstreamStatus: resp.Status, Body: resp.Body}, "")
	}

	page := &providers.Page{Records: make([]providers.Record, 0, len(body.Items))}
	transcripts := call.Upstream(transcriptsID).Available()
	for _, it := range body.Items {
		rec, ok := searchRecord(it)
		if !ok {
			continue
		}
		if !transcripts {
			rec.Actions = []string{"details"}
		}
		page.Records = append(page.Records, rec)
	}
	if !transcripts {
		page.Notes = []string{"The transcript action is not offered: the transcript provider is not configured in this deployment."}
	}
	if tok := string(body.NextPageToken); tok != "" {
		page.HasMore = true
		page.Next = mustJSON(pageState{Token: tok})
	}
	return page, nil
}

// searchRecord maps one search result to a record; ok is false for results that are not videos
// or carry no usable video id (nothing could be watched or looked up).
func searchRecord(it searchResult) (providers.Record, bool) {
	id := string(it.ID.V.VideoID)
	if kind := string(it.ID.V.Kind); (kind != "" && kind != "youtube#video") || !videoIDPattern.MatchString(id) {
		return providers.Record{}, false
	}
	sn := it.Snippet.V
	// search.list returns titles, descriptions and channel names HTML-escaped ("&#39;", "&amp;"),
	// unlike videos.list: unescape them.
	title := oneLine(html.UnescapeString(string(sn.Title)))
	if title == "" {
		title = "YouTube video " + id
	}
	rec := providers.Record{
		Title:   title,
		URL:     watchPage(id),
		Snippet: oneLine(html.UnescapeString(string(sn.Description))),
		Ref:     mustJSON(videoRef{ID: id}),
	}
	published := sn.PublishedAt
	if published == "" {
		published = sn.PublishTime
	}
	rec.Data = &VideoRecord{
		Channel:     oneLine(html.UnescapeString(string(sn.ChannelTitle))),
		PublishedAt: normalizeTime(string(published)),
		Thumbnail:   pickThumbnail(sn.Thumbnails.V),
	}
	return rec, true
}

// VideoRecord is a video.search record (besides title, url and snippet); keys the platform does
// not report are left out.
type VideoRecord struct {
	Channel     string `json:"channel,omitempty" doc:"the channel's name"`
	PublishedAt string `json:"published_at,omitempty" doc:"RFC 3339 UTC publish time"`
	Thumbnail   string `json:"thumbnail,omitempty" doc:"URL of the medium (320x180) or default thumbnail"`
}

// pickThumbnail is the medium-size thumbnail (320x180) when offered, else the default size
// (120x90), as the spec says; other sizes are not used.
func pickThumbnail(th map[string]thumbnail) string {
	for _, size := range []string{"medium", "default"} {
		if u := string(th[size].URL); u != "" {
			return u
		}
	}
	return ""
}

// parseDateTime reads an RFC 3339 date-time as the schema admits it: a lower-case t or z and a
// leap second (hh:mm:60, read as the next second) are accepted.
func parseDateTime(s string) (time.Time, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	leap := false
	if len(s) >= 19 && s[10] == 'T' && s[17:19] == "60" {
		s = s[:17] + "59" + s[19:]
		leap = true
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	if leap {
		t = t.Add(time.Second)
	}
	return t, true
}

// formatPublishedAfter writes the instant as YouTube's documented form (1970-01-01T00:00:00Z):
// UTC, whole seconds. A fractional second rounds up, so no video before the instant is admitted.
func formatPublishedAfter(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond() > 0 {
		t = t.Truncate(time.Second).Add(time.Second)
	}
	return t.Format(time.RFC3339)
}

// normalizeTime writes an upstream RFC 3339 time as UTC with whole seconds
// ("2019-12-05T19:00:10.000Z" becomes "2019-12-05T19:00:10Z"); a value that is not an RFC 3339
// date-time counts as absent, so published_at is always a date-time when present.
func normalizeTime(s string) string {
	if t, ok := parseDateTime(s); ok {
		return t.UTC().Truncate(time.Second).Format(time.RFC3339)
	}
	return ""
}

func ptr[T any](v T) *T { return &v }

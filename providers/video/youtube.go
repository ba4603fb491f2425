package video

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Bounds of the details lookup (spec 4.21 and section 8).
const (
	maxDescription = 3000 // characters of the description
	maxTags        = 10
)

// videoListResponse is YouTube's videos.list answer with part=snippet,contentDetails,statistics.
type videoListResponse struct {
	Items lenient.List[videoResource] `json:"items"`
	Error json.RawMessage             `json:"error"`
}

type videoResource struct {
	ID             lenient.Str                 `json:"id"`
	Snippet        lenient.Opt[videoSnippet]   `json:"snippet"`
	ContentDetails lenient.Opt[contentDetails] `json:"contentDetails"`
	Statistics     lenient.Opt[statistics]     `json:"statistics"`
}

type videoSnippet struct {
	PublishedAt  lenient.Str  `json:"publishedAt"`
	ChannelID    lenient.Str  `json:"channelId"`
	Title        lenient.Str  `json:"title"`
	Description  lenient.Str  `json:"description"`
	ChannelTitle lenient.Str  `json:"channelTitle"`
	Tags         lenient.Strs `json:"tags"`
}

type contentDetails struct {
	Duration   lenient.Str `json:"duration"`
	Definition lenient.Str `json:"definition"`
}

// statistics are numeric strings in the API ("viewCount": "8087"); likeCount is absent when the
// owner hides likes, commentCount when comments are disabled.
type statistics struct {
	ViewCount    lenient.Int `json:"viewCount"`
	LikeCount    lenient.Int `json:"likeCount"`
	CommentCount lenient.Int `json:"commentCount"`
}

// details is the details lookup: videos.list for the record's video id.
func details(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	id, err := refOf(rec)
	if err != nil {
		return nil, err
	}
	u := call.Upstream(youtubeID)
	q := url.Values{"part": {"snippet,contentDetails,statistics"}, "id": {id}}
	resp, err := u.Get(ctx, "/videos", q, acceptJSON())
	if err != nil {
		return nil, youtubeError(err, id)
	}
	var body videoListResponse
	if err := u.Decode(resp, &body); err != nil {
		return nil, err
	}
	if len(body.Error) > 0 && string(body.Error) != "null" {
		return nil, youtubeError(&providers.Error{Code: providers.CodeProviderError, Message: "youtube reported an error",
			Retryable: ptr(false), UpstreamStatus: resp.Status, Body: resp.Body}, id)
	}
	var v *videoResource
	for i := range body.Items {
		if string(body.Items[i].ID) == id {
			v = &body.Items[i]
			break
		}
	}
	if v == nil {
		// videos.list answers an empty items list for an id it does not know (removed, private).
		return nil, videoGone(id)
	}
	d, links := videoDetail(id, v)
	return &providers.Detail{Body: d, Links: links}, nil
}

func videoGone(id string) error {
	return providers.Errorf(providers.CodeNotFound, "the video %s is no longer available on the platform (removed or made private)", id)
}

// videoDetail builds the details body (every key optional) and its links.
func videoDetail(id string, v *videoResource) (*VideoDetail, []providers.Link) {
	sn, cd, stats := v.Snippet.V, v.ContentDetails.V, v.Statistics.V
	d := &VideoDetail{
		Title:       oneLine(string(sn.Title)),
		Channel:     oneLine(string(sn.ChannelTitle)),
		PublishedAt: normalizeTime(string(sn.PublishedAt)),
		Views:       count(stats.ViewCount),
		Likes:       count(stats.LikeCount),
		Comments:    count(stats.CommentCount),
		Tags:        firstTags(sn.Tags, maxTags),
		Definition:  strings.ToLower(string(cd.Definition)),
	}
	// A live or upcoming broadcast reports P0D: no duration yet, so none is shown.
	if secs, ok := parseISODuration(string(cd.Duration)); ok && secs > 0 {
		d.DurationSeconds = secs
	}
	if desc := strings.TrimSpace(string(sn.Description)); desc != "" {
		d.Description, _ = providers.Truncate(desc, maxDescription)
	}
	links := []providers.Link{{Label: "Watch on the video platform", URL: watchPage(id)}}
	if ch := string(sn.ChannelID); videoIDPattern.MatchString(ch) {
		links = append(links, providers.Link{Label: "Channel page", URL: channelURL + ch})
	}
	return d, links
}

// VideoDetail is the details action's body; keys the platform does not report are left out.
// json.Marshal keeps declared order, so the fields are declared in sorted key order.
type VideoDetail struct {
	Channel         string   `json:"channel,omitempty"`
	Comments        *int64   `json:"comments,omitempty"`
	Definition      string   `json:"definition,omitempty"`
	Description     string   `json:"description,omitempty"`
	DurationSeconds int64    `json:"duration_seconds,omitempty"`
	Likes           *int64   `json:"likes,omitempty"`
	PublishedAt     string   `json:"published_at,omitempty"`
	Tags            []string `json:"tags,omitempty"`
	Title           string   `json:"title,omitempty"`
	Views           *int64   `json:"views,omitempty"`
}

// count is a reported, non-negative statistic, or nil.
func count(n lenient.Int) *int64 {
	if !n.OK || n.V < 0 {
		return nil
	}
	return &n.V
}

// firstTags keeps the first n distinct tags in the owner's order.
func firstTags(tags []string, n int) []string {
	out := make([]string, 0, n)
	seen := map[string]bool{}
	for _, t := range tags {
		t = oneLine(t)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
		if len(out) == n {
			break
		}
	}
	return out
}

// isoDuration matches the ISO 8601 durations YouTube writes: PT#M#S, PT#H#M#S and, for a video
// at least a day long, P#DT#H#M#S (weeks are accepted too; years and months are not used for
// video lengths and are refused).
var isoDuration = regexp.MustCompile(`^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// parseISODuration turns "PT1H2M3S" into 3723 seconds; fractional seconds round to the nearest
// second.
func parseISODuration(s string) (int64, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	m := isoDuration.FindStringSubmatch(s)
	if m == nil || s == "P" || strings.HasSuffix(s, "T") {
		return 0, false
	}
	var total float64
	for i, unit := range []float64{7 * 86400, 86400, 3600, 60, 1} {
		if m[i+1] == "" {
			continue
		}
		f, err := strconv.ParseFloat(m[i+1], 64)
		if err != nil {
			return 0, false
		}
		total += f * unit
	}
	if total > 1<<53 {
		return 0, false
	}
	return int64(total + 0.5), true
}

// googleError is the error body of Google APIs:
// {"error": {"code", "message", "errors": [{"message", "domain", "reason"}], "status", "details": [...]}}.
type googleError struct {
	Error lenient.Opt[struct {
		Code    lenient.Int `json:"code"`
		Message lenient.Str `json:"message"`
		Status  lenient.Str `json:"status"`
		Errors  lenient.List[struct {
			Message lenient.Str `json:"message"`
			Domain  lenient.Str `json:"domain"`
			Reason  lenient.Str `json:"reason"`
		}] `json:"errors"`
		Details lenient.List[struct {
			Reason lenient.Str `json:"reason"`
		}] `json:"details"`
	}] `json:"error"`
}

var htmlTag = regexp.MustCompile(`<[^>]*>`)

// youtubeError maps a refused YouTube call using the documented error body: quota exhaustion
// (quotaExceeded, dailyLimitExceeded) is provider_allowance; request-rate limits
// (rateLimitExceeded, userRateLimitExceeded) are rate_limited; a refused key (keyInvalid,
// keyExpired, API_KEY_INVALID, a missing key, the API not enabled, a key restriction) is a
// non-retryable provider_error an operator must fix; videoNotFound on a lookup is not_found.
// Other failures keep the client's mapping (5xx retryable, 4xx not) with YouTube's message.
func youtubeError(err error, videoID string) error {
	e, ok := providers.AsError(err)
	if !ok || len(e.Body) == 0 {
		return err
	}
	var body googleError
	if json.Unmarshal(e.Body, &body) != nil || !body.Error.OK {
		return err
	}
	ge := body.Error.V
	msg := oneLine(htmlTag.ReplaceAllString(string(ge.Message), ""))
	reasons := map[string]bool{}
	for _, x := range ge.Errors {
		reasons[string(x.Reason)] = true
		if msg == "" {
			msg = oneLine(htmlTag.ReplaceAllString(string(x.Message), ""))
		}
	}
	for _, x := range ge.Details {
		reasons[string(x.Reason)] = true
	}
	if msg == "" {
		msg = "no message"
	}
	out := *e
	out.Message = "YouTube: " + msg
	switch {
	case reasons["quotaExceeded"] || reasons["dailyLimitExceeded"] || reasons["dailyLimitExceededUnreg"]:
		out.Code, out.Retryable = providers.CodeProviderAllowance, ptr(false)
		out.Message = "YouTube's daily quota for this gateway is used up: " + msg
		out.Hint = "The YouTube Data API quota resets at midnight Pacific Time."
	case reasons["rateLimitExceeded"] || reasons["userRateLimitExceeded"] || reasons["RATE_LIMIT_EXCEEDED"]:
		out.Code, out.Retryable = providers.CodeRateLimited, ptr(true)
		if out.RetryAfter <= 0 {
			out.RetryAfter = 5 * time.Second
		}
		out.Message = "YouTube is rate limiting this gateway: " + msg
	case reasons["keyInvalid"] || reasons["keyExpired"] || reasons["API_KEY_INVALID"] ||
		reasons["accessNotConfigured"] || reasons["SERVICE_DISABLED"] || reasons["ipRefererBlocked"] ||
		reasons["API_KEY_SERVICE_BLOCKED"] || strings.Contains(msg, "API key"):
		out.Code, out.Retryable = providers.CodeProviderError, ptr(false)
		out.Message = "YouTube refused this deployment's API key: " + msg
		out.Hint = "An operator must set a valid PROVIDER_YOUTUBE_KEY for a project with the YouTube Data API v3 enabled."
	case videoID != "" && (reasons["videoNotFound"] || e.UpstreamStatus == http.StatusNotFound):
		return videoGone(videoID)
	}
	return &out
}

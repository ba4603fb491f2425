package video

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Bounds of the transcript action (spec 4.21 and section 8).
const (
	maxTranscriptText = 60000 // characters of the joined text
	maxTimestamps     = 2000  // timestamp entries
)

// jobPollInterval is how often a Supadata transcript job is polled (a variable for tests);
// maxJobPolls bounds the polling when the context carries no deadline.
var (
	jobPollInterval = time.Second
	maxJobPolls     = 30
)

// transcriptResponse is Supadata's GET /transcript answer: the transcript ({content, lang,
// availableLangs}; content is an array of chunks, or a string with text=true), a job id
// ({jobId}, HTTP 202), a job result ({status, error, content, lang, availableLangs}) or an error
// body ({error, message, details, documentationUrl}; transcript-unavailable comes with HTTP 206).
type transcriptResponse struct {
	Content        json.RawMessage `json:"content"`
	Lang           lenient.Str     `json:"lang"`
	AvailableLangs lenient.Strs    `json:"availableLangs"`
	JobID          lenient.Str     `json:"jobId"`
	Status         lenient.Str     `json:"status"`
	// Error is a code string in an error body, an Error object (or null) in a job result.
	Error   json.RawMessage `json:"error"`
	Message lenient.Str     `json:"message"`
	Details lenient.Str     `json:"details"`
}

type transcriptChunk struct {
	Text     lenient.Str   `json:"text"`
	Offset   lenient.Float `json:"offset"`   // milliseconds
	Duration lenient.Float `json:"duration"` // milliseconds
	Lang     lenient.Str   `json:"lang"`
}

// supadataProblem is an error as Supadata writes it.
type supadataProblem struct {
	Code    lenient.Str `json:"error"`
	Message lenient.Str `json:"message"`
	Details lenient.Str `json:"details"`
}

// problem reads the error member: a code string (error body) or an Error object (failed job).
func (r transcriptResponse) problem() (supadataProblem, bool) {
	raw := bytes.TrimSpace(r.Error)
	if len(raw) == 0 || string(raw) == "null" {
		return supadataProblem{}, false
	}
	var code lenient.Str
	if json.Unmarshal(raw, &code) == nil && code != "" {
		return supadataProblem{Code: code, Message: r.Message, Details: r.Details}, true
	}
	var p supadataProblem
	if json.Unmarshal(raw, &p) == nil && (p.Code != "" || p.Message != "" || p.Details != "") {
		return p, true
	}
	return supadataProblem{}, false
}

// timestamp is one entry of the transcript's timestamps, in seconds.
type timestamp struct {
	Start    float64  `json:"start"`
	Duration *float64 `json:"duration,omitempty"`
	Text     string   `json:"text"`
}

// transcript is the transcript lookup: Supadata's universal transcript endpoint with the watch
// URL, mode=native (existing captions only, one Supadata credit; never AI generation, whose
// per-minute price would break the fixed $0.004 per video) and timestamped chunks (text=false).
func transcript(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	id, err := refOf(rec)
	if err != nil {
		return nil, err
	}
	u := call.Upstream(transcriptsID)
	q := url.Values{"url": {watchPage(id)}, "mode": {"native"}, "text": {"false"}}
	resp, err := u.Get(ctx, "/transcript", q, acceptJSON())
	if err != nil {
		return nil, supadataError(err, id)
	}
	var body transcriptResponse
	if err := u.Decode(resp, &body); err != nil {
		return nil, err
	}
	if p, ok := body.problem(); ok {
		e, _ := problemError(p, id)
		e.UpstreamStatus, e.Body = resp.Status, resp.Body
		return nil, e
	}
	if len(body.Content) == 0 && body.JobID != "" {
		if body, err = awaitJob(ctx, u, string(body.JobID), id); err != nil {
			return nil, err
		}
	}
	if len(bytes.TrimSpace(body.Content)) == 0 || string(bytes.TrimSpace(body.Content)) == "null" {
		return nil, &providers.Error{Code: providers.CodeProviderError, Message: "transcripts answered without a transcript",
			Retryable: ptr(true)}
	}
	return &providers.Detail{Body: transcriptDetail(body), Links: []providers.Link{{Label: "Watch on the video platform", URL: watchPage(id)}}}, nil
}

// awaitJob polls GET /transcript/{jobId} until the job completes or fails, or the deadline
// passes. Supadata documents the job answer for transcripts too large to return at once; with
// mode=native it is not expected, but it is handled rather than failing.
func awaitJob(ctx context.Context, u *providers.Upstream, jobID, videoID string) (transcriptResponse, error) {
	path := "/transcript/" + url.PathEscape(jobID)
	for i := 0; i < maxJobPolls || hasDeadline(ctx); i++ {
		timer := time.NewTimer(jobPollInterval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return transcriptResponse{}, &providers.Error{Code: providers.CodeProviderTimeout,
				Message: "transcripts did not finish the transcript job in time", Cause: ctx.Err()}
		case <-timer.C:
		}
		resp, err := u.Get(ctx, path, nil, acceptJSON())
		if err != nil {
			return transcriptResponse{}, supadataError(err, videoID)
		}
		var job transcriptResponse
		if err := u.Decode(resp, &job); err != nil {
			return transcriptResponse{}, err
		}
		switch string(job.Status) {
		case "completed":
			return job, nil
		case "failed":
			if p, ok := job.problem(); ok {
				e, _ := problemError(p, videoID)
				return transcriptResponse{}, e
			}
			return transcriptResponse{}, &providers.Error{Code: providers.CodeProviderError,
				Message: "transcripts could not produce the transcript (the job failed)", Retryable: ptr(true)}
		case "queued", "active":
			continue
		default:
			if p, ok := job.problem(); ok {
				e, _ := problemError(p, videoID)
				return transcriptResponse{}, e
			}
			return transcriptResponse{}, &providers.Error{Code: providers.CodeProviderError,
				Message: "transcripts answered a job status it does not document: " + string(job.Status), Retryable: ptr(false)}
		}
	}
	return transcriptResponse{}, &providers.Error{Code: providers.CodeProviderTimeout, Message: "transcripts did not finish the transcript job in time"}
}

func hasDeadline(ctx context.Context) bool {
	_, ok := ctx.Deadline()
	return ok
}

// transcriptDetail builds the transcript body: language, available_languages, segments and
// timestamps always; text when there is any; timestamps_truncated only when the cap cut the list.
func transcriptDetail(body transcriptResponse) *TranscriptDetail {
	var chunks lenient.List[transcriptChunk]
	var plain lenient.Str
	content := bytes.TrimSpace(body.Content)
	isText := len(content) > 0 && content[0] == '"'
	if isText {
		_ = json.Unmarshal(content, &plain)
	} else {
		_ = json.Unmarshal(content, &chunks)
	}

	lang := string(body.Lang)
	for _, c := range chunks {
		if lang != "" {
			break
		}
		lang = string(c.Lang)
	}
	if lang == "" && len(body.AvailableLangs) > 0 {
		lang = body.AvailableLangs[0]
	}
	if lang == "" {
		lang = "und" // ISO 639 "undetermined": the key is required and the source named no language
	}
	available := make([]string, 0, len(body.AvailableLangs)+1)
	seen := map[string]bool{}
	for _, l := range body.AvailableLangs {
		if !seen[l] {
			seen[l] = true
			available = append(available, l)
		}
	}
	if len(available) == 0 && lang != "und" {
		available = append(available, lang)
	}

	stamps := make([]timestamp, 0, min(len(chunks), maxTimestamps))
	texts := make([]string, 0, len(chunks))
	truncated := false
	for _, c := range chunks {
		text := oneLine(string(c.Text))
		if text == "" {
			continue
		}
		texts = append(texts, text)
		if !c.Offset.OK || c.Offset.V < 0 {
			continue
		}
		if len(stamps) == maxTimestamps {
			truncated = true
			continue
		}
		ts := timestamp{Start: millisToSeconds(c.Offset.V), Text: text}
		if c.Duration.OK && c.Duration.V >= 0 {
			dur := millisToSeconds(c.Duration.V)
			ts.Duration = &dur
		}
		stamps = append(stamps, ts)
	}
	joined := strings.Join(texts, " ")
	if isText {
		joined = oneLine(string(plain))
	}

	d := &TranscriptDetail{Language: lang, AvailableLanguages: available, Segments: len(chunks), Timestamps: stamps, TimestampsTruncated: truncated}
	if joined != "" {
		d.Text, _ = providers.Truncate(joined, maxTranscriptText)
	}
	return d
}

// TranscriptDetail is the transcript action's body. json.Marshal keeps declared order, so the
// fields are declared in sorted key order.
type TranscriptDetail struct {
	AvailableLanguages  []string    `json:"available_languages"`
	Language            string      `json:"language"`
	Segments            int         `json:"segments"`
	Text                string      `json:"text,omitempty"`
	Timestamps          []timestamp `json:"timestamps"`
	TimestampsTruncated bool        `json:"timestamps_truncated,omitempty"`
}

// millisToSeconds turns Supadata's milliseconds into seconds, kept to the millisecond.
func millisToSeconds(ms float64) float64 {
	return math.Round(ms) / 1000
}

// supadataError maps a refused Supadata call using its documented error body
// ({error, message, details, documentationUrl}); without one the client's mapping stands.
func supadataError(err error, videoID string) error {
	e, ok := providers.AsError(err)
	if !ok || len(e.Body) == 0 {
		return err
	}
	var body transcriptResponse
	if json.Unmarshal(e.Body, &body) != nil {
		return err
	}
	p, ok := body.problem()
	if !ok {
		return err
	}
	mapped, known := problemError(p, videoID)
	if !known || (p.Code == "limit-exceeded" && e.UpstreamStatus == http.StatusTooManyRequests) {
		// An unnamed code keeps the client's mapping (5xx retryable, 4xx not); on a 429 the client
		// already chose between a short rate limit (Retry-After) and an allowance used up.
		out := *e
		out.Message, out.Hint = mapped.Message, mapped.Hint
		return &out
	}
	mapped.UpstreamStatus, mapped.Body, mapped.Cause = e.UpstreamStatus, e.Body, e
	return mapped
}

// problemError maps one of Supadata's error codes (https://docs.supadata.ai/errors); known is
// false for a code the documentation does not list (then a non-retryable provider_error).
func problemError(p supadataProblem, videoID string) (*providers.Error, bool) {
	text := string(p.Details)
	if text == "" {
		text = string(p.Message)
	}
	if text == "" {
		text = string(p.Code)
	}
	msg := "transcripts: " + text
	switch string(p.Code) {
	case "transcript-unavailable":
		return providers.Errorf(providers.CodeNotFound, "the video %s has no transcript (it has no captions): %s", videoID, text), true
	case "not-found":
		return providers.Errorf(providers.CodeNotFound, "transcripts could not find the video %s: %s", videoID, text), true
	case "unauthorized", "forbidden":
		return providers.Errorf(providers.CodeProviderError, "transcripts refused this deployment's API key: %s", text).
			WithRetryable(false).WithHint("An operator must set a valid PROVIDER_TRANSCRIPTS_KEY."), true
	case "upgrade-required":
		return providers.Errorf(providers.CodeProviderError, "transcripts refused the request for this deployment's plan: %s", text).
			WithRetryable(false).WithHint("The transcript provider's plan of this deployment does not include this feature."), true
	case "limit-exceeded":
		return providers.Errorf(providers.CodeProviderAllowance, "%s", msg).
			WithHint("The transcript provider's rate or quota limit for this deployment was reached."), true
	case "invalid-request":
		return providers.Errorf(providers.CodeProviderError, "%s", msg).WithRetryable(false), true
	case "internal-error":
		return providers.Errorf(providers.CodeProviderError, "%s", msg).WithRetryable(true), true
	}
	return providers.Errorf(providers.CodeProviderError, "%s", msg).WithRetryable(false), false
}

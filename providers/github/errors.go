package github

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// rateLimitWait is the Retry-After of a GitHub rate-limit refusal that carried no Retry-After the
// client could read. GitHub's own guidance without retry-after is "wait at least one minute"; its
// x-ratelimit-reset header would be exact, but the shared client keeps only the body of an error.
const rateLimitWait = 60 * time.Second

// errorBody is GitHub's error envelope: {message, documentation_url, errors?, status?}.
type errorBody struct {
	Message lenient.Str                    `json:"message"`
	Errors  lenient.List[validationDetail] `json:"errors"`
}

// validationDetail is one entry of a 422 "Validation Failed" body.
type validationDetail struct {
	Resource lenient.Str `json:"resource"`
	Field    lenient.Str `json:"field"`
	Code     lenient.Str `json:"code"`
	Message  lenient.Str `json:"message"`
}

// upstreamError reads GitHub's error body of a refused call. ok is false when err is not an upstream
// HTTP answer (a transport failure, a timeout, an oversize answer), which is returned unchanged.
func upstreamError(err error) (e *providers.Error, body errorBody, ok bool) {
	e, isErr := providers.AsError(err)
	if !isErr || e.UpstreamStatus == 0 {
		return nil, errorBody{}, false
	}
	_ = json.Unmarshal(e.Body, &body) // not JSON (an HTML error page): no message
	return e, body, true
}

// commonError maps the refusals search and README lookups share: rate limits (primary and
// secondary, 403 or 429), a refused token, and any other 4xx with GitHub's message.
func commonError(err error) error {
	e, body, ok := upstreamError(err)
	if !ok {
		return err
	}
	msg := string(body.Message)
	switch {
	case e.UpstreamStatus == http.StatusTooManyRequests || (e.UpstreamStatus == http.StatusForbidden && isRateLimit(msg)):
		wait := e.RetryAfter // the client's reading of a 429's Retry-After header
		if wait <= 0 {
			wait = rateLimitWait
		}
		text := "GitHub is rate limiting this gateway; retry after the Retry-After delay"
		if msg != "" {
			text += " (GitHub: " + msg + ")"
		}
		return &providers.Error{Code: providers.CodeRateLimited, Message: text, RetryAfter: wait,
			UpstreamStatus: e.UpstreamStatus, Body: e.Body, Cause: err}
	case e.UpstreamStatus == http.StatusUnauthorized:
		return (&providers.Error{Code: providers.CodeProviderError,
			Message:        "GitHub refused this deployment's token (" + orDefault(msg, "HTTP 401") + ")",
			UpstreamStatus: e.UpstreamStatus, Body: e.Body, Cause: err}).WithRetryable(false)
	case e.UpstreamStatus >= 400 && e.UpstreamStatus < 500 && msg != "":
		return (&providers.Error{Code: providers.CodeProviderError,
			Message:        fmt.Sprintf("GitHub refused the request (HTTP %d): %s", e.UpstreamStatus, msg),
			UpstreamStatus: e.UpstreamStatus, Body: e.Body, Cause: err}).WithRetryable(false)
	}
	return err
}

// isRateLimit recognises GitHub's rate-limit messages: "API rate limit exceeded for …", "You have
// exceeded a secondary rate limit. …" and the older "You have triggered an abuse detection mechanism".
func isRateLimit(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "rate limit") || strings.Contains(m, "abuse detection")
}

// validationText joins the messages of a 422 body's errors[] (or their field and code when an
// entry has no message), falling back to the top-level message.
func validationText(body errorBody) string {
	var parts []string
	for _, d := range body.Errors {
		switch {
		case d.Message != "":
			parts = append(parts, string(d.Message))
		case d.Code != "":
			parts = append(parts, strings.TrimSpace(string(d.Field)+" "+string(d.Code)))
		}
	}
	if len(parts) == 0 {
		return orDefault(string(body.Message), "Validation Failed")
	}
	return strings.Join(parts, "; ")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

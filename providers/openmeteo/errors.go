package openmeteo

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// errorBody is Open-Meteo's documented error object, sent with HTTP 400 (and with 429 when a
// free-tier limit is hit): {"error": true, "reason": "..."}.
type errorBody struct {
	Error  bool   `json:"error"`
	Reason string `json:"reason"`
}

// reasonNoData is the reason Open-Meteo gives when no model covers a point (the marine API
// inland, the air-quality API outside its domains).
const reasonNoData = "No data is available for this location"

// errorReason reads the reason of an Open-Meteo error body, or "".
func errorReason(body []byte) string {
	var b errorBody
	if json.Unmarshal(body, &b) != nil {
		return ""
	}
	return strings.TrimSpace(b.Reason)
}

// isNoData tells whether err is Open-Meteo's "no data for this location" refusal.
func isNoData(err error) bool {
	e, ok := providers.AsError(err)
	return ok && e.UpstreamStatus == http.StatusBadRequest && strings.EqualFold(errorReason(e.Body), reasonNoData)
}

// upstreamError adds Open-Meteo's reason to an upstream failure and maps its free-tier limits:
// the minutely limit clears within a minute (rate_limited, retryable); the hourly, daily and
// monthly limits are the allowance being used up (the client's provider_allowance stays).
func upstreamError(id string, err error) error {
	e, ok := providers.AsError(err)
	if !ok || e.UpstreamStatus == 0 {
		return err
	}
	reason := errorReason(e.Body)
	out := *e
	if reason != "" {
		out.Message = fmt.Sprintf("%s: %s", e.Message, reason)
	}
	if e.UpstreamStatus == http.StatusTooManyRequests && strings.Contains(strings.ToLower(reason), "minutely") {
		out.Code = providers.CodeRateLimited
		out.Message = fmt.Sprintf("%s is rate limiting this gateway; retry in a minute: %s", id, reason)
		out.Retryable = nil
		if out.RetryAfter <= 0 {
			out.RetryAfter = time.Minute
		}
	}
	return &out
}

// refusedInBody maps an error object sent with HTTP 200, which the documentation does not
// describe but which would otherwise decode as an empty answer.
func refusedInBody(id string, b errorBody) error {
	if !b.Error {
		return nil
	}
	reason := b.Reason
	if reason == "" {
		reason = "no reason given"
	}
	return providers.Errorf(providers.CodeProviderError, "%s refused the request: %s", id, reason).WithRetryable(false)
}

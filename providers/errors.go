package providers

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Code is one of the error codes of the spec's section 7; it is the product's single error vocabulary.
type Code string

const (
	CodeInvalidRequest        Code = "invalid_request"
	CodeUnauthorized          Code = "unauthorized"
	CodeCreditsExhausted      Code = "credits_exhausted"
	CodeCapabilityDisabled    Code = "capability_disabled"
	CodeCapabilityUnknown     Code = "capability_unknown"
	CodeRecordUnknown         Code = "record_unknown"
	CodeSessionExpired        Code = "session_expired"
	CodeRateLimited           Code = "rate_limited"
	CodeProviderError         Code = "provider_error"
	CodeSharpenNoReviewer     Code = "sharpen_no_reviewer"
	CodeCapabilityUnavailable Code = "capability_unavailable"
	CodeProviderTimeout       Code = "provider_timeout"
	CodeServiceUnavailable    Code = "service_unavailable"
	CodeMediaStale            Code = "media_stale"
	CodeWorkoutUnavailable    Code = "workout_unavailable"
	CodeProviderAllowance     Code = "provider_allowance"
	CodeNotFound              Code = "not_found"
	CodeInternal              Code = "internal_error"
)

// codeInfo is the one table from code to HTTP status and default retryability (DESIGN.md section 4).
var codeInfo = map[Code]struct {
	status    int
	retryable bool
}{
	CodeInvalidRequest:        {400, false},
	CodeUnauthorized:          {401, false},
	CodeCreditsExhausted:      {402, false},
	CodeCapabilityDisabled:    {403, false},
	CodeCapabilityUnknown:     {404, false},
	CodeRecordUnknown:         {404, false},
	CodeNotFound:              {404, false},
	CodeWorkoutUnavailable:    {404, false},
	CodeMediaStale:            {409, true},
	CodeSessionExpired:        {410, false},
	CodeRateLimited:           {429, true},
	CodeInternal:              {500, true},
	CodeProviderError:         {502, true},
	CodeCapabilityUnavailable: {503, false},
	CodeServiceUnavailable:    {503, true},
	CodeSharpenNoReviewer:     {503, true},
	CodeProviderAllowance:     {503, false},
	CodeProviderTimeout:       {504, true},
}

// Codes lists every code of the vocabulary, for documentation.
func Codes() []Code {
	return []Code{CodeInvalidRequest, CodeUnauthorized, CodeCreditsExhausted, CodeCapabilityDisabled,
		CodeCapabilityUnknown, CodeRecordUnknown, CodeSessionExpired, CodeRateLimited, CodeProviderError,
		CodeSharpenNoReviewer, CodeCapabilityUnavailable, CodeProviderTimeout, CodeServiceUnavailable,
		CodeMediaStale, CodeWorkoutUnavailable, CodeProviderAllowance, CodeNotFound, CodeInternal}
}

// Status is the HTTP status of the code.
func (c Code) Status() int {
	if i, ok := codeInfo[c]; ok {
		return i.status
	}
	return 500
}

// Violation names one field at fault: Path is a JSON pointer ("" for the whole body).
type Violation struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Error is the error every layer returns to the client; the gateway writes it as the spec's envelope.
type Error struct {
	Code       Code
	Message    string
	Hint       string
	Violations []Violation
	// Retryable overrides the code's default when set.
	Retryable *bool
	// RetryAfter, when positive, becomes the Retry-After header.
	RetryAfter time.Duration
	// Status overrides the code's HTTP status for transport-level refusals (405, 413).
	Status int
	// UpstreamStatus is the provider's HTTP status when the error came from one.
	UpstreamStatus int
	// Body is the upstream's error body, for adapters that read provider error shapes.
	Body []byte
	// Cause is logged, never shown.
	Cause error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// HTTPStatus is the status the error is answered with.
func (e *Error) HTTPStatus() int {
	if e.Status != 0 {
		return e.Status
	}
	return e.Code.Status()
}

// IsRetryable tells the client whether the same call may succeed later.
func (e *Error) IsRetryable() bool {
	if e.Retryable != nil {
		return *e.Retryable
	}
	return codeInfo[e.Code].retryable
}

// Errorf makes an Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid is an invalid_request error carrying the violations.
func Invalid(message string, violations ...Violation) *Error {
	return &Error{Code: CodeInvalidRequest, Message: message, Violations: violations}
}

// InvalidField is an invalid_request error with one violation at path.
func InvalidField(path, message string) *Error {
	return Invalid(message, Violation{Path: path, Message: message})
}

// WithRetryable sets the retryable flag explicitly.
func (e *Error) WithRetryable(r bool) *Error { e.Retryable = &r; return e }

// DefaultRetryAfter is the wait a retryable 503 or 429 asks for when its cause names none.
const DefaultRetryAfter = time.Second

// RetryAfterSeconds is the Retry-After an answer with this error carries (0: none): its own
// wait, or DefaultRetryAfter for a retryable 503 or 429 that names none, so every answer that
// asks the caller to come back says when.
func (e *Error) RetryAfterSeconds() int {
	wait := e.RetryAfter
	if wait <= 0 {
		if st := e.HTTPStatus(); (st != 503 && st != 429) || !e.IsRetryable() {
			return 0
		}
		wait = DefaultRetryAfter
	}
	return int(math.Ceil(wait.Seconds()))
}

// WithHint adds a hint.
func (e *Error) WithHint(h string) *Error { e.Hint = h; return e }

// AsError finds an *Error in err's chain.
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
)

// Error is the product's one error type (shared with the capability model).
type Error = providers.Error

// toError maps any error to the vocabulary: fiber's own errors keep their meaning, anything
// unknown is an internal error whose detail is logged and never shown.
func toError(err error) (*Error, bool) {
	if e, ok := providers.AsError(err); ok {
		return e, e.Code == providers.CodeInternal
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case http.StatusNotFound:
			return &Error{Code: providers.CodeNotFound, Message: "no such route: " + strings.TrimPrefix(fe.Message, "Cannot ")}, false
		case http.StatusMethodNotAllowed:
			return &Error{Code: providers.CodeInvalidRequest, Message: "this route does not accept that HTTP method", Status: http.StatusMethodNotAllowed}, false
		case http.StatusRequestEntityTooLarge:
			return &Error{Code: providers.CodeInvalidRequest, Message: fmt.Sprintf("the body is larger than %d bytes", maxBody), Status: http.StatusRequestEntityTooLarge,
				Violations: []providers.Violation{{Path: "", Message: "body too large"}}}, false
		case http.StatusBadRequest:
			// fe.Message may be fasthttp's parse error, which quotes the raw request buffer (its
			// Authorization header and cookies among it): never echo it.
			return &Error{Code: providers.CodeInvalidRequest, Message: "the request is malformed", Violations: []providers.Violation{{Path: "", Message: "malformed request"}}}, false
		case http.StatusRequestHeaderFieldsTooLarge, http.StatusRequestURITooLong:
			return &Error{Code: providers.CodeInvalidRequest, Message: fe.Message, Status: fe.Code}, false
		case http.StatusServiceUnavailable:
			return &Error{Code: providers.CodeServiceUnavailable, Message: "the service is unavailable; retry shortly"}, false
		case http.StatusRequestTimeout:
			return &Error{Code: providers.CodeServiceUnavailable, Message: "the request timed out", Status: http.StatusRequestTimeout}, false
		}
	}
	return &Error{Code: providers.CodeInternal, Message: "an internal error occurred; it has been logged with the request id", Cause: err}, true
}

// storeError is the answer when a store fails: retryable, its detail logged, never shown.
func storeError(err error) error {
	return &Error{Code: providers.CodeServiceUnavailable, Message: "the account store is unavailable; retry shortly", Cause: err,
		RetryAfter: providers.DefaultRetryAfter}
}

// errorHandler writes every error, fiber's own included, as the spec's envelope.
func (s *Server) errorHandler(c *fiber.Ctx, err error) error {
	e, internal := toError(err)
	rid := requestID(c)
	s.countError(c, e.Code)
	c.Locals(logErrorLocal, e)
	if internal {
		s.log.Error("internal error", "request_id", rid, "method", c.Method(), "path", c.Path(), "err", err)
	} else if e.Cause != nil && e.HTTPStatus() >= 500 {
		s.log.Warn("request failed", "request_id", rid, "code", e.Code, "cause", e.Cause)
	}
	if e.HTTPStatus() == fiber.StatusRequestEntityTooLarge {
		lingerOnClose(c) // answered with the body unread: the connection ends after this answer
	}
	return writeError(c, e, rid)
}

func writeError(c *fiber.Ctx, e *Error, rid string) error {
	c.Response().Header.Del(CacheHeader) // an error is no answer of the cache's
	if wait := e.RetryAfterSeconds(); wait > 0 {
		c.Set("Retry-After", strconv.Itoa(wait))
	}
	c.Set(fiber.HeaderXRequestID, rid)
	body := envelope{Error: errorBody{Code: e.Code, Message: e.Message, Retryable: e.IsRetryable(), Hint: e.Hint, Violations: e.Violations, RequestID: rid}}
	return c.Status(e.HTTPStatus()).JSON(body)
}

// logLevelFor keeps 4xx noise out of error logs.
func logLevelFor(status int) slog.Level {
	switch {
	case status >= 500:
		return slog.LevelError
	case status >= 400:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}

package gateway

import (
	"fmt"
	"regexp"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// requestID returns the request's id, making one when the middleware has not run (an error
// raised by the HTTP server itself, such as an oversized body).
func requestID(c *fiber.Ctx) string {
	if rid, ok := c.Locals("request_id").(string); ok {
		return rid
	}
	rid := c.Get(fiber.HeaderXRequestID)
	if !requestIDPattern.MatchString(rid) {
		rid = "req_" + tenants.RandomString(16)
	}
	c.Locals("request_id", rid)
	return rid
}

// withRequestID keeps a well-formed client X-Request-Id or makes one, on every response.
func (s *Server) withRequestID(c *fiber.Ctx) error {
	c.Set(fiber.HeaderXRequestID, requestID(c))
	return c.Next()
}

// limitBody refuses bodies over maxBody with the envelope (413, invalid_request).
func (s *Server) limitBody(c *fiber.Ctx) error {
	if len(c.Request().Body()) > maxBody {
		return fiber.ErrRequestEntityTooLarge
	}
	return c.Next()
}

// recoverPanics turns a panic into internal_error, logging its stack with the request id.
func (s *Server) recoverPanics(c *fiber.Ctx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic", "request_id", requestID(c), "method", c.Method(), "path", c.Path(),
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = &Error{Code: providers.CodeInternal, Message: "an internal error occurred; it has been logged with the request id"}
		}
	}()
	return c.Next()
}

// observe logs and measures every request once it is answered.
func (s *Server) observe(c *fiber.Ctx) error {
	start := time.Now()
	err := c.Next()
	if err != nil {
		// Write the envelope now so the status is known for the log and metrics.
		if werr := s.errorHandler(c, err); werr != nil {
			return werr
		}
	}
	status := c.Response().StatusCode()
	route := "unmatched"
	if r := c.Route(); r != nil && r.Path != "/" && r.Path != "" {
		route = r.Path
	}
	capability, _ := c.Locals("capability").(string)
	elapsed := time.Since(start)
	s.metrics.requests.WithLabelValues(route, strconv.Itoa(status), capability).Inc()
	s.metrics.latency.WithLabelValues(route).Observe(elapsed.Seconds())
	attrs := []any{"request_id", requestID(c), "method", c.Method(), "path", c.Path(), "status", status, "duration_ms", elapsed.Milliseconds()}
	if capability != "" {
		attrs = append(attrs, "capability", capability)
	}
	if p := principalOf(c); p != nil {
		attrs = append(attrs, "tenant", p.Tenant.ID)
	}
	s.log.Log(c.UserContext(), logLevelFor(status), "request", attrs...)
	return nil
}

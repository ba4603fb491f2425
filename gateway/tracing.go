package gateway

import (
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/capgate/capgate/internal/telemetry"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// traceResponseHeader carries the request's trace id back to the caller (W3C Trace Context
// Level 2): "00-<trace id>-<span id>-<flags>".
const traceResponseHeader = "traceresponse"

// traceRequest makes the request's server span, continuing the caller's W3C traceparent when it
// sent a valid one, and answers its trace id in traceresponse. The span holds the method, the
// route template, the capability id, the request id and the status: never a key, a header
// value or the query.
func (s *Server) traceRequest(c *fiber.Ctx) error {
	if !telemetry.Enabled() {
		return c.Next()
	}
	ctx := telemetry.Extract(c.UserContext(), func(k string) string { return c.Get(k) })
	ctx, span := telemetry.Start(ctx, c.Method(), trace.WithSpanKind(trace.SpanKindServer))
	defer span.End()
	c.SetUserContext(ctx)
	if v := telemetry.TraceResponse(span); v != "" {
		c.Set(traceResponseHeader, v)
	}
	err := c.Next()
	if err != nil {
		// Write the envelope now (as observe does) so the span records the status.
		if werr := s.errorHandler(c, err); werr != nil {
			return werr
		}
	}
	if !span.IsRecording() {
		return nil
	}
	route := "unmatched"
	if r := c.Route(); r != nil && r.Path != "/" && r.Path != "" {
		route = r.Path
	}
	status := c.Response().StatusCode()
	span.SetName(c.Method() + " " + route)
	attrs := []attribute.KeyValue{
		attribute.String("http.request.method", c.Method()),
		attribute.String("http.route", route),
		attribute.Int("http.response.status_code", status),
		attribute.String("capgate.request_id", requestID(c)),
	}
	if capability, _ := c.Locals("capability").(string); capability != "" {
		attrs = append(attrs, attribute.String("capgate.capability", capability))
	}
	span.SetAttributes(attrs...)
	if status >= 500 {
		span.SetStatus(codes.Error, "HTTP "+strconv.Itoa(status))
	}
	return nil
}

// spanCode is the error code a span records for err ("" for none): the vocabulary's code, never
// the message.
func spanCode(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, tenants.ErrCreditsExhausted):
		return string(providers.CodeCreditsExhausted)
	}
	if e, ok := providers.AsError(err); ok {
		return string(e.Code)
	}
	return string(providers.CodeInternal)
}

// countError counts an error answer by capability and code, and marks the request's span with
// the code.
func (s *Server) countError(c *fiber.Ctx, code providers.Code) {
	capability, _ := c.Locals("capability").(string)
	s.metrics.errors.WithLabelValues(capability, string(code)).Inc()
	if span := trace.SpanFromContext(c.UserContext()); span.IsRecording() {
		span.SetAttributes(attribute.String("capgate.error_code", string(code)))
	}
}

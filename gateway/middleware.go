package gateway

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel/trace"

	"github.com/capgate/capgate/internal/ids"
	"github.com/capgate/capgate/providers"
)

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// requestID returns the request's id, making one when the middleware has not run (an error
// raised by the HTTP server itself, such as an oversized body).
func requestID(c *fiber.Ctx) string {
	if rid, ok := c.Locals("request_id").(string); ok {
		return rid
	}
	rid := c.Get(fiber.HeaderXRequestID)
	if rid == "" || !requestIDPattern.MatchString(rid) {
		rid = newRequestID()
	}
	c.Locals("request_id", rid)
	return rid
}

// newRequestID makes "req_", the time in 8 base-62 digits and 12 random ones (71 bits): unique,
// not secret (the caller sees its own, and any client may choose one), and ordered by time so
// the request log's index of request ids grows at its end (internal/ids).
func newRequestID() string { return ids.New("req_", time.Now(), 12) }

// withRequestID keeps a well-formed client X-Request-Id or makes one, on every response.
func (s *Server) withRequestID(c *fiber.Ctx) error {
	c.Set(fiber.HeaderXRequestID, requestID(c))
	return c.Next()
}

// limitBody refuses bodies over maxBody with the envelope (413, invalid_request), and any
// Content-Encoding but identity (415): fiber's Ctx.Body decompresses by that header with no
// bound, so a 1 MB gzip body could expand to gigabytes before anyone is authenticated. No
// route accepts a compressed body, so nothing downstream ever decompresses one; handlers read
// the raw bytes (BodyRaw) all the same.
func (s *Server) limitBody(c *fiber.Ctx) error {
	if enc := c.Request().Header.Peek(fiber.HeaderContentEncoding); len(enc) > 0 && !identityEncoding(enc) {
		return &Error{Code: providers.CodeInvalidRequest, Status: http.StatusUnsupportedMediaType,
			Message: "compressed request bodies are not accepted (Content-Encoding: " + safeToken(enc) + ")",
			Hint:    "send the body uncompressed, without a Content-Encoding header"}
	}
	if len(c.Request().Body()) > maxBody {
		return fiber.ErrRequestEntityTooLarge
	}
	return c.Next()
}

// identityEncoding reports whether a Content-Encoding value names only "identity" (one or more
// times, any case, comma-separated).
func identityEncoding(v []byte) bool {
	for _, part := range bytes.Split(v, []byte{','}) {
		if !bytes.EqualFold(bytes.TrimSpace(part), []byte("identity")) {
			return false
		}
	}
	return true
}

// safeToken is a header value fit to quote back in a message: at most 32 bytes of printable
// ASCII, anything else elided.
func safeToken(v []byte) string {
	if len(v) > 32 {
		v = v[:32]
	}
	out := make([]byte, 0, len(v))
	for _, b := range v {
		if b >= 0x21 && b <= 0x7e {
			out = append(out, b)
		} else {
			out = append(out, '?')
		}
	}
	return string(out)
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
	if s.reqlog != nil {
		s.recordRequest(c, start, elapsed, status)
	}
	s.metrics.requests.WithLabelValues(route, strconv.Itoa(status), capability).Inc()
	s.metrics.latency.WithLabelValues(route, capability).Observe(elapsed.Seconds())
	level := logLevelFor(status)
	if !s.log.Enabled(c.UserContext(), level) {
		return nil // the access line is not written: do not build it
	}
	attrs := []any{"request_id", requestID(c), "method", c.Method(), "path", c.Path(), "status", status, "duration_ms", elapsed.Milliseconds()}
	if capability != "" {
		attrs = append(attrs, "capability", capability)
	}
	if p := principalOf(c); p != nil {
		attrs = append(attrs, "tenant", p.Tenant.ID)
	}
	if sc := trace.SpanContextFromContext(c.UserContext()); sc.IsValid() {
		attrs = append(attrs, "trace_id", sc.TraceID().String())
	}
	s.log.Log(c.UserContext(), level, "request", attrs...)
	return nil
}

// checkFraming refuses a request whose HTTP framing a proxy in front could read differently
// from this server (request smuggling): fasthttp accepts it leniently, so the raw header block
// is checked before routing. The connection is closed after the 400, so bytes left over from an
// ambiguous body are never read as a next request.
func (s *Server) checkFraming(c *fiber.Ctx) error {
	if why := framingFault(c.Request().Header.Protocol(), c.Request().Header.RawHeaders()); why != "" {
		c.Context().SetConnectionClose()
		return &Error{Code: providers.CodeInvalidRequest, Message: "the request's HTTP framing is refused: " + why,
			Violations: []providers.Violation{{Path: "", Message: why}}}
	}
	return c.Next()
}

// framingFault names what is wrong with a request's framing (its protocol and raw header
// block as received), or "".
func framingFault(protocol, raw []byte) string {
	proto := string(protocol)
	if proto != "HTTP/1.1" && proto != "HTTP/1.0" {
		return "unsupported HTTP version " + strconv.Quote(proto)
	}
	var contentLength, transferEncoding []string
	hosts, authorizations := 0, 0
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\n')
		if i < 0 {
			return "a header line does not end with CRLF"
		}
		line := raw[:i]
		raw = raw[i+1:]
		if len(line) == 0 || line[len(line)-1] != '\r' {
			return "a header line ends with a bare LF"
		}
		line = line[:len(line)-1]
		if len(line) == 0 {
			break // the blank line that ends the header block
		}
		if bytes.IndexByte(line, '\r') >= 0 {
			return "a header line holds a bare CR"
		}
		if line[0] == ' ' || line[0] == '\t' {
			return "obsolete line folding (obs-fold)"
		}
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok || len(name) == 0 || bytes.ContainsAny(name, " \t") {
			return "a header line is not name: value"
		}
		v := string(bytes.Trim(value, " \t"))
		switch {
		case bytes.EqualFold(name, []byte(fiber.HeaderContentLength)):
			contentLength = append(contentLength, v)
		case bytes.EqualFold(name, []byte(fiber.HeaderTransferEncoding)):
			transferEncoding = append(transferEncoding, v)
		case bytes.EqualFold(name, []byte(fiber.HeaderHost)):
			hosts++
		case bytes.EqualFold(name, []byte(fiber.HeaderAuthorization)):
			authorizations++
		}
	}
	switch {
	case len(transferEncoding) > 0 && len(contentLength) > 0:
		return "both Content-Length and Transfer-Encoding"
	case len(transferEncoding) > 1 || len(transferEncoding) == 1 && !strings.EqualFold(transferEncoding[0], "chunked"):
		return "a Transfer-Encoding other than one chunked"
	case len(transferEncoding) == 1 && proto == "HTTP/1.0":
		return "Transfer-Encoding in an HTTP/1.0 request"
	case len(contentLength) > 1:
		return "more than one Content-Length"
	case len(contentLength) == 1 && !isDigits(contentLength[0]):
		return "a Content-Length that is not a decimal number"
	case hosts > 1:
		return "more than one Host header"
	case authorizations > 1:
		// fasthttp keeps the first, a proxy in front may act on another.
		return "more than one Authorization header"
	}
	return ""
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// secureHeaders sets the response headers every answer carries, the API's and the static
// files' alike: no MIME sniffing (a JSON answer or a text file is never run as a script or
// page), no framing, no cross-origin embedding, and no Referer leaving the site. The console
// sets its own Content-Security-Policy; everything else is data that may load nothing.
func (s *Server) secureHeaders(c *fiber.Ctx) error {
	h := &c.Response().Header
	h.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	h.Set(fiber.HeaderXFrameOptions, "DENY")
	h.Set(fiber.HeaderReferrerPolicy, "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if p := c.Path(); p != "/console" && !strings.HasPrefix(p, "/console/") {
		h.Set(fiber.HeaderContentSecurityPolicy, "default-src 'none'; frame-ancestors 'none'")
	}
	return c.Next()
}

// metricsAuth requires Authorization: Bearer METRICS_TOKEN on /metrics when a token is set.
func (s *Server) metricsAuth(c *fiber.Ctx) error {
	if s.opts.MetricsToken == "" {
		return c.Next()
	}
	got, ok := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.MetricsToken)) != 1 {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="metrics"`)
		return &Error{Code: providers.CodeUnauthorized, Message: "/metrics needs Authorization: Bearer <METRICS_TOKEN>"}
	}
	return c.Next()
}

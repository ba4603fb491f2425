package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/capgate/capgate/internal/telemetry"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/sony/gobreaker/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// The call path of one upstream request: the URL, the breaker, the size limit and the
// translation of transport and HTTP failures into the product's errors (client.go holds the
// providers and their settings).

// Upstream is one provider bound to a call's mode.
type Upstream struct {
	c       *Client
	p       *Provider
	mode    Mode
	BaseURL string
	Key     string
}

// ID is the provider id.
func (u *Upstream) ID() string { return u.p.ID }

// Available tells whether calls can be made (always in the sandbox).
func (u *Upstream) Available() bool {
	if u.mode == ModeTest {
		return u.p.Sandbox != nil
	}
	ok, _ := u.c.Configured(u.p.ID)
	return ok
}

// BreakerOpen tells whether the provider's breaker is failing fast (fallback adapters check it).
func (u *Upstream) BreakerOpen() bool {
	return u.mode == ModeLive && u.c.breakers[u.p.ID].State() == gobreaker.StateOpen
}

// URL joins the base URL, a path and a query.
func (u *Upstream) URL(path string, q url.Values) string {
	s := u.BaseURL + path
	if len(q) > 0 {
		if strings.Contains(s, "?") {
			s += "&" + q.Encode()
		} else {
			s += "?" + q.Encode()
		}
	}
	return s
}

// NewRequest builds a request to path under the base URL.
func (u *Upstream) NewRequest(ctx context.Context, method, path string, q url.Values, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u.URL(path, q), body)
	if err != nil {
		return nil, &Error{Code: CodeInternal, Message: "could not build the upstream request", Cause: err}
	}
	return req, nil
}

// Get calls GET path?q and returns the answer (2xx only; other statuses are errors).
func (u *Upstream) Get(ctx context.Context, path string, q url.Values, header http.Header) (*Response, error) {
	req, err := u.NewRequest(ctx, http.MethodGet, path, q, nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	return u.Do(req)
}

// GetJSON calls GET path?q and decodes the JSON answer into out.
func (u *Upstream) GetJSON(ctx context.Context, path string, q url.Values, out any) error {
	resp, err := u.Get(ctx, path, q, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return err
	}
	return u.Decode(resp, out)
}

// Decode decodes a JSON answer in one streaming pass (lenient.Unmarshal: encoding/json's
// semantics, the lenient types read from the token stream); malformed JSON is a provider_error.
func (u *Upstream) Decode(resp *Response, out any) error {
	if err := lenient.Unmarshal(resp.Body, out); err != nil {
		e := &Error{Code: CodeProviderError, Message: fmt.Sprintf("%s answered malformed JSON", u.p.ID), Cause: err}
		u.c.noteError(u.p.ID, e)
		u.Undecodable(resp, e)
		return e
	}
	return nil
}

// Undecodable reports a live 2xx answer the adapter could not use (not JSON, not the documented
// shape) to the provider's breaker as a failure: a provider that answers garbage is failing as
// much as one that answers 500.
func (u *Upstream) Undecodable(resp *Response, err error) {
	if resp == nil || !resp.live {
		return
	}
	id := u.p.ID
	u.c.bad[id].Add(resp.badBefore + 1)
	resp.live = false // once per answer
	_, _ = u.c.breakers[id].Execute(func() (*Response, error) { return nil, err })
}

// readAnswer reads at most limit+1 bytes of an answer. A declared length within the limit sizes
// the buffer up front (one allocation instead of io.ReadAll's doublings); the declaration is
// only a hint, so a body longer or shorter than declared is still read exactly.
func readAnswer(res *http.Response, limit int64) ([]byte, error) {
	r := io.LimitReader(res.Body, limit+1)
	n := res.ContentLength
	if n <= 0 || n > limit {
		return io.ReadAll(r)
	}
	buf := make([]byte, 0, n+1) // +1: a longer body shows without a reallocation
	for {
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		case len(buf) == cap(buf): // longer than declared
			rest, err := io.ReadAll(r)
			return append(buf, rest...), err
		}
	}
}

// Do sends the request through the limiter and breaker, with the User-Agent and key added, and
// maps every failure to the error vocabulary. Statuses outside 2xx are errors carrying the status.
// While tracing is on, the call is a client span (provider, method, status, error code: never
// the URL, which may hold a key or the query) and a provider listed in TraceProviders receives
// the traceparent.
func (u *Upstream) Do(req *http.Request) (*Response, error) {
	if !telemetry.Enabled() {
		return u.do(req)
	}
	ctx, span := telemetry.Start(req.Context(), "upstream "+u.p.ID, trace.WithSpanKind(trace.SpanKindClient))
	req = req.WithContext(ctx)
	// Before do, which adds the key: a signature then covers every header sent.
	if u.mode == ModeLive && u.c.traced[u.p.ID] {
		telemetry.Inject(ctx, req.Header)
	}
	resp, err := u.do(req)
	if span.IsRecording() {
		attrs := []attribute.KeyValue{attribute.String("capgate.provider", u.p.ID), attribute.String("capgate.mode", string(u.mode)),
			attribute.String("http.request.method", req.Method), attribute.String("capgate.breaker_state", u.c.BreakerState(u.p.ID))}
		if resp != nil {
			attrs = append(attrs, attribute.Int("http.response.status_code", resp.Status))
		} else if e, ok := AsError(err); ok && e.UpstreamStatus != 0 {
			attrs = append(attrs, attribute.Int("http.response.status_code", e.UpstreamStatus))
		}
		span.SetAttributes(attrs...)
	}
	code := ""
	if err != nil {
		code = string(codeOf(err))
	}
	telemetry.End(span, err, code)
	return resp, err
}

func (u *Upstream) do(req *http.Request) (*Response, error) {
	id := u.p.ID
	ctx := req.Context()
	if !u.Available() {
		why := fmt.Sprintf("provider %s has no sandbox for test keys", id)
		if u.mode == ModeLive {
			_, why = u.c.Configured(id)
		}
		return nil, &Error{Code: CodeCapabilityUnavailable, Message: why}
	}
	req.Header.Set("User-Agent", u.c.userAgent)
	if u.p.Authorize != nil && u.Key != "" {
		u.p.Authorize(req, u.Key)
	}
	if u.mode == ModeTest {
		return u.sandboxDo(req)
	}
	if len(u.c.limits[id]) > 0 {
		if err := u.c.pace(ctx, u); err != nil {
			e := &Error{Code: CodeProviderTimeout, Message: fmt.Sprintf("%s did not answer in time (queued behind its request rate limit)", id), Cause: err}
			u.c.mCalls.WithLabelValues(id, string(e.Code)).Inc()
			u.c.noteError(id, e)
			return nil, e
		}
	}
	start := time.Now()
	resp, err := u.c.breakers[id].Execute(func() (*Response, error) { return u.send(u.c.live, req) })
	u.c.mLatency.WithLabelValues(id).Observe(time.Since(start).Seconds())
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		u.c.mCalls.WithLabelValues(id, "breaker_open").Inc()
		return nil, &Error{Code: CodeServiceUnavailable, Message: fmt.Sprintf("%s is failing; calls are paused for a moment", id),
			RetryAfter: u.c.opts.BreakerTimeout, Cause: err}
	}
	if err != nil {
		if isBreakerFailure(err) {
			u.c.bad[id].Add(1)
		} else {
			u.c.bad[id].Store(0)
		}
		u.c.mCalls.WithLabelValues(id, string(codeOf(err))).Inc()
		u.c.noteError(id, err)
		return nil, err
	}
	resp.badBefore, resp.live = u.c.bad[id].Swap(0), true
	u.c.mCalls.WithLabelValues(id, "ok").Inc()
	return resp, nil
}

func codeOf(err error) Code {
	if e, ok := AsError(err); ok {
		return e.Code
	}
	return CodeInternal
}

func (c *Client) noteError(id string, err error) {
	c.mu.Lock()
	c.lastErr[id] = ProviderError{At: time.Now().UTC(), Message: err.Error()}
	c.mu.Unlock()
}

func (u *Upstream) send(hc *http.Client, req *http.Request) (*Response, error) {
	id := u.p.ID
	ctx := req.Context()
	res, err := hc.Do(req)
	if err != nil {
		// The URL may carry a key (a query parameter or a path segment): keep only the cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, transportError(ctx, id, err)
	}
	defer res.Body.Close()
	limit := u.p.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	body, err := readAnswer(res, limit)
	if err != nil {
		if ctx.Err() != nil || isTimeout(err) {
			return nil, transportError(ctx, id, err)
		}
		// Connected and answering, then the body broke off: not "could not be reached".
		return nil, &Error{Code: CodeProviderError, Message: fmt.Sprintf("%s sent a truncated answer", id), Retryable: ptr(true),
			UpstreamStatus: 0, Cause: err}
	}
	if int64(len(body)) > limit {
		return nil, &Error{Code: CodeProviderError, Message: fmt.Sprintf("%s answered more than %s", id, sizeLabel(limit)),
			Retryable: ptr(false), UpstreamStatus: res.StatusCode}
	}
	r := &Response{Status: res.StatusCode, Header: res.Header, Body: body}
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
		return r, nil
	case res.StatusCode == http.StatusTooManyRequests:
		wait, given := parseRetryAfter(res.Header.Get("Retry-After"))
		if given && wait <= time.Minute {
			return nil, &Error{Code: CodeRateLimited, Message: fmt.Sprintf("%s is rate limiting this gateway; retry shortly", id),
				RetryAfter: wait, UpstreamStatus: 429, Body: body}
		}
		return nil, &Error{Code: CodeProviderAllowance, Message: fmt.Sprintf("%s's allowance for this gateway is used up", id),
			RetryAfter: wait, UpstreamStatus: 429, Body: body}
	case res.StatusCode >= 500:
		return nil, &Error{Code: CodeProviderError, Message: fmt.Sprintf("%s failed (HTTP %d)", id, res.StatusCode),
			Retryable: ptr(true), UpstreamStatus: res.StatusCode, Body: body}
	default:
		return nil, &Error{Code: CodeProviderError, Message: fmt.Sprintf("%s refused the request (HTTP %d)", id, res.StatusCode),
			Retryable: ptr(false), UpstreamStatus: res.StatusCode, Body: body}
	}
}

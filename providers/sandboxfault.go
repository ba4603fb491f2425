package providers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
)

// SandboxFault is a failure a test-mode caller asks the sandbox upstream to make (the
// Capgate-Sandbox-Fault header), to rehearse how its client handles what live mode can answer.
type SandboxFault string

const (
	// FaultTimeout: the upstream does not answer in time (a transport timeout).
	FaultTimeout SandboxFault = "provider_timeout"
	// FaultError: the upstream fails with HTTP 503 and an error body.
	FaultError SandboxFault = "provider_error"
	// FaultRateLimited: the upstream answers 429 with Retry-After: 7.
	FaultRateLimited SandboxFault = "rate_limited"
	// FaultAllowance: the upstream answers 429 with Retry-After: 3600, the gateway's allowance
	// being used up.
	FaultAllowance SandboxFault = "provider_allowance"
	// FaultGarbage: the upstream answers 200 with a body that is not what it documents.
	FaultGarbage SandboxFault = "garbage"
	// FaultBreakerOpen: the upstream's breaker is open, as after repeated failures.
	FaultBreakerOpen SandboxFault = "breaker_open"
)

// SandboxFaults lists the codes the header accepts, with what each rehearses.
var SandboxFaults = map[SandboxFault]string{
	FaultTimeout:     "the upstream does not answer in time: 504 provider_timeout",
	FaultError:       "the upstream fails (HTTP 503): 502 provider_error, retryable",
	FaultRateLimited: "the upstream rate-limits the gateway (HTTP 429, Retry-After 7): 429 rate_limited with Retry-After",
	FaultAllowance:   "the gateway's allowance at the upstream is used up (HTTP 429, Retry-After 3600): 503 provider_allowance",
	FaultGarbage:     "the upstream answers 200 with a body that is not its documented format: 502 provider_error (an adapter that reads any text as content, such as web.read's reader, takes it as live does)",
	FaultBreakerOpen: "the upstream's breaker is open: 503 service_unavailable with Retry-After",
}

// SandboxFaultCodes lists the accepted codes in a stable order.
func SandboxFaultCodes() []string {
	out := make([]string, 0, len(SandboxFaults))
	for f := range SandboxFaults {
		out = append(out, string(f))
	}
	sort.Strings(out)
	return out
}

// ParseSandboxFault reads a header value; ok is false for an unknown code.
func ParseSandboxFault(v string) (SandboxFault, bool) {
	f := SandboxFault(strings.TrimSpace(strings.ToLower(v)))
	_, ok := SandboxFaults[f]
	return f, ok
}

type sandboxKey struct{}

// sandboxScope is what a test-mode request tells the sandbox: whose sandbox breakers it uses and
// which fault, if any, its upstream calls make.
type sandboxScope struct {
	tenant string
	fault  SandboxFault
}

// WithSandbox marks a test-mode request's context: its upstream calls use the tenant's own sandbox
// breakers and fail with fault ("" for none). The gateway sets it for every test-key request.
func WithSandbox(ctx context.Context, tenant string, fault SandboxFault) context.Context {
	return context.WithValue(ctx, sandboxKey{}, sandboxScope{tenant: tenant, fault: fault})
}

func sandboxScopeOf(ctx context.Context) sandboxScope {
	s, _ := ctx.Value(sandboxKey{}).(sandboxScope)
	return s
}

// sandboxBreakers are the breakers of test mode, one per tenant and provider: the same settings
// as the live breakers, so a test caller can rehearse a breaker opening, yet never the live
// breakers nor another tenant's.
type sandboxBreakers struct {
	mu sync.Mutex
	m  map[string]*gobreaker.CircuitBreaker[*Response]
}

func (c *Client) sandboxBreaker(tenant, provider string) *gobreaker.CircuitBreaker[*Response] {
	sb := &c.testBreakers
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.m == nil {
		sb.m = map[string]*gobreaker.CircuitBreaker[*Response]{}
	}
	key := tenant + "\x00" + provider
	b, ok := sb.m[key]
	if !ok {
		if len(sb.m) > 100000 {
			sb.m = map[string]*gobreaker.CircuitBreaker[*Response]{} // bounded: breakers are cheap to rebuild
		}
		failures := c.opts.BreakerFailures
		b = gobreaker.NewCircuitBreaker[*Response](gobreaker.Settings{
			Name:         "sandbox " + provider,
			MaxRequests:  1,
			Timeout:      c.opts.BreakerTimeout,
			ReadyToTrip:  func(cn gobreaker.Counts) bool { return cn.ConsecutiveFailures >= failures },
			IsSuccessful: func(err error) bool { return err == nil || !isBreakerFailure(err) },
		})
		sb.m[key] = b
	}
	return b
}

// sandboxDo is Do in test mode: the call goes through the tenant's sandbox breaker, and the
// requested fault is made by the sandbox transport, so the client maps it as it maps live answers.
func (u *Upstream) sandboxDo(req *http.Request) (*Response, error) {
	id := u.p.ID
	sc := sandboxScopeOf(req.Context())
	b := u.c.sandboxBreaker(sc.tenant, id)
	if sc.fault == FaultBreakerOpen {
		return nil, breakerOpen(id, u.c.opts.BreakerTimeout, gobreaker.ErrOpenState)
	}
	resp, err := b.Execute(func() (*Response, error) { return u.send(u.c.sandbox[id], req) })
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return nil, breakerOpen(id, u.c.opts.BreakerTimeout, err)
	}
	return resp, err
}

// breakerOpen is the answer of a call whose provider's breaker fails fast.
func breakerOpen(id string, wait time.Duration, cause error) error {
	return &Error{Code: CodeServiceUnavailable, Message: fmt.Sprintf("%s is failing; calls are paused for a moment", id),
		RetryAfter: wait, Cause: cause}
}

// sandboxTimeout is the transport error of FaultTimeout: a net.Error that timed out.
type sandboxTimeout struct{}

func (sandboxTimeout) Error() string {
	return "the sandbox upstream did not answer in time (rehearsed fault)"
}
func (sandboxTimeout) Timeout() bool   { return true }
func (sandboxTimeout) Temporary() bool { return true }

// faultResponse makes the upstream answer of a fault; nil for FaultTimeout (a transport error)
// and for no fault.
func faultResponse(f SandboxFault, req *http.Request) *http.Response {
	rec := newRecorder()
	if !WriteSandboxFault(rec, f) {
		return nil
	}
	return rec.result(req)
}

// WriteSandboxFault writes the upstream answer of a fault and tells whether it wrote one (not for
// FaultTimeout, a transport error, nor FaultBreakerOpen, the client's own answer). Tests use it
// to make a live fake upstream answer exactly as the sandbox does.
func WriteSandboxFault(w http.ResponseWriter, f SandboxFault) bool {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	var status int
	var body string
	switch f {
	case FaultError:
		status, body = http.StatusServiceUnavailable, `{"error":"Service temporarily unavailable (sandbox fault provider_error)"}`
	case FaultRateLimited:
		h.Set("Retry-After", "7")
		status, body = http.StatusTooManyRequests, `{"error":"Too many requests (sandbox fault rate_limited)"}`
	case FaultAllowance:
		h.Set("Retry-After", "3600")
		status, body = http.StatusTooManyRequests, `{"error":"Your account has run out of searches (sandbox fault provider_allowance)"}`
	case FaultGarbage:
		h.Set("Content-Type", "text/html; charset=utf-8")
		status, body = http.StatusOK, "<html><body>\x00\x01 sandbox fault garbage: not the documented format {\"unclosed\": [</body></html>"
	default:
		h.Del("Content-Type")
		return false
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
	return true
}

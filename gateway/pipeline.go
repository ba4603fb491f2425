package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/internal/telemetry"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/searches"
)

// The billed-call pipeline. Every billed operation (execute, each follow-up, sharpen, and the
// agents' protocol through them) runs through bill, in this order:
//
//	admit (the handler: plan, availability) → reserve → the upstream work under its deadline,
//	a panic recovered once → settle: the ledger row and the session writes committed together
//	(group commit), returning the charge and the balance → render.
//
// A failure anywhere before the settlement commits, a panic and a caller that hung up
// included, refunds the reservation through one deferred path; no handler reserves, settles or
// refunds by itself.

// billed names a billed operation and what it reserves.
type billed struct {
	capability   string
	action       string
	credits      int // reserved before the plan's multiplier (the typical charge)
	noMultiplier bool
	deadline     time.Duration
}

// outcome is what the upstream work produced: the credits to charge (before the multiplier),
// the writes committed with the charge, and the answer to render once it is charged.
type outcome struct {
	credits int
	writes  []tenants.Write
	render  func(c *fiber.Ctx, charged int64, bal balanceJSON) error
	// cache marks an answer the shared upstream cache gave (hit or coalesced) in the ledger;
	// fullCredits is what it would have cost without (the credits saved are the difference).
	cache       string
	fullCredits int
}

// errCallerGone ends a call whose client closed its connection before the answer was ready
// (nobody reads it: 499 is the status proxies log for that).
var errCallerGone = &Error{Code: providers.CodeServiceUnavailable, Status: 499, Message: "the caller closed the connection before the answer was ready; nothing was charged"}

// bill runs one billed operation through the pipeline.
func (s *Server) bill(c *fiber.Ctx, p *Principal, b billed, work func(ctx context.Context) (*outcome, error)) (err error) {
	ctx := c.UserContext()
	c.Locals(logActionLocal, b.action)
	cost := p.Plan.Charge(int64(b.credits), b.noMultiplier)
	// The caller's per-call ceiling (quote.go): refused before any reservation or upstream work.
	ceiling, err := maxCreditsOf(c)
	if err != nil {
		return err
	}
	if ceiling >= 0 && cost > ceiling {
		return overCeiling(cost, ceiling)
	}
	rctx, span := telemetry.Start(ctx, "credits.reserve")
	reserveStart := time.Now()
	res, err := s.meter.ReserveKey(rctx, p.Tenant, p.Plan, p.Key, cost)
	s.metrics.reserveWait.Observe(time.Since(reserveStart).Seconds())
	telemetry.End(span, err, spanCode(err))
	if errors.Is(err, tenants.ErrKeyCreditsExhausted) {
		return &Error{Code: providers.CodeCreditsExhausted, Message: "this API key's own credit budget for the period is used up",
			Hint: fmt.Sprintf("the key's budget is %d credits per period (the account's cap is separate); it resets at the period's end, or raise the key's credit_budget", p.Key.CreditBudget)}
	}
	if errors.Is(err, tenants.ErrCreditsExhausted) {
		return &Error{Code: providers.CodeCreditsExhausted, Message: "the credit cap of this period is used up",
			Hint: "the balance resets at period_end; a larger plan raises the cap"}
	}
	if err != nil {
		return storeError(err)
	}
	defer func() {
		// No-op once settled; otherwise the one refund path (a panic passes through here too).
		_ = s.meter.Refund(context.WithoutCancel(ctx), res)
	}()
	out, err := s.runWork(ctx, b, work)
	if err != nil {
		return err
	}
	// A call that costs nothing and changes nothing has nothing to take back: only the others
	// pay for the peek (a system call).
	if (out.credits > 0 || len(out.writes) > 0) && callerGone(c) {
		s.log.Info("caller left before the answer; refunded", "request_id", requestID(c), "capability", b.capability, "action", b.action)
		return errCallerGone
	}
	e := tenants.LedgerEntry{RequestID: requestID(c), KeyID: p.Key.ID, Capability: b.capability, Action: b.action}
	charge := p.Plan.Charge(int64(out.credits), b.noMultiplier)
	if ceiling >= 0 && charge > ceiling {
		charge = ceiling // a call let through under a ceiling is never charged more
	}
	if out.cache != "" {
		e.Cache, e.CreditsSaved = out.cache, max(p.Plan.Charge(int64(out.fullCredits), b.noMultiplier)-charge, 0)
		s.cacheMetrics.credits.WithLabelValues(b.capability).Add(float64(e.CreditsSaved))
	}
	sctx, span := telemetry.Start(ctx, "credits.settle")
	charged, bal, err := s.meter.Settle(sctx, res, charge, e, out.writes...)
	telemetry.End(span, err, spanCode(err))
	if err != nil {
		if errors.Is(err, searches.ErrConflict) {
			return err
		}
		return storeError(err)
	}
	if charged > 0 {
		c.Locals(logCreditsLocal, charged)
		s.metrics.credits.WithLabelValues(b.capability, p.Key.Mode).Add(float64(charged))
	}
	end := bal.PeriodEnd
	return out.render(c, charged, balanceJSON{Used: bal.Used, Cap: bal.Cap, PeriodEnd: &end})
}

// newCall binds an adapter call to the caller and the gateway's public URL.
func (s *Server) newCall(cp *providers.Capability, req providers.Request, state json.RawMessage, p *Principal) *providers.Call {
	call := providers.NewCall(cp, req, state, p.Mode(), p.Tenant.ID, s.opts.Client)
	call.PublicURL = s.opts.PublicURL
	return call
}

// runWork runs the upstream work under the operation's deadline; a panic or a foreign error
// becomes a vocabulary error (so the reservation is refunded) and is logged once, here.
func (s *Server) runWork(ctx context.Context, b billed, work func(ctx context.Context) (*outcome, error)) (out *outcome, err error) {
	if b.deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, b.deadline)
		defer cancel()
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in a billed call", "capability", b.capability, "action", b.action, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			out, err = nil, &Error{Code: providers.CodeInternal, Message: "an internal error occurred; it has been logged"}
		}
	}()
	out, err = work(ctx)
	if err != nil {
		return nil, s.workError(ctx, b, err)
	}
	return out, nil
}

// workError maps what the upstream work returned to the error vocabulary.
func (s *Server) workError(ctx context.Context, b billed, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		if e, ok := providers.AsError(err); ok && e.Code == providers.CodeProviderTimeout {
			return e
		}
		return &Error{Code: providers.CodeProviderTimeout, Message: fmt.Sprintf("%s did not finish within its %s deadline", b.capability, b.deadline), Cause: err}
	}
	if _, ok := providers.AsError(err); ok {
		return err
	}
	s.log.Warn("upstream work returned an unmapped error", "capability", b.capability, "action", b.action, "err", err)
	return &Error{Code: providers.CodeProviderError, Message: "the upstream answer could not be used", Cause: err}
}

// callerGone tells whether the client has closed its connection: a non-blocking peek at the
// socket that reads nothing away (pipelined requests stay where they are). Connections that
// are not plain TCP (tests' in-memory ones) count as present.
func callerGone(c *fiber.Ctx) bool {
	conn := c.Context().Conn()
	sc, ok := conn.(syscall.Conn)
	if !ok {
		if tc, ok := conn.(interface{ NetConn() net.Conn }); ok {
			sc, ok = tc.NetConn().(syscall.Conn)
			if !ok {
				return false
			}
		} else {
			return false
		}
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	gone := false
	_ = raw.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		gone = (n == 0 && err == nil) || err == syscall.ECONNRESET
		return true
	})
	return gone
}

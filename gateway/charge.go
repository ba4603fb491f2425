package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// charge is one billed operation: reserved before the upstream call, settled or refunded after.
type charge struct {
	s            *Server
	p            *Principal
	capability   string
	action       string
	noMultiplier bool
	res          *tenants.Reservation
}

// reserve takes the typical charge (with the plan's multiplier) before the upstream call.
func (s *Server) reserve(ctx context.Context, p *Principal, c *providers.Capability, action string, credits int) (*charge, error) {
	return s.reserveCredits(ctx, p, c.ID, action, credits, c.Cost.NoMultiplier)
}

// reserveCredits reserves for any billed operation (a capability call or sharpen).
func (s *Server) reserveCredits(ctx context.Context, p *Principal, capability, action string, credits int, noMultiplier bool) (*charge, error) {
	ch := &charge{s: s, p: p, capability: capability, action: action, noMultiplier: noMultiplier}
	n := p.Plan.Charge(int64(credits), ch.noMultiplier)
	res, err := s.store.Reserve(ctx, p.Tenant, p.Plan, p.Key.Mode, n)
	if errors.Is(err, tenants.ErrCreditsExhausted) {
		return nil, &Error{Code: providers.CodeCreditsExhausted, Message: "the credit cap of this period is used up",
			Hint: "the balance resets at period_end; a larger plan raises the cap"}
	}
	if err != nil {
		return nil, storeError(err)
	}
	ch.res = res
	return ch, nil
}

// settle charges the actual credits (with the multiplier) and writes the ledger entry.
func (ch *charge) settle(ctx context.Context, requestID string, credits int) (int64, error) {
	n := ch.p.Plan.Charge(int64(credits), ch.noMultiplier)
	e := tenants.LedgerEntry{RequestID: requestID, KeyID: ch.p.Key.ID, Capability: ch.capability, Action: ch.action}
	// The upstream answer is already paid for: settle even if the client has gone away.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	charged, err := ch.s.store.Settle(ctx, ch.res, n, e)
	if err != nil {
		return 0, storeError(err)
	}
	ch.s.metrics.credits.WithLabelValues(ch.capability, ch.p.Key.Mode).Add(float64(charged))
	return charged, nil
}

// refund gives the reservation back after a failure.
func (ch *charge) refund(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := ch.s.store.Refund(ctx, ch.res); err != nil {
		ch.s.log.Error("refund failed", "tenant", ch.p.Tenant.ID, "capability", ch.capability, "credits", ch.res.Amount, "err", err)
	}
}

package gateway

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
)

// account answers GET /v1/account.
func (s *Server) account(c *fiber.Ctx) error {
	p := principalOf(c)
	ctx := c.UserContext()
	b, err := s.meter.Balance(ctx, p.Tenant, p.Plan, p.Key.Mode)
	if err != nil {
		return storeError(err)
	}
	stage, err := s.store.SharpenStage(ctx, p.Tenant.ID)
	if err != nil {
		return storeError(err)
	}
	out := accountResponse{Plan: p.Plan.ID, Status: p.Tenant.Status, Cadence: "monthly",
		Credits: accountCredits{Used: b.Used, Cap: b.Cap, Remaining: b.Remaining(), PeriodEnd: b.PeriodEnd,
			Mode: p.Key.Mode, CreditMultiplier: p.Plan.CreditMultiplier}}
	out.RateLimit.RequestsPerMinute = p.Plan.RatePerMinute
	out.Sharpen.Stage, out.Sharpen.MaxStage = stage, p.Plan.SharpenMax
	out.Key.ID, out.Key.Label, out.Key.Mode, out.Key.Prefix = p.Key.ID, p.Key.Label, p.Key.Mode, p.Key.Prefix
	out.Tenant.ID, out.Tenant.Name = p.Tenant.ID, p.Tenant.Name
	return c.JSON(out)
}

// healthz is liveness: the process answers.
func (s *Server) healthz(c *fiber.Ctx) error {
	return c.JSON(healthResponse{Status: "ok", Version: s.opts.Version})
}

// readyz is readiness: this instance can commit (the database answers, takes a write, and its
// migrations are current). Redis is not part of it: without Redis the instance serves with its
// documented fail-open limits (docs/operations.md).
func (s *Server) readyz(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), 3*time.Second)
	defer cancel()
	fail := func(what string, err error) error {
		s.log.Warn("not ready", "check", what, "err", err)
		s.metrics.ready.Set(0)
		return &Error{Code: providers.CodeServiceUnavailable, Message: "not ready: " + what}
	}
	if err := s.opts.DB.PingContext(ctx); err != nil {
		return fail("database unreachable", err)
	}
	pending, err := s.opts.DB.Pending(ctx)
	if err != nil {
		return fail("migration status unknown", err)
	}
	if pending {
		return fail("migrations pending", nil)
	}
	// Reachable is not enough: with a full disk every billed call fails while a ping succeeds.
	if err := s.opts.DB.ProbeWrite(ctx); err != nil {
		return fail("database writes failing", err)
	}
	if s.opts.Ready != nil {
		if err := s.opts.Ready(ctx); err != nil {
			return fail("dependency unavailable", err)
		}
	}
	s.metrics.ready.Set(1)
	return c.JSON(readyResponse{Status: "ready"})
}

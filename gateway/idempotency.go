package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

var idempotencyKeyPattern = regexp.MustCompile(`^[\x21-\x7e]{1,255}$`)

// requestHash identifies a request's content: method, path and body.
func requestHash(c *fiber.Ctx) string {
	h := sha256.New()
	h.Write([]byte(c.Method()))
	h.Write([]byte{0})
	h.Write([]byte(c.Path()))
	h.Write([]byte{0})
	h.Write(c.BodyRaw())
	return hex.EncodeToString(h.Sum(nil))
}

// idemScope is the key space of a principal's durable request ids: its tenant and its key's mode.
func idemScope(p *Principal, space string) tenants.IdemScope {
	return tenants.IdemScope{TenantID: p.Tenant.ID, Mode: p.Key.Mode, Space: space}
}

// claim outcomes of a durable request id.
type claim struct {
	fresh  bool                       // this request runs and its answer is stored
	replay *tenants.IdempotentRequest // the stored answer to send instead
}

// claimRequestID claims a durable request id: the first request runs; a repeat with the same
// content waits for the first to finish and replays its answer; different content is refused.
func (s *Server) claimRequestID(ctx context.Context, sc tenants.IdemScope, key, hash string) (claim, error) {
	if !idempotencyKeyPattern.MatchString(key) {
		return claim{}, &Error{Code: providers.CodeInvalidRequest, Message: "the idempotency key must be 1..255 printable ASCII characters",
			Violations: []providers.Violation{{Path: "", Message: "malformed Idempotency-Key or request_id"}}}
	}
	deadline := time.Now().Add(SharpenDeadline + 10*time.Second)
	prev, err := s.store.BeginIdempotent(ctx, sc, key, hash)
	for {
		if err != nil {
			return claim{}, storeError(err)
		}
		if prev == nil {
			return claim{fresh: true}, nil
		}
		if prev.RequestHash != hash {
			return claim{}, &Error{Code: providers.CodeInvalidRequest, Status: fiber.StatusConflict,
				Message: "this idempotency key was already used with a different request",
				Hint:    "use a new Idempotency-Key (or request_id) for a different request"}
		}
		if prev.State == tenants.IdemDone {
			return claim{replay: prev}, nil
		}
		if time.Now().After(deadline) {
			return claim{}, &Error{Code: providers.CodeServiceUnavailable, Message: "the first request with this idempotency key is still running; retry", RetryAfter: time.Second}
		}
		select {
		case <-ctx.Done():
			return claim{}, &Error{Code: providers.CodeServiceUnavailable, Message: "the request was cancelled", Cause: ctx.Err()}
		case <-time.After(50 * time.Millisecond):
		}
		// A waiter reads the claim: a claim attempt each round from every waiter (two writes)
		// kept SQLite's write lock so busy that the first request could not finish. Only a
		// claim that is gone (the first gave up) or expired is claimed again.
		prev, err = s.store.Idempotent(ctx, sc, key)
		if errors.Is(err, tenants.ErrNotFound) || (err == nil && prev.ExpiresAt.Before(tenants.Now())) {
			prev, err = s.store.BeginIdempotent(ctx, sc, key, hash)
		}
	}
}

// finishRequestID stores a successful answer for replays, or releases the claim so a retry runs
// again when the request did not succeed.
func (s *Server) finishRequestID(c *fiber.Ctx, sc tenants.IdemScope, key string, ok bool) {
	if ok {
		s.rememberAnswer(c, sc, key, c.Response().StatusCode(), string(c.Response().Header.ContentType()), string(c.Response().Body()))
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), 10*time.Second)
	defer cancel()
	if err := s.store.AbandonIdempotent(ctx, sc, key); err != nil {
		s.log.Error("idempotency store failed", "request_id", requestID(c), "err", err)
	}
}

// rememberAnswer stores the answer a durable request id replays.
func (s *Server) rememberAnswer(c *fiber.Ctx, sc tenants.IdemScope, key string, status int, contentType, body string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), 10*time.Second)
	defer cancel()
	if err := s.store.FinishIdempotent(ctx, sc, key, status, contentType, body); err != nil {
		s.log.Error("idempotency store failed", "request_id", requestID(c), "err", err)
	}
}

// idempotent serves Idempotency-Key on execute, follow-up and sharpen: a retried call within 24
// hours replays the first answer byte for byte and is not charged again.
func (s *Server) idempotent(c *fiber.Ctx) error {
	key := c.Get("Idempotency-Key")
	if key == "" {
		return c.Next()
	}
	sc := idemScope(principalOf(c), tenants.SpaceAPI)
	cl, err := s.claimRequestID(c.UserContext(), sc, key, requestHash(c))
	if err != nil {
		return err
	}
	if cl.replay != nil {
		c.Set("Idempotent-Replayed", "true")
		c.Set(fiber.HeaderContentType, cl.replay.ContentType)
		return c.Status(cl.replay.Status).SendString(cl.replay.Response)
	}
	err = c.Next()
	ok := err == nil && c.Response().StatusCode() < 300
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == providers.CodeInternal {
			ok = false
		}
	}
	s.finishRequestID(c, sc, key, ok)
	return err
}

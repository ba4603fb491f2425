package gateway

// Per-call ceiling and dry run (issue 34).
//
// Capgate-Max-Credits: N on a billed call (execute, a follow-up, sharpen; over /v1 or /mcp)
// refuses it before any upstream work, charging nothing, when its cost (what the pipeline
// reserves: the typical charge of the operation after the plan's multiplier, the same figure
// the quote answers on a miss) is above N. The refusal is credits_exhausted (HTTP 402, not
// retryable): the spec's code for "credits used up", here the caller's own ceiling for this one
// call, and its message and hint say so. A call let through is never charged more than N.
//
// POST /v1/capabilities/{id}/quote takes the execute body and answers what that execute would
// cost, whether the shared upstream cache would answer it (a hit is charged the plan's share),
// and which upstream provider would serve it, charging nothing and calling no upstream.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/gateway/sharedcache"
	"github.com/capgate/capgate/providers"
)

// MaxCreditsHeader is the per-call ceiling's request header.
const MaxCreditsHeader = "Capgate-Max-Credits"

// maxCreditsOf reads the ceiling: -1 when the header is absent.
func maxCreditsOf(c *fiber.Ctx) (int64, error) {
	v := c.Get(MaxCreditsHeader)
	if v == "" {
		return -1, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return 0, &Error{Code: providers.CodeInvalidRequest, Message: fmt.Sprintf("%s must be a whole number of credits, 0 or more, got %q", MaxCreditsHeader, clipHeader(v)),
			Violations: []providers.Violation{{Path: "/headers/" + MaxCreditsHeader, Message: "an integer >= 0"}}}
	}
	return n, nil
}

// overCeiling is the refusal of a call that costs more than the caller's ceiling.
func overCeiling(cost, ceiling int64) *Error {
	return &Error{Code: providers.CodeCreditsExhausted, Status: fiber.StatusPaymentRequired,
		Message: fmt.Sprintf("this call costs %d credits, above the %s: %d the request set; nothing was charged and no upstream was called", cost, MaxCreditsHeader, ceiling),
		Hint:    fmt.Sprintf("raise %s to at least %d, or ask POST /v1/capabilities/{id}/quote first", MaxCreditsHeader, cost)}
}

// quoteResponse is the answer of a dry run.
type quoteResponse struct {
	Capability      string      `json:"capability" doc:"the capability id"`
	Credits         int64       `json:"credits" min:"0" doc:"the credits the execute would charge now (after the plan's multiplier; a shared-cache hit is charged the plan's share)"`
	ChargedCredits  int64       `json:"charged_credits" min:"0" doc:"always 0: a quote charges nothing"`
	ServedFromCache bool        `json:"served_from_cache" doc:"true when the shared upstream cache holds an answer the execute would be given"`
	Cache           string      `json:"cache" enum:"hit,miss,bypass" doc:"what the shared cache would do: hit, miss (an upstream call) or bypass (not looked up)"`
	Upstream        string      `json:"upstream" doc:"the provider the execute would call first (on a hit, the one whose answer is cached)"`
	Providers       []string    `json:"providers" doc:"every provider the capability may use, in the order tried"`
	Balance         balanceJSON `json:"balance" doc:"the caller's balance now (unchanged by the quote)"`
	KeyBudget       *int64      `json:"key_credit_budget,omitempty" doc:"the calling key's own credit budget per period, when it has one"`
}

// quote answers POST /v1/capabilities/{id}/quote.
func (s *Server) quote(c *fiber.Ctx) error {
	cp, err := s.capabilityFor(c, c.Params("id"))
	if err != nil {
		return err
	}
	req, err := providers.DecodeBody(c.BodyRaw())
	if err != nil {
		return err
	}
	if req, err = cp.Prepare(req, nil); err != nil {
		return err
	}
	p := principalOf(c)
	if err := s.admit(p, cp, true); err != nil {
		return err
	}
	cc, err := cacheControlOf(c)
	if err != nil {
		return err
	}
	out := quoteResponse{Capability: cp.ID, Cache: cacheBypass.String(), Providers: append([]string{}, cp.Providers...)}
	if len(cp.Providers) > 0 {
		out.Upstream = cp.Providers[0]
	}
	meta := pageMeta{credits: cp.Cost.Typical, status: cacheBypass}
	if s.upcache != nil && !cc.noStore && !cc.bypass && s.opts.Client.Shareable(cp) {
		meta.status = cacheMiss
		if !cc.noCache {
			query, _ := json.Marshal(req)
			e, o := s.upcache.Get(c.UserContext(), s.cacheKey(cp, p.Mode(), query, nil), cc.maxAge)
			if o == sharedcache.Hit {
				if snap, err := decodeSnapshot(e.Value); err == nil {
					meta = snap.meta(s, cp, cacheHit, e.Age)
				}
			}
		}
	}
	out.Cache = meta.status.String()
	out.ServedFromCache = meta.status == cacheHit
	out.Credits = p.Plan.Charge(int64(pageCharge(p, meta)), cp.Cost.NoMultiplier)
	bal, err := s.meter.Balance(c.UserContext(), p.Tenant, p.Plan, p.Key.Mode)
	if err != nil {
		return storeError(err)
	}
	end := bal.PeriodEnd
	out.Balance = balanceJSON{Used: bal.Used, Cap: bal.Cap, PeriodEnd: &end}
	if p.Key.CreditBudget > 0 {
		b := p.Key.CreditBudget
		out.KeyBudget = &b
	}
	return c.JSON(out)
}

// clipHeader shortens a header value quoted in an error.
func clipHeader(v string) string {
	if len(v) > 40 {
		return v[:40] + "…"
	}
	return v
}

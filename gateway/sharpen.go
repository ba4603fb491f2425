package gateway

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
)

// SharpenDeadline bounds a whole sharpen call (issue: 60 s).
const SharpenDeadline = 60 * time.Second

// maxReviewChars bounds one review's text.
const maxReviewChars = 12000

// Reviewers is sharpen's panel of model vendors. The gateway routes, bills and words the prompt;
// the panel knows the vendors, their models per tier and which models a vendor has retired. cmd
// binds providers/upstream/reviewers.NewPanel; nil means no reviewer is available.
type Reviewers interface {
	// Families are the reviewer families' provider ids in routing preference order.
	Families() []string
	// Model is the family's model at the tier, "" when the family does not review at it.
	Model(family, tier string) string
	// Review asks the family's model for a review of the prompt through the upstream; live tells
	// a live key's call from a test key's.
	Review(ctx context.Context, up *providers.Upstream, family, model string, prompt providers.ReviewPrompt, live bool) (string, error)
	// IsRetired tells whether the family's last live call at the tier was the vendor's "no such
	// model" answer (the capgate_reviewer_model_retired gauge).
	IsRetired(family, tier string) bool
}

// The sharpen tiers, in order.
const (
	tierSharpen = "sharpen"
	tierPlus    = "plus"
	tierUltra   = "ultra"
	tierUltra2x = "ultra2x"
)

var sharpenTiers = []string{tierSharpen, tierPlus, tierUltra, tierUltra2x}

// Vendor labels of caller_provider (DESIGN.md section 4).
var vendorLabels = []string{"openai", "anthropic", "google", "xai", "mistral", "deepseek", "meta", "other"}

const sharpenSchemaSrc = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["task", "draft", "caller_provider"],
  "properties": {
    "task": {"type": "string", "minLength": 1, "description": "what the user asked"},
    "context": {"type": "string", "description": "facts and constraints for the reviewer"},
    "approach": {"type": "string", "description": "how the draft was produced"},
    "draft": {"type": "string", "minLength": 1, "description": "the answer to review"},
    "caller_provider": {"type": "string", "enum": ["openai", "anthropic", "google", "xai", "mistral", "deepseek", "meta", "other"], "description": "model-vendor label of the caller; the reviewer comes from another family"},
    "stage": {"type": "string", "enum": ["stage1", "stage2", "stage3", "stage3+"], "description": "per-call stage (stage1 sharpen, stage2 plus, stage3 ultra, stage3+ ultra2x); never changes the saved setting"}
  }
}`

var sharpenSchema = providers.MustCompileSchema("sharpen", sharpenSchemaSrc)

const reviewerSystemPrompt = `You are an independent reviewer giving a second opinion on a draft answer that another AI model wrote.
Check the draft critically against the task and the context:
- factual errors and wrong reasoning;
- claims the context does not support or that cannot be verified;
- omissions that matter for the task, and places where the draft does not answer what was asked;
- for each point: locate the passage, say why it is a problem, and propose a concrete fix.
Do not rewrite the draft in your own voice and do not write a replacement answer. If the draft is sound, say so briefly and name the residual risks.
Be concise: at most about 500 words, as a numbered list.`

const sharpenInstruction = "These are independent reviews of your draft by a model of another vendor. Treat them as critique, not as an answer: " +
	"check each point against the task and your sources, keep only what you can confirm, revise the draft yourself and do not copy a reviewer's wording. " +
	"Where two reviewers disagree, prefer the point whose reasoning you can verify. If a review finds nothing, do not invent changes."

// SharpenRoute is which reviewer families a call uses, in order.
type SharpenRoute struct {
	// Reviewers run concurrently (two for ultra2x, one otherwise).
	Reviewers []string
	// Fallbacks are tried in order when a single reviewer fails.
	Fallbacks []string
	Note      string
}

// RouteSharpen picks reviewers of families other than the caller's; only when none is available
// does it use the caller's family, and then it says so. available is in preference order.
func RouteSharpen(tier, caller string, available []string) (SharpenRoute, error) {
	var others []string
	same := false
	for _, f := range available {
		if f == caller {
			same = true
		} else {
			others = append(others, f)
		}
	}
	sameNote := fmt.Sprintf("no reviewer outside the caller's family (%s) is available; the review comes from the same family", caller)
	if tier != tierUltra2x {
		switch {
		case len(others) > 0:
			return SharpenRoute{Reviewers: others[:1], Fallbacks: others[1:]}, nil
		case same:
			return SharpenRoute{Reviewers: []string{caller}, Note: sameNote}, nil
		}
		return SharpenRoute{}, &Error{Code: providers.CodeSharpenNoReviewer, Message: "no reviewer is available in this deployment"}
	}
	switch {
	case len(others) >= 2:
		return SharpenRoute{Reviewers: others[:2], Fallbacks: others[2:]}, nil
	case len(others) == 1 && same:
		return SharpenRoute{Reviewers: []string{others[0], caller},
			Note: fmt.Sprintf("only one reviewer family outside the caller's (%s) is available; the second review comes from the caller's family", caller)}, nil
	case len(others) == 1:
		return SharpenRoute{Reviewers: others, Note: "only one reviewer family is available; ultra2x ran one reviewer"}, nil
	case same:
		return SharpenRoute{Reviewers: []string{caller}, Note: sameNote + "; ultra2x ran one reviewer"}, nil
	}
	return SharpenRoute{}, &Error{Code: providers.CodeSharpenNoReviewer, Message: "no reviewer is available in this deployment"}
}

// reviewerFamilies are the panel's families in routing preference order (none without a panel).
func (s *Server) reviewerFamilies() []string {
	if s.opts.Reviewers == nil {
		return nil
	}
	return s.opts.Reviewers.Families()
}

// availableReviewers are the families that can review at the tier: configured (or sandboxed for
// test keys) and with a model for the tier (an opt-in family only where the operator set one).
func (s *Server) availableReviewers(mode providers.Mode, tier string) []string {
	var out []string
	for _, id := range s.reviewerFamilies() {
		if _, ok := s.opts.Client.Provider(id); !ok || s.opts.Reviewers.Model(id, tier) == "" {
			continue
		}
		if s.opts.Client.Upstream(id, mode).Available() {
			out = append(out, id)
		}
	}
	return out
}

// sharpenStage resolves the stage of a call: a per-call stage needs sharpen enabled (a saved
// stage other than stock) and allowed by the plan; omitted, the saved stage is used.
func (s *Server) sharpenStage(c *fiber.Ctx, p *Principal, requested string) (string, error) {
	if !p.sharpenInScope() {
		return "", outOfScope(p, "sharpen")
	}
	saved, err := s.store.SharpenStage(c.UserContext(), p.Tenant.ID)
	if err != nil {
		return "", storeError(err)
	}
	if saved == "stock" {
		return "", &Error{Code: providers.CodeCapabilityDisabled, Message: "sharpen is disabled for this account (saved stage stock)",
			Hint: "choose a sharpen stage in the console; a per-call stage needs sharpen enabled"}
	}
	stage := saved
	if requested != "" {
		stage = requested
	}
	if !p.Plan.AllowsStage(stage) {
		return "", &Error{Code: providers.CodeCapabilityDisabled, Message: fmt.Sprintf("sharpen %s is above the %s plan's highest stage (%s)", stage, p.Plan.ID, p.Plan.SharpenMax)}
	}
	return stage, nil
}

func sharpenPrompt(req providers.Request) providers.ReviewPrompt {
	orNone := func(v, none string) string {
		if strings.TrimSpace(v) == "" {
			return none
		}
		return v
	}
	user := "## Task\n" + req.Str("task") +
		"\n\n## Context\n" + orNone(req.Str("context"), "(none given)") +
		"\n\n## How the draft was produced\n" + orNone(req.Str("approach"), "(not stated)") +
		"\n\n## Draft to review\n" + req.Str("draft") + "\n"
	return providers.ReviewPrompt{System: reviewerSystemPrompt, User: user, MaxTokens: 1500}
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// sharpen answers POST /v1/sharpen.
func (s *Server) sharpen(c *fiber.Ctx) error {
	req, err := providers.DecodeBody(c.BodyRaw())
	if err != nil {
		return err
	}
	if vs := sharpenSchema.Validate(map[string]any(req)); len(vs) > 0 {
		msg := "the sharpen request is invalid; see violations"
		if len(vs) == 1 {
			msg = vs[0].Path + ": " + vs[0].Message
		}
		return providers.Invalid(msg, vs...)
	}
	for _, f := range []string{"task", "draft"} {
		if strings.TrimSpace(req.Str(f)) == "" {
			return providers.InvalidField("/"+f, f+" must not be blank")
		}
	}
	p := principalOf(c)
	c.Locals("capability", "sharpen")
	stage, err := s.sharpenStage(c, p, req.Str("stage"))
	if err != nil {
		return err
	}
	tier := stageTier[stage]
	route, err := RouteSharpen(tier, req.Str("caller_provider"), s.availableReviewers(p.Mode(), tier))
	if err != nil {
		return err
	}
	perReview := TierCredits[tier]
	if tier == tierUltra2x {
		perReview = TierCredits[tier] / 2
	}
	prompt := sharpenPrompt(req)
	b := billed{capability: "sharpen", action: tier, credits: perReview * len(route.Reviewers), deadline: SharpenDeadline}
	return s.bill(c, p, b, func(ctx context.Context) (*outcome, error) {
		results := make([]*sharpenReview, len(route.Reviewers))
		errs := make([]error, len(route.Reviewers))
		var fan providers.FanOut
		for i, fam := range route.Reviewers {
			candidates := []string{fam}
			if len(route.Reviewers) == 1 {
				candidates = append(candidates, route.Fallbacks...)
			}
			fan.Go(func() {
				results[i], errs[i] = reviewWith(s, ctx, p.Mode(), tier, candidates, prompt)
			})
		}
		if err := fan.Wait(); err != nil {
			return nil, err
		}
		out := sharpenResponse{Tier: tier, Stage: stage, Instruction: sharpenInstruction, RoutingNote: route.Note, Reviews: []sharpenReview{}}
		var firstErr error
		for i, r := range results {
			if r != nil {
				out.Reviews = append(out.Reviews, *r)
			} else if firstErr == nil {
				firstErr = errs[i]
			}
		}
		if len(out.Reviews) == 0 {
			if e, ok := providers.AsError(firstErr); ok {
				return nil, e
			}
			return nil, &Error{Code: providers.CodeSharpenNoReviewer, Message: "no reviewer answered", Cause: firstErr}
		}
		out.Partial = tier == tierUltra2x && len(out.Reviews) < 2
		if out.Partial && firstErr != nil {
			s.log.Warn("sharpen reviewer failed", "request_id", requestID(c), "err", firstErr)
			note := "one of the two reviewers failed; the answer holds the review that came back"
			if out.RoutingNote != "" {
				note = out.RoutingNote + "; " + note
			}
			out.RoutingNote = note
		}
		return &outcome{credits: perReview * len(out.Reviews), render: func(c *fiber.Ctx, charged int64, bal balanceJSON) error {
			out.ChargedCredits, out.Balance = charged, bal
			return c.JSON(out)
		}}, nil
	})
}

// reviewWith is the review a sharpen fan-out runs (a test swaps in one that panics).
var reviewWith = (*Server).review

// review asks the candidates in order until one answers.
func (s *Server) review(ctx context.Context, mode providers.Mode, tier string, candidates []string, prompt providers.ReviewPrompt) (*sharpenReview, error) {
	prompt.Tier = tier // the reviewer's thinking allowance and the model setting its errors name
	var lastErr error
	for _, id := range candidates {
		if ctx.Err() != nil {
			break
		}
		model := s.opts.Reviewers.Model(id, tier)
		text, err := s.opts.Reviewers.Review(ctx, s.opts.Client.Upstream(id, mode), id, model, prompt, mode == providers.ModeLive)
		if err != nil {
			lastErr = err
			s.log.Warn("reviewer failed", "family", id, "model", model, "err", err)
			continue
		}
		r := &sharpenReview{Review: truncateRunes(strings.TrimSpace(text), maxReviewChars)}
		r.Reviewer.Family, r.Reviewer.Model = id, model
		return r, nil
	}
	if lastErr == nil {
		lastErr = &Error{Code: providers.CodeProviderTimeout, Message: "the reviewer did not answer within the sharpen deadline"}
	}
	return nil, lastErr
}

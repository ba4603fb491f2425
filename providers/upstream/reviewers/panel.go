package reviewers

import (
	"context"

	"github.com/capgate/capgate/providers"
)

// Panel is the reviewer families as the gateway's sharpen uses them (gateway.Reviewers, bound in
// cmd): the deployment's model overrides (SHARPEN_MODEL_<FAMILY>_<TIER>) and the watch of retired
// models that live calls feed. Safe for concurrent use.
type Panel struct {
	overrides map[string]map[string]string
	families  []*Family
	watch     *Watch
}

// NewPanel is the panel of every family with the overrides (family → tier → model).
func NewPanel(overrides map[string]map[string]string) *Panel {
	return &Panel{overrides: overrides, families: Families(), watch: NewWatch()}
}

// Families are the families' provider ids in routing preference order.
func (p *Panel) Families() []string {
	ids := make([]string, len(p.families))
	for i, f := range p.families {
		ids[i] = f.ID
	}
	return ids
}

// Tiers are the sharpen tiers in order.
func (p *Panel) Tiers() []string { return Tiers }

func (p *Panel) family(id string) *Family {
	for _, f := range p.families {
		if f.ID == id {
			return f
		}
	}
	return nil
}

// Model is the family's model at the tier; "" when the family is unknown or does not review at
// the tier (an opt-in family without an operator's model).
func (p *Panel) Model(family, tier string) string {
	if f := p.family(family); f != nil {
		return f.ModelFor(tier, p.overrides)
	}
	return ""
}

// Review asks the family's model for a review. A live call (live true) feeds the watch of
// retired models; test-mode calls answer from the sandbox and say nothing about the vendor's.
func (p *Panel) Review(ctx context.Context, u *providers.Upstream, family, model string, pr providers.ReviewPrompt, live bool) (string, error) {
	f := p.family(family)
	if f == nil {
		return "", &providers.Error{Code: providers.CodeSharpenNoReviewer, Message: "unknown reviewer family " + family}
	}
	text, err := f.Review(ctx, u, model, pr)
	if live {
		p.watch.Record(family, promptTier(pr), err)
	}
	return text, err
}

// IsRetired tells whether the family's last live call at the tier was the vendor's "no such
// model" answer.
func (p *Panel) IsRetired(family, tier string) bool { return p.watch.IsRetired(family, tier) }

// Retired lists the families and tiers whose last live call was "no such model" (the admin
// console's warning).
func (p *Panel) Retired() []Retired { return p.watch.Retired() }

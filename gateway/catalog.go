package gateway

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// Sharpen tiers by stage (spec 2.8) and their typical credits.
var stageTier = map[string]string{"stage1": "sharpen", "stage2": "plus", "stage3": "ultra", "stage3+": "ultra2x"}

// TierCredits are the typical credits of each sharpen tier.
var TierCredits = map[string]int{"sharpen": 5, "plus": 15, "ultra": 40, "ultra2x": 80}

const catalogInstructions = "Call POST /v1/capabilities/{id}/execute with the typed body shown by the capability's inspect_url. " +
	"Every response carries charged_credits and balance. While has_more is true, POST /v1/follow-up {search_id, action: \"more\"} " +
	"fetches the next page (a page may be empty while has_more stays true; stop after a bounded number of pages). " +
	"{search_id, action: \"update\", params} changes the query and keeps the search_id. {record_id, action} runs a record action " +
	"listed in record_actions (for example details). next.example is always a follow-up body that is valid right now. " +
	"Errors use {error: {code, message, retryable, hint, violations, requestId}}; retry only when retryable is true, after Retry-After when given. " +
	"GET /v1/guide is the full guide in Markdown."

// sharpenObject is the catalog's sharpen object for a tenant: its saved stage and what the plan allows.
func (s *Server) sharpenObject(c *fiber.Ctx, p *Principal) (catalogSharpen, error) {
	saved, err := s.store.SharpenStage(c.UserContext(), p.Tenant.ID)
	if err != nil {
		return catalogSharpen{}, storeError(err)
	}
	out := catalogSharpen{URL: "/v1/sharpen", Stage: saved}
	for _, st := range tenants.SharpenStages[1:] {
		if p.Plan.AllowsStage(st) {
			out.Stages = append(out.Stages, stageTierJSON{Stage: st, Tier: stageTier[st]})
		}
	}
	tier, ok := stageTier[saved]
	out.Enabled = ok && p.Plan.AllowsStage(saved) && p.sharpenInScope()
	if !ok {
		tier = "sharpen" // the tier stage1 would use once sharpen is switched on
	}
	out.Tier = tier
	out.TypicalCredits = TierCredits[tier]
	return out, nil
}

// catalog answers GET /v1/catalog.
func (s *Server) catalog(c *fiber.Ctx) error {
	p := principalOf(c)
	out := catalogResponse{Capabilities: make([]catalogCapability, 0, len(s.order)), Instructions: catalogInstructions}
	for _, cp := range s.order {
		ok, why := s.available(cp, p.Mode())
		cc := catalogCapability{
			ID: cp.ID, Title: cp.Title, Summary: cp.Summary, Topic: cp.Topic,
			Enabled: p.Plan.Enables(cp.ID, cp.Cost.Typical), Available: ok, UnavailableReason: why,
			TypicalCredits: cp.Cost.Typical, InspectURL: "/v1/capabilities/" + cp.ID,
		}
		if cc.Enabled && !p.InScope(cp) {
			cc.Enabled, cc.DisabledReason = false, scopeReason(p)
		}
		out.Capabilities = append(out.Capabilities, cc)
	}
	sh, err := s.sharpenObject(c, p)
	if err != nil {
		return err
	}
	out.Sharpen = sh
	return c.JSON(out)
}

// Inspect describes a capability from its declaration.
func Inspect(cp *providers.Capability, available bool, why string) InspectResponse {
	out := InspectResponse{ID: cp.ID, Title: cp.Title, Description: cp.Description, Available: available, UnavailableReason: why,
		Execute:   inspectExecute{Method: "POST", URL: "/v1/capabilities/" + cp.ID + "/execute", BodySchema: cp.Schema().Doc},
		FollowUps: []followUpDescriptor{}, Examples: cp.Examples,
		Cost: inspectCost{TypicalCredits: cp.Cost.Typical, Basis: cp.Cost.Basis}}
	if out.Examples == nil {
		out.Examples = []providers.Example{}
	}
	for _, f := range cp.FollowUps() {
		d := followUpDescriptor{Action: f.Action, Scope: f.Scope, Description: f.Description}
		if f.Action == "update" {
			d.ParamsSchema = UpdateParamsSchema(cp)
		}
		out.FollowUps = append(out.FollowUps, d)
	}
	return out
}

// UpdateParamsSchema is the request schema with nothing required: any subset of the fields.
func UpdateParamsSchema(cp *providers.Capability) map[string]any {
	var doc map[string]any
	b, _ := json.Marshal(cp.Schema().Doc)
	_ = json.Unmarshal(b, &doc)
	delete(doc, "required")
	delete(doc, "$schema")
	delete(doc, "oneOf")
	delete(doc, "anyOf")
	delete(doc, "allOf")
	doc["description"] = "any subset of the request fields; null removes a field"
	if props, ok := doc["properties"].(map[string]any); ok {
		for _, v := range props {
			if m, ok := v.(map[string]any); ok {
				delete(m, "default")
			}
		}
	}
	return doc
}

// inspect answers GET /v1/capabilities/{id}.
func (s *Server) inspect(c *fiber.Ctx) error {
	cp, err := s.capabilityFor(c, c.Params("id"))
	if err != nil {
		return err
	}
	ok, why := s.available(cp, principalOf(c).Mode())
	return c.JSON(Inspect(cp, ok, why))
}

package console

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// modeOf is the key mode a mode-dependent page shows (?mode=test, live otherwise).
func modeOf(c *fiber.Ctx) string {
	if c.Query("mode") == tenants.ModeTest {
		return tenants.ModeTest
	}
	return tenants.ModeLive
}

// available tells whether the capability can run for keys of the mode, and why not in words:
// test keys need each provider's sandbox, live keys its configuration.
func (cn *Console) available(cp *providers.Capability, mode string) (bool, string) {
	for _, id := range cp.Providers {
		if mode == tenants.ModeTest {
			if p, ok := cn.opts.Client.Provider(id); !ok || p.Sandbox == nil {
				return false, fmt.Sprintf("provider %s has no sandbox for test keys", id)
			}
			continue
		}
		if ok, why := cn.opts.Client.Configured(id); !ok {
			return false, why
		}
	}
	return true, ""
}

func (cn *Console) catalogRow(cp *providers.Capability, v *viewer, mode string) views.CatalogRow {
	ok, why := cn.available(cp, mode)
	if !ok && v.user.Role != tenants.RoleAdmin {
		// The operator's setting names mean nothing to a tenant; admins get them (and the
		// going-live card on the overview).
		why = "not available in this deployment"
	}
	return views.CatalogRow{ID: cp.ID, Title: cp.Title, Summary: cp.Summary, Topic: cp.Topic, Enabled: v.plan.Enables(cp.ID, cp.Cost.Typical),
		Available: ok, Reason: why, TypicalCredits: cp.Cost.Typical}
}

func yesNo(filter string, v bool) bool {
	return filter == "" || (filter == "yes") == v
}

func (cn *Console) catalog(c *fiber.Ctx) error {
	v := viewerOf(c)
	mode := modeOf(c)
	cat := views.Catalog{Mode: views.ModeView{Path: "/console/catalog", Mode: mode}, Q: strings.TrimSpace(c.Query("q")), Topic: c.Query("topic"),
		Enabled: c.Query("enabled"), Available: c.Query("available"), Total: len(cn.opts.Capabilities)}
	topics := map[string]bool{}
	q := strings.ToLower(cat.Q)
	for _, cp := range cn.opts.Capabilities {
		topics[cp.Topic] = true
		r := cn.catalogRow(cp, v, mode)
		if q != "" && !strings.Contains(strings.ToLower(cp.ID+" "+cp.Title+" "+cp.Summary), q) {
			continue
		}
		if (cat.Topic != "" && cp.Topic != cat.Topic) || !yesNo(cat.Enabled, r.Enabled) || !yesNo(cat.Available, r.Available) {
			continue
		}
		cat.Rows = append(cat.Rows, r)
	}
	cat.Topics = sortedKeys(topics)
	return cn.page(c, "Catalog", "catalog", views.CatalogPage(cat))
}

// capabilityPage shows one capability: its reference (the same as /docs), the "Run in test
// mode" form and its examples as curl commands for the selected mode.
func (cn *Console) capabilityPage(c *fiber.Ctx) error {
	cp := cn.capabilityByID(c.Params("id"))
	if cp == nil {
		return cn.notFound(c)
	}
	d := cn.capabilityDetail(c, cp, modeOf(c))
	d.Run.Inputs = runInputs(d.Ref.Fields, exampleBody(cp), nil)
	return cn.page(c, cp.ID, "catalog", views.CapabilityPage(d))
}

func (cn *Console) capabilityDetail(c *fiber.Ctx, cp *providers.Capability, mode string) views.CapabilityDetail {
	v := viewerOf(c)
	d := views.CapabilityDetail{CatalogRow: cn.catalogRow(cp, v, mode), Mode: views.ModeView{Path: "/console/catalog/" + cp.ID, Mode: mode},
		Ref: cn.reference(c.UserContext(), cp), Run: views.RunForm{CSRF: v.session.CSRF}}
	for _, ex := range cp.Examples {
		body, _ := json.MarshalIndent(ex.Body, "", "  ")
		compact, _ := json.Marshal(ex.Body)
		d.Examples = append(d.Examples, views.Example{Title: ex.Title, Body: string(body), Curl: curlCommand(c.BaseURL(), cp.ID, mode, string(compact))})
	}
	switch ok, _ := cn.available(cp, tenants.ModeTest); {
	case cn.opts.TestCalls == nil:
		d.Run.Blocked = "Test runs are not available in this deployment."
	case !d.Enabled:
		d.Run.Blocked = "This capability is not on your plan, so it cannot be run."
	case !ok:
		d.Run.Blocked = "This capability has no test mode in this deployment."
	}
	return d
}

var pagingWords = map[providers.Paging]string{
	providers.PagingPage:   "pages from the provider (more fetches the next page)",
	providers.PagingOffset: "offsets at the provider (more fetches the next page)",
	providers.PagingToken:  "the provider's cursor (more fetches the next page)",
	providers.PagingLocal:  "the whole result is held; more pages through it free",
	providers.PagingSingle: "one answer; more is refused",
}

// curlCommand is the execute call of an example, for a key of the mode in an environment variable.
func curlCommand(base, id, mode, body string) string {
	key := "$CAPGATE_LIVE_KEY"
	if mode == tenants.ModeTest {
		key = "$CAPGATE_TEST_KEY"
	}
	return fmt.Sprintf("curl -s -H \"Authorization: Bearer %s\" -H 'Content-Type: application/json' \\\n  -d '%s' \\\n  %s/v1/capabilities/%s/execute",
		key, strings.ReplaceAll(body, "'", `'\''`), base, id)
}

// requestFields reads the top-level properties of a request schema.
func requestFields(doc map[string]any) []views.Field {
	props, _ := doc["properties"].(map[string]any)
	required := map[string]bool{}
	if rs, ok := doc["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	out := make([]views.Field, 0, len(props))
	for name, raw := range props {
		p, _ := raw.(map[string]any)
		f := views.Field{Name: name, Type: schemaType(p), Required: required[name], Schema: p}
		if d, ok := p["default"]; ok {
			b, _ := json.Marshal(d)
			f.Default = string(b)
		}
		desc, _ := p["description"].(string)
		f.DescriptionHTML = renderInline(desc)
		f.Limits = limits(p)
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Required != out[j].Required {
			return out[i].Required
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func schemaType(p map[string]any) string {
	switch t := p["type"].(type) {
	case string:
		if t == "array" {
			if items, ok := p["items"].(map[string]any); ok {
				return "array of " + schemaType(items)
			}
		}
		return t
	case []any:
		var parts []string
		for _, x := range t {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, " or ")
	}
	if _, ok := p["enum"]; ok {
		return "enum"
	}
	return "any"
}

// limits says a property's bounds in words.
func limits(p map[string]any) string {
	var parts []string
	words := []struct{ key, say string }{
		{"minimum", "≥ %v"}, {"maximum", "≤ %v"}, {"exclusiveMinimum", "> %v"}, {"exclusiveMaximum", "< %v"},
		{"minLength", "at least %v characters"}, {"maxLength", "at most %v characters"},
		{"minItems", "at least %v items"}, {"maxItems", "at most %v items"}, {"pattern", "matches %v"}, {"format", "format %v"},
	}
	for _, w := range words {
		v, ok := p[w.key]
		switch {
		case !ok:
		case w.key == "minLength" && fmt.Sprint(v) == "1":
			parts = append(parts, "not empty")
		case w.key == "pattern" && v == `\S`:
			parts = append(parts, "not blank")
		default:
			parts = append(parts, fmt.Sprintf(w.say, v))
		}
	}
	enum, _ := p["enum"].([]any)
	if items, ok := p["items"].(map[string]any); ok && enum == nil {
		enum, _ = items["enum"].([]any)
	}
	if len(enum) > 0 {
		var vs []string
		for _, e := range enum {
			vs = append(vs, fmt.Sprint(e))
		}
		parts = append(parts, "one of "+strings.Join(vs, ", "))
	}
	return strings.Join(parts, "; ")
}

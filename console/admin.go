package console

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

func (cn *Console) planNames(ctx context.Context) ([]string, error) {
	ps, err := cn.store.Plans(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(ps))
	for _, p := range ps {
		names = append(names, p.ID)
	}
	return names, nil
}

func (cn *Console) tenants(c *fiber.Ctx) error {
	return cn.tenantsPage(c, fiber.StatusOK, views.TenantForm{})
}

// tenantsPage renders the tenants with the create form (refilled, with its messages, when refused).
func (cn *Console) tenantsPage(c *fiber.Ctx, status int, form views.TenantForm) error {
	ctx := c.UserContext()
	q := strings.TrimSpace(c.Query("q"))
	ts, err := cn.store.Tenants(ctx, q, 200, 0)
	if err != nil {
		return err
	}
	plans, err := cn.planNames(ctx)
	if err != nil {
		return err
	}
	rows := make([]views.TenantRow, 0, len(ts))
	for _, t := range ts {
		rows = append(rows, views.TenantRow{ID: t.ID, Name: t.Name, Email: t.Email, Plan: t.PlanID, Status: t.Status, Created: t.CreatedAt})
	}
	nav := viewerOf(c).nav("tenants")
	nav.Flash, nav.Error = cn.takeFlash(c)
	return render(c, status, views.Layout("Tenants", nav, views.TenantsPage(nav, rows, plans, q, form)))
}

func (cn *Console) createTenant(c *fiber.Ctx) error {
	form := views.TenantForm{Name: strings.TrimSpace(c.FormValue("name")), Email: strings.TrimSpace(c.FormValue("email")), Plan: c.FormValue("plan")}
	t, err := cn.store.CreateTenant(c.UserContext(), form.Name, form.Plan, form.Email)
	if err != nil {
		form.Errors = fieldOf(err, map[string]string{"tenant name": "name", "unknown plan": "plan", "email": "email"})
		return cn.tenantsPage(c, fiber.StatusUnprocessableEntity, form)
	}
	cn.record(c, auditTenantCreate, t.ID, nil, tenantState(t))
	return back(c, "/console/admin/tenants", "Tenant "+t.Name+" created.", nil)
}

// fieldOf places a store's validation message beside the field it names (by the message's
// opening words); any other message is the form's.
func fieldOf(err error, fields map[string]string) views.FieldErrors {
	msg := err.Error()
	for prefix, field := range fields {
		if strings.HasPrefix(msg, prefix) {
			return views.FieldErrors{field: msg}
		}
	}
	return views.FieldErrors{"": msg}
}

func (cn *Console) setTenantPlan(c *fiber.Ctx) error {
	ctx := c.UserContext()
	before, err := cn.store.Tenant(ctx, c.Params("id"))
	if errors.Is(err, tenants.ErrNotFound) {
		return cn.notFound(c)
	}
	if err != nil {
		return err
	}
	after, err := cn.store.SetPlan(ctx, before.ID, c.FormValue("plan"))
	if err != nil {
		return back(c, "/console/admin/tenants", "", err)
	}
	cn.opts.AccessChanged()
	cn.record(c, auditTenantPlan, after.ID, state{"plan": before.PlanID}, state{"plan": after.PlanID})
	return back(c, "/console/admin/tenants", "Plan changed.", nil)
}

func (cn *Console) setTenantStatus(c *fiber.Ctx) error {
	ctx := c.UserContext()
	before, err := cn.store.Tenant(ctx, c.Params("id"))
	if errors.Is(err, tenants.ErrNotFound) {
		return cn.notFound(c)
	}
	if err != nil {
		return err
	}
	after, err := cn.store.SetStatus(ctx, before.ID, c.FormValue("status"))
	if err != nil {
		return back(c, "/console/admin/tenants", "", err)
	}
	cn.opts.AccessChanged()
	cn.record(c, auditTenantStatus, after.ID, state{"status": before.Status}, state{"status": after.Status})
	return back(c, "/console/admin/tenants", "Tenant "+after.Status+".", nil)
}

func planRow(p *tenants.Plan) views.PlanRow {
	return views.PlanRow{Name: p.ID, Cap: strconv.FormatInt(p.CreditCap, 10), Rate: strconv.Itoa(p.RatePerMinute),
		Multiplier: strconv.FormatFloat(p.CreditMultiplier, 'f', -1, 64), Capabilities: p.Capabilities, SharpenMax: p.SharpenMax,
		Projects: strconv.Itoa(p.ProjectLimit), Items: strconv.Itoa(p.ItemLimit)}
}

func (cn *Console) plans(c *fiber.Ctx) error {
	return cn.plansPage(c, fiber.StatusOK, views.Plans{New: newPlan}, nil)
}

// newPlan is what the create form starts from.
var newPlan = views.PlanRow{Cap: "1000", Rate: "60", Multiplier: "1", Capabilities: "all", SharpenMax: "stock", Projects: "10", Items: "500"}

// plansPage renders every plan's form and the new-plan form; refused is the submitted form
// that was refused (its values replace the stored ones).
func (cn *Console) plansPage(c *fiber.Ctx, status int, page views.Plans, refused *views.PlanRow) error {
	ps, err := cn.store.Plans(c.UserContext())
	if err != nil {
		return err
	}
	for i := range ps {
		row := planRow(&ps[i])
		if refused != nil && page.Form == row.Name {
			row = *refused
		}
		page.Rows = append(page.Rows, row)
	}
	page.Pickable = cn.pickable()
	nav := viewerOf(c).nav("plans")
	nav.Flash, nav.Error = cn.takeFlash(c)
	return render(c, status, views.Layout("Plans", nav, views.PlansPage(nav, page)))
}

var planFields = map[string]string{"plan name": "name", "credit cap": "cap", "rate": "rate", "multiplier": "multiplier",
	"sharpen": "sharpen_max", "capabilities": "capabilities", "project": "projects", "item": "items"}

// planForm reads a plan's fields from the form into p; the errors are by field.
func planForm(c *fiber.Ctx, p *tenants.Plan) (views.PlanRow, views.FieldErrors) {
	row := views.PlanRow{Name: p.ID, Cap: strings.TrimSpace(c.FormValue("cap")), Rate: strings.TrimSpace(c.FormValue("rate")),
		Multiplier: strings.TrimSpace(c.FormValue("multiplier")), Capabilities: planCapabilities(c),
		SharpenMax: c.FormValue("sharpen_max"), Projects: strings.TrimSpace(c.FormValue("projects")), Items: strings.TrimSpace(c.FormValue("items"))}
	errs := views.FieldErrors{}
	var err error
	if p.CreditCap, err = strconv.ParseInt(row.Cap, 10, 64); err != nil {
		errs["cap"] = "a whole number of credits"
	}
	if p.RatePerMinute, err = strconv.Atoi(row.Rate); err != nil {
		errs["rate"] = "a whole number of requests"
	}
	if p.CreditMultiplier, err = strconv.ParseFloat(row.Multiplier, 64); err != nil || math.IsNaN(p.CreditMultiplier) || math.IsInf(p.CreditMultiplier, 0) {
		errs["multiplier"] = "a number above 0, at most 100"
	}
	if p.ProjectLimit, err = strconv.Atoi(row.Projects); err != nil {
		errs["projects"] = "a whole number"
	}
	if p.ItemLimit, err = strconv.Atoi(row.Items); err != nil {
		errs["items"] = "a whole number"
	}
	p.Capabilities, p.SharpenMax = row.Capabilities, row.SharpenMax
	if len(errs) > 0 {
		return row, errs
	}
	if err := p.Validate(); err != nil {
		return row, fieldOf(err, planFields)
	}
	return row, nil
}

func (cn *Console) createPlan(c *fiber.Ctx) error {
	p := &tenants.Plan{ID: strings.TrimSpace(c.FormValue("name"))}
	row, errs := planForm(c, p)
	if errs == nil {
		if err := cn.store.CreatePlan(c.UserContext(), p); err != nil {
			errs = fieldOf(err, map[string]string{"plan ": "name"})
		}
	}
	if errs != nil {
		return cn.plansPage(c, fiber.StatusUnprocessableEntity, views.Plans{New: row, Form: "", Errors: errs}, nil)
	}
	cn.record(c, auditPlanCreate, p.ID, nil, planState(p))
	return back(c, "/console/admin/plans", "Plan "+p.ID+" created.", nil)
}

func (cn *Console) updatePlan(c *fiber.Ctx) error {
	ctx := c.UserContext()
	p, err := cn.store.Plan(ctx, c.Params("name"))
	if errors.Is(err, tenants.ErrNotFound) {
		return cn.notFound(c)
	}
	if err != nil {
		return err
	}
	before := planState(p)
	row, errs := planForm(c, p)
	if errs == nil {
		if err := cn.store.UpdatePlan(ctx, p); err != nil {
			errs = views.FieldErrors{"": err.Error()}
		}
	}
	if errs != nil {
		return cn.plansPage(c, fiber.StatusUnprocessableEntity, views.Plans{New: newPlan, Form: p.ID, Errors: errs}, &row)
	}
	cn.opts.AccessChanged()
	cn.record(c, auditPlanUpdate, p.ID, before, planState(p))
	return back(c, "/console/admin/plans", "Plan "+p.ID+" saved.", nil)
}

func (cn *Console) providers(c *fiber.Ctx) error {
	stored, err := cn.storedProviders(c.UserContext())
	if err != nil {
		return err
	}
	var rows []views.ProviderRow
	for _, p := range cn.opts.Client.Providers() {
		s := cn.opts.Client.Setting(p.ID)
		ok, why := cn.opts.Client.Configured(p.ID)
		row := views.ProviderRow{ID: p.ID, Title: p.Title, BaseURL: s.URL, Breaker: cn.opts.Client.BreakerState(p.ID),
			Configured: ok, Reason: why, KeySet: s.Key != "", KeyRequired: p.KeyRequired, KeyAccepted: p.AcceptsKey(),
			Models: cn.opts.ReviewerModels[p.ID]}
		_, row.Testable = providerProbes[p.ID]
		if st, ok := stored[p.ID]; ok && st.BaseURL != "" {
			row.BaseURL = st.BaseURL
		}
		if e, ok := cn.opts.Client.LastError(p.ID); ok {
			row.LastError = e.At.UTC().Format("2006-01-02 15:04:05 UTC") + " " + e.Message
		}
		rows = append(rows, row)
	}
	var retired []views.RetiredModel
	if cn.opts.RetiredReviewers != nil {
		for _, r := range cn.opts.RetiredReviewers() {
			retired = append(retired, views.RetiredModel{ProviderID: r.Family, Title: r.Title, Tier: r.Tier, Model: r.Model,
				Setting: r.Setting, Message: r.Message, At: r.At})
		}
	}
	return cn.page(c, "Providers", "providers", views.ProvidersPage(viewerOf(c).nav("providers"), rows, retired))
}

func (cn *Console) storedProviders(ctx context.Context) (map[string]tenants.ProviderSetting, error) {
	ps, err := cn.store.ProviderSettings(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]tenants.ProviderSetting{}
	for _, p := range ps {
		out[p.ProviderID] = p
	}
	return out, nil
}

// saveProvider stores a provider's base URL and key (encrypted); the key is never shown again.
func (cn *Console) saveProvider(c *fiber.Ctx) error {
	ctx := c.UserContext()
	id := c.Params("id")
	if _, ok := cn.opts.Client.Provider(id); !ok {
		return cn.notFound(c)
	}
	if cn.opts.Sealer == nil {
		return back(c, "/console/admin/providers", "", errors.New("no master key: provider keys cannot be stored"))
	}
	stored, err := cn.storedProviders(ctx)
	if err != nil {
		return err
	}
	prev := stored[id]
	next := tenants.ProviderSetting{ProviderID: id, BaseURL: strings.TrimSpace(c.FormValue("base_url")), KeyCiphertext: prev.KeyCiphertext, UpdatedBy: viewerOf(c).user.Email}
	if next.BaseURL == cn.opts.Env[id].URL {
		next.BaseURL = "" // the environment's (or built-in) URL: nothing to override
	}
	if p, _ := cn.opts.Client.Provider(id); next.BaseURL == p.BaseURL {
		next.BaseURL = ""
	}
	if next.BaseURL != "" && !strings.HasPrefix(next.BaseURL, "https://") && !strings.HasPrefix(next.BaseURL, "http://") {
		return back(c, "/console/admin/providers", "", errors.New("the base URL must start with https:// or http://"))
	}
	keyChange := "unchanged"
	switch key := strings.TrimSpace(c.FormValue("key")); {
	case c.FormValue("clear_key") == "1":
		next.KeyCiphertext, keyChange = "", "cleared"
	case key != "":
		sealed, err := cn.opts.Sealer.Seal(id, key)
		if err != nil {
			return err
		}
		next.KeyCiphertext, keyChange = sealed, "set"
	}
	if err := cn.store.SaveProviderSetting(ctx, &next); err != nil {
		return err
	}
	cn.applyProviderSettings(ctx)
	cn.record(c, auditProvider, id, state{"base_url": prev.BaseURL, "key": redacted(prev.KeyCiphertext != "")},
		state{"base_url": next.BaseURL, "key": keyChange})
	return back(c, "/console/admin/providers", "Provider "+id+" saved.", nil)
}

func redacted(set bool) string {
	if set {
		return "set (redacted)"
	}
	return "not set"
}

// applyProviderSettings configures the client: the environment first, console settings over it.
func (cn *Console) applyProviderSettings(ctx context.Context) {
	stored, err := cn.storedProviders(ctx)
	if err != nil {
		cn.log.Warn("provider settings unavailable", "err", err)
		return
	}
	for _, p := range cn.opts.Client.Providers() {
		s := cn.opts.Env[p.ID]
		if st, ok := stored[p.ID]; ok {
			if st.BaseURL != "" {
				s.URL = st.BaseURL
			}
			if st.KeyCiphertext != "" && cn.opts.Sealer != nil {
				key, err := cn.opts.Sealer.Open(p.ID, st.KeyCiphertext)
				if err != nil {
					cn.log.Error("provider key does not decrypt", "provider", p.ID, "err", err)
				} else {
					s.Key = key
				}
			}
		}
		if cur := cn.opts.Client.Setting(p.ID); cur.URL != orDefault(s.URL, p.BaseURL) || cur.Key != s.Key {
			_ = cn.opts.Client.Configure(p.ID, providers.Setting{URL: s.URL, Key: s.Key})
		}
	}
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return strings.TrimRight(v, "/")
}

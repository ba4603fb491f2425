package console

import (
	"context"
	"errors"
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
	ctx := c.UserContext()
	q := strings.TrimSpace(c.Query("q"))
	ts, err := cn.store.Tenants(ctx, q, 200, 0)
	if err != nil {
		return cn.failed(c, err)
	}
	plans, err := cn.planNames(ctx)
	if err != nil {
		return cn.failed(c, err)
	}
	rows := make([]views.TenantRow, 0, len(ts))
	for _, t := range ts {
		rows = append(rows, views.TenantRow{ID: t.ID, Name: t.Name, Email: t.Email, Plan: t.PlanID, Status: t.Status, Created: t.CreatedAt})
	}
	return cn.page(c, "Tenants", "tenants", views.TenantsPage(viewerOf(c).nav("tenants"), rows, plans, q))
}

func (cn *Console) createTenant(c *fiber.Ctx) error {
	t, err := cn.store.CreateTenant(c.UserContext(), strings.TrimSpace(c.FormValue("name")), c.FormValue("plan"), strings.TrimSpace(c.FormValue("email")))
	if err != nil {
		return back(c, "/console/admin/tenants", "", err)
	}
	cn.record(c, auditTenantCreate, t.ID, nil, tenantState(t))
	return back(c, "/console/admin/tenants", "Tenant "+t.Name+" created.", nil)
}

func (cn *Console) setTenantPlan(c *fiber.Ctx) error {
	ctx := c.UserContext()
	before, err := cn.store.Tenant(ctx, c.Params("id"))
	if errors.Is(err, tenants.ErrNotFound) {
		return cn.notFound(c)
	}
	if err != nil {
		return cn.failed(c, err)
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
		return cn.failed(c, err)
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
	return views.PlanRow{Name: p.ID, Cap: p.CreditCap, Rate: p.RatePerMinute, Multiplier: strconv.FormatFloat(p.CreditMultiplier, 'f', -1, 64),
		Capabilities: p.Capabilities, SharpenMax: p.SharpenMax, Projects: p.ProjectLimit, Items: p.ItemLimit}
}

func (cn *Console) plans(c *fiber.Ctx) error {
	ps, err := cn.store.Plans(c.UserContext())
	if err != nil {
		return cn.failed(c, err)
	}
	rows := make([]views.PlanRow, 0, len(ps))
	for i := range ps {
		rows = append(rows, planRow(&ps[i]))
	}
	return cn.page(c, "Plans", "plans", views.PlansPage(viewerOf(c).nav("plans"), rows))
}

// planForm reads a plan's fields from the form.
func planForm(c *fiber.Ctx, p *tenants.Plan) error {
	var err error
	if p.CreditCap, err = strconv.ParseInt(c.FormValue("cap"), 10, 64); err != nil {
		return errors.New("credit cap must be a whole number")
	}
	if p.RatePerMinute, err = strconv.Atoi(c.FormValue("rate")); err != nil {
		return errors.New("rate must be a whole number")
	}
	if p.CreditMultiplier, err = strconv.ParseFloat(c.FormValue("multiplier"), 64); err != nil {
		return errors.New("multiplier must be a number")
	}
	if p.ProjectLimit, err = strconv.Atoi(c.FormValue("projects")); err != nil {
		return errors.New("projects must be a whole number")
	}
	if p.ItemLimit, err = strconv.Atoi(c.FormValue("items")); err != nil {
		return errors.New("items must be a whole number")
	}
	p.Capabilities = strings.TrimSpace(c.FormValue("capabilities"))
	p.SharpenMax = c.FormValue("sharpen_max")
	return p.Validate()
}

func (cn *Console) createPlan(c *fiber.Ctx) error {
	p := &tenants.Plan{ID: strings.TrimSpace(c.FormValue("name"))}
	if err := planForm(c, p); err != nil {
		return back(c, "/console/admin/plans", "", err)
	}
	if err := cn.store.CreatePlan(c.UserContext(), p); err != nil {
		return back(c, "/console/admin/plans", "", err)
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
		return cn.failed(c, err)
	}
	before := planState(p)
	if err := planForm(c, p); err != nil {
		return back(c, "/console/admin/plans", "", err)
	}
	if err := cn.store.UpdatePlan(ctx, p); err != nil {
		return back(c, "/console/admin/plans", "", err)
	}
	cn.opts.AccessChanged()
	cn.record(c, auditPlanUpdate, p.ID, before, planState(p))
	return back(c, "/console/admin/plans", "Plan "+p.ID+" saved.", nil)
}

func (cn *Console) providers(c *fiber.Ctx) error {
	stored, err := cn.storedProviders(c.UserContext())
	if err != nil {
		return cn.failed(c, err)
	}
	var rows []views.ProviderRow
	for _, p := range cn.opts.Client.Providers() {
		s := cn.opts.Client.Setting(p.ID)
		ok, why := cn.opts.Client.Configured(p.ID)
		row := views.ProviderRow{ID: p.ID, Title: p.Title, BaseURL: s.URL, Breaker: cn.opts.Client.BreakerState(p.ID),
			Configured: ok, Reason: why, KeySet: s.Key != "", KeyRequired: p.KeyRequired}
		if st, ok := stored[p.ID]; ok && st.BaseURL != "" {
			row.BaseURL = st.BaseURL
		}
		if e, ok := cn.opts.Client.LastError(p.ID); ok {
			row.LastError = e.At.Format("2006-01-02 15:04") + " " + e.Message
		}
		rows = append(rows, row)
	}
	return cn.page(c, "Providers", "providers", views.ProvidersPage(viewerOf(c).nav("providers"), rows))
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
		return cn.failed(c, err)
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
			return cn.failed(c, err)
		}
		next.KeyCiphertext, keyChange = sealed, "set"
	}
	if err := cn.store.SaveProviderSetting(ctx, &next); err != nil {
		return cn.failed(c, err)
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

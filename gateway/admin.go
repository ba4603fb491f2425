package gateway

// The admin HTTP API (issue 34): plans, tenants and provider settings over HTTP behind the operator's admin token
// (GATEWAY_ADMIN_TOKEN; the routes do not exist when it is unset), calling the same store
// methods as `gateway admin` (cmd/gateway/admin.go) and the console's admin pages, and auditing
// each change with the actor "admin-token". docs/api.md describes it. It is the operator's API,
// not a tenant's: it is not in the tenants' OpenAPI document, and its calls are not in any
// tenant's request log.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// AdminActor is the audit log's actor of changes made through the admin API.
const AdminActor = "admin-token"

// adminStore is what the admin API changes: the store the CLI and the console use.
type adminStore interface {
	Plans(ctx context.Context) ([]tenants.Plan, error)
	CreatePlan(ctx context.Context, p *tenants.Plan) error
	UpdatePlan(ctx context.Context, p *tenants.Plan) error
	Tenants(ctx context.Context, search string, limit, offset int) ([]tenants.Tenant, error)
	CreateTenant(ctx context.Context, name, planID, email string) (*tenants.Tenant, error)
	SetPlan(ctx context.Context, tenantID, planID string) (*tenants.Tenant, error)
	SetStatus(ctx context.Context, tenantID, status string) (*tenants.Tenant, error)
	Audit(ctx context.Context, actor, action, target string, before, after any) error
}

var _ adminStore = (*tenants.Store)(nil)

// adminRoutes registers the admin API when a token is configured.
func (s *Server) adminRoutes() {
	if s.opts.AdminToken == "" {
		return
	}
	st, ok := s.store.(adminStore)
	if !ok {
		panic("gateway: GATEWAY_ADMIN_TOKEN is set but the account store has no admin operations")
	}
	a := &adminAPI{s: s, store: st, token: sha256.Sum256([]byte(s.opts.AdminToken))}
	g := s.app.Group("/v1/admin", a.authenticate)
	g.Get("/plans", a.listPlans)
	g.Post("/plans", a.createPlan)
	g.Patch("/plans/:name", a.updatePlan)
	g.Get("/tenants", a.listTenants)
	g.Post("/tenants", a.createTenant)
	g.Patch("/tenants/:id", a.updateTenant)
	g.Get("/providers", a.listProviders)
	g.Put("/providers/:id", a.putProvider)
}

type adminAPI struct {
	s     *Server
	store adminStore
	token [32]byte
}

// authenticate requires Authorization: Bearer <GATEWAY_ADMIN_TOKEN>, compared in constant time
// (over the hashes, so the token's length is not timed either).
func (a *adminAPI) authenticate(c *fiber.Ctx) error {
	got, ok := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer ")
	sum := sha256.Sum256([]byte(got))
	if !ok || subtle.ConstantTimeCompare(sum[:], a.token[:]) != 1 {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="admin"`)
		return &Error{Code: providers.CodeUnauthorized, Message: "the admin API needs Authorization: Bearer <GATEWAY_ADMIN_TOKEN>"}
	}
	return c.Next()
}

// decodeStrict decodes a JSON object body, refusing unknown fields and trailing data.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return providers.InvalidField("", "the body must be a JSON object of the documented fields: "+err.Error())
	}
	if dec.More() {
		return providers.InvalidField("", "the body must hold one JSON object")
	}
	return nil
}

// adminError maps a store error: a refused value is the caller's (400, 404, 409), anything else
// a store failure (503).
func adminError(err error) error {
	var inv *tenants.InvalidError
	switch {
	case errors.As(err, &inv):
		return providers.InvalidField(inv.Field, inv.Message)
	case errors.Is(err, tenants.ErrNotFound):
		return &Error{Code: providers.CodeNotFound, Message: "not found"}
	case errors.Is(err, tenants.ErrExists):
		return &Error{Code: providers.CodeInvalidRequest, Status: http.StatusConflict, Message: err.Error()}
	}
	return storeError(err)
}

func (a *adminAPI) audit(c *fiber.Ctx, action, target string, before, after any) {
	if err := a.store.Audit(c.UserContext(), AdminActor, action, target, before, after); err != nil {
		a.s.log.Error("audit write failed", "action", action, "target", target, "err", err)
	}
}

func planAudit(p *tenants.Plan) map[string]any {
	return map[string]any{"name": p.ID, "credit_cap": p.CreditCap, "rate_per_minute": p.RatePerMinute, "credit_multiplier": p.CreditMultiplier,
		"capabilities": p.Capabilities, "sharpen_max": p.SharpenMax, "project_limit": p.ProjectLimit, "item_limit": p.ItemLimit}
}

func tenantAudit(t *tenants.Tenant) map[string]any {
	return map[string]any{"name": t.Name, "email": t.Email, "plan": t.PlanID, "status": t.Status}
}

func (a *adminAPI) findPlan(ctx context.Context, name string) (*tenants.Plan, error) {
	ps, err := a.store.Plans(ctx)
	if err != nil {
		return nil, storeError(err)
	}
	for i := range ps {
		if ps[i].ID == name {
			return &ps[i], nil
		}
	}
	return nil, &Error{Code: providers.CodeNotFound, Message: "no plan named " + name}
}

func (a *adminAPI) listPlans(c *fiber.Ctx) error {
	ps, err := a.store.Plans(c.UserContext())
	if err != nil {
		return storeError(err)
	}
	return c.JSON(map[string]any{"plans": ps})
}

// planBody is a plan as the API writes it (the fields of GET /v1/admin/plans; timestamps are
// the store's).
type planBody struct {
	Name             *string  `json:"name"`
	CreditCap        *int64   `json:"credit_cap"`
	RatePerMinute    *int     `json:"rate_per_minute"`
	CreditMultiplier *float64 `json:"credit_multiplier"`
	Capabilities     *string  `json:"capabilities"`
	SharpenMax       *string  `json:"sharpen_max"`
	ProjectLimit     *int     `json:"project_limit"`
	ItemLimit        *int     `json:"item_limit"`
	CacheHitPercent  *int     `json:"cache_hit_percent"`
}

func (b *planBody) apply(p *tenants.Plan) {
	set := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	if b.CreditCap != nil {
		p.CreditCap = *b.CreditCap
	}
	set(&p.RatePerMinute, b.RatePerMinute)
	if b.CreditMultiplier != nil {
		p.CreditMultiplier = *b.CreditMultiplier
	}
	if b.Capabilities != nil {
		p.Capabilities = *b.Capabilities
	}
	if b.SharpenMax != nil {
		p.SharpenMax = *b.SharpenMax
	}
	set(&p.ProjectLimit, b.ProjectLimit)
	set(&p.ItemLimit, b.ItemLimit)
	set(&p.CacheHitPercent, b.CacheHitPercent)
}

// createPlan answers POST /v1/admin/plans; fields left out take the CLI's defaults.
func (a *adminAPI) createPlan(c *fiber.Ctx) error {
	var b planBody
	if err := decodeStrict(c.BodyRaw(), &b); err != nil {
		return err
	}
	if b.Name == nil {
		return providers.InvalidField("name", "name is required")
	}
	p := &tenants.Plan{ID: *b.Name, CreditCap: 1000, RatePerMinute: 60, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stock", ProjectLimit: 10, ItemLimit: 500}
	b.apply(p)
	if err := a.store.CreatePlan(c.UserContext(), p); err != nil {
		return adminError(err)
	}
	a.audit(c, "plan.create", p.ID, nil, planAudit(p))
	return c.Status(http.StatusCreated).JSON(p)
}

// updatePlan answers PATCH /v1/admin/plans/{name}: the fields given change.
func (a *adminAPI) updatePlan(c *fiber.Ctx) error {
	var b planBody
	if err := decodeStrict(c.BodyRaw(), &b); err != nil {
		return err
	}
	name := strings.Clone(c.Params("name"))
	if b.Name != nil && *b.Name != name {
		return providers.InvalidField("name", "a plan cannot be renamed")
	}
	p, err := a.findPlan(c.UserContext(), name)
	if err != nil {
		return err
	}
	before := planAudit(p)
	b.apply(p)
	if err := a.store.UpdatePlan(c.UserContext(), p); err != nil {
		return adminError(err)
	}
	a.s.ForgetKeys() // the new cap and rate apply at once on this instance
	a.audit(c, "plan.update", p.ID, before, planAudit(p))
	return c.JSON(p)
}

func (a *adminAPI) listTenants(c *fiber.Ctx) error {
	search := c.Query("search")
	if len(search) > 200 {
		return providers.InvalidField("search", "search must be at most 200 characters")
	}
	ts, err := a.store.Tenants(c.UserContext(), strings.Clone(search), 500, 0)
	if err != nil {
		return storeError(err)
	}
	return c.JSON(map[string]any{"tenants": ts})
}

type tenantBody struct {
	Name   *string `json:"name"`
	Plan   *string `json:"plan"`
	Email  *string `json:"email"`
	Status *string `json:"status"`
}

func (a *adminAPI) createTenant(c *fiber.Ctx) error {
	var b tenantBody
	if err := decodeStrict(c.BodyRaw(), &b); err != nil {
		return err
	}
	if b.Name == nil || b.Plan == nil {
		return providers.InvalidField("", "name and plan are required")
	}
	if b.Status != nil {
		return providers.InvalidField("status", "a tenant is created active; PATCH its status")
	}
	if _, err := a.findPlan(c.UserContext(), *b.Plan); err != nil {
		return providers.InvalidField("plan", "no plan named "+*b.Plan)
	}
	email := ""
	if b.Email != nil {
		email = *b.Email
	}
	t, err := a.store.CreateTenant(c.UserContext(), *b.Name, *b.Plan, email)
	if err != nil {
		return adminError(err)
	}
	a.audit(c, "tenant.create", t.ID, nil, tenantAudit(t))
	return c.Status(http.StatusCreated).JSON(t)
}

// updateTenant answers PATCH /v1/admin/tenants/{id}: plan and status.
func (a *adminAPI) updateTenant(c *fiber.Ctx) error {
	var b tenantBody
	if err := decodeStrict(c.BodyRaw(), &b); err != nil {
		return err
	}
	if b.Name != nil || b.Email != nil {
		return providers.InvalidField("", "only plan and status can be changed")
	}
	if b.Plan == nil && b.Status == nil {
		return providers.InvalidField("", "give plan, status or both")
	}
	if b.Status != nil && *b.Status != tenants.StatusActive && *b.Status != tenants.StatusSuspended {
		return providers.InvalidField("status", "status must be active or suspended")
	}
	id := strings.Clone(c.Params("id"))
	ctx := c.UserContext()
	before, err := a.s.store.Tenant(ctx, id)
	if err != nil {
		return adminError(err)
	}
	t := before
	if b.Plan != nil && *b.Plan != t.PlanID {
		if _, err := a.findPlan(ctx, *b.Plan); err != nil {
			return providers.InvalidField("plan", "no plan named "+*b.Plan)
		}
		if t, err = a.store.SetPlan(ctx, id, *b.Plan); err != nil {
			return adminError(err)
		}
		a.audit(c, "tenant.set_plan", id, map[string]any{"plan": before.PlanID}, map[string]any{"plan": t.PlanID})
	}
	if b.Status != nil && *b.Status != t.Status {
		prev := t.Status
		if t, err = a.store.SetStatus(ctx, id, *b.Status); err != nil {
			return adminError(err)
		}
		a.audit(c, "tenant.set_status", id, map[string]any{"status": prev}, map[string]any{"status": t.Status})
	}
	a.s.ForgetKeys()
	return c.JSON(t)
}

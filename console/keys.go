package console

// The API keys page: the tenant's keys and OAuth grants of one mode, and the forms that create,
// edit, roll and revoke keys.

import (
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/tenants"
)

// keyRows are the tenant's keys of one mode.
func (cn *Console) keyRows(c *fiber.Ctx, mode string) ([]views.KeyRow, error) {
	ks, err := cn.store.Keys(c.UserContext(), viewerOf(c).tenant.ID)
	if err != nil {
		return nil, err
	}
	rows := make([]views.KeyRow, 0, len(ks))
	for _, k := range ks {
		if k.Mode != mode {
			continue
		}
		row := views.KeyRow{ID: k.ID, Prefix: k.Prefix, Label: k.Label, Mode: k.Mode, Created: k.CreatedAt, LastUsed: k.LastUsedAt, Revoked: k.RevokedAt != nil,
			Scope: k.Scope.String(), Capabilities: strings.Join(k.Scope.Capabilities, ", "), Topics: strings.Join(k.Scope.Topics, ", "),
			Budget: k.CreditBudget, Rate: k.RatePerMinute, Manage: k.Manage, Expires: k.ExpiresAt, PrevExpires: k.PrevExpiresAt}
		if k.ExpiresAt != nil {
			row.ExpiresInput = k.ExpiresAt.UTC().Format("2006-01-02T15:04")
		}
		if len(k.Metadata) > 0 {
			b, _ := json.Marshal(k.Metadata)
			row.Metadata = string(b)
		}
		if row.Used, err = cn.store.KeyUsage(c.UserContext(), viewerOf(c).tenant, &k); err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// keyScope reads the key form's optional scope: capability ids and topics, comma-separated,
// checked against this build's capabilities.
func (cn *Console) keyScope(c *fiber.Ctx) (tenants.Scope, error) {
	scope, err := tenants.ParseScope(c.FormValue("capabilities"), c.FormValue("topics"))
	if err != nil {
		return scope, err
	}
	var ids, topics []string
	for _, cp := range cn.opts.Capabilities {
		ids, topics = append(ids, cp.ID), append(topics, cp.Topic)
	}
	return scope, scope.CheckKnown(ids, topics)
}

func keysMode(mode string) views.ModeView { return views.ModeView{Path: "/console/keys", Mode: mode} }

func (cn *Console) keys(c *fiber.Ctx) error {
	mode := modeOf(c)
	rows, err := cn.keyRows(c, mode)
	if err != nil {
		return err
	}
	grants, err := cn.grantRows(c, mode)
	if err != nil {
		return err
	}
	return cn.page(c, "API keys", "keys", views.KeysPage(viewerOf(c).nav("keys"), views.Keys{Mode: keysMode(mode), Keys: rows, Grants: grants, PlanRate: viewerOf(c).plan.RatePerMinute}))
}

// keyPolicy reads the key form's policies: budget, rate, expiry (UTC), manage and metadata.
func keyPolicy(c *fiber.Ctx) (tenants.KeyPolicy, error) {
	var pol tenants.KeyPolicy
	var err error
	if v := strings.TrimSpace(c.FormValue("budget")); v != "" {
		if pol.CreditBudget, err = strconv.ParseInt(v, 10, 64); err != nil {
			return pol, &tenants.InvalidError{Field: "budget", Message: "the budget must be a whole number of credits (0: none)"}
		}
	}
	if v := strings.TrimSpace(c.FormValue("rate")); v != "" {
		if pol.RatePerMinute, err = strconv.Atoi(v); err != nil {
			return pol, &tenants.InvalidError{Field: "rate", Message: "the rate must be a whole number of requests per minute (0: the plan's)"}
		}
	}
	if v := strings.TrimSpace(c.FormValue("expires")); v != "" {
		at, err := time.Parse("2006-01-02T15:04", v)
		if err != nil {
			return pol, &tenants.InvalidError{Field: "expires", Message: "the expiry must be a date and time (UTC)"}
		}
		pol.ExpiresAt = &at
	}
	pol.Manage = c.FormValue("manage") == "on"
	if pol.Metadata, err = tenants.ParseMetadata([]byte(c.FormValue("metadata"))); err != nil {
		return pol, err
	}
	return pol, nil
}

// editKey saves a key's name, scope and policies (the edit form of a row).
func (cn *Console) editKey(c *fiber.Ctx) error {
	v := viewerOf(c)
	back1 := "/console/keys?mode=" + url.QueryEscape(c.FormValue("mode"))
	scope, err := cn.keyScope(c)
	if err != nil {
		return back(c, back1, "", err)
	}
	pol, err := keyPolicy(c)
	if err != nil {
		return back(c, back1, "", err)
	}
	label := strings.TrimSpace(c.FormValue("label"))
	pt := tenants.KeyPatch{Label: &label, Scope: &scope, Metadata: &pol.Metadata, CreditBudget: &pol.CreditBudget,
		RatePerMinute: &pol.RatePerMinute, Manage: &pol.Manage, ExpiresAt: pol.ExpiresAt, ClearExpiry: pol.ExpiresAt == nil}
	before, after, err := cn.store.UpdateKey(c.UserContext(), c.Params("id"), v.tenant.ID, pt)
	if err != nil {
		if errors.Is(err, tenants.ErrNotFound) {
			return cn.notFound(c)
		}
		if errors.Is(err, tenants.ErrKeyRevoked) {
			return back(c, back1, "", &tenants.InvalidError{Field: "key", Message: "a revoked key cannot be changed"})
		}
		return back(c, back1, "", err)
	}
	cn.opts.AccessChanged()
	cn.record(c, auditKeyUpdate, after.ID, keyState(before), keyState(after))
	return back(c, "/console/keys?mode="+url.QueryEscape(after.Mode), "Key saved.", nil)
}

// rollKey issues a new secret, shown once on the answer; the old one stays valid for the overlap.
func (cn *Console) rollKey(c *fiber.Ctx) error {
	v := viewerOf(c)
	hours, err := strconv.Atoi(c.FormValue("overlap_hours", "0"))
	if err != nil || hours < 0 || hours > 720 {
		return back(c, "/console/keys", "", &tenants.InvalidError{Field: "overlap", Message: "the overlap must be 0 to 720 hours"})
	}
	before, err := cn.store.Key(c.UserContext(), c.Params("id"))
	if err != nil || before.TenantID != v.tenant.ID {
		return cn.notFound(c)
	}
	k, raw, err := cn.store.RollKey(c.UserContext(), before.ID, v.tenant.ID, time.Duration(hours)*time.Hour)
	if err != nil {
		return back(c, "/console/keys?mode="+url.QueryEscape(before.Mode), "", err)
	}
	cn.opts.AccessChanged()
	cn.record(c, auditKeyRoll, k.ID, keyState(before), keyState(k))
	rows, err := cn.keyRows(c, k.Mode)
	if err != nil {
		return err
	}
	grants, err := cn.grantRows(c, k.Mode)
	if err != nil {
		return err
	}
	nav := v.nav("keys")
	nav.Flash = "Key rolled: its new secret is below."
	return render(c, fiber.StatusOK, views.Layout("API keys", nav, views.KeysPage(nav, views.Keys{Mode: keysMode(k.Mode), Keys: rows, NewKey: raw, Grants: grants, PlanRate: v.plan.RatePerMinute})))
}

// createKey shows the new key once, on the answer to the POST (never in a URL or a later page).
func (cn *Console) createKey(c *fiber.Ctx) error {
	v := viewerOf(c)
	mode := c.FormValue("mode")
	scope, err := cn.keyScope(c)
	if err != nil {
		return back(c, "/console/keys", "", err)
	}
	pol, err := keyPolicy(c)
	if err != nil {
		return back(c, "/console/keys", "", err)
	}
	pol.Label, pol.Scope = strings.TrimSpace(c.FormValue("label")), scope
	k, raw, err := cn.store.CreateKeyWith(c.UserContext(), v.tenant.ID, mode, pol)
	if err != nil {
		return back(c, "/console/keys", "", err)
	}
	cn.record(c, auditKeyCreate, k.ID, nil, keyState(k))
	rows, err := cn.keyRows(c, k.Mode)
	if err != nil {
		return err
	}
	grants, err := cn.grantRows(c, k.Mode)
	if err != nil {
		return err
	}
	nav := v.nav("keys")
	nav.Flash = "Key created."
	return render(c, fiber.StatusOK, views.Layout("API keys", nav, views.KeysPage(nav, views.Keys{Mode: keysMode(k.Mode), Keys: rows, NewKey: raw, Grants: grants, PlanRate: v.plan.RatePerMinute})))
}

func (cn *Console) revokeKey(c *fiber.Ctx) error {
	v := viewerOf(c)
	k, err := cn.store.RevokeKey(c.UserContext(), c.Params("id"), v.tenant.ID)
	if err != nil {
		if errors.Is(err, tenants.ErrNotFound) {
			return cn.notFound(c)
		}
		return err
	}
	cn.opts.AccessChanged()
	before := keyState(k)
	before["revoked"] = false
	cn.record(c, auditKeyRevoke, k.ID, before, keyState(k))
	return back(c, "/console/keys?mode="+url.QueryEscape(k.Mode), "Key revoked.", nil)
}

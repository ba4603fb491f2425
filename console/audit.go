package console

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/tenants"
)

// Audit actions: every state change made through the console writes one row.
const (
	auditKeyCreate    = "key.create"
	auditKeyRevoke    = "key.revoke"
	auditKeyUpdate    = "key.update"
	auditKeyRoll      = "key.roll"
	auditSharpenStage = "sharpen.set_stage"
	auditWorkoutDel   = "workout.delete"
	auditTenantCreate = "tenant.create"
	auditTenantPlan   = "tenant.set_plan"
	auditTenantStatus = "tenant.set_status"
	auditPlanCreate   = "plan.create"
	auditPlanUpdate   = "plan.update"
	auditProvider     = "provider.update"
)

const (
	auditLogWindow = 1000 // the newest entries the audit page filters
	auditPageSize  = 100
	redactedValue  = "(redacted)"
	absent         = "—"
)

// state is an audited object in the API's JSON names.
type state map[string]any

// record writes the audit row of a change; a failure to audit is logged loudly.
func (cn *Console) record(c *fiber.Ctx, action, target string, before, after state) {
	if err := cn.store.Audit(c.UserContext(), viewerOf(c).user.Email, action, target, before, after); err != nil {
		cn.log.Error("audit write failed", "action", action, "target", target, "err", err)
	}
}

func workoutState(w *tenants.Workout) state {
	return state{"title": w.Title, "provider": w.Provider, "exercise_ref": w.ExerciseRef}
}

func tenantState(t *tenants.Tenant) state {
	return state{"name": t.Name, "email": t.Email, "plan": t.PlanID, "status": t.Status}
}

func planState(p *tenants.Plan) state {
	return state{"name": p.ID, "credit_cap": p.CreditCap, "rate_per_minute": p.RatePerMinute, "credit_multiplier": p.CreditMultiplier,
		"capabilities": p.Capabilities, "sharpen_max": p.SharpenMax, "project_limit": p.ProjectLimit, "item_limit": p.ItemLimit}
}

func keyState(k *tenants.APIKey) state {
	st := state{"tenant_id": k.TenantID, "mode": k.Mode, "label": k.Label, "prefix": k.Prefix, "revoked": k.RevokedAt != nil, "scope": k.Scope.String(),
		"credit_budget": k.CreditBudget, "rate_per_minute": k.RatePerMinute, "manage": k.Manage}
	if k.ExpiresAt != nil {
		st["expires_at"] = k.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return st
}

// secretField names fields whose values are never shown, whatever was stored.
func secretField(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "key") || strings.Contains(n, "secret") || strings.Contains(n, "password") || strings.Contains(n, "token")
}

// secretSummaries are what a secret field may say about itself.
var secretSummaries = map[string]bool{"set": true, "cleared": true, "unchanged": true, "not set": true, "set (redacted)": true}

func shown(field string, v any, ok bool) string {
	if !ok || v == nil {
		return absent
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
		if s == "" {
			s = `""`
		}
	default:
		b, _ := json.Marshal(x)
		s = string(b)
	}
	if secretField(field) && !secretSummaries[s] {
		return redactedValue
	}
	return s
}

// Diff lists the fields that differ between two stored states, in the states' JSON names.
func Diff(beforeJSON, afterJSON string) []views.Change {
	var before, after map[string]any
	_ = json.Unmarshal([]byte(beforeJSON), &before)
	_ = json.Unmarshal([]byte(afterJSON), &after)
	names := map[string]bool{}
	for k := range before {
		names[k] = true
	}
	for k := range after {
		names[k] = true
	}
	var out []views.Change
	for k := range names {
		b, bok := before[k]
		a, aok := after[k]
		bs, as := shown(k, b, bok), shown(k, a, aok)
		if bs == as && fmt.Sprint(b) == fmt.Sprint(a) {
			continue
		}
		out = append(out, views.Change{Field: k, Before: bs, After: as})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

func kindOf(action string) string {
	kind, _, _ := strings.Cut(action, ".")
	return kind
}

func (cn *Console) audit(c *fiber.Ctx) error {
	es, err := cn.store.AuditLog(c.UserContext(), auditLogWindow, 0)
	if err != nil {
		return err
	}
	a := views.Audit{Actor: c.Query("actor"), Kind: c.Query("kind")}
	actors, kinds := map[string]bool{}, map[string]bool{}
	for _, e := range es {
		actors[e.Actor], kinds[kindOf(e.Action)] = true, true
		if (a.Actor != "" && e.Actor != a.Actor) || (a.Kind != "" && kindOf(e.Action) != a.Kind) || len(a.Rows) == auditPageSize {
			continue
		}
		a.Rows = append(a.Rows, views.AuditRow{Time: e.CreatedAt, Actor: e.Actor, Action: e.Action, Target: e.Target, Changes: Diff(e.BeforeState, e.AfterState)})
	}
	a.Actors, a.Kinds = sortedKeys(actors), sortedKeys(kinds)
	a.Filtered = a.Actor != "" || a.Kind != ""
	return cn.page(c, "Audit log", "audit", views.AuditPage(a))
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

package main

import (
	"context"
	"fmt"
	"os"

	"github.com/capgate/capgate/tenants"
)

// Changes made with `gateway admin` are written to the audit log like the console's, under the
// same action names and state fields, with the actor "cli:<OS user>" (issue 34): a key made with
// the CLI appears in the console's audit page.

type actorKey struct{}

// cliActor names the person running the CLI: the OS user (USER, else LOGNAME), or "cli".
func cliActor(env getenv) string {
	for _, v := range []string{env("USER"), env("LOGNAME")} {
		if v != "" {
			return "cli:" + v
		}
	}
	return "cli"
}

// audited writes the audit row of a CLI change. A change that is made but cannot be audited is
// reported on stderr: the change stands (it is committed) and the operator learns of the gap.
func audited(ctx context.Context, s *tenants.Store, action, target string, before, after map[string]any) {
	actor, _ := ctx.Value(actorKey{}).(string)
	if actor == "" {
		actor = "cli"
	}
	if err := s.Audit(ctx, actor, action, target, before, after); err != nil {
		fmt.Fprintf(os.Stderr, "warning: the change was made but its audit row was not written: %v\n", err)
	}
}

// The audited states, in the console's field names (console/audit.go).
func planAudit(p *tenants.Plan) map[string]any {
	return map[string]any{"name": p.ID, "credit_cap": p.CreditCap, "rate_per_minute": p.RatePerMinute, "credit_multiplier": p.CreditMultiplier,
		"capabilities": p.Capabilities, "sharpen_max": p.SharpenMax, "project_limit": p.ProjectLimit, "item_limit": p.ItemLimit}
}

func tenantAudit(t *tenants.Tenant) map[string]any {
	return map[string]any{"name": t.Name, "email": t.Email, "plan": t.PlanID, "status": t.Status}
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/providers/registry"
	"github.com/capgate/capgate/tenants"
)

// admin runs `gateway admin <noun> <verb> [flags]`.
func admin(ctx context.Context, args []string, env getenv, stdout io.Writer) error {
	if len(args) < 2 {
		return usagef("usage: gateway admin plan|tenant|key|user <command> [flags]")
	}
	noun, verb, rest := args[0], args[1], args[2:]
	cmd, ok := adminCommands[noun+" "+verb]
	if !ok {
		return usagef("unknown admin command %q", noun+" "+verb)
	}
	fs := flag.NewFlagSet("gateway admin "+noun+" "+verb, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	run := cmd(fs)
	if err := fs.Parse(rest); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	cfg, err := loadConfig(env, nil)
	if err != nil {
		return usagef("%v", err)
	}
	db, _, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	out, err := run(context.WithValue(ctx, actorKey{}, cliActor(env)), tenants.NewStore(db))
	if err != nil {
		return err
	}
	return writeJSON(stdout, out)
}

type adminRun func(ctx context.Context, s *tenants.Store) (any, error)

// invalid marks a refusal of the caller's input (exit 2) rather than a failure.
func invalid(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, tenants.ErrNotFound) {
		return usagef("not found")
	}
	return usagef("%v", err)
}

func required(name, v string) error {
	if strings.TrimSpace(v) == "" {
		return usagef("--%s is required", name)
	}
	return nil
}

func planFlags(fs *flag.FlagSet, p *tenants.Plan, set map[string]bool) func() {
	name := fs.String("name", "", "plan name")
	cap := fs.Int64("cap", -1, "credit cap per period")
	rate := fs.Int("rate", -1, "requests a minute")
	mult := fs.Float64("multiplier", -1, "credit multiplier")
	caps := fs.String("capabilities", "", "all | typical<=N | ID,ID…")
	sharpen := fs.String("sharpen-max", "", "highest sharpen stage")
	projects := fs.Int("projects", -1, "project quota")
	items := fs.Int("items", -1, "project item quota")
	hit := fs.Int("cache-hit-percent", -1, "what an answer from the shared upstream cache costs, in percent of the capability's charge (0 = free)")
	return func() {
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		p.ID = *name
		if set["cap"] {
			p.CreditCap = *cap
		}
		if set["rate"] {
			p.RatePerMinute = *rate
		}
		if set["multiplier"] {
			p.CreditMultiplier = *mult
		}
		if set["capabilities"] {
			p.Capabilities = *caps
		}
		if set["sharpen-max"] {
			p.SharpenMax = *sharpen
		}
		if set["projects"] {
			p.ProjectLimit = *projects
		}
		if set["items"] {
			p.ItemLimit = *items
		}
		if set["cache-hit-percent"] {
			p.CacheHitPercent = *hit
		}
	}
}

var adminCommands = map[string]func(fs *flag.FlagSet) adminRun{
	"plan create": func(fs *flag.FlagSet) adminRun {
		p := &tenants.Plan{CreditCap: 1000, RatePerMinute: 60, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stock", ProjectLimit: 10, ItemLimit: 500}
		set := map[string]bool{}
		apply := planFlags(fs, p, set)
		return func(ctx context.Context, s *tenants.Store) (any, error) {
			apply()
			if err := required("name", p.ID); err != nil {
				return nil, err
			}
			if err := s.CreatePlan(ctx, p); err != nil {
				return nil, invalid(err)
			}
			audited(ctx, s, "plan.create", p.ID, nil, planAudit(p))
			return p, nil
		}
	},
	"plan update": func(fs *flag.FlagSet) adminRun {
		edit := &tenants.Plan{}
		set := map[string]bool{}
		apply := planFlags(fs, edit, set)
		return func(ctx context.Context, s *tenants.Store) (any, error) {
			apply()
			if err := required("name", edit.ID); err != nil {
				return nil, err
			}
			p, err := s.Plan(ctx, edit.ID)
			if errors.Is(err, tenants.ErrNotFound) {
				return nil, usagef("unknown plan %s", edit.ID)
			} else if err != nil {
				return nil, err
			}
			before := planAudit(p)
			for flagName, apply := range map[string]func(){
				"cap": func() { p.CreditCap = edit.CreditCap }, "rate": func() { p.RatePerMinute = edit.RatePerMinute },
				"multiplier": func() { p.CreditMultiplier = edit.CreditMultiplier }, "capabilities": func() { p.Capabilities = edit.Capabilities },
				"sharpen-max": func() { p.SharpenMax = edit.SharpenMax }, "projects": func() { p.ProjectLimit = edit.ProjectLimit },
				"items": func() { p.ItemLimit = edit.ItemLimit }, "cache-hit-percent": func() { p.CacheHitPercent = edit.CacheHitPercent },
			} {
				if set[flagName] {
					apply()
				}
			}
			if err := s.UpdatePlan(ctx, p); err != nil {
				return nil, invalid(err)
			}
			audited(ctx, s, "plan.update", p.ID, before, planAudit(p))
			return p, nil
		}
	},
	"plan list": func(fs *flag.FlagSet) adminRun {
		return func(ctx context.Context, s *tenants.Store) (any, error) {
			ps, err := s.Plans(ctx)
			return map[string]any{"plans": ps}, err
		}
	},
	"tenant create": func(fs *flag.FlagSet) adminRun {
		name := fs.String("name", "", "tenant name")
		plan := fs.String("plan", "", "plan name")
		email := fs.String("email", "", "contact email")
		return func(ctx context.Context, s *tenants.Store) (any, error) {
			if err := required("name", *name); err != nil {
				return nil, err
			}
			if err := required("plan", *plan); err != nil {
				return nil, err
			}
			t, err := s.CreateTenant(ctx, *name, *plan, *email)
			if err != nil {
				return nil, invalid(err)
			}
			audited(ctx, s, "tenant.create", t.ID, nil, tenantAudit(t))
			return t, nil
		}
	},
	"tenant list": func(fs *flag.FlagSet) adminRun {
		search := fs.String("search", "", "name, email or id")
		return func(ctx context.Context, s *tenants.Store) (any, error) {
			ts, err := s.Tenants(ctx, *search, 0, 0)
			return map[string]any{"tenants": ts}, err
		}
	},
	"tenant set-plan": func(fs *flag.FlagSet) adminRun {
		id := fs.String("tenant", "", "tenant id")
		plan := fs.String("plan", "", "plan name")
		return func(ctx context.Context, s *tenants.Store) (any, error) {
			if err := required("tenant", *id); err != nil {
				return nil, err
			}
			if err := required("plan", *plan); err != nil {
				return nil, err
			}
			before, err := s.Tenant(ctx, *id)
			if errors.Is(err, tenants.ErrNotFound) {
				return nil, usagef("unknown tenant %s", *id)
			} else if err != nil {
				return nil, err
			}
			t, err := s.SetPlan(ctx, *id, *plan)
			if errors.Is(err, tenants.ErrNotFound) {
				return nil, usagef("unknown tenant %s", *id)
			}
			if err != nil {
				return nil, invalid(err)
			}
			audited(ctx, s, "tenant.set_plan", t.ID, map[string]any{"plan": before.PlanID}, map[string]any{"plan": t.PlanID})
			return t, nil
		}
	},
	"tenant suspend": statusCommand(tenants.StatusSuspended),
	"tenant resume":  statusCommand(tenants.StatusActive),
	"key create": func(fs *flag.FlagSet) adminRun {
		id := fs.String("tenant", "", "tenant id")
		test := fs.Bool("test", false, "a sandbox key")
		label := fs.String("label", "", "label (the key's name)")
		caps := fs.String("capabilities", "", "limit the key to these capability ids (comma-separated; sharpen for /v1/sharpen)")
		topics := fs.String("topics", "", "limit the key to the capabilities of these topics (comma-separated, e.g. dev)")
		metadata := fs.String("metadata", "", "a small JSON object of your own (at most 4096 bytes)")
		expires := fs.String("expires", "", "when the key stops working: an RFC 3339 time or a duration from now (e.g. 720h)")
		budget := fs.Int64("budget", 0, "the key's own credits per period, under the tenant's cap (0: none)")
		rate := fs.Int("rate", 0, "the key's own requests per minute, at most the plan's (0: the plan's)")
		manage := fs.Bool("manage", false, "the key may use the management API (/v1/keys, /v1/requests, /v1/usage)")
		return func(ctx context.Context, s *tenants.Store) (any, error) {
			if err := required("tenant", *id); err != nil {
				return nil, err
			}
			mode := tenants.ModeLive
			if *test {
				mode = tenants.ModeTest
			}
			scope, err := tenants.ParseScope(*caps, *topics)
			if err == nil {
				err = scope.CheckKnown(gateway.ScopeVocabulary(registry.Capabilities()))
			}
			if err != nil {
				return nil, invalid(err)
			}
			pol := tenants.KeyPolicy{Label: *label, Scope: scope, CreditBudget: *budget, RatePerMinute: *rate, Manage: *manage}
			if pol.Metadata, err = tenants.ParseMetadata([]byte(*metadata)); err != nil {
				return nil, invalid(err)
			}
			if *expires != "" {
				at, err := parseExpiry(*expires)
				if err != nil {
					return nil, err
				}
				pol.ExpiresAt = &at
			}
			k, raw, err := s.CreateKeyWith(ctx, *id, mode, pol)
			if err != nil {
				return nil, invalid(err)
			}
			auditCLI(ctx, s, gateway.AuditKeyCreate, nil, k)
			return map[string]any{"id": k.ID, "key": raw, "tenant_id": k.TenantID, "mode": k.Mode, "label": k.Label, "prefix": k.Prefix,
				"scope": k.Scope, "metadata": k.Metadata, "expires_at": k.ExpiresAt, "credit_budget": k.CreditBudget,
				"rate_per_minute": k.RatePerMinute, "manage": k.Manage}, nil
		}
	},
	"key revoke": func(fs *flag.FlagSet) adminRun {
		id := fs.String("id", "", "key id")
		return func(ctx context.Context, s *tenants.Store) (any, error) {
			if err := required("id", *id); err != nil {
				return nil, err
			}
			before, err := s.Key(ctx, *id)
			if errors.Is(err, tenants.ErrNotFound) {
				return nil, usagef("unknown key %s", *id)
			}
			if err != nil {
				return nil, err
			}
			k, err := s.RevokeKey(ctx, *id, "")
			if errors.Is(err, tenants.ErrNotFound) {
				return nil, usagef("unknown key %s", *id)
			}
			if err == nil && before.RevokedAt == nil {
				auditCLI(ctx, s, gateway.AuditKeyRevoke, before, k)
			}
			return k, err
		}
	},
	"key roll": func(fs *flag.FlagSet) adminRun {
		id := fs.String("id", "", "key id")
		overlap := fs.Duration("overlap", 0, "how long the old secret stays valid (e.g. 24h; 0: it stops at once)")
		return func(ctx context.Context, s *tenants.Store) (any, error) {
			if err := required("id", *id); err != nil {
				return nil, err
			}
			before, err := s.Key(ctx, *id)
			if errors.Is(err, tenants.ErrNotFound) {
				return nil, usagef("unknown key %s", *id)
			}
			if err != nil {
				return nil, err
			}
			k, raw, err := s.RollKey(ctx, *id, "", *overlap)
			if err != nil {
				return nil, invalid(err)
			}
			auditCLI(ctx, s, gateway.AuditKeyRoll, before, k)
			return map[string]any{"id": k.ID, "key": raw, "prefix": k.Prefix, "previous_secret_expires_at": k.PrevExpiresAt}, nil
		}
	},
	"key list": func(fs *flag.FlagSet) adminRun {
		id := fs.String("tenant", "", "tenant id")
		return func(ctx context.Context, s *tenants.Store) (any, error) {
			if err := required("tenant", *id); err != nil {
				return nil, err
			}
			if _, err := s.Tenant(ctx, *id); errors.Is(err, tenants.ErrNotFound) {
				return nil, usagef("unknown tenant %s", *id)
			}
			ks, err := s.Keys(ctx, *id)
			return map[string]any{"keys": ks}, err
		}
	},
	"user create": func(fs *flag.FlagSet) adminRun {
		id := fs.String("tenant", "", "tenant id")
		email := fs.String("email", "", "sign-in email")
		pwFile := fs.String("password-file", "", "file holding the password")
		isAdmin := fs.Bool("admin", false, "console admin role")
		return func(ctx context.Context, s *tenants.Store) (any, error) {
			for _, f := range [][2]string{{"tenant", *id}, {"email", *email}, {"password-file", *pwFile}} {
				if err := required(f[0], f[1]); err != nil {
					return nil, err
				}
			}
			b, err := os.ReadFile(*pwFile)
			if err != nil {
				return nil, usagef("--password-file: %v", err)
			}
			role := tenants.RoleOwner
			if *isAdmin {
				role = tenants.RoleAdmin
			}
			u, err := s.CreateUser(ctx, *id, *email, strings.TrimRight(string(b), "\r\n"), role)
			if err != nil {
				return nil, invalid(err)
			}
			audited(ctx, s, "user.create", u.ID, nil, map[string]any{"tenant_id": u.TenantID, "email": u.Email, "role": u.Role, "password": "set"})
			return u, nil
		}
	},
}

func statusCommand(status string) func(fs *flag.FlagSet) adminRun {
	return func(fs *flag.FlagSet) adminRun {
		id := fs.String("tenant", "", "tenant id")
		return func(ctx context.Context, s *tenants.Store) (any, error) {
			if err := required("tenant", *id); err != nil {
				return nil, err
			}
			before, err := s.Tenant(ctx, *id)
			if errors.Is(err, tenants.ErrNotFound) {
				return nil, usagef("unknown tenant %s", *id)
			} else if err != nil {
				return nil, err
			}
			t, err := s.SetStatus(ctx, *id, status)
			if errors.Is(err, tenants.ErrNotFound) {
				return nil, usagef("unknown tenant %s", *id)
			}
			if err != nil {
				return nil, invalid(err)
			}
			audited(ctx, s, "tenant.set_status", t.ID, map[string]any{"status": before.Status}, map[string]any{"status": t.Status})
			return t, nil
		}
	}
}

// parseExpiry reads --expires: an RFC 3339 time or a duration from now.
func parseExpiry(v string) (time.Time, error) {
	if d, err := time.ParseDuration(v); err == nil {
		return time.Now().Add(d), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, usagef("--expires must be an RFC 3339 time or a duration such as 720h, got %q", v)
	}
	return t, nil
}

// auditCLI writes the audit row of a key change made with the CLI (actor cli:$USER, as every
// CLI change); a failure to audit is reported on stderr, the change stands.
func auditCLI(ctx context.Context, s *tenants.Store, action string, before, after *tenants.APIKey) {
	var b, a any
	target := ""
	if before != nil {
		b, target = gateway.KeyAuditState(before), before.ID
	}
	if after != nil {
		a, target = gateway.KeyAuditState(after), after.ID
	}
	actor, _ := ctx.Value(actorKey{}).(string)
	if actor == "" {
		actor = "cli"
	}
	if err := s.Audit(ctx, actor, action, target, b, a); err != nil {
		fmt.Fprintf(os.Stderr, "warning: the change was made but its audit row was not written: %v\n", err)
	}
}

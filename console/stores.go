package console

import (
	"context"
	"time"

	"github.com/capgate/capgate/tenants"
)

// The stores the console consumes, declared here where they are used (as the gateway declares
// its own in gateway/stores.go); cmd hands it the database's tenants.Store, which has them all.

// Store is everything the console reads and writes.
type Store interface {
	Accounts
	SignIns
	Usage
	TenantContent
	ProviderSettings
	Grants
	RequestLog
}

// Accounts are tenants, plans, API keys and the admin audit log.
type Accounts interface {
	Tenant(ctx context.Context, id string) (*tenants.Tenant, error)
	Tenants(ctx context.Context, search string, limit, offset int) ([]tenants.Tenant, error)
	CreateTenant(ctx context.Context, name, planID, email string) (*tenants.Tenant, error)
	SetPlan(ctx context.Context, tenantID, planID string) (*tenants.Tenant, error)
	SetStatus(ctx context.Context, tenantID, status string) (*tenants.Tenant, error)
	Plan(ctx context.Context, id string) (*tenants.Plan, error)
	Plans(ctx context.Context) ([]tenants.Plan, error)
	CreatePlan(ctx context.Context, p *tenants.Plan) error
	UpdatePlan(ctx context.Context, p *tenants.Plan) error
	Keys(ctx context.Context, tenantID string) ([]tenants.APIKey, error)
	CreateKey(ctx context.Context, tenantID, mode, label string) (*tenants.APIKey, string, error)
	CreateScopedKey(ctx context.Context, tenantID, mode, label string, scope tenants.Scope) (*tenants.APIKey, string, error)
	RevokeKey(ctx context.Context, id, tenantID string) (*tenants.APIKey, error)
	Key(ctx context.Context, id string) (*tenants.APIKey, error)
	CreateKeyWith(ctx context.Context, tenantID, mode string, pol tenants.KeyPolicy) (*tenants.APIKey, string, error)
	UpdateKey(ctx context.Context, id, tenantID string, patch tenants.KeyPatch) (before, after *tenants.APIKey, err error)
	RollKey(ctx context.Context, id, tenantID string, overlap time.Duration) (*tenants.APIKey, string, error)
	KeyUsage(ctx context.Context, t *tenants.Tenant, k *tenants.APIKey) (int64, error)
	Audit(ctx context.Context, actor, action, target string, before, after any) error
	AuditLog(ctx context.Context, limit, offset int) ([]tenants.AuditEntry, error)
}

// SignIns are console users, their sessions and passwords.
type SignIns interface {
	User(ctx context.Context, id string) (*tenants.User, error)
	UserByEmail(ctx context.Context, email string) (*tenants.User, error)
	CheckPassword(ctx context.Context, email, password string) (*tenants.User, error)
	ChangePassword(ctx context.Context, userID, current, password, keepSession string) error
	IssuePasswordReset(ctx context.Context, userID, issuedBy string) (string, error)
	PasswordResetUser(ctx context.Context, raw string) (*tenants.User, error)
	ResetPassword(ctx context.Context, raw, password string) (*tenants.User, error)
	ConsoleSession(ctx context.Context, raw string) (*tenants.ConsoleSession, error)
	CreateConsoleSession(ctx context.Context, userID string, ttl time.Duration) (string, *tenants.ConsoleSession, error)
	DeleteConsoleSession(ctx context.Context, raw string) error
}

// Usage is what the usage and overview pages read of credits and calls.
type Usage interface {
	Balance(ctx context.Context, t *tenants.Tenant, plan *tenants.Plan, mode string) (tenants.Balance, error)
	Usage(ctx context.Context, f tenants.UsageFilter) ([]tenants.LedgerEntry, error)
	UsageByDay(ctx context.Context, tenantID, mode string, since time.Time) ([]tenants.DailyUsage, error)
	CallsSince(ctx context.Context, tenantID, mode string, t time.Time) (int, error)
	CacheUsageSince(ctx context.Context, tenantID, mode string, since time.Time) ([]tenants.CacheUsage, error)
}

// TenantContent is what a tenant keeps in its account: projects, saved workouts and the sharpen
// setting.
type TenantContent interface {
	Projects(ctx context.Context, o tenants.ProjectOwner, limit, offset int) ([]tenants.Project, error)
	Items(ctx context.Context, o tenants.ProjectOwner, projectID string, limit, offset int) ([]tenants.ProjectItem, error)
	Workout(ctx context.Context, tenantID, id string) (*tenants.Workout, error)
	Workouts(ctx context.Context, tenantID string) ([]tenants.Workout, error)
	DeleteWorkout(ctx context.Context, tenantID, id string) error
	SharpenStage(ctx context.Context, tenantID string) (string, error)
	SetSharpenStage(ctx context.Context, tenantID string, plan *tenants.Plan, stage string) error
}

// ProviderSettings are the provider URLs and keys an admin sets on the providers page.
type ProviderSettings interface {
	ProviderSettings(ctx context.Context) ([]tenants.ProviderSetting, error)
	SaveProviderSetting(ctx context.Context, ps *tenants.ProviderSetting) error
}

var _ Store = (*tenants.Store)(nil)

// Grants are the MCP hosts' OAuth grants: the consent page makes them, the keys page lists and
// revokes them.
type Grants interface {
	OAuthClientByID(ctx context.Context, id string) (*tenants.OAuthClient, error)
	CreateOAuthGrant(ctx context.Context, r tenants.GrantRequest) (*tenants.OAuthGrant, string, error)
	OAuthGrants(ctx context.Context, tenantID string) ([]tenants.OAuthGrant, error)
	RevokeOAuthGrant(ctx context.Context, id, tenantID string) (*tenants.OAuthGrant, error)
}

// RequestLog is what the request log page reads.
type RequestLog interface {
	Requests(ctx context.Context, f tenants.RequestFilter) ([]tenants.RequestEntry, string, error)
	RequestsByID(ctx context.Context, tenantID, requestID string) ([]tenants.RequestEntry, error)
}

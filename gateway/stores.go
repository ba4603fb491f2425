package gateway

import (
	"context"
	"encoding/json"
	"time"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/searches"
)

// The stores the gateway consumes, declared here where they are used; cmd builds the database
// implementations (tenants.Meter, searches.Store, tenants.Store) and hands them to New.

// Meter meters credits: a reservation before the upstream work, then a settlement that commits
// the ledger row together with the call's writes, or a refund.
type Meter interface {
	Reserve(ctx context.Context, t *tenants.Tenant, plan *tenants.Plan, mode string, n int64) (*tenants.Reservation, error)
	// ReserveKey reserves from the key's own budget too when it has one (issue 34).
	ReserveKey(ctx context.Context, t *tenants.Tenant, plan *tenants.Plan, k *tenants.APIKey, n int64) (*tenants.Reservation, error)
	Settle(ctx context.Context, r *tenants.Reservation, actual int64, e tenants.LedgerEntry, writes ...tenants.Write) (int64, tenants.Balance, error)
	Refund(ctx context.Context, r *tenants.Reservation) error
	Balance(ctx context.Context, t *tenants.Tenant, plan *tenants.Plan, mode string) (tenants.Balance, error)
}

// Searches keeps search sessions and their records.
type Searches interface {
	New(tenantID, mode, capability string, query json.RawMessage) *searches.Session
	Create(sess *searches.Session) tenants.Write
	// Page and CreateRef open a session on a shared page of the upstream cache, holding a
	// reference to the page instead of a copy of its records.
	Page(id, mode, capability string, recs []*searches.Record) *searches.PageRef
	CreateRef(sess *searches.Session, page *searches.PageRef) tenants.Write
	Advance(sess *searches.Session) tenants.Write
	Get(ctx context.Context, tenantID, mode, id string) (*searches.Session, error)
	Record(ctx context.Context, tenantID, mode, id string) (*searches.Session, *searches.Record, error)
	Detail(ctx context.Context, tenantID, recordID, action string) ([]byte, bool, error)
	PutDetail(sess *searches.Session, rec *searches.Record, action string, body []byte) tenants.Write
	Sweep(ctx context.Context) (int64, error)
}

// Accounts is what the gateway reads and writes of tenants, keys, plans, request ids,
// projects and sharpen settings.
type Accounts interface {
	KeyByHash(ctx context.Context, hash string) (*tenants.APIKey, error)
	Tenant(ctx context.Context, id string) (*tenants.Tenant, error)
	Plan(ctx context.Context, id string) (*tenants.Plan, error)
	TouchKey(ctx context.Context, keyID string, at time.Time) error
	SharpenStage(ctx context.Context, tenantID string) (string, error)
	requestIDStore
	projectStore
	oauthStore
	requestLogStore
}

// requestLogStore reads the request log (the management API).
type requestLogStore interface {
	Requests(ctx context.Context, f tenants.RequestFilter) ([]tenants.RequestEntry, string, error)
	RequestsByID(ctx context.Context, tenantID, requestID string) ([]tenants.RequestEntry, error)
	UsageSummary(ctx context.Context, tenantID, groupBy string, from, to time.Time) ([]tenants.UsageRow, error)
}

var (
	_ Meter      = (*tenants.Meter)(nil)
	_ Searches   = (*searches.Store)(nil)
	_ Accounts   = (*tenants.Store)(nil)
	_ RequestLog = (*tenants.RequestLog)(nil)
)

// requestIDStore keeps durable request ids (Idempotency-Key) and their answers.
type requestIDStore interface {
	BeginIdempotent(ctx context.Context, sc tenants.IdemScope, key, hash string) (*tenants.IdempotentRequest, error)
	Idempotent(ctx context.Context, sc tenants.IdemScope, key string) (*tenants.IdempotentRequest, error)
	FinishIdempotent(ctx context.Context, sc tenants.IdemScope, key string, status int, contentType, body string) error
	AbandonIdempotent(ctx context.Context, sc tenants.IdemScope, key string) error
	SweepIdempotent(ctx context.Context) (int64, error)
}

// projectStore keeps projects and their items.
type projectStore interface {
	ProjectUsage(ctx context.Context, o tenants.ProjectOwner) (tenants.ProjectUsage, error)
	CreateProject(ctx context.Context, o tenants.ProjectOwner, plan *tenants.Plan, name string) (*tenants.Project, error)
	Projects(ctx context.Context, o tenants.ProjectOwner, limit, offset int) ([]tenants.Project, error)
	Project(ctx context.Context, o tenants.ProjectOwner, id string) (*tenants.Project, error)
	DeleteProject(ctx context.Context, o tenants.ProjectOwner, id string) error
	AddItem(ctx context.Context, plan *tenants.Plan, item *tenants.ProjectItem) error
	Items(ctx context.Context, o tenants.ProjectOwner, projectID string, limit, offset int) ([]tenants.ProjectItem, error)
	DeleteItem(ctx context.Context, o tenants.ProjectOwner, projectID, itemID string) error
}

package tenants

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// IdempotencyTTL is how long a durable request id replays its first answer.
const IdempotencyTTL = 24 * time.Hour

// Idempotency states.
const (
	IdemPending = "pending"
	IdemDone    = "done"
)

// Idempotency key spaces: the API's Idempotency-Key (execute, follow-up, sharpen) and the
// projects' request ids never claim each other's ids.
const (
	SpaceAPI      = "api"
	SpaceProjects = "projects"
)

// IdemScope is where a durable request id lives: one tenant, one key mode (a live call never
// replays a test call's answer, nor the reverse) and one key space. The stored key is
// space/mode/id; space and mode are fixed words without "/", so two scopes never share a row.
type IdemScope struct {
	TenantID string
	Mode     string
	Space    string
}

func (sc IdemScope) rowKey(key string) string { return sc.Space + "/" + sc.Mode + "/" + key }

// IdempotentRequest is a durable request id: the first request's hash and, once it finished,
// its answer.
type IdempotentRequest struct {
	bun.BaseModel `bun:"table:idempotency_keys"`

	TenantID    string    `bun:"tenant_id,pk"`
	Key         string    `bun:"key,pk"`
	RequestHash string    `bun:"request_hash"`
	State       string    `bun:"state"`
	Status      int       `bun:"status"`
	ContentType string    `bun:"content_type"`
	Response    string    `bun:"response"`
	CreatedAt   time.Time `bun:"created_at"`
	ExpiresAt   time.Time `bun:"expires_at"`
}

// BeginIdempotent claims a durable request id. It returns (nil, nil) when this request is the
// first and must run; otherwise the existing claim (pending or done) for the caller to compare
// and replay. Exactly one of any number of concurrent identical requests gets nil.
func (s *Store) BeginIdempotent(ctx context.Context, sc IdemScope, key, hash string) (*IdempotentRequest, error) {
	tenantID, key := sc.TenantID, sc.rowKey(key)
	now := Now()
	// An expired claim is forgotten first, so the id can be used again.
	if _, err := s.DB.NewDelete().Model((*IdempotentRequest)(nil)).
		Where("tenant_id = ? AND key = ? AND expires_at < ?", tenantID, key, now).Exec(ctx); err != nil {
		return nil, err
	}
	claim := &IdempotentRequest{TenantID: tenantID, Key: key, RequestHash: hash, State: IdemPending, CreatedAt: now, ExpiresAt: now.Add(IdempotencyTTL)}
	res, err := s.DB.NewInsert().Model(claim).On("CONFLICT (tenant_id, key) DO NOTHING").Exec(ctx)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil, nil
	}
	return s.idempotent(ctx, tenantID, key)
}

// Idempotent loads a claim.
func (s *Store) Idempotent(ctx context.Context, sc IdemScope, key string) (*IdempotentRequest, error) {
	return s.idempotent(ctx, sc.TenantID, sc.rowKey(key))
}

func (s *Store) idempotent(ctx context.Context, tenantID, key string) (*IdempotentRequest, error) {
	r := new(IdempotentRequest)
	err := s.DB.NewSelect().Model(r).Where("tenant_id = ? AND key = ?", tenantID, key).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return r, err
}

// FinishIdempotent stores the first request's answer for replays.
func (s *Store) FinishIdempotent(ctx context.Context, sc IdemScope, key string, status int, contentType, body string) error {
	tenantID, key := sc.TenantID, sc.rowKey(key)
	_, err := s.DB.NewUpdate().Model((*IdempotentRequest)(nil)).
		Set("state = ?, status = ?, content_type = ?, response = ?", IdemDone, status, contentType, body).
		Where("tenant_id = ? AND key = ?", tenantID, key).Exec(ctx)
	return err
}

// AbandonIdempotent releases a claim whose request did not commit, so a retry runs again.
func (s *Store) AbandonIdempotent(ctx context.Context, sc IdemScope, key string) error {
	tenantID, key := sc.TenantID, sc.rowKey(key)
	_, err := s.DB.NewDelete().Model((*IdempotentRequest)(nil)).
		Where("tenant_id = ? AND key = ? AND state = ?", tenantID, key, IdemPending).Exec(ctx)
	return err
}

// SweepIdempotent deletes expired claims.
func (s *Store) SweepIdempotent(ctx context.Context) (int64, error) {
	res, err := s.DB.NewDelete().Model((*IdempotentRequest)(nil)).Where("expires_at < ?", Now()).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

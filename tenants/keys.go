package tenants

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"regexp"
	"time"

	"github.com/uptrace/bun"
)

// Key modes: live keys call real providers, test keys the sandbox.
const (
	ModeLive = "live"
	ModeTest = "test"
)

// APIKey is a tenant's API key; only its SHA-256 hash and a display prefix are stored.
type APIKey struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID         string     `bun:"id,pk" json:"id"`
	TenantID   string     `bun:"tenant_id" json:"tenant_id"`
	Mode       string     `bun:"mode" json:"mode"`
	Label      string     `bun:"label" json:"label"`
	Prefix     string     `bun:"prefix" json:"prefix"`
	Hash       string     `bun:"hash" json:"-"`
	CreatedAt  time.Time  `bun:"created_at" json:"created_at"`
	LastUsedAt *time.Time `bun:"last_used_at" json:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at" json:"revoked_at"`
	// Scope limits the key to some capabilities (zero: everything the plan enables); scope.go.
	Scope Scope `bun:"scope,type:text" json:"scope"`
	// Key policies (issue 34, keypolicy.go): metadata, an expiry, the key's own credit budget per
	// period (0: none, only the tenant's cap), its own rate (0: the plan's; never above it), the
	// manage permission, and the previous secret a roll keeps valid until PrevExpiresAt.
	Metadata      Metadata   `bun:"metadata,type:text" json:"metadata"`
	ExpiresAt     *time.Time `bun:"expires_at" json:"expires_at"`
	CreditBudget  int64      `bun:"credit_budget" json:"credit_budget"`
	RatePerMinute int        `bun:"rate_per_minute" json:"rate_per_minute"`
	Manage        bool       `bun:"manage" json:"manage"`
	PrevHash      string     `bun:"prev_hash,nullzero" json:"-"`
	PrevExpiresAt *time.Time `bun:"prev_expires_at" json:"previous_secret_expires_at"`
}

var keyPattern = regexp.MustCompile(`^cap_(live|test)_[0-9A-Za-z]{32}$`)

// WellFormedKey tells whether s has the shape of a capgate key.
func WellFormedKey(s string) bool { return keyPattern.MatchString(s) }

// HashKey is the stored form of a key.
func HashKey(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// CreateKey issues a key; the raw key is returned once and never stored.
func (s *Store) CreateKey(ctx context.Context, tenantID, mode, label string) (*APIKey, string, error) {
	return s.CreateScopedKey(ctx, tenantID, mode, label, Scope{})
}

// CreateScopedKey issues a key limited to scope (the zero Scope: unlimited).
func (s *Store) CreateScopedKey(ctx context.Context, tenantID, mode, label string, scope Scope) (*APIKey, string, error) {
	return s.CreateKeyWith(ctx, tenantID, mode, KeyPolicy{Label: label, Scope: scope})
}

// CreateKeyWith issues a key with its policies (keypolicy.go checks them).
func (s *Store) CreateKeyWith(ctx context.Context, tenantID, mode string, pol KeyPolicy) (*APIKey, string, error) {
	if mode != ModeLive && mode != ModeTest {
		return nil, "", invalidf("mode", "mode must be live or test")
	}
	t, err := s.Tenant(ctx, tenantID)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, "", errors.New("unknown tenant " + tenantID)
		}
		return nil, "", err
	}
	plan, err := s.Plan(ctx, t.PlanID)
	if err != nil {
		return nil, "", err
	}
	if err := pol.check(plan, Now()); err != nil {
		return nil, "", err
	}
	raw := "cap_" + mode + "_" + RandomString(32)
	k := &APIKey{ID: NewID("key"), TenantID: tenantID, Mode: mode, Label: pol.Label, Prefix: raw[:12], Hash: HashKey(raw), CreatedAt: Now(),
		Scope: pol.Scope, Metadata: pol.Metadata, ExpiresAt: utcPtr(pol.ExpiresAt), CreditBudget: pol.CreditBudget,
		RatePerMinute: pol.RatePerMinute, Manage: pol.Manage}
	if _, err := s.DB.NewInsert().Model(k).Exec(ctx); err != nil {
		return nil, "", err
	}
	return k, raw, nil
}

// KeyByHash finds a key by its hash, revoked or not, or by the previous hash a roll kept (the
// caller checks PrevExpiresAt: Hash differs from hash then).
func (s *Store) KeyByHash(ctx context.Context, hash string) (*APIKey, error) {
	k := new(APIKey)
	err := s.DB.NewSelect().Model(k).Where("hash = ?", hash).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		err = s.DB.NewSelect().Model(k).Where("prev_hash = ?", hash).Scan(ctx)
	}
	return k, notFound(err)
}

// Keys lists a tenant's keys, newest first.
func (s *Store) Keys(ctx context.Context, tenantID string) ([]APIKey, error) {
	var ks []APIKey
	err := s.DB.NewSelect().Model(&ks).Where("tenant_id = ?", tenantID).OrderExpr("created_at DESC, id").Scan(ctx)
	return ks, err
}

// Key loads one key.
func (s *Store) Key(ctx context.Context, id string) (*APIKey, error) {
	k := new(APIKey)
	if !storable(id) {
		return k, ErrNotFound
	}
	err := s.DB.NewSelect().Model(k).Where("id = ?", id).Scan(ctx)
	return k, notFound(err)
}

// RevokeKey revokes a key (tenantID "" means any tenant: admin); revoking twice is a no-op.
func (s *Store) RevokeKey(ctx context.Context, id, tenantID string) (*APIKey, error) {
	if !storable(id) || !storable(tenantID) {
		return nil, ErrNotFound
	}
	q := s.DB.NewUpdate().Table("api_keys").Set("revoked_at = ?", Now()).Where("id = ?", id).Where("revoked_at IS NULL")
	if tenantID != "" {
		q = q.Where("tenant_id = ?", tenantID)
	}
	if _, err := q.Exec(ctx); err != nil {
		return nil, err
	}
	k, err := s.Key(ctx, id)
	if err != nil || (tenantID != "" && k.TenantID != tenantID) {
		return nil, ErrNotFound
	}
	return k, nil
}

// TouchKey records a key's last use.
func (s *Store) TouchKey(ctx context.Context, id string, at time.Time) error {
	_, err := s.DB.NewUpdate().Table("api_keys").Set("last_used_at = ?", at).Where("id = ?", id).Exec(ctx)
	return err
}

package tenants

// Key policies (issue 34): what one API key may do beyond its tenant's plan. A key carries a
// name (its label) and metadata, an expiry, a capability scope (scope.go), its own credit budget
// per period, its own rate limit, and the manage permission. Rolling a key issues a new secret
// and keeps the old one valid for a chosen overlap.
//
// A key's budget is metered exactly like the tenant's credits (meter.go): its period row is a
// credit_periods row of the key's tenant under the mode KeyBudgetMode(key id), leased by the
// instances with the same conditional update (used + leased + k <= budget), and every charge
// moves credits from the key's lease to its used total in the same transaction as the ledger
// row and the tenant's own move. Keys without a budget add no work.

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Key policy limits.
const (
	maxLabel         = 100
	maxMetadataBytes = 4096
	maxMetadataKeys  = 50
	// MaxKeyBudget bounds a key's budget (far above any plan's cap; refuses overflow games).
	MaxKeyBudget = int64(1) << 50
	// MaxRollOverlap bounds how long a rolled key's old secret stays valid.
	MaxRollOverlap  = 30 * 24 * time.Hour
	keyBudgetPrefix = "key:"
)

// KeyBudgetMode is the credit_periods mode under which a key's own budget is metered.
func KeyBudgetMode(keyID string) string { return keyBudgetPrefix + keyID }

// ErrKeyCreditsExhausted is a reservation refused by the key's own budget (errors.Is it
// ErrCreditsExhausted too).
var ErrKeyCreditsExhausted = fmt.Errorf("%w: the API key's own budget", ErrCreditsExhausted)

// Metadata is a key's small JSON object of the caller's own (strings, numbers, booleans, nested
// values), at most maxMetadataBytes encoded and maxMetadataKeys keys.
type Metadata map[string]any

// ParseMetadata reads a metadata object and checks its bounds ("" or "null": none).
func ParseMetadata(raw []byte) (Metadata, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	if len(raw) > maxMetadataBytes {
		return nil, invalidf("metadata", fmt.Sprintf("metadata must be at most %d bytes of JSON", maxMetadataBytes))
	}
	if !utf8.Valid(raw) {
		return nil, invalidf("metadata", "metadata must be valid UTF-8")
	}
	var m Metadata
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, invalidf("metadata", "metadata must be a JSON object")
	}
	return m, m.check()
}

func (m Metadata) check() error {
	if len(m) > maxMetadataKeys {
		return invalidf("metadata", fmt.Sprintf("metadata may have at most %d keys", maxMetadataKeys))
	}
	b, err := json.Marshal(m)
	if err != nil {
		return invalidf("metadata", "metadata must be a JSON object")
	}
	if len(b) > maxMetadataBytes {
		return invalidf("metadata", fmt.Sprintf("metadata must be at most %d bytes of JSON", maxMetadataBytes))
	}
	if strings.Contains(string(b), `\u0000`) {
		return invalidf("metadata", "metadata must not contain a NUL character")
	}
	return nil
}

// Value stores metadata as JSON text; none is the empty string.
func (m Metadata) Value() (driver.Value, error) {
	if len(m) == 0 {
		return "", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// Scan reads the stored form (NULL and "" are none).
func (m *Metadata) Scan(src any) error {
	*m = nil
	var b []byte
	switch v := src.(type) {
	case nil:
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("metadata: cannot scan %T", src)
	}
	if len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, m)
}

// MarshalJSON writes none as {} (the API always shows an object).
func (m Metadata) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(map[string]any(m))
}

// KeyPolicy is what a new key carries.
type KeyPolicy struct {
	Label         string
	Scope         Scope
	Metadata      Metadata
	ExpiresAt     *time.Time // nil: never
	CreditBudget  int64      // 0: none (only the tenant's cap)
	RatePerMinute int        // 0: the plan's
	Manage        bool
}

func (p *KeyPolicy) check(plan *Plan, now time.Time) error {
	if utf8.RuneCountInString(p.Label) > maxLabel {
		return invalidf("label", fmt.Sprintf("label must be at most %d characters", maxLabel))
	}
	if err := checkText("label", p.Label); err != nil {
		return err
	}
	if err := p.Metadata.check(); err != nil {
		return err
	}
	if p.ExpiresAt != nil && !p.ExpiresAt.After(now) {
		return invalidf("expires_at", "expires_at must be in the future")
	}
	if p.CreditBudget < 0 || p.CreditBudget > MaxKeyBudget {
		return invalidf("credit_budget", fmt.Sprintf("credit_budget must be between 0 (none) and %d", MaxKeyBudget))
	}
	if p.RatePerMinute < 0 {
		return invalidf("rate_per_minute", "rate_per_minute must be 0 (the plan's) or more")
	}
	if plan != nil && p.RatePerMinute > plan.RatePerMinute {
		return invalidf("rate_per_minute", fmt.Sprintf("rate_per_minute must not exceed the plan's %d per minute", plan.RatePerMinute))
	}
	return nil
}

// EffectiveRate is the key's rate per minute: its own when set, never above the plan's.
func (k *APIKey) EffectiveRate(plan *Plan) int {
	if k.RatePerMinute > 0 && k.RatePerMinute < plan.RatePerMinute {
		return k.RatePerMinute
	}
	return plan.RatePerMinute
}

// Expired tells whether the key's expiry has passed at now.
func (k *APIKey) Expired(now time.Time) bool { return k.ExpiresAt != nil && !now.Before(*k.ExpiresAt) }

// PreviousValid tells whether the previous secret a roll kept is still valid at now.
func (k *APIKey) PreviousValid(now time.Time) bool {
	return k.PrevHash != "" && k.PrevExpiresAt != nil && now.Before(*k.PrevExpiresAt)
}

// Policy is the key's current policy (for an update to start from).
func (k *APIKey) Policy() KeyPolicy {
	return KeyPolicy{Label: k.Label, Scope: k.Scope, Metadata: k.Metadata, ExpiresAt: k.ExpiresAt,
		CreditBudget: k.CreditBudget, RatePerMinute: k.RatePerMinute, Manage: k.Manage}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}

// KeyPatch changes some of a key's policies (nil: unchanged). ClearExpiry removes the expiry.
type KeyPatch struct {
	Label         *string
	Scope         *Scope
	Metadata      *Metadata
	ExpiresAt     *time.Time
	ClearExpiry   bool
	CreditBudget  *int64
	RatePerMinute *int
	Manage        *bool
}

// ownedKey loads a live key of the tenant (tenantID "": any tenant, the admin).
func (s *Store) ownedKey(ctx context.Context, id, tenantID string) (*APIKey, error) {
	if !storable(id) || !storable(tenantID) {
		return nil, ErrNotFound
	}
	k, err := s.Key(ctx, id)
	if err != nil {
		return nil, err
	}
	if tenantID != "" && k.TenantID != tenantID {
		return nil, ErrNotFound
	}
	return k, nil
}

// ErrKeyRevoked refuses a change to a revoked key.
var ErrKeyRevoked = errors.New("the key is revoked")

// UpdateKey applies a patch to a key of the tenant (tenantID "": any tenant) and returns the key
// before and after.
func (s *Store) UpdateKey(ctx context.Context, id, tenantID string, patch KeyPatch) (before, after *APIKey, err error) {
	k, err := s.ownedKey(ctx, id, tenantID)
	if err != nil {
		return nil, nil, err
	}
	if k.RevokedAt != nil {
		return nil, nil, ErrKeyRevoked
	}
	pol := k.Policy()
	if patch.Label != nil {
		pol.Label = *patch.Label
	}
	if patch.Scope != nil {
		pol.Scope = *patch.Scope
	}
	if patch.Metadata != nil {
		pol.Metadata = *patch.Metadata
	}
	expiryChanged := patch.ExpiresAt != nil || patch.ClearExpiry
	if patch.ClearExpiry {
		pol.ExpiresAt = nil
	} else if patch.ExpiresAt != nil {
		pol.ExpiresAt = utcPtr(patch.ExpiresAt)
	}
	if patch.CreditBudget != nil {
		pol.CreditBudget = *patch.CreditBudget
	}
	if patch.RatePerMinute != nil {
		pol.RatePerMinute = *patch.RatePerMinute
	}
	if patch.Manage != nil {
		pol.Manage = *patch.Manage
	}
	t, err := s.Tenant(ctx, k.TenantID)
	if err != nil {
		return nil, nil, err
	}
	plan, err := s.Plan(ctx, t.PlanID)
	if err != nil {
		return nil, nil, err
	}
	check := pol
	if !expiryChanged {
		check.ExpiresAt = nil // an unchanged expiry in the past is not the caller's mistake now
	}
	if err := check.check(plan, Now()); err != nil {
		return nil, nil, err
	}
	nk := *k
	nk.Label, nk.Scope, nk.Metadata, nk.ExpiresAt = pol.Label, pol.Scope, pol.Metadata, pol.ExpiresAt
	nk.CreditBudget, nk.RatePerMinute, nk.Manage = pol.CreditBudget, pol.RatePerMinute, pol.Manage
	res, err := s.DB.NewUpdate().Model(&nk).Column("label", "scope", "metadata", "expires_at", "credit_budget", "rate_per_minute", "manage").
		WherePK().Where("revoked_at IS NULL").Exec(ctx)
	if err != nil {
		return nil, nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, nil, ErrKeyRevoked
	}
	return k, &nk, nil
}

// RollKey issues a new secret for a key of the tenant (tenantID "": any tenant); the old secret
// stays valid for overlap (0: it stops at once). A secret kept by an earlier roll is replaced.
func (s *Store) RollKey(ctx context.Context, id, tenantID string, overlap time.Duration) (*APIKey, string, error) {
	if overlap < 0 || overlap > MaxRollOverlap {
		return nil, "", invalidf("overlap_seconds", fmt.Sprintf("the overlap must be between 0 and %d seconds", int(MaxRollOverlap.Seconds())))
	}
	k, err := s.ownedKey(ctx, id, tenantID)
	if err != nil {
		return nil, "", err
	}
	if k.RevokedAt != nil {
		return nil, "", ErrKeyRevoked
	}
	raw := "cap_" + k.Mode + "_" + RandomString(32)
	nk := *k
	nk.Prefix, nk.Hash = raw[:12], HashKey(raw)
	nk.PrevHash, nk.PrevExpiresAt = "", nil
	if overlap > 0 {
		exp := Now().Add(overlap)
		nk.PrevHash, nk.PrevExpiresAt = k.Hash, &exp
	}
	// Conditional on the hash it read: two rolls at once cannot both keep a secret.
	res, err := s.DB.NewUpdate().Model(&nk).Column("prefix", "hash", "prev_hash", "prev_expires_at").
		WherePK().Where("hash = ?", k.Hash).Where("revoked_at IS NULL").Exec(ctx)
	if err != nil {
		return nil, "", err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, "", errors.New("the key changed meanwhile; roll it again")
	}
	return &nk, raw, nil
}

// KeyUsage is a key's credits in its tenant's current period: what its own budget metered when
// it has one, otherwise the sum of its ledger rows.
func (s *Store) KeyUsage(ctx context.Context, t *Tenant, k *APIKey) (int64, error) {
	start, _ := PeriodAt(t.PeriodAnchor, Now())
	start = start.Truncate(time.Microsecond)
	var used int64
	if k.CreditBudget > 0 {
		var rows []int64
		err := s.DB.NewSelect().Table("credit_periods").Column("used").
			Where("tenant_id = ? AND mode = ? AND period_start = ?", t.ID, KeyBudgetMode(k.ID), start).Scan(ctx, &rows)
		if err != nil {
			return 0, err
		}
		if len(rows) > 0 {
			return rows[0], nil
		}
	}
	err := s.DB.NewSelect().Table("ledger").ColumnExpr("COALESCE(SUM(credits), 0)").
		Where("tenant_id = ? AND mode = ? AND period_start = ? AND key_id = ?", t.ID, k.Mode, start, k.ID).Scan(ctx, &used)
	return used, err
}

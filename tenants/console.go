package tenants

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// ConsoleSession is a signed-in console user; only the hash of its cookie value is stored.
type ConsoleSession struct {
	bun.BaseModel `bun:"table:console_sessions"`

	IDHash    string    `bun:"id_hash,pk"`
	UserID    string    `bun:"user_id"`
	CSRF      string    `bun:"csrf"`
	CreatedAt time.Time `bun:"created_at"`
	ExpiresAt time.Time `bun:"expires_at"`
}

// CreateConsoleSession signs a user in; it returns the cookie value (shown to the browser only).
func (s *Store) CreateConsoleSession(ctx context.Context, userID string, ttl time.Duration) (string, *ConsoleSession, error) {
	raw := RandomString(43)
	now := Now()
	cs := &ConsoleSession{IDHash: HashKey(raw), UserID: userID, CSRF: RandomString(32), CreatedAt: now, ExpiresAt: now.Add(ttl)}
	_, err := s.DB.NewInsert().Model(cs).Exec(ctx)
	return raw, cs, err
}

// ConsoleSession finds an unexpired session by its cookie value.
func (s *Store) ConsoleSession(ctx context.Context, raw string) (*ConsoleSession, error) {
	cs := new(ConsoleSession)
	err := s.DB.NewSelect().Model(cs).Where("id_hash = ? AND expires_at > ?", HashKey(raw), Now()).Scan(ctx)
	return cs, notFound(err)
}

// DeleteConsoleSession signs out.
func (s *Store) DeleteConsoleSession(ctx context.Context, raw string) error {
	_, err := s.DB.NewDelete().Model((*ConsoleSession)(nil)).Where("id_hash = ?", HashKey(raw)).Exec(ctx)
	return err
}

// ProviderSetting is a provider's base URL and key set in the console; the key is encrypted.
type ProviderSetting struct {
	bun.BaseModel `bun:"table:provider_settings"`

	ProviderID    string    `bun:"provider_id,pk"`
	BaseURL       string    `bun:"base_url"`
	KeyCiphertext string    `bun:"key_ciphertext"`
	UpdatedBy     string    `bun:"updated_by"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

// Sealer encrypts provider keys at rest with AES-256-GCM under the master key.
type Sealer struct{ aead cipher.AEAD }

// NewSealer makes a sealer from a 32-byte master key.
func NewSealer(masterKey []byte) (*Sealer, error) {
	if len(masterKey) != 32 {
		return nil, errors.New("the master key must be 32 bytes")
	}
	block, err := aes.NewCipher(masterKey)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts a secret; the provider id is bound as additional data.
func (s *Sealer) Seal(providerID, secret string) (string, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := s.aead.Seal(nonce, nonce, []byte(secret), []byte(providerID))
	return base64.StdEncoding.EncodeToString(out), nil
}

// Open decrypts a sealed secret.
func (s *Sealer) Open(providerID, sealed string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(b) < s.aead.NonceSize() {
		return "", errors.New("sealed key is malformed")
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, b[:n], b[n:], []byte(providerID))
	if err != nil {
		return "", errors.New("sealed key does not open with this master key")
	}
	return string(plain), nil
}

// ProviderSettings lists every stored provider setting.
func (s *Store) ProviderSettings(ctx context.Context) ([]ProviderSetting, error) {
	var ps []ProviderSetting
	err := s.DB.NewSelect().Model(&ps).Order("provider_id").Scan(ctx)
	return ps, err
}

// SaveProviderSetting upserts a provider setting.
func (s *Store) SaveProviderSetting(ctx context.Context, ps *ProviderSetting) error {
	if err := checkTexts("base_url", ps.BaseURL, "updated_by", ps.UpdatedBy); err != nil {
		return err
	}
	ps.UpdatedAt = Now()
	_, err := s.DB.NewInsert().Model(ps).On("CONFLICT (provider_id) DO UPDATE").
		Set("base_url = EXCLUDED.base_url, key_ciphertext = EXCLUDED.key_ciphertext, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at").Exec(ctx)
	return err
}

// AuditEntry is one admin change.
type AuditEntry struct {
	bun.BaseModel `bun:"table:audit_log"`

	ID          int64     `bun:"id,pk,autoincrement" json:"id"`
	Actor       string    `bun:"actor" json:"actor"`
	Action      string    `bun:"action" json:"action"`
	Target      string    `bun:"target" json:"target"`
	BeforeState string    `bun:"before_state" json:"before"`
	AfterState  string    `bun:"after_state" json:"after"`
	CreatedAt   time.Time `bun:"created_at" json:"created_at"`
}

// Audit records an admin change; before and after are encoded as JSON (callers redact secrets).
func (s *Store) Audit(ctx context.Context, actor, action, target string, before, after any) error {
	enc := func(v any) string {
		if v == nil {
			return ""
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	if err := checkTexts("actor", actor, "action", action, "target", target); err != nil {
		return err
	}
	e := &AuditEntry{Actor: actor, Action: action, Target: target, BeforeState: enc(before), AfterState: enc(after), CreatedAt: Now()}
	_, err := s.DB.NewInsert().Model(e).Exec(ctx)
	return err
}

// AuditLog lists admin changes, newest first.
func (s *Store) AuditLog(ctx context.Context, limit, offset int) ([]AuditEntry, error) {
	var es []AuditEntry
	err := s.DB.NewSelect().Model(&es).OrderExpr("id DESC").Limit(int64(limit)).Offset(int64(offset)).Scan(ctx)
	return es, err
}

// Workout is a demonstration saved to a tenant by fitness.exercises.
type Workout struct {
	bun.BaseModel `bun:"table:workouts"`

	ID             string    `bun:"id,pk" json:"id"`
	TenantID       string    `bun:"tenant_id" json:"-"`
	Title          string    `bun:"title" json:"title"`
	Provider       string    `bun:"provider" json:"provider"`
	ExerciseRef    string    `bun:"exercise_ref" json:"exercise_ref"`
	Muscles        string    `bun:"muscles" json:"-"`
	Equipment      string    `bun:"equipment" json:"-"`
	VideoAvailable bool      `bun:"video_available" json:"video_available"`
	CreatedAt      time.Time `bun:"created_at" json:"created_at"`
}

// List decodes a JSON string array column.
func List(s string) []string {
	var out []string
	_ = json.Unmarshal([]byte(s), &out)
	return out
}

// SaveWorkout stores a workout once per tenant and exercise, returning the stored one.
func (s *Store) SaveWorkout(ctx context.Context, w *Workout) (*Workout, error) {
	if err := checkTexts("title", w.Title, "provider", w.Provider, "exercise_ref", w.ExerciseRef); err != nil {
		return nil, err
	}
	if w.ID == "" {
		w.ID = NewID("wkt")
	}
	w.CreatedAt = Now()
	if _, err := s.DB.NewInsert().Model(w).On("CONFLICT (tenant_id, provider, exercise_ref) DO NOTHING").Exec(ctx); err != nil {
		return nil, err
	}
	out := new(Workout)
	err := s.DB.NewSelect().Model(out).Where("tenant_id = ? AND provider = ? AND exercise_ref = ?", w.TenantID, w.Provider, w.ExerciseRef).Scan(ctx)
	return out, err
}

// Workouts lists a tenant's workouts, newest first.
func (s *Store) Workouts(ctx context.Context, tenantID string) ([]Workout, error) {
	var ws []Workout
	err := s.DB.NewSelect().Model(&ws).Where("tenant_id = ?", tenantID).OrderExpr("created_at DESC").Scan(ctx)
	return ws, err
}

// Workout loads one of a tenant's workouts.
func (s *Store) Workout(ctx context.Context, tenantID, id string) (*Workout, error) {
	w := new(Workout)
	if !storable(id) {
		return w, ErrNotFound
	}
	err := s.DB.NewSelect().Model(w).Where("id = ? AND tenant_id = ?", id, tenantID).Scan(ctx)
	return w, notFound(err)
}

// DeleteWorkout removes a tenant's saved workout; another tenant's or an unknown one is ErrNotFound.
func (s *Store) DeleteWorkout(ctx context.Context, tenantID, id string) error {
	res, err := s.DB.NewDelete().TableExpr("workouts").Where("id = ? AND tenant_id = ?", id, tenantID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// DailyUsage is credits and calls of one day and capability.
type DailyUsage struct {
	Day        string `bun:"day"`
	Capability string `bun:"capability"`
	Credits    int64  `bun:"credits"`
	Calls      int64  `bun:"calls"`
}

// UsageByDay sums a tenant's ledger per day and capability since t.
func (s *Store) UsageByDay(ctx context.Context, tenantID, mode string, since time.Time) ([]DailyUsage, error) {
	var rows []DailyUsage
	day := "substr(CAST(created_at AS TEXT), 1, 10)"
	if s.DB.Kind == Postgres {
		day = "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
	}
	err := s.DB.NewSelect().Table("ledger").
		ColumnExpr(day+" AS day").ColumnExpr("capability").
		ColumnExpr("SUM(credits) AS credits").ColumnExpr("COUNT(*) AS calls").
		Where("tenant_id = ? AND mode = ? AND created_at >= ?", tenantID, mode, since).
		GroupExpr("1, 2").OrderExpr("1, 2").Scan(ctx, &rows)
	return rows, err
}

// CacheUsage is, per capability, what the shared upstream cache gave a tenant.
type CacheUsage struct {
	Capability   string `bun:"capability"`
	Calls        int64  `bun:"calls"`
	Hits         int64  `bun:"hits"`      // answered from the cache
	Coalesced    int64  `bun:"coalesced"` // answered by a concurrent caller's upstream call
	CreditsSaved int64  `bun:"credits_saved"`
}

// CallsSaved is the upstream calls the tenant's calls did not make.
func (u CacheUsage) CallsSaved() int64 { return u.Hits + u.Coalesced }

// CacheUsageSince sums a tenant's ledger per capability since t: calls, cache hits, coalesced
// answers and the credits they saved.
func (s *Store) CacheUsageSince(ctx context.Context, tenantID, mode string, since time.Time) ([]CacheUsage, error) {
	var rows []CacheUsage
	err := s.DB.NewSelect().Table("ledger").
		ColumnExpr("capability").ColumnExpr("COUNT(*) AS calls").
		ColumnExpr("SUM(CASE WHEN cache = 'hit' THEN 1 ELSE 0 END) AS hits").
		ColumnExpr("SUM(CASE WHEN cache = 'coalesced' THEN 1 ELSE 0 END) AS coalesced").
		ColumnExpr("SUM(credits_saved) AS credits_saved").
		Where("tenant_id = ? AND mode = ? AND created_at >= ?", tenantID, mode, since).
		GroupExpr("capability").OrderExpr("capability").Scan(ctx, &rows)
	return rows, err
}

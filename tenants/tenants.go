package tenants

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"golang.org/x/crypto/bcrypt"
)

// Tenant statuses.
const (
	StatusActive    = "active"
	StatusSuspended = "suspended"
)

// Tenant is one customer account: its applications call the API with its keys.
type Tenant struct {
	bun.BaseModel `bun:"table:tenants"`

	ID           string    `bun:"id,pk" json:"id"`
	Name         string    `bun:"name" json:"name"`
	Email        string    `bun:"email" json:"email,omitempty"`
	PlanID       string    `bun:"plan_id" json:"plan"`
	Status       string    `bun:"status" json:"status"`
	PeriodAnchor time.Time `bun:"period_anchor" json:"period_anchor"`
	CreatedAt    time.Time `bun:"created_at" json:"created_at"`
}

// CreateTenant inserts a tenant on an existing plan.
func (s *Store) CreateTenant(ctx context.Context, name, planID, email string) (*Tenant, error) {
	if name == "" || len(name) > 200 {
		return nil, invalidf("name", "tenant name must be 1..200 characters")
	}
	if err := checkTexts("name", name, "email", email); err != nil {
		return nil, err
	}
	if _, err := s.Plan(ctx, planID); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, errors.New("unknown plan " + planID)
		}
		return nil, err
	}
	now := Now()
	t := &Tenant{ID: NewID("tnt"), Name: name, Email: email, PlanID: planID, Status: StatusActive, PeriodAnchor: now, CreatedAt: now}
	_, err := s.DB.NewInsert().Model(t).Exec(ctx)
	return t, err
}

// Tenant loads a tenant.
func (s *Store) Tenant(ctx context.Context, id string) (*Tenant, error) {
	t := new(Tenant)
	if !storable(id) {
		return t, ErrNotFound
	}
	err := s.DB.NewSelect().Model(t).Where("id = ?", id).Scan(ctx)
	return t, notFound(err)
}

// Tenants lists tenants, newest first, optionally filtered by a name or email substring.
func (s *Store) Tenants(ctx context.Context, search string, limit, offset int) ([]Tenant, error) {
	var ts []Tenant
	if !storable(search) {
		return ts, nil // no stored name, email or id holds a NUL byte or invalid UTF-8
	}
	q := s.DB.NewSelect().Model(&ts).OrderExpr("created_at DESC, id")
	if search != "" {
		like := "%" + escapeLike(search) + "%"
		q = q.Where("(LOWER(name) LIKE LOWER(?) ESCAPE '\\' OR LOWER(email) LIKE LOWER(?) ESCAPE '\\' OR id = ?)", like, like, search)
	}
	if limit > 0 {
		q = q.Limit(int64(limit)).Offset(int64(offset))
	}
	err := q.Scan(ctx)
	return ts, err
}

func escapeLike(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r == '%' || r == '_' || r == '\\' {
			out = append(out, '\\')
		}
		out = append(out, r)
	}
	return string(out)
}

// SetPlan moves a tenant to another plan; the new cap and rate apply at once.
func (s *Store) SetPlan(ctx context.Context, tenantID, planID string) (*Tenant, error) {
	if _, err := s.Plan(ctx, planID); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, errors.New("unknown plan " + planID)
		}
		return nil, err
	}
	return s.updateTenant(ctx, tenantID, "plan_id", planID)
}

// SetStatus suspends or resumes a tenant.
func (s *Store) SetStatus(ctx context.Context, tenantID, status string) (*Tenant, error) {
	if status != StatusActive && status != StatusSuspended {
		return nil, errors.New("status must be active or suspended")
	}
	return s.updateTenant(ctx, tenantID, "status", status)
}

func (s *Store) updateTenant(ctx context.Context, id, column string, value any) (*Tenant, error) {
	if !storable(id) {
		return nil, ErrNotFound
	}
	res, err := s.DB.NewUpdate().Table("tenants").Set("? = ?", bun.Ident(column), value).Where("id = ?", id).Exec(ctx)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, ErrNotFound
	}
	return s.Tenant(ctx, id)
}

// User roles.
const (
	RoleOwner = "owner"
	RoleAdmin = "admin"
)

// User signs in to the console.
type User struct {
	bun.BaseModel `bun:"table:users"`

	ID           string    `bun:"id,pk" json:"id"`
	TenantID     string    `bun:"tenant_id" json:"tenant_id"`
	Email        string    `bun:"email" json:"email"`
	PasswordHash string    `bun:"password_hash" json:"-"`
	Role         string    `bun:"role" json:"role"`
	CreatedAt    time.Time `bun:"created_at" json:"created_at"`
}

// MinPasswordLength is enforced on every password set.
const MinPasswordLength = 12

// CreateUser adds a console user to a tenant with a bcrypt-hashed password.
func (s *Store) CreateUser(ctx context.Context, tenantID, email, password, role string) (*User, error) {
	if len(password) < MinPasswordLength {
		return nil, errors.New("password must be at least 12 characters")
	}
	if len(password) > 72 {
		return nil, errors.New("password must be at most 72 bytes")
	}
	if err := checkText("email", email); err != nil {
		return nil, err // checked before normalizing, which would turn invalid bytes into U+FFFD
	}
	if role != RoleOwner && role != RoleAdmin {
		return nil, errors.New("role must be owner or admin")
	}
	if _, err := s.Tenant(ctx, tenantID); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, errors.New("unknown tenant " + tenantID)
		}
		return nil, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), PasswordCost)
	if err != nil {
		return nil, err
	}
	u := &User{ID: NewID("usr"), TenantID: tenantID, Email: normalizeEmail(email), PasswordHash: string(hash), Role: role, CreatedAt: Now()}
	if u.Email == "" || len(u.Email) > 254 {
		return nil, invalidf("email", "email must be 1..254 characters")
	}
	if err := checkText("email", u.Email); err != nil {
		return nil, err
	}
	res, err := s.DB.NewInsert().Model(u).On("CONFLICT (email) DO NOTHING").Exec(ctx)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, errors.New("a user with that email exists")
	}
	return u, nil
}

// CheckPassword returns the user when email and password match; the same error otherwise.
func (s *Store) CheckPassword(ctx context.Context, email, password string) (*User, error) {
	u := new(User)
	err := s.DB.NewSelect().Model(u).Where("email = ?", normalizeEmail(email)).Scan(ctx)
	if err != nil {
		// Spend the same time as a real comparison so timing does not reveal which emails exist.
		_ = bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return nil, ErrNotFound
	}
	if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(password)) != nil {
		return nil, ErrNotFound
	}
	return u, nil
}

// PasswordCost is the bcrypt cost of new password hashes (bcrypt's default, 10). Tests of
// packages that sign in many times lower it through tenantstest: at cost 10 under the race
// detector one check took most of a second, and the console's tests spent minutes in bcrypt.
var PasswordCost = bcrypt.DefaultCost

// dummyHash is compared against when no user has the email, at the cost real hashes have, so
// the answer's timing does not tell which emails exist.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("capgate-dummy-password"), PasswordCost)
	return h
})

// User loads a user.
func (s *Store) User(ctx context.Context, id string) (*User, error) {
	u := new(User)
	if !storable(id) {
		return u, ErrNotFound
	}
	err := s.DB.NewSelect().Model(u).Where("id = ?", id).Scan(ctx)
	return u, notFound(err)
}

// NormalizeEmail is the form of an email that user lookups match on; the console's sign-in limit
// keys on it too, so spellings of one address share one counter.
func NormalizeEmail(e string) string { return normalizeEmail(e) }

func normalizeEmail(e string) string {
	out := []rune{}
	for _, r := range e {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		if r == ' ' || r == '\t' || r == '\n' {
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

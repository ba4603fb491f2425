package tenants

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"
	"golang.org/x/crypto/bcrypt"
)

// PasswordResetTTL is how long an admin-issued reset link works.
const PasswordResetTTL = 24 * time.Hour

// PasswordReset is a one-time link an admin issues so a user can set a new password; only the
// token's SHA-256 is stored.
type PasswordReset struct {
	bun.BaseModel `bun:"table:password_resets"`

	TokenHash string    `bun:"token_hash,pk"`
	UserID    string    `bun:"user_id"`
	CreatedBy string    `bun:"created_by"`
	CreatedAt time.Time `bun:"created_at"`
	ExpiresAt time.Time `bun:"expires_at"`
}

// ErrWrongPassword answers a password change whose current password does not match.
var ErrWrongPassword = errors.New("the current password is not right")

func checkNewPassword(password string) error {
	if len(password) < MinPasswordLength {
		return invalidf("password", "password must be at least 12 characters")
	}
	if len(password) > 72 {
		return invalidf("password", "password must be at most 72 bytes")
	}
	return nil
}

// ChangePassword sets a user's password after checking the current one, and ends the user's
// other console sessions (keepSession, the raw cookie of the session making the change, stays).
func (s *Store) ChangePassword(ctx context.Context, userID, current, password, keepSession string) error {
	u, err := s.User(ctx, userID)
	if err != nil {
		return err
	}
	if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(current)) != nil {
		return ErrWrongPassword
	}
	return s.setPassword(ctx, userID, password, HashKey(keepSession))
}

func (s *Store) setPassword(ctx context.Context, userID, password, keepHash string) error {
	if err := checkNewPassword(password); err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), PasswordCost)
	if err != nil {
		return err
	}
	return s.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewUpdate().Model((*User)(nil)).Set("password_hash = ?", string(hash)).Where("id = ?", userID).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewDelete().Model((*ConsoleSession)(nil)).Where("user_id = ? AND id_hash <> ?", userID, keepHash).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewDelete().Model((*PasswordReset)(nil)).Where("user_id = ?", userID).Exec(ctx)
		return err
	})
}

// IssuePasswordReset makes a one-time reset token for a user (an admin's action); it returns
// the raw token, shown once. A new token replaces the user's earlier ones.
func (s *Store) IssuePasswordReset(ctx context.Context, userID, issuedBy string) (string, error) {
	if _, err := s.User(ctx, userID); err != nil {
		return "", err
	}
	raw := RandomString(32)
	now := Now()
	r := &PasswordReset{TokenHash: HashKey(raw), UserID: userID, CreatedBy: issuedBy, CreatedAt: now, ExpiresAt: now.Add(PasswordResetTTL)}
	err := s.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*PasswordReset)(nil)).Where("user_id = ?", userID).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(r).Exec(ctx)
		return err
	})
	return raw, err
}

// PasswordResetUser is the user a live reset token belongs to.
func (s *Store) PasswordResetUser(ctx context.Context, raw string) (*User, error) {
	r := new(PasswordReset)
	if !storable(raw) {
		return nil, ErrNotFound
	}
	if err := s.DB.NewSelect().Model(r).Where("token_hash = ? AND expires_at > ?", HashKey(raw), Now()).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	return s.User(ctx, r.UserID)
}

// ResetPassword sets a new password with a live reset token, which it uses up, and ends every
// console session of the user.
func (s *Store) ResetPassword(ctx context.Context, raw, password string) (*User, error) {
	u, err := s.PasswordResetUser(ctx, raw)
	if err != nil {
		return nil, err
	}
	if err := s.setPassword(ctx, u.ID, password, ""); err != nil {
		return nil, err
	}
	return u, nil
}

// TenantUsers lists a tenant's console users.
func (s *Store) TenantUsers(ctx context.Context, tenantID string) ([]User, error) {
	var out []User
	err := s.DB.NewSelect().Model(&out).Where("tenant_id = ?", tenantID).OrderExpr("email").Scan(ctx)
	return out, err
}

// UserByEmail finds a console user by email.
func (s *Store) UserByEmail(ctx context.Context, email string) (*User, error) {
	u := new(User)
	e := normalizeEmail(email)
	if e == "" || !storable(e) {
		return nil, ErrNotFound
	}
	err := s.DB.NewSelect().Model(u).Where("email = ?", e).Scan(ctx)
	return u, notFound(err)
}

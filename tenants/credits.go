package tenants

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// ErrCreditsExhausted is returned when a reservation would push used over the cap.
var ErrCreditsExhausted = errors.New("credit cap used up")

// CreditPeriod is one tenant's usage in one billing period and mode (live and test are separate).
type CreditPeriod struct {
	bun.BaseModel `bun:"table:credit_periods"`

	TenantID    string    `bun:"tenant_id,pk"`
	Mode        string    `bun:"mode,pk"`
	PeriodStart time.Time `bun:"period_start,pk"`
	PeriodEnd   time.Time `bun:"period_end"`
	Used        int64     `bun:"used"`
}

// LedgerEntry is one settled charge. For a period, used equals the sum of its entries.
type LedgerEntry struct {
	bun.BaseModel `bun:"table:ledger"`

	ID          int64     `bun:"id,pk,autoincrement" json:"id"`
	RequestID   string    `bun:"request_id" json:"request_id"`
	TenantID    string    `bun:"tenant_id" json:"tenant_id"`
	KeyID       string    `bun:"key_id" json:"key_id"`
	Mode        string    `bun:"mode" json:"mode"`
	PeriodStart time.Time `bun:"period_start" json:"period_start"`
	Capability  string    `bun:"capability" json:"capability"`
	Action      string    `bun:"action" json:"action"`
	Credits     int64     `bun:"credits" json:"credits"`
	CreatedAt   time.Time `bun:"created_at" json:"created_at"`
	// Cache is "hit" or "coalesced" when the shared upstream cache gave the answer ("" otherwise);
	// CreditsSaved is what the call would have cost more without it.
	Cache        string `bun:"cache" json:"cache,omitempty"`
	CreditsSaved int64  `bun:"credits_saved" json:"credits_saved,omitempty"`
}

// Balance is the spec's Balance object.
type Balance struct {
	Used      int64     `json:"used"`
	Cap       int64     `json:"cap"`
	PeriodEnd time.Time `json:"period_end"`
}

// Remaining is what is left of the cap.
func (b Balance) Remaining() int64 {
	if b.Used >= b.Cap {
		return 0
	}
	return b.Cap - b.Used
}

// PeriodAt is the monthly period containing t, counted from the anchor.
func PeriodAt(anchor, t time.Time) (start, end time.Time) {
	anchor = anchor.UTC()
	t = t.UTC()
	months := (t.Year()-anchor.Year())*12 + int(t.Month()-anchor.Month())
	if months < 0 {
		months = 0
	}
	start = addMonths(anchor, months)
	for start.After(t) && months > 0 {
		months--
		start = addMonths(anchor, months)
	}
	end = addMonths(anchor, months+1)
	for !end.After(t) {
		months++
		start, end = end, addMonths(anchor, months+1)
	}
	return start, end
}

// addMonths adds months to the anchor, clamping the day to the month's length (Jan 31 → Feb 28).
func addMonths(anchor time.Time, months int) time.Time {
	y, m, d := anchor.Date()
	first := time.Date(y, m+time.Month(months), 1, anchor.Hour(), anchor.Minute(), anchor.Second(), anchor.Nanosecond(), time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	if d > last {
		d = last
	}
	return time.Date(first.Year(), first.Month(), d, anchor.Hour(), anchor.Minute(), anchor.Second(), anchor.Nanosecond(), time.UTC)
}

// currentPeriod makes sure the period row containing now exists and returns its key. Period
// rows are never deleted, so a row this process has seen is not inserted again.
func (s *Store) currentPeriod(ctx context.Context, db bun.IDB, t *Tenant, mode string, now time.Time) (time.Time, time.Time, error) {
	start, end := PeriodAt(t.PeriodAnchor, now)
	start, end = start.Truncate(time.Microsecond), end.Truncate(time.Microsecond)
	key := t.ID + "|" + mode + "|" + start.Format(time.RFC3339Nano)
	if _, known := s.periods.Load(key); known {
		return start, end, nil
	}
	p := &CreditPeriod{TenantID: t.ID, Mode: mode, PeriodStart: start, PeriodEnd: end}
	if _, err := db.NewInsert().Model(p).On("CONFLICT (tenant_id, mode, period_start) DO NOTHING").Exec(ctx); err != nil {
		return start, end, err
	}
	s.periods.Store(key, struct{}{})
	return start, end, nil
}

// Balance reports the tenant's usage in the current period of a mode.
func (s *Store) Balance(ctx context.Context, t *Tenant, plan *Plan, mode string) (Balance, error) {
	start, end, err := s.currentPeriod(ctx, s.DB.DB, t, mode, Now())
	if err != nil {
		return Balance{}, err
	}
	var used int64
	err = s.DB.NewSelect().Table("credit_periods").Column("used").
		Where("tenant_id = ? AND mode = ? AND period_start = ?", t.ID, mode, start).Scan(ctx, &used)
	return Balance{Used: used, Cap: plan.CreditCap, PeriodEnd: end}, err
}

// Reservation holds credits a call took from its instance's lease before its upstream work,
// until the Meter settles or refunds it.
type Reservation struct {
	TenantID    string
	Mode        string
	PeriodStart time.Time
	Amount      int64
	Cap         int64
	lease       *lease
	done        bool
	// key is the reservation on the key's own budget (keypolicy.go), nil for a key without one.
	key *Reservation
}

// LedgerSum is the sum of ledger credits of a tenant's period (the invariant's other side).
func (s *Store) LedgerSum(ctx context.Context, tenantID, mode string, periodStart time.Time) (int64, error) {
	var sum int64
	err := s.DB.NewSelect().Table("ledger").ColumnExpr("COALESCE(SUM(credits), 0)").
		Where("tenant_id = ? AND mode = ? AND period_start = ?", tenantID, mode, periodStart).Scan(ctx, &sum)
	return sum, err
}

// CallsSince counts ledger entries (calls) of a tenant since t.
func (s *Store) CallsSince(ctx context.Context, tenantID, mode string, t time.Time) (int, error) {
	n, err := s.DB.NewSelect().Table("ledger").Where("tenant_id = ? AND mode = ? AND created_at >= ?", tenantID, mode, t).Count(ctx)
	return int(n), err
}

// UsageFilter selects ledger entries for the usage page and export.
type UsageFilter struct {
	TenantID   string
	Mode       string
	Capability string
	From, To   time.Time // To is exclusive; zero means open
	Limit      int
	Offset     int
}

// Usage lists ledger entries, newest first.
func (s *Store) Usage(ctx context.Context, f UsageFilter) ([]LedgerEntry, error) {
	var es []LedgerEntry
	q := s.DB.NewSelect().Model(&es).Where("tenant_id = ?", f.TenantID).OrderExpr("created_at DESC, id DESC")
	if f.Mode != "" {
		q = q.Where("mode = ?", f.Mode)
	}
	if f.Capability != "" {
		q = q.Where("capability = ?", f.Capability)
	}
	if !f.From.IsZero() {
		q = q.Where("created_at >= ?", f.From)
	}
	if !f.To.IsZero() {
		q = q.Where("created_at < ?", f.To)
	}
	if f.Limit > 0 {
		q = q.Limit(int64(f.Limit)).Offset(int64(f.Offset))
	}
	err := q.Scan(ctx)
	return es, err
}

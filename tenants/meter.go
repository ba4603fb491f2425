package tenants

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/trace"
)

// CreditLease is the row of credits one instance holds from a period. amount is everything it
// took, spent what its committed ledger rows charged; amount - spent is still held and counted
// in credit_periods.leased.
type CreditLease struct {
	bun.BaseModel `bun:"table:credit_leases"`

	ID          string    `bun:"id,pk"`
	InstanceID  string    `bun:"instance_id"`
	TenantID    string    `bun:"tenant_id"`
	Mode        string    `bun:"mode"`
	PeriodStart time.Time `bun:"period_start"`
	Amount      int64     `bun:"amount"`
	Spent       int64     `bun:"spent"`
	ExpiresAt   time.Time `bun:"expires_at"`
}

// MeterOptions tune the lease meter; zero values take the defaults.
type MeterOptions struct {
	// Instance names this process in its lease rows (default: a random id per start).
	Instance string
	// LeaseTTL is how long a lease outlives its last renewal: after it, any instance may take
	// back what a dead holder did not spend (default 60 s).
	LeaseTTL time.Duration
	// IdleRelease returns a lease nobody used for this long (default 15 s).
	IdleRelease time.Duration
	// MaxLease bounds one lease grant (default 10,000 credits).
	MaxLease int64
	Logger   *slog.Logger
}

// Meter meters credits on this instance. A reservation and a settlement touch only memory: the
// credits come from a lease that this instance took from the period row with one conditional
// update (used + leased + k <= cap, so the instances together never hold more than the cap).
// Leases are generous far from the cap and shrink to the exact reservation near it. Settled
// charges reach the database through the group-commit Writer, together with the call's session
// writes, moving credits from leased to used in the same transaction as the ledger row: used
// always equals the ledger's sum, and a crash only leaves leased credits, which reconciliation
// returns to the period once the lease has expired.
type Meter struct {
	db    *DB
	store *Store
	w     *Writer
	log   *slog.Logger
	opts  MeterOptions

	mu     sync.Mutex
	leases map[periodKey]*lease

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// lease is this instance's view of one (tenant, mode, period).
type lease struct {
	mu        sync.Mutex
	key       periodKey
	end       time.Time
	id        string // the lease row, "" until credits were taken
	granted   int64  // the row's amount
	committed int64  // the row's spent
	pending   int64  // settled here, batch not yet committed
	reserved  int64  // outstanding reservations
	inflight  int    // reservations not yet settled or refunded, plus commits in flight
	used      int64  // the period's used as last read, plus this instance's commits since
	usedAt    time.Time
	renewedAt time.Time
	lastUse   time.Time
	gone      bool // released: a new lease struct replaces it
}

func (l *lease) available() int64 { return l.granted - l.committed - l.pending - l.reserved }

// NewMeter starts a meter with its writer and its lease upkeep (renewal, idle release,
// reconciliation of dead instances' leases). Close returns what it holds.
func NewMeter(db *DB, opts MeterOptions) *Meter {
	if opts.Instance == "" {
		opts.Instance = "inst_" + RandomString(12)
	}
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = time.Minute
	}
	if opts.IdleRelease <= 0 {
		opts.IdleRelease = 15 * time.Second
	}
	if opts.IdleRelease > opts.LeaseTTL/2 {
		opts.IdleRelease = opts.LeaseTTL / 2
	}
	if opts.MaxLease <= 0 {
		opts.MaxLease = 10000
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	m := &Meter{db: db, store: NewStore(db), w: NewWriter(db, opts.Logger), log: opts.Logger, opts: opts,
		leases: map[periodKey]*lease{}, stop: make(chan struct{}), done: make(chan struct{})}
	go m.upkeep()
	return m
}

// CommitStats are the group-commit writer's transactions and the calls they carried.
func (m *Meter) CommitStats() (batches, calls uint64) { return m.w.Stats() }

// Close stops the upkeep, commits what is queued and returns every lease's unspent credits.
func (m *Meter) Close() {
	m.once.Do(func() {
		close(m.stop)
		<-m.done
		m.w.Close()
		m.mu.Lock()
		ls := make([]*lease, 0, len(m.leases))
		for _, l := range m.leases {
			ls = append(ls, l)
		}
		m.leases = map[periodKey]*lease{}
		m.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, l := range ls {
			l.mu.Lock()
			l.gone = true
			id := l.id
			l.mu.Unlock()
			if id != "" {
				if err := m.release(ctx, id); err != nil {
					m.log.Warn("lease release failed at shutdown; reconciliation returns it after its expiry", "lease", id, "err", err)
				}
			}
		}
	})
}

// leaseFor returns the locked lease of a tenant's current period in a mode.
func (m *Meter) leaseFor(ctx context.Context, t *Tenant, mode string) (*lease, error) {
	now := Now()
	start, end := PeriodAt(t.PeriodAnchor, now)
	key := periodKey{t.ID, mode, start.Truncate(time.Microsecond)}
	for {
		m.mu.Lock()
		l := m.leases[key]
		if l == nil {
			l = &lease{key: key, end: end.Truncate(time.Microsecond), lastUse: now, used: -1}
			m.leases[key] = l
		}
		m.mu.Unlock()
		l.mu.Lock()
		if l.gone {
			l.mu.Unlock()
			continue
		}
		if l.used < 0 {
			if err := m.readUsed(ctx, t, l); err != nil {
				l.mu.Unlock()
				return nil, err
			}
		}
		l.lastUse = now
		return l, nil
	}
}

// readUsed makes sure the period row exists and reads its used and leased totals.
func (m *Meter) readUsed(ctx context.Context, t *Tenant, l *lease) error {
	if _, _, err := m.store.currentPeriod(ctx, m.db.DB, t, l.key.mode, l.key.start); err != nil {
		return err
	}
	_, _, err := m.readPeriod(ctx, l)
	return err
}

// readPeriod reads the period row's used and leased totals and refreshes the lease's view.
func (m *Meter) readPeriod(ctx context.Context, l *lease) (used, leased int64, err error) {
	var row struct {
		Used   int64 `bun:"used"`
		Leased int64 `bun:"leased"`
	}
	err = m.db.NewSelect().Table("credit_periods").Column("used", "leased").
		Where("tenant_id = ? AND mode = ? AND period_start = ?", l.key.tenant, l.key.mode, l.key.start).Scan(ctx, &row)
	if err != nil {
		return 0, 0, err
	}
	l.used, l.usedAt = row.Used, Now()
	return row.Used, row.Leased, nil
}

// Reserve takes n credits for a call from this instance's lease, topping the lease up from the
// period when it holds too few. ErrCreditsExhausted when the cap leaves fewer than n.
func (m *Meter) Reserve(ctx context.Context, t *Tenant, plan *Plan, mode string, n int64) (*Reservation, error) {
	l, err := m.leaseFor(ctx, t, mode)
	if err != nil {
		return nil, err
	}
	defer l.mu.Unlock()
	if n < 0 {
		n = 0
	}
	for short := n - l.available(); short > 0; short = n - l.available() {
		if err := m.grow(ctx, l, short, plan.CreditCap); err != nil {
			return nil, err
		}
	}
	l.reserved += n
	l.inflight++
	return &Reservation{TenantID: t.ID, Mode: mode, PeriodStart: l.key.start, Amount: n, Cap: plan.CreditCap, lease: l}, nil
}

// grow takes at least need more credits from the period into the lease (l.mu held).
func (m *Meter) grow(ctx context.Context, l *lease, need, limit int64) error {
	defer observeLeaseWait(time.Now())
	for attempt := 0; attempt < 5; attempt++ {
		used, leased, err := m.readPeriod(ctx, l)
		if err != nil {
			return err
		}
		room := limit - used - leased
		if room < need {
			return ErrCreditsExhausted
		}
		k := room / 8
		if k > m.opts.MaxLease {
			k = m.opts.MaxLease
		}
		k = max(k, need)
		ok, err := m.take(ctx, l, k, limit)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
	}
	return ErrCreditsExhausted
}

// take moves k credits from the period to the lease row in one transaction; false when another
// instance took them first.
func (m *Meter) take(ctx context.Context, l *lease, k, limit int64) (bool, error) {
	exp := Now().Add(m.opts.LeaseTTL)
	fresh := l.id == ""
	id := l.id
	if fresh {
		id = NewID("lease")
	}
	taken := false
	err := m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Table("credit_periods").Set("leased = leased + ?", k).
			Where("tenant_id = ? AND mode = ? AND period_start = ?", l.key.tenant, l.key.mode, l.key.start).
			Where("used + leased + ? <= ?", k, limit).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if !fresh {
			res, err = tx.NewUpdate().Table("credit_leases").Set("amount = amount + ?", k).Set("expires_at = ?", exp).
				Where("id = ?", id).Exec(ctx)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				taken = true
				return nil
			}
			// The row was reconciled away while this instance looked dead: start a new lease.
			fresh, id = true, NewID("lease")
		}
		row := &CreditLease{ID: id, InstanceID: m.opts.Instance, TenantID: l.key.tenant, Mode: l.key.mode,
			PeriodStart: l.key.start, Amount: k, ExpiresAt: exp}
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			return err
		}
		taken = true
		return nil
	})
	if err != nil || !taken {
		return false, err
	}
	if fresh {
		// A new row holds k; charges still pending on a lost row leave granted as they commit.
		l.id, l.granted = id, l.committed+l.pending+k
	} else {
		l.granted += k
	}
	l.renewedAt = Now()
	observeLeaseGrant(k)
	return true, nil
}

// Settle charges a call: actual credits (a charge above the reservation takes only what the cap
// still allows) with its ledger entry and writes, committed in the next batch. It returns the
// charge and the balance after it, from this instance's view.
func (m *Meter) Settle(ctx context.Context, r *Reservation, actual int64, e LedgerEntry, writes ...Write) (int64, Balance, error) {
	if r.done {
		return 0, Balance{}, errors.New("reservation already settled")
	}
	r.done = true
	l := r.lease
	if actual < 0 {
		actual = 0
	}
	l.mu.Lock()
	l.reserved -= r.Amount
	charged := actual
	// The reservation is back in available: a charge above it takes only what the cap allows.
	if short := actual - l.available(); short > 0 {
		_ = m.grow(ctx, l, short, r.Cap) // best effort: the answer is already paid for upstream
		charged = min(actual, max(l.available(), 0))
	}
	l.pending += charged
	leaseID := l.id
	l.mu.Unlock()

	e.TenantID, e.Mode, e.PeriodStart, e.Credits = r.TenantID, r.Mode, r.PeriodStart, charged
	if e.CreatedAt.IsZero() {
		e.CreatedAt = Now()
	}
	if charged == 0 {
		leaseID = ""
	}
	err := m.w.submit(&commit{entry: e, lease: leaseID, writes: writes, trace: trace.SpanContextFromContext(ctx)})

	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending -= charged
	l.inflight--
	l.lastUse = Now()
	if err != nil {
		return 0, Balance{}, err
	}
	if leaseID == l.id {
		l.committed += charged
	} else {
		l.granted -= charged // charged on a lease row that has since been replaced
	}
	l.used += charged
	return charged, Balance{Used: l.used, Cap: r.Cap, PeriodEnd: l.end}, nil
}

// Refund gives a reservation back to the lease after a failed call.
func (m *Meter) Refund(ctx context.Context, r *Reservation) error {
	if r.done {
		return nil
	}
	r.done = true
	l := r.lease
	l.mu.Lock()
	l.reserved -= r.Amount
	l.inflight--
	l.mu.Unlock()
	return nil
}

// Balance is the tenant's usage of the current period in a mode, from this instance's view
// (its own charges are exact; other instances' show up when it next reads the period row).
func (m *Meter) Balance(ctx context.Context, t *Tenant, plan *Plan, mode string) (Balance, error) {
	l, err := m.leaseFor(ctx, t, mode)
	if err != nil {
		return Balance{}, err
	}
	defer l.mu.Unlock()
	if Now().Sub(l.usedAt) > 5*time.Second {
		if _, _, err := m.readPeriod(ctx, l); err != nil {
			return Balance{}, err
		}
	}
	return Balance{Used: l.used, Cap: plan.CreditCap, PeriodEnd: l.end}, nil
}

// upkeep renews leases in use, returns idle ones and reconciles dead instances' leases.
func (m *Meter) upkeep() {
	defer close(m.done)
	tick := time.NewTicker(max(m.opts.IdleRelease/3, 100*time.Millisecond))
	defer tick.Stop()
	lastReconcile := time.Time{}
	for {
		select {
		case <-m.stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		m.tend(ctx)
		if time.Since(lastReconcile) >= m.opts.LeaseTTL/2 {
			if _, err := m.Reconcile(ctx); err != nil {
				m.log.Warn("lease reconciliation failed", "err", err)
			}
			lastReconcile = time.Now()
		}
		cancel()
	}
}

func (m *Meter) tend(ctx context.Context) {
	now := Now()
	m.mu.Lock()
	ls := make([]*lease, 0, len(m.leases))
	for _, l := range m.leases {
		ls = append(ls, l)
	}
	m.mu.Unlock()
	for _, l := range ls {
		l.mu.Lock()
		idle := l.inflight == 0 && l.pending == 0 && l.reserved == 0 && now.Sub(l.lastUse) >= m.opts.IdleRelease
		if idle || !now.Before(l.end) {
			if l.inflight == 0 && l.pending == 0 && l.reserved == 0 {
				m.mu.Lock()
				if m.leases[l.key] == l {
					delete(m.leases, l.key)
				}
				m.mu.Unlock()
				l.gone = true
				id := l.id
				l.mu.Unlock()
				if id != "" {
					if err := m.release(ctx, id); err != nil {
						m.log.Warn("lease release failed; reconciliation returns it after its expiry", "lease", id, "err", err)
					}
				}
				continue
			}
		}
		if l.id != "" && now.Sub(l.renewedAt) >= m.opts.LeaseTTL/3 {
			if _, err := m.db.NewUpdate().Table("credit_leases").Set("expires_at = ?", now.Add(m.opts.LeaseTTL)).
				Where("id = ?", l.id).Exec(ctx); err != nil {
				m.log.Warn("lease renewal failed", "lease", l.id, "err", err)
			} else {
				l.renewedAt = now
			}
		}
		l.mu.Unlock()
	}
}

// release returns a lease's unspent credits to its period and deletes it. Callers make sure no
// charge of it is still in flight.
func (m *Meter) release(ctx context.Context, id string) error {
	return m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		return returnLease(ctx, tx, m.db.Kind, id, time.Time{})
	})
}

// returnLease moves amount - spent of a lease back from leased and deletes the row; with a
// non-zero before, only when the lease expired before it.
func returnLease(ctx context.Context, tx bun.Tx, kind Dialect, id string, before time.Time) error {
	row := new(CreditLease)
	if err := tx.NewSelect().Model(row).Where("id = ?", id).Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	}
	if kind == Postgres {
		// Lock the period row before the lease row (the order every writer uses), then read
		// the lease again under its lock.
		var one int
		if err := tx.NewSelect().Table("credit_periods").ColumnExpr("1").
			Where("tenant_id = ? AND mode = ? AND period_start = ?", row.TenantID, row.Mode, row.PeriodStart).For("UPDATE").Scan(ctx, &one); err != nil {
			return err
		}
		if err := tx.NewSelect().Model(row).Where("id = ?", id).For("UPDATE").Scan(ctx); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		}
	}
	if !before.IsZero() && !row.ExpiresAt.Before(before) {
		return nil // renewed meanwhile: its holder is alive
	}
	if held := row.Amount - row.Spent; held != 0 {
		if _, err := tx.NewUpdate().Table("credit_periods").Set("leased = leased - ?", held).
			Where("tenant_id = ? AND mode = ? AND period_start = ?", row.TenantID, row.Mode, row.PeriodStart).Exec(ctx); err != nil {
			return err
		}
	}
	_, err := tx.NewDelete().Model(row).WherePK().Exec(ctx)
	return err
}

// Reconcile returns the unspent credits of expired leases (instances that died without
// returning them) to their periods. What a lease's committed ledger rows charged is its spent,
// so after reconciliation used == SUM(ledger) and leased == 0 for a period nobody holds.
func (m *Meter) Reconcile(ctx context.Context) (int, error) {
	now := Now()
	var ids []string
	if err := m.db.NewSelect().Table("credit_leases").Column("id").Where("expires_at < ?", now).Limit(1000).Scan(ctx, &ids); err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		err := m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			return returnLease(ctx, tx, m.db.Kind, id, now)
		})
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

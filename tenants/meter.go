package tenants

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/trace"

	"github.com/capgate/capgate/internal/ids"
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
//
// No lock is held across database I/O: a lease's mutex guards only its in-memory state
// (leaseState). A top-up runs outside it, one per lease at a time; calls that need credits
// meanwhile wait for it and then use what it brought.
type Meter struct {
	db    *DB
	store *Store
	w     *Writer
	log   *slog.Logger
	opts  MeterOptions

	mu     sync.Mutex
	leases map[periodKey]*lease

	// Failures that do not fail a call: a top-up for a charge above its reservation, a lease
	// renewal or release (see Faults).
	settleTopUps, renewals, releases atomic.Uint64

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

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

// MeterFaults counts failures that did not fail a call, and commits whose outcome had to be
// looked up.
type MeterFaults struct {
	FailedBatches   uint64 // batch transactions that returned an error
	CommittedAnyway uint64 // of those, found committed (a COMMIT reply lost)
	UnknownCalls    uint64 // calls whose commit outcome could not be learnt
	SettleTopUps    uint64 // failed top-ups for a charge above its reservation (charged less)
	Renewals        uint64 // failed lease renewals
	Releases        uint64 // failed lease releases
}

// Faults returns the meter's fault counters (exported as metrics).
func (m *Meter) Faults() MeterFaults {
	f, c, u := m.w.FaultStats()
	return MeterFaults{FailedBatches: f, CommittedAnyway: c, UnknownCalls: u,
		SettleTopUps: m.settleTopUps.Load(), Renewals: m.renewals.Load(), Releases: m.releases.Load()}
}

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
			id := l.st.id
			l.mu.Unlock()
			if id != "" {
				if err := m.release(ctx, id); err != nil {
					m.releases.Add(1)
					m.log.Warn("lease release failed at shutdown; reconciliation returns it after its expiry", "lease", id, "err", err)
				}
			}
		}
	})
}

// lockedLease returns the lease of a tenant's current period in a mode, locked, making sure the
// period row exists first (once per process and period).
func (m *Meter) lockedLease(ctx context.Context, t *Tenant, mode string) (*lease, error) {
	now := Now()
	start, end := PeriodAt(t.PeriodAnchor, now)
	key := periodKey{t.ID, mode, start.Truncate(time.Microsecond)}
	for {
		m.mu.Lock()
		l := m.leases[key]
		if l == nil {
			l = &lease{key: key, end: end.Truncate(time.Microsecond), lastUse: now, st: leaseState{used: -1}}
			m.leases[key] = l
		}
		m.mu.Unlock()
		l.mu.Lock()
		if l.gone {
			l.mu.Unlock()
			continue
		}
		l.lastUse = now
		for !l.period && !l.gone {
			// The first call makes sure the period row exists; the others wait for it.
			if ch := l.periodCheck; ch != nil {
				l.mu.Unlock()
				select {
				case <-ch:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				l.mu.Lock()
				continue
			}
			ch := make(chan struct{})
			l.periodCheck = ch
			l.mu.Unlock()
			_, _, err := m.store.currentPeriod(ctx, m.db.DB, t, mode, now)
			l.mu.Lock()
			l.periodCheck = nil
			close(ch)
			if err != nil {
				l.mu.Unlock()
				return nil, err
			}
			l.period = true
		}
		if l.gone {
			l.mu.Unlock()
			continue
		}
		return l, nil
	}
}

// readPeriod reads the period row's used and leased totals.
func (m *Meter) readPeriod(ctx context.Context, key periodKey) (used, leased int64, err error) {
	var row struct {
		Used   int64 `bun:"used"`
		Leased int64 `bun:"leased"`
	}
	err = m.db.NewSelect().Table("credit_periods").Column("used", "leased").
		Where("tenant_id = ? AND mode = ? AND period_start = ?", key.tenant, key.mode, key.start).Scan(ctx, &row)
	if err != nil {
		return 0, 0, err
	}
	return row.Used, row.Leased, nil
}

// freshUsed makes the lease's used at most maxAge old, reading the period outside the lock
// (l.mu held on entry and on return).
func (m *Meter) freshUsed(ctx context.Context, l *lease, maxAge time.Duration) error {
	if l.st.used >= 0 && Now().Sub(l.st.usedAt) <= maxAge {
		return nil
	}
	l.mu.Unlock()
	used, _, err := m.readPeriod(ctx, l.key)
	l.mu.Lock()
	if err != nil {
		return err
	}
	l.st.observe(used)
	return nil
}

// Reserve takes n credits for a call from this instance's lease, topping the lease up from the
// period when it holds too few. ErrCreditsExhausted when the cap leaves fewer than n.
func (m *Meter) Reserve(ctx context.Context, t *Tenant, plan *Plan, mode string, n int64) (*Reservation, error) {
	l, err := m.lockedLease(ctx, t, mode)
	if err != nil {
		return nil, err
	}
	defer l.mu.Unlock()
	n = max(n, 0)
	for !l.st.reserve(n) {
		if err := m.ensure(ctx, l, n, plan.CreditCap); err != nil {
			return nil, err
		}
	}
	return &Reservation{TenantID: t.ID, Mode: mode, PeriodStart: l.key.start, Amount: n, Cap: plan.CreditCap, lease: l}, nil
}

// ReserveKey reserves n credits for a call of a key: from the key's own budget first when it has
// one (the same lease guarantee as the tenant's cap, under the mode KeyBudgetMode), then from
// the tenant's cap. ErrKeyCreditsExhausted when the key's budget leaves fewer than n,
// ErrCreditsExhausted when the tenant's cap does. A key without a budget costs what Reserve does.
func (m *Meter) ReserveKey(ctx context.Context, t *Tenant, plan *Plan, k *APIKey, n int64) (*Reservation, error) {
	if k.CreditBudget <= 0 {
		return m.Reserve(ctx, t, plan, k.Mode, n)
	}
	n = max(n, 0)
	kmode := KeyBudgetMode(k.ID)
	kl, err := m.lockedLease(ctx, t, kmode)
	if err != nil {
		return nil, err
	}
	for !kl.st.reserve(n) {
		if err := m.ensure(ctx, kl, n, k.CreditBudget); err != nil {
			kl.mu.Unlock()
			if errors.Is(err, ErrCreditsExhausted) {
				return nil, ErrKeyCreditsExhausted
			}
			return nil, err
		}
	}
	kr := &Reservation{TenantID: t.ID, Mode: kmode, PeriodStart: kl.key.start, Amount: n, Cap: k.CreditBudget, lease: kl}
	kl.mu.Unlock()
	r, err := m.Reserve(ctx, t, plan, k.Mode, n)
	if err != nil {
		kl.mu.Lock()
		kl.st.refund(n)
		kl.mu.Unlock()
		return nil, err
	}
	r.key = kr
	return r, nil
}

// chargeKey turns the key's reservation into a charge of at most actual (topping its lease up,
// best effort, for a charge above the reservation) and returns the charge and its lease row.
func (m *Meter) chargeKey(ctx context.Context, kr *Reservation, actual int64) (int64, string) {
	kl := kr.lease
	kl.mu.Lock()
	defer kl.mu.Unlock()
	if extra := actual - kr.Amount; extra > 0 {
		if err := m.ensure(ctx, kl, extra, kr.Cap); err != nil && !errors.Is(err, ErrCreditsExhausted) {
			m.settleTopUps.Add(1)
			m.log.Warn("topping up a key's lease for a charge above its reservation failed; charging what the lease holds", "err", err)
		}
	}
	return kl.st.charge(kr.Amount, actual), kl.st.id
}

// topUpTimeout bounds one top-up; it does not end with the call that started it, since the
// calls waiting for it depend on it too.
const topUpTimeout = 10 * time.Second

// ensure makes at least n credits available in the lease (l.mu held on entry and on return, but
// not across the database I/O). With a top-up in flight it waits for it and then uses what it
// brought; otherwise it runs one, sized for the calls waiting too.
func (m *Meter) ensure(ctx context.Context, l *lease, n, limit int64) error {
	for {
		short := n - l.st.available()
		if short <= 0 {
			return nil
		}
		if tu := l.topUp; tu != nil {
			l.want += short
			l.mu.Unlock()
			var cerr error
			select {
			case <-tu.done:
			case <-ctx.Done():
				cerr = ctx.Err()
			}
			l.mu.Lock()
			l.want -= short
			if cerr != nil {
				return cerr
			}
			if tu.err != nil && !errors.Is(tu.err, ErrCreditsExhausted) {
				return tu.err
			}
			// The period had less room left than this call still lacks: no need to ask again.
			if left := n - l.st.available(); left > 0 && tu.room >= 0 && tu.room < left {
				return ErrCreditsExhausted
			}
			continue
		}
		tu := &topUp{done: make(chan struct{}), room: -1}
		l.topUp = tu
		id, need := l.st.id, short+l.want
		l.mu.Unlock()
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), topUpTimeout)
		began := time.Now()
		g, err := m.grow(tctx, l.key, id, need, short, limit)
		observeLeaseWait(began)
		cancel()
		l.mu.Lock()
		if err == nil {
			l.st.grant(g.id, g.k)
			l.renewedAt = Now()
		}
		l.st.observe(g.used)
		tu.err, tu.room = err, g.room
		l.topUp = nil
		close(tu.done)
		if err != nil {
			return err
		}
	}
}

// grown is the result of a top-up: the lease row and what it took, the room left and the used
// it read (-1 when unknown).
type grown struct {
	id         string
	k          int64
	room, used int64
}

// grow takes credits from the period onto the lease row id ("" for a new row): at least min,
// need when the room allows, more far from the cap. No lease state is touched.
func (m *Meter) grow(ctx context.Context, key periodKey, id string, need, minimum, limit int64) (grown, error) {
	g := grown{room: -1, used: -1}
	for attempt := 0; attempt < 5; attempt++ {
		used, leased, err := m.readPeriod(ctx, key)
		if err != nil {
			return g, err
		}
		g.used = used
		room := limit - used - leased
		if room < minimum {
			g.room = max(room, 0)
			return g, ErrCreditsExhausted
		}
		k := min(room/8, m.opts.MaxLease)
		k = max(k, min(need, room, m.opts.MaxLease), minimum)
		rowID, ok, err := m.take(ctx, key, id, k, limit)
		if err != nil {
			return g, err
		}
		if ok {
			g.id, g.k, g.room = rowID, k, room-k
			return g, nil
		}
	}
	return g, ErrCreditsExhausted
}

// take moves k credits from the period to the lease row id ("" or reconciled away: a new row)
// in one transaction; the row's id, or false when another instance took the room first.
func (m *Meter) take(ctx context.Context, key periodKey, id string, k, limit int64) (string, bool, error) {
	exp := Now().Add(m.opts.LeaseTTL)
	fresh := id == ""
	if fresh {
		id = NewID("lease")
	}
	taken := false
	err := m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Table("credit_periods").Set("leased = leased + ?", k).
			Where("tenant_id = ? AND mode = ? AND period_start = ?", key.tenant, key.mode, key.start).
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
			id = NewID("lease")
		}
		row := &CreditLease{ID: id, InstanceID: m.opts.Instance, TenantID: key.tenant, Mode: key.mode,
			PeriodStart: key.start, Amount: k, ExpiresAt: exp}
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			return err
		}
		taken = true
		return nil
	})
	if err != nil || !taken {
		return "", false, err
	}
	observeLeaseGrant(k)
	return id, true, nil
}

// Settle charges a call: actual credits (a charge above the reservation takes only what the cap
// still allows) with its ledger entry and writes, committed in the next batch. It returns the
// charge and the balance after it, from this instance's view. When the commit's outcome cannot
// be learnt (ErrOutcomeUnknown) the credits are not given back to the lease.
func (m *Meter) Settle(ctx context.Context, r *Reservation, actual int64, e LedgerEntry, writes ...Write) (int64, Balance, error) {
	if r.done {
		return 0, Balance{}, errors.New("reservation already settled")
	}
	r.done = true
	l := r.lease
	actual = max(actual, 0)
	// A key with its own budget is charged first: the call's charge is what both allow.
	var kr *Reservation
	var keyCharged int64
	var keyLeaseID string
	if kr = r.key; kr != nil {
		kr.done = true
		keyCharged, keyLeaseID = m.chargeKey(ctx, kr, actual)
		actual = keyCharged
	}
	l.mu.Lock()
	if extra := actual - r.Amount; extra > 0 {
		// Best effort, the reservation still held: the answer is already paid for upstream, so
		// a failed top-up only charges less.
		if err := m.ensure(ctx, l, extra, r.Cap); err != nil && !errors.Is(err, ErrCreditsExhausted) {
			m.settleTopUps.Add(1)
			m.log.Warn("topping up a lease for a charge above its reservation failed; charging what the lease holds", "err", err)
		}
	}
	charged := l.st.charge(r.Amount, actual)
	leaseID := l.st.id
	l.mu.Unlock()

	e.TenantID, e.Mode, e.PeriodStart, e.Credits = r.TenantID, r.Mode, r.PeriodStart, charged
	if e.CreatedAt.IsZero() {
		e.CreatedAt = Now()
	}
	if kr != nil {
		if over := keyCharged - charged; over > 0 {
			// The tenant's cap allowed less than the key's budget: the key pays the same.
			kr.lease.mu.Lock()
			kr.lease.st.pending -= over
			kr.lease.mu.Unlock()
		}
	}
	var err error
	used, keyUsed := int64(-1), int64(-1)
	if charged > 0 || len(writes) > 0 || e.Cache != "" {
		c := &commit{entry: e, key: newCommitKey(), lease: leaseID, writes: writes}
		if charged == 0 {
			c.lease = ""
		}
		if kr != nil {
			c.keyPeriod = periodKey{kr.TenantID, kr.Mode, kr.PeriodStart}
			c.keyLease = keyLeaseID
			if charged == 0 {
				c.keyLease = ""
			}
		}
		c.trace = trace.SpanContextFromContext(ctx)
		err = m.w.submit(c)
		used, keyUsed = c.used, c.keyUsed
	}
	// else: a free call that changes nothing (a stored detail, a cached lookup repeat) has no
	// charge to record and nothing to make durable, so it skips the group commit: the ledger holds
	// charges and cache hits (used always equals its sum); the request log records every call.
	if kr != nil {
		kout := commitOK
		switch {
		case errors.Is(err, ErrOutcomeUnknown):
			kout = commitUnknown
		case err != nil:
			kout = commitFailed
		}
		kr.lease.mu.Lock()
		kr.lease.st.finish(charged, keyLeaseID, kout, keyUsed)
		kr.lease.lastUse = Now()
		kr.lease.mu.Unlock()
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	out := commitOK
	switch {
	case errors.Is(err, ErrOutcomeUnknown):
		out = commitUnknown
	case err != nil:
		out = commitFailed
	}
	l.st.finish(charged, leaseID, out, used)
	l.lastUse = Now()
	if err != nil {
		return 0, Balance{}, err
	}
	if err := m.freshUsed(ctx, l, time.Hour); err != nil {
		return 0, Balance{}, err
	}
	return charged, Balance{Used: l.st.used, Cap: r.Cap, PeriodEnd: l.end}, nil
}

// newCommitKey is a ledger row's unique commit key: "cmt_", the time in 8 base-62 digits and 14
// random ones (83 bits). Unique, not secret; ordered by time so the ledger's unique index of
// commit keys grows at its end instead of taking a random page per row (internal/ids).
func newCommitKey() string { return ids.New("cmt_", time.Now(), 14) }

// Refund gives a reservation back to the lease after a failed call.
func (m *Meter) Refund(ctx context.Context, r *Reservation) error {
	if r.done {
		return nil
	}
	r.done = true
	l := r.lease
	l.mu.Lock()
	l.st.refund(r.Amount)
	l.mu.Unlock()
	if kr := r.key; kr != nil && !kr.done {
		kr.done = true
		kr.lease.mu.Lock()
		kr.lease.st.refund(kr.Amount)
		kr.lease.mu.Unlock()
	}
	return nil
}

// Balance is the tenant's usage of the current period in a mode, from this instance's view
// (its own charges are exact; other instances' show up when it next reads the period row).
func (m *Meter) Balance(ctx context.Context, t *Tenant, plan *Plan, mode string) (Balance, error) {
	l, err := m.lockedLease(ctx, t, mode)
	if err != nil {
		return Balance{}, err
	}
	defer l.mu.Unlock()
	if err := m.freshUsed(ctx, l, 5*time.Second); err != nil {
		return Balance{}, err
	}
	return Balance{Used: l.st.used, Cap: plan.CreditCap, PeriodEnd: l.end}, nil
}

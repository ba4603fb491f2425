package tenants

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/trace"
)

// Write is a change committed in the same transaction as a call's ledger row: a search session
// created or advanced, a record detail cached. Apply runs inside the batch transaction; an error
// wrapped with Refuse fails only its own call (for example a session another request changed
// first), any other error aborts the batch, which is then retried call by call. Committed runs
// after the transaction has committed (to fill caches).
type Write interface {
	Apply(ctx context.Context, tx bun.Tx) error
	Committed()
}

// refused is a per-call outcome of a Write: the call fails, the rest of the batch commits.
type refused struct{ err error }

func (r refused) Error() string { return r.err.Error() }
func (r refused) Unwrap() error { return r.err }

// Refuse marks a Write's error as failing only its own call.
func Refuse(err error) error { return refused{err} }

// ErrWriterClosed is returned for a commit submitted after shutdown began.
var ErrWriterClosed = errors.New("the commit writer is shut down")

// commit is one call's durable outcome: its ledger row, the credits it moves from a lease to
// the period's used total, and its writes.
type commit struct {
	entry  LedgerEntry
	key    string // the ledger row's commit_key: unique, so the row is never written twice
	lease  string // lease the credits come from; "" when none are charged
	writes []Write
	err    error
	used   int64 // the period's used right after the commit (-1: not read, nothing was charged)
	// keyPeriod is the key's own budget period (keypolicy.go; zero: the key has none), charged the
	// same credits from keyLease ("" when none are charged) in the same transaction; keyUsed is
	// its used after the commit.
	keyPeriod periodKey
	keyLease  string
	keyUsed   int64
	queued    bool // its ledger row is in the batch's insert (not refused by a write)
	done      chan struct{}
	trace     trace.SpanContext // the call's span: the batch's span is under it or linked to it
}

// ErrOutcomeUnknown is a commit whose transaction failed at or after COMMIT (the connection lost
// before the reply) and whose outcome the writer could not look up before its deadline: the
// charge may be in the ledger. The meter keeps such credits out of its lease (they are never
// sold again); the lease's release returns them to the period if they were not committed.
var ErrOutcomeUnknown = errors.New("the commit's outcome is unknown: the database could not be asked whether it committed")

// commitDeadline bounds everything one batch may take: its transaction, finding out what an
// ambiguous failure committed, and the call-by-call fallback together.
const commitDeadline = 30 * time.Second

// Writer is the group commit: one goroutine commits every call's ledger row, lease movement and
// session writes, many calls to a transaction. A call waits for its batch: no answered call is
// missing from the ledger, and its session is visible to every instance when it answers.
type Writer struct {
	db       *DB
	log      *slog.Logger
	in       chan *commit
	maxBatch int
	sql      writerSQL

	mu     sync.RWMutex
	closed bool
	wg     sync.WaitGroup

	batches, calls atomic.Uint64
	// Failed batch transactions, those the look-up found committed after all, and calls whose
	// outcome stayed unknown.
	failed, resolvedCommitted, unknown atomic.Uint64
}

// Stats counts the transactions committed and the calls they carried (calls / batches is the
// average batch size).
func (w *Writer) Stats() (batches, calls uint64) { return w.batches.Load(), w.calls.Load() }

// FaultStats counts failed batch transactions, failures the look-up found committed (a lost
// COMMIT reply) and calls whose outcome could not be learnt.
func (w *Writer) FaultStats() (failed, committedAnyway, unknown uint64) {
	return w.failed.Load(), w.resolvedCommitted.Load(), w.unknown.Load()
}

// NewWriter starts a writer; Close stops it after committing what was submitted.
func NewWriter(db *DB, log *slog.Logger) *Writer {
	if log == nil {
		log = slog.Default()
	}
	w := &Writer{db: db, log: log, in: make(chan *commit, 4096), maxBatch: 512, sql: newWriterSQL(db)}
	w.wg.Add(1)
	go w.run()
	return w
}

// submit queues c and waits until its batch has committed or failed. The wait ignores the
// caller's cancellation on purpose: the upstream answer is paid for and the row must land.
func (w *Writer) submit(c *commit) error {
	c.done = make(chan struct{})
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return ErrWriterClosed
	}
	w.in <- c
	w.mu.RUnlock()
	<-c.done
	return c.err
}

// Close commits what is queued and stops the writer.
func (w *Writer) Close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.in)
	}
	w.mu.Unlock()
	w.wg.Wait()
}

func (w *Writer) run() {
	defer w.wg.Done()
	batch := make([]*commit, 0, w.maxBatch)
	last := 0
	for c := range w.in {
		batch = append(batch[:0], c)
		w.collect(&batch)
		// Under concurrent load (the last batch carried several calls) the batch waits, at most
		// commitWait, until it is as large as the last one: the callers the last commit
		// released are usually back by then, and each call that joins saves a commit's CPU. A
		// lone call at low load commits at once, and a fast loop of calls is not held for the
		// full wait (which would cap its throughput at connections / latency).
		if last > 1 && len(batch) < last {
			w.linger(&batch, last)
		}
		last = len(batch)
		observed := observeBatch(batch)
		w.commit(batch)
		observed.end(batch)
		w.batches.Add(1)
		w.calls.Add(uint64(len(batch)))
	}
}

// commitWait is the longest a batch waits for more calls under load. Measured on the load run
// (64 connections): a fixed 300 µs wait carried 2.5 searches or 14 record actions a transaction;
// a fixed 1 ms wait 9.5 and 23, but it held record actions so long that their throughput fell by
// a third; waiting for as many calls as the last batch carried, 4.8 and 35 at full throughput.
const commitWait = time.Millisecond

// collect adds the commits queued now to the batch.
func (w *Writer) collect(batch *[]*commit) {
	for len(*batch) < w.maxBatch {
		select {
		case more, ok := <-w.in:
			if !ok {
				return
			}
			*batch = append(*batch, more)
		default:
			return
		}
	}
}

// linger adds commits as they arrive until the batch holds target calls or commitWait passed.
func (w *Writer) linger(batch *[]*commit, target int) {
	t := time.NewTimer(commitWait)
	defer t.Stop()
	for len(*batch) < min(target, w.maxBatch) {
		select {
		case more, ok := <-w.in:
			if !ok {
				return
			}
			*batch = append(*batch, more)
		case <-t.C:
			return
		}
	}
}

// commit writes a batch in one transaction and answers each call. A failed transaction may
// still have committed (an error at COMMIT, a reply lost with its connection), so the writer
// finds out before it answers: committed calls succeed (their charge is kept), calls of a batch
// that did not commit are committed one by one so one bad call cannot fail the others, and a
// call whose outcome cannot be learnt fails with ErrOutcomeUnknown. All of it runs under one
// deadline.
func (w *Writer) commit(batch []*commit) {
	ctx, cancel := context.WithTimeout(context.Background(), commitDeadline)
	defer cancel()
	w.settle(ctx, batch)
	for _, c := range batch {
		if c.err == nil {
			for _, wr := range c.writes {
				wr.Committed()
			}
		}
		close(c.done)
	}
}

// settle commits a batch, resolving a failure as commit describes.
func (w *Writer) settle(ctx context.Context, batch []*commit) {
	ambiguous, err := w.apply(ctx, batch)
	if err == nil {
		return
	}
	w.failed.Add(1)
	committed, lerr := false, error(nil)
	if ambiguous {
		committed, lerr = w.committed(ctx, batch)
	}
	switch {
	case lerr != nil:
		w.log.Error("a commit failed and the database could not be asked whether it committed; its calls fail and their credits stay held",
			"calls", len(batch), "err", err, "lookup_err", lerr)
		for _, c := range batch {
			if c.queued {
				w.unknown.Add(1)
				c.err = fmt.Errorf("%w (commit: %v; look-up: %v)", ErrOutcomeUnknown, err, lerr)
			}
		}
		return
	case committed:
		// The COMMIT went through; only its reply was lost. Refused calls keep their refusal.
		w.resolvedCommitted.Add(1)
		w.log.Warn("a commit reported an error but had committed; its calls succeed", "calls", len(batch), "err", err)
		return
	}
	if len(batch) == 1 {
		batch[0].err = err
		return
	}
	w.log.Warn("batch commit failed; committing its calls one by one", "calls", len(batch), "err", err)
	for _, c := range batch {
		if ctx.Err() != nil {
			c.err = fmt.Errorf("not committed: the commit deadline passed first (batch: %w)", err)
			continue
		}
		w.settle(ctx, []*commit{c})
	}
}

// committed tells whether a failed batch transaction committed after all: its ledger rows are
// there. On PostgreSQL it first waits for the periods' row locks, so a transaction whose
// connection broke but which the server is still committing (or rolling back) has ended before
// the ledger is read. It asks on a connection of its own, again until the deadline while the
// database cannot answer.
func (w *Writer) committed(ctx context.Context, batch []*commit) (bool, error) {
	var keys []string
	periods := map[periodKey]bool{}
	for _, c := range batch {
		if c.queued {
			keys = append(keys, c.key)
			if c.entry.Credits != 0 {
				periods[periodKey{c.entry.TenantID, c.entry.Mode, c.entry.PeriodStart}] = true
				if c.keyPeriod.tenant != "" {
					periods[c.keyPeriod] = true
				}
			}
		}
	}
	if len(keys) == 0 {
		return false, nil // every call was refused: nothing of the batch would be in the ledger
	}
	wait := 20 * time.Millisecond
	for {
		found, err := w.lookup(ctx, keys, periods)
		if err == nil {
			if found != 0 && found != len(keys) {
				w.log.Error("a failed batch is partly in the ledger", "found", found, "calls", len(keys))
			}
			return found != 0, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, err
		case <-t.C:
		}
		wait = min(2*wait, time.Second)
	}
}

// lookup counts the keys that are in the ledger.
func (w *Writer) lookup(ctx context.Context, keys []string, periods map[periodKey]bool) (int, error) {
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if w.db.Kind == Postgres {
		for pk := range periods {
			var one []int
			if err := w.db.NewSelect().Conn(conn).Table("credit_periods").ColumnExpr("1").
				Where("tenant_id = ? AND mode = ? AND period_start = ?", pk.tenant, pk.mode, pk.start).For("SHARE").Scan(ctx, &one); err != nil {
				return 0, err
			}
		}
	}
	n, err := w.db.NewSelect().Conn(conn).Table("ledger").Where("commit_key IN (?)", bun.In(keys)).Count(ctx)
	return int(n), err
}

type periodKey struct {
	tenant, mode string
	start        time.Time
}

// less orders period keys (the order rows are locked in).
func (a periodKey) less(b periodKey) bool {
	if a.tenant != b.tenant {
		return a.tenant < b.tenant
	}
	if a.mode != b.mode {
		return a.mode < b.mode
	}
	return a.start.Before(b.start)
}

// apply commits a batch in one transaction. ambiguous reports an error at or after COMMIT (every
// statement succeeded): the transaction may have committed. Any other error rolled it back.
func (w *Writer) apply(ctx context.Context, batch []*commit) (ambiguous bool, err error) {
	statements := false
	err = w.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		entries, mv, err := applyWrites(ctx, tx, batch)
		if err != nil {
			return err
		}
		used, err := w.moveCredits(ctx, tx, mv)
		if err != nil {
			return err
		}
		if err := w.insertLedger(ctx, tx, entries); err != nil {
			return err
		}
		for _, c := range entries {
			if c.entry.Credits != 0 {
				c.used = used[periodKey{c.entry.TenantID, c.entry.Mode, c.entry.PeriodStart}]
				if c.keyPeriod.tenant != "" {
					c.keyUsed = used[c.keyPeriod]
				}
			}
		}
		statements = true
		return nil
	})
	return err != nil && statements, err
}

// creditMoves are a batch's charges: per lease row (with its period), and per period for charges
// made on no lease.
type creditMoves struct {
	leases map[string]*leaseMove
	direct map[periodKey]int64
}

type leaseMove struct {
	period periodKey
	amount int64
}

func (mv *creditMoves) add(pk periodKey, lease string, credits int64) {
	if lease == "" {
		if mv.direct == nil {
			mv.direct = map[periodKey]int64{}
		}
		mv.direct[pk] += credits
		return
	}
	m := mv.leases[lease]
	if m == nil {
		m = &leaseMove{period: pk}
		mv.leases[lease] = m
	}
	m.amount += credits
}

// Grouped is a Write that a batch applies together with the other writes of its group, after
// every call's other writes: many calls' rows in one multi-row statement (new search sessions:
// one statement, and on PostgreSQL one round trip, instead of one each). Its own Apply still
// serves DB.Apply. Nothing else in a batch may depend on a grouped write having been applied
// first, and a grouped write never refuses: its error aborts the batch, which is then committed
// call by call.
type Grouped interface {
	Write
	// Group names the writes applied together ("": this write is applied alone, by Apply).
	Group() string
	// ApplyGroup applies ws: every write of the batch in the receiver's group, in call order.
	ApplyGroup(ctx context.Context, tx bun.Tx, ws []Write) error
}

// group is a batch's grouped writes of one group.
type group struct {
	name string
	ws   []Write
}

// applyWrites runs each call's writes; a refused call keeps its refusal and is left out. It
// returns the calls to write ledger rows for and the credits they move.
func applyWrites(ctx context.Context, tx bun.Tx, batch []*commit) ([]*commit, *creditMoves, error) {
	entries := make([]*commit, 0, len(batch))
	mv := &creditMoves{leases: map[string]*leaseMove{}}
	var groups []group
	var held []Write // the call's grouped writes, applied with their groups after the loop
	for _, c := range batch {
		c.err, c.used, c.keyUsed, c.queued = nil, -1, -1, false
		held = held[:0]
		for _, wr := range c.writes {
			if g, ok := wr.(Grouped); ok && g.Group() != "" {
				held = append(held, wr)
				continue
			}
			if err := wr.Apply(ctx, tx); err != nil {
				var r refused
				if errors.As(err, &r) {
					c.err = r.err
					break
				}
				return nil, nil, err
			}
		}
		if c.err != nil {
			continue
		}
		groups = addGrouped(groups, held)
		c.queued = true
		entries = append(entries, c)
		if c.entry.Credits == 0 {
			continue
		}
		mv.add(periodKey{c.entry.TenantID, c.entry.Mode, c.entry.PeriodStart}, c.lease, c.entry.Credits)
		if c.keyPeriod.tenant != "" {
			mv.add(c.keyPeriod, c.keyLease, c.entry.Credits)
		}
	}
	for _, g := range groups {
		if err := g.ws[0].(Grouped).ApplyGroup(ctx, tx, g.ws); err != nil {
			return nil, nil, err
		}
	}
	return entries, mv, nil
}

// addGrouped adds a call's grouped writes to the batch's groups.
func addGrouped(groups []group, ws []Write) []group {
next:
	for _, wr := range ws {
		name := wr.(Grouped).Group()
		for i := range groups {
			if groups[i].name == name {
				groups[i].ws = append(groups[i].ws, wr)
				continue next
			}
		}
		groups = append(groups, group{name: name, ws: []Write{wr}})
	}
	return groups
}

// moveCredits moves a batch's charges from their leases (or periods) to the periods' used and
// returns each period's used after the batch.
func (w *Writer) moveCredits(ctx context.Context, tx bun.Tx, mv *creditMoves) (map[periodKey]int64, error) {
	// A batch may hold several periods (a key's budget beside its tenant's cap): they are
	// locked in one order in every batch, so two instances' batches queue, never deadlock.
	leaseIDs := make([]string, 0, len(mv.leases))
	for id := range mv.leases {
		leaseIDs = append(leaseIDs, id)
	}
	sort.Slice(leaseIDs, func(i, j int) bool {
		a, b := mv.leases[leaseIDs[i]].period, mv.leases[leaseIDs[j]].period
		if a != b {
			return a.less(b)
		}
		return leaseIDs[i] < leaseIDs[j]
	})
	// Rows are locked period first, then lease, everywhere (leases, reconciliation), so
	// concurrent transactions queue instead of deadlocking. Each period's used after the
	// batch is read back (RETURNING): it already holds these charges, and it is what the
	// meter shows, never more.
	q := &w.sql
	used := map[periodKey]int64{}
	for _, id := range leaseIDs {
		m := mv.leases[id]
		start := w.db.TimeArg(m.period.start)
		var u int64
		if err := w.db.QueryRow(ctx, tx, q.settle, m.amount, m.amount, m.period.tenant, m.period.mode, start).Scan(&u); err != nil {
			return nil, err
		}
		used[m.period] = max(used[m.period], u)
		res, err := w.db.Exec(ctx, tx, q.spend, m.amount, id)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			// The lease was reconciled away (its instance looked dead) and its credits went
			// back already: the charge comes from the period directly.
			if _, err := w.db.Exec(ctx, tx, q.unlease, m.amount, m.period.tenant, m.period.mode, start); err != nil {
				return nil, err
			}
		}
	}
	for pk, n := range mv.direct {
		var u int64
		if err := w.db.QueryRow(ctx, tx, q.charge, n, pk.tenant, pk.mode, w.db.TimeArg(pk.start)).Scan(&u); err != nil {
			return nil, err
		}
		used[pk] = max(used[pk], u)
	}
	return used, nil
}

// writerSQL are the writer's statements in the dialect's placeholder form, prepared once.
type writerSQL struct {
	settle, spend, unlease, charge string
	ledger                         *MultiRowInsert
}

func newWriterSQL(db *DB) writerSQL {
	const period = " WHERE tenant_id = ? AND mode = ? AND period_start = ?"
	return writerSQL{
		settle:  db.Rebind("UPDATE credit_periods SET used = used + ?, leased = leased - ?" + period + " RETURNING used"),
		spend:   db.Rebind("UPDATE credit_leases SET spent = spent + ? WHERE id = ?"),
		unlease: db.Rebind("UPDATE credit_periods SET leased = leased + ?" + period),
		charge:  db.Rebind("UPDATE credit_periods SET used = used + ?" + period + " RETURNING used"),
		ledger: db.NewMultiRowInsert("INSERT INTO ledger (commit_key, request_id, tenant_id, key_id, mode, period_start, capability, action, credits, created_at, cache, credits_saved)",
			12),
	}
}

// insertLedger writes the batch's ledger rows with the prepared multi-row inserts.
func (w *Writer) insertLedger(ctx context.Context, tx bun.Tx, entries []*commit) error {
	return w.sql.ledger.Exec(ctx, tx, len(entries), func(args []any, i int) []any {
		c := entries[i]
		e := &c.entry
		created := e.CreatedAt
		if created.IsZero() {
			created = Now()
		}
		return append(args, c.key, e.RequestID, e.TenantID, e.KeyID, e.Mode, w.db.TimeArg(e.PeriodStart),
			e.Capability, e.Action, e.Credits, w.db.TimeArg(created), e.Cache, e.CreditsSaved)
	})
}

// Apply commits writes in one transaction outside any call (no ledger row), refusals included
// as errors; tests and maintenance use it.
func (db *DB) Apply(ctx context.Context, writes ...Write) error {
	err := db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for _, w := range writes {
			if err := w.Apply(ctx, tx); err != nil {
				return err
			}
		}
		return nil
	})
	var r refused
	if errors.As(err, &r) {
		return r.err
	}
	if err == nil {
		for _, w := range writes {
			w.Committed()
		}
	}
	return err
}

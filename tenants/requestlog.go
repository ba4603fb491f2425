package tenants

import (
	"cmp"
	"context"
	"database/sql"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// RequestEntry is one call in the request log: every call to /v1 and /mcp whose tenant is known,
// errors included. Unlike the ledger it is not billing: it is written in batches off the hot
// path (RequestLog) and may lose its last few hundred milliseconds when the process is killed.
type RequestEntry struct {
	bun.BaseModel `bun:"table:request_log"`

	ID       int64  `bun:"id,pk,autoincrement" json:"-"`
	TenantID string `bun:"tenant_id" json:"-"`
	KeyID    string `bun:"key_id" json:"key_id"`
	// Mode is the key's mode: live or test.
	Mode string `bun:"mode" json:"mode"`
	// Via is how the call came in: api (a /v1 request), mcp (the /mcp request, or a /v1 call an MCP
	// tool dispatched) or console (a test call from the console).
	Via        string `bun:"via" json:"via"`
	Method     string `bun:"method" json:"method"`
	Route      string `bun:"route" json:"route"`
	Capability string `bun:"capability" json:"capability"`
	Action     string `bun:"action" json:"action"`
	Status     int    `bun:"status" json:"status"`
	ErrorCode  string `bun:"error_code" json:"error_code"`
	// ErrorMessage is the envelope's message (what the caller was told).
	ErrorMessage string `bun:"error_message" json:"error_message"`
	Credits      int64  `bun:"credits" json:"credits"`
	LatencyUS    int64  `bun:"latency_us" json:"-"`
	RequestID    string `bun:"request_id" json:"request_id"`
	// AtUS is when the call arrived, Unix microseconds UTC.
	AtUS int64 `bun:"at_us" json:"-"`

	ack  chan struct{} // a Flush marker, not an entry
	stop bool          // Close's marker
}

// At is when the call arrived.
func (e *RequestEntry) At() time.Time { return time.UnixMicro(e.AtUS).UTC() }

// Latency is how long the call took to answer.
func (e *RequestEntry) Latency() time.Duration { return time.Duration(e.LatencyUS) * time.Microsecond }

// Request log settings.
const (
	// DefaultRequestLogRetention is how long entries are kept unless configured.
	DefaultRequestLogRetention = 30 * 24 * time.Hour
	// requestLogBuffer bounds the entries waiting for the writer: beyond it a call's entry is
	// dropped (and counted), never waited for.
	requestLogBuffer = 16384
	requestLogBatch  = 1000
	// requestLogFlush is the longest an entry waits in the buffer: what a kill -9 may lose.
	requestLogFlush = 200 * time.Millisecond
	requestLogPrune = time.Hour
	// pruneChunk bounds one DELETE so pruning a large backlog never holds a long lock.
	pruneChunk    = 5000
	maxMessageLen = 500
)

// RequestLogOptions configure a RequestLog.
type RequestLogOptions struct {
	Logger *slog.Logger
	// Retention: entries older are pruned (default DefaultRequestLogRetention).
	Retention time.Duration
	// PruneEvery is how often the background pruning runs (default an hour).
	PruneEvery time.Duration
	// Now is the clock pruning measures the retention by (default time.Now); tests inject one.
	Now func() time.Time
	// Buffer bounds the entries waiting to be written (default 16384).
	Buffer int
}

// RequestLog records calls without making them wait: Record hands the entry to a bounded buffer
// and returns; one goroutine writes the buffer, every requestLogFlush or when a batch is full, as
// segments (requestlog_segment.go), and prunes entries older than the retention. A full buffer drops the
// entry and counts it (Dropped): the request log never slows or blocks a call. An entry lost to
// a crash is not billing: billed calls keep their durable ledger row, committed before they answer.
type RequestLog struct {
	db   *DB
	log  *slog.Logger
	opts RequestLogOptions
	in   chan RequestEntry

	closed atomic.Bool
	once   sync.Once
	done   chan struct{}
	wg     sync.WaitGroup

	written, dropped, failed, pruned atomic.Uint64
	// The writer's statements in the dialect's placeholders.
	insertSegment, insertID, upsertUsage string
}

// NewRequestLog starts the request log's writer; Close flushes what is buffered and stops it.
func NewRequestLog(db *DB, o RequestLogOptions) *RequestLog {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRequestLogRetention
	}
	if o.PruneEvery <= 0 {
		o.PruneEvery = requestLogPrune
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Buffer <= 0 {
		o.Buffer = requestLogBuffer
	}
	l := &RequestLog{db: db, log: o.Logger, opts: o, in: make(chan RequestEntry, o.Buffer), done: make(chan struct{}),
		insertSegment: db.Rebind(insertSegmentSQL), insertID: db.Rebind(insertIDSQL), upsertUsage: db.Rebind(upsertUsageSQL)}
	l.wg.Add(2)
	go l.run()
	go l.pruneLoop()
	return l
}

// Record queues an entry; it never blocks: a full buffer (or a closed log) drops the entry.
func (l *RequestLog) Record(e RequestEntry) {
	if l.closed.Load() {
		l.dropped.Add(1)
		return
	}
	select {
	case l.in <- e:
	default:
		l.dropped.Add(1)
	}
}

// Stats counts entries written, dropped (buffer full), lost to failed inserts, and pruned.
func (l *RequestLog) Stats() (written, dropped, failed, pruned uint64) {
	return l.written.Load(), l.dropped.Load(), l.failed.Load(), l.pruned.Load()
}

// Retention is how long entries are kept.
func (l *RequestLog) Retention() time.Duration { return l.opts.Retention }

// Close writes what is buffered and stops the writer and the pruning. An entry recorded while
// Close runs may be dropped.
func (l *RequestLog) Close() {
	l.once.Do(func() {
		l.closed.Store(true)
		close(l.done)
		l.in <- RequestEntry{stop: true}
	})
	l.wg.Wait()
}

// Flush waits until every entry recorded before the call is written (tests, and shutdown paths
// that want the log current). It returns early when ctx ends.
func (l *RequestLog) Flush(ctx context.Context) error {
	if l.closed.Load() {
		return nil
	}
	ack := make(chan struct{})
	select {
	case l.in <- RequestEntry{ack: ack}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *RequestLog) run() {
	defer l.wg.Done()
	batch := make([]RequestEntry, 0, requestLogBatch)
	t := time.NewTicker(requestLogFlush)
	defer t.Stop()
	flush := func() {
		if len(batch) > 0 {
			l.write(batch)
			batch = batch[:0]
		}
	}
	for {
		select {
		case e := <-l.in:
			switch {
			case e.stop:
				// Write what is still queued, then stop.
				for {
					select {
					case e := <-l.in:
						if e.ack != nil {
							close(e.ack)
						} else if !e.stop {
							batch = append(batch, e)
							if len(batch) == requestLogBatch {
								flush()
							}
						}
					default:
						flush()
						return
					}
				}
			case e.ack != nil:
				flush()
				close(e.ack)
			default:
				batch = append(batch, e)
				if len(batch) == requestLogBatch {
					flush()
				}
			}
		case <-t.C:
			flush()
		}
	}
}

// The writer's statements (? placeholders; rebound for PostgreSQL in NewRequestLog).
const (
	insertSegmentSQL = "INSERT INTO request_log_segments (tenant_id, min_at_us, max_at_us, entries, errors, data) " +
		"VALUES (?, ?, ?, ?, ?, ?) RETURNING id"
	insertIDSQL    = "INSERT INTO request_log_ids (entry, tenant_id, request_id) VALUES (?, ?, ?)"
	upsertUsageSQL = "INSERT INTO request_log_usage (tenant_id, hour_us, capability, key_id, calls, errors, credits, latency_us) " +
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, hour_us, capability, key_id) DO UPDATE SET " +
		"calls = request_log_usage.calls + excluded.calls, errors = request_log_usage.errors + excluded.errors, " +
		"credits = request_log_usage.credits + excluded.credits, latency_us = request_log_usage.latency_us + excluded.latency_us"
)

// write stores a batch in one transaction: its segments (one per tenant, cut where the span or
// the size bound says), an id row for each request id the gateway did not make, and the batch's
// usage per hour, capability and key. A failed write is logged and its entries counted lost.
func (l *RequestLog) write(batch []RequestEntry) {
	for i := range batch {
		clean(&batch[i])
	}
	slices.SortStableFunc(batch, func(a, b RequestEntry) int {
		if c := strings.Compare(a.TenantID, b.TenantID); c != 0 {
			return c
		}
		return cmp.Compare(a.AtUS, b.AtUS)
	})
	segs := cutSegments(batch)
	data := make([][]byte, len(segs))
	for i, s := range segs {
		data[i] = encodeSegment(s)
	}
	usage := sumUsage(batch)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := l.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for i, s := range segs {
			if err := l.insert(ctx, tx, s, data[i]); err != nil {
				return err
			}
		}
		for _, u := range usage {
			if _, err := l.db.Exec(ctx, tx, l.upsertUsage, u.tenant, u.hour, u.capability, u.key, u.calls, u.errors, u.credits, u.latency); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		l.failed.Add(uint64(len(batch)))
		l.log.Warn("request log: a batch was not written", "entries", len(batch), "err", err)
		return
	}
	l.written.Add(uint64(len(batch)))
}

// cutSegments cuts a batch sorted by tenant and time into segments: one tenant's, spanning at
// most segmentSpanUS, of at most segmentEntries.
func cutSegments(batch []RequestEntry) [][]RequestEntry {
	var out [][]RequestEntry
	start := 0
	for i := 1; i <= len(batch); i++ {
		if i == len(batch) || batch[i].TenantID != batch[start].TenantID ||
			batch[i].AtUS-batch[start].AtUS > segmentSpanUS || i-start == segmentEntries {
			out = append(out, batch[start:i])
			start = i
		}
	}
	return out
}

// insert writes one segment and the id rows of its entries whose request id the lookup cannot
// find by time.
func (l *RequestLog) insert(ctx context.Context, tx bun.Tx, es []RequestEntry, data []byte) error {
	var id int64
	if err := l.db.QueryRow(ctx, tx, l.insertSegment, es[0].TenantID, es[0].AtUS, es[len(es)-1].AtUS, len(es), failed(es), data).Scan(&id); err != nil {
		return err
	}
	for i := range es {
		if rid := es[i].RequestID; rid != "" && !ourRequestID(rid, es[i].AtUS) {
			if _, err := l.db.Exec(ctx, tx, l.insertID, entryID(id, i), es[i].TenantID, rid); err != nil {
				return err
			}
		}
	}
	return nil
}

// failed counts a segment's failed calls (status 400 and above): its errors column, which lets
// a listing of errors skip the segments without one.
func failed(es []RequestEntry) int {
	n := 0
	for i := range es {
		if es[i].Status >= 400 {
			n++
		}
	}
	return n
}

// usageRow is a batch's sums for one tenant, UTC hour, capability and key.
type usageRow struct {
	tenant, capability, key               string
	hour, calls, errors, credits, latency int64
}

const hourUS = int64(3600 * 1e6)

// sumUsage sums a batch per tenant, hour, capability and key, in key order (so that writers of
// several instances update shared rows in one order and never deadlock each other).
func sumUsage(batch []RequestEntry) []*usageRow {
	type key struct {
		tenant, capability, key string
		hour                    int64
	}
	sums := map[key]*usageRow{}
	var out []*usageRow
	for i := range batch {
		e := &batch[i]
		k := key{e.TenantID, e.Capability, e.KeyID, floorHour(e.AtUS)}
		u := sums[k]
		if u == nil {
			u = &usageRow{tenant: k.tenant, capability: k.capability, key: k.key, hour: k.hour}
			sums[k] = u
			out = append(out, u)
		}
		u.calls++
		if e.Status >= 400 {
			u.errors++
		}
		u.credits += e.Credits
		u.latency += e.LatencyUS
	}
	slices.SortFunc(out, func(a, b *usageRow) int {
		return cmp.Or(strings.Compare(a.tenant, b.tenant), cmp.Compare(a.hour, b.hour),
			strings.Compare(a.capability, b.capability), strings.Compare(a.key, b.key))
	})
	return out
}

// floorHour is the start of the UTC hour of a time in Unix microseconds.
func floorHour(us int64) int64 {
	h := us / hourUS * hourUS
	if h > us {
		h -= hourUS
	}
	return h
}

// clean makes an entry storable: valid UTF-8 without NUL bytes (PostgreSQL refuses them, and one
// bad row would lose its whole batch) and a bounded message.
func clean(e *RequestEntry) {
	for _, s := range []*string{&e.TenantID, &e.KeyID, &e.Mode, &e.Via, &e.Method, &e.Route, &e.Capability, &e.Action, &e.ErrorCode, &e.ErrorMessage, &e.RequestID} {
		if !utf8.ValidString(*s) {
			*s = strings.ToValidUTF8(*s, "?")
		}
		if strings.IndexByte(*s, 0) >= 0 {
			*s = strings.ReplaceAll(*s, "\x00", "")
		}
	}
	if len(e.ErrorMessage) > maxMessageLen {
		e.ErrorMessage = strings.ToValidUTF8(e.ErrorMessage[:maxMessageLen], "") + "…"
	}
	e.ID = 0
}

func (l *RequestLog) pruneLoop() {
	defer l.wg.Done()
	t := time.NewTicker(l.opts.PruneEvery)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if _, err := l.Prune(ctx); err != nil {
				l.log.Warn("request log: pruning failed", "err", err)
			}
			cancel()
		}
	}
}

// usageRetention is how long the hourly usage sums are kept when the log's retention is shorter:
// GET /v1/usage answers ranges of up to 366 days.
const usageRetention = 367 * 24 * time.Hour

// Prune deletes the entries older than the retention by the log's clock and answers how many it
// deleted: whole segments older than the cutoff in bounded chunks, then the few segments that
// straddle it, rewritten without their old entries; then the id rows of deleted segments and
// the usage sums older than usageRetention (or the retention, if longer).
func (l *RequestLog) Prune(ctx context.Context) (int64, error) {
	now := l.opts.Now()
	cutoff := now.Add(-l.opts.Retention).UnixMicro()
	var total int64
	for {
		var old []struct {
			ID      int64 `bun:"id"`
			Entries int64 `bun:"entries"`
		}
		if err := l.db.NewSelect().Table("request_log_segments").Column("id", "entries").Where("max_at_us < ?", cutoff).
			OrderExpr("max_at_us").Limit(pruneChunk).Scan(ctx, &old); err != nil {
			return total, err
		}
		if len(old) == 0 {
			break
		}
		ids := make([]int64, len(old))
		var n int64
		for i, o := range old {
			ids[i], n = o.ID, n+o.Entries
		}
		if _, err := l.db.NewDelete().Table("request_log_segments").Where("id IN (?)", bun.In(ids)).Exec(ctx); err != nil {
			return total, err
		}
		total += n
		l.pruned.Add(uint64(n))
		if len(old) < pruneChunk {
			break
		}
	}
	n, err := l.pruneStraddlers(ctx, cutoff)
	total += n
	if err != nil {
		return total, err
	}
	return total, l.pruneIndexes(ctx, now)
}

// pruneStraddlers rewrites the segments holding entries on both sides of the cutoff (their
// latest entry is within segmentSpanUS after it) without the older ones.
func (l *RequestLog) pruneStraddlers(ctx context.Context, cutoff int64) (int64, error) {
	var segs []segmentRow
	if err := l.db.NewSelect().Table("request_log_segments").Column("id", "tenant_id", "min_at_us", "data").
		Where("max_at_us >= ? AND max_at_us <= ? AND min_at_us < ?", cutoff, cutoff+segmentSpanUS, cutoff).Scan(ctx, &segs); err != nil {
		return 0, err
	}
	var total int64
	for _, s := range segs {
		es, err := decodeSegment(s.Data, s.TenantID, s.ID)
		if err != nil {
			l.log.Warn("request log: a segment could not be read", "segment", s.ID, "err", err)
			continue
		}
		before := len(es)
		keep := slices.DeleteFunc(es, func(e RequestEntry) bool { return e.AtUS < cutoff })
		gone := int64(before - len(keep))
		if gone == 0 || len(keep) == 0 {
			continue // nothing older (its earliest was pruned already), or nothing newer (a late straddler: next time)
		}
		// Another instance's pruning may have rewritten it first: only the rewrite that finds the
		// segment as it was read counts.
		res, err := l.db.NewUpdate().Table("request_log_segments").
			Set("min_at_us = ?, entries = ?, errors = ?, data = ?", keep[0].AtUS, len(keep), failed(keep), encodeSegment(keep)).
			Where("id = ? AND min_at_us = ?", s.ID, s.MinAt).Exec(ctx)
		if err != nil {
			return total, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			total += gone
			l.pruned.Add(uint64(gone))
		}
	}
	return total, nil
}

// pruneIndexes deletes the id rows of segments that are gone (those below the oldest segment
// left; a few of a later deleted one may wait for the next pruning, and a lookup ignores them)
// and the usage sums past their retention.
func (l *RequestLog) pruneIndexes(ctx context.Context, now time.Time) error {
	var oldest sql.NullInt64
	if err := l.db.NewSelect().Table("request_log_segments").ColumnExpr("MIN(id)").Scan(ctx, &oldest); err != nil {
		return err
	}
	below := int64(math.MaxInt64)
	if oldest.Valid {
		below = entryID(oldest.Int64, 0)
	}
	for {
		sub := l.db.NewSelect().Table("request_log_ids").Column("entry").Where("entry < ?", below).OrderExpr("entry").Limit(pruneChunk)
		res, err := l.db.NewDelete().Table("request_log_ids").Where("entry IN (?)", sub).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n < pruneChunk {
			break
		}
	}
	keep := max(l.opts.Retention, usageRetention)
	_, err := l.db.NewDelete().Table("request_log_usage").Where("hour_us < ?", floorHour(now.Add(-keep).UnixMicro())).Exec(ctx)
	return err
}

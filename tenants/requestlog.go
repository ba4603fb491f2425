package tenants

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
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
// and returns; one goroutine writes the buffer in multi-row inserts, every requestLogFlush or
// when a batch is full, and prunes entries older than the retention. A full buffer drops the
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
	inserts                          sync.Map // rows → the prepared insert's SQL
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
	l := &RequestLog{db: db, log: o.Logger, opts: o, in: make(chan RequestEntry, o.Buffer), done: make(chan struct{})}
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

// write inserts a batch in one statement; a failed insert is logged and its entries counted lost.
func (l *RequestLog) write(batch []RequestEntry) {
	for i := range batch {
		clean(&batch[i])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error { return l.insert(ctx, tx, batch) }); err != nil {
		l.failed.Add(uint64(len(batch)))
		l.log.Warn("request log: a batch was not written", "entries", len(batch), "err", err)
		return
	}
	l.written.Add(uint64(len(batch)))
}

// requestLogChunks are the row counts of the prepared multi-row inserts a batch is written with
// (largest first): a statement prepared once per size, not built by reflection for every batch.
var requestLogChunks = []int{64, 16, 4, 1}

const requestLogColumns = 15

// requestLogInsert is the prepared insert of n rows.
func (l *RequestLog) requestLogInsert(n int) string {
	if q, ok := l.inserts.Load(n); ok {
		return q.(string)
	}
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", requestLogColumns), ", ") + ")"
	q := l.db.Rebind("INSERT INTO request_log (tenant_id, key_id, mode, via, method, route, capability, action, status, " +
		"error_code, error_message, credits, latency_us, request_id, at_us) VALUES " + strings.TrimSuffix(strings.Repeat(row+", ", n), ", "))
	l.inserts.Store(n, q)
	return q
}

func (l *RequestLog) insert(ctx context.Context, tx bun.Tx, batch []RequestEntry) error {
	args := make([]any, 0, requestLogChunks[0]*requestLogColumns)
	for len(batch) > 0 {
		n := 1
		for _, size := range requestLogChunks {
			if size <= len(batch) {
				n = size
				break
			}
		}
		args = args[:0]
		for i := range batch[:n] {
			e := &batch[i]
			args = append(args, e.TenantID, e.KeyID, e.Mode, e.Via, e.Method, e.Route, e.Capability, e.Action, e.Status,
				e.ErrorCode, e.ErrorMessage, e.Credits, e.LatencyUS, e.RequestID, e.AtUS)
		}
		if _, err := l.db.Exec(ctx, tx, l.requestLogInsert(n), args...); err != nil {
			return err
		}
		batch = batch[n:]
	}
	return nil
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

// Prune deletes the entries older than the retention by the log's clock, in bounded chunks, and
// answers how many it deleted.
//
// The log has no index on time alone (each index is written on every logged call): entries are
// inserted in time order, give or take a batch and a call's latency, so the first id at the
// cutoff is found by a binary search over ids (a few dozen primary-key lookups), and what goes is
// the id range before it, each row still checked against the cutoff. A straggler just past the
// boundary waits for the next pruning.
func (l *RequestLog) Prune(ctx context.Context) (int64, error) {
	cutoff := l.opts.Now().Add(-l.opts.Retention).UnixMicro()
	boundary, err := l.firstIDAt(ctx, cutoff)
	if err != nil || boundary == 0 {
		return 0, err
	}
	var total int64
	for {
		sub := l.db.NewSelect().Table("request_log").Column("id").Where("id < ? AND at_us < ?", boundary, cutoff).
			OrderExpr("id").Limit(pruneChunk)
		res, err := l.db.NewDelete().Table("request_log").Where("id IN (?)", sub).Exec(ctx)
		if err != nil {
			return total, err
		}
		n, _ := res.RowsAffected()
		total += n
		l.pruned.Add(uint64(n))
		if n < pruneChunk {
			return total, nil
		}
	}
}

// firstIDAt is the lowest id whose entry is at or after cutoff, by binary search over the ids
// (the entry at the first id at or above each probe); one past the last id when every entry is
// older, 0 when the log is empty.
func (l *RequestLog) firstIDAt(ctx context.Context, cutoff int64) (int64, error) {
	var bounds struct {
		Lo sql.NullInt64 `bun:"lo"`
		Hi sql.NullInt64 `bun:"hi"`
	}
	if err := l.db.NewSelect().Table("request_log").ColumnExpr("MIN(id) AS lo, MAX(id) AS hi").Scan(ctx, &bounds); err != nil {
		return 0, err
	}
	if !bounds.Lo.Valid {
		return 0, nil
	}
	lo, hi := bounds.Lo.Int64, bounds.Hi.Int64+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		var row struct {
			ID   int64 `bun:"id"`
			AtUS int64 `bun:"at_us"`
		}
		err := l.db.NewSelect().Table("request_log").Column("id", "at_us").Where("id >= ?", mid).
			OrderExpr("id").Limit(1).Scan(ctx, &row)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			hi = mid
		case err != nil:
			return 0, err
		case row.AtUS < cutoff:
			lo = row.ID + 1
		default:
			hi = mid
		}
	}
	return lo, nil
}

// RequestFilter selects entries of one tenant; zero fields do not filter.
type RequestFilter struct {
	TenantID   string
	KeyID      string
	Mode       string // live or test: the key's mode
	Capability string
	// Status is an exact status (404) or a class: 4 (4xx) or 5 (5xx) with StatusClass.
	Status      int
	StatusClass bool
	ErrorCode   string
	From, To    time.Time // [From, To)
	Cursor      string    // Next of the previous page
	Limit       int
}

// ErrBadCursor is a cursor this log did not give.
var ErrBadCursor = errors.New("the cursor is not one a previous page gave")

// EncodeCursor is the opaque cursor after an entry (newest first: the next page is older).
func EncodeCursor(e *RequestEntry) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(e.AtUS, 10) + "." + strconv.FormatInt(e.ID, 10)))
}

func decodeCursor(s string) (at, id int64, err error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, 0, ErrBadCursor
	}
	a, i, ok := strings.Cut(string(b), ".")
	if !ok {
		return 0, 0, ErrBadCursor
	}
	if at, err = strconv.ParseInt(a, 10, 64); err != nil {
		return 0, 0, ErrBadCursor
	}
	if id, err = strconv.ParseInt(i, 10, 64); err != nil {
		return 0, 0, ErrBadCursor
	}
	return at, id, nil
}

func (f RequestFilter) apply(q *bun.SelectQuery) (*bun.SelectQuery, error) {
	if f.TenantID == "" {
		return nil, errors.New("request log: a query must name its tenant")
	}
	q = q.Where("tenant_id = ?", f.TenantID)
	if f.KeyID != "" {
		q = q.Where("key_id = ?", f.KeyID)
	}
	if f.Mode != "" {
		q = q.Where("mode = ?", f.Mode)
	}
	if f.Capability != "" {
		q = q.Where("capability = ?", f.Capability)
	}
	switch {
	case f.StatusClass:
		q = q.Where("status >= ? AND status < ?", f.Status*100, f.Status*100+100)
	case f.Status != 0:
		q = q.Where("status = ?", f.Status)
	}
	if (f.StatusClass && f.Status >= 4) || f.Status >= 400 {
		// Spelled as a literal so that both planners see the partial index's own condition
		// (request_log_tenant_errors indexes errors only: successes are not written to it).
		q = q.Where("status >= 400")
	}
	if f.ErrorCode != "" {
		q = q.Where("error_code = ?", f.ErrorCode)
	}
	if !f.From.IsZero() {
		q = q.Where("at_us >= ?", f.From.UnixMicro())
	}
	if !f.To.IsZero() {
		q = q.Where("at_us < ?", f.To.UnixMicro())
	}
	return q, nil
}

// Requests lists a tenant's entries, newest first, a page at a time: next is the cursor of the
// following page ("" on the last).
func (s *Store) Requests(ctx context.Context, f RequestFilter) (out []RequestEntry, next string, err error) {
	for _, v := range []string{f.TenantID, f.KeyID, f.Mode, f.Capability, f.ErrorCode} {
		if !storable(v) {
			return nil, "", nil // nothing stored holds a NUL byte or invalid UTF-8
		}
	}
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 50
	}
	q, err := f.apply(s.DB.NewSelect().Model(&out))
	if err != nil {
		return nil, "", err
	}
	if f.Cursor != "" {
		at, id, err := decodeCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		q = q.Where("(at_us < ? OR (at_us = ? AND id < ?))", at, at, id)
	}
	if err := q.OrderExpr("at_us DESC, id DESC").Limit(int64(f.Limit) + 1).Scan(ctx); err != nil {
		return nil, "", err
	}
	if len(out) > f.Limit {
		out = out[:f.Limit]
		next = EncodeCursor(&out[len(out)-1])
	}
	return out, next, nil
}

// RequestsByID lists a tenant's entries with a request id, newest first (a client may reuse an
// id, and an MCP tool call logs its /mcp request and the /v1 call it dispatched under one id).
func (s *Store) RequestsByID(ctx context.Context, tenantID, requestID string) ([]RequestEntry, error) {
	var out []RequestEntry
	if !storable(tenantID) || !storable(requestID) || tenantID == "" {
		return out, nil
	}
	err := s.DB.NewSelect().Model(&out).Where("tenant_id = ? AND request_id = ?", tenantID, requestID).
		OrderExpr("at_us DESC, id DESC").Limit(100).Scan(ctx)
	return out, err
}

// Usage groups.
const (
	UsageByDay        = "day"
	UsageByCapability = "capability"
	UsageByKey        = "key"
)

// UsageRow is one group of a tenant's usage.
type UsageRow struct {
	Group    string `bun:"grp" json:"group"`
	Calls    int64  `bun:"calls" json:"calls"`
	Errors   int64  `bun:"errors" json:"errors"`
	Credits  int64  `bun:"credits" json:"credits"`
	AvgLatUS int64  `bun:"avg_latency_us" json:"-"`
}

// UsageSummary sums a tenant's calls, errors (status 400 and above) and credits in [from, to) by day
// (UTC, YYYY-MM-DD), capability or key, from the request log.
func (s *Store) UsageSummary(ctx context.Context, tenantID, groupBy string, from, to time.Time) ([]UsageRow, error) {
	var col string
	switch groupBy {
	case UsageByDay:
		col = "at_us / 86400000000" // whole UTC days since the epoch (integer division on both dialects)
	case UsageByCapability:
		col = "capability"
	case UsageByKey:
		col = "key_id"
	default:
		return nil, fmt.Errorf("usage: unknown grouping %q", groupBy)
	}
	f := RequestFilter{TenantID: tenantID, From: from, To: to}
	var rows []struct {
		Grp     string  `bun:"grp"`
		Calls   int64   `bun:"calls"`
		Errors  int64   `bun:"errors"`
		Credits int64   `bun:"credits"`
		Lat     float64 `bun:"avg_latency_us"`
	}
	q, err := f.apply(s.DB.NewSelect().Table("request_log").
		ColumnExpr("CAST(" + col + " AS TEXT) AS grp").
		ColumnExpr("COUNT(*) AS calls").
		ColumnExpr("SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END) AS errors").
		ColumnExpr("COALESCE(SUM(credits), 0) AS credits").
		ColumnExpr("AVG(latency_us) AS avg_latency_us"))
	if err != nil {
		return nil, err
	}
	if err := q.GroupExpr(col).OrderExpr(col).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make([]UsageRow, 0, len(rows))
	for _, r := range rows {
		g := r.Grp
		if groupBy == UsageByDay {
			days, _ := strconv.ParseInt(g, 10, 64)
			g = time.Unix(days*86400, 0).UTC().Format(time.DateOnly)
		}
		out = append(out, UsageRow{Group: g, Calls: r.Calls, Errors: r.Errors, Credits: r.Credits, AvgLatUS: int64(r.Lat)})
	}
	return out, nil
}

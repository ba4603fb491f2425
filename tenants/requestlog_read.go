package tenants

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/capgate/capgate/internal/ids"
)

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

// errorsOnly tells whether only failed calls (status 400 and above) can match: then segments
// without one are not read.
func (f *RequestFilter) errorsOnly() bool {
	return (f.StatusClass && f.Status >= 4) || f.Status >= 400 || f.ErrorCode != ""
}

// match tells whether an entry passes the filter's fields (not its time range or cursor).
func (f *RequestFilter) match(e *RequestEntry) bool {
	switch {
	case f.KeyID != "" && e.KeyID != f.KeyID,
		f.Mode != "" && e.Mode != f.Mode,
		f.Capability != "" && e.Capability != f.Capability,
		f.ErrorCode != "" && e.ErrorCode != f.ErrorCode,
		f.StatusClass && e.Status/100 != f.Status,
		!f.StatusClass && f.Status != 0 && e.Status != f.Status:
		return false
	}
	return true
}

// ErrBadCursor is a cursor this log did not give.
var ErrBadCursor = errors.New("the cursor is not one a previous page gave")

// EncodeCursor is the opaque cursor after an entry (newest first: the next page is older).
func EncodeCursor(e *RequestEntry) string { return encodeCursor(e.AtUS, e.ID) }

func encodeCursor(at, id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at, 10) + "." + strconv.FormatInt(id, 10)))
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
	if id, err = strconv.ParseInt(i, 10, 64); err != nil || id < 0 {
		return 0, 0, ErrBadCursor
	}
	// A time this far out is no entry's: its bounds below would overflow.
	if at < -(1<<60) || at > 1<<60 {
		return 0, 0, ErrBadCursor
	}
	return at, id, nil
}

// newestFirst orders entries by arrival, newest first, then by ID (later segment and position
// first): the order of the log and of its cursor.
func newestFirst(a, b RequestEntry) int {
	return cmp.Or(cmp.Compare(b.AtUS, a.AtUS), cmp.Compare(b.ID, a.ID))
}

// segmentRow is a stored segment as the readers load it.
type segmentRow struct {
	ID       int64  `bun:"id"`
	TenantID string `bun:"tenant_id"`
	MinAt    int64  `bun:"min_at_us"`
	MaxAt    int64  `bun:"max_at_us"`
	Data     []byte `bun:"data"`
}

// Reading bounds.
const (
	// segmentPage is the most segments one query reads; the first reads four (a first page
	// of an unfiltered listing usually needs one) and each next one twice as many.
	segmentPage = 64
)

// maxScanEntries bounds the entries one page decodes: a page of a narrow filter over a large log
// answers what it found so far with a cursor that goes on from there. (A variable for tests.)
var maxScanEntries = 50_000

// Requests lists a tenant's entries, newest first, a page at a time: next is the cursor of the
// following page ("" on the last). A page may hold fewer than the limit, even none, and a cursor
// when a narrow filter had to read more than maxScanEntries to fill it.
//
// Segments are read by their latest entry, newest first. Every segment not yet read holds only
// entries at or before the latest entry of the next one, so the entries found that are later
// than it are final, in order; the page is done once it has one more of those than its limit.
func (s *Store) Requests(ctx context.Context, f RequestFilter) (out []RequestEntry, next string, err error) {
	if f.TenantID == "" {
		return nil, "", errors.New("request log: a query must name its tenant")
	}
	for _, v := range []string{f.TenantID, f.KeyID, f.Mode, f.Capability, f.ErrorCode} {
		if !storable(v) {
			return nil, "", nil // nothing stored holds a NUL byte or invalid UTF-8
		}
	}
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 50
	}
	from, to := int64(math.MinInt64), int64(math.MaxInt64)
	if !f.From.IsZero() {
		from = f.From.UnixMicro()
	}
	if !f.To.IsZero() {
		to = f.To.UnixMicro()
	}
	curAt, curID := int64(math.MaxInt64), int64(0)
	if f.Cursor != "" {
		if curAt, curID, err = decodeCursor(f.Cursor); err != nil {
			return nil, "", err
		}
		to = min(to, curAt+1)
	}
	// Segments whose latest entry is below hi: any entry before to is in one (a segment spans
	// at most segmentSpanUS).
	hi := to
	if to < math.MaxInt64-segmentSpanUS {
		hi = to + segmentSpanUS
	}
	var cands []RequestEntry
	scanned, bound, exhausted := 0, int64(0), false
	err = s.walkSegments(ctx, f, from, hi, func(seg *segmentRow, es []RequestEntry) bool {
		// Out of budget, stop where the next page starts strictly earlier than this one did
		// (segments overlapping the cursor are read again), so that paging always progresses.
		if later(cands, seg.MaxAt) > f.Limit || (scanned >= maxScanEntries && seg.MaxAt < curAt) {
			bound = seg.MaxAt
			return false
		}
		scanned += len(es)
		for i := range es {
			e := &es[i]
			if e.AtUS >= from && e.AtUS < to && (e.AtUS < curAt || e.ID < curID) && f.match(e) {
				cands = append(cands, *e)
			}
		}
		return true
	}, &exhausted)
	if err != nil {
		return nil, "", err
	}
	slices.SortFunc(cands, newestFirst)
	if !exhausted {
		cands = cands[:later(cands, bound)]
	}
	switch {
	case len(cands) > f.Limit:
		out = cands[:f.Limit]
		next = EncodeCursor(&out[len(out)-1])
	case !exhausted:
		out, next = cands, encodeCursor(bound, math.MaxInt64>>1) // what is at or before bound
	default:
		out = cands
	}
	return out, next, nil
}

// later counts the entries later than at (cands need not be sorted).
func later(cands []RequestEntry, at int64) int {
	n := 0
	for i := range cands {
		if cands[i].AtUS > at {
			n++
		}
	}
	return n
}

// walkSegments hands the tenant's segments whose latest entry is in [from, hi), newest first,
// decoded, to fn until fn answers false; exhausted tells whether every one was handed. A segment
// that cannot be read is skipped: it never fails the listing.
func (s *Store) walkSegments(ctx context.Context, f RequestFilter, from, hi int64, fn func(*segmentRow, []RequestEntry) bool, exhausted *bool) error {
	lastMax, lastID := hi, int64(math.MinInt64)
	for size := int64(4); ; size = min(2*size, segmentPage) {
		var page []segmentRow
		q := s.segmentsBefore(f, from, lastMax, lastID, size)
		if err := q.Scan(ctx, &page); err != nil {
			return err
		}
		for i := range page {
			seg := &page[i]
			es, err := decodeSegment(seg.Data, seg.TenantID, seg.ID)
			if err != nil {
				continue
			}
			if !fn(seg, es) {
				return nil
			}
			lastMax, lastID = seg.MaxAt, seg.ID
		}
		if int64(len(page)) < size {
			*exhausted = true
			return nil
		}
		lastMax, lastID = page[len(page)-1].MaxAt, page[len(page)-1].ID
	}
}

// segmentsBefore is the query of the next size segments of a listing: the tenant's, whose latest
// entry is at or after from and before (lastMax, lastID), newest first; an index range of
// request_log_segments_tenant (TestSegmentQueriesUseTheirIndex).
func (s *Store) segmentsBefore(f RequestFilter, from, lastMax, lastID, size int64) *bun.SelectQuery {
	q := s.DB.NewSelect().Table("request_log_segments").Column("id", "tenant_id", "min_at_us", "max_at_us", "data").
		Where("tenant_id = ?", f.TenantID).Where("max_at_us >= ?", from).
		Where("(max_at_us < ? OR (max_at_us = ? AND id < ?))", lastMax, lastMax, lastID)
	if f.errorsOnly() {
		q = q.Where("errors > 0")
	}
	return q.OrderExpr("max_at_us DESC, id DESC").Limit(size)
}

// RequestsByID lists a tenant's entries with a request id, newest first, at most 100 (a client
// may reuse an id, and an MCP tool call logs its /mcp request and the /v1 call it dispatched
// under one id). An id the gateway made is found by the time it carries; any other by its id row.
func (s *Store) RequestsByID(ctx context.Context, tenantID, requestID string) ([]RequestEntry, error) {
	out := []RequestEntry{}
	if !storable(tenantID) || !storable(requestID) || tenantID == "" || requestID == "" {
		return out, nil
	}
	var segs []segmentRow
	if ms, ok := ids.TimeOf(requestIDPrefix, requestID); ok && ms < math.MaxInt64/2000 {
		at := ms * 1000
		if err := s.DB.NewSelect().Table("request_log_segments").Column("id", "tenant_id", "min_at_us", "max_at_us", "data").
			Where("tenant_id = ? AND max_at_us >= ? AND max_at_us <= ? AND min_at_us <= ?",
				tenantID, at-idWindowUS, at+idWindowUS+segmentSpanUS, at+idWindowUS).Scan(ctx, &segs); err != nil {
			return nil, err
		}
	}
	var entries []int64
	if err := s.DB.NewSelect().Table("request_log_ids").Column("entry").
		Where("tenant_id = ? AND request_id = ?", tenantID, requestID).Limit(1000).Scan(ctx, &entries); err != nil {
		return nil, err
	}
	seen := map[int64]bool{}
	for _, sg := range segs {
		seen[sg.ID] = true
	}
	var more []int64
	for _, e := range entries {
		if id := e >> entryBits; !seen[id] {
			seen[id] = true
			more = append(more, id)
		}
	}
	if len(more) > 0 {
		var extra []segmentRow
		if err := s.DB.NewSelect().Table("request_log_segments").Column("id", "tenant_id", "min_at_us", "max_at_us", "data").
			Where("tenant_id = ? AND id IN (?)", tenantID, bun.In(more)).Scan(ctx, &extra); err != nil {
			return nil, err
		}
		segs = append(segs, extra...)
	}
	for i := range segs {
		es, err := decodeSegment(segs[i].Data, segs[i].TenantID, segs[i].ID)
		if err != nil {
			continue
		}
		for j := range es {
			if es[j].RequestID == requestID {
				out = append(out, es[j])
			}
		}
	}
	slices.SortFunc(out, newestFirst)
	return out[:min(len(out), 100)], nil
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

// UsageHours is the range usage is summed over for [from, to): usage is kept per UTC hour, so
// every hour the range touches counts whole (from rounded down, to rounded up to the hour).
func UsageHours(from, to time.Time) (time.Time, time.Time) {
	f := from.UTC().Truncate(time.Hour)
	t := to.UTC().Truncate(time.Hour)
	if t.Before(to) {
		t = t.Add(time.Hour)
	}
	return f, t
}

// UsageSummary sums a tenant's calls, errors (status 400 and above) and credits by day (UTC,
// YYYY-MM-DD), capability or key over the hours of [from, to) (UsageHours), from the hourly
// sums the writer keeps (request_log_usage). A zero from or to does not bound.
func (s *Store) UsageSummary(ctx context.Context, tenantID, groupBy string, from, to time.Time) ([]UsageRow, error) {
	var col string
	switch groupBy {
	case UsageByDay:
		col = "hour_us / 86400000000" // whole UTC days since the epoch (integer division on both dialects)
	case UsageByCapability:
		col = "capability"
	case UsageByKey:
		col = "key_id"
	default:
		return nil, fmt.Errorf("usage: unknown grouping %q", groupBy)
	}
	if tenantID == "" {
		return nil, errors.New("usage: a query must name its tenant")
	}
	if !storable(tenantID) {
		return nil, nil
	}
	var rows []struct {
		Grp     string `bun:"grp"`
		Calls   int64  `bun:"calls"`
		Errors  int64  `bun:"errors"`
		Credits int64  `bun:"credits"`
		Latency int64  `bun:"latency_us"`
	}
	q := s.DB.NewSelect().Table("request_log_usage").
		ColumnExpr("CAST("+col+" AS TEXT) AS grp").
		ColumnExpr("SUM(calls) AS calls").
		ColumnExpr("SUM(errors) AS errors").
		ColumnExpr("SUM(credits) AS credits").
		ColumnExpr("SUM(latency_us) AS latency_us").
		Where("tenant_id = ?", tenantID)
	f, t := UsageHours(from, to)
	if !from.IsZero() {
		q = q.Where("hour_us >= ?", f.UnixMicro())
	}
	if !to.IsZero() {
		q = q.Where("hour_us < ?", t.UnixMicro())
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
		u := UsageRow{Group: g, Calls: r.Calls, Errors: r.Errors, Credits: r.Credits}
		if r.Calls > 0 {
			u.AvgLatUS = r.Latency / r.Calls
		}
		out = append(out, u)
	}
	return out, nil
}

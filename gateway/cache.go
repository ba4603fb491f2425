package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/capgate/capgate/internal/telemetry"
	"go.opentelemetry.io/otel/attribute"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/capgate/capgate/gateway/sharedcache"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants/searches"
)

// The shared upstream cache (gateway/sharedcache) seen from the pipeline. A page of results
// (execute, a provider-paged more, an update) is looked up by a key made of everything the
// upstream answer depends on: the capability, the mode (test and live never share), the request
// after defaults and normalisation, the paging state, and a fingerprint of the settings (base
// URL and key) its providers are reached with, so an answer fetched under one key is never served
// under another. Personal capabilities and providers whose terms forbid storing are never looked
// up (providers/cache.go). Concurrent misses of one key make one upstream call (Coalesce).
//
// What is stored is the page as rendered (the records' JSON bytes, their references and stored
// details, the paging state, notes and filters), not the upstream's answer: a hit decodes it and
// writes the caller's own record ids over the stored ones in place (record ids have a fixed
// length), so it opens the caller's own search session without rendering anything again.

// CacheHeader says what the shared cache did for an answer: hit, miss, coalesced or bypass.
const CacheHeader = "Capgate-Cache"

type cacheStatus uint8

const (
	cacheBypass    cacheStatus = iota // not looked up (no-store, personal, terms, sandbox fault)
	cacheMiss                         // fetched from the upstream by this call (and stored when allowed)
	cacheHit                          // served from the cache
	cacheCoalesced                    // answered by another caller's concurrent upstream call
)

func (s cacheStatus) String() string {
	return [...]string{"bypass", "miss", "hit", "coalesced"}[s]
}

// saved tells whether the answer cost no upstream call of its own.
func (s cacheStatus) saved() bool { return s == cacheHit || s == cacheCoalesced }

// cacheControl is the caller's Cache-Control, HTTP style.
type cacheControl struct {
	noStore bool          // neither read nor write the cache
	noCache bool          // fetch fresh, then refresh the cache
	maxAge  time.Duration // > 0: accept a cached answer no older than this
	bypass  bool          // the gateway's own reasons (sandbox fault rehearsal)
}

// maxCacheAge caps max-age (a year, as HTTP caches treat larger values).
const maxCacheAge = 365 * 24 * 3600

// parseCacheControl reads the directives the gateway honours (no-store, no-cache, max-age=N);
// others are ignored as an HTTP cache ignores what it does not implement. A malformed max-age is
// refused rather than guessed.
func parseCacheControl(v string) (cacheControl, error) {
	var cc cacheControl
	for _, d := range strings.Split(v, ",") {
		d = strings.TrimSpace(d)
		name, arg, hasArg := strings.Cut(d, "=")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "no-store":
			cc.noStore = true
		case "no-cache":
			cc.noCache = true
		case "max-age":
			arg = strings.Trim(strings.TrimSpace(arg), `"`)
			n, err := strconv.ParseUint(arg, 10, 64)
			if !hasArg || err != nil {
				return cc, &Error{Code: providers.CodeInvalidRequest, Message: fmt.Sprintf("Cache-Control max-age must be a whole number of seconds, got %q", d),
					Violations: []providers.Violation{{Path: "/headers/Cache-Control", Message: "max-age=N with N >= 0 seconds"}}}
			}
			if n == 0 {
				cc.noCache = true // max-age=0: nothing cached is fresh enough
			} else {
				cc.maxAge = time.Duration(min(n, maxCacheAge)) * time.Second
			}
		}
	}
	return cc, nil
}

// cacheControlOf reads the request's Cache-Control; a sandbox fault rehearsal always reaches the
// (sandbox) upstream.
func cacheControlOf(c *fiber.Ctx) (cacheControl, error) {
	cc, err := parseCacheControl(c.Get(fiber.HeaderCacheControl))
	if c.Get(SandboxFaultHeader) != "" {
		cc.bypass = true
	}
	return cc, err
}

// pageMeta is what an answer says besides its records.
type pageMeta struct {
	notes   []string
	filters []providers.Filter
	credits int // the page's full charge before the plan (a hit is charged a share of it)
	status  cacheStatus
	age     time.Duration // of a hit
	page    *searches.PageRef
}

// cacheMetrics are the shared cache's Prometheus series.
type cacheMetrics struct {
	answers *prometheus.CounterVec // capability, outcome, tier
	saved   *prometheus.CounterVec // capability: upstream calls saved
	credits *prometheus.CounterVec // capability: credits not charged thanks to the cache
	corrupt *prometheus.CounterVec // tier
}

func newCacheMetrics(reg prometheus.Registerer, c *sharedcache.Cache) *cacheMetrics {
	m := &cacheMetrics{
		answers: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "capgate_shared_cache_answers_total",
			Help: "Pages answered per capability by what the shared upstream cache did (outcome hit, miss, coalesced, bypass) and the tier a hit came from (memory, redis; none otherwise). Hit ratio: hits over all answers."},
			[]string{"capability", "outcome", "tier"}),
		saved: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "capgate_shared_cache_upstream_calls_saved_total",
			Help: "Upstream calls not made because a page came from the shared cache or a concurrent caller's call."}, []string{"capability"}),
		credits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "capgate_shared_cache_credits_saved_total",
			Help: "Credits callers were not charged because their page came from the shared cache."}, []string{"capability"}),
		corrupt: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "capgate_shared_cache_corrupt_total",
			Help: "Cache entries that were foreign, truncated or damaged (served as misses), by tier."}, []string{"tier"}),
	}
	reg.MustRegister(m.answers, m.saved, m.credits, m.corrupt,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "capgate_shared_cache_coalesced_waiters",
			Help: "Callers waiting right now for a concurrent identical upstream call."}, func() float64 {
			if c == nil {
				return 0
			}
			return float64(c.Waiting())
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "capgate_shared_cache_redis_errors_total",
			Help: "Failed round trips to the Redis tier (the in-process tier answers alone meanwhile)."}, func() float64 {
			if c == nil {
				return 0
			}
			return float64(c.RedisErrors.Load())
		}))
	return m
}

// cacheKey hashes everything the page depends on.
func (s *Server) cacheKey(cp *providers.Capability, mode providers.Mode, query []byte, state json.RawMessage) sharedcache.Key {
	fp := s.opts.Client.SettingsFingerprint(cp, mode)
	h := sha256.New()
	var n [8]byte
	for _, part := range [][]byte{[]byte("capgate-upcache-v1"), []byte(mode), []byte(cp.ID), query, state, fp[:]} {
		binary.LittleEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	var k sharedcache.Key
	h.Sum(k[:0])
	return k
}

// loadPage fills sess with one page of results for req at the paging state, through the shared
// cache where the capability, its providers' terms and the caller allow it; query is req as
// stored (json.Marshal of req, computed here when nil).
func (s *Server) loadPage(ctx context.Context, p *Principal, cp *providers.Capability, req providers.Request, query []byte, state json.RawMessage, sess *searches.Session, cc cacheControl) ([]*searches.Record, pageMeta, error) {
	if s.upcache == nil || cc.noStore || cc.bypass || !s.opts.Client.Shareable(cp) {
		page, err := s.fetchPage(ctx, p, cp, req, state)
		if err != nil {
			return nil, pageMeta{}, err
		}
		shown, err := fillSession(sess, cp, req, page)
		if err != nil {
			return nil, pageMeta{}, err
		}
		s.cacheMetrics.answers.WithLabelValues(cp.ID, "bypass", "none").Inc()
		return shown, pageMeta{notes: page.Notes, filters: page.Filters, credits: pageCredits(cp, page), status: cacheBypass}, nil
	}
	if query == nil {
		query, _ = json.Marshal(req)
	}
	key := s.cacheKey(cp, p.Mode(), query, state)
	if !cc.noCache {
		_, span := telemetry.Start(ctx, "cache.lookup")
		e, o := s.upcache.Get(ctx, key, cc.maxAge)
		if span.IsRecording() {
			span.SetAttributes(attribute.String("capgate.cache.outcome", o.String()), attribute.String("capgate.cache.tier", string(e.Tier)))
		}
		telemetry.End(span, nil, "")
		if o == sharedcache.Hit {
			snap, err := decodeSnapshot(e.Value)
			if err == nil {
				s.cacheMetrics.answers.WithLabelValues(cp.ID, "hit", string(e.Tier)).Inc()
				s.cacheMetrics.saved.WithLabelValues(cp.ID).Inc()
				meta := snap.meta(s, cp, cacheHit, e.Age)
				meta.page = s.pageRef(p, cp, sess, snap)
				return snap.place(sess, cp, req), meta, nil
			}
			o = sharedcache.Corrupt
			e.Tier = "decode"
		}
		if o == sharedcache.Corrupt {
			s.cacheMetrics.corrupt.WithLabelValues(string(e.Tier)).Inc()
		}
	}
	// Instances sharing a Redis tier coalesce too, for as long as one upstream call may take.
	lockTTL := cp.Deadline
	if lockTTL <= 0 {
		lockTTL = fleetLockTTL
	}
	value, shared, err := s.upcache.Coalesce(ctx, key, lockTTL, func() ([]byte, error) {
		return s.fetchShared(ctx, p, cp, req, state, key)
	})
	if err != nil {
		return nil, pageMeta{}, err
	}
	snap, err := decodeSnapshot(value)
	if err != nil && shared {
		// Another instance's answer in a form this one does not read (a rolling deploy across
		// a change of the stored page's version): fetched here instead.
		s.cacheMetrics.corrupt.WithLabelValues("coalesced").Inc()
		if value, err = s.fetchShared(ctx, p, cp, req, state, key); err != nil {
			return nil, pageMeta{}, err
		}
		shared = false
		snap, err = decodeSnapshot(value)
	}
	if err != nil {
		return nil, pageMeta{}, &Error{Code: providers.CodeInternal, Message: "a page could not be stored", Cause: err}
	}
	status := cacheMiss
	if shared {
		status = cacheCoalesced
		s.cacheMetrics.saved.WithLabelValues(cp.ID).Inc()
	}
	s.cacheMetrics.answers.WithLabelValues(cp.ID, status.String(), "none").Inc()
	meta := snap.meta(s, cp, status, 0)
	meta.page = s.pageRef(p, cp, sess, snap)
	return snap.place(sess, cp, req), meta, nil
}

// pageRef is the shared page a new session (execute's) refers to instead of holding a copy of
// its records (tenants/searches/pages.go); nil for a session that exists already (more, update
// append to it). It must be taken before place gives the records the caller's ids.
func (s *Server) pageRef(p *Principal, cp *providers.Capability, sess *searches.Session, snap *snapshot) *searches.PageRef {
	if !sess.CreatedAt.IsZero() || len(sess.Records) > 0 {
		return nil
	}
	return s.sessions.Page(snap.id, string(p.Mode()), cp.ID, snap.recs)
}

// fleetLockTTL bounds the fleet-wide coalescing wait of a capability without a deadline.
const fleetLockTTL = 30 * time.Second

// fetchShared makes the one upstream call of a coalesced miss. It runs apart from any one caller
// (a caller that leaves does not fail the others), under the capability's deadline, recovers its
// own panic (it runs on a goroutine of its own), renders the page once and stores it for as long
// as the capability and every provider the call used allow.
func (s *Server) fetchShared(parent context.Context, p *Principal, cp *providers.Capability, req providers.Request, state json.RawMessage, key sharedcache.Key) (value []byte, err error) {
	ctx := context.WithoutCancel(parent)
	if cp.Deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cp.Deadline)
		defer cancel()
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in a shared upstream call", "capability", cp.ID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			value, err = nil, &Error{Code: providers.CodeInternal, Message: "an internal error occurred; it has been logged"}
		}
	}()
	call := s.newCall(cp, req, state, p)
	page, err := cp.Execute(ctx, call)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, s.workError(ctx, billed{capability: cp.ID, action: "execute", deadline: cp.Deadline}, err)
		}
		return nil, err
	}
	if page == nil {
		page = &providers.Page{}
	}
	scratch := &searches.Session{ID: searches.NewID()}
	recs := make([]*searches.Record, 0, len(page.Records))
	for i := range page.Records {
		r := &searches.Record{}
		scratch.Add(r)
		if err := renderRecord(r, &page.Records[i]); err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	value = encodeSnapshot(scratch.ID, recs, page)
	s.upcache.Put(ctx, key, value, s.opts.Client.CacheFor(cp, call))
	return value, nil
}

// snapshot is a stored page, decoded; byte fields alias the caller's own copy of the value.
type snapshot struct {
	id      string // the session id the page was fetched under: its records' ids, and the shared page's id
	recs    []*searches.Record
	idAt    []int // where each record's id starts in its body
	hasMore bool
	next    []byte
	filters []byte
	notes   []byte
	credits int
}

// snapshotVersion 2 added the page's session id; a version 1 entry (Redis, across an upgrade)
// reads as corrupt, that is as a miss.
const snapshotVersion = 2

func encodeSnapshot(id string, recs []*searches.Record, page *providers.Page) []byte {
	size := 64 + len(page.Next)
	for _, r := range recs {
		size += 48 + len(r.Body) + len(r.Ref)
		for _, d := range r.Stored {
			size += 16 + len(d.Action) + len(d.Detail) + len(d.Links)
		}
	}
	b := make([]byte, 0, size)
	putBytes := func(v []byte) []byte { b = binary.AppendUvarint(b, uint64(len(v))); return append(b, v...) }
	b = append(b, snapshotVersion)
	b = putBytes([]byte(id))
	b = binary.AppendUvarint(b, uint64(len(recs)))
	for _, r := range recs {
		at := bytes.Index(r.Body, []byte(`"record_id":"`+r.ID+`"`))
		if at >= 0 {
			at += len(`"record_id":"`)
		}
		b = binary.AppendVarint(b, int64(at))
		b = putBytes(r.Body)
		b = putBytes(r.Ref)
		if r.Actions == nil {
			b = binary.AppendUvarint(b, 0)
		} else {
			b = binary.AppendUvarint(b, uint64(len(r.Actions))+1)
			for _, a := range r.Actions {
				b = putBytes([]byte(a))
			}
		}
		b = binary.AppendUvarint(b, uint64(len(r.Stored)))
		for _, d := range r.Stored {
			b = putBytes([]byte(d.Action))
			b = putBytes(d.Detail)
			b = putBytes(d.Links)
		}
	}
	if page.HasMore {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = putBytes(page.Next)
	b = putBytes(mustJSON(orEmpty(page.Filters)))
	b = putBytes(mustJSON(orEmpty(page.Notes)))
	credits := -1
	if page.Credits != nil {
		credits = *page.Credits
	}
	return binary.AppendVarint(b, int64(credits))
}

var errSnapshot = errors.New("cache: stored page is malformed")

// snapReader reads what encodeSnapshot wrote, refusing anything out of bounds.
type snapReader struct {
	b   []byte
	err error
}

func (r *snapReader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errSnapshot
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *snapReader) int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errSnapshot
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *snapReader) bytes() []byte {
	n := r.uint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errSnapshot
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func decodeSnapshot(b []byte) (*snapshot, error) {
	if len(b) == 0 || b[0] != snapshotVersion {
		return nil, errSnapshot
	}
	r := &snapReader{b: b[1:]}
	id := string(r.bytes())
	if r.err != nil || !searches.ValidSearchID(id) {
		return nil, errSnapshot
	}
	n := r.uint()
	if r.err != nil || n > uint64(len(r.b)) {
		return nil, errSnapshot
	}
	sn := &snapshot{id: id, recs: make([]*searches.Record, n), idAt: make([]int, n)}
	recs := make([]searches.Record, n)
	for i := range recs {
		rec := &recs[i]
		at := r.int()
		rec.Body = r.bytes()
		if at >= 0 && (r.err != nil || at > int64(len(rec.Body)-20) || !bytes.HasPrefix(rec.Body[at:], []byte("rec_"))) {
			return nil, errSnapshot
		}
		sn.idAt[i] = int(at)
		rec.Ref = r.bytes()
		if na := r.uint(); na > 0 {
			if na-1 > uint64(len(r.b)) {
				return nil, errSnapshot
			}
			rec.Actions = make([]string, 0, na-1)
			for j := uint64(1); j < na && r.err == nil; j++ {
				rec.Actions = append(rec.Actions, string(r.bytes()))
			}
		}
		if ns := r.uint(); ns > 0 {
			if ns > uint64(len(r.b)) {
				return nil, errSnapshot
			}
			rec.Stored = make([]searches.StoredDetail, 0, ns)
			for j := uint64(0); j < ns && r.err == nil; j++ {
				rec.Stored = append(rec.Stored, searches.StoredDetail{Action: string(r.bytes()), Detail: r.bytes(), Links: r.bytes()})
			}
		}
		if r.err != nil {
			return nil, r.err
		}
		sn.recs[i] = rec
	}
	if len(r.b) == 0 {
		return nil, errSnapshot
	}
	sn.hasMore = r.b[0] == 1
	r.b = r.b[1:]
	sn.next = r.bytes()
	sn.filters = r.bytes()
	sn.notes = r.bytes()
	sn.credits = int(r.int())
	if r.err != nil || len(r.b) != 0 {
		return nil, errSnapshot
	}
	return sn, nil
}

// place adds the stored records to the caller's session under the caller's own record ids (the
// stored bytes are this call's own copy, so the ids are written in place) and sets the paging
// position as a fresh page would.
func (sn *snapshot) place(sess *searches.Session, cp *providers.Capability, req providers.Request) []*searches.Record {
	for i, r := range sn.recs {
		sess.Add(r)
		if at := sn.idAt[i]; at >= 0 {
			copy(r.Body[at:at+len(r.ID)], r.ID)
		}
	}
	var next json.RawMessage
	if len(sn.next) > 0 {
		next = sn.next
	}
	return arrange(sess, cp, req, sn.recs, sn.hasMore, next, sn.filters, sn.notes)
}

func (sn *snapshot) meta(s *Server, cp *providers.Capability, status cacheStatus, age time.Duration) pageMeta {
	credits := sn.credits
	if credits < 0 {
		credits = cp.Cost.Typical
	}
	return pageMeta{notes: s.decodeStrings(sn.notes), filters: s.decodeFilters(sn.filters), status: status, age: age, credits: credits}
}

// pageCharge is what the page costs the caller (before the plan's multiplier): its full
// charge on a miss, the plan's share of it when the answer cost no upstream call of its own.
func pageCharge(p *Principal, m pageMeta) int {
	if !m.status.saved() {
		return m.credits
	}
	pct := p.Plan.CacheHitPercent
	if pct <= 0 {
		return 0
	}
	return (m.credits*min(pct, 100) + 99) / 100
}

// setCacheHeaders says what the cache did (and the answer's age on a hit); a hit also gets a
// note, which the answer's notes carry.
func setCacheHeaders(c *fiber.Ctx, m *pageMeta) {
	c.Set(CacheHeader, m.status.String())
	switch m.status {
	case cacheHit:
		age := int64(m.age / time.Second)
		c.Set(fiber.HeaderAge, strconv.FormatInt(age, 10))
		m.notes = append(m.notes[:len(m.notes):len(m.notes)], fmt.Sprintf("served from the shared cache: fetched from the upstream %d s ago; send Cache-Control: no-cache for a fresh answer or max-age=N to bound its age", age))
	case cacheCoalesced:
		c.Set(fiber.HeaderAge, "0")
	}
}

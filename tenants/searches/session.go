// Package searches stores search sessions: one database row per session, its records encoded
// together with it (see codec.go), and bigcache as the per-instance hot tier. A record id is
// the session's record key plus the record's sequence number, so it leads to its session with
// no lookup of its own. Writes are not executed here: Create, Advance and PutDetail return a
// tenants.Write that the group-commit writer applies in the same transaction as the call's
// ledger row. Expired sessions stay as tombstones (data blanked) for a grace period, so an
// expired id answers 410 session_expired while an id that never existed, or belongs to
// another tenant, answers as unknown.
package searches

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/allegro/bigcache/v3"
	"github.com/uptrace/bun"

	"github.com/capgate/capgate/internal/ids"
	"github.com/capgate/capgate/tenants"
)

var (
	// ErrNotFound: no such id for this tenant.
	ErrNotFound = errors.New("not found")
	// ErrExpired: the id existed but its retention has passed.
	ErrExpired = errors.New("expired")
	// ErrConflict: the session changed since it was read (another follow-up won).
	ErrConflict = errors.New("session changed concurrently")
)

// TombstoneGrace is how long expired ids keep answering 410 before they are forgotten.
const TombstoneGrace = 7 * 24 * time.Hour

// keyLen is the length of a session's record key: the first characters of its random id part.
const keyLen = 12

// Session is one search: its stored query, paging position and every record it has shown or
// holds (index = the record's sequence number).
type Session struct {
	ID         string
	TenantID   string
	Mode       string
	Capability string
	Query      json.RawMessage
	NextState  string
	HasMore    bool
	Generation int // bumped by update; records of earlier generations stay addressable
	// LocalOffset is how many records of the current generation were shown (local paging);
	// LocalTotal how many the current generation holds (every paging kind).
	LocalOffset int
	LocalTotal  int
	Filters     json.RawMessage
	Notes       json.RawMessage
	Version     int
	CreatedAt   time.Time
	ExpiresAt   time.Time
	Records     []*Record

	// pageID is the shared page a session made from the shared upstream cache refers to for
	// its records (pages.go), pageLen how many of the page's records it holds.
	pageID  string
	pageLen int
}

// maxPageRecords bounds a referring session's record count as decoded (a page is one answer).
const maxPageRecords = 1 << 16

// Record is one stored result, rendered once: Body is the record as shown (record_id included).
type Record struct {
	ID         string
	Generation int
	Position   int
	Body       json.RawMessage
	Ref        json.RawMessage // provider reference, never shown
	Stored     []StoredDetail  // details captured at search time
	Actions    []string        // record-specific actions, nil for all
}

// StoredDetail is a record-action answer captured at search time, rendered once.
type StoredDetail struct {
	Action string
	Detail json.RawMessage
	Links  json.RawMessage
}

// StoredDetail returns the stored answer of an action.
func (r *Record) StoredDetail(action string) (*StoredDetail, bool) {
	for i := range r.Stored {
		if r.Stored[i].Action == action {
			return &r.Stored[i], true
		}
	}
	return nil, false
}

// row is the database form of a session.
type row struct {
	bun.BaseModel `bun:"table:searches"`

	RecordKey  string    `bun:"record_key,pk"`
	ID         string    `bun:"id"`
	TenantID   string    `bun:"tenant_id"`
	Mode       string    `bun:"mode"`
	Capability string    `bun:"capability"`
	Version    int       `bun:"version"`
	CreatedAt  time.Time `bun:"created_at"`
	ExpiresAt  time.Time `bun:"expires_at"`
	Data       []byte    `bun:"data"`
}

// Detail is a cached record-action answer (a billed lookup served again for free).
type Detail struct {
	bun.BaseModel `bun:"table:record_details"`

	RecordID  string    `bun:"record_id,pk"`
	Action    string    `bun:"action,pk"`
	TenantID  string    `bun:"tenant_id"`
	Body      string    `bun:"body"`
	ExpiresAt time.Time `bun:"expires_at"`
}

// Store keeps sessions.
type Store struct {
	db    *tenants.DB
	cache *bigcache.BigCache
	// cacheFailures counts edge-cache fills that failed (the database still has the data).
	cacheFailures atomic.Uint64
	hot           *hotTier
	pagesState
	inserts *tenants.MultiRowInsert // new sessions' rows (group.go)
	TTL     time.Duration
	now     func() time.Time
}

// cacheSet fills the edge cache; a failure only costs a later database read, and is counted.
func (s *Store) cacheSet(key string, b []byte) {
	if err := s.cache.Set(key, b); err != nil {
		s.cacheFailures.Add(1)
	}
}

// CacheFailures counts edge-cache fills that failed (exported as a metric).
func (s *Store) CacheFailures() uint64 { return s.cacheFailures.Load() }

// NewStore makes a store with retention ttl and an edge cache of at most cacheMB megabytes.
func NewStore(db *tenants.DB, ttl time.Duration, cacheMB int) (*Store, error) {
	life := ttl
	if life > 10*time.Minute {
		life = 10 * time.Minute
	}
	cfg := bigcache.DefaultConfig(life)
	// A session of 25 records is about 17 KB: few, large entries. Start small (about 4 MB) and
	// grow up to cacheMB instead of reserving room for bigcache's default 600,000 entries.
	cfg.Shards = 64
	cfg.MaxEntriesInWindow = 4096
	cfg.MaxEntrySize = 16 << 10
	// GATEWAY_CACHE_MB is the whole budget: an eighth goes to the hot tier in front.
	hotBytes := cacheMB << 20 / 8
	cfg.HardMaxCacheSize = cacheMB - cacheMB/8
	cfg.CleanWindow = time.Minute
	cfg.Verbose = false
	cache, err := bigcache.New(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, cache: cache, hot: newHotTier(hotBytes, life), inserts: db.NewMultiRowInsert("INSERT INTO searches (id, record_key, tenant_id, mode, capability, version, created_at, expires_at, data)", 9), TTL: ttl, now: tenants.Now}, nil
}

// SetClock replaces the clock (tests of expiry).
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now() }

// Close releases the cache.
func (s *Store) Close() error { return s.cache.Close() }

// New starts a session with a fresh id.
func (s *Store) New(tenantID, mode, capability string, query json.RawMessage) *Session {
	return &Session{ID: NewID(), TenantID: tenantID, Mode: mode, Capability: capability, Query: query}
}

// idTimeLen is how many of a session id's 16 characters carry the time it was made.
const idTimeLen = 5

// NewID is a new session id in the spec's form ("srch_" and 16 base-62 characters): the Unix
// milliseconds of now modulo 62^5 (10.6 days) in five digits, then eleven random characters
// (crypto/rand; the record key keeps seven of them).
//
// Why the time first: the record key (the id's first 12 characters) is the searches table's
// primary key, and a B-tree over random keys puts every new session on a different leaf page,
// which SQLite writes whole to its WAL at each commit (the ids package says more). Sessions made
// in one millisecond share a prefix and land together. A key can only collide with one made in
// the same millisecond of the 10.6-day cycle, among 62^7 random keys: about as likely as a
// collision of twelve random characters among the rows kept (sessions and their tombstones live
// about as long as the cycle).
func NewID() string {
	b := make([]byte, 0, 5+16)
	b = append(b, "srch_"...)
	b = ids.AppendTime(b, time.Now())
	b = append(b[:5], b[5+ids.TimeLen-idTimeLen:]...)
	return string(b) + tenants.RandomString(16-idTimeLen)
}

// Add appends a record to the session and gives it its id.
func (sess *Session) Add(r *Record) {
	r.ID = recordID(sess.ID, len(sess.Records))
	sess.Records = append(sess.Records, r)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// recordID is "rec_" + the session's record key + the sequence number in 4 base62 digits.
func recordID(searchID string, seq int) string {
	var b [4 + keyLen + 4]byte
	copy(b[:], "rec_")
	copy(b[4:], searchID[5:5+keyLen])
	for i := len(b) - 1; i >= 4+keyLen; i-- {
		b[i] = base62[seq%62]
		seq /= 62
	}
	return string(b[:])
}

// parseRecordID splits a record id into its session's record key and its sequence number.
func parseRecordID(id string) (string, int, bool) {
	if len(id) != 4+keyLen+4 || id[:4] != "rec_" {
		return "", 0, false
	}
	seq := 0
	for _, c := range []byte(id[4+keyLen:]) {
		i := indexBase62(c)
		if i < 0 {
			return "", 0, false
		}
		seq = seq*62 + i
	}
	return id[4 : 4+keyLen], seq, true
}

func indexBase62(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 36
	}
	return -1
}

// ValidSearchID tells whether id has the form of a search id: "srch_" and 16 base62 characters.
func ValidSearchID(id string) bool {
	if len(id) != 5+16 || id[:5] != "srch_" {
		return false
	}
	for _, c := range []byte(id[5:]) {
		if indexBase62(c) < 0 {
			return false
		}
	}
	return true
}

func recordKey(searchID string) (string, bool) {
	if len(searchID) != 5+16 || searchID[:5] != "srch_" {
		return "", false
	}
	return searchID[5 : 5+keyLen], true
}

// Held returns the records of the current generation at positions [from, from+n).
func (sess *Session) Held(from, n int) []*Record {
	var out []*Record
	for _, r := range sess.Records {
		if r.Generation == sess.Generation && r.Position >= from && r.Position < from+n {
			out = append(out, r)
		}
	}
	return out
}

// write is a session saved by the group-commit writer.
type write struct {
	s      *Store
	sess   *Session
	data   []byte // stored form
	plain  []byte // the edge cache's form
	create bool
	prev   int
	page   *PageRef // a new session that refers to a shared page: the page row to write first
}

// The session row is written with driver parameters, not through bun's query builder: bun
// inlines arguments into the SQL text, which would spell the data out in hex for SQLite to parse.
var updateSQL = map[tenants.Dialect]string{
	tenants.SQLite:   "UPDATE searches SET data = ?, version = ?, expires_at = ? WHERE record_key = ? AND version = ?",
	tenants.Postgres: "UPDATE searches SET data = $1, version = $2, expires_at = $3 WHERE record_key = $4 AND version = $5",
}

func (w *write) Apply(ctx context.Context, tx bun.Tx) error {
	if w.create {
		return w.ApplyGroup(ctx, tx, []tenants.Write{w}) // a group of one (DB.Apply)
	}
	key, _ := recordKey(w.sess.ID)
	res, err := w.s.db.Exec(ctx, tx, updateSQL[w.s.db.Kind], w.data, w.sess.Version, w.s.db.TimeArg(w.sess.ExpiresAt), key, w.prev)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		w.s.forget(w.sess.ID)
		return tenants.Refuse(ErrConflict)
	}
	return nil
}

func (w *write) Committed() {
	w.pageCommitted()
	if key, ok := recordKey(w.sess.ID); ok {
		b := cacheForm(w.plain, w.data)
		w.s.cacheSet(key, b)
		w.s.hot.put(key, b, w.s.now())
	}
}

// Create prepares a new session's write.
func (s *Store) Create(sess *Session) tenants.Write {
	now := s.now()
	sess.CreatedAt, sess.ExpiresAt, sess.Version = now, now.Add(s.TTL), 0
	plain := encodePlain(sess)
	return &write{s: s, sess: sess, data: pack(plain), plain: plain, create: true}
}

// Advance prepares the write of a session's new state; it commits only when nobody else changed
// the session since it was read (its version), otherwise the call fails with ErrConflict.
func (s *Store) Advance(sess *Session) tenants.Write {
	prev := sess.Version
	sess.Version++
	sess.ExpiresAt = s.now().Add(s.TTL)
	plain := encodePlain(sess)
	return &write{s: s, sess: sess, data: pack(plain), plain: plain, prev: prev}
}

// cacheForm is what the caches keep of a session: its plain encoding, which a follow-up reads
// without decompressing, unless that is larger than maxPlainCached; then the compressed stored
// form, so a session of hundreds of records still fits bigcache's shards and the hot tier.
func cacheForm(plain, stored []byte) []byte {
	if len(plain) > maxPlainCached {
		return stored
	}
	return plain
}

const maxPlainCached = 64 << 10

func (s *Store) forget(id string) {
	if key, ok := recordKey(id); ok {
		_ = s.cache.Delete(key)
		s.hot.del(key)
	}
}

// load reads a session by record key: the edge cache first, then the database. With want >= 0
// only that record is decoded (returned apart; the session's Records stay nil).
func (s *Store) load(ctx context.Context, key string, fresh bool, want int) (*Session, *Record, error) {
	sess, rec, err := s.loadOwn(ctx, key, fresh, want)
	if err == nil && sess.pageID != "" {
		rec, err = s.resolve(ctx, sess, fresh, want)
	}
	return sess, rec, err
}

// loadOwn is load of the session's own row: a session that refers to a shared page comes back
// without its records.
func (s *Store) loadOwn(ctx context.Context, key string, fresh bool, want int) (*Session, *Record, error) {
	if !fresh {
		if b, ok := s.hot.get(key, s.now()); ok {
			if sess, rec, err := decodeRecords(b, want); err == nil {
				return sess, rec, nil
			}
		}
		if b, err := s.cache.Get(key); err == nil {
			if sess, rec, err := decodeRecords(b, want); err == nil {
				s.hot.put(key, b, s.now())
				return sess, rec, nil
			}
		}
	}
	r := new(row)
	err := s.db.NewSelect().Model(r).Where("record_key = ?", key).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, ErrNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	if len(r.Data) == 0 { // a tombstone
		return &Session{ID: r.ID, TenantID: r.TenantID, Mode: r.Mode, Capability: r.Capability, Version: r.Version,
			CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt}, nil, nil
	}
	plain, err := unpack(r.Data)
	if err != nil {
		return nil, nil, err
	}
	sess, rec, err := decodeRecords(plain, want)
	if err != nil {
		return nil, nil, err
	}
	if s.now().Before(sess.ExpiresAt) {
		b := cacheForm(plain, r.Data)
		s.cacheSet(key, b)
		s.hot.put(key, b, s.now())
	}
	return sess, rec, nil
}

// check applies tenant, mode and expiry to a loaded session; a shared page (no tenant) is
// nobody's session.
func (s *Store) check(sess *Session, tenantID, mode string) error {
	if sess.TenantID == "" || sess.TenantID != tenantID || sess.Mode != mode {
		return ErrNotFound
	}
	if !s.now().Before(sess.ExpiresAt) {
		return ErrExpired
	}
	return nil
}

// Get loads a tenant's session made with a key of the given mode, its records included; a
// session of another tenant or of the other mode (live or test) is not found.
func (s *Store) Get(ctx context.Context, tenantID, mode, id string) (*Session, error) {
	key, ok := recordKey(id)
	if !ok {
		return nil, ErrNotFound
	}
	sess, _, err := s.load(ctx, key, false, -1)
	if err != nil {
		return nil, err
	}
	if sess.ID != id {
		return nil, ErrNotFound
	}
	if err := s.check(sess, tenantID, mode); err != nil {
		return nil, err
	}
	return sess, nil
}

// Record loads a tenant's record of the given mode with its session; the session comes without
// its other records (Records is nil): record actions read only the session's own fields.
func (s *Store) Record(ctx context.Context, tenantID, mode, id string) (*Session, *Record, error) {
	key, seq, ok := parseRecordID(id)
	if !ok {
		return nil, nil, ErrNotFound
	}
	sess, rec, err := s.load(ctx, key, false, seq)
	if err == nil && rec == nil && s.now().Before(sess.ExpiresAt) {
		sess, rec, err = s.load(ctx, key, true, seq) // added by another instance since this one cached it
	}
	if err != nil {
		return nil, nil, err
	}
	if err := s.check(sess, tenantID, mode); err != nil {
		return nil, nil, err
	}
	if rec == nil {
		return nil, nil, ErrNotFound
	}
	return sess, rec, nil
}

// Detail returns a cached record-action answer.
func (s *Store) Detail(ctx context.Context, tenantID, recordID, action string) ([]byte, bool, error) {
	key := "d:" + recordID + ":" + action
	if b, err := s.cache.Get(key); err == nil {
		return b, true, nil
	}
	d := new(Detail)
	err := s.db.NewSelect().Model(d).Where("record_id = ? AND action = ?", recordID, action).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if d.TenantID != tenantID || !s.now().Before(d.ExpiresAt) {
		return nil, false, nil
	}
	s.cacheSet(key, []byte(d.Body))
	return []byte(d.Body), true, nil
}

// detailWrite caches a record-action answer until its session expires; the first writer wins.
type detailWrite struct {
	s *Store
	d *Detail
}

func (w *detailWrite) Apply(ctx context.Context, tx bun.Tx) error {
	_, err := tx.NewInsert().Model(w.d).On("CONFLICT (record_id, action) DO NOTHING").Exec(ctx)
	return err
}

func (w *detailWrite) Committed() { _ = w.s.cache.Delete("d:" + w.d.RecordID + ":" + w.d.Action) }

// PutDetail prepares the write that caches a record-action answer.
func (s *Store) PutDetail(sess *Session, rec *Record, action string, body []byte) tenants.Write {
	return &detailWrite{s: s, d: &Detail{RecordID: rec.ID, Action: action, TenantID: sess.TenantID, Body: string(body), ExpiresAt: sess.ExpiresAt}}
}

// Sweep blanks the data of expired sessions (keeping tombstones that answer 410), deletes
// tombstones older than the grace period and expired details. It returns the rows it touched.
func (s *Store) Sweep(ctx context.Context) (int64, error) {
	now := s.now()
	var total int64
	steps := []func() (sql.Result, error){
		func() (sql.Result, error) {
			return s.db.NewDelete().Table("record_details").Where("expires_at < ?", now).Exec(ctx)
		},
		func() (sql.Result, error) {
			return s.db.NewUpdate().Table("searches").Set("data = ?", []byte{}).
				Where("expires_at < ? AND length(data) > 0", now).Exec(ctx)
		},
		func() (sql.Result, error) {
			return s.db.NewDelete().Table("searches").Where("expires_at < ?", now.Add(-TombstoneGrace)).Exec(ctx)
		},
	}
	for _, step := range steps {
		res, err := step()
		if err != nil {
			return total, err
		}
		n, _ := res.RowsAffected()
		total += n
	}
	return total, nil
}

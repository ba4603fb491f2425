// Package session stores search sessions and their records: the database is the truth shared by
// every instance, bigcache the per-instance edge cache. Records outlive their retention as
// tombstones (payload blanked) for a grace period, so an expired id answers 410 session_expired
// while an id that never existed, or belongs to another tenant, answers as unknown.
package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/allegro/bigcache/v3"
	"github.com/uptrace/bun"

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

// Session is one search: its stored query and paging position.
type Session struct {
	bun.BaseModel `bun:"table:search_sessions"`

	ID          string          `bun:"id,pk" json:"id"`
	TenantID    string          `bun:"tenant_id" json:"tenant_id"`
	Mode        string          `bun:"mode" json:"mode"`
	Capability  string          `bun:"capability" json:"capability"`
	Query       json.RawMessage `bun:"query,type:text" json:"query"`
	NextState   string          `bun:"next_state" json:"next_state"`
	HasMore     bool            `bun:"has_more" json:"has_more"`
	Generation  int             `bun:"generation" json:"generation"`
	LocalOffset int             `bun:"local_offset" json:"local_offset"`
	LocalTotal  int             `bun:"local_total" json:"local_total"`
	Filters     json.RawMessage `bun:"filters,type:text" json:"filters"`
	Notes       json.RawMessage `bun:"notes,type:text" json:"notes"`
	Version     int             `bun:"version" json:"version"`
	CreatedAt   time.Time       `bun:"created_at" json:"created_at"`
	UpdatedAt   time.Time       `bun:"updated_at" json:"updated_at"`
	ExpiresAt   time.Time       `bun:"expires_at" json:"expires_at"`
}

// Record is one stored result with what its record actions need.
type Record struct {
	bun.BaseModel `bun:"table:session_records"`

	ID         string    `bun:"id,pk" json:"id"`
	SearchID   string    `bun:"search_id" json:"search_id"`
	TenantID   string    `bun:"tenant_id" json:"tenant_id"`
	Mode       string    `bun:"mode" json:"mode"`
	Capability string    `bun:"capability" json:"capability"`
	Generation int       `bun:"generation" json:"generation"`
	Position   int       `bun:"position" json:"position"`
	Body       string    `bun:"body" json:"body"`       // the record as shown, with record_id
	Ref        string    `bun:"ref" json:"ref"`         // provider reference, never shown
	Stored     string    `bun:"stored" json:"stored"`   // details stored at search time, by action
	Actions    string    `bun:"actions" json:"actions"` // record-specific actions, "" for all
	ExpiresAt  time.Time `bun:"expires_at" json:"expires_at"`
}

// Detail is a cached record-action answer.
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
	TTL   time.Duration
	now   func() time.Time
}

// NewStore makes a store with retention ttl and an edge cache of at most cacheMB megabytes.
func NewStore(db *tenants.DB, ttl time.Duration, cacheMB int) (*Store, error) {
	life := ttl
	if life > 10*time.Minute {
		life = 10 * time.Minute
	}
	cfg := bigcache.DefaultConfig(life)
	cfg.Shards = 256
	cfg.HardMaxCacheSize = cacheMB
	cfg.CleanWindow = time.Minute
	cfg.Verbose = false
	cache, err := bigcache.New(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, cache: cache, TTL: ttl, now: tenants.Now}, nil
}

// SetClock replaces the clock (tests of expiry).
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now() }

// Close releases the cache.
func (s *Store) Close() error { return s.cache.Close() }

func (s *Store) cachePut(key string, v any) {
	if b, err := json.Marshal(v); err == nil {
		_ = s.cache.Set(key, b)
	}
}

func (s *Store) cacheGet(key string, v any) bool {
	b, err := s.cache.Get(key)
	if err != nil {
		return false
	}
	return json.Unmarshal(b, v) == nil
}

// NewSessionID and NewRecordID are crypto/rand ids of the spec's patterns.
func NewSessionID() string { return "srch_" + tenants.RandomString(16) }

// NewRecordID makes a record id.
func NewRecordID() string { return "rec_" + tenants.RandomString(16) }

// Create stores a new session with its first records.
func (s *Store) Create(ctx context.Context, sess *Session, recs []*Record) error {
	now := s.now()
	sess.CreatedAt, sess.UpdatedAt, sess.ExpiresAt = now, now, now.Add(s.TTL)
	s.prepareRecords(sess, recs)
	err := s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(sess).Exec(ctx); err != nil {
			return err
		}
		return insertRecords(ctx, tx, recs)
	})
	if err != nil {
		return err
	}
	s.cachePut("s:"+sess.ID, sess)
	for _, r := range recs {
		s.cachePut("r:"+r.ID, r)
	}
	return nil
}

func (s *Store) prepareRecords(sess *Session, recs []*Record) {
	exp := s.now().Add(s.TTL)
	for _, r := range recs {
		r.SearchID, r.TenantID, r.Mode, r.Capability, r.Generation, r.ExpiresAt = sess.ID, sess.TenantID, sess.Mode, sess.Capability, sess.Generation, exp
	}
}

func insertRecords(ctx context.Context, db bun.IDB, recs []*Record) error {
	const batch = 200
	for i := 0; i < len(recs); i += batch {
		j := i + batch
		if j > len(recs) {
			j = len(recs)
		}
		chunk := recs[i:j]
		if _, err := db.NewInsert().Model(&chunk).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Get loads a tenant's session made with a key of the given mode; a session of another tenant
// or of the other mode (live or test) is not found.
func (s *Store) Get(ctx context.Context, tenantID, mode, id string) (*Session, error) {
	sess := new(Session)
	if !s.cacheGet("s:"+id, sess) {
		err := s.db.NewSelect().Model(sess).Where("id = ?", id).Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		if err != nil {
			return nil, err
		}
	}
	if sess.TenantID != tenantID || sess.Mode != mode {
		return nil, ErrNotFound
	}
	if !s.now().Before(sess.ExpiresAt) {
		return nil, ErrExpired
	}
	return sess, nil
}

// Refresh reloads a session from the database (after a conflict).
func (s *Store) Refresh(ctx context.Context, tenantID, mode, id string) (*Session, error) {
	s.cache.Delete("s:" + id)
	return s.Get(ctx, tenantID, mode, id)
}

// Advance saves a session's new paging state and appends records, only when nobody else
// changed it since it was read (its version); otherwise ErrConflict and nothing is written.
func (s *Store) Advance(ctx context.Context, sess *Session, recs []*Record) error {
	prev := sess.Version
	now := s.now()
	sess.Version++
	sess.UpdatedAt, sess.ExpiresAt = now, now.Add(s.TTL)
	s.prepareRecords(sess, recs)
	err := s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model(sess).WherePK().Where("version = ?", prev).
			ExcludeColumn("id", "tenant_id", "mode", "capability", "created_at").Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrConflict
		}
		return insertRecords(ctx, tx, recs)
	})
	if err != nil {
		sess.Version = prev
		if errors.Is(err, ErrConflict) {
			s.cache.Delete("s:" + sess.ID)
		}
		return err
	}
	s.cachePut("s:"+sess.ID, sess)
	for _, r := range recs {
		s.cachePut("r:"+r.ID, r)
	}
	return nil
}

// Held returns the records of the current generation at positions [from, from+n).
func (s *Store) Held(ctx context.Context, sess *Session, from, n int) ([]*Record, error) {
	var recs []*Record
	err := s.db.NewSelect().Model(&recs).
		Where("search_id = ? AND generation = ? AND position >= ? AND position < ?", sess.ID, sess.Generation, from, from+n).
		Order("position").Scan(ctx)
	return recs, err
}

// Record loads a tenant's record of the given mode.
func (s *Store) Record(ctx context.Context, tenantID, mode, id string) (*Record, error) {
	r := new(Record)
	if !s.cacheGet("r:"+id, r) {
		err := s.db.NewSelect().Model(r).Where("id = ?", id).Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		if err != nil {
			return nil, err
		}
		if s.now().Before(r.ExpiresAt) {
			s.cachePut("r:"+id, r)
		}
	}
	if r.TenantID != tenantID || r.Mode != mode {
		return nil, ErrNotFound
	}
	if !s.now().Before(r.ExpiresAt) {
		return nil, ErrExpired
	}
	return r, nil
}

// Detail returns a cached record-action answer.
func (s *Store) Detail(ctx context.Context, tenantID, recordID, action string) (string, bool, error) {
	d := new(Detail)
	key := "d:" + recordID + ":" + action
	if !s.cacheGet(key, d) {
		err := s.db.NewSelect().Model(d).Where("record_id = ? AND action = ?", recordID, action).Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
		s.cachePut(key, d)
	}
	if d.TenantID != tenantID || !s.now().Before(d.ExpiresAt) {
		return "", false, nil
	}
	return d.Body, true, nil
}

// PutDetail caches a record-action answer until the record expires; the first writer wins.
func (s *Store) PutDetail(ctx context.Context, rec *Record, action, body string) error {
	d := &Detail{RecordID: rec.ID, Action: action, TenantID: rec.TenantID, Body: body, ExpiresAt: rec.ExpiresAt}
	res, err := s.db.NewInsert().Model(d).On("CONFLICT (record_id, action) DO NOTHING").Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		s.cache.Delete("d:" + rec.ID + ":" + action) // another writer won: serve theirs
		return nil
	}
	s.cachePut("d:"+rec.ID+":"+action, d)
	return nil
}

// Sweep blanks the payload of expired sessions and records (keeping tombstones that answer 410)
// and deletes tombstones older than the grace period. It returns how many rows it touched.
func (s *Store) Sweep(ctx context.Context) (int64, error) {
	now := s.now()
	var total int64
	steps := []func() (sql.Result, error){
		func() (sql.Result, error) {
			return s.db.NewDelete().Table("record_details").Where("expires_at < ?", now).Exec(ctx)
		},
		func() (sql.Result, error) {
			return s.db.NewUpdate().Table("session_records").Set("body = '', ref = '', stored = ''").
				Where("expires_at < ? AND body <> ''", now).Exec(ctx)
		},
		func() (sql.Result, error) {
			return s.db.NewUpdate().Table("search_sessions").Set("query = '{}', next_state = ''").
				Where("expires_at < ? AND query <> '{}'", now).Exec(ctx)
		},
		func() (sql.Result, error) {
			return s.db.NewDelete().Table("session_records").Where("expires_at < ?", now.Add(-TombstoneGrace)).Exec(ctx)
		},
		func() (sql.Result, error) {
			return s.db.NewDelete().Table("search_sessions").Where("expires_at < ?", now.Add(-TombstoneGrace)).Exec(ctx)
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

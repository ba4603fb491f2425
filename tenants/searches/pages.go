package searches

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/capgate/capgate/tenants"
)

// Shared pages. A session opened by a page of the shared upstream cache (a hit, a coalesced
// waiter, the miss that fetched it) holds the same records as every other session opened by
// that page; only the record ids differ. Instead of a copy of those records, such a session's
// row holds a reference: its own fields plus the id of the page, which is stored once as a
// session row of no tenant (tenant_id '') under the id the page was fetched with. Reading the
// session reads the page and writes the session's own record ids into copies of the records'
// bodies (ids have a fixed length). The first follow-up that changes the session (more,
// update) writes it whole, and from then on it is an ordinary session.
//
// A page row lives at least as long as every session that refers to it: each reference's
// write extends the page's expiry to the new session's when this instance has not already
// stored it for that long (pageKnown), and the sweep treats the page like any session. A page
// row is only ever written or extended while its tenant_id is '', and read back only when it
// has none, so a page id that names a tenant's session (a forged cache entry) neither changes
// nor reveals it.

// formatRef marks the plain encoding of a session that refers to a shared page: the session's
// fields as in encodePlain, then the page's id and how many of its records the session holds.
const formatRef = 'R'

// PageRef is a shared page as a new session refers to it.
type PageRef struct {
	ID      string
	n       int
	plain   []byte // the page's encoding when this instance must (re)write its row
	expires time.Time
}

// pageSlack is how much longer than the newest referring session a page row is kept, so that
// the references made in that time need not write the page again.
func (s *Store) pageSlack() time.Duration { return min(s.TTL/4, time.Hour) }

// Page returns the reference to the shared page id of the given mode and capability holding
// recs (as fetched: their bodies carry the page's own record ids). It encodes the page only
// when this instance has not stored it for as long as a session made now needs; call it before
// the records' bodies are given another session's ids. It is nil when id is not a session id.
func (s *Store) Page(id, mode, capability string, recs []*Record) *PageRef {
	key, ok := recordKey(id)
	if !ok {
		return nil
	}
	now := s.now()
	ref := &PageRef{ID: id, n: len(recs)}
	if s.pageKnown(key, now.Add(s.TTL)) {
		return ref
	}
	page := &Session{ID: id, Mode: mode, Capability: capability, CreatedAt: now, ExpiresAt: now.Add(s.TTL + s.pageSlack()),
		Records: make([]*Record, len(recs))}
	for i, r := range recs {
		pr := *r
		pr.Generation, pr.Position = 0, i
		page.Records[i] = &pr
	}
	ref.plain, ref.expires = encodePlain(page), page.ExpiresAt
	return ref
}

// pageKnown tells whether this instance stored the page row until at least need.
func (s *Store) pageKnown(key string, need time.Time) bool {
	s.pagesMu.Lock()
	defer s.pagesMu.Unlock()
	until, ok := s.pages[key]
	return ok && !until.Before(need)
}

// pageStored records that the page row is kept until until.
func (s *Store) pageStored(key string, until time.Time) {
	s.pagesMu.Lock()
	defer s.pagesMu.Unlock()
	if s.pages == nil || len(s.pages) >= maxKnownPages {
		s.pages = make(map[string]time.Time) // forgetting only costs a page write
	}
	if until.After(s.pages[key]) {
		s.pages[key] = until
	}
}

const maxKnownPages = 1 << 16

// CreateRef prepares a new session's write whose records are those of page (placed in sess as
// the answer shows them; the row keeps only the reference).
func (s *Store) CreateRef(sess *Session, page *PageRef) tenants.Write {
	now := s.now()
	sess.CreatedAt, sess.ExpiresAt, sess.Version = now, now.Add(s.TTL), 0
	plain := encodeRef(sess, page)
	return &write{s: s, sess: sess, data: plain, plain: plain, create: true, page: page}
}

// encodeRef is encodePlain for a session whose records are a shared page's.
func encodeRef(sess *Session, page *PageRef) []byte {
	head := *sess
	head.Records = nil
	b := encodePlain(&head)
	b = b[:len(b)-1] // the record count (0, one byte)
	b[0] = formatRef
	e := encoder{b: b}
	e.str(page.ID)
	e.uint(uint64(page.n))
	return e.b
}

// The page row's upsert: a new page, or a longer life (and its data again, if the sweep blanked
// it) for a page that exists, never for a row that belongs to a tenant.
var upsertPageSQL = map[tenants.Dialect]string{
	tenants.SQLite: "INSERT INTO searches (id, record_key, tenant_id, mode, capability, version, created_at, expires_at, data) VALUES (?, ?, '', ?, ?, 0, ?, ?, ?) " +
		"ON CONFLICT (record_key) DO UPDATE SET expires_at = excluded.expires_at, data = CASE WHEN length(searches.data) = 0 THEN excluded.data ELSE searches.data END " +
		"WHERE searches.tenant_id = '' AND searches.expires_at < excluded.expires_at",
	tenants.Postgres: "INSERT INTO searches (id, record_key, tenant_id, mode, capability, version, created_at, expires_at, data) VALUES ($1, $2, '', $3, $4, 0, $5, $6, $7) " +
		"ON CONFLICT (record_key) DO UPDATE SET expires_at = excluded.expires_at, data = CASE WHEN length(searches.data) = 0 THEN excluded.data ELSE searches.data END " +
		"WHERE searches.tenant_id = '' AND searches.expires_at < excluded.expires_at",
}

// applyPage writes or extends the page row of a referring session's write.
func (w *write) applyPage(ctx context.Context, tx bun.Tx) error {
	p := w.page
	if p == nil || p.plain == nil {
		return nil
	}
	key, _ := recordKey(p.ID)
	page, _, err := decodeRecords(p.plain, 0)
	if err != nil {
		return err
	}
	_, err = w.s.db.Exec(ctx, tx, upsertPageSQL[w.s.db.Kind], p.ID, key, page.Mode, page.Capability,
		w.s.db.TimeArg(page.CreatedAt), w.s.db.TimeArg(p.expires), pack(p.plain))
	return err
}

// pageCommitted notes the page row's life once the write is durable, and keeps the page in the
// edge caches for the follow-ups to come.
func (w *write) pageCommitted() {
	if p := w.page; p != nil && p.plain != nil {
		key, _ := recordKey(p.ID)
		w.s.pageStored(key, p.expires)
		if len(p.plain) <= maxPlainCached {
			w.s.cacheSet(key, p.plain)
			w.s.hot.put(key, p.plain, w.s.now())
		}
	}
}

// resolve fills a referring session's records from its page (with want >= 0 only record want,
// returned apart), each body a copy carrying the session's own record id. A page that is gone,
// blanked or not a page leaves the session without records.
func (s *Store) resolve(ctx context.Context, sess *Session, fresh bool, want int) (*Record, error) {
	key, ok := recordKey(sess.pageID)
	if !ok {
		return nil, errCorrupt
	}
	if want >= sess.pageLen {
		return nil, nil
	}
	page, rec, err := s.loadOwn(ctx, key, fresh, want) // never a chain of references
	if err == ErrNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if page.TenantID != "" || page.Mode != sess.Mode || page.ID != sess.pageID || page.pageID != "" {
		return nil, nil
	}
	if want >= 0 {
		if rec == nil {
			return nil, nil
		}
		return ownRecord(sess, page, rec, want), nil
	}
	if len(page.Records) < sess.pageLen {
		return nil, nil
	}
	sess.Records = make([]*Record, sess.pageLen)
	for i := range sess.Records {
		sess.Records[i] = ownRecord(sess, page, page.Records[i], i)
	}
	return nil, nil
}

// ownRecord is a page's record seq as the referring session holds it: its own id, written over
// the page's in a copy of the body.
func ownRecord(sess, page *Session, r *Record, seq int) *Record {
	out := *r
	out.ID = recordID(sess.ID, seq)
	pageID := recordID(page.ID, seq)
	if at := bytes.Index(r.Body, []byte(`"record_id":"`+pageID+`"`)); at >= 0 {
		body := make([]byte, len(r.Body))
		copy(body, r.Body)
		copy(body[at+len(`"record_id":"`):], out.ID)
		out.Body = body
	}
	return &out
}

// pagesState is the Store's memory of the page rows this instance wrote.
type pagesState struct {
	pagesMu sync.Mutex
	pages   map[string]time.Time // record key -> the page row is kept at least until
}

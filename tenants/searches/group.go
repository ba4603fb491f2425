package searches

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/capgate/capgate/tenants"
)

// New sessions are written together: the group-commit writer hands every new session of a batch
// to ApplyGroup, which writes the shared pages they refer to (each once) and then inserts the
// sessions with multi-row statements. One statement for a batch of 24 sessions instead of 24
// keeps SQLite's per-statement work and, on PostgreSQL, the writer's round trips per batch low
// (there the writer's one connection waited on a round trip per session).

var _ tenants.Grouped = (*write)(nil)

// createGroup names the group of new sessions' writes.
const createGroup = "searches.create"

// Group puts a new session's write in the batch's group of new sessions; an advance is applied
// alone (it may be refused).
func (w *write) Group() string {
	if w.create {
		return createGroup
	}
	return ""
}

// ApplyGroup writes the new sessions of a batch: the pages they refer to first (each page once,
// with the longest life asked for), then the sessions' rows.
func (w *write) ApplyGroup(ctx context.Context, tx bun.Tx, ws []tenants.Write) error {
	writes := make([]*write, len(ws))
	var pages map[string]*write
	for i, x := range ws {
		writes[i] = x.(*write)
		if p := writes[i].page; p != nil && p.plain != nil {
			if pages == nil {
				pages = map[string]*write{}
			}
			if had := pages[p.ID]; had == nil || had.page.expires.Before(p.expires) {
				pages[p.ID] = writes[i]
			}
		}
	}
	for _, pw := range pages {
		if err := pw.applyPage(ctx, tx); err != nil {
			return err
		}
	}
	db := w.s.db
	return w.s.inserts.Exec(ctx, tx, len(writes), func(args []any, i int) []any {
		x := writes[i]
		key, _ := recordKey(x.sess.ID)
		return append(args, x.sess.ID, key, x.sess.TenantID, x.sess.Mode, x.sess.Capability, x.sess.Version,
			db.TimeArg(x.sess.CreatedAt), db.TimeArg(x.sess.ExpiresAt), x.data)
	})
}

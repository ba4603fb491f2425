package tenants

import (
	"fmt"
	"log/slog"
	"time"
)

// SetMaxScanEntries lowers the entries a request log page may decode, until the returned func
// restores it.
func SetMaxScanEntries(n int) (restore func()) {
	old := maxScanEntries
	maxScanEntries = n
	return func() { maxScanEntries = old }
}

// CommitBatch commits calls as one batch of the group-commit writer (each call a free ledger
// row of tenantID with its writes) and returns each call's error.
func CommitBatch(db *DB, tenantID string, calls ...[]Write) []error {
	w := &Writer{db: db, log: slog.Default(), sql: newWriterSQL(db)}
	batch := make([]*commit, len(calls))
	for i, ws := range calls {
		batch[i] = &commit{entry: LedgerEntry{RequestID: fmt.Sprintf("req_batch%d", i), TenantID: tenantID, Mode: "live",
			PeriodStart: Now().Truncate(time.Hour), Capability: "x", Action: "execute", CreatedAt: Now()},
			key: newCommitKey(), writes: ws, done: make(chan struct{})}
	}
	w.commit(batch)
	errs := make([]error, len(batch))
	for i, c := range batch {
		errs[i] = c.err
	}
	return errs
}

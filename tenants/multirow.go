package tenants

import (
	"context"
	"strings"

	"github.com/uptrace/bun"
)

// MultiRowInsert is one INSERT prepared as multi-row statements of 64, 16, 4 and 1 rows: Exec
// writes any number of rows in the fewest of them. The group commit writes its ledger rows and
// a batch's new search sessions this way (one statement, and on PostgreSQL one round trip, for
// many calls instead of one each).
type MultiRowInsert struct {
	db      *DB
	columns int
	sql     map[int]string // by row count
}

// insertChunks are the row counts of a MultiRowInsert's statements, largest first.
var insertChunks = []int{64, 16, 4, 1}

// NewMultiRowInsert prepares head ("INSERT INTO t (a, b, …)", columns names) in db's dialect.
func (db *DB) NewMultiRowInsert(head string, columns int) *MultiRowInsert {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", columns), ", ") + ")"
	m := &MultiRowInsert{db: db, columns: columns, sql: make(map[int]string, len(insertChunks))}
	for _, n := range insertChunks {
		m.sql[n] = db.Rebind(head + " VALUES " + strings.TrimSuffix(strings.Repeat(row+", ", n), ", "))
	}
	return m
}

// Exec inserts n rows in tx; row appends the values of row i to args and returns it.
func (m *MultiRowInsert) Exec(ctx context.Context, tx bun.Tx, n int, row func(args []any, i int) []any) error {
	args := make([]any, 0, min(n, insertChunks[0])*m.columns)
	for done := 0; done < n; {
		k := insertChunks[len(insertChunks)-1]
		for _, size := range insertChunks {
			if size <= n-done {
				k = size
				break
			}
		}
		args = args[:0]
		for i := done; i < done+k; i++ {
			args = row(args, i)
		}
		if _, err := m.db.Exec(ctx, tx, m.sql[k], args...); err != nil {
			return err
		}
		done += k
	}
	return nil
}

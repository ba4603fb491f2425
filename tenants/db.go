// Package tenants holds the bun models and stores of the accounts side of capgate: plans,
// tenants, console users, API keys, credit periods and the usage ledger, the sharpen setting,
// saved workouts, provider settings and the audit log. It runs on SQLite (embedded default, a
// pure-Go driver) or PostgreSQL; both are migrated from migrations/.
package tenants

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/migrate"
	_ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite"

	"github.com/capgate/capgate/migrations"
)

// Dialect names the database in use.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is the database with its dialect.
type DB struct {
	*bun.DB
	Kind Dialect

	stmts sync.Map // SQL text -> *sql.Stmt (or preparing{}), see Exec

	// prepMu guards closed; preps counts the preparations under way, which Close waits for (a
	// preparation holds a connection, and SQLite's files must be closed when Close returns).
	prepMu sync.Mutex
	closed bool
	preps  sync.WaitGroup

	// writeGate (SQLite only) lets one of this process's transactions begin at a time. Each
	// takes SQLite's write lock at BEGIN (IMMEDIATE), and a transaction waiting for that lock
	// polls it with growing sleeps (the busy handler): under contention the lock sat free while
	// the waiters slept, and one could starve past the busy timeout (50 concurrent project
	// writes under load: 503 after 20 s). Waiting here instead is a first-come queue. Another
	// process on the same file (the CLI beside a server) still meets the busy timeout.
	writeGate chan struct{}
}

// sqliteBusyTimeout is SQLite's busy_timeout (see Open), and the longest a transaction waits at
// the write gate.
const sqliteBusyTimeout = 20 * time.Second

// errWriteGate is a transaction that waited sqliteBusyTimeout for its turn.
var errWriteGate = errors.New("database busy: no turn to write within the busy timeout")

// Exec runs a fixed statement with driver parameters inside tx, prepared once per process and
// reused: the group-commit writer runs the same few statements for every call, and preparing
// (parsing) them anew each time was a visible share of its CPU. query uses the dialect's
// placeholders (? on SQLite, $n on PostgreSQL).
func (db *DB) Exec(ctx context.Context, tx bun.Tx, query string, args ...any) (sql.Result, error) {
	if st := db.prepared(query); st != nil {
		return tx.Tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.Tx.ExecContext(ctx, query, args...)
}

// QueryRow is Exec for a statement that returns one row (UPDATE … RETURNING).
func (db *DB) QueryRow(ctx context.Context, tx bun.Tx, query string, args ...any) *sql.Row {
	if st := db.prepared(query); st != nil {
		return tx.Tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.Tx.QueryRowContext(ctx, query, args...)
}

// preparing marks a statement whose preparation is under way.
type preparing struct{}

// prepared is the statement prepared for query, or nil the first time (and until its
// preparation is done), when the caller runs the text on its transaction. Preparing takes a
// connection from the pool, and a transaction must never wait for one: on SQLite the caller
// holds the write lock, and the pool's other connections may all be waiting for that lock
// (autocommit writes in busy_timeout), so waiting here deadlocked them all for the busy
// timeout. The preparation runs beside the transaction instead.
func (db *DB) prepared(query string) *sql.Stmt {
	v, loaded := db.stmts.LoadOrStore(query, preparing{})
	if !loaded {
		db.prepMu.Lock()
		if !db.closed {
			db.preps.Add(1)
			go db.prepare(query)
		}
		db.prepMu.Unlock()
		return nil
	}
	st, _ := v.(*sql.Stmt)
	return st
}

func (db *DB) prepare(query string) {
	defer db.preps.Done()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := db.DB.DB.PrepareContext(ctx, query)
	if err != nil {
		db.stmts.Delete(query) // the next use tries again
		return
	}
	db.stmts.Store(query, st)
}

// Close waits for the statement preparations under way, then closes the pool.
func (db *DB) Close() error {
	db.prepMu.Lock()
	db.closed = true
	db.prepMu.Unlock()
	db.preps.Wait()
	return db.DB.Close()
}

// TimeArg is a time as a driver parameter in the form each database stores it: bun's text form
// on SQLite (so comparisons with bun-written times hold), a timestamptz on PostgreSQL.
func (db *DB) TimeArg(t time.Time) any {
	if db.Kind == SQLite {
		return t.UTC().Format("2006-01-02 15:04:05.999999-07:00")
	}
	return t
}

// Rebind turns a statement written with ? placeholders into the dialect's form ($1, $2, ... on
// PostgreSQL). The statements it is given have no ? inside literals.
func (db *DB) Rebind(query string) string {
	if db.Kind != Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

// Open connects to dsn: a postgres:// URL, or a SQLite file path ("" means dataDir/gateway.db).
func Open(dsn, dataDir string) (*DB, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		sqldb, err := sql.Open("pgx", dsn)
		if err != nil {
			return nil, err
		}
		sqldb.SetMaxOpenConns(32)
		sqldb.SetMaxIdleConns(16)
		sqldb.SetConnMaxIdleTime(5 * time.Minute)
		return &DB{DB: bun.NewDB(sqldb, pgdialect.New()), Kind: Postgres}, nil
	}
	path := dsn
	if path == "" {
		if dataDir == "" {
			dataDir = "data"
		}
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, err
		}
		path = filepath.Join(dataDir, "gateway.db")
	}
	path = strings.TrimPrefix(path, "sqlite://")
	if err := privateFile(path); err != nil {
		return nil, err
	}
	// WAL lets readers run beside the writer; IMMEDIATE transactions take the write lock up
	// front so concurrent read-then-write transactions queue on busy_timeout instead of failing.
	q := "?_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	if strings.Contains(path, "?") {
		q = "&" + q[1:]
	}
	sqldb, err := sql.Open("sqlite", "file:"+path+q)
	if err != nil {
		return nil, err
	}
	sqldb.SetMaxOpenConns(8)
	return &DB{DB: bun.NewDB(sqldb, sqlitedialect.New()), Kind: SQLite, writeGate: make(chan struct{}, 1)}, nil
}

// privateFile creates the SQLite file owner-only (0600) before SQLite opens it, and tightens an
// existing one: it holds key hashes, password hashes and sealed provider keys, and SQLite gives
// its -wal and -shm files the mode of the database file.
func privateFile(path string) error {
	name, _, _ := strings.Cut(path, "?")
	if name == "" || name == ":memory:" || strings.HasPrefix(name, "file:") {
		return nil
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	for _, n := range []string{name, name + "-wal", name + "-shm"} {
		fi, err := os.Stat(n)
		if err != nil {
			continue // no WAL or SHM yet: SQLite creates them with the database file's mode
		}
		if fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(n, fi.Mode().Perm()&^0o077); err != nil {
				return err
			}
		}
	}
	return nil
}

// exclusiveLockID is the PostgreSQL advisory lock that serializes start-up work (migrations,
// first-start bootstrap) across instances starting at the same time.
const exclusiveLockID = 7243012026

// Exclusive runs fn while no other instance runs an Exclusive section: a session advisory lock
// on PostgreSQL; SQLite is one process (its IMMEDIATE transactions serialize writers).
func (db *DB) Exclusive(ctx context.Context, fn func(ctx context.Context) error) error {
	if db.Kind != Postgres {
		return fn(ctx)
	}
	conn, err := db.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", exclusiveLockID); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(?)", exclusiveLockID) //nolint:errcheck
	return fn(ctx)
}

// Migrate applies pending migrations and reports how many ran; instances starting together
// take turns (Exclusive), so the migrator's own tables are created once.
func (db *DB) Migrate(ctx context.Context) (int, error) {
	ms, err := migrations.For(string(db.Kind))
	if err != nil {
		return 0, err
	}
	applied := 0
	err = db.Exclusive(ctx, func(ctx context.Context) error {
		m := migrate.NewMigrator(db.DB, ms)
		if err := m.Init(ctx); err != nil {
			return err
		}
		group, err := m.Migrate(ctx)
		if err != nil {
			return err
		}
		applied = len(group.Migrations)
		return nil
	})
	return applied, err
}

// Pending reports whether migrations are waiting (readiness fails until they have run).
func (db *DB) Pending(ctx context.Context) (bool, error) {
	ms, err := migrations.For(string(db.Kind))
	if err != nil {
		return false, err
	}
	m := migrate.NewMigrator(db.DB, ms)
	status, err := m.MigrationsWithStatus(ctx)
	if err != nil {
		return false, err
	}
	return len(status.Unapplied()) > 0, nil
}

// InTx runs fn in a transaction (on SQLite, in its turn at the write gate). fn must not start
// another transaction.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	if db.writeGate != nil {
		t := time.NewTimer(sqliteBusyTimeout)
		select {
		case db.writeGate <- struct{}{}:
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
			return errWriteGate
		}
		defer func() { <-db.writeGate }()
	}
	return db.RunInTx(ctx, nil, fn)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// RandomString returns n base62 characters from crypto/rand: bytes at or above 248 (the
// largest multiple of 62 that fits a byte) are drawn again, so every character is uniform.
func RandomString(n int) string {
	out := make([]byte, 0, n)
	var buf [64]byte
	for len(out) < n {
		if _, err := rand.Read(buf[:]); err != nil {
			panic(fmt.Sprintf("crypto/rand failed: %v", err))
		}
		for _, b := range buf {
			if b < 248 && len(out) < n {
				out = append(out, base62[b%62])
			}
		}
	}
	return string(out)
}

// NewID returns prefix + "_" + 16 base62 characters.
func NewID(prefix string) string { return prefix + "_" + RandomString(16) }

// ErrNotFound is returned when a row does not exist (or belongs to another tenant).
var ErrNotFound = errors.New("not found")

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// Now is the store's clock, in UTC with microsecond precision (what both databases keep).
func Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// ProbeWrite commits a one-row write: readiness fails when this instance cannot commit (the
// database unreachable, read-only or out of disk), not only when it cannot be reached.
func (db *DB) ProbeWrite(ctx context.Context) error {
	return db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// bun formats the ? placeholders for either dialect.
		now := Now()
		res, err := tx.ExecContext(ctx, "UPDATE readiness_probe SET checked_at = ? WHERE id = 1", now)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			_, err = tx.ExecContext(ctx, "INSERT INTO readiness_probe (id, checked_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at", now)
		}
		return err
	})
}

// Package tenantstest gives tests real databases: a SQLite file in a temp dir always, and a fresh
// PostgreSQL database on the server named by CAPGATE_TEST_POSTGRES_URL (started by make test).
// With CAPGATE_REQUIRE_SERVERS=1 a missing server fails the test instead of skipping PostgreSQL.
//
// Each is a copy of a template migrated and seeded once, not migrated again per test: the SQLite
// template is made once per test process (held in memory, written into each test's temp dir);
// the PostgreSQL one is a database on the server named capgate_template_<digest of the
// migrations and the default plans>, made by the first process that needs it and copied with
// CREATE DATABASE ... TEMPLATE. A changed migration set makes a new template; on a long-lived
// development server the old ones stay until dropped (make test's server is thrown away).
package tenantstest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/capgate/capgate/migrations"
	"github.com/capgate/capgate/tenants"
)

func init() {
	// Tests that sign in hundreds of times would spend minutes in bcrypt at the product's cost;
	// the hashes they make are thrown away with the database. The e2e tests run the real
	// binary, at the real cost.
	tenants.PasswordCost = bcrypt.MinCost
}

// Backend is one database a test runs on.
type Backend struct {
	Name string
	Open func(tb testing.TB) *tenants.DB
	// DSN returns the DATABASE_URL form of a fresh database (for starting the binary).
	DSN func(tb testing.TB) string
}

// Backends lists SQLite and, when configured, PostgreSQL.
func Backends(tb testing.TB) []Backend {
	tb.Helper()
	out := []Backend{{Name: "sqlite", Open: SQLite, DSN: func(tb testing.TB) string { return filepath.Join(tb.TempDir(), "gateway.db") }}}
	if PostgresURL(tb) != "" {
		out = append(out, Backend{Name: "postgres", Open: Postgres, DSN: FreshPostgres})
	}
	return out
}

// ForEach runs fn as a subtest on every backend, each with a migrated, seeded database.
func ForEach(t *testing.T, fn func(t *testing.T, db *tenants.DB)) {
	t.Helper()
	for _, b := range Backends(t) {
		b := b
		t.Run(b.Name, func(t *testing.T) { fn(t, b.Open(t)) })
	}
}

// PostgresURL is the admin URL of the test server, or "" (failing the test when servers are required).
func PostgresURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("CAPGATE_TEST_POSTGRES_URL")
	if u == "" && os.Getenv("CAPGATE_REQUIRE_SERVERS") == "1" {
		tb.Fatal("CAPGATE_TEST_POSTGRES_URL is not set but CAPGATE_REQUIRE_SERVERS=1: the PostgreSQL test server did not start")
	}
	return u
}

// RedisURL is the test Redis server's URL, or "" (failing the test when servers are required).
func RedisURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("CAPGATE_TEST_REDIS_URL")
	if u == "" && os.Getenv("CAPGATE_REQUIRE_SERVERS") == "1" {
		tb.Fatal("CAPGATE_TEST_REDIS_URL is not set but CAPGATE_REQUIRE_SERVERS=1: the Redis test server did not start")
	}
	return u
}

// SQLite opens a migrated, seeded SQLite database in a temp dir: a copy of a template the test
// process migrated once (running the migrations for every test cost the race-instrumented
// suite minutes of CPU; the copy is the same file).
func SQLite(tb testing.TB) *tenants.DB {
	tb.Helper()
	tpl, err := sqliteTemplate()
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gateway.db"), tpl, 0o600); err != nil {
		tb.Fatal(err)
	}
	return open(tb, "", dir)
}

// open opens a test's database (tenants.Open's arguments) and closes it when the test ends.
func open(tb testing.TB, dsn, dataDir string) *tenants.DB {
	tb.Helper()
	db, err := tenants.Open(dsn, dataDir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

var sqliteTpl struct {
	once sync.Once
	data []byte
	err  error
}

// sqliteTemplate is the database file of a migrated, seeded SQLite database, made once per
// process in a temp dir that is removed again (the file is held in memory).
func sqliteTemplate() ([]byte, error) {
	sqliteTpl.once.Do(func() {
		dir, err := os.MkdirTemp("", "capgate-sqlite-template-")
		if err != nil {
			sqliteTpl.err = err
			return
		}
		defer os.RemoveAll(dir)
		db, err := tenants.Open("", dir)
		if err != nil {
			sqliteTpl.err = err
			return
		}
		ctx := context.Background()
		err = migrateAndSeed(ctx, db)
		if err == nil {
			// Everything into the main file: the copy is that file alone.
			_, err = db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
		}
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			sqliteTpl.err = fmt.Errorf("tenantstest: the SQLite template: %w", err)
			return
		}
		sqliteTpl.data, sqliteTpl.err = os.ReadFile(filepath.Join(dir, "gateway.db"))
	})
	return sqliteTpl.data, sqliteTpl.err
}

// Postgres opens a migrated, seeded fresh PostgreSQL database: a copy (CREATE DATABASE ...
// TEMPLATE) of a template database named by the migrations' digest, made once on the server
// and shared by every test process and run.
func Postgres(tb testing.TB) *tenants.DB {
	tb.Helper()
	admin := postgresAdmin(tb)
	tpl, err := postgresTemplate(admin)
	if err != nil {
		tb.Fatal(err)
	}
	return open(tb, freshPostgres(tb, admin, tpl), "")
}

// postgresAdmin is PostgresURL, skipping the test when there is no server.
func postgresAdmin(tb testing.TB) string {
	tb.Helper()
	admin := PostgresURL(tb)
	if admin == "" {
		tb.Skip("no PostgreSQL test server (set CAPGATE_TEST_POSTGRES_URL)")
	}
	return admin
}

var pgTpl struct {
	mu    sync.Mutex
	names map[string]string // admin URL -> template name
}

// postgresTemplate makes sure the server holds the template of the current migrations and
// seeded plans, and names it. Several test processes may race to make it: each builds its own
// under a random name and renames it to the shared name; the loser drops its copy.
func postgresTemplate(admin string) (string, error) {
	pgTpl.mu.Lock()
	defer pgTpl.mu.Unlock()
	if name, ok := pgTpl.names[admin]; ok {
		return name, nil
	}
	digest, err := migrations.Digest(string(tenants.Postgres))
	if err != nil {
		return "", err
	}
	plans, err := json.Marshal(tenants.DefaultPlans())
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte(digest), plans...))
	name := "capgate_template_" + hex.EncodeToString(sum[:8])
	adb, err := sql.Open("pgx", admin)
	if err != nil {
		return "", err
	}
	defer adb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	exists := func() (bool, error) {
		var ok bool
		err := adb.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&ok)
		return ok, err
	}
	made, err := exists()
	if err != nil {
		return "", err
	}
	if !made {
		build := "capgate_build_" + strings.ToLower(tenants.RandomString(12))
		if _, err := adb.ExecContext(ctx, "CREATE DATABASE "+build); err != nil {
			return "", err
		}
		if err := buildTemplate(ctx, admin, build); err != nil {
			_, _ = adb.ExecContext(ctx, "DROP DATABASE IF EXISTS "+build+" WITH (FORCE)")
			return "", fmt.Errorf("tenantstest: the PostgreSQL template: %w", err)
		}
		if _, rerr := adb.ExecContext(ctx, "ALTER DATABASE "+build+" RENAME TO "+name); rerr != nil {
			// Another process made it first (the name is taken): use theirs.
			_, _ = adb.ExecContext(ctx, "DROP DATABASE IF EXISTS "+build+" WITH (FORCE)")
			if made, err := exists(); err != nil || !made {
				return "", fmt.Errorf("tenantstest: naming the PostgreSQL template: %w", errors.Join(rerr, err))
			}
		}
	}
	if pgTpl.names == nil {
		pgTpl.names = map[string]string{}
	}
	pgTpl.names[admin] = name
	return name, nil
}

// buildTemplate migrates and seeds database name and closes every connection to it (a
// template with a connection open cannot be copied).
func buildTemplate(ctx context.Context, admin, name string) error {
	u, err := url.Parse(admin)
	if err != nil {
		return err
	}
	u.Path = "/" + name
	db, err := tenants.Open(u.String(), "")
	if err != nil {
		return err
	}
	err = migrateAndSeed(ctx, db)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

func migrateAndSeed(ctx context.Context, db *tenants.DB) error {
	if _, err := db.Migrate(ctx); err != nil {
		return err
	}
	_, err := tenants.NewStore(db).SeedPlans(ctx)
	return err
}

// FreshPostgres creates an empty database on the test server, dropped when the test ends.
func FreshPostgres(tb testing.TB) string {
	tb.Helper()
	return freshPostgres(tb, postgresAdmin(tb), "")
}

// freshPostgres creates a database on the test server, a copy of template when one is named,
// and drops it when the test ends.
func freshPostgres(tb testing.TB, admin, template string) string {
	tb.Helper()
	name := "capgate_" + strings.ToLower(tenants.RandomString(12))
	adb, err := sql.Open("pgx", admin)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	if _, err := adb.ExecContext(ctx, create); err != nil {
		adb.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = adb.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		adb.Close()
	})
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// Package tenantstest gives tests real databases: a SQLite file in a temp dir always, and a fresh
// PostgreSQL database on the server named by CAPGATE_TEST_POSTGRES_URL (started by make test).
// With CAPGATE_REQUIRE_SERVERS=1 a missing server fails the test instead of skipping PostgreSQL.
package tenantstest

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

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

// SQLite opens a migrated, seeded SQLite database in a temp dir.
func SQLite(tb testing.TB) *tenants.DB {
	tb.Helper()
	db, err := tenants.Open("", tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return prepare(tb, db)
}

// Postgres opens a migrated, seeded fresh PostgreSQL database.
func Postgres(tb testing.TB) *tenants.DB {
	tb.Helper()
	db, err := tenants.Open(FreshPostgres(tb), "")
	if err != nil {
		tb.Fatal(err)
	}
	return prepare(tb, db)
}

// FreshPostgres creates an empty database on the test server, dropped when the test ends.
func FreshPostgres(tb testing.TB) string {
	tb.Helper()
	admin := PostgresURL(tb)
	if admin == "" {
		tb.Skip("no PostgreSQL test server (set CAPGATE_TEST_POSTGRES_URL)")
	}
	name := "capgate_" + strings.ToLower(tenants.RandomString(12))
	adb, err := sql.Open("pgx", admin)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := adb.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
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

func prepare(tb testing.TB, db *tenants.DB) *tenants.DB {
	tb.Helper()
	tb.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if _, err := db.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := tenants.NewStore(db).SeedPlans(ctx); err != nil {
		tb.Fatal(err)
	}
	return db
}

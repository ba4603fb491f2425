// Package migrations holds the SQL migrations, one set per dialect (SQLite and PostgreSQL differ
// in types and identity columns), discovered and applied by bun's migrator.
package migrations

import (
	"embed"
	"fmt"
	"io/fs"

	"github.com/uptrace/bun/migrate"
)

//go:embed sqlite/*.sql postgres/*.sql
var files embed.FS

// For returns the migrations of a dialect: "sqlite" or "postgres".
func For(dialect string) (*migrate.Migrations, error) {
	sub, err := fs.Sub(files, dialect)
	if err != nil {
		return nil, err
	}
	m := migrate.NewMigrations()
	if err := m.Discover(sub); err != nil {
		return nil, fmt.Errorf("migrations for %s: %w", dialect, err)
	}
	return m, nil
}

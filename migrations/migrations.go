// Package migrations holds the SQL migrations, one set per dialect (SQLite and PostgreSQL differ
// in types and identity columns), discovered and applied by bun's migrator.
package migrations

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
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

// Digest identifies a dialect's migration set: a SHA-256 over its files' names and contents (a
// test harness names a migrated template database by it, so a changed set makes a new one).
func Digest(dialect string) (string, error) {
	sub, err := fs.Sub(files, dialect)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	err = fs.WalkDir(sub, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(sub, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

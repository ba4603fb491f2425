package layout

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	maxFileLines = 700
	maxFuncLines = 100
)

// sources lists the module's non-generated, non-test Go files, relative to the module root.
func sources(t *testing.T) []string {
	t.Helper()
	var out []string
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata", "vendor":
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module (deploy/helm/tool)
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// generated tells a generated file by Go's convention (a "Code generated ... DO NOT EDIT." line
// before the package clause).
func generated(src []byte) bool {
	head, _, _ := bytes.Cut(src, []byte("\npackage "))
	return bytes.Contains(head, []byte("Code generated")) && bytes.Contains(head, []byte("DO NOT EDIT"))
}

// TestFileAndFunctionSize: no hand-written Go file over 700 lines, no function over 100.
func TestFileAndFunctionSize(t *testing.T) {
	files := sources(t)
	if len(files) < 100 {
		t.Fatalf("found only %d Go files; the walk is broken", len(files))
	}
	for _, rel := range files {
		src, err := os.ReadFile(filepath.Join("../..", rel))
		if err != nil {
			t.Fatal(err)
		}
		if generated(src) {
			continue
		}
		if n := bytes.Count(src, []byte("\n")); n > maxFileLines {
			t.Errorf("%s: %d lines (at most %d: split it by concern)", rel, n, maxFileLines)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			name := ""
			switch fn := n.(type) {
			case *ast.FuncDecl:
				body, name = fn.Body, fn.Name.Name
			case *ast.FuncLit:
				body, name = fn.Body, "func literal"
			}
			if body == nil {
				return true
			}
			if lines := fset.Position(body.Rbrace).Line - fset.Position(body.Lbrace).Line + 1; lines > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines (at most %d)", rel, fset.Position(body.Lbrace).Line, name, lines, maxFuncLines)
			}
			return true
		})
	}
}

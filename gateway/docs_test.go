package gateway

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers/registry"
)

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsStandAlone: the README and docs/*.md link only to files of the repository that exist
// (or to web pages), never to a path outside the clone such as ../shared.
func TestDocsStandAlone(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		if strings.Contains(string(b), "../shared") {
			t.Errorf("%s mentions ../shared, which a clone does not have", rel)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			abs := filepath.Clean(filepath.Join(filepath.Dir(f), target))
			if abs != root && !strings.HasPrefix(abs, root+string(filepath.Separator)) {
				t.Errorf("%s links %s, outside the repository", rel, m[1])
				continue
			}
			if _, err := os.Stat(abs); err != nil {
				t.Errorf("%s links %s, which does not exist", rel, m[1])
			}
		}
	}
}

// TestAPIDocListsOperations: docs/api.md names every operation id of the document.
func TestAPIDocListsOperations(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := OpenAPI(registry.Capabilities(), "")
	for _, item := range doc["paths"].(map[string]any) {
		for _, o := range item.(map[string]any) {
			id := o.(map[string]any)["operationId"].(string)
			if strings.HasPrefix(id, "execute.") || strings.HasPrefix(id, "quote.") {
				continue // one per capability; the page names the pattern
			}
			if !strings.Contains(string(b), "`"+id+"`") {
				t.Errorf("docs/api.md does not list operation %s", id)
			}
		}
	}
}

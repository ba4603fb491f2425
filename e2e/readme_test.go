package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmeBlock is a fenced block of the README marked `<!-- readme-test: kind -->`.
type readmeBlock struct {
	kind, code string
	line       int
}

var readmeMarker = regexp.MustCompile("(?s)<!-- readme-test: ([a-z]+) -->\n```[a-z]*\n(.*?)```")

func readmeBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []readmeBlock
	for _, m := range readmeMarker.FindAllSubmatchIndex(b, -1) {
		out = append(out, readmeBlock{kind: string(b[m[2]:m[3]]), code: string(b[m[4]:m[5]]), line: 1 + strings.Count(string(b[:m[0]]), "\n")})
	}
	return out
}

// TestReadmeExamples runs every example the README marks as runnable against the real binary,
// as written: the curl walk-through, the Python and TypeScript examples, the MCP Inspector
// command and the admin commands (with ./bin/gateway). So the README cannot drift from the
// product. Python needs only Debian's python3; TypeScript and the Inspector need Node's npx.
func TestReadmeExamples(t *testing.T) {
	blocks := readmeBlocks(t)
	kinds := map[string]int{}
	for _, b := range blocks {
		kinds[b.kind]++
	}
	for _, k := range []string{"sh", "python", "ts", "admin"} {
		if kinds[k] == 0 {
			t.Fatalf("the README has no runnable %s example (markers: %v)", k, kinds)
		}
	}
	d := newDeployment(t, "sqlite")
	in := d.serve(t)
	var testKey string
	for _, line := range strings.Split(in.stdout.String(), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "test" && f[1] == "key" {
			testKey = f[2]
		}
	}
	if !strings.HasPrefix(testKey, "cap_test_") {
		t.Fatalf("no test key in the first start's output:\n%s", in.stdout.String())
	}
	// ./bin/gateway, as the README says after make build.
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(binary, filepath.Join(work, "bin", "gateway")); err != nil {
		t.Fatal(err)
	}
	env := append(d.environ(d.DataDir), "CAPGATE="+in.Base, "CAPGATE_KEY="+testKey, "npm_config_update_notifier=false")
	for _, b := range blocks {
		t.Run(b.kind+" at line "+strconv.Itoa(b.line), func(t *testing.T) {
			var cmd []string
			switch b.kind {
			case "sh", "admin":
				cmd = []string{"bash", "-euo", "pipefail", "-c", b.code}
			case "python":
				write(t, filepath.Join(work, "capgate_example.py"), b.code)
				cmd = []string{"python3", "capgate_example.py"}
			case "ts":
				write(t, filepath.Join(work, "capgate_example.mts"), b.code)
				cmd = []string{"npx", "--yes", "tsx@4.20.3", "capgate_example.mts"}
			default:
				t.Fatalf("unknown README example kind %q", b.kind)
			}
			if strings.Contains(b.code, "npx ") || cmd[0] == "npx" {
				if testing.Short() && os.Getenv("CAPGATE_REQUIRE_SERVERS") != "1" {
					t.Skip("-short: the Node.js examples run in make test")
				}
				needTool(t, "npx")
			}
			needTool(t, "python3")
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
			c.Dir, c.Env = work, env
			out, err := c.CombinedOutput()
			if err != nil {
				t.Fatalf("README line %d (%s) failed: %v\n%s", b.line, b.kind, err, tail(string(out), 40))
			}
			if strings.TrimSpace(string(out)) == "" {
				t.Fatalf("README line %d (%s) printed nothing", b.line, b.kind)
			}
			t.Logf("README line %d:\n%s", b.line, tail(string(out), 8))
		})
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// needTool fails (under make test, which installs it) or skips when a tool is missing.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CAPGATE_REQUIRE_SERVERS") == "1" {
			t.Fatalf("%s is required to run the README's examples (make test installs it)", name)
		}
		t.Skipf("no %s on this machine", name)
	}
}

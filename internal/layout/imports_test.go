package layout

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "github.com/capgate/capgate"

// core are the packages that must not know particular capabilities or upstreams: the HTTP core
// and the console. gateway/gatewaytest is left out on purpose: like cmd, it wires a whole
// deployment (the registry) for tests.
var core = []string{"./gateway", "./gateway/sharedcache", "./console", "./console/views"}

// goList runs go list in the module's root.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goBin, append([]string{"list"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list %v: %v\n%s", args, err, ee.Stderr)
		}
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Fields(string(out))
}

// TestCoreImportsNoAdapter: no package of the gateway or the console depends, directly or not,
// on a package under providers/ other than providers itself (the capability model and error
// vocabulary) and its tooling. Sharpen's reviewers and the workouts store are bound through interfaces in cmd.
func TestCoreImportsNoAdapter(t *testing.T) {
	for _, pkg := range core {
		for _, dep := range goList(t, "-deps", "-f", "{{.ImportPath}}", pkg) {
			if forbidden(dep) {
				t.Errorf("%s depends on %s: the core binds capabilities and upstreams through interfaces wired in cmd", pkg, dep)
			}
		}
	}
}

// tooling are the packages under providers/ that are neither a capability nor an upstream: the
// capability model itself uses them.
var tooling = []string{module + "/providers/lenient", module + "/providers/ttlcache", module + "/providers/internal/"}

func forbidden(dep string) bool {
	if !strings.HasPrefix(dep, module+"/providers/") {
		return false
	}
	for _, t := range tooling {
		if dep == t || strings.HasSuffix(t, "/") && strings.HasPrefix(dep, t) {
			return false
		}
	}
	return true
}

// TestForbiddenRuleBites keeps the check above from passing vacuously: the registry, which lists
// every capability, does depend on them.
func TestForbiddenRuleBites(t *testing.T) {
	n := 0
	for _, dep := range goList(t, "-deps", "-f", "{{.ImportPath}}", "./providers/registry") {
		if forbidden(dep) {
			n++
		}
	}
	if n < 20 {
		t.Fatalf("the registry depends on %d capability packages by the rule; the rule matches nothing", n)
	}
}

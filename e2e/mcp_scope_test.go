package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestScopedKeyEndToEnd: a key made with `gateway admin key create --capabilities` lists exactly
// its two capabilities (+ follow_up, find_capabilities) over MCP with the Go and the TypeScript
// SDK, runs them, and is refused elsewhere with capability_disabled naming the scope, over MCP
// and /v1; the MCP URL narrows further and never widens.
func TestScopedKeyEndToEnd(t *testing.T) {
	d := newDeployment(t, "sqlite")
	in := d.serve(t)
	tk := d.newTenant(t, "pro")
	k := d.admin(t, "key", "create", "--tenant", tk.ID, "--test", "--label", "two tools", "--capabilities", "books.search,weather.forecast")
	key := str(k, "key")
	if sc, _ := k["scope"].(map[string]any); len(sc["capabilities"].([]any)) != 2 {
		t.Fatalf("key create answered scope %v", k["scope"])
	}
	if res := d.run(t, "admin", "key", "create", "--tenant", tk.ID, "--capabilities", "nope.search"); res.Code == 0 || !strings.Contains(res.Stderr, "nope.search") {
		t.Errorf("an unknown capability in the scope: exit %d %s", res.Code, res.Stderr)
	}

	want := []string{"books.search", "find_capabilities", "follow_up", "weather.forecast"}
	var got []string
	for n := range listTools(t, mustConnectMCP(t, in, key)) {
		got = append(got, n)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("Go SDK lists %v, want %v", got, want)
	}
	cs := mustConnectMCP(t, in, key)
	structuredOf(t, callTool(t, cs, "books.search", map[string]any{"query": "dune"}))
	if e := toolEnvelope(t, callTool(t, cs, "recipes.search", map[string]any{"query": "pasta"})); e["code"] != "capability_disabled" ||
		!strings.Contains(str(e, "hint"), "books.search, weather.forecast") {
		t.Errorf("out of scope over MCP: %v", e)
	}
	r := in.call(t, "POST", "/v1/capabilities/recipes.search/execute", key, map[string]any{"query": "pasta"})
	requireEnvelope(t, r, 403, "capability_disabled")

	// The URL narrows to one tool; it cannot add recipes.search.
	narrow := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	ncs, err := narrow.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: in.Base + "/mcp?tools=weather.forecast,recipes.search",
		MaxRetries: -1, HTTPClient: httpClientWithKey(key)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ncs.Close()
	res, err := ncs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"find_capabilities", "follow_up", "weather.forecast"}) {
		t.Errorf("narrowed list %v", names)
	}

	// The TypeScript SDK sees the same list and the same refusal.
	jsDir(t)
	run := runTSClient(t, in.Base+"/mcp", key, []tsStep{{Op: "listTools"}, {Op: "call", Name: "find_capabilities", Arguments: map[string]any{"query": "weather"}},
		{Op: "call", Name: "recipes.search", Arguments: map[string]any{"query": "pasta"}}})
	if run.Steps[0].Error != "" || strings.Count(string(run.Steps[0].Result), `"name":`) != 4 {
		t.Errorf("TypeScript tools/list: %s %.500s", run.Steps[0].Error, run.Steps[0].Result)
	}
	if f := run.Steps[1].toolResult(t); f.IsError || !strings.Contains(f.Content[0].Text, "weather.forecast") {
		t.Errorf("find_capabilities: %+v", f)
	}
	if r := run.Steps[2].toolResult(t); !r.IsError || !strings.Contains(r.Content[0].Text, "capability_disabled") {
		t.Errorf("TypeScript call outside the scope: %+v", r)
	}
}

// httpClientWithKey is an HTTP client sending key as the bearer.
func httpClientWithKey(key string) *http.Client {
	return &http.Client{Transport: bearerTransport{key: key}, Timeout: 60 * time.Second}
}

package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/tenants"
)

// appTransport sends the SDK client's HTTP requests straight into the fiber app.
type appTransport struct{ e *gatewaytest.Env }

func (a appTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return a.e.Server.App().Test(r, 60_000)
}

// mcpSession connects the SDK's own client with key as the bearer.
func mcpSession(t *testing.T, e *gatewaytest.Env, key string) (*mcp.ClientSession, error) {
	t.Helper()
	hc := &http.Client{Transport: bearer{key: key, next: appTransport{e}}}
	c := mcp.NewClient(&mcp.Implementation{Name: "capgate-test", Version: "test"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://capgate.test/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return b.next.RoundTrip(r)
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	slices.Sort(out)
	return out
}

// TestMCPToolsAgreeWithCatalog: for every seeded plan and both key modes, tools/list holds exactly
// the capabilities the catalog shows enabled and available, follow_up, and sharpen when the
// catalog's sharpen is enabled (checked with sharpen off, then on where the plan allows it).
func TestMCPToolsAgreeWithCatalog(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	agree := func(t *testing.T, key string) (sharpen bool) {
		t.Helper()
		cat := e.Do(http.MethodGet, "/v1/catalog", key, nil)
		want := []string{"find_capabilities", "follow_up"}
		for _, c := range cat.JSON["capabilities"].([]any) {
			cm := c.(map[string]any)
			if cm["enabled"] == true && cm["available"] == true {
				want = append(want, gateway.ToolName(cm["id"].(string)))
			}
		}
		if cat.JSON["sharpen"].(map[string]any)["enabled"] == true {
			want = append(want, "sharpen")
		}
		slices.Sort(want)
		cs, err := mcpSession(t, e, key)
		if err != nil {
			t.Fatal(err)
		}
		if got := toolNames(t, cs); !slices.Equal(got, want) {
			t.Errorf("tools %v\nwant the catalog's %v", got, want)
		}
		return slices.Contains(want, "sharpen")
	}
	for _, plan := range tenants.DefaultPlans() {
		t.Run(plan.ID, func(t *testing.T) {
			tn, live, test := e.NewTenant(plan.ID)
			for _, key := range []string{live, test} {
				if agree(t, key) {
					t.Error("sharpen listed while the account has it off")
				}
			}
			if !plan.AllowsStage("stage1") {
				return
			}
			if err := e.Store.SetSharpenStage(context.Background(), tn.ID, &plan, "stage1"); err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{live, test} {
				if !agree(t, key) {
					t.Error("sharpen not listed once switched on")
				}
			}
		})
	}
}

// outputSchemaOf compiles the outputSchema a tool declares in tools/list.
func outputSchemaOf(t *testing.T, cs *mcp.ClientSession, name string) *jsonschema.Schema {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name != name {
			continue
		}
		if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint || tl.Annotations.OpenWorldHint == nil || !*tl.Annotations.OpenWorldHint {
			t.Errorf("%s: annotations %+v, want readOnlyHint and openWorldHint true", name, tl.Annotations)
		}
		b, _ := json.Marshal(tl.OutputSchema)
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("mem://"+name+".json", doc); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("mem://" + name + ".json")
		if err != nil {
			t.Fatalf("%s: outputSchema does not compile: %v\n%s", name, err, b)
		}
		return sch
	}
	t.Fatalf("no tool %s listed", name)
	return nil
}

// structured validates a tool result's structuredContent against the schema and decodes it.
func structured(t *testing.T, sch *jsonschema.Schema, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("structuredContent does not match the outputSchema: %v\n%s", err, b)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestMCPCallRunsTheV1Path: a tool call, its follow-up, a record action, a validation error and
// an idempotent retry behave exactly as the /v1 calls, with results matching the outputSchema.
func TestMCPCallRunsTheV1Path(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	cs, err := mcpSession(t, e, e.TestKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	call := func(name string, args map[string]any, meta mcp.Meta) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	execSchema, fuSchema := outputSchemaOf(t, cs, "books.search"), outputSchemaOf(t, cs, "follow_up")

	first := structured(t, execSchema, call("books.search", map[string]any{"query": "dune", "num": 2}, nil))
	searchID, _ := first["search_id"].(string)
	if !strings.HasPrefix(searchID, "srch_") || first["capability"] != "books.search" {
		t.Fatalf("execute result %v", first)
	}
	more := structured(t, fuSchema, call("follow_up", map[string]any{"search_id": searchID, "action": "more"}, nil))
	if more["search_id"] != searchID {
		t.Errorf("more: search_id %v, want %s", more["search_id"], searchID)
	}
	rec := first["results"].([]any)[0].(map[string]any)["record_id"]
	details := structured(t, fuSchema, call("follow_up", map[string]any{"record_id": rec, "action": "details"}, nil))
	if details["record_id"] != rec || details["action"] != "details" {
		t.Errorf("details result %v", details)
	}

	t.Run("validation error carries the violations", func(t *testing.T) {
		res := call("books.search", map[string]any{"query": 7, "bogus": true}, nil)
		if !res.IsError || res.StructuredContent != nil {
			t.Fatalf("want a tool error without structuredContent: %+v", res)
		}
		var env struct {
			Error struct {
				Code       string `json:"code"`
				Violations []struct {
					Path string `json:"path"`
				} `json:"violations"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(res.Content[1].(*mcp.TextContent).Text), &env); err != nil {
			t.Fatalf("second content is not the envelope: %v", err)
		}
		var paths []string
		for _, v := range env.Error.Violations {
			paths = append(paths, v.Path)
		}
		if env.Error.Code != "invalid_request" || !slices.Contains(paths, "/query") {
			t.Errorf("envelope %+v, want invalid_request with a /query violation", env)
		}
		if !strings.Contains(text(res), "invalid_request (HTTP 400)") || res.Meta["http_status"] != float64(400) {
			t.Errorf("text %q meta %v", text(res), res.Meta)
		}
	})

	t.Run("an idempotency key in _meta replays the first answer", func(t *testing.T) {
		meta := mcp.Meta{gateway.IdempotencyMetaKey: "mcp-retry-1"}
		a := structured(t, execSchema, call("books.search", map[string]any{"query": "emma"}, meta))
		b := structured(t, execSchema, call("books.search", map[string]any{"query": "emma"}, meta))
		if a["search_id"] != b["search_id"] {
			t.Errorf("retry ran again: search_id %v then %v", a["search_id"], b["search_id"])
		}
		c := call("books.search", map[string]any{"query": "persuasion"}, meta)
		if !c.IsError || !strings.Contains(text(c), "different request") {
			t.Errorf("the same key on another body: %s", text(c))
		}
	})

	t.Run("sharpen once switched on", func(t *testing.T) {
		pro, err := e.Store.Plan(ctx, "pro")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Store.SetSharpenStage(ctx, e.Tenant.ID, pro, "stage1"); err != nil {
			t.Fatal(err)
		}
		got := structured(t, outputSchemaOf(t, cs, "sharpen"), call("sharpen", map[string]any{"task": "what is 2+2", "draft": "4", "caller_provider": "openai"}, nil))
		if got["tier"] != "sharpen" || got["charged_credits"] != float64(5) {
			t.Errorf("sharpen result %v", got)
		}
	})

	t.Run("a capability off the plan answers capability_disabled", func(t *testing.T) {
		_, _, freeTest := e.NewTenant("free")
		free, err := mcpSession(t, e, freeTest)
		if err != nil {
			t.Fatal(err)
		}
		var paid string
		for _, c := range e.Do(http.MethodGet, "/v1/catalog", freeTest, nil).JSON["capabilities"].([]any) {
			if cm := c.(map[string]any); cm["enabled"] == false {
				paid = cm["id"].(string)
				break
			}
		}
		if slices.Contains(toolNames(t, free), gateway.ToolName(paid)) {
			t.Fatalf("the free plan lists %s", paid)
		}
		ex := e.Do(http.MethodGet, "/v1/capabilities/"+paid, freeTest, nil).JSON["examples"].([]any)[0].(map[string]any)["body"]
		res, err := free.CallTool(ctx, &mcp.CallToolParams{Name: gateway.ToolName(paid), Arguments: ex})
		if err != nil || !res.IsError || !strings.HasPrefix(text(res), "capability_disabled (HTTP 403)") {
			t.Errorf("%s on the free plan: %v %s", paid, err, text(res))
		}
	})
}

// TestMCPResources: the guide and every inspect document, as /v1 serves them.
func TestMCPResources(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	cs, err := mcpSession(t, e, e.LiveKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	cat := e.Do(http.MethodGet, "/v1/catalog", e.LiveKey, nil).JSON["capabilities"].([]any)
	if len(list.Resources) != len(cat)+1 {
		t.Errorf("%d resources, want the guide and %d inspect documents", len(list.Resources), len(cat))
	}
	for _, r := range []struct{ uri, path string }{
		{"capgate://guide", "/v1/guide"},
		{"capgate://capabilities/books.search", "/v1/capabilities/books.search"},
	} {
		got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.uri})
		if err != nil {
			t.Fatalf("%s: %v", r.uri, err)
		}
		want := e.Do(http.MethodGet, r.path, e.LiveKey, nil)
		if len(got.Contents) != 1 || got.Contents[0].Text != string(want.Body) || len(want.Body) == 0 {
			t.Errorf("%s differs from GET %s", r.uri, r.path)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "capgate://capabilities/nope"}); err == nil {
		t.Error("an unknown resource was read")
	}
}

// TestMCPTransportErrors: no key or a bad key is refused before any MCP processing, and the
// transport's own refusals leave as the error envelope.
func TestMCPTransportErrors(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	accept := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	for _, c := range []struct {
		name, method, key, body string
		header                  map[string]string
		status                  int
		code                    string
	}{
		{"no key", http.MethodPost, "", init, accept, 401, "unauthorized"},
		{"unknown key", http.MethodPost, "cap_test_00000000000000000000000000000000", init, accept, 401, "unauthorized"},
		{"GET has no stream", http.MethodGet, e.TestKey, "", map[string]string{"Accept": "text/event-stream"}, 405, "invalid_request"},
		{"not JSON", http.MethodPost, e.TestKey, init, map[string]string{"Content-Type": "text/plain", "Accept": "application/json, text/event-stream"}, 415, "invalid_request"},
		{"no event-stream accept", http.MethodPost, e.TestKey, init, map[string]string{"Content-Type": "application/json", "Accept": "application/json"}, 400, "invalid_request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var body any
			if c.body != "" {
				body = c.body
			}
			r := e.DoHeaders(c.method, "/mcp", c.key, body, c.header)
			if r.Status != c.status || r.ErrorCode() != c.code {
				t.Errorf("%d %s, want %d %s", r.Status, r.Body, c.status, c.code)
			}
			if c.status == 405 && r.Header.Get("Allow") != "POST" {
				t.Errorf("405 without Allow: POST (%q)", r.Header.Get("Allow"))
			}
		})
	}
	if _, err := mcpSession(t, e, ""); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("connecting without a key: %v", err)
	}
}

// TestMCPToolCallCountsOnce: a tools/call is counted by its /v1 call alone, whose RateLimit-*
// headers the /mcp response carries; other messages count themselves.
func TestMCPToolCallCountsOnce(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	// Ten requests a minute: no token comes back while the test runs, however slow the machine.
	slow := &tenants.Plan{ID: "mcp-slow", CreditCap: 1000, RatePerMinute: 10, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stock"}
	if err := e.Store.CreatePlan(context.Background(), slow); err != nil {
		t.Fatal(err)
	}
	_, _, key := e.NewTenant(slow.ID)
	post := func(body string) *http.Response {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := e.Server.App().Test(req, 60_000)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", body, res.StatusCode)
		}
		return res
	}
	remaining := func(res *http.Response) int {
		t.Helper()
		n, err := strconv.Atoi(res.Header.Get("RateLimit-Remaining"))
		if err != nil {
			t.Fatalf("RateLimit-Remaining %q", res.Header.Get("RateLimit-Remaining"))
		}
		return n
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"books.search","arguments":{"query":"dune"}}}`
	a := remaining(post(list))
	b := remaining(post(call))
	c := remaining(post(list))
	if b != a-1 || c != b-1 {
		t.Errorf("RateLimit-Remaining %d after tools/list, %d after tools/call, %d after tools/list: want one less each time", a, b, c)
	}
}

// BenchmarkMCP compares a sandbox books.search through /v1 with the same call through /mcp (the
// JSON-RPC envelope, the per-message server and the in-process dispatch), and a tools/list.
func BenchmarkMCP(b *testing.B) {
	e := gatewaytest.New(b, gatewaytest.Options{})
	fast := &tenants.Plan{ID: "mcp-bench", CreditCap: 1 << 40, RatePerMinute: 1 << 30, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stock"}
	if err := e.Store.CreatePlan(context.Background(), fast); err != nil {
		b.Fatal(err)
	}
	_, _, key := e.NewTenant(fast.ID)
	send := func(b *testing.B, path, body string) {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := e.Server.App().Test(req, 60_000)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || bytes.Contains(out, []byte(`"isError":true`)) {
			b.Fatalf("%s: %d %s", path, res.StatusCode, out)
		}
	}
	for _, c := range []struct{ name, path, body string }{
		{"v1 execute", "/v1/capabilities/books.search/execute", `{"query":"dune","num":2}`},
		{"mcp tools/call", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"books.search","arguments":{"query":"dune","num":2}}}`},
		{"mcp tools/list", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				send(b, c.path, c.body)
			}
		})
	}
}

// Every tool's input and output schema has an object at its root, as the MCP schema of Tool
// requires: the TypeScript SDK (and the MCP Inspector on it) refuses a tools/list whose
// outputSchema has no "type": "object" beside its $ref.
func TestMCPToolSchemasAreObjects(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}})
	cs, err := mcpSession(t, e, e.TestKey)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		for what, s := range map[string]any{"inputSchema": tl.InputSchema, "outputSchema": tl.OutputSchema} {
			b, _ := json.Marshal(s)
			var root struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal(b, &root); err != nil || root.Type != "object" {
				t.Errorf("%s: %s has type %q at its root, want object", tl.Name, what, root.Type)
			}
		}
	}
}

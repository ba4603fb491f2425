package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/tenants"
)

// scopedKey issues a test key of the env's tenant limited to scope.
func scopedKey(t *testing.T, e *gatewaytest.Env, caps, topics string) string {
	t.Helper()
	scope, err := tenants.ParseScope(caps, topics)
	if err != nil {
		t.Fatal(err)
	}
	_, raw, err := e.Store.CreateScopedKey(context.Background(), e.Tenant.ID, tenants.ModeTest, "scoped", scope)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// mcpSessionAt connects to an /mcp URL with a query.
func mcpSessionAt(t *testing.T, e *gatewaytest.Env, key, query string) (*mcp.ClientSession, error) {
	t.Helper()
	hc := &http.Client{Transport: bearer{key: key, next: appTransport{e}}}
	c := mcp.NewClient(&mcp.Implementation{Name: "capgate-test", Version: "test"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://capgate.test/mcp" + query, HTTPClient: hc, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func envelopeOf(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if !res.IsError || len(res.Content) != 2 {
		t.Fatalf("want a tool error, got %+v", res)
	}
	var env struct {
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal([]byte(res.Content[1].(*mcp.TextContent).Text), &env); err != nil {
		t.Fatal(err)
	}
	return env.Error
}

// TestScopedKey: a key limited to two capabilities lists exactly those (+ follow_up and
// find_capabilities), and is refused elsewhere with capability_disabled naming the scope, over
// MCP and /v1 (execute, follow-ups of another key's search, sharpen), while the catalog says why.
func TestScopedKey(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	key := scopedKey(t, e, "books.search,weather.forecast", "")
	cs, err := mcpSession(t, e, key)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(t, cs), []string{"books.search", "find_capabilities", "follow_up", "weather.forecast"}; !slices.Equal(got, want) {
		t.Errorf("tools %v, want %v", got, want)
	}
	ctx := context.Background()
	ok, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "books.search", Arguments: map[string]any{"query": "dune"}})
	if err != nil || ok.IsError {
		t.Fatalf("in scope: %v %+v", err, ok)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recipes.search", Arguments: map[string]any{"query": "pasta"}})
	if err != nil {
		t.Fatal(err)
	}
	if env := envelopeOf(t, res); env["code"] != "capability_disabled" || !strings.Contains(env["hint"].(string), "books.search, weather.forecast") {
		t.Errorf("out of scope over MCP: %v", env)
	}

	r := e.Do(http.MethodPost, "/v1/capabilities/recipes.search/execute", key, map[string]any{"query": "pasta"})
	if r.Status != http.StatusForbidden || r.ErrorCode() != "capability_disabled" || !strings.Contains(string(r.Body), "books.search, weather.forecast") {
		t.Errorf("out of scope over /v1: %d %s", r.Status, r.Body)
	}
	// A search another key of the tenant made cannot be continued outside the scope.
	other := e.Do(http.MethodPost, "/v1/capabilities/recipes.search/execute", e.TestKey, map[string]any{"query": "pasta"})
	if other.Status != 200 {
		t.Fatalf("unscoped key: %d %s", other.Status, other.Body)
	}
	sid := other.JSON["search_id"].(string)
	rid := other.JSON["results"].([]any)[0].(map[string]any)["record_id"].(string)
	for _, body := range []map[string]any{{"search_id": sid, "action": "update", "params": map[string]any{"query": "soup"}}, {"record_id": rid, "action": "details"}} {
		if r := e.Do(http.MethodPost, "/v1/follow-up", key, body); r.ErrorCode() != "capability_disabled" {
			t.Errorf("follow-up %v outside the scope: %d %s", body, r.Status, r.Body)
		}
	}
	if r := e.Do(http.MethodPost, "/v1/sharpen", key, map[string]any{"task": "t", "draft": "d", "caller_provider": "openai"}); r.ErrorCode() != "capability_disabled" {
		t.Errorf("sharpen outside the scope: %d %s", r.Status, r.Body)
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 3 {
		t.Errorf("resources of a key scoped to two capabilities: %v (%v), want the guide and two", list, err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "capgate://capabilities/recipes.search"}); err == nil {
		t.Error("the inspect resource of a capability outside the scope was read")
	}
	cat := e.Do(http.MethodGet, "/v1/catalog", key, nil)
	for _, c := range cat.JSON["capabilities"].([]any) {
		cm := c.(map[string]any)
		in := cm["id"] == "books.search" || cm["id"] == "weather.forecast"
		if cm["enabled"] != in || (!in && !strings.Contains(cm["disabled_reason"].(string), "scope")) {
			t.Errorf("catalog %s: enabled %v reason %v", cm["id"], cm["enabled"], cm["disabled_reason"])
		}
	}
}

// TestMCPURLFilter: ?tools= and ?topics= narrow the tool list and the calls, never widen a
// scoped key, and refuse what they do not know.
func TestMCPURLFilter(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	ctx := context.Background()
	cs, err := mcpSessionAt(t, e, e.TestKey, "?tools=books.search,weather.forecast")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(t, cs), []string{"books.search", "find_capabilities", "follow_up", "weather.forecast"}; !slices.Equal(got, want) {
		t.Errorf("?tools=: %v, want %v", got, want)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recipes.search", Arguments: map[string]any{"query": "pasta"}})
	if err != nil {
		t.Fatal(err)
	}
	if env := envelopeOf(t, res); env["code"] != "capability_disabled" || !strings.Contains(env["hint"].(string), "books.search") {
		t.Errorf("a call outside the URL filter: %v", env)
	}

	cs, err = mcpSessionAt(t, e, e.TestKey, "?topics=dev")
	if err != nil {
		t.Fatal(err)
	}
	names := toolNames(t, cs)
	if !slices.Contains(names, "repo.search") || slices.Contains(names, "books.search") || len(names) < 4 {
		t.Errorf("?topics=dev: %v", names)
	}

	// A key limited to books.search asking for weather.forecast by URL gets nothing more.
	key := scopedKey(t, e, "books.search", "")
	cs, err = mcpSessionAt(t, e, key, "?tools=weather.forecast,books.search")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(t, cs), []string{"books.search", "find_capabilities", "follow_up"}; !slices.Equal(got, want) {
		t.Errorf("the URL widened a scoped key: %v", got)
	}

	for _, q := range []string{"?tools=nope.search", "?topics=nope", "?tools=Web.Search"} {
		if _, err := mcpSessionAt(t, e, e.TestKey, q); err == nil {
			t.Errorf("%s was accepted", q)
		}
	}
}

// TestFindCapabilities: words in, the matching capabilities the key may use out, best first;
// nothing outside the key's scope.
func TestFindCapabilities(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	ctx := context.Background()
	find := func(key, query, q string) map[string]any {
		t.Helper()
		cs, err := mcpSessionAt(t, e, key, query)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_capabilities", Arguments: map[string]any{"query": q}})
		if err != nil || res.IsError {
			t.Fatalf("find_capabilities %q: %v %+v", q, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	}
	ids := func(m map[string]any) []string {
		var out []string
		for _, x := range m["matches"].([]any) {
			out = append(out, x.(map[string]any)["id"].(string))
		}
		return out
	}
	got := find(e.TestKey, "?tools=books.search", "weather forecast")
	if ms := ids(got); len(ms) == 0 || ms[0] != "weather.forecast" {
		t.Errorf("weather forecast: %v", ms)
	}
	if first := got["matches"].([]any)[0].(map[string]any); first["listed"] != false || first["summary"] == "" {
		t.Errorf("a capability outside the URL filter is reported as listed: %v", first)
	}
	if ms := ids(find(e.TestKey, "", "python package downloads")); len(ms) == 0 || !strings.HasPrefix(ms[0], "pypkg.") {
		t.Errorf("python package downloads: %v", ms)
	}
	key := scopedKey(t, e, "books.search", "")
	if ms := ids(find(key, "", "weather forecast books")); !slices.Equal(ms, []string{"books.search"}) {
		t.Errorf("a scoped key found %v", ms)
	}
}

// TestMCPFilteredCallCounts: a tools/call refused by the URL filter runs no /v1 call, so it counts
// against the plan's rate itself; an agent cannot loop on refused calls for free.
func TestMCPFilteredCallCounts(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	slow := &tenants.Plan{ID: "mcp-filter-slow", CreditCap: 1000, RatePerMinute: 3, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stock"}
	if err := e.Store.CreatePlan(context.Background(), slow); err != nil {
		t.Fatal(err)
	}
	_, _, key := e.NewTenant(slow.ID)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recipes.search","arguments":{"query":"pasta"}}}`
	var codes []string
	for i := 0; i < 4; i++ {
		req := httptest.NewRequest(http.MethodPost, "/mcp?tools=books.search", strings.NewReader(call))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := e.Server.App().Test(req, 60_000)
		if err != nil {
			t.Fatal(err)
		}
		var msg struct {
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		_ = json.NewDecoder(res.Body).Decode(&msg)
		res.Body.Close()
		if len(msg.Result.Content) != 2 {
			t.Fatalf("call %d: %d %+v", i+1, res.StatusCode, msg)
		}
		var env struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal([]byte(msg.Result.Content[1].Text), &env)
		codes = append(codes, env.Error.Code)
	}
	if !slices.Contains(codes, "rate_limited") {
		t.Errorf("four refused calls on a plan of three a minute: %v", codes)
	}
}

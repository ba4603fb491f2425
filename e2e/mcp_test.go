package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearerTransport adds the caller's key to every request of the MCP client.
type bearerTransport struct{ key string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connectMCP connects the SDK's own client to the instance's /mcp with key.
func connectMCP(t *testing.T, in *instance, key string) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "capgate-e2e", Version: "test"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: in.Base + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearerTransport{key: key}, Timeout: 60e9}}
	cs, err := c.Connect(context.Background(), tr, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

func mustConnectMCP(t *testing.T, in *instance, key string) *mcp.ClientSession {
	t.Helper()
	cs, err := connectMCP(t, in, key)
	if err != nil {
		t.Fatalf("connecting to /mcp: %v", err)
	}
	return cs
}

func listTools(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	out := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// toolEnvelope is the error envelope a tool error carries as its second content block.
func toolEnvelope(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if !res.IsError || len(res.Content) != 2 {
		t.Fatalf("want a tool error with a text and the envelope, got %+v", res)
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(res.Content[1].(*mcp.TextContent).Text), &env); err != nil {
		t.Fatalf("the tool error's second block is not JSON: %v", err)
	}
	e, _ := env["error"].(map[string]any)
	if e == nil {
		t.Fatalf("no error envelope: %v", env)
	}
	return e
}

func structuredOf(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %v", res.Content[0].(*mcp.TextContent).Text)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		t.Fatalf("structuredContent is not an object: %s", b)
	}
	return m
}

// TestMCP drives /mcp of the real binary with the SDK's own client: initialize, plan-filtered
// tools, a tool call and its follow-up, a validation error, 402, 429 and 401.
func TestMCP(t *testing.T) {
	d := newDeployment(t, "sqlite")
	in := d.serve(t)
	pro := d.newTenant(t, "pro")
	free := d.newTenant(t, "free")

	t.Run("initialize", func(t *testing.T) {
		cs := mustConnectMCP(t, in, pro.Test)
		ir := cs.InitializeResult()
		if ir == nil || ir.ServerInfo == nil || ir.ServerInfo.Name != "capgate" || ir.Capabilities.Tools == nil || ir.Capabilities.Resources == nil {
			t.Fatalf("initialize result %+v", ir)
		}
		if !strings.Contains(ir.Instructions, "follow_up") {
			t.Errorf("instructions do not explain follow_up: %q", ir.Instructions)
		}
	})

	t.Run("tools are filtered by the plan", func(t *testing.T) {
		proTools, freeTools := listTools(t, mustConnectMCP(t, in, pro.Test)), listTools(t, mustConnectMCP(t, in, free.Test))
		var offFree []string
		for name := range proTools {
			if _, ok := freeTools[name]; !ok {
				offFree = append(offFree, name)
			}
		}
		for name := range freeTools {
			if _, ok := proTools[name]; !ok {
				t.Errorf("the free plan lists %s, which pro does not", name)
			}
		}
		if len(offFree) == 0 {
			t.Error("the free plan lists every tool pro lists")
		}
		bs := proTools["books.search"]
		if bs == nil {
			t.Fatal("books.search is not listed for a pro test key")
		}
		schema, _ := json.Marshal(bs.InputSchema)
		if !strings.Contains(string(schema), `"query"`) || bs.Annotations == nil || !bs.Annotations.ReadOnlyHint || bs.OutputSchema == nil {
			t.Errorf("books.search: schema %s annotations %+v", schema, bs.Annotations)
		}
		if !strings.Contains(bs.Description, "Typical credits") || !strings.Contains(bs.Description, "more") {
			t.Errorf("books.search description lacks cost or paging: %q", bs.Description)
		}
	})

	t.Run("tool list and catalog agree for every seeded plan", func(t *testing.T) {
		plans, _ := d.admin(t, "plan", "list")["plans"].([]any)
		if len(plans) < 3 {
			t.Fatalf("seeded plans %v", plans)
		}
		for _, pl := range plans {
			name := str(pl.(map[string]any), "name")
			tk := d.newTenant(t, name)
			for _, key := range []string{tk.Live, tk.Test} {
				cat := in.get(t, "/v1/catalog", key).mustOK(t, "catalog")
				want := []string{"find_capabilities", "follow_up"}
				for _, c := range cat.JSON["capabilities"].([]any) {
					if cm := c.(map[string]any); cm["enabled"] == true && cm["available"] == true {
						want = append(want, str(cm, "id"))
					}
				}
				if dig(cat.JSON, "sharpen", "enabled") == true {
					want = append(want, "sharpen")
				}
				var got []string
				for n := range listTools(t, mustConnectMCP(t, in, key)) {
					got = append(got, n)
				}
				slices.Sort(want)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("plan %s key %s…: tools %v\ncatalog %v", name, key[:9], got, want)
				}
			}
		}
	})

	t.Run("call a tool and follow up on its search_id", func(t *testing.T) {
		cs := mustConnectMCP(t, in, pro.Test)
		first := structuredOf(t, callTool(t, cs, "books.search", map[string]any{"query": "dune", "num": 2}))
		sid := str(first, "search_id")
		if !strings.HasPrefix(sid, "srch_") || first["has_more"] != true {
			t.Fatalf("books.search result %v", first)
		}
		more := structuredOf(t, callTool(t, cs, "follow_up", map[string]any{"search_id": sid, "action": "more"}))
		if str(more, "search_id") != sid {
			t.Errorf("follow_up more: search_id %v, want %s", more["search_id"], sid)
		}
		a := in.get(t, "/v1/account", pro.Test).mustOK(t, "account")
		if used, _ := num(a.JSON, "credits", "used"); used != 0 {
			t.Errorf("free sandbox calls moved the balance to %v", used)
		}
	})

	t.Run("validation error with violations", func(t *testing.T) {
		res := callTool(t, mustConnectMCP(t, in, pro.Test), "books.search", map[string]any{"query": "dune", "nope": 1})
		e := toolEnvelope(t, res)
		vs, _ := e["violations"].([]any)
		if e["code"] != "invalid_request" || len(vs) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "invalid_request (HTTP 400)") {
			t.Errorf("envelope %v", e)
		}
	})

	t.Run("402 when the credits run out", func(t *testing.T) {
		d.admin(t, "plan", "create", "--name", "e2e-mcp-broke", "--cap", "0", "--rate", "100")
		tk := d.newTenant(t, "e2e-mcp-broke")
		path, body, typical := paidSandboxCall(t, in, tk.Test)
		if typical == 0 {
			t.Fatal("no paid capability is available in the sandbox")
		}
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/v1/capabilities/"), "/execute")
		res := callTool(t, mustConnectMCP(t, in, tk.Test), id, body)
		if e := toolEnvelope(t, res); e["code"] != "credits_exhausted" || res.Meta["http_status"] != 402.0 {
			t.Errorf("%s on a cap of 0: %v meta %v", id, e, res.Meta)
		}
	})

	t.Run("429 with a retry hint", func(t *testing.T) {
		d.admin(t, "plan", "create", "--name", "e2e-mcp-slow", "--rate", "3")
		tk := d.newTenant(t, "e2e-mcp-slow")
		cs := mustConnectMCP(t, in, tk.Test)
		// A tools/call counts once, by its /v1 call, so the refusal is a tool error, never a
		// transport failure; three requests a minute run out within three calls.
		for i := 0; i < 4; i++ {
			res := callTool(t, cs, "books.search", map[string]any{"query": "emma"})
			if !res.IsError {
				continue
			}
			e := toolEnvelope(t, res)
			ra, _ := res.Meta["retry_after"].(float64)
			if e["code"] != "rate_limited" || e["retryable"] != true || ra < 1 || ra > 60 ||
				!strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Retry after") {
				t.Errorf("call %d: envelope %v meta %v text %q", i+1, e, res.Meta, res.Content[0].(*mcp.TextContent).Text)
			}
			return
		}
		t.Error("four tool calls on a plan of three requests a minute were all admitted")
	})

	t.Run("401 without a key", func(t *testing.T) {
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
		for _, key := range []string{"", "cap_test_00000000000000000000000000000000"} {
			r := in.call(t, http.MethodPost, "/mcp", key, init, "Accept", "application/json, text/event-stream")
			requireEnvelope(t, r, http.StatusUnauthorized, "unauthorized")
		}
		if _, err := connectMCP(t, in, ""); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("connecting without a key: %v, want Unauthorized", err)
		}
	})
}

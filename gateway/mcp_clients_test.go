package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/gateway/gatewaytest"
)

// TestMCPToolSchemasAreSelfContainedObjects: every listed tool's inputSchema and outputSchema is
// one object schema with "type": "object" at the top and no reference left to resolve (the
// TypeScript SDK refuses the tool list otherwise, issue 32).
func TestMCPToolSchemasAreSelfContainedObjects(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	cs, err := mcpSession(t, e, e.TestKey)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) < 30 {
		t.Fatalf("%d tools listed", len(res.Tools))
	}
	for _, tl := range res.Tools {
		for kind, sch := range map[string]any{"inputSchema": tl.InputSchema, "outputSchema": tl.OutputSchema} {
			b, _ := json.Marshal(sch)
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil || m["type"] != "object" {
				t.Errorf("%s %s: top-level type %v, want \"object\"", tl.Name, kind, m["type"])
			}
			if strings.Contains(string(b), `"$ref"`) || strings.Contains(string(b), `"$defs"`) {
				t.Errorf("%s %s keeps references: %.300s", tl.Name, kind, b)
			}
		}
		// Every tool only reads; all but find_capabilities (the gateway's own catalog) reach the open world.
		openWorld := tl.Name != "find_capabilities"
		if tl.Title == "" || tl.Annotations == nil || !tl.Annotations.ReadOnlyHint || tl.Annotations.OpenWorldHint == nil || *tl.Annotations.OpenWorldHint != openWorld {
			t.Errorf("%s: title %q annotations %+v", tl.Name, tl.Title, tl.Annotations)
		}
	}
}

// TestMCPResultTextStandsAlone: the first text block of a search and of a record action carries
// the records or the detail, not only a status line.
func TestMCPResultTextStandsAlone(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	cs, err := mcpSession(t, e, e.TestKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sr, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "books.search", Arguments: map[string]any{"query": "dune", "num": 2}})
	if err != nil || sr.IsError {
		t.Fatalf("books.search: %v %+v", err, sr)
	}
	var first struct {
		Results []map[string]any `json:"results"`
	}
	b, _ := json.Marshal(sr.StructuredContent)
	if err := json.Unmarshal(b, &first); err != nil || len(first.Results) == 0 {
		t.Fatalf("structuredContent %s", b)
	}
	rec := first.Results[0]
	head := sr.Content[0].(*mcp.TextContent).Text
	for _, want := range []string{rec["record_id"].(string), rec["title"].(string), `"authors"`, "follow_up"} {
		if !strings.Contains(head, want) {
			t.Errorf("search text lacks %q:\n%s", want, head)
		}
	}
	dr, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "follow_up", Arguments: map[string]any{"record_id": rec["record_id"], "action": "details"}})
	if err != nil || dr.IsError {
		t.Fatalf("details: %v %+v", err, dr)
	}
	var detail struct {
		Detail map[string]any `json:"detail"`
	}
	b, _ = json.Marshal(dr.StructuredContent)
	if err := json.Unmarshal(b, &detail); err != nil || len(detail.Detail) == 0 {
		t.Fatalf("details structuredContent %s", b)
	}
	head = dr.Content[0].(*mcp.TextContent).Text
	if strings.Contains(head, " done") || len(head) < 200 {
		t.Errorf("the details text does not stand alone:\n%s", head)
	}
	for k := range detail.Detail {
		if !strings.Contains(head, `"`+k+`"`) {
			t.Errorf("details text lacks the field %q:\n%.500s", k, head)
		}
	}
	if len(dr.Content) != 2 || dr.Content[1].(*mcp.TextContent).Text != string(b) && !json.Valid([]byte(dr.Content[1].(*mcp.TextContent).Text)) {
		t.Errorf("the second block is not the response JSON")
	}
}

// TestMCPOriginAndHost: /mcp refuses a forged Host or a foreign browser Origin with 403 before
// authentication (DNS rebinding protection of the MCP transport) and accepts loopback, the public
// URL and configured entries.
func TestMCPOriginAndHost(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{MCPAllowedHosts: []string{"mcp.example.net"}})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, c := range []struct {
		name, host, origin string
		status             int
	}{
		{"loopback host, no origin", "127.0.0.1:8080", "", 200},
		{"localhost host and origin", "localhost:3000", "http://localhost:3000", 200},
		{"IPv6 loopback", "[::1]:8080", "http://[::1]:8080", 200},
		{"configured host", "mcp.example.net", "", 200},
		{"configured host with a port", "mcp.example.net:8443", "", 200},
		{"forged host", "evil.example.com", "", 403},
		{"forged host and origin", "evil.example.com", "http://evil.example.com", 403},
		{"loopback host, foreign origin", "127.0.0.1:8080", "http://evil.example.com", 403},
		{"loopback host, null origin", "127.0.0.1:8080", "null", 403},
		{"loopback host, origin with a path", "127.0.0.1:8080", "http://localhost/x", 403},
		{"lookalike host", "localhost.evil.example.com", "", 403},
		{"userinfo trick", "127.0.0.1:8080", "http://localhost@evil.example.com", 403},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, "http://"+c.host+"/mcp", strings.NewReader(init))
			req.Host = c.host
			req.Header.Set("Authorization", "Bearer "+e.TestKey)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			res, err := e.Server.App().Test(req, 60_000)
			if err != nil {
				t.Fatal(err)
			}
			var env struct {
				Error struct {
					Code string `json:"code"`
				} `json:"error"`
			}
			_ = json.NewDecoder(res.Body).Decode(&env)
			res.Body.Close()
			if res.StatusCode != c.status || (c.status == 403 && env.Error.Code != "unauthorized") {
				t.Errorf("host %q origin %q: %d %q, want %d", c.host, c.origin, res.StatusCode, env.Error.Code, c.status)
			}
		})
	}
}

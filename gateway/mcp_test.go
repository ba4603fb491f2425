package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
// catalog offers a sharpen stage.
func TestMCPToolsAgreeWithCatalog(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	for _, plan := range tenants.DefaultPlans() {
		t.Run(plan.ID, func(t *testing.T) {
			_, live, test := e.NewTenant(plan.ID)
			for mode, key := range map[string]string{"live": live, "test": test} {
				cat := e.Do(http.MethodGet, "/v1/catalog", key, nil)
				want := []string{"follow_up"}
				for _, c := range cat.JSON["capabilities"].([]any) {
					cm := c.(map[string]any)
					if cm["enabled"] == true && cm["available"] == true {
						want = append(want, gateway.ToolName(cm["id"].(string)))
					}
				}
				if stages, _ := cat.JSON["sharpen"].(map[string]any)["stages"].([]any); len(stages) > 0 {
					want = append(want, "sharpen")
				}
				slices.Sort(want)
				cs, err := mcpSession(t, e, key)
				if err != nil {
					t.Fatal(err)
				}
				if got := toolNames(t, cs); !slices.Equal(got, want) {
					t.Errorf("%s key: tools %v\nwant the catalog's %v", mode, got, want)
				}
			}
		})
	}
}

func TestMCPCallRunsTheV1Path(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	cs, err := mcpSession(t, e, e.TestKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "books.search", Arguments: map[string]any{"query": "dune", "num": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("tool error: %v", res.Content)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var er struct {
		SearchID string `json:"search_id"`
	}
	_ = json.Unmarshal(b, &er)
	if !strings.HasPrefix(er.SearchID, "srch_") {
		t.Fatalf("structuredContent %s", b)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "follow_up", Arguments: map[string]any{"search_id": er.SearchID, "action": "more"}})
	if err != nil || res.IsError {
		t.Fatalf("follow_up: %v %v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "books.search", Arguments: map[string]any{"query": 7}})
	if err != nil || !res.IsError {
		t.Fatalf("invalid: %v %v", err, res)
	}
	t.Log(res.Content[0].(*mcp.TextContent).Text)
}

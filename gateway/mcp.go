package gateway

// The Model Context Protocol endpoint (issue 19): POST /mcp serves the Streamable HTTP transport
// of the official Go SDK, stateless and with JSON responses, so one fiber request is one MCP
// message and one answer (nothing streams through the fasthttp bridge, no Mcp-Session-Id).
//
// Every tool call and every read-only document is dispatched in-process through the app's own
// handler chain as a synthetic /v1 request carrying the caller's key, so an MCP call runs exactly
// the /v1 path (validation, rate limit, credits, idempotency, sessions, breakers) whatever those
// handlers become.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
	"github.com/valyala/fasthttp"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// Tool names besides the capabilities (capability ids contain a dot, so they never collide).
const (
	followUpTool = "follow_up"
	sharpenTool  = "sharpen"
)

// IdempotencyMetaKey is the tools/call _meta key whose string value is sent as the Idempotency-Key
// of the /v1 call (the host's retry of a tool call then replays instead of charging again).
const IdempotencyMetaKey = "idempotency_key"

// Resource URIs: the guide and one inspect document per capability.
const (
	guideURI           = "capgate://guide"
	capabilityURIStart = "capgate://capabilities/"
)

const mcpInstructions = "Each capability is a tool taking its typed request body; a result is the ExecuteResponse " +
	"(results, has_more, next.example, record_actions, charged_credits, balance). Continue with the follow_up tool: " +
	"{search_id, action: \"more\"} while has_more (stop after a bounded number of pages), {search_id, action: \"update\", params} " +
	"to change the query, {record_id, action} for a record action such as details. A failed call is a tool error whose " +
	"content is the error envelope {code, message, retryable, hint, violations}; retry only when retryable is true, after the " +
	"retry_after seconds in the result's _meta; a page's _meta.cache says what the shared upstream cache did (hit, miss, coalesced, bypass) and _meta.age its age in seconds. The resource " + guideURI + " is the full guide."

// mcpGuide is the guide's section on MCP (appended by Guide).
const mcpGuide = `
## Connecting an agent (MCP)
` + "`POST /mcp`" + ` serves the same API over the Model Context Protocol (Streamable HTTP, stateless, JSON responses) with
the same ` + "`Authorization: Bearer`" + ` key; a missing or bad key answers 401 with the error envelope. Hosts connect by
URL with the key as a header, for example ` + "`claude mcp add --transport http capgate <base URL>/mcp --header \"Authorization: Bearer cap_…\"`" + `
(Cursor and VS Code: an ` + "`http`" + ` server with ` + "`url`" + ` and ` + "`headers`" + `). A host that supports MCP's OAuth sign-in
needs only the URL: the 401 carries ` + "`WWW-Authenticate: Bearer resource_metadata=\"…\"`" + `, the account owner signs in to the
console and picks the mode (test or live) and the capabilities the host may use, and the host's access token works
like a key limited to that grant (revocable on the console's API keys page).

- ` + "`tools/list`" + `: one tool per capability your plan enables and this deployment makes available for the key's mode
  (the catalog's ` + "`enabled`" + ` and ` + "`available`" + `), named by its id, with the request JSON Schema as ` + "`inputSchema`" + `; plus
  ` + "`follow_up`" + ` (the follow-up body) and, when sharpen is on (the catalog's ` + "`sharpen.enabled`" + `), ` + "`sharpen`" + `.
- ` + "`tools/call`" + ` runs exactly ` + "`POST /v1/capabilities/{id}/execute`" + `, ` + "`/v1/follow-up`" + ` or ` + "`/v1/sharpen`" + `: the result's
  ` + "`structuredContent`" + ` is the response; its first text block stands alone (the records, or a record action's
  detail, in compact form, and the next step), the second is the response JSON. An error is a tool result with
  ` + "`isError: true`" + ` whose text is the error envelope (code, message, hint, violations); ` + "`_meta.retry_after`" + ` carries
  Retry-After. Send ` + "`_meta: {\"idempotency_key\": \"…\"}`" + ` on a call to make its retry replay instead of charging again.
- Fewer tools: ` + "`find_capabilities`" + ` (always listed) takes words and answers the matching capability ids and summaries
  this key may use. ` + "`/mcp?tools=web.search,weather.forecast`" + ` and/or ` + "`?topics=dev`" + ` narrow the tool list (never widen
  it); a key created with a scope (console or ` + "`gateway admin key create --capabilities … --topics …`" + `) lists and runs only
  those capabilities, and a call outside answers ` + "`capability_disabled`" + ` naming the scope.
- Resources: ` + "`capgate://guide`" + ` (this guide) and ` + "`capgate://capabilities/{id}`" + ` (each inspect document).
- Each MCP message counts as one request against your rate limit; a tool call counts once, as its /v1 call.
`

// ToolName is the MCP tool name of a capability id: the id itself, with any character outside the
// protocol's tool-name alphabet (A-Z a-z 0-9 _ - .) mapped to "_". Today's ids need no mapping.
func ToolName(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, id)
}

// mcpEndpoint serves /mcp for one Server.
type mcpEndpoint struct {
	s      *Server
	http   *mcp.StreamableHTTPHandler
	byName map[string]*providers.Capability // tool name → capability

	once     sync.Once
	dispatch fasthttp.RequestHandler // the app's handler chain, taken once routes are built
	tools    map[string]*mcp.Tool    // by name: capabilities, follow_up, sharpen
}

// mcpMessage is what the gateway reads of a JSON-RPC message before the SDK does.
type mcpMessage struct {
	Method string
	ID     jsonrpc.ID // of a request; invalid for a notification
	Params struct {
		Name string `json:"name"` // of tools/call
	} `json:"params"`
}

// mcpCall is one POST /mcp of an authenticated caller: what its server and dispatches need.
type mcpCall struct {
	auth    string // the caller's Authorization header, reused on /v1 dispatches
	host    string
	rid     string
	msg     mcpMessage
	catalog *mcpCatalog   // tools/list only
	filter  tenants.Scope // the URL's narrowing filter (mcp_scope.go)
	p       *Principal    // the authenticated caller

	once   sync.Once
	server *mcp.Server

	mu        sync.Mutex
	rateLimit [][2]string // RateLimit-* of the tool call's /v1 request, for the /mcp response
}

type mcpCallKey struct{}

// mcpCatalog is the part of GET /v1/catalog that decides the tool list.
type mcpCatalog struct {
	Capabilities []struct {
		ID        string `json:"id"`
		Topic     string `json:"topic"`
		Enabled   bool   `json:"enabled"`
		Available bool   `json:"available"`
	} `json:"capabilities"`
	Sharpen struct {
		Enabled bool `json:"enabled"`
	} `json:"sharpen"`
}

const (
	mcpMessageLocal = "mcp_message"
	toolCallMethod  = "tools/call"
	toolListMethod  = "tools/list"
)

// newMCPEndpoint builds the endpoint; a capability id that maps onto another's tool name is a
// registry error caught at startup.
func (s *Server) newMCPEndpoint() *mcpEndpoint {
	e := &mcpEndpoint{s: s, byName: map[string]*providers.Capability{}}
	for _, cp := range s.order {
		name := ToolName(cp.ID)
		if _, dup := e.byName[name]; dup || name == followUpTool || name == sharpenTool || name == findTool {
			panic("gateway: capability " + cp.ID + " maps to the taken MCP tool name " + name)
		}
		e.byName[name] = cp
	}
	e.http = mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		call, _ := r.Context().Value(mcpCallKey{}).(*mcpCall)
		if call == nil {
			return nil
		}
		call.once.Do(func() { call.server = e.serverFor(call) })
		return call.server
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: maxBody})
	return e
}

// mcpMessageRate reads the JSON-RPC message of an authenticated caller (it runs after
// authenticate: nothing parses a body before the caller is known). A tools/call is counted
// against the rate limit by the /v1 request it dispatches (so its 429 reaches the agent as a tool
// error with the retry hint), not twice; every other message counts as one request. A JSON-RPC
// batch is refused for every protocol version (2025-06-18 removed them; under 2025-03-26 one
// POST of 2,000 messages would have counted as one request and answered 62 MB).
func (s *Server) mcpMessageRate(c *fiber.Ctx) error {
	body := c.BodyRaw()
	if c.Method() == fiber.MethodPost && isJSONArray(body) {
		return &Error{Code: providers.CodeInvalidRequest, Message: "JSON-RPC batches are not accepted: send one message per request",
			Hint: "POST each JSON-RPC message on its own; each counts once against the rate limit"}
	}
	msg := decodeMCPMessage(body)
	c.Locals(mcpMessageLocal, msg)
	if c.Method() == fiber.MethodPost && msg.Method == toolCallMethod {
		c.Locals(rateCountedLocal, true)
	}
	return c.Next()
}

// isJSONArray reports whether a body's first non-blank byte opens a JSON array.
func isJSONArray(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// decodeMCPMessage reads a message exactly as the SDK will: its own JSON-RPC decoder, and the
// params with the same case-sensitive decoder (segmentio's, with case-insensitive field matching
// off, as the SDK's internal json package configures it). encoding/json would match "Method" to
// "method", so a message holding both could be counted as one method and run as another. A
// message that does not decode yields the zero value: the SDK answers it with its own error.
func decodeMCPMessage(body []byte) mcpMessage {
	var msg mcpMessage
	m, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return msg
	}
	req, ok := m.(*jsonrpc.Request)
	if !ok {
		return msg
	}
	msg.Method = req.Method
	msg.ID = req.ID
	if req.Method == toolCallMethod && len(req.Params) > 0 {
		dec := segjson.NewDecoder(bytes.NewReader(req.Params))
		dec.DontMatchCaseInsensitiveStructFields()
		_ = dec.Decode(&msg.Params) // the SDK refuses params that do not decode
	}
	return msg
}

// serve answers /mcp for an authenticated caller.
func (e *mcpEndpoint) serve(c *fiber.Ctx) error {
	e.once.Do(e.prepare)
	msg, _ := c.Locals(mcpMessageLocal).(mcpMessage)
	call := &mcpCall{auth: c.Get(fiber.HeaderAuthorization), host: c.Get(fiber.HeaderHost), rid: requestID(c), msg: msg, p: principalOf(c)}
	var err error
	if call.filter, err = e.mcpFilter(c); err != nil {
		return err
	}
	if msg.Method == toolListMethod {
		// The tool list is the catalog as this key sees it; its failure is the catalog's error.
		r := e.get("/v1/catalog", call)
		if r.status != http.StatusOK {
			return r.err()
		}
		call.catalog = &mcpCatalog{}
		if err := json.Unmarshal(r.body, call.catalog); err != nil {
			return fmt.Errorf("mcp: decoding the catalog: %w", err)
		}
	}
	req, err := adaptor.ConvertRequest(c, true)
	if err != nil {
		return err
	}
	req = req.WithContext(context.WithValue(c.UserContext(), mcpCallKey{}, call))
	w := bufferedResponse{limit: maxMCPAnswer}
	e.http.ServeHTTP(&w, req)
	if w.overflow {
		return mcpTooLarge(c, msg.ID)
	}
	status := w.statusCode()
	// The SDK answers transport errors (405, 415, 406, 413, 400) in plain text; they leave as the envelope.
	if status >= 400 && !strings.HasPrefix(w.header.Get(fiber.HeaderContentType), fiber.MIMEApplicationJSON) {
		if allow := w.header.Get(fiber.HeaderAllow); allow != "" {
			c.Set(fiber.HeaderAllow, allow)
		}
		if status >= 500 {
			return fmt.Errorf("mcp transport: %d %s", status, strings.TrimSpace(w.body.String()))
		}
		return &Error{Code: providers.CodeInvalidRequest, Status: status, Message: "MCP transport: " + strings.TrimSpace(w.body.String()),
			Hint: "POST JSON-RPC messages with Content-Type: application/json and Accept: application/json, text/event-stream"}
	}
	for k, vs := range w.header {
		for _, v := range vs {
			c.Response().Header.Add(k, v)
		}
	}
	call.mu.Lock()
	for _, h := range call.rateLimit {
		c.Set(h[0], h[1])
	}
	call.mu.Unlock()
	return c.Status(status).Send(w.body.Bytes())
}

// prepare takes the handler chain and builds the static tools on the first request, when every
// route and OpenAPI schema is registered.
func (e *mcpEndpoint) prepare() {
	e.dispatch = e.s.app.Handler()
	var doc struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	b, err := e.s.openapiDoc()
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil {
		panic("gateway: the OpenAPI document does not decode: " + err.Error())
	}
	schemas := doc.Components.Schemas
	yes := true
	annotations := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &yes}
	e.tools = map[string]*mcp.Tool{}
	execOut := rawJSON(toolSchema(schemas, ref("ExecuteResponse")))
	for name, cp := range e.byName {
		e.tools[name] = &mcp.Tool{Name: name, Title: cp.Title, Description: toolDescription(cp),
			InputSchema: rawJSON(cp.Schema().Doc), OutputSchema: execOut, Annotations: annotations}
	}
	e.tools[followUpTool] = &mcp.Tool{Name: followUpTool, Title: "Follow up on a search or a record",
		Description: "Continue a search or act on one record, exactly like POST /v1/follow-up. " +
			"{search_id, action: \"more\"} fetches the next page while has_more is true; {search_id, action: \"update\", params} merges params " +
			"into the stored query (null removes a field) and runs it again; {record_id, action} runs an action listed in record_actions " +
			"(for example details). next.example in every search result is a valid body. Search-scope results are an ExecuteResponse, " +
			"record-scope results a RecordFollowUpResponse.",
		InputSchema:  rawJSON(schemas["FollowUpRequest"]),
		OutputSchema: rawJSON(toolSchema(schemas, map[string]any{"type": "object", "oneOf": []any{ref("ExecuteResponse"), ref("RecordFollowUpResponse")}})),
		Annotations:  annotations}
	e.tools[sharpenTool] = &mcp.Tool{Name: sharpenTool, Title: "Sharpen: second-opinion review of a draft answer",
		Description: "Have a model of another vendor review a draft answer, exactly like POST /v1/sharpen. Give the task, the draft, " +
			"caller_provider (your own model vendor, so the reviewer comes from another family) and optionally context, approach and a " +
			fmt.Sprintf("per-call stage. Typical credits by tier: sharpen %d, plus %d, ultra %d, ultra2x %d.",
				TierCredits["sharpen"], TierCredits["plus"], TierCredits["ultra"], TierCredits["ultra2x"]),
		InputSchema: rawJSON(schemas["SharpenRequest"]), OutputSchema: rawJSON(toolSchema(schemas, ref("SharpenResponse"))), Annotations: annotations}
}

// rawJSON encodes a schema once: the SDK then copies bytes instead of re-encoding a map on every
// tools/list.
func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("gateway: a tool schema does not encode: " + err.Error())
	}
	return b
}

// toolDescription is what an agent reads to choose a tool: inspect's description, cost, paging
// kind and follow-ups.
func toolDescription(cp *providers.Capability) string {
	in := Inspect(cp, true, "")
	var b strings.Builder
	b.WriteString(strings.TrimSpace(in.Description))
	fmt.Fprintf(&b, "\n\nTypical credits: %d (%s).\nPaging: %s.", in.Cost.TypicalCredits, strings.TrimSuffix(strings.TrimSpace(in.Cost.Basis), "."), cp.Paging.Label())
	for _, f := range in.FollowUps {
		scope := "record_id"
		if f.Scope == "search" {
			scope = "search_id"
		}
		fmt.Fprintf(&b, "\nfollow_up {%s, action: %q}: %s.", scope, f.Action, f.Description)
	}
	return b.String()
}

// serverFor builds the MCP server one message needs: the plan's tools for tools/list, the named
// tool for tools/call (the /v1 call itself refuses a capability off the plan), and the resources.
func (e *mcpEndpoint) serverFor(call *mcpCall) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "capgate", Title: "capgate", Version: e.s.opts.Version}, &mcp.ServerOptions{
		Instructions: mcpInstructions,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
	})
	switch call.msg.Method {
	case toolListMethod:
		for _, c := range call.catalog.Capabilities {
			if c.Enabled && c.Available && call.filter.Allows(c.ID, c.Topic) {
				e.addTool(srv, call, ToolName(c.ID))
			}
		}
		e.addTool(srv, call, followUpTool)
		e.addFindTool(srv, call)
		if call.catalog.Sharpen.Enabled && e.filterAllows(call, sharpenTool) {
			e.addTool(srv, call, sharpenTool)
		}
	case toolCallMethod:
		e.addCallTool(srv, call, call.msg.Params.Name)
	default:
		e.addResources(srv, call)
	}
	return srv
}

func (e *mcpEndpoint) addTool(srv *mcp.Server, call *mcpCall, name string) {
	t, ok := e.tools[name]
	if !ok {
		return // the SDK answers an unknown tool
	}
	var path string
	switch name {
	case followUpTool:
		path = "/v1/follow-up"
	case sharpenTool:
		path = "/v1/sharpen"
	default:
		path = "/v1/capabilities/" + e.byName[name].ID + "/execute"
	}
	srv.AddTool(t, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		body := []byte(req.Params.Arguments)
		if len(bytes.TrimSpace(body)) == 0 {
			body = []byte("{}")
		}
		idem, _ := req.Params.Meta[IdempotencyMetaKey].(string)
		r := e.post(path, body, idem, call)
		call.mu.Lock()
		call.rateLimit = r.rateLimit
		call.mu.Unlock()
		return r.toolResult(), nil
	})
}

func (e *mcpEndpoint) addResources(srv *mcp.Server, call *mcpCall) {
	srv.AddResource(&mcp.Resource{URI: guideURI, Name: "guide", Title: "capgate API guide", MIMEType: "text/markdown",
		Description: "The Markdown guide for applications and AI agents (GET /v1/guide)."},
		e.readResource(call, "/v1/guide", "text/markdown"))
	for _, cp := range e.s.order {
		if call.p != nil && !call.p.InScope(cp) {
			continue // outside the key's scope (scope.go)
		}
		srv.AddResource(&mcp.Resource{URI: capabilityURIStart + cp.ID, Name: cp.ID, Title: cp.Title, MIMEType: "application/json",
			Description: "Inspect document of " + cp.ID + " (GET /v1/capabilities/" + cp.ID + "): " + cp.Summary},
			e.readResource(call, "/v1/capabilities/"+cp.ID, "application/json"))
	}
}

func (e *mcpEndpoint) readResource(call *mcpCall, path, mime string) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		r := e.get(path, call)
		if r.status != http.StatusOK {
			return nil, errors.New(r.errorText())
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: string(r.body)}}}, nil
	}
}

// v1Reply is the answer of a dispatched /v1 request.
type v1Reply struct {
	status     int
	body       []byte
	retryAfter string
	rateLimit  [][2]string
	cache, age string // Capgate-Cache and Age of a page (the shared upstream cache)
}

// get dispatches a read-only /v1 request; the MCP message already counted against the rate.
func (e *mcpEndpoint) get(path string, call *mcpCall) v1Reply {
	return e.do(fiber.MethodGet, path, nil, "", call, true)
}

// post dispatches a /v1 call that runs the full path, its own rate-limit count included.
func (e *mcpEndpoint) post(path string, body []byte, idem string, call *mcpCall) v1Reply {
	return e.do(fiber.MethodPost, path, body, idem, call, false)
}

func (e *mcpEndpoint) do(method, path string, body []byte, idem string, call *mcpCall, counted bool) v1Reply {
	var req fasthttp.Request
	req.Header.SetMethod(method)
	req.SetRequestURI(path)
	req.Header.SetHost(call.host)
	req.Header.Set(fiber.HeaderAuthorization, call.auth)
	req.Header.Set(fiber.HeaderXRequestID, call.rid)
	if body != nil {
		req.Header.SetContentType(fiber.MIMEApplicationJSON)
		req.SetBody(body)
	}
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, nil, nil)
	if counted {
		ctx.SetUserValue(rateCountedLocal, true)
	}
	ctx.SetUserValue(mcpDispatchLocal, true)
	e.dispatch(&ctx)
	r := v1Reply{status: ctx.Response.StatusCode(), body: append([]byte(nil), ctx.Response.Body()...),
		retryAfter: string(ctx.Response.Header.Peek(fiber.HeaderRetryAfter)),
		cache:      string(ctx.Response.Header.Peek(CacheHeader)), age: string(ctx.Response.Header.Peek(fiber.HeaderAge))}
	for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
		if v := ctx.Response.Header.Peek(h); len(v) > 0 {
			r.rateLimit = append(r.rateLimit, [2]string{h, string(v)})
		}
	}
	return r
}

// err is a failed read-only dispatch as the error the /mcp request answers with.
func (r v1Reply) err() error {
	var env envelope
	if json.Unmarshal(r.body, &env) != nil || env.Error.Code == "" {
		return fmt.Errorf("mcp: /v1 answered %d without an envelope", r.status)
	}
	e := &Error{Code: env.Error.Code, Message: env.Error.Message, Hint: env.Error.Hint, Violations: env.Error.Violations, Status: r.status}
	if n, err := strconv.Atoi(r.retryAfter); err == nil {
		e.RetryAfter = time.Duration(n) * time.Second
	}
	return e
}

// errorText is one line for the agent: code, status, message, hint and the retry delay.
func (r v1Reply) errorText() string {
	var env envelope
	if json.Unmarshal(r.body, &env) != nil || env.Error.Code == "" {
		return fmt.Sprintf("HTTP %d", r.status)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (HTTP %d): %s", env.Error.Code, r.status, env.Error.Message)
	for _, v := range env.Error.Violations {
		fmt.Fprintf(&b, "\n- %s: %s", v.Path, v.Message)
	}
	if env.Error.Hint != "" {
		fmt.Fprintf(&b, "\nHint: %s", env.Error.Hint)
	}
	if r.retryAfter != "" {
		fmt.Fprintf(&b, "\nRetry after %s seconds.", r.retryAfter)
	} else if env.Error.Retryable {
		b.WriteString("\nRetryable.")
	} else {
		b.WriteString("\nNot retryable as is.")
	}
	return b.String()
}

// toolResult is a /v1 answer as a tool result: 2xx carries the response as structuredContent and
// as text (for hosts that read only text), an error the envelope with isError.
func (r v1Reply) toolResult() *mcp.CallToolResult {
	meta := mcp.Meta{"http_status": r.status}
	if n, err := strconv.Atoi(r.retryAfter); err == nil {
		meta["retry_after"] = n
	}
	if r.cache != "" { // what the shared upstream cache did, as the HTTP headers say it
		meta["cache"] = r.cache
		if n, err := strconv.Atoi(r.age); err == nil {
			meta["age"] = n
		}
	}
	if r.status >= 300 {
		return &mcp.CallToolResult{IsError: true, Meta: meta, Content: []mcp.Content{
			&mcp.TextContent{Text: r.errorText()}, &mcp.TextContent{Text: string(r.body)}}}
	}
	return &mcp.CallToolResult{Meta: meta, StructuredContent: json.RawMessage(r.body), Content: []mcp.Content{
		&mcp.TextContent{Text: renderResult(r.body)}, &mcp.TextContent{Text: string(r.body)}}}
}

// bufferedResponse collects the SDK's answer (JSON responses only, so nothing needs to stream).
type bufferedResponse struct {
	header   http.Header
	status   int
	body     bytes.Buffer
	limit    int  // the most bytes kept; 0 keeps everything
	overflow bool // a write went past limit: the body was dropped
}

func (w *bufferedResponse) Header() http.Header {
	if w.header == nil {
		w.header = http.Header{}
	}
	return w.header
}

func (w *bufferedResponse) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *bufferedResponse) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.overflow {
		return 0, errAnswerTooLarge
	}
	if w.limit > 0 && w.body.Len()+len(p) > w.limit {
		w.overflow = true
		w.body = bytes.Buffer{} // release what was kept
		return 0, errAnswerTooLarge
	}
	return w.body.Write(p)
}

// maxMCPAnswer bounds one buffered MCP answer: the largest legitimate one (the guide, a 100-record
// page) is a few hundred KB.
const maxMCPAnswer = 4 << 20

var errAnswerTooLarge = errors.New("mcp: the answer exceeds its size limit")

// mcpTooLarge answers a message whose answer went past maxMCPAnswer with a JSON-RPC error
// (internal error code, the request's id) instead of the answer.
func mcpTooLarge(c *fiber.Ctx, id jsonrpc.ID) error {
	resp := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("the answer is larger than %d bytes and was not sent; ask for less (a smaller limit or one resource at a time)", maxMCPAnswer)}}
	b, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Status(http.StatusOK).Send(b)
}

func (w *bufferedResponse) statusCode() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

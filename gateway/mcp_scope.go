package gateway

// Scoped tool lists on /mcp (issue 32): the key's scope already shapes the catalog the tool list
// is built from (scope.go); the MCP URL may narrow it further, never widen it:
// /mcp?tools=web.search,weather.forecast and/or ?topics=dev (a capability is kept when it is named
// or its topic is). follow_up and find_capabilities are always listed; find_capabilities lets a
// host start with few tools and look the others up by words.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

const findTool = "find_capabilities"

// mcpFilter reads the URL's narrowing filter; an unknown tool or topic is refused, since a typo
// would otherwise silently hide every tool.
func (e *mcpEndpoint) mcpFilter(c *fiber.Ctx) (tenants.Scope, error) {
	f, err := tenants.ParseScope(c.Query("tools"), c.Query("topics"))
	if err != nil {
		return f, &Error{Code: providers.CodeInvalidRequest, Message: "the /mcp URL's filter: " + err.Error(),
			Hint: "narrow the tool list with ?tools=web.search,weather.forecast and/or ?topics=dev"}
	}
	topics := map[string]bool{}
	for _, cp := range e.s.order {
		topics[tenants.TopicKey(cp.Topic)] = true
	}
	for _, name := range f.Capabilities {
		if _, ok := e.byName[name]; !ok && name != sharpenTool {
			return f, &Error{Code: providers.CodeInvalidRequest, Message: fmt.Sprintf("the /mcp URL names the unknown tool %q in ?tools=", name),
				Violations: []providers.Violation{{Path: "", Message: "tools: unknown tool " + name}},
				Hint:       "?tools= takes capability ids (GET /v1/catalog) and sharpen; follow_up and find_capabilities are always listed"}
		}
	}
	for _, t := range f.Topics {
		if !topics[t] {
			return f, &Error{Code: providers.CodeInvalidRequest, Message: fmt.Sprintf("the /mcp URL names the unknown topic %q in ?topics=", t),
				Violations: []providers.Violation{{Path: "", Message: "topics: unknown topic " + t}},
				Hint:       "topics are the catalog's topic values, lower case with dashes: " + strings.Join(slices.Sorted(mapKeys(topics)), ", ")}
		}
	}
	return f, nil
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// filterAllows tells whether the connection's URL filter keeps the tool.
func (e *mcpEndpoint) filterAllows(call *mcpCall, name string) bool {
	switch name {
	case followUpTool, findTool:
		return true
	case sharpenTool:
		return call.filter.Allows(tenants.SharpenScopeID, "")
	}
	cp, ok := e.byName[name]
	return !ok || call.filter.Allows(cp.ID, cp.Topic) // an unknown name is the SDK's to refuse
}

// addCallTool registers the tool a tools/call names, or, when the URL filter leaves it out, a tool
// answering capability_disabled naming the filter (never the capability itself).
func (e *mcpEndpoint) addCallTool(srv *mcp.Server, call *mcpCall, name string) {
	if name == findTool {
		e.addFindTool(srv, call)
		return
	}
	if e.filterAllows(call, name) {
		e.addTool(srv, call, name)
		return
	}
	t, ok := e.tools[name]
	if !ok {
		return
	}
	srv.AddTool(t, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// A tools/call counts by the /v1 call it runs; this one runs none, so it counts here.
		if err := e.countCall(ctx, call); err != nil {
			return errorResult(err, call.rid), nil
		}
		err := &Error{Code: providers.CodeCapabilityDisabled, Message: name + " is outside this connection's tool filter",
			Hint: "this /mcp URL is narrowed to " + call.filter.String() + "; connect without the filter or add " + name + " to ?tools="}
		return errorResult(err, call.rid), nil
	})
}

// countCall counts a tools/call that dispatches no /v1 request against the plan's rate.
func (e *mcpEndpoint) countCall(ctx context.Context, call *mcpCall) *Error {
	if call.p == nil {
		return nil
	}
	rr, err := e.s.opts.Limiter.Allow(ctx, call.p.Tenant.ID, call.p.Plan.RatePerMinute)
	if err != nil || rr.Allowed { // a limiter outage fails open, as limitRate does
		return nil
	}
	e.s.metrics.rateLimited.Inc()
	return &Error{Code: providers.CodeRateLimited, Message: "rate limit reached for this account's plan", RetryAfter: rr.RetryAfter,
		Hint: "wait for retry_after seconds"}
}

// errorResult is a gateway error as a tool error, like a /v1 error envelope.
func errorResult(err *Error, rid string) *mcp.CallToolResult {
	body, _ := json.Marshal(envelope{Error: errorBody{Code: err.Code, Message: err.Message, Retryable: err.IsRetryable(), Hint: err.Hint, RequestID: rid}})
	r := v1Reply{status: err.HTTPStatus(), body: body}
	if err.RetryAfter > 0 {
		r.retryAfter = strconv.Itoa(int(math.Ceil(err.RetryAfter.Seconds())))
	}
	return r.toolResult()
}

// find_capabilities: words in, the matching capabilities this key may use out.

type findInput struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

type findMatch struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	Summary        string `json:"summary"`
	Topic          string `json:"topic"`
	TypicalCredits int    `json:"typical_credits"`
	Listed         bool   `json:"listed"`
	Resource       string `json:"resource"`
}

type findOutput struct {
	Query   string      `json:"query"`
	Matches []findMatch `json:"matches"`
	Usable  int         `json:"usable"`
}

var findInputSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["query"],"properties":{` +
	`"query":{"type":"string","minLength":1,"maxLength":200,"description":"words describing the task, for example \"weather forecast\" or \"python package downloads\""},` +
	`"limit":{"type":"integer","minimum":1,"maximum":50,"default":10,"description":"most matches returned"}}}`)

var findOutputSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["query","matches","usable"],"properties":{` +
	`"query":{"type":"string"},"usable":{"type":"integer","minimum":0,"description":"capabilities this key may use in all"},` +
	`"matches":{"type":"array","items":{"type":"object","additionalProperties":false,` +
	`"required":["id","title","summary","topic","typical_credits","listed","resource"],"properties":{` +
	`"id":{"type":"string"},"title":{"type":"string"},"summary":{"type":"string"},"topic":{"type":"string"},` +
	`"typical_credits":{"type":"integer","minimum":0},"listed":{"type":"boolean","description":"this connection lists it as a tool"},` +
	`"resource":{"type":"string","description":"the inspect document's MCP resource"}}}}}}`)

func (e *mcpEndpoint) findToolDef() *mcp.Tool {
	yes := true
	return &mcp.Tool{Name: findTool, Title: "Find capabilities by words",
		Description: "Search the capabilities this key may use by words (ids, titles, summaries, topics and descriptions) and get the " +
			"best matches with their ids and summaries, best first. listed tells whether this connection offers the capability as a tool; " +
			"its inspect document (resource) gives the request schema. Free; no provider is called.",
		InputSchema: findInputSchema, OutputSchema: findOutputSchema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(bool), IdempotentHint: yes}}
}

func (e *mcpEndpoint) addFindTool(srv *mcp.Server, call *mcpCall) {
	srv.AddTool(e.findToolDef(), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in findInput
		dec := json.NewDecoder(strings.NewReader(string(req.Params.Arguments)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil || strings.TrimSpace(in.Query) == "" || len(in.Query) > 200 || in.Limit < 0 || in.Limit > 50 {
			return errorResult(&Error{Code: providers.CodeInvalidRequest,
				Message: "find_capabilities takes {query: 1 to 200 characters, limit: 1 to 50}"}, call.rid), nil
		}
		if in.Limit == 0 {
			in.Limit = 10
		}
		// The catalog as this key sees it (plan, mode, scope); this call is the message's one count.
		r := e.do(fiber.MethodGet, "/v1/catalog", nil, "", call, false)
		call.mu.Lock()
		call.rateLimit = r.rateLimit
		call.mu.Unlock()
		if r.status != http.StatusOK {
			return r.toolResult(), nil
		}
		var cat mcpCatalog
		if err := json.Unmarshal(r.body, &cat); err != nil {
			return nil, fmt.Errorf("mcp: decoding the catalog: %w", err)
		}
		out := e.find(call, &cat, in)
		body, _ := json.Marshal(out)
		var text strings.Builder
		fmt.Fprintf(&text, "%d of the %d capabilities this key may use match %q", len(out.Matches), out.Usable, out.Query)
		for i, m := range out.Matches {
			fmt.Fprintf(&text, "\n%d. %s (%s): %s [%d credits typical", i+1, m.ID, m.Title, m.Summary, m.TypicalCredits)
			if !m.Listed {
				text.WriteString("; not a tool on this connection")
			}
			text.WriteString("]")
		}
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(body),
			Content: []mcp.Content{&mcp.TextContent{Text: text.String()}, &mcp.TextContent{Text: string(body)}}}, nil
	})
}

// find scores every usable capability by the query's words: a word in the id or title counts 3,
// in the summary or topic 2, in the description 1.
func (e *mcpEndpoint) find(call *mcpCall, cat *mcpCatalog, in findInput) findOutput {
	words := queryWords(in.Query)
	out := findOutput{Query: in.Query, Matches: []findMatch{}}
	type scored struct {
		m     findMatch
		score int
	}
	var hits []scored
	for _, c := range cat.Capabilities {
		cp, ok := e.s.caps[c.ID]
		if !ok || !c.Enabled || !c.Available {
			continue
		}
		out.Usable++
		strong := strings.ToLower(cp.ID + " " + cp.Title)
		mid := strings.ToLower(cp.Summary + " " + cp.Topic)
		weak := strings.ToLower(cp.Description)
		score := 0
		for _, w := range words {
			switch {
			case strings.Contains(strong, w):
				score += 3
			case strings.Contains(mid, w):
				score += 2
			case strings.Contains(weak, w):
				score++
			}
		}
		if score > 0 {
			hits = append(hits, scored{findMatch{ID: cp.ID, Title: cp.Title, Summary: cp.Summary, Topic: cp.Topic,
				TypicalCredits: cp.Cost.Typical, Listed: e.filterAllows(call, ToolName(cp.ID)), Resource: capabilityURIStart + cp.ID}, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].m.ID < hits[j].m.ID
	})
	for i := 0; i < len(hits) && i < in.Limit; i++ {
		out.Matches = append(out.Matches, hits[i].m)
	}
	return out
}

// queryWords are the query's words of two or more letters or digits, lower case, without the
// most common English filler.
func queryWords(q string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		if len(w) < 2 || findStopWords[w] || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

var findStopWords = map[string]bool{"a": true, "an": true, "the": true, "of": true, "for": true, "to": true, "in": true, "on": true,
	"and": true, "or": true, "with": true, "by": true, "me": true, "my": true, "find": true, "get": true, "search": true, "what": true, "is": true}

package gateway

// The request log (issue 34): every call to /v1 and /mcp whose tenant is known is handed, once
// answered, to the RequestLog (tenants.RequestLog: a bounded buffer written in batches by one
// goroutine), so no call waits for its entry; the management API reads it back.

import (
	"bytes"
	"encoding/csv"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// RequestLog takes the entry of each answered call; Record must never block.
type RequestLog interface {
	Record(e tenants.RequestEntry)
}

// Fiber locals the request log reads (set where the value is known).
const (
	logErrorLocal              = "log_error"     // *Error the call was answered with (errorHandler)
	logActionLocal             = "log_action"    // the billed action (pipeline)
	logCreditsLocal            = "log_credits"   // int64 credits charged (pipeline)
	logSuspendedLocal          = "log_suspended" // *Principal of a suspended tenant's refused key
	mcpDispatchLocal           = "mcp_dispatch"  // a /v1 call an MCP tool dispatched (mcp.go)
	viaAPI, viaMCP, viaConsole = "api", "mcp", "console"
)

// loggedPath tells whether a path's calls go to the request log.
func loggedPath(path string) bool {
	return path == "/mcp" || (strings.HasPrefix(path, "/v1/") && path != "/v1/openapi.json")
}

// recordRequest hands an answered call to the request log when its tenant is known.
func (s *Server) recordRequest(c *fiber.Ctx, start time.Time, elapsed time.Duration, status int) {
	p := principalOf(c)
	if p == nil {
		if p, _ = c.Locals(logSuspendedLocal).(*Principal); p == nil {
			return // no tenant to show the entry to: an unknown or malformed key
		}
	}
	path := c.Path()
	if !loggedPath(path) {
		return
	}
	e := tenants.RequestEntry{TenantID: p.Tenant.ID, KeyID: p.Key.ID, Mode: p.Key.Mode, Via: viaAPI,
		Status: status, LatencyUS: elapsed.Microseconds(), AtUS: start.UnixMicro(),
		RequestID: strings.Clone(requestID(c))}
	if r := c.Route(); r != nil && r.Path != "/" && r.Path != "" {
		e.Method, e.Route = r.Method, r.Path
	} else {
		e.Method, e.Route = strings.Clone(c.Method()), strings.Clone(path)
	}
	switch {
	case c.Locals(consolePrincipal{}) != nil:
		e.Via = viaConsole
	case c.Locals(mcpDispatchLocal) != nil || path == "/mcp":
		e.Via = viaMCP
	}
	e.Capability, _ = c.Locals("capability").(string)
	if a, ok := c.Locals(logActionLocal).(string); ok {
		e.Action = a
	} else if path == "/mcp" {
		if msg, ok := c.Locals(mcpMessageLocal).(mcpMessage); ok {
			e.Action = msg.Method
		}
	}
	e.Credits, _ = c.Locals(logCreditsLocal).(int64)
	if er, ok := c.Locals(logErrorLocal).(*Error); ok && status >= 400 {
		e.ErrorCode, e.ErrorMessage = string(er.Code), er.Message
	}
	s.reqlog.Record(e)
}

// The management read API: GET /v1/requests, /v1/requests/{request_id} and /v1/usage, for a key
// with the manage permission, over its own tenant's entries only.

// requestJSON is one request log entry as the API answers it.
type requestJSON struct {
	RequestID    string    `json:"request_id" doc:"the X-Request-Id the call was answered with"`
	At           time.Time `json:"at" doc:"when the call arrived"`
	KeyID        string    `json:"key_id" doc:"the id of the key that made the call"`
	Mode         string    `json:"mode" enum:"live,test" doc:"the key's mode"`
	Via          string    `json:"via" enum:"api,mcp,console" doc:"api: a /v1 request; mcp: the /mcp request or a /v1 call an MCP tool dispatched (same request id); console: a test call from the console"`
	Method       string    `json:"method"`
	Route        string    `json:"route" doc:"the route the call matched, such as /v1/capabilities/:id/execute"`
	Capability   string    `json:"capability,omitempty" doc:"the capability called, when the call named a known one"`
	Action       string    `json:"action,omitempty" doc:"the billed action (search, more, details, …), or the JSON-RPC method of an /mcp request"`
	Status       int       `json:"status" min:"100" doc:"the HTTP status of the answer"`
	ErrorCode    string    `json:"error_code,omitempty" doc:"the envelope's error.code of a failed call"`
	ErrorMessage string    `json:"error_message,omitempty" doc:"the envelope's error.message of a failed call"`
	Credits      int64     `json:"credits" min:"0" doc:"credits charged"`
	LatencyMS    float64   `json:"latency_ms" min:"0" doc:"time to answer, in milliseconds"`
}

func toRequestJSON(e *tenants.RequestEntry) requestJSON {
	return requestJSON{RequestID: e.RequestID, At: e.At(), KeyID: e.KeyID, Mode: e.Mode, Via: e.Via, Method: e.Method,
		Route: e.Route, Capability: e.Capability, Action: e.Action, Status: e.Status, ErrorCode: e.ErrorCode,
		ErrorMessage: e.ErrorMessage, Credits: e.Credits, LatencyMS: float64(e.LatencyUS) / 1000}
}

type requestList struct {
	Requests   []requestJSON `json:"requests" doc:"newest first"`
	NextCursor *string       `json:"next_cursor" doc:"pass as cursor for the next (older) page; null on the last page"`
}

type requestLookup struct {
	RequestID string        `json:"request_id"`
	Requests  []requestJSON `json:"requests" doc:"the entries with this request id, newest first: an MCP tool call logs its /mcp request and the /v1 call it dispatched, and a client may reuse an id"`
}

type usageRowJSON struct {
	Group        string  `json:"group" doc:"the day (YYYY-MM-DD, UTC), capability id (\"\" for calls naming none) or key id"`
	Calls        int64   `json:"calls" min:"0"`
	Errors       int64   `json:"errors" min:"0" doc:"calls answered with status 400 or above"`
	Credits      int64   `json:"credits" min:"0"`
	AvgLatencyMS float64 `json:"avg_latency_ms" min:"0"`
}

type usageJSON struct {
	GroupBy string         `json:"group_by" enum:"day,capability,key"`
	From    time.Time      `json:"from" doc:"the start of the range summed: usage is kept per UTC hour, so the requested from rounded down to the hour"`
	To      time.Time      `json:"to" doc:"the end of the range summed (exclusive): the requested to rounded up to the hour"`
	Rows    []usageRowJSON `json:"rows"`
}

func badQuery(name, msg string) *Error {
	return providers.InvalidField(name, msg)
}

// timeQuery reads an RFC 3339 query parameter ("" is zero).
func timeQuery(c *fiber.Ctx, name string) (time.Time, error) {
	v := c.Query(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, badQuery(name, name+" must be an RFC 3339 time such as 2026-11-26T00:00:00Z")
	}
	return t.UTC(), nil
}

// storableQuery reads a text filter: at most 200 bytes (ids and codes are short).
func storableQuery(c *fiber.Ctx, name string) (string, error) {
	v := c.Query(name)
	if len(v) > 200 {
		return "", badQuery(name, name+" must be at most 200 characters")
	}
	return strings.Clone(v), nil
}

// listRequests answers GET /v1/requests.
func (s *Server) listRequests(c *fiber.Ctx) error {
	p := principalOf(c)
	f := tenants.RequestFilter{TenantID: p.Tenant.ID, Limit: 50}
	var err error
	if f.KeyID, err = storableQuery(c, "key"); err != nil {
		return err
	}
	if f.Capability, err = storableQuery(c, "capability"); err != nil {
		return err
	}
	if f.ErrorCode, err = storableQuery(c, "error_code"); err != nil {
		return err
	}
	if f.Cursor, err = storableQuery(c, "cursor"); err != nil {
		return err
	}
	if v := c.Query("status"); v != "" {
		switch {
		case len(v) == 3 && (v[1] == 'x' || v[1] == 'X') && (v[2] == 'x' || v[2] == 'X') && v[0] >= '1' && v[0] <= '5':
			f.Status, f.StatusClass = int(v[0]-'0'), true
		default:
			n, err := strconv.Atoi(v)
			if err != nil || n < 100 || n > 599 {
				return badQuery("status", "status must be an HTTP status (100..599) or a class such as 4xx")
			}
			f.Status = n
		}
	}
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return badQuery("limit", "limit must be an integer from 1 to 100")
		}
		f.Limit = n
	}
	if f.From, err = timeQuery(c, "from"); err != nil {
		return err
	}
	if f.To, err = timeQuery(c, "to"); err != nil {
		return err
	}
	es, next, err := s.store.Requests(c.UserContext(), f)
	if errors.Is(err, tenants.ErrBadCursor) {
		return badQuery("cursor", "cursor must be the next_cursor of a previous page")
	}
	if err != nil {
		return storeError(err)
	}
	out := requestList{Requests: make([]requestJSON, 0, len(es))}
	for i := range es {
		out.Requests = append(out.Requests, toRequestJSON(&es[i]))
	}
	if next != "" {
		out.NextCursor = &next
	}
	return c.JSON(out)
}

// getRequest answers GET /v1/requests/{request_id}.
func (s *Server) getRequest(c *fiber.Ctx) error {
	rid := strings.Clone(c.Params("request_id"))
	if !requestIDPattern.MatchString(rid) {
		return badQuery("request_id", "request_id must be 1..128 of A-Z a-z 0-9 . _ : -")
	}
	es, err := s.store.RequestsByID(c.UserContext(), principalOf(c).Tenant.ID, rid)
	if err != nil {
		return storeError(err)
	}
	if len(es) == 0 {
		return &Error{Code: providers.CodeNotFound, Message: "no call of this account has the request id " + rid,
			Hint: "entries are kept for the retention period and written within a second of the answer"}
	}
	out := requestLookup{RequestID: rid, Requests: make([]requestJSON, 0, len(es))}
	for i := range es {
		out.Requests = append(out.Requests, toRequestJSON(&es[i]))
	}
	return c.JSON(out)
}

// maxUsageSpan bounds a usage query's range.
const maxUsageSpan = 366 * 24 * time.Hour

// usage answers GET /v1/usage: JSON, or CSV with ?format=csv or Accept: text/csv.
func (s *Server) usage(c *fiber.Ctx) error {
	groupBy := c.Query("group_by", tenants.UsageByDay)
	switch groupBy {
	case tenants.UsageByDay, tenants.UsageByCapability, tenants.UsageByKey:
	default:
		return badQuery("group_by", "group_by must be day, capability or key")
	}
	asCSV := false
	switch f := c.Query("format"); f {
	case "csv":
		asCSV = true
	case "json":
	case "":
		asCSV = c.Accepts(fiber.MIMEApplicationJSON, "text/csv") == "text/csv"
	default:
		return badQuery("format", "format must be json or csv")
	}
	from, err := timeQuery(c, "from")
	if err != nil {
		return err
	}
	to, err := timeQuery(c, "to")
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	if to.IsZero() {
		to = now
	}
	if from.IsZero() {
		from = to.Add(-30 * 24 * time.Hour)
	}
	if !from.Before(to) {
		return badQuery("from", "from must be before to")
	}
	if to.Sub(from) > maxUsageSpan {
		return badQuery("from", "the range must be at most 366 days")
	}
	from, to = tenants.UsageHours(from, to)
	rows, err := s.store.UsageSummary(c.UserContext(), principalOf(c).Tenant.ID, groupBy, from, to)
	if err != nil {
		return storeError(err)
	}
	out := usageJSON{GroupBy: groupBy, From: from, To: to, Rows: make([]usageRowJSON, 0, len(rows))}
	for _, r := range rows {
		out.Rows = append(out.Rows, usageRowJSON{Group: r.Group, Calls: r.Calls, Errors: r.Errors, Credits: r.Credits,
			AvgLatencyMS: float64(r.AvgLatUS) / 1000})
	}
	if !asCSV {
		return c.JSON(out)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{groupBy, "calls", "errors", "credits", "avg_latency_ms"})
	for _, r := range out.Rows {
		_ = w.Write([]string{csvSafe(r.Group), strconv.FormatInt(r.Calls, 10), strconv.FormatInt(r.Errors, 10),
			strconv.FormatInt(r.Credits, 10), strconv.FormatFloat(r.AvgLatencyMS, 'f', 3, 64)})
	}
	w.Flush()
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="capgate-usage-`+groupBy+`.csv"`)
	return c.Status(http.StatusOK).Send(buf.Bytes())
}

// csvSafe keeps a cell from being read as a formula by a spreadsheet (CSV injection).
func csvSafe(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

package gateway_test

// Test-only capabilities backed by an upstream the test controls, so every rule of spec 4.2 can
// be exercised deterministically and upstream calls can be counted. Live keys reach the upstream
// through gatewaytest.Options.Fakes, test keys through the provider's Sandbox handler; each is
// its own fakeUpstream, so a test can tell which one a call reached.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

const (
	fakeID     = "fakeup"   // the controlled upstream
	fakeBareID = "fakebare" // never configured and without a sandbox: capabilities using it are unavailable

	fakeTotal   = 7 // items the upstream holds for any query but "none"
	fakeGoneN   = 3 // the item whose stored detail is missing (410 session_expired)
	fakeLookupN = 2 // the item whose only record action is lookup
	lookupCost  = 4 // credits of a fresh lookup
	// fakeBigInt is above 2^53: a detail that goes through float64 comes back changed.
	fakeBigInt = "9007199254740993"
)

// fakeUpstream is the controlled upstream: a fixed catalog of fakeTotal items per query, paged
// by page number, offset or cursor, plus a whole-set endpoint (local paging), a single-item
// endpoint and an item lookup. It counts calls and remembers what it was asked.
type fakeUpstream struct {
	calls   atomic.Int64
	failing atomic.Bool  // answer 500 to everything
	delay   atomic.Int64 // wait this many milliseconds before answering

	mu      sync.Mutex
	seen    []string // path?query of every call
	cursors []string // cursors handed out by the token endpoint
}

func (f *fakeUpstream) Calls() int64 { return f.calls.Load() }

// Seen lists path?query of every call so far.
func (f *fakeUpstream) Seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

// Last is the path?query of the latest call, or "".
func (f *fakeUpstream) Last() string {
	s := f.Seen()
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

func (f *fakeUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	f.mu.Lock()
	f.seen = append(f.seen, r.URL.Path+"?"+r.URL.RawQuery)
	f.mu.Unlock()
	if d := f.delay.Load(); d > 0 {
		time.Sleep(time.Duration(d) * time.Millisecond)
	}
	if f.failing.Load() {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":"the fake upstream is failing"}`))
		return
	}
	q := r.URL.Query()
	switch {
	case r.URL.Path == "/search":
		f.search(w, q)
	case r.URL.Path == "/all":
		writeFakeJSON(w, map[string]any{"items": fakeItems(q.Get("q"), 0, fakeTotal)})
	case r.URL.Path == "/one":
		writeFakeJSON(w, map[string]any{"items": fakeItems(q.Get("q"), 0, 1)})
	case strings.HasPrefix(r.URL.Path, "/item/"):
		id := strings.TrimPrefix(r.URL.Path, "/item/")
		// A provider-shaped lookup answer: nested, mixed types, a null, an integer above 2^53.
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"id":%q,"views":%s,"ratio":0.25,"tags":["a","b"],"meta":null,"stats":{"by_year":[{"year":2024,"n":1}]}}`, id, fakeBigInt)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// search serves one page. kind is page (page=N), offset (offset=N) or token (cursor=tok-N).
// The query "sparse" makes the first page empty while has_more stays true (spec 4.2 rule 4).
func (f *fakeUpstream) search(w http.ResponseWriter, q url.Values) {
	size, _ := strconv.Atoi(q.Get("size"))
	if size < 1 {
		http.Error(w, `{"error":"size"}`, http.StatusBadRequest)
		return
	}
	query := q.Get("q")
	start := 0
	switch q.Get("kind") {
	case "page":
		page := 1
		if p := q.Get("page"); p != "" {
			page, _ = strconv.Atoi(p)
		}
		if page < 1 {
			http.Error(w, `{"error":"page"}`, http.StatusBadRequest)
			return
		}
		if query == "sparse" {
			if page == 1 {
				writeFakeJSON(w, map[string]any{"items": []any{}, "has_more": true})
				return
			}
			page--
		}
		start = (page - 1) * size
	case "offset":
		start, _ = strconv.Atoi(q.Get("offset"))
	case "token":
		if c := q.Get("cursor"); c != "" {
			n, err := strconv.Atoi(strings.TrimPrefix(c, "tok-"))
			if !strings.HasPrefix(c, "tok-") || err != nil {
				http.Error(w, `{"error":"cursor"}`, http.StatusBadRequest)
				return
			}
			start = n
		}
	default:
		http.Error(w, `{"error":"kind"}`, http.StatusBadRequest)
		return
	}
	end := min(start+size, fakeTotal)
	if query == "none" {
		end = fakeTotal
	}
	out := map[string]any{"items": fakeItems(query, start, end), "has_more": end < fakeTotal}
	if end < fakeTotal {
		cur := "tok-" + strconv.Itoa(end)
		f.mu.Lock()
		f.cursors = append(f.cursors, cur)
		f.mu.Unlock()
		out["next_cursor"] = cur
	}
	writeFakeJSON(w, out)
}

func writeFakeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

type fakeItem struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	N     int    `json:"n"`
}

// fakeItems are the items [start, end) of a query, numbered from 1.
func fakeItems(query string, start, end int) []fakeItem {
	out := []fakeItem{}
	if query == "none" {
		return out
	}
	for n := start + 1; n <= end && n <= fakeTotal; n++ {
		out = append(out, fakeItem{ID: "it-" + strconv.Itoa(n), Title: fmt.Sprintf("%s #%d", query, n), N: n})
	}
	return out
}

// fakeStoredDetail is the detail stored at search time for an item: untyped and provider-shaped.
func fakeStoredDetail(it fakeItem) map[string]any {
	return map[string]any{
		"item_id": it.ID,
		"n":       it.N,
		"big":     json.Number(fakeBigInt),
		"provider": map[string]any{
			"nested":      []any{1, "two", nil, true, map[string]any{"deep": map[string]any{"deeper": []any{}}}},
			"ünïcode key": "✓",
			"":            "an empty key",
		},
	}
}

func fakeRecord(it fakeItem) providers.Record {
	rec := providers.Record{
		Title:   it.Title,
		URL:     "https://fake.example/items/" + it.ID,
		Snippet: "item " + it.ID,
		Fields:  map[string]any{"n": it.N, "item_id": it.ID},
		Ref:     json.RawMessage(`{"id":"` + it.ID + `"}`),
		Stored: map[string]*providers.Detail{"details": {
			Body:  fakeStoredDetail(it),
			Links: []providers.Link{{Label: "item page", URL: "https://fake.example/items/" + it.ID}},
		}},
	}
	switch it.N {
	case fakeGoneN:
		rec.Stored = nil
	case fakeLookupN:
		rec.Actions = []string{"lookup"}
	}
	return rec
}

// fakeFetch calls the controlled upstream and decodes its items.
func fakeFetch(ctx context.Context, call *providers.Call, path string, q url.Values) ([]fakeItem, bool, string, error) {
	var body struct {
		Items      []fakeItem `json:"items"`
		HasMore    bool       `json:"has_more"`
		NextCursor string     `json:"next_cursor"`
	}
	if err := call.Upstream(fakeID).GetJSON(ctx, path, q, &body); err != nil {
		return nil, false, "", err
	}
	return body.Items, body.HasMore, body.NextCursor, nil
}

func fakePage(items []fakeItem, hasMore bool) *providers.Page {
	p := &providers.Page{HasMore: hasMore, Records: []providers.Record{}}
	for _, it := range items {
		p.Records = append(p.Records, fakeRecord(it))
	}
	return p
}

// fakeSearch is the Execute of the provider-paged capabilities: state is {"page":N},
// {"offset":N} or {"cursor":"…"}.
func fakeSearch(kind providers.Paging) func(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	return func(ctx context.Context, call *providers.Call) (*providers.Page, error) {
		var st struct {
			Page   int    `json:"page"`
			Offset int    `json:"offset"`
			Cursor string `json:"cursor"`
		}
		if len(call.State) > 0 {
			if err := json.Unmarshal(call.State, &st); err != nil {
				return nil, providers.Errorf(providers.CodeInternal, "bad paging state %s", call.State)
			}
		}
		size, _ := call.Request.Int("num")
		q := url.Values{"kind": {string(kind)}, "q": {call.Request.Str("query")}, "size": {strconv.Itoa(size)}}
		if f, ok := call.Request.Object("filter"); ok {
			q.Set("lang", f.Str("lang"))
		}
		switch kind {
		case providers.PagingPage:
			if st.Page == 0 {
				st.Page = 1
			}
			q.Set("page", strconv.Itoa(st.Page))
		case providers.PagingOffset:
			q.Set("offset", strconv.Itoa(st.Offset))
		case providers.PagingToken:
			if st.Cursor != "" {
				q.Set("cursor", st.Cursor)
			}
		}
		items, hasMore, cursor, err := fakeFetch(ctx, call, "/search", q)
		if err != nil {
			return nil, err
		}
		page := fakePage(items, hasMore)
		if hasMore {
			switch kind {
			case providers.PagingPage:
				page.Next, _ = json.Marshal(map[string]int{"page": st.Page + 1})
			case providers.PagingOffset:
				page.Next, _ = json.Marshal(map[string]int{"offset": st.Offset + size})
			case providers.PagingToken:
				page.Next, _ = json.Marshal(map[string]string{"cursor": cursor})
			}
		}
		return page, nil
	}
}

// fakeAll fetches the whole result set in one upstream call (local paging).
func fakeAll(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	items, _, _, err := fakeFetch(ctx, call, "/all", url.Values{"q": {call.Request.Str("query")}})
	if err != nil {
		return nil, err
	}
	return fakePage(items, false), nil
}

// fakeOne fetches one answer (single result).
func fakeOne(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	items, _, _, err := fakeFetch(ctx, call, "/one", url.Values{"q": {call.Request.Str("query")}})
	if err != nil {
		return nil, err
	}
	return fakePage(items, false), nil
}

// fakeLookup is a provider lookup record action: it keeps the upstream's numbers exact.
func fakeLookup(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(rec.Ref, &ref); err != nil || ref.ID == "" {
		return nil, providers.Errorf(providers.CodeInternal, "record without reference")
	}
	resp, err := call.Upstream(fakeID).Get(ctx, "/item/"+url.PathEscape(ref.ID), nil, nil)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(resp.Body))
	dec.UseNumber()
	var body any
	if err := dec.Decode(&body); err != nil {
		return nil, providers.Errorf(providers.CodeProviderError, "malformed lookup answer")
	}
	return &providers.Detail{Body: body, Links: []providers.Link{{Label: "item page", URL: "https://fake.example/items/" + ref.ID}}}, nil
}

const fakeSearchSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 100},
    "num": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3},
    "filter": {
      "type": "object",
      "additionalProperties": false,
      "properties": {"lang": {"type": "string", "minLength": 2, "maxLength": 5, "default": "en"}}
    }
  }
}`

// fakeRulesSchema: min and max (max defaults to 50), label only on update (a rule beyond the schema).
const fakeRulesSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 100},
    "num": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3},
    "min": {"type": "integer", "minimum": 0, "maximum": 100},
    "max": {"type": "integer", "minimum": 0, "maximum": 100, "default": 50},
    "label": {"type": "string", "minLength": 1, "maxLength": 20}
  }
}`

func fakeRules(req providers.Request, up *providers.Update) []providers.Violation {
	var vs []providers.Violation
	lo, hasLo := req.Int("min")
	hi, _ := req.Int("max")
	if hasLo && lo > hi {
		vs = append(vs, providers.Violation{Path: "/min", Message: "min must not exceed max"})
	}
	if up == nil && req.Has("label") {
		vs = append(vs, providers.Violation{Path: "/label", Message: "label is accepted only on update"})
	}
	return vs
}

var (
	fakeStoredAction = providers.Action{Name: "details", Description: "the item as stored at search time", Kind: providers.ActionStored}
	fakeLookupAction = providers.Action{Name: "lookup", Description: "the item from the provider", Kind: providers.ActionLookup,
		Credits: lookupCost, Run: fakeLookup}
	fakeExample = []providers.Example{{Title: "alpha", Body: providers.ExampleBody(`{"query": "alpha"}`)}}
)

func fakeSearchCap(id string, paging providers.Paging, typical int, exec func(context.Context, *providers.Call) (*providers.Page, error)) *providers.Capability {
	return &providers.Capability{
		ID: id, Title: "Fake " + string(paging), Summary: "a test capability with " + paging.Label() + " paging",
		Description: "test only", Topic: "Research and reading",
		Request: fakeSearchSchema, Paging: paging,
		Actions:  []providers.Action{fakeStoredAction, fakeLookupAction},
		Cost:     providers.Cost{Typical: typical, Basis: "test"},
		Deadline: 5 * time.Second, Providers: []string{fakeID}, Examples: fakeExample, Execute: exec,
	}
}

// The test capabilities. Typical credits are chosen so that the free plan (typical<=1) enables
// test.offset and test.token but not test.page, and so every charge is visible in the ledger.
var (
	capPage   = fakeSearchCap("test.page", providers.PagingPage, 2, fakeSearch(providers.PagingPage))
	capOffset = fakeSearchCap("test.offset", providers.PagingOffset, 1, fakeSearch(providers.PagingOffset))
	capToken  = fakeSearchCap("test.token", providers.PagingToken, 1, fakeSearch(providers.PagingToken))
	capLocal  = fakeSearchCap("test.local", providers.PagingLocal, 3, fakeAll)
	// capSingle: one answer, update not offered, a stored details action.
	capSingle = &providers.Capability{
		ID: "test.single", Title: "Fake single", Summary: "single result", Description: "test only", Topic: "Research and reading",
		Request: fakeSearchSchema, Paging: providers.PagingSingle, NoUpdate: true,
		Actions: []providers.Action{fakeStoredAction}, Cost: providers.Cost{Typical: 0, Basis: "free"},
		Deadline: 5 * time.Second, Providers: []string{fakeID}, Examples: fakeExample, Execute: fakeOne,
	}
	// capBare: single result, no update, no record actions: next.example is null.
	capBare = &providers.Capability{
		ID: "test.bare", Title: "Fake bare", Summary: "single result without follow-ups", Description: "test only", Topic: "Research and reading",
		Request: fakeSearchSchema, Paging: providers.PagingSingle, NoUpdate: true,
		Cost: providers.Cost{Typical: 0, Basis: "free"}, Deadline: 5 * time.Second, Providers: []string{fakeID}, Examples: fakeExample, Execute: fakeOne,
	}
	// capRules has rules beyond the schema.
	capRules = &providers.Capability{
		ID: "test.rules", Title: "Fake rules", Summary: "rules beyond the schema", Description: "test only", Topic: "Research and reading",
		Request: fakeRulesSchema, Rules: fakeRules, Paging: providers.PagingPage,
		Actions: []providers.Action{fakeStoredAction}, Cost: providers.Cost{Typical: 0, Basis: "free"},
		Deadline: 5 * time.Second, Providers: []string{fakeID}, Examples: fakeExample, Execute: fakeSearch(providers.PagingPage),
	}
	// capPanic panics in Execute for the query "panic", and in its record action "explode".
	capPanic = &providers.Capability{
		ID: "test.panic", Title: "Fake panic", Summary: "an adapter that panics", Description: "test only", Topic: "Research and reading",
		Request: fakeSearchSchema, Paging: providers.PagingSingle, NoUpdate: true,
		Actions: []providers.Action{{Name: "explode", Description: "panics", Kind: providers.ActionLookup, Credits: lookupCost,
			Run: func(context.Context, *providers.Call, *providers.Record) (*providers.Detail, error) {
				panic("adapter secret: record action exploded")
			}}},
		Cost: providers.Cost{Typical: 2, Basis: "test"}, Deadline: 5 * time.Second, Providers: []string{fakeID}, Examples: fakeExample,
		Execute: func(ctx context.Context, call *providers.Call) (*providers.Page, error) {
			if call.Request.Str("query") == "panic" {
				panic("adapter secret: execute exploded")
			}
			return fakeOne(ctx, call)
		},
	}
	// capUnconfigured needs a provider this deployment never configures.
	capUnconfigured = &providers.Capability{
		ID: "test.unconfigured", Title: "Fake unconfigured", Summary: "its provider is not configured", Description: "test only", Topic: "Research and reading",
		Request: fakeSearchSchema, Paging: providers.PagingPage, Cost: providers.Cost{Typical: 1, Basis: "test"},
		Deadline: 5 * time.Second, Providers: []string{fakeBareID}, Examples: fakeExample, Execute: fakeSearch(providers.PagingPage),
	}
)

func fakeCapabilities() []*providers.Capability {
	return []*providers.Capability{capPage, capOffset, capToken, capLocal, capSingle, capBare, capRules, capPanic, capUnconfigured}
}

// capEnv is a gateway serving the test capabilities, with both fake upstreams.
type capEnv struct {
	*gatewaytest.Env
	tb      testing.TB
	live    *fakeUpstream // reached by live keys
	sandbox *fakeUpstream // reached by test keys
}

// newCapEnv boots a gateway with the test capabilities on db (nil: a fresh SQLite database);
// the default tenant is on the pro plan.
func newCapEnv(tb testing.TB, db *tenants.DB) *capEnv {
	tb.Helper()
	live, sandbox := &fakeUpstream{}, &fakeUpstream{}
	provs := []*providers.Provider{
		{ID: fakeID, Title: "Fake upstream", Sandbox: sandbox},
		{ID: fakeBareID, Title: "Fake upstream that is never configured"},
	}
	e := gatewaytest.New(tb, gatewaytest.Options{DB: db, Capabilities: fakeCapabilities(), Providers: provs,
		Fakes: map[string]http.Handler{fakeID: live}})
	return &capEnv{Env: e, tb: tb, live: live, sandbox: sandbox}
}

func (e *capEnv) exec(key, id string, body any) *gatewaytest.Response {
	e.tb.Helper()
	return e.Do(http.MethodPost, "/v1/capabilities/"+id+"/execute", key, body)
}

func (e *capEnv) follow(key string, body any) *gatewaytest.Response {
	e.tb.Helper()
	return e.Do(http.MethodPost, "/v1/follow-up", key, body)
}

// newPlanTenant creates a plan (cap and capabilities as given) and a tenant on it.
func newPlanTenant(tb testing.TB, e *gatewaytest.Env, creditCap int64, capabilities string) (*tenants.Tenant, string, string) {
	tb.Helper()
	p := &tenants.Plan{ID: "p" + strings.ToLower(tenants.RandomString(8)), CreditCap: creditCap, RatePerMinute: 10000,
		CreditMultiplier: 1, Capabilities: capabilities, SharpenMax: "stock"}
	if err := e.Store.CreatePlan(context.Background(), p); err != nil {
		tb.Fatal(err)
	}
	return e.NewTenant(p.ID)
}

// --- response helpers -------------------------------------------------------------------------

func wantOK(tb testing.TB, r *gatewaytest.Response) {
	tb.Helper()
	if r.Status != http.StatusOK {
		tb.Fatalf("want 200, got %d: %s", r.Status, r.Body)
	}
}

// wantError checks the status and the envelope's code, and that the envelope repeats the
// X-Request-Id header as requestId.
func wantError(tb testing.TB, r *gatewaytest.Response, status int, code string) map[string]any {
	tb.Helper()
	if r.Status != status || r.ErrorCode() != code {
		tb.Fatalf("want %d %s, got %d %s: %s", status, code, r.Status, r.ErrorCode(), r.Body)
	}
	env, _ := r.JSON["error"].(map[string]any)
	if rid, _ := env["requestId"].(string); rid == "" || rid != r.Header.Get("X-Request-Id") {
		tb.Fatalf("requestId %q does not repeat X-Request-Id %q", env["requestId"], r.Header.Get("X-Request-Id"))
	}
	return env
}

func wantViolation(tb testing.TB, r *gatewaytest.Response, path string) {
	tb.Helper()
	for _, p := range r.Violations() {
		if p == path {
			return
		}
	}
	tb.Fatalf("want a violation at %q, got %q: %s", path, r.Violations(), r.Body)
}

func results(r *gatewaytest.Response) []map[string]any { return r.Results() }

func titles(r *gatewaytest.Response) []string { return r.Titles() }

// recordWithN finds the shown record of item n.
func recordWithN(tb testing.TB, r *gatewaytest.Response, n int) string {
	tb.Helper()
	for _, rec := range results(r) {
		if rec["n"] == float64(n) {
			return rec["record_id"].(string)
		}
	}
	tb.Fatalf("no record with n=%d in %s", n, r.Body)
	return ""
}

func searchID(tb testing.TB, r *gatewaytest.Response) string {
	tb.Helper()
	id, _ := r.JSON["search_id"].(string)
	if id == "" {
		tb.Fatalf("no search_id: %s", r.Body)
	}
	return id
}

func charged(r *gatewaytest.Response) int64 {
	n, _ := r.JSON["charged_credits"].(float64)
	return int64(n)
}

func balanceUsed(r *gatewaytest.Response) int64 {
	b, _ := r.JSON["balance"].(map[string]any)
	n, _ := b["used"].(float64)
	return int64(n)
}

func nextOf(r *gatewaytest.Response) map[string]any {
	n, _ := r.JSON["next"].(map[string]any)
	return n
}

func nextExample(tb testing.TB, r *gatewaytest.Response) map[string]any {
	tb.Helper()
	ex, ok := nextOf(r)["example"].(map[string]any)
	if !ok {
		tb.Fatalf("next.example is not an object: %s", r.Body)
	}
	return ex
}

func hasMore(r *gatewaytest.Response) bool { b, _ := r.JSON["has_more"].(bool); return b }

// used is the stored balance of a tenant in a mode, straight from the store.
func used(tb testing.TB, e *gatewaytest.Env, t *tenants.Tenant, mode string) int64 {
	tb.Helper()
	plan, err := e.Store.Plan(context.Background(), t.PlanID)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := e.Store.Balance(context.Background(), t, plan, mode)
	if err != nil {
		tb.Fatal(err)
	}
	return b.Used
}

// ledgerSum is the sum of the tenant's ledger entries in the current period of a mode.
func ledgerSum(tb testing.TB, e *gatewaytest.Env, t *tenants.Tenant, mode string) int64 {
	tb.Helper()
	start, _ := tenants.PeriodAt(t.PeriodAnchor, tenants.Now())
	sum, err := e.Store.LedgerSum(context.Background(), t.ID, mode, start.Truncate(time.Microsecond))
	if err != nil {
		tb.Fatal(err)
	}
	return sum
}

// canonicalJSON re-encodes JSON with numbers kept exact, for comparisons.
func canonicalJSON(tb testing.TB, raw []byte) string {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("not JSON: %v: %s", err, raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// rawField is the exact bytes of a top-level field of a JSON object.
func rawField(tb testing.TB, body []byte, key string) []byte {
	tb.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		tb.Fatalf("not a JSON object: %s", body)
	}
	return m[key]
}

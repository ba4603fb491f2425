// Package providers holds the capability model: what a capability is (its request schema, rules,
// paging kind, record actions, cost, deadline and the upstream providers it needs), the one
// upstream HTTP client every adapter calls through, and the sandbox transport of test keys.
//
// A capability is data plus a little code. The gateway owns everything that is the same for all
// capabilities (validation, defaults, rules, charging, sessions, paging state, next.example,
// record_actions, detail caching, 410, the envelope); an adapter only turns a validated request
// into upstream calls and upstream JSON into records. The package is also the product's error
// vocabulary (errors.go: the codes of the spec's envelope), which the gateway speaks too.
//
// The tree below it:
//   - providers/<family>: the capability packages, one upstream family each (spec, upstream wire
//     types, mapping, sandbox); providers/registry is the one list of them, and binds those
//     that need something of the deployment (Capability.Bind).
//   - providers/upstream/<name>: client libraries of upstreams several capability packages or
//     sharpen share (serpapi, courtlistener, pageread, reviewers); they declare no capability.
//   - providers/internal/<name>: tooling only this tree can import (lenient decoding, ttlcache).
//   - providers/providertest: the test harness of adapters (the recording fake, goldens and the
//     shared Conformance run), imported by tests only.
//
// No production package outside providers/ and cmd imports a capability or upstream package: the
// gateway and the console know capabilities only through this package (internal/layout checks it).
package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Paging is how a capability continues a search with `more` (spec 4.2 rule 3).
type Paging string

const (
	PagingPage   Paging = "page"   // provider page number
	PagingOffset Paging = "offset" // provider offset
	PagingToken  Paging = "token"  // provider cursor
	PagingLocal  Paging = "local"  // whole result set held in the session; more is free
	PagingSingle Paging = "single" // one answer; more is refused
)

// Label is the spec's wording of the paging kind.
func (p Paging) Label() string {
	if p == PagingSingle {
		return "single result"
	}
	return string(p)
}

// ActionKind says where a record action's answer comes from.
type ActionKind int

const (
	// ActionStored answers from a detail stored at search time: free, never re-fetched,
	// 410 session_expired once gone.
	ActionStored ActionKind = iota
	// ActionLookup calls the provider: the first call is billed Credits, repeats are served from
	// the session's cache for free with cached: true.
	ActionLookup
)

// Mode is live (real providers) or test (sandbox).
type Mode string

const (
	ModeLive Mode = "live"
	ModeTest Mode = "test"
)

// Capability is one typed search or lookup capability, declared once and consumed everywhere.
type Capability struct {
	ID          string
	Title       string
	Summary     string
	Description string
	Topic       string
	// Request is the JSON Schema (draft 2020-12) of the execute body, with
	// additionalProperties false and the spec's defaults and limits.
	Request string
	// Rules checks the rules beyond the schema on a request that passed the schema, with defaults
	// applied. up is nil on execute and describes the update on a follow-up update.
	Rules func(req Request, up *Update) []Violation
	// Merge folds update params into the stored query; nil means a shallow merge where a null
	// value removes the key.
	Merge  func(prev, params Request) Request
	Paging Paging
	// PageSizeField names the request field that sizes a local page (default "num").
	PageSizeField string
	// NoUpdate marks "update: not offered".
	NoUpdate bool
	Actions  []Action
	Cost     Cost
	Deadline time.Duration
	// Providers are the upstream provider ids that must all be configured for the capability to
	// be available in this deployment.
	Providers []string
	// Examples are request bodies shown by inspect; each must pass validation and rules.
	Examples []Example
	// Execute runs one page of the search (the first when call.State is nil).
	Execute func(ctx context.Context, call *Call) (*Page, error)
	// Fresh is how long an answer stays fresh enough to serve from the shared upstream cache by
	// default (a caller's Cache-Control max-age asks for less); 0 keeps its answers out of it.
	// The providers' terms (Provider.Cache) bound it further (cache.go).
	Fresh time.Duration
	// Record is a zero value of the capability's record struct (the type of Record.Data, without
	// record_id, title, url and snippet), so the OpenAPI document can describe its records.
	Record any
	// Personal marks answers that depend on who asks (they write to or link into the caller's
	// account): never shared between callers.
	Personal bool
	// Bind, when set, returns the capability bound to what it needs of the deployment at run
	// time (a store, say), picked out of deps with Need; nil when deps lacks it, and the capability
	// stays as declared. The registry calls it for every capability (registry.CapabilitiesWith),
	// so no code outside the capability's package names it.
	Bind func(deps Deps) *Capability
}

// Deps are what a deployment hands the capabilities that need something of it (cmd wires them:
// each is a value implementing an interface a capability package declares).
type Deps []any

// Need returns the first of deps that is a T (an interface the capability declares).
func Need[T any](deps Deps) (T, bool) {
	for _, d := range deps {
		if v, ok := d.(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// Cost is what a call typically costs and how the actual charge is computed.
type Cost struct {
	// Typical is the catalog's typical_credits: the charge of execute, provider-paged more and
	// update unless Page.Credits says otherwise.
	Typical int
	Basis   string
	// NoMultiplier exempts the capability from the plan's credit multiplier.
	NoMultiplier bool
	// A page with no records is charged like any other (spec: the upstream call was made).
}

// Action is a record-scope follow-up.
type Action struct {
	Name        string
	Description string
	Kind        ActionKind
	// Credits is the charge of a fresh lookup (ActionLookup).
	Credits int
	// Run performs a lookup for the record (ActionLookup only).
	Run func(ctx context.Context, call *Call, rec *Record) (*Detail, error)
}

// Example is an execute body shown by inspect.
type Example struct {
	Title string      `json:"title"`
	Body  ExampleJSON `json:"body"`
}

// ExampleJSON is a JSON object kept as its text: an example's body is data to show and send, so it
// is written as the JSON a caller would send (ExampleBody), not as a Go map built by hand.
type ExampleJSON json.RawMessage

// MarshalJSON answers the object's text.
func (o ExampleJSON) MarshalJSON() ([]byte, error) {
	if len(o) == 0 {
		return []byte("{}"), nil
	}
	return o, nil
}

// ExampleBody is the JSON object js in canonical form (compact, keys sorted, numbers as written).
// It panics when js is not one JSON object: examples are constants, so a bad one is a programming
// error caught by the first test that loads the capability.
func ExampleBody(js string) ExampleJSON {
	req, err := DecodeBody([]byte(js))
	if err != nil {
		panic(fmt.Sprintf("providers.ExampleBody: %v: %s", err, js))
	}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return b
}

// Request is a fresh, caller-owned copy of the body, decoded as the gateway decodes a caller's.
func (o ExampleJSON) Request() Request {
	req, err := DecodeBody(o)
	if err != nil {
		return Request{}
	}
	return req
}

// Update describes a follow-up update for the capability's rules.
type Update struct {
	Previous Request // stored query before the merge
	Params   Request // the params the caller sent
	Filters  []Filter
}

// Page is one page of results as an adapter returns it.
type Page struct {
	Records []Record
	HasMore bool
	// Next is the opaque paging state that fetches the following page (provider page, offset or
	// cursor); the gateway stores it in the session and hands it back as Call.State.
	Next    json.RawMessage
	Filters []Filter
	Notes   []string
	// Credits is the actual upstream cost in credits before the plan multiplier; nil means the
	// capability's typical cost.
	Credits *int
}

// Filter is one entry of the execute envelope's filters[].
type Filter struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Group string `json:"group"`
}

// Record is one result as an adapter returns it.
type Record struct {
	Title   string
	URL     string
	Snippet string
	// Data is the capability's typed record: a pointer to the json-tagged struct its spec names
	// (Capability.Record), rendered with its keys sorted like the rest of the record. Absent
	// values are left out (omitempty or a nil pointer), never zeroed.
	Data any
	// Fields are keys beside Data for what the upstream leaves free-form (and the keys of a
	// capability not typed yet); absent values are left out, never zeroed.
	Fields map[string]any
	// Ref is the provider reference record actions need (a video id, a place id); never shown.
	Ref json.RawMessage
	// Stored holds the details captured at search time, by action name.
	Stored map[string]*Detail
	// Actions limits the record actions valid for this record; nil means all of the capability's.
	Actions []string
}

// Detail is the answer of a record action.
type Detail struct {
	Body  any    `json:"detail"`
	Links []Link `json:"links"`
	// Credits is the actual cost of a lookup; nil means the action's Credits.
	Credits *int `json:"-"`
}

// Link is a labelled URL of a record detail.
type Link struct {
	Label string `json:"label"`
	URL   string `json:"url"`
}

// Call is what an adapter gets: the validated request with defaults, the paging state and the
// upstreams it may use.
type Call struct {
	Capability *Capability
	Request    Request
	// State is the paging state of the page to fetch; nil for the first page.
	State  json.RawMessage
	Mode   Mode
	Tenant string
	// PublicURL is the gateway's public base URL (for links to console pages).
	PublicURL string
	client    *Client
	used      usedUpstreams
}

// NewCall binds a call to a client; the gateway and tests make calls this way.
func NewCall(c *Capability, req Request, state json.RawMessage, mode Mode, tenant string, client *Client) *Call {
	return &Call{Capability: c, Request: req, State: state, Mode: mode, Tenant: tenant, client: client}
}

// Upstream is the named provider as this call reaches it (live or sandbox).
func (c *Call) Upstream(id string) *Upstream {
	c.used.add(id)
	return c.client.Upstream(id, c.Mode)
}

// Credits returns a pointer to n, for Page.Credits and Detail.Credits.
func Credits(n int) *int { return &n }

// ActionNames lists the capability's record action names.
func (c *Capability) ActionNames() []string {
	names := make([]string, 0, len(c.Actions))
	for _, a := range c.Actions {
		names = append(names, a.Name)
	}
	return names
}

// Action finds a record action by name.
func (c *Capability) Action(name string) (*Action, bool) {
	for i := range c.Actions {
		if c.Actions[i].Name == name {
			return &c.Actions[i], true
		}
	}
	return nil, false
}

// PageSize is the local page size of a request.
func (c *Capability) PageSize(req Request) int {
	f := c.PageSizeField
	if f == "" {
		f = "num"
	}
	if n, ok := req.Int(f); ok && n > 0 {
		return n
	}
	return 10
}

// SearchActions lists the search-scope follow-ups the capability offers.
func (c *Capability) SearchActions() []string {
	var out []string
	if c.Paging != PagingSingle {
		out = append(out, "more")
	}
	if !c.NoUpdate {
		out = append(out, "update")
	}
	return out
}

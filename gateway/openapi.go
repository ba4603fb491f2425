package gateway

import (
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// API version and contract revision of the machine-readable description (spec section 9).
const (
	APIVersion       = "0.1.0"
	ContractRevision = "2026-09-24"
)

// Operation ids are part of the API: generated clients name their methods after them, so they
// never change once published. Capabilities add execute.<capability id> each (ExecuteOperationID).
const (
	OpGetCatalog        = "getCatalog"
	OpInspectCapability = "inspectCapability"
	OpFollowUp          = "followUp"
	OpSharpen           = "sharpenDraft"
	OpGetAccount        = "getAccount"
	OpGetGuide          = "getGuide"
	OpGetOpenAPI        = "getOpenAPI"
	OpGetHealth         = "getHealth"
	OpGetReady          = "getReady"
	OpGetProjectsStatus = "getProjectsStatus"
	OpListProjects      = "listProjects"
	OpCreateProject     = "createProject"
	OpGetProject        = "getProject"
	OpDeleteProject     = "deleteProject"
	OpAddProjectItem    = "addProjectItem"
	OpDeleteProjectItem = "deleteProjectItem"
	OpListRequests      = "listRequests"
	OpGetRequest        = "getRequest"
	OpGetUsage          = "getUsage"
	OpListKeys          = "listKeys"
	OpCreateKey         = "createKey"
	OpGetKey            = "getKey"
	OpUpdateKey         = "updateKey"
	OpRevokeKey         = "revokeKey"
	OpRollKey           = "rollKey"
)

// QuoteOperationID is the operation id of a capability's dry run (quote.go).
func QuoteOperationID(capabilityID string) string { return "quote." + capabilityID }

// ExecuteOperationID is the operation id of a capability's execute route.
func ExecuteOperationID(capabilityID string) string { return "execute." + capabilityID }

// RecordSchemaName is the component of a capability's typed record.
func RecordSchemaName(capabilityID string) string { return "Record." + capabilityID }

// ExecuteResponseSchemaName is the component of a capability's execute answer, whose results are
// its typed records.
func ExecuteResponseSchemaName(capabilityID string) string { return "ExecuteResponse." + capabilityID }

// recordSchema is a capability's record: the keys every record has (RecordSummary) and the
// fields of its record type. It stays open: a record may carry keys its upstream leaves free-form.
func recordSchema(g *schemaGen, cp *providers.Capability) map[string]any {
	summary := g.schemas["RecordSummary"].(map[string]any)
	typed := g.build(reflect.TypeOf(cp.Record))
	props := map[string]any{}
	for k, v := range summary["properties"].(map[string]any) {
		props[k] = v
	}
	for k, v := range typed["properties"].(map[string]any) {
		props[k] = v
	}
	var required []any
	for _, list := range []any{summary["required"], typed["required"]} {
		switch l := list.(type) {
		case []string:
			for _, k := range l {
				required = append(required, k)
			}
		case []any:
			required = append(required, l...)
		}
	}
	return map[string]any{"type": "object", "description": "a " + cp.ID + " record", "properties": props,
		"required": required, "additionalProperties": true}
}

// executeResponseOf is ExecuteResponse with results of the named record component.
func executeResponseOf(g *schemaGen, record string) map[string]any {
	base := g.schemas["ExecuteResponse"].(map[string]any)
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	props := map[string]any{}
	for k, v := range base["properties"].(map[string]any) {
		props[k] = v
	}
	results := map[string]any{"type": "array", "items": ref(record)}
	if old, ok := props["results"].(map[string]any); ok && old["description"] != nil {
		results["description"] = old["description"]
	}
	props["results"] = results
	out["properties"] = props
	return out
}

// responseComponents registers the Go response types (responses.go) as the document's components.
func responseComponents() *schemaGen {
	g := newSchemaGen()
	g.enum(providers.Code(""), codesEnum())
	for _, c := range []struct {
		name string
		v    any
		open bool
	}{
		{"Violation", providers.Violation{}, false},
		{"ErrorBody", errorBody{}, false},
		{"ErrorEnvelope", envelope{}, false},
		{"Balance", balanceJSON{}, false},
		{"NextStep", nextStep{}, false},
		{"WorkoutResource", workoutResource{}, true},
		{"RecordSummary", recordSummary{}, true},
		{"Filter", providers.Filter{}, false},
		{"Link", providers.Link{}, false},
		{"ExecuteResponse", executeResponse{}, false},
		{"RecordFollowUpResponse", recordFollowUpResponse{}, false},
		{"CatalogCapability", catalogCapability{}, false},
		{"StageTier", stageTierJSON{}, false},
		{"CatalogSharpen", catalogSharpen{}, false},
		{"CatalogResponse", catalogResponse{}, false},
		{"FollowUpDescriptor", followUpDescriptor{}, false},
		{"CapabilityExample", providers.Example{}, false},
		{"CapabilityExecute", inspectExecute{}, false},
		{"CapabilityCost", inspectCost{}, false},
		{"CapabilityInspectResponse", InspectResponse{}, false},
		{"SharpenReview", sharpenReview{}, false},
		{"SharpenResponse", sharpenResponse{}, false},
		{"AccountCredits", accountCredits{}, false},
		{"AccountResponse", accountResponse{}, false},
		{"HealthResponse", healthResponse{}, false},
		{"ReadyResponse", readyResponse{}, false},
		{"ProjectsEnvelope", projectsEnvelope{}, false},
		{"ProjectsStatus", projectsStatus{}, false},
		{"UsageLimit", usageLimit{}, false},
		{"Project", tenants.Project{}, false},
		{"ProjectItem", itemJSON{}, false},
		{"ProjectList", projectList{}, false},
		{"ProjectDetail", projectDetail{}, false},
		{"ProjectDeleted", projectDeleted{}, false},
		{"ItemDeleted", itemDeleted{}, false},
		{"RequestLogEntry", requestJSON{}, false},
		{"RequestList", requestList{}, false},
		{"RequestLookup", requestLookup{}, false},
		{"UsageRow", usageRowJSON{}, false},
		{"UsageResponse", usageJSON{}, false},
		{"QuoteResponse", quoteResponse{}, false},
		{"KeyScope", keyScopeJSON{}, false},
		{"APIKey", keyJSON{}, false},
		{"APIKeyList", keyList{}, false},
		{"APIKeyCreated", keyCreated{}, false},
		{"KeyRoll", rollBody{}, false},
	} {
		g.register(c.name, c.v, c.open)
	}
	// Build every component, also those no operation references directly.
	for t := range g.names {
		g.of(t)
	}
	return g
}

func codesEnum() []any {
	out := []any{}
	for _, c := range providers.Codes() {
		out = append(out, string(c))
	}
	return out
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

// projectsData is the projects envelope of a successful answer whose data is the component data.
func projectsData(g *schemaGen, data string) map[string]any {
	env := g.schemas["ProjectsEnvelope"].(map[string]any)
	props := map[string]any{}
	for k, v := range env["properties"].(map[string]any) {
		props[k] = v
	}
	props["data"] = ref(data)
	delete(props, "error")
	props["status"] = map[string]any{"type": "string", "const": "ok"}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props,
		"required": []any{"status", "commit_status", "request_id", "data"}}
}

// projectsFailure is the projects envelope of an error answer.
func projectsFailure(g *schemaGen) map[string]any {
	env := g.schemas["ProjectsEnvelope"].(map[string]any)
	props := map[string]any{}
	for k, v := range env["properties"].(map[string]any) {
		props[k] = v
	}
	delete(props, "data")
	props["status"] = map[string]any{"type": "string", "const": "error"}
	props["commit_status"] = map[string]any{"type": "string", "const": "not_committed"}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props,
		"required": []any{"status", "commit_status", "request_id", "error"}}
}

// Error statuses and what they mean, for the responses of each operation.
var statusMeaning = map[int]string{
	400: "invalid_request: the body, a parameter or a header is invalid; see violations",
	401: "unauthorized: missing, malformed, unknown or revoked key, or a suspended account",
	402: "credits_exhausted: the period's credits are used up (the account's cap, or the calling key's own budget), or the call costs more than Capgate-Max-Credits",
	403: "capability_disabled: the plan or the key's scope does not include this, a project quota is reached, or the key lacks the manage permission",
	404: "not found: unknown capability, record, project or item, or an item the upstream does not have",
	409: "conflict: an Idempotency-Key reused with another request, or stale media",
	410: "session_expired: the search is no longer held; run the capability again",
	413: "invalid_request: the body is larger than 1 MiB",
	415: "invalid_request: the body is compressed (a Content-Encoding other than identity); send it uncompressed",
	429: "rate_limited: wait Retry-After seconds",
	431: "invalid_request: the request headers are larger than 16 KiB",
	500: "internal_error: logged with the request id",
	502: "provider_error: the upstream failed",
	503: "unavailable: the service, a dependency or the capability is unavailable now",
	504: "provider_timeout: the upstream did not answer within the deadline",
}

// Error statuses per kind of operation.
var (
	readErrors = []int{401, 429, 500, 503}
	// Billed calls: 404 when the upstream says the asked item does not exist (an unknown package,
	// court opinion or document: not_found).
	billedErrors = []int{400, 401, 402, 403, 404, 409, 413, 429, 500, 502, 503, 504}
	// Projects: 400 a bad limit or offset, a missing durable request id or an invalid body; 403 not
	// in the plan or a quota used up; 404 an unknown project, item or record; 409 a request id
	// reused with another body; 410 a record whose search expired.
	pagedReadErrors = []int{400, 401, 429, 500, 503}
	projectErrors   = []int{400, 401, 404, 429, 500, 503}
	createErrors    = []int{400, 401, 403, 409, 413, 429, 500, 503}
	addItemErrors   = []int{400, 401, 403, 404, 409, 410, 413, 429, 500, 503}
	deleteErrors    = []int{400, 401, 404, 409, 429, 500, 503}
	// Management reads: 400 a bad filter or cursor, 403 a key without the manage permission.
	manageErrors = []int{400, 401, 403, 429, 500, 503}
)

func header(desc string, schema map[string]any, required bool) map[string]any {
	h := map[string]any{"description": desc, "schema": schema}
	if required {
		h["required"] = true
	}
	return h
}

var (
	intSchema = map[string]any{"type": "integer", "minimum": 0}
	strSchema = map[string]any{"type": "string"}
)

// headersFor are the response headers of an answer.
func headersFor(status int, authed bool) map[string]any {
	h := map[string]any{"X-Request-Id": map[string]any{"$ref": "#/components/headers/X-Request-Id"}}
	if authed {
		for _, n := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
			h[n] = map[string]any{"$ref": "#/components/headers/" + n}
		}
	}
	if status == 429 || status == 503 {
		h["Retry-After"] = map[string]any{"$ref": "#/components/headers/Retry-After"}
	}
	return h
}

func headerComponents() map[string]any {
	return map[string]any{
		"X-Request-Id":        header("the request id (also requestId in error envelopes); quote it when asking for help", strSchema, true),
		"RateLimit-Limit":     header("requests allowed per minute on the plan", intSchema, false),
		"RateLimit-Remaining": header("requests left in the current window", intSchema, false),
		"RateLimit-Reset":     header("seconds until the window resets", intSchema, false),
		"Retry-After":         header("seconds to wait before retrying", intSchema, false),
		"Idempotent-Replayed": header("true when the answer is the replay of an earlier request with the same Idempotency-Key",
			map[string]any{"type": "string", "enum": []any{"true"}}, false),
		CacheHeader: header("what the shared upstream cache did for this answer: hit (served from it; notes say so), miss (fetched from the upstream by this call), coalesced (answered by a concurrent identical call's upstream answer), bypass (not looked up: no-store, a personal capability, a provider whose terms forbid storing, or a record action or local page answered from the caller's own session)",
			map[string]any{"type": "string", "enum": []any{"hit", "miss", "coalesced", "bypass"}}, false),
		"Age": header("seconds since the upstream answered, on a hit (0 when coalesced)", intSchema, false),
	}
}

func jsonContent(schema map[string]any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

// errorResponses are an operation's error answers, each with the error envelope.
func errorResponses(statuses []int, authed bool, projects *schemaGen) map[string]any {
	out := map[string]any{}
	// Any route answers 431 when the request headers exceed the server's 16 KiB read buffer, and
	// 415 to a request with a Content-Encoding other than identity (no body is decompressed).
	statuses = append(append([]int{}, statuses...), 415, 431)
	for _, st := range statuses {
		schema := ref("ErrorEnvelope")
		if projects != nil && st != 401 && st != 429 && st != 415 {
			// Authentication, rate limits and the body's encoding answer before the projects handler.
			schema = map[string]any{"oneOf": []any{ref("ProjectsError"), ref("ErrorEnvelope")}}
		}
		out[strconv.Itoa(st)] = map[string]any{"description": statusMeaning[st], "headers": headersFor(st, authed && st != 401), "content": jsonContent(schema)}
	}
	return out
}

// operation describes one route.
type operation struct {
	id, summary, description string
	tags                     []string
	params                   []any
	body                     map[string]any
	okStatus                 int
	ok                       map[string]any // response schema
	okType                   string         // content type of the answer (default JSON)
	errors                   []int
	public                   bool // no key needed
	idempotent               bool // accepts Idempotency-Key (replays)
	projects                 bool
	cached                   bool // pages may come from the shared upstream cache (Cache-Control, Capgate-Cache, Age)
	ceiling                  bool // billed: honours Capgate-Max-Credits
}

func pathParam(name, desc string) map[string]any {
	return map[string]any{"name": name, "in": "path", "required": true, "description": desc, "schema": strSchema}
}

func queryParam(name, desc string, schema map[string]any) map[string]any {
	return map[string]any{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
}

var idempotencyParam = map[string]any{"name": "Idempotency-Key", "in": "header", "required": false,
	"description": "a durable request id (1..255 printable ASCII): a retry with the same key and body within 24 hours replays the first answer and is not charged again",
	"schema":      map[string]any{"type": "string", "minLength": 1, "maxLength": 255}}

var cacheControlParam = map[string]any{"name": "Cache-Control", "in": "header", "required": false,
	"description": "freshness of an answer from the shared upstream cache, HTTP style: max-age=N accepts a cached page no older than N seconds; no-cache fetches fresh and refreshes the cache; no-store neither reads nor writes it. Other directives are ignored",
	"schema":      map[string]any{"type": "string", "maxLength": 256}}

var maxCreditsParam = map[string]any{"name": MaxCreditsHeader, "in": "header", "required": false,
	"description": "the most credits this call may cost: a call whose cost (the typical charge after the plan's multiplier, as POST /v1/capabilities/{id}/quote answers it on a miss) is above it is refused with 402 credits_exhausted before any upstream work, charging nothing; a call let through is never charged more",
	"schema":      map[string]any{"type": "integer", "minimum": 0}}

// keyCreateSchema and keyUpdateSchema are the bodies of POST /v1/keys and PATCH /v1/keys/{id}.
func keyBodySchema(create bool) map[string]any {
	props := map[string]any{
		"name":            map[string]any{"type": "string", "maxLength": 100, "description": "the key's name"},
		"scope":           map[string]any{"oneOf": []any{ref("KeyScope"), map[string]any{"type": "null"}}, "description": "capabilities or topics the key is limited to; null or empty: everything the plan enables"},
		"metadata":        map[string]any{"type": []any{"object", "null"}, "description": "a small JSON object of your own (at most 4096 bytes, 50 keys)"},
		"expires_at":      map[string]any{"type": []any{"string", "null"}, "format": "date-time", "description": "when the key stops working (in the future); null: never"},
		"credit_budget":   map[string]any{"type": "integer", "minimum": 0, "description": "the key's own credits per period, under the account's cap; 0: none"},
		"rate_per_minute": map[string]any{"type": "integer", "minimum": 0, "description": "the key's own requests per minute, at most the plan's; 0: the plan's"},
		"manage":          map[string]any{"type": "boolean", "description": "the key may manage the account's keys"},
	}
	if create {
		props["mode"] = map[string]any{"type": "string", "enum": []any{"live", "test"}, "description": "live or test (default: the calling key's mode; a test key creates test keys only)"}
	}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props}
}

var pageParams3 = []any{
	queryParam("limit", "page size, 1..100 (default 20)", map[string]any{"type": "integer", "minimum": 1, "maximum": 100}),
	queryParam("offset", "how many to skip (default 0); next_offset of the previous page", map[string]any{"type": "integer", "minimum": 0}),
}

func (o operation) render(g *schemaGen) map[string]any {
	out := map[string]any{"operationId": o.id, "summary": o.summary, "tags": o.tags}
	if o.description != "" {
		out["description"] = o.description
	}
	params := append([]any{}, o.params...)
	if o.idempotent {
		params = append(params, idempotencyParam)
	}
	if o.cached {
		params = append(params, cacheControlParam)
	}
	if o.ceiling {
		params = append(params, maxCreditsParam)
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	if o.body != nil {
		out["requestBody"] = map[string]any{"required": true, "content": jsonContent(o.body)}
	}
	if o.public {
		out["security"] = []any{}
	}
	status := o.okStatus
	if status == 0 {
		status = 200
	}
	var proj *schemaGen
	if o.projects {
		proj = g
	}
	responses := errorResponses(o.errors, !o.public, proj)
	okHeaders := headersFor(status, !o.public)
	if o.idempotent {
		okHeaders["Idempotent-Replayed"] = map[string]any{"$ref": "#/components/headers/Idempotent-Replayed"}
	}
	if o.cached {
		okHeaders[CacheHeader] = map[string]any{"$ref": "#/components/headers/" + CacheHeader}
		okHeaders["Age"] = map[string]any{"$ref": "#/components/headers/Age"}
	}
	ct := o.okType
	if ct == "" {
		ct = "application/json"
	}
	responses[strconv.Itoa(status)] = map[string]any{"description": http.StatusText(status), "headers": okHeaders,
		"content": map[string]any{ct: map[string]any{"schema": o.ok}}}
	out["responses"] = responses
	return out
}

// OpenAPI builds the machine-readable description from the registry and the Go response types.
// publicURL is the server the document names (GATEWAY_PUBLIC_URL); "" names the document's own origin.
func OpenAPI(caps []*providers.Capability, publicURL string) map[string]any {
	g := documentComponents()
	ops := fixedOperations()
	topics := capabilityOperations(g, caps, ops)
	paths := map[string]any{}
	for p, methods := range ops {
		item := map[string]any{}
		for m, o := range methods {
			item[m] = o.render(g)
		}
		paths[p] = item
	}
	// GET /v1/usage also answers CSV.
	usageOK := paths["/v1/usage"].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)
	usageOK["content"].(map[string]any)["text/csv"] = map[string]any{"schema": map[string]any{"type": "string",
		"description": "a header line (the grouping, calls, errors, credits, avg_latency_ms) and a line per group"}}
	server := map[string]any{"url": "/", "description": "this deployment"}
	base := strings.TrimRight(publicURL, "/")
	if base != "" {
		server["url"] = base
	}
	tags := documentTags(topics)
	return map[string]any{
		"openapi":             "3.1.0",
		"jsonSchemaDialect":   "https://json-schema.org/draft/2020-12/schema",
		"x-contract-revision": ContractRevision,
		"info": map[string]any{"title": "capgate capability API", "version": APIVersion,
			"description": "Typed, metered search and lookup capabilities plus sharpen. All bodies are JSON. " +
				"Every error is {error: {code, message, retryable, hint, violations, requestId}}; GET /v1/guide explains the flow.",
			"license": map[string]any{"name": "Proprietary: use of this API is governed by the terms of the deployment's operator",
				"url": base + "/v1/guide"},
			"contact": map[string]any{"name": "capgate API operator", "url": base + "/console/login"}},
		"servers":    []any{server},
		"security":   []any{map[string]any{"bearer": []any{}}},
		"tags":       tags,
		"paths":      paths,
		"components": map[string]any{"schemas": g.schemas, "headers": headerComponents(), "securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "cap_live_… or cap_test_… key"}}},
	}
}

// documentComponents are the response components plus the request and envelope components the
// fixed operations name.
func documentComponents() *schemaGen {
	g := responseComponents()
	g.add("ProjectsError", projectsFailure(g))
	for _, d := range []struct{ name, data string }{
		{"ProjectsStatusEnvelope", "ProjectsStatus"}, {"ProjectListEnvelope", "ProjectList"}, {"ProjectEnvelope", "Project"},
		{"ProjectDetailEnvelope", "ProjectDetail"}, {"ProjectDeletedEnvelope", "ProjectDeleted"},
		{"ProjectItemEnvelope", "ProjectItem"}, {"ItemDeletedEnvelope", "ItemDeleted"},
	} {
		g.add(d.name, projectsData(g, d.data))
	}
	// ProjectsEnvelope is the Go source of the envelopes above; the document lists them instead.
	delete(g.schemas, "ProjectsEnvelope")
	g.add("FollowUpRequest", docOf(followUpRequestSchema))
	g.add("SharpenRequest", docOf(sharpenSchema))
	g.add("ProjectCreate", docOf(projectCreateSchema))
	g.add("ProjectItemCreate", docOf(itemCreateSchema))
	g.add("KeyCreate", keyBodySchema(true))
	g.add("KeyUpdate", keyBodySchema(false))
	return g
}

// capabilityOperations adds each capability's request, record and response components and its
// execute and quote operations; it answers the capabilities' topics.
func capabilityOperations(g *schemaGen, caps []*providers.Capability, ops map[string]map[string]operation) map[string]bool {
	topics := map[string]bool{}
	for _, cp := range caps {
		name := "Request." + cp.ID
		g.add(name, docOf(cp.Schema()))
		topics[cp.Topic] = true
		answer := ref("ExecuteResponse")
		if cp.Record != nil {
			g.add(RecordSchemaName(cp.ID), recordSchema(g, cp))
			g.add(ExecuteResponseSchemaName(cp.ID), executeResponseOf(g, RecordSchemaName(cp.ID)))
			answer = ref(ExecuteResponseSchemaName(cp.ID))
		}
		ops["/v1/capabilities/"+cp.ID+"/execute"] = map[string]operation{"post": {
			id: ExecuteOperationID(cp.ID), summary: cp.Title + ": " + cp.Summary, description: cp.Description,
			tags: []string{cp.Topic}, body: ref(name), ok: answer, errors: billedErrors, idempotent: true, cached: true, ceiling: true,
		}}
		ops["/v1/capabilities/"+cp.ID+"/quote"] = map[string]operation{"post": {
			id: QuoteOperationID(cp.ID), summary: cp.Title + ": what an execute would cost, charging nothing",
			description: "Takes the execute body; answers the credits the execute would charge now, whether the shared cache would answer it and which upstream would serve it. Calls no upstream.",
			tags:        []string{cp.Topic}, params: []any{cacheControlParam}, body: ref(name), ok: ref("QuoteResponse"), errors: []int{400, 401, 403, 404, 413, 429, 500, 503},
		}}
	}
	return topics
}

// documentTags are the fixed tags, then one per capability topic, sorted.
func documentTags(topics map[string]bool) []any {
	tags := []any{
		map[string]any{"name": "Discovery", "description": "catalog, inspection, guide and this document"},
		map[string]any{"name": "Searches", "description": "follow-ups of a capability's search"},
		map[string]any{"name": "Sharpen", "description": "second-opinion review of a draft answer"},
		map[string]any{"name": "Account", "description": "plan and balance of the calling key"},
		map[string]any{"name": "Projects", "description": "durable research folders"},
		map[string]any{"name": "Management", "description": "the request log and usage of the account (a key with the manage permission)"},
		map[string]any{"name": "Keys", "description": "the account's API keys, for a key with the manage permission"},
		map[string]any{"name": "Operations", "description": "liveness and readiness probes"},
	}
	var topicNames []string
	for t := range topics {
		topicNames = append(topicNames, t)
	}
	sort.Strings(topicNames)
	for _, t := range topicNames {
		tags = append(tags, map[string]any{"name": t, "description": "capabilities on " + t})
	}
	return tags
}

// docOf is a compiled request schema as a component (without its $schema keyword). Branches
// (oneOf, anyOf, allOf, not, if/then/else) that require a property their parent defines get that
// definition repeated, so that every required property is defined where it is required (linters
// and generators read branches alone); validation is unchanged, since the parent applies too.
func docOf(s *providers.Schema) map[string]any {
	doc := map[string]any{}
	for k, v := range s.Doc {
		if k != "$schema" {
			doc[k] = v
		}
	}
	return defineRequired(doc, nil)
}

func defineRequired(s map[string]any, parent map[string]any) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		out[k] = v
	}
	props, _ := out["properties"].(map[string]any)
	if req, ok := out["required"].([]any); ok && parent != nil {
		var added map[string]any
		for _, r := range req {
			name, _ := r.(string)
			if _, ok := props[name]; ok {
				continue
			}
			if def, ok := parent[name]; ok {
				if added == nil {
					added = map[string]any{}
					for k, v := range props {
						added[k] = v
					}
				}
				added[name] = def
			}
		}
		if added != nil {
			out["properties"], props = added, added
		}
	}
	// Branches see the properties of this schema (and of its parent).
	scope := map[string]any{}
	for k, v := range parent {
		scope[k] = v
	}
	for k, v := range props {
		scope[k] = v
	}
	for _, key := range []string{"oneOf", "anyOf", "allOf"} {
		if branches, ok := out[key].([]any); ok {
			nb := make([]any, len(branches))
			for i, b := range branches {
				if bm, ok := b.(map[string]any); ok {
					nb[i] = defineRequired(bm, scope)
				} else {
					nb[i] = b
				}
			}
			out[key] = nb
		}
	}
	for _, key := range []string{"not", "if", "then", "else"} {
		if bm, ok := out[key].(map[string]any); ok {
			out[key] = defineRequired(bm, scope)
		}
	}
	if props != nil {
		np := make(map[string]any, len(props))
		for k, v := range props {
			if pm, ok := v.(map[string]any); ok {
				np[k] = defineRequired(pm, nil)
			} else {
				np[k] = v
			}
		}
		out["properties"] = np
	}
	if items, ok := out["items"].(map[string]any); ok {
		out["items"] = defineRequired(items, nil)
	}
	return out
}

// openapiDoc renders the document once per server.
func (s *Server) openapiDoc() ([]byte, error) {
	s.openapiOnce.Do(func() {
		s.openapiJSON, s.openapiErr = json.Marshal(OpenAPI(s.order, s.opts.PublicURL))
	})
	return s.openapiJSON, s.openapiErr
}

// openapi answers GET /v1/openapi.json.
func (s *Server) openapi(c *fiber.Ctx) error {
	b, err := s.openapiDoc()
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(b)
}

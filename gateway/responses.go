package gateway

import (
	"encoding/json"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// The Go types of the API's JSON answers. The OpenAPI document's response schemas are derived
// from these types by reflection (schemagen.go, components in openapi.go), so a field added here
// appears in the document and a field the document shows exists here.
//
// Struct tags read by the schema generator besides json:
//   doc:"…"        the property's description
//   enum:"a,b"     the allowed string values
//   pattern:"…"    a regular expression the string matches
//   format:"…"     an OpenAPI format (date-time, uri)
//   min:"0"        the smallest allowed number
//   schema:"X"     for json.RawMessage and maps: "object", "any", or the component X
//   nullable:"true" the value may be JSON null (pointers, maps and json.RawMessage without omitempty are nullable already)
// A field without omitempty is required.

// envelope is the spec's error envelope.
type envelope struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Code       providers.Code        `json:"code" doc:"one of the codes of the error table in the guide; the HTTP status follows from it"`
	Message    string                `json:"message" doc:"what went wrong, for a human"`
	Retryable  bool                  `json:"retryable" doc:"true when the same call may succeed later (after Retry-After when sent)"`
	Hint       string                `json:"hint,omitempty" doc:"what to do about it"`
	Violations []providers.Violation `json:"violations,omitempty" doc:"the fields at fault (invalid_request)"`
	RequestID  string                `json:"requestId,omitempty" doc:"the request id, also in X-Request-Id; quote it when asking for help"`
}

// balanceJSON is the spec's Balance.
type balanceJSON struct {
	Used      int64      `json:"used" min:"0" doc:"credits used in the period"`
	Cap       int64      `json:"cap" min:"0" doc:"credits of the period"`
	PeriodEnd *time.Time `json:"period_end" doc:"when the period ends and used returns to 0"`
}

// executeResponse is the spec's ExecuteResponse.
type executeResponse struct {
	SearchID       string             `json:"search_id" pattern:"^srch_[A-Za-z0-9]{16}$" doc:"continue this search with POST /v1/follow-up"`
	Capability     string             `json:"capability"`
	Results        []json.RawMessage  `json:"results" schema:"RecordSummary" doc:"this page's records"`
	ResultCount    int                `json:"result_count" min:"0"`
	HasMore        bool               `json:"has_more" doc:"a follow-up with action more may return further records"`
	Filters        []providers.Filter `json:"filters,omitempty" doc:"filters the upstream offers for an update"`
	Next           nextStep           `json:"next"`
	RecordActions  []string           `json:"record_actions" doc:"actions a record follow-up accepts, for example details"`
	Notes          []string           `json:"notes,omitempty"`
	ChargedCredits int64              `json:"charged_credits" min:"0"`
	Balance        balanceJSON        `json:"balance"`
}

type nextStep struct {
	URL     string         `json:"url"`
	Actions []string       `json:"actions" enum:"more,update"`
	Example map[string]any `json:"example" doc:"a follow-up body that is valid right now, or null"`
}

// recordSummary documents the fixed keys of a record as execute and more show it; a capability
// adds its own keys (see its inspect response), so the schema is open. Records are rendered
// from providers.Record in execute.go.
type recordSummary struct {
	RecordID        string           `json:"record_id" pattern:"^rec_[A-Za-z0-9]{16}$" doc:"act on the record with POST /v1/follow-up"`
	Title           string           `json:"title"`
	URL             string           `json:"url,omitempty"`
	Snippet         string           `json:"snippet,omitempty"`
	WorkoutResource *workoutResource `json:"workout_resource,omitempty"`
}

// workoutResource is the fitness capabilities' link to a demonstration video (open).
type workoutResource struct {
	ID             string `json:"id" pattern:"^wkt_[A-Za-z0-9]{16}$"`
	URL            string `json:"url"`
	Title          string `json:"title"`
	VideoAvailable bool   `json:"video_available"`
}

// recordFollowUpResponse is the spec's RecordFollowUpResponse.
type recordFollowUpResponse struct {
	RecordID       string           `json:"record_id"`
	Action         string           `json:"action"`
	Detail         json.RawMessage  `json:"detail" schema:"object" doc:"the action's answer; its keys depend on the capability"`
	Links          []providers.Link `json:"links"`
	Cached         *bool            `json:"cached,omitempty"`
	ChargedCredits int64            `json:"charged_credits" min:"0"`
	Balance        balanceJSON      `json:"balance"`

	linksJSON json.RawMessage // Links as stored, rendered once (render.go writes it for Links)
}

// catalogResponse is the spec's CatalogResponse.
type catalogResponse struct {
	Capabilities []catalogCapability `json:"capabilities"`
	Sharpen      catalogSharpen      `json:"sharpen"`
	Instructions string              `json:"instructions"`
}

type catalogCapability struct {
	ID                string `json:"id"`
	Title             string `json:"title"`
	Summary           string `json:"summary"`
	Topic             string `json:"topic"`
	Enabled           bool   `json:"enabled" doc:"the caller's plan includes it and the key's scope allows it"`
	DisabledReason    string `json:"disabled_reason,omitempty" doc:"why enabled is false when the plan includes it: the key's scope"`
	Available         bool   `json:"available" doc:"this deployment can run it now"`
	UnavailableReason string `json:"unavailable_reason,omitempty"`
	TypicalCredits    int    `json:"typical_credits" min:"0"`
	InspectURL        string `json:"inspect_url"`
}

type stageTierJSON struct {
	Stage string `json:"stage" enum:"stage1,stage2,stage3,stage3+"`
	Tier  string `json:"tier" enum:"sharpen,plus,ultra,ultra2x"`
}

type catalogSharpen struct {
	Tier           string          `json:"tier" enum:"sharpen,plus,ultra,ultra2x"`
	Stage          string          `json:"stage,omitempty" enum:"stock,stage1,stage2,stage3,stage3+"`
	Stages         []stageTierJSON `json:"stages,omitempty"`
	URL            string          `json:"url"`
	TypicalCredits int             `json:"typical_credits" min:"0"`
	Enabled        bool            `json:"enabled"`
}

type followUpDescriptor struct {
	Action       string         `json:"action"`
	Scope        string         `json:"scope" enum:"search,record"`
	Description  string         `json:"description"`
	ParamsSchema map[string]any `json:"params_schema,omitempty" schema:"object"`
}

// InspectResponse is the spec's CapabilityInspectResponse.
type InspectResponse struct {
	ID                string               `json:"id"`
	Title             string               `json:"title"`
	Description       string               `json:"description"`
	Available         bool                 `json:"available"`
	UnavailableReason string               `json:"unavailable_reason,omitempty"`
	Execute           inspectExecute       `json:"execute"`
	FollowUps         []followUpDescriptor `json:"follow_ups"`
	Examples          []providers.Example  `json:"examples"`
	Cost              inspectCost          `json:"cost"`
}

type inspectExecute struct {
	Method     string         `json:"method" enum:"POST"`
	URL        string         `json:"url"`
	BodySchema map[string]any `json:"body_schema" schema:"object" doc:"the JSON Schema of the execute body"`
}

type inspectCost struct {
	TypicalCredits int    `json:"typical_credits" min:"0"`
	Basis          string `json:"basis"`
}

type sharpenReview struct {
	Reviewer struct {
		Family string `json:"family"`
		Model  string `json:"model"`
	} `json:"reviewer"`
	Review string `json:"review"`
}

type sharpenResponse struct {
	Tier           string          `json:"tier" enum:"sharpen,plus,ultra,ultra2x"`
	Stage          string          `json:"stage,omitempty" enum:"stage1,stage2,stage3,stage3+"`
	Reviews        []sharpenReview `json:"reviews"`
	Partial        bool            `json:"partial" doc:"true when fewer reviews came back than the tier asks for"`
	RoutingNote    string          `json:"routing_note,omitempty"`
	Instruction    string          `json:"instruction" doc:"how to use the reviews"`
	ChargedCredits int64           `json:"charged_credits" min:"0"`
	Balance        balanceJSON     `json:"balance"`
}

// accountResponse is GET /v1/account.
type accountResponse struct {
	Plan      string         `json:"plan"`
	Status    string         `json:"status"`
	Cadence   string         `json:"cadence" enum:"monthly"`
	Credits   accountCredits `json:"credits"`
	RateLimit struct {
		RequestsPerMinute int `json:"requests_per_minute" min:"0"`
	} `json:"rate_limit"`
	Sharpen struct {
		Stage    string `json:"stage" enum:"stock,stage1,stage2,stage3,stage3+" doc:"the saved sharpen setting"`
		MaxStage string `json:"max_stage" enum:"stock,stage1,stage2,stage3,stage3+" doc:"the highest stage the plan allows"`
	} `json:"sharpen"`
	Key struct {
		ID     string `json:"id"`
		Label  string `json:"label"`
		Mode   string `json:"mode" enum:"live,test"`
		Prefix string `json:"prefix"`
	} `json:"key"`
	Tenant struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"tenant"`
}

type accountCredits struct {
	Used             int64     `json:"used" min:"0"`
	Cap              int64     `json:"cap" min:"0"`
	Remaining        int64     `json:"remaining" min:"0"`
	PeriodEnd        time.Time `json:"period_end"`
	Mode             string    `json:"mode" enum:"live,test" doc:"the balance shown is the one of the calling key's mode"`
	CreditMultiplier float64   `json:"credit_multiplier" doc:"the plan's factor on typical credits"`
}

// healthResponse is GET /healthz; readyResponse is GET /readyz when ready.
type healthResponse struct {
	Status  string `json:"status" enum:"ok"`
	Version string `json:"version"`
}

type readyResponse struct {
	Status string `json:"status" enum:"ready"`
}

// projectsEnvelope is the projects routes' answer; its data depends on the route (the projects*
// types below).
type projectsEnvelope struct {
	Status       string          `json:"status" enum:"ok,error"`
	CommitStatus string          `json:"commit_status" enum:"committed,replayed,not_committed"`
	RequestID    string          `json:"request_id"`
	Data         json.RawMessage `json:"data,omitempty" schema:"object"`
	Error        *errorBody      `json:"error,omitempty"`
}

type projectsStatus struct {
	Access   bool       `json:"access" doc:"the plan includes projects"`
	Plan     string     `json:"plan"`
	Projects usageLimit `json:"projects"`
	Items    usageLimit `json:"items"`
}

type usageLimit struct {
	Used  int `json:"used" min:"0"`
	Limit int `json:"limit" min:"0"`
}

type projectList struct {
	Projects   []tenants.Project `json:"projects"`
	NextOffset *int              `json:"next_offset" doc:"the offset of the next page, or null on the last page"`
}

type projectDetail struct {
	Project    *tenants.Project `json:"project"`
	Items      []itemJSON       `json:"items"`
	NextOffset *int             `json:"next_offset" doc:"the offset of the next page of items, or null on the last page"`
}

type projectDeleted struct {
	ProjectID string `json:"project_id"`
	Deleted   bool   `json:"deleted"`
}

type itemDeleted struct {
	ProjectID string `json:"project_id"`
	ItemID    string `json:"item_id"`
	Deleted   bool   `json:"deleted"`
}

type itemJSON struct {
	tenants.ProjectItem
	Record json.RawMessage `json:"record,omitempty" schema:"RecordSummary" doc:"the record as it was shown when saved (kind record)"`
}

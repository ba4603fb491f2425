package gateway

import (
	"encoding/json"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// The Go types of the API's JSON answers. The OpenAPI document's response schemas are derived
// from these types (openapi.go), so a field added here appears in the document.

// envelope is the spec's error envelope.
type envelope struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Code       providers.Code        `json:"code"`
	Message    string                `json:"message"`
	Retryable  bool                  `json:"retryable"`
	Hint       string                `json:"hint,omitempty"`
	Violations []providers.Violation `json:"violations,omitempty"`
	RequestID  string                `json:"requestId,omitempty"`
}

// balanceJSON is the spec's Balance.
type balanceJSON struct {
	Used      int64      `json:"used"`
	Cap       int64      `json:"cap"`
	PeriodEnd *time.Time `json:"period_end"`
}

// executeResponse is the spec's ExecuteResponse.
type executeResponse struct {
	SearchID       string             `json:"search_id"`
	Capability     string             `json:"capability"`
	Results        []json.RawMessage  `json:"results"`
	ResultCount    int                `json:"result_count"`
	HasMore        bool               `json:"has_more"`
	Filters        []providers.Filter `json:"filters,omitempty"`
	Next           nextStep           `json:"next"`
	RecordActions  []string           `json:"record_actions"`
	Notes          []string           `json:"notes,omitempty"`
	ChargedCredits int64              `json:"charged_credits"`
	Balance        balanceJSON        `json:"balance"`
}

type nextStep struct {
	URL     string         `json:"url"`
	Actions []string       `json:"actions"`
	Example map[string]any `json:"example"`
}

// recordFollowUpResponse is the spec's RecordFollowUpResponse.
type recordFollowUpResponse struct {
	RecordID       string           `json:"record_id"`
	Action         string           `json:"action"`
	Detail         json.RawMessage  `json:"detail"`
	Links          []providers.Link `json:"links"`
	Cached         *bool            `json:"cached,omitempty"`
	ChargedCredits int64            `json:"charged_credits"`
	Balance        balanceJSON      `json:"balance"`
}

type catalogCapability struct {
	ID                string `json:"id"`
	Title             string `json:"title"`
	Summary           string `json:"summary"`
	Topic             string `json:"topic"`
	Enabled           bool   `json:"enabled"`
	Available         bool   `json:"available"`
	UnavailableReason string `json:"unavailable_reason,omitempty"`
	TypicalCredits    int    `json:"typical_credits"`
	InspectURL        string `json:"inspect_url"`
}

type stageTierJSON struct {
	Stage string `json:"stage"`
	Tier  string `json:"tier"`
}

type catalogSharpen struct {
	Tier           string          `json:"tier"`
	Stage          string          `json:"stage,omitempty"`
	Stages         []stageTierJSON `json:"stages,omitempty"`
	URL            string          `json:"url"`
	TypicalCredits int             `json:"typical_credits"`
	Enabled        bool            `json:"enabled"`
}

type followUpDescriptor struct {
	Action       string         `json:"action"`
	Scope        string         `json:"scope"`
	Description  string         `json:"description"`
	ParamsSchema map[string]any `json:"params_schema,omitempty"`
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
	Method     string         `json:"method"`
	URL        string         `json:"url"`
	BodySchema map[string]any `json:"body_schema"`
}

type inspectCost struct {
	TypicalCredits int    `json:"typical_credits"`
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
	Tier           string          `json:"tier"`
	Stage          string          `json:"stage,omitempty"`
	Reviews        []sharpenReview `json:"reviews"`
	Partial        bool            `json:"partial"`
	RoutingNote    string          `json:"routing_note,omitempty"`
	Instruction    string          `json:"instruction"`
	ChargedCredits int64           `json:"charged_credits"`
	Balance        balanceJSON     `json:"balance"`
}

type projectsEnvelope struct {
	Status       string          `json:"status"`
	CommitStatus string          `json:"commit_status"`
	RequestID    string          `json:"request_id"`
	Data         json.RawMessage `json:"data,omitempty"`
	Error        *errorBody      `json:"error,omitempty"`
}

type itemJSON struct {
	tenants.ProjectItem
	Record json.RawMessage `json:"record,omitempty"`
}

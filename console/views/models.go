// Package views holds the console's templ components and the data they render.
package views

import "time"

// Nav is the signed-in frame of every page.
type Nav struct {
	Active  string
	Email   string
	Tenant  string
	IsAdmin bool
	CSRF    string
	Flash   string
	Error   string
	// Suspended marks a suspended tenant: the pages say so and every change is refused.
	Suspended bool
}

// ModeView is the live/test switch of a page whose data depends on the key mode.
type ModeView struct {
	Path string // the page, without query
	Mode string // live or test
}

// Overview is the account overview.
type Overview struct {
	Plan                    string
	Status                  string
	Used, Cap, Remaining    int64
	Percent                 int
	PeriodStart, PeriodEnd  time.Time
	CallsToday, CallsPeriod int
	Mode                    ModeView
	Chart                   Chart
	Top                     []TopCapability
	// GoingLive is the operator's going-live card (admins only; nil otherwise).
	GoingLive *GoingLive
	// Cache is what the shared upstream cache gave the tenant this period, per capability that
	// had at least one answer from it.
	Cache []CacheUsage
}

// CacheUsage is one capability's row of the shared-cache card.
type CacheUsage struct {
	ID                                    string
	Calls, Hits, CallsSaved, CreditsSaved int64
}

// TopCapability is a capability's share of the period.
type TopCapability struct {
	ID      string
	Credits int64
	Percent int
}

// Chart is a stacked bar chart drawn as SVG on the server.
type Chart struct {
	// Left is where the bars start, right of the y-scale; Ticks are the scale's lines.
	Left          int
	Ticks         []Tick
	Width, Height int
	Bars          []Bar
	Legend        []LegendItem
	MaxLabel      string
	Empty         bool
}

// Tick is a line of the chart's y-scale.
type Tick struct {
	Y     int
	Label string
}

// Bar is one day.
type Bar struct {
	X, Width int
	Label    string
	Title    string
	Segments []Segment
}

// Segment is one capability group of a day.
type Segment struct {
	Y, Height int
	Color     string
}

// LegendItem names a colour.
type LegendItem struct {
	Label, Color string
}

// CatalogRow is one capability.
type CatalogRow struct {
	ID, Title, Summary, Topic string
	Enabled, Available        bool
	// Reason says in words why the capability cannot be called in this mode.
	Reason         string
	TypicalCredits int
}

// Catalog is the catalog page with its filter.
type Catalog struct {
	Mode              ModeView
	Rows              []CatalogRow
	Topics            []string
	Q, Topic, Enabled string
	Available         string
	Total             int
}

// CapabilityDetail is one capability's page: its reference, the run-in-test-mode form and the
// examples as curl commands.
type CapabilityDetail struct {
	CatalogRow
	Mode     ModeView
	Ref      Reference
	Examples []Example
	Run      RunForm
}

// Field is one request field.
type Field struct {
	Name, Type, Default, Limits string
	// DescriptionHTML is the schema's description, rendered from Markdown and sanitised.
	DescriptionHTML string
	Required        bool
	// Schema is the property's JSON Schema, for the run-in-test-mode form.
	Schema map[string]any
}

// Example is an inspect example with its curl command.
type Example struct{ Title, Body, Curl string }

// KeyRow is one API key.
type KeyRow struct {
	ID, Prefix, Label, Mode string
	Created                 time.Time
	LastUsed                *time.Time
	Revoked                 bool
	Scope                   string // "unlimited" or what the key is limited to
	// Key policies (issue 34): the form's current values and the key's usage this period.
	Capabilities, Topics string
	Budget               int64 // 0: none
	Rate                 int   // 0: the plan's
	Manage               bool
	Expires              *time.Time
	ExpiresInput         string // datetime-local value (UTC)
	Metadata             string // JSON, "" when none
	Used                 int64  // credits this period
	PrevExpires          *time.Time
}

// Keys is the keys page.
type Keys struct {
	Mode     ModeView
	Keys     []KeyRow
	NewKey   string
	PlanRate int
	// Grants are the MCP hosts signed in with OAuth in this mode (oauth.templ).
	Grants []GrantRow
}

// StageOption is a sharpen stage.
type StageOption struct {
	// Reason says why a stage cannot be chosen.
	Reason               string
	Stage, Tier, Meaning string
	Credits              int
	Allowed, Selected    bool
}

// WorkoutRow is a saved workout.
type WorkoutRow struct {
	ID, Title          string
	Muscles, Equipment []string
	Saved              time.Time
	VideoAvailable     bool
	// VideoURL is the protected playback redirect, set when the demonstration can be played now.
	VideoURL string
	// VideoProblem says why it cannot; VideoStale marks a link that could not be renewed right
	// now (media_stale: try again), as opposed to no demonstration at all (workout_unavailable).
	VideoProblem string
	VideoStale   bool
}

// UsageRow is one ledger entry.
type UsageRow struct {
	Time                     time.Time
	Capability, Action, Mode string
	Credits                  int64
	RequestID                string
}

// Usage is the usage page.
type Usage struct {
	Mode                      ModeView
	Rows                      []UsageRow
	Capabilities              []string
	Keys                      []KeyRow
	Capability, Key, From, To string
	Page, Pages               int
	Calls                     int
	Credits                   int64
	// Query is the filter as a query string (without page), for the pager and the CSV.
	Query string
}

// ProjectRow is a project with its items.
type ProjectRow struct {
	ID, Name string
	Created  time.Time
	Items    []ProjectItemRow
}

// ProjectItemRow is a saved item.
type ProjectItemRow struct {
	Kind, Title, Capability, Note string
	Created                       time.Time
}

// TenantRow is a tenant for admins.
type TenantRow struct {
	ID, Name, Email, Plan, Status string
	Created                       time.Time
}

// FieldErrors are the messages of a refused form, by field name.
type FieldErrors map[string]string

// Plans is the plans page: one form per plan and one for a new plan. Errors belong to the
// form named Form (a plan's name, or "" for the new plan) whose submitted values are in Rows/New.
type Plans struct {
	// Pickable are the capabilities the plan forms' picker offers.
	Pickable []PlanCapability
	Rows     []PlanRow
	New      PlanRow
	Form     string
	Errors   FieldErrors
}

// TenantForm is the create-a-tenant form, refilled with its messages when refused.
type TenantForm struct {
	Name, Email, Plan string
	Errors            FieldErrors
}

// PlanRow is a plan for admins.
type PlanRow struct {
	Name, Capabilities, SharpenMax string
	// Cap, Rate, Multiplier, Projects and Items are as typed, so a refused form shows its input.
	Cap, Rate, Multiplier, Projects, Items string
}

// ProviderRow is an upstream provider for admins.
type ProviderRow struct {
	ID, Title, BaseURL, Breaker, LastError string
	Configured, KeySet, KeyRequired        bool
	// KeyAccepted: the provider takes a key (required or optional); keyless ones show no key fields.
	KeyAccepted bool
	// Testable marks a provider with a documented cheap call for "test connection".
	Testable bool
	Reason   string
	Models   string // a reviewer family's model per sharpen tier
}

// RetiredModel is a sharpen reviewer family and tier whose last live call the vendor answered
// with "no such model".
type RetiredModel struct {
	ProviderID, Title, Tier, Model, Setting, Message string
	At                                               time.Time
}

// AuditRow is one change made through the console.
type AuditRow struct {
	Time                  time.Time
	Actor, Action, Target string
	Changes               []Change
}

// Change is one field of a change, in the API's JSON names (secrets redacted).
type Change struct{ Field, Before, After string }

// Audit is the audit log page with its filter.
type Audit struct {
	Rows          []AuditRow
	Actors, Kinds []string
	Actor, Kind   string
	Filtered      bool
}

// Requests is the request log page: the account's calls, errors included, newest first.
type Requests struct {
	Mode ModeView
	Rows []RequestRow
	Keys []KeyRow
	// The filter as given.
	Key, Capability, Status, ErrorCode, RequestID string
	Capabilities                                  []string
	// Lookup: the page shows the entries of one request id.
	Lookup bool
	// Next is the query string of the next (older) page, "" on the last.
	Next string
	// Error is a refused filter, shown above the table.
	Error string
}

// RequestRow is one call of the request log.
type RequestRow struct {
	Time                          time.Time
	Status                        int
	ErrorCode, ErrorMessage       string
	Method, Route, Via            string
	Capability, Action, KeyPrefix string
	Credits                       int64
	LatencyMS                     float64
	RequestID                     string
}

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

// Overview is the account overview.
type Overview struct {
	Plan       string
	Status     string
	Used, Cap  int64
	Percent    int
	PeriodEnd  time.Time
	CallsToday int
	Mode       string
	Chart      Chart
}

// Chart is a stacked bar chart drawn as SVG on the server.
type Chart struct {
	Width, Height int
	Bars          []Bar
	Legend        []LegendItem
	MaxLabel      string
	Empty         bool
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
	Reason                    string
	TypicalCredits            int
	Schema                    string
	Examples                  []Example
}

// Example is an inspect example.
type Example struct{ Title, Body string }

// KeyRow is one API key.
type KeyRow struct {
	ID, Prefix, Label, Mode string
	Created                 time.Time
	LastUsed                *time.Time
	Revoked                 bool
}

// Keys is the keys page.
type Keys struct {
	Keys   []KeyRow
	NewKey string
}

// StageOption is a sharpen stage.
type StageOption struct {
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
	Rows                 []UsageRow
	Capabilities         []string
	Capability, From, To string
	Page                 int
	HasNext              bool
	Query                string
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

// PlanRow is a plan for admins.
type PlanRow struct {
	Name, Capabilities, SharpenMax string
	Cap                            int64
	Rate, Projects, Items          int
	Multiplier                     string
}

// ProviderRow is an upstream provider for admins.
type ProviderRow struct {
	ID, Title, BaseURL, Breaker, LastError string
	Configured, KeySet, KeyRequired        bool
	Reason                                 string
}

// AuditRow is one admin change.
type AuditRow struct {
	Time                                 time.Time
	Actor, Action, Target, Before, After string
}

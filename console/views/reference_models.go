package views

import "strings"

// Reference is a capability's API reference: /docs and the console's capability page render it
// with the same components (reference.templ).
type Reference struct {
	ID, Title, Summary, Topic string
	// DescriptionHTML is the declaration's Markdown, rendered and sanitised.
	DescriptionHTML string
	Fields          []Field
	RecordKeys      []RecordKey
	DetailKeys      []RecordKey
	FollowUps       []FollowUpRow
	TypicalCredits  int
	CostBasis       string
	Paging          string
	Deadline        string
	// The test-mode sample (indented JSON); SampleProblem says why there is none.
	SampleRequest, SampleExecute, SampleAction, SampleDetail string
	SampleProblem                                            string
}

// RecordKey is a key of a record or a detail, as the test-mode sample shows it.
type RecordKey struct {
	Name, Type, Example string
	Count               int
	// Always: every sample record has the key.
	Always bool
}

// FollowUpRow is one follow-up of a capability.
type FollowUpRow struct {
	Action, Scope   string
	Credits         int
	DescriptionHTML string
}

// DocsIndex is the API reference's index: the capabilities by topic.
type DocsIndex struct {
	Topics []DocsTopic
	Total  int
}

// DocsTopic is one topic of the index.
type DocsTopic struct {
	Name         string
	Capabilities []CatalogRow
}

// RunForm is the "Run in test mode" form of a capability page, generated from its request
// schema, with the answer of the last run or follow-up.
type RunForm struct {
	CSRF   string
	Inputs []RunInput
	// Blocked says why the signed-in tenant cannot run it ("" when it can).
	Blocked string
	Result  *RunResult
	// Body is the last request as JSON, carried by follow-up forms to refill this form.
	Body string
}

// RunInput is one form control of a request field.
type RunInput struct {
	Name     string
	Kind     string // text, number, select, checks, json
	Value    string
	Checked  map[string]bool // checks: the selected values
	Options  []string        // select and checks
	Required bool
	Min, Max string
	Step     string
	Hint     string // type and limits
	Problem  string // the message of a refused value
}

// RunResult is the answer of a run or a follow-up, as the page shows it.
type RunResult struct {
	What         string // "execute", "more", "details", …
	Status       int
	ErrorCode    string
	ErrorMessage string
	Violations   []string
	// FieldProblems are the violations of top-level fields, by field name.
	FieldProblems map[string]string
	SearchID      string
	HasMore       bool
	Records       []RunRecord
	Charged       int64
	Balance       string
	Detail        string // a record follow-up's detail, indented
	Raw           string // the whole answer, indented
	SearchActions []string
}

// RunRecord is one record of a run's answer, with its record actions.
type RunRecord struct {
	ID, Title, URL, Snippet string
	Actions                 []string
}

// GoingLive is the admin overview's card: which settings unlock which capabilities in live mode.
type GoingLive struct {
	Rows             []UnlockRow
	Available, Total int
}

// UnlockRow is one missing setting of the deployment.
type UnlockRow struct {
	Setting, Provider, SignUp, Hint string
	// Unlocks: capabilities that need only this setting; Helps: those that need it and others.
	Unlocks, Helps []string
}

// Account is the signed-in user's account page: password change, and for admins the reset link.
type Account struct {
	CSRF, Email, Role string
	IsAdmin           bool
	Errors            FieldErrors
	// ResetEmail and ResetLink: the admin's last reset link, shown once.
	ResetEmail, ResetLink string
}

// Reset is the page a reset link opens.
type Reset struct {
	Email, CSRF, Token string
	Errors             FieldErrors
	Expired, Done      bool
}

// PlanCapability is a capability the plan picker offers, with its typical credits.
type PlanCapability struct {
	ID      string
	Typical int
}

// capsPick reads a plan's capabilities ("all", "typical<=N" or ids) for the picker.
func capsPick(spec string) (mode, typical string, ids map[string]bool) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "all":
		return "all", "1", nil
	case strings.HasPrefix(spec, "typical<="):
		return "typical", strings.TrimPrefix(spec, "typical<="), nil
	}
	ids = map[string]bool{}
	for _, id := range strings.Split(spec, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids[id] = true
		}
	}
	return "list", "1", ids
}

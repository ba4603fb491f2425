package providertest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/capgate/capgate/providers"
)

// Conformance is the adapter conformance run every capability package shares: each example of
// the capability goes through test mode (the sandbox), every record action runs on its records,
// the pages follow has_more to its end, and the first page can be compared with a golden file.
// The hooks add what is particular to the capability.
type Conformance struct {
	// Providers are the package's providers (the client answers test keys from their sandboxes).
	Providers []*providers.Provider
	// Client, when set, is used instead of a client of Providers without fakes.
	Client *providers.Client
	// MaxPages bounds the pages per example (default 10): a sandbox whose paging does not end
	// fails the run.
	MaxPages int
	// AllowEmpty lets an example's first page have no records.
	AllowEmpty bool
	// EveryRecord runs the record actions on every record of every page, not only on the first
	// record of the first page.
	EveryRecord bool
	// Golden, when set, names the golden file (testdata/<name>.golden.json, RecordsJSON) of the
	// i-th example's first page; "" compares none.
	Golden func(i int, ex providers.Example) string
	// Page checks the n-th page (1 = the answer of execute) of an example.
	Page func(t *testing.T, ex providers.Example, n int, page *providers.Page)
	// Detail checks a record action's answer.
	Detail func(t *testing.T, ex providers.Example, action string, rec *providers.Record, d *providers.Detail)
	// Done checks an example's pages once paging ended (all of them, in order).
	Done func(t *testing.T, ex providers.Example, pages []*providers.Page)
}

// Run walks every example of c, each as a subtest named "sandbox: <title>"; a capability without
// examples fails.
func (cf Conformance) Run(t *testing.T, c *providers.Capability) {
	t.Helper()
	if len(c.Examples) == 0 {
		t.Fatalf("%s declares no examples", c.ID)
	}
	client := cf.Client
	if client == nil {
		client = Client(t, cf.Providers, nil, nil)
	}
	maxPages := cf.MaxPages
	if maxPages == 0 {
		maxPages = 10
	}
	for i, ex := range c.Examples {
		t.Run("sandbox: "+ex.Title, func(t *testing.T) {
			body, err := json.Marshal(ex.Body)
			if err != nil {
				t.Fatal(err)
			}
			req := MustPrepare(t, c, string(body))
			page, err := ExecuteState(t, client, c, providers.ModeTest, req, nil)
			if err != nil {
				t.Fatalf("execute: %v", err)
			}
			if len(page.Records) == 0 && !cf.AllowEmpty {
				t.Fatal("execute: no records")
			}
			if cf.Golden != nil {
				if name := cf.Golden(i, ex); name != "" {
					Golden(t, name, RecordsJSON(page))
				}
			}
			pages := []*providers.Page{page}
			for p := page; ; {
				if cf.Page != nil {
					cf.Page(t, ex, len(pages), p)
				}
				if len(pages) == 1 || cf.EveryRecord {
					cf.actions(t, client, c, ex, req, p)
				}
				if !p.HasMore {
					break
				}
				if len(pages) == maxPages {
					t.Fatalf("test-mode paging does not end within %d pages", maxPages)
				}
				if p, err = ExecuteState(t, client, c, providers.ModeTest, req, p.Next); err != nil {
					t.Fatalf("page %d: %v", len(pages)+1, err)
				}
				pages = append(pages, p)
			}
			if cf.Done != nil {
				cf.Done(t, ex, pages)
			}
		})
	}
}

// actions runs every record action a record offers (Record.Actions, or all when it names none).
func (cf Conformance) actions(t *testing.T, client *providers.Client, c *providers.Capability, ex providers.Example, req providers.Request, page *providers.Page) {
	t.Helper()
	recs := page.Records
	if !cf.EveryRecord && len(recs) > 1 {
		recs = recs[:1]
	}
	for i := range recs {
		rec := &recs[i]
		for _, name := range c.ActionNames() {
			if rec.Actions != nil && !slices.Contains(rec.Actions, name) {
				continue
			}
			d, err := Action(t, client, c, providers.ModeTest, req, name, rec)
			if err != nil {
				t.Fatalf("%s of %q: %v", name, rec.Title, err)
			}
			if cf.Detail != nil {
				cf.Detail(t, ex, name, rec, d)
			}
		}
	}
}

// MustPrepare is Prepare that fails the test on a body the capability refuses (the packages'
// own prepare helpers).
func MustPrepare(tb testing.TB, c *providers.Capability, body string) providers.Request {
	tb.Helper()
	req, err := Prepare(tb, c, body)
	if err != nil {
		tb.Fatalf("body %s: %v", body, err)
	}
	return req
}

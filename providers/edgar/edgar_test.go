package edgar

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/providertest"
)

const wantUA = "capgate/test (+tests@example.com)"

const (
	appleFolder = "/Archives/edgar/data/320193/000032019324000123/"
	appleAcc    = "0000320193-24-000123"
)

func init() {
	now = func() time.Time { return time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC) }
}

// fake stands in for one EDGAR host: it answers paths with fixtures or literal bodies and records
// the requests it saw.
type fake struct {
	providertest.Upstream
	t      *testing.T
	mu     sync.Mutex
	routes map[string]answer
}

type answer struct {
	status int
	body   []byte
}

func newFake(t *testing.T) *fake {
	f := &fake{t: t, routes: map[string]answer{}}
	f.Upstream = providertest.Upstream{TB: t, UserAgent: wantUA, Answer: f.route}
	return f
}

// serve answers path with a status and a body: a testdata file name, or literal content.
func (f *fake) serve(path string, status int, body string) *fake {
	f.t.Helper()
	b := []byte(body)
	if !strings.ContainsAny(body, "{<[") {
		b = providertest.Fixture(f.t, body)
	}
	f.routes[path] = answer{status, b}
	return f
}

// route checks and answers a request the Upstream recorded.
func (f *fake) route(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	a, ok := f.routes[r.URL.Path]
	f.mu.Unlock()
	if r.Method != http.MethodGet || r.URL.RawQuery != "" {
		f.t.Errorf("request %s %s?%s, want a GET without query", r.Method, r.URL.Path, r.URL.RawQuery)
	}
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code></Error>`))
		return
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// requests are the paths f was asked for.
func (f *fake) requests() []string {
	var paths []string
	for _, r := range f.Requests() {
		paths = append(paths, r.URL.Path)
	}
	return paths
}

// hosts is the pair of fakes for www.sec.gov and data.sec.gov, loaded with the Apple fixtures.
type hosts struct{ sec, data *fake }

func newHosts(t *testing.T) *hosts {
	h := &hosts{sec: newFake(t), data: newFake(t)}
	h.sec.serve("/files/company_tickers.json", 200, "company_tickers.json").
		serve(appleFolder+"index.json", 200, "index.json").
		serve(appleFolder+"aapl-20240928_htm.xml", 200, "instance_10k.xml").
		serve(appleFolder+"aapl-20240928_lab.xml", 200, "labels.xml")
	h.data.serve("/submissions/CIK0000320193.json", 200, "submissions.json").
		serve("/submissions/CIK0000320193-submissions-001.json", 200, "submissions_001.json")
	return h
}

func (h *hosts) client(t *testing.T) *providers.Client {
	return providertest.Client(t, Providers(), map[string]http.Handler{secID: h.sec, secDataID: h.data}, nil)
}

func prepare(t *testing.T, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, Financials, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

func run(t *testing.T, c *providers.Client, mode providers.Mode, body string) (*providers.Page, error) {
	t.Helper()
	return providertest.Execute(t, c, Financials, mode, body)
}

func mustExecute(t *testing.T, c *providers.Client, mode providers.Mode, body string) *providers.Page {
	t.Helper()
	page, err := run(t, c, mode, body)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return page
}

func action(t *testing.T, c *providers.Client, mode providers.Mode, req providers.Request, name string, rec *providers.Record) *providers.Detail {
	t.Helper()
	d, err := providertest.Action(t, c, Financials, mode, req, name, rec)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

// roundTrip renders a value as the gateway stores and answers it (numbers kept exact).
func roundTrip(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCapabilityDeclaration(t *testing.T) {
	c := Financials
	if c.ID != "companies.financials" || c.Topic != "Research and reading" || c.Title == "" || c.Summary == "" || c.Description == "" {
		t.Errorf("id/topic/texts = %q/%q", c.ID, c.Topic)
	}
	if c.Paging != providers.PagingLocal || c.Deadline != 40*time.Second || c.NoUpdate || c.Cost.Typical != 0 || c.Cost.Basis == "" {
		t.Errorf("paging %v deadline %v noupdate %v cost %+v", c.Paging, c.Deadline, c.NoUpdate, c.Cost)
	}
	if got := c.ActionNames(); !reflect.DeepEqual(got, []string{"details", "financials", "revenue_breakdown"}) {
		t.Errorf("actions = %v", got)
	}
	for _, a := range c.Actions {
		if a.Kind != providers.ActionLookup || a.Credits != 0 || a.Run == nil || a.Description == "" {
			t.Errorf("action %s = %+v", a.Name, a)
		}
	}
	if !reflect.DeepEqual(c.Providers, []string{"sec", "secdata"}) {
		t.Errorf("providers = %v", c.Providers)
	}
	// Fair access: 10 requests a second per client across both hosts, so one shared allowance
	// paced at 8 a second (a margin for the time calls take to reach SEC); and a declared contact
	// in the User-Agent, so no live call without GATEWAY_CONTACT.
	for _, p := range Providers() {
		if p.KeyRequired || p.Sandbox == nil || p.RequestsPerSecond != 0 || p.LimitGroup != "sec" || !p.ContactRequired ||
			!reflect.DeepEqual(p.Limits, []providers.Limit{{Requests: 8, Per: time.Second}}) {
			t.Errorf("provider %+v", p)
		}
	}
	for _, p := range Providers() {
		providertest.ContactRequired(t, Providers(), p.ID)
	}
	if p := Providers(); p[0].BaseURL != "https://www.sec.gov" || p[1].BaseURL != "https://data.sec.gov" {
		t.Errorf("base URLs %q %q", p[0].BaseURL, p[1].BaseURL)
	}
	if got := Capabilities(); len(got) != 1 || got[0] != Financials {
		t.Errorf("Capabilities() = %v", got)
	}
	if len(c.Examples) < 2 {
		t.Errorf("%d examples", len(c.Examples))
	}
	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || !reflect.DeepEqual(doc["required"], []any{"company"}) {
		t.Errorf("schema top level: %v", doc)
	}
	props := doc["properties"].(map[string]any)
	prop := func(name string) map[string]any { return props[name].(map[string]any) }
	if p := prop("num"); p["minimum"] != 1.0 || p["maximum"] != 10.0 || p["default"] != 5.0 {
		t.Errorf("num = %v", p)
	}
	if p := prop("view"); p["default"] != "filings" || !reflect.DeepEqual(p["enum"], []any{"filings", "financials", "revenue_breakdown"}) {
		t.Errorf("view = %v", p)
	}
	if p := prop("forms"); p["minItems"] != 1.0 || p["maxItems"] != 8.0 || p["uniqueItems"] != true {
		t.Errorf("forms = %v", p)
	}
	if p := prop("accession"); p["pattern"] != "^[0-9]{10}-[0-9]{2}-[0-9]{6}$" {
		t.Errorf("accession = %v", p)
	}
	for name, raw := range props {
		if d, _ := raw.(map[string]any)["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
}

func TestValidation(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		paths []string // nil: valid
	}{
		{"cik", `{"company":{"cik":"320193"}}`, nil},
		{"padded cik", `{"company":{"cik":"0000320193"}}`, nil},
		{"ticker", `{"company":{"ticker":"brk.b"}}`, nil},
		{"everything", `{"company":{"cik":"1"},"view":"filings","accession":"0000320193-24-000123","forms":["10-K","10-Q","20-F","40-F","10-K/A","10-Q/A","20-F/A","40-F/A"],"filed_from":"2020-02-29","filed_to":"2024-12-31","num":10}`, nil},
		{"same day", `{"company":{"cik":"1"},"filed_from":"2024-01-01","filed_to":"2024-01-01"}`, nil},
		{"fact view", `{"company":{"cik":"1"},"view":"financials","accession":"0000320193-24-000123","fact_offset":100}`, nil},
		{"revenue view", `{"company":{"ticker":"AAPL"},"view":"revenue_breakdown","accession":"0000320193-24-000123"}`, nil},

		{"no company", `{}`, []string{"/company"}},
		{"empty company", `{"company":{}}`, []string{"/company"}},
		{"cik and ticker", `{"company":{"cik":"1","ticker":"A"}}`, []string{"/company"}},
		{"unknown company key", `{"company":{"name":"Apple"}}`, []string{"/company/name"}},
		{"cik letters", `{"company":{"cik":"AAPL"}}`, []string{"/company/cik"}},
		{"cik 11 digits", `{"company":{"cik":"12345678901"}}`, []string{"/company/cik"}},
		{"cik number", `{"company":{"cik":320193}}`, []string{"/company/cik"}},
		{"ticker too long", `{"company":{"ticker":"ABCDEFGHIJKLMNOP"}}`, []string{"/company/ticker"}},
		{"ticker starting with dot", `{"company":{"ticker":".A"}}`, []string{"/company/ticker"}},
		{"view unknown", `{"company":{"cik":"1"},"view":"balance_sheet"}`, []string{"/view"}},
		{"accession short", `{"company":{"cik":"1"},"accession":"0000320193-24-00012"}`, []string{"/accession"}},
		{"forms empty", `{"company":{"cik":"1"},"forms":[]}`, []string{"/forms"}},
		{"forms duplicate", `{"company":{"cik":"1"},"forms":["10-K","10-K"]}`, []string{"/forms"}},
		{"form unknown", `{"company":{"cik":"1"},"forms":["8-K"]}`, []string{"/forms/0"}},
		{"filed_from format", `{"company":{"cik":"1"},"filed_from":"2024/01/01"}`, []string{"/filed_from"}},
		{"num 0", `{"company":{"cik":"1"},"num":0}`, []string{"/num"}},
		{"num 11", `{"company":{"cik":"1"},"num":11}`, []string{"/num"}},
		{"fact_offset negative", `{"company":{"cik":"1"},"view":"financials","accession":"0000320193-24-000123","fact_offset":-1}`, []string{"/fact_offset"}},
		{"unknown key", `{"company":{"cik":"1"},"ticker":"AAPL"}`, []string{"/ticker"}},

		// rules beyond the schema
		{"cik zero", `{"company":{"cik":"0000000000"}}`, []string{"/company/cik"}},
		{"filed_from not a date", `{"company":{"cik":"1"},"filed_from":"2023-02-29"}`, []string{"/filed_from"}},
		{"filed_to month 13", `{"company":{"cik":"1"},"filed_to":"2023-13-01"}`, []string{"/filed_to"}},
		{"year zero", `{"company":{"cik":"1"},"filed_to":"0000-01-01"}`, []string{"/filed_to"}},
		{"both not dates", `{"company":{"cik":"1"},"filed_from":"2023-04-31","filed_to":"2023-06-31"}`, []string{"/filed_from", "/filed_to"}},
		{"from after to", `{"company":{"cik":"1"},"filed_from":"2024-01-02","filed_to":"2024-01-01"}`, []string{"/filed_from"}},
		{"financials without accession", `{"company":{"cik":"1"},"view":"financials"}`, []string{"/accession"}},
		{"revenue without accession", `{"company":{"ticker":"AAPL"},"view":"revenue_breakdown"}`, []string{"/accession"}},
		{"fact_offset on filings", `{"company":{"cik":"1"},"fact_offset":100}`, []string{"/fact_offset"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := providertest.Prepare(t, Financials, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if n, _ := req.Int("num"); n < 1 || req.Str("view") == "" {
					t.Errorf("defaults not applied: %v", req)
				}
				return
			}
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			if got := slices.Compact(providertest.ViolationPaths(err)); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violation paths = %q, want %q", got, tc.paths)
			}
		})
	}
	t.Run("defaults", func(t *testing.T) {
		req := prepare(t, `{"company":{"cik":"320193"}}`)
		if n, _ := req.Int("num"); n != 5 || req.Str("view") != "filings" || len(req) != 3 {
			t.Errorf("request = %v", req)
		}
	})
	t.Run("messages", func(t *testing.T) {
		vs := rules(providers.Request{"company": map[string]any{"cik": "1"}, "filed_from": "2024-01-02", "filed_to": "2024-01-01"}, nil)
		if len(vs) != 1 || !strings.Contains(vs[0].Message, "2024-01-02") || !strings.Contains(vs[0].Message, "after") {
			t.Errorf("%+v", vs)
		}
		vs = rules(providers.Request{"company": map[string]any{"cik": "1"}, "view": "financials"}, nil)
		if len(vs) != 1 || !strings.Contains(vs[0].Message, "accession is required") {
			t.Errorf("%+v", vs)
		}
	})
	t.Run("rules on update", func(t *testing.T) {
		up := &providers.Update{Params: providers.Request{"view": "financials"}}
		vs := Financials.Rules(providers.Request{"company": map[string]any{"cik": "1"}, "view": "financials", "num": 5}, up)
		if len(vs) != 1 || vs[0].Path != "/accession" {
			t.Errorf("%+v", vs)
		}
	})
}

func TestFilingsGolden(t *testing.T) {
	cases := []struct {
		name, body string
		secPaths   []string
		dataPaths  []string
		count      int
	}{
		{"filings_by_cik", `{"company":{"cik":"0000320193"}}`, nil,
			[]string{"/submissions/CIK0000320193.json"}, 9},
		{"filings_10k_range", `{"company":{"cik":"320193"},"forms":["10-K","10-K/A"],"filed_from":"2019-01-01","filed_to":"2024-12-31"}`, nil,
			[]string{"/submissions/CIK0000320193.json", "/submissions/CIK0000320193-submissions-001.json"}, 6},
		{"filings_by_ticker_one_accession", `{"company":{"ticker":"aapl"},"accession":"0000320193-20-000096"}`,
			[]string{"/files/company_tickers.json"},
			[]string{"/submissions/CIK0000320193.json", "/submissions/CIK0000320193-submissions-001.json"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resetTickers()
			h := newHosts(t)
			page := mustExecute(t, h.client(t), providers.ModeLive, tc.body)
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
			if len(page.Records) != tc.count || page.HasMore || page.Next != nil {
				t.Errorf("%d records, has_more %v; want %d", len(page.Records), page.HasMore, tc.count)
			}
			if got := h.sec.requests(); !reflect.DeepEqual(got, tc.secPaths) {
				t.Errorf("www.sec.gov requests = %v, want %v", got, tc.secPaths)
			}
			if got := h.data.requests(); !reflect.DeepEqual(got, tc.dataPaths) {
				t.Errorf("data.sec.gov requests = %v, want %v", got, tc.dataPaths)
			}
			for i, rec := range page.Records {
				for _, k := range []string{"cik", "accession", "source", "issuer", "form", "filed_at", "is_amendment"} {
					if providertest.Native(&rec)[k] == nil || providertest.Native(&rec)[k] == "" {
						t.Errorf("record %d misses %s", i, k)
					}
				}
				if _, ok := providertest.Native(&rec)["accepted_at"]; !ok {
					t.Errorf("record %d has no accepted_at key", i)
				}
				if i > 0 && providertest.Native(&rec)["filed_at"].(string) > providertest.Native(&page.Records[i-1])["filed_at"].(string) {
					t.Errorf("records not newest first")
				}
			}
		})
	}

	t.Run("amendments and the oldest filing without a document", func(t *testing.T) {
		h := newHosts(t)
		page := mustExecute(t, h.client(t), providers.ModeLive, `{"company":{"cik":"320193"},"forms":["10-K"],"filed_from":"1990-01-01","filed_to":"1999-12-31"}`)
		if len(page.Records) != 1 {
			t.Fatalf("records = %v", providertest.RecordsJSON(page))
		}
		rec := page.Records[0]
		if providertest.Native(&rec)["accepted_at"] == nil || providertest.Native(&rec)["primary_url"] != nil || providertest.Native(&rec)["primary_document"] != nil ||
			!reflect.DeepEqual(rec.Actions, []string{"details"}) {
			t.Errorf("1996 record = %+v", rec)
		}
	})
	t.Run("recent only, with a note about older pages", func(t *testing.T) {
		h := newHosts(t)
		page := mustExecute(t, h.client(t), providers.ModeLive, `{"company":{"cik":"320193"},"forms":["10-Q/A"]}`)
		if len(page.Records) != 0 || len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "2022-10-28") {
			t.Errorf("page = %+v", page)
		}
	})
}

func resetTickers() {
	tickerCache.Lock()
	tickerCache.maps = nil
	tickerCache.Unlock()
}

func TestTickerResolution(t *testing.T) {
	h := newHosts(t)
	c := h.client(t)
	for _, ticker := range []string{"AAPL", "aapl", "Aapl"} {
		page := mustExecute(t, c, providers.ModeLive, `{"company":{"ticker":"`+ticker+`"},"forms":["10-K"]}`)
		if len(page.Records) != 3 || providertest.Native(&page.Records[0])["cik"] != "0000320193" {
			t.Errorf("%s: %v", ticker, providertest.RecordsJSON(page))
		}
	}
	if n := slices.Index(h.sec.requests(), "/files/company_tickers.json"); n != 0 || len(h.sec.requests()) != 1 {
		t.Errorf("the ticker map was read %d times: %v", len(h.sec.requests()), h.sec.requests())
	}

	h.data.serve("/submissions/CIK0001067983.json", 200, `{"cik":"1067983","name":"BERKSHIRE HATHAWAY INC","filings":{"recent":{"accessionNumber":[],"form":[]},"files":[]}}`)
	for _, ticker := range []string{"BRK.B", "brk-b", "BRK-A"} {
		page := mustExecute(t, c, providers.ModeLive, `{"company":{"ticker":"`+ticker+`"}}`)
		if len(page.Records) != 0 {
			t.Errorf("%s: %v", ticker, page.Records)
		}
	}
	if got := h.data.requests(); got[len(got)-1] != "/submissions/CIK0001067983.json" {
		t.Errorf("share classes of one filer did not resolve to its CIK: %v", got)
	}

	for _, tc := range []struct{ ticker, want string }{
		{"DUAL", "identifies 2 filers"},
		{"ZZZZ", "no filer with ticker"},
	} {
		_, err := run(t, c, providers.ModeLive, `{"company":{"ticker":"`+tc.ticker+`"}}`)
		e, ok := providers.AsError(err)
		if !ok || e.Code != providers.CodeInvalidRequest || !reflect.DeepEqual(providertest.ViolationPaths(err), []string{"/company/ticker"}) ||
			!strings.Contains(e.Message, tc.want) || !strings.Contains(e.Message, "CIK") {
			t.Errorf("%s: %v", tc.ticker, err)
		}
	}
	_, err := run(t, c, providers.ModeLive, `{"company":{"ticker":"DUAL"}}`)
	if e, _ := providers.AsError(err); !strings.Contains(e.Message, "0001999001 (DUAL HOLDINGS CORP), 0001999002 (DUAL INDUSTRIES INC)") {
		t.Errorf("ambiguity message %q", e.Message)
	}
}

func TestFactViewsGolden(t *testing.T) {
	for _, view := range []string{viewFinancials, viewRevenueBreakdown} {
		t.Run(view, func(t *testing.T) {
			h := newHosts(t)
			c := h.client(t)
			body := fmt.Sprintf(`{"company":{"cik":"320193"},"view":%q,"accession":%q}`, view, appleAcc)
			page := mustExecute(t, c, providers.ModeLive, body)
			providertest.Golden(t, view+"_records", roundTrip(t, providertest.RecordsJSON(page)))
			if got, want := h.sec.requests(), []string{appleFolder + "index.json", appleFolder + "aapl-20240928_htm.xml", appleFolder + "aapl-20240928_lab.xml"}; !reflect.DeepEqual(got, want) {
				t.Errorf("requests = %v, want %v", got, want)
			}
			if len(h.data.requests()) != 0 {
				t.Errorf("a fact view read the submissions API: %v", h.data.requests())
			}
			d := action(t, c, providers.ModeLive, prepare(t, body), view, &page.Records[0])
			providertest.Golden(t, view+"_detail", roundTrip(t, d))
			checkDetailKeys(t, d)
		})
	}
}

var detailKeys = []string{"accession", "cik", "content_sha256", "continuation", "extraction_status", "fact_count", "facts",
	"notes", "retrieved_at", "source", "source_documents", "truncated"}

var factKeys = []string{"concept", "conflicting_values", "context_id", "decimals", "dimensions", "duplicate_fact_ids", "entity",
	"fact_id", "label", "period", "precision", "source_url", "unit", "value"}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func checkDetailKeys(t *testing.T, d *providers.Detail) {
	t.Helper()
	body := roundTrip(t, d.Body)
	if got := keys(body); !reflect.DeepEqual(got, detailKeys) {
		t.Errorf("detail keys = %v", got)
	}
	if body["extraction_status"] != "selected_reported_facts" {
		t.Errorf("extraction_status = %v", body["extraction_status"])
	}
	facts := body["facts"].([]any)
	if len(facts) > 100 {
		t.Errorf("%d facts", len(facts))
	}
	for _, fact := range facts {
		f := fact.(map[string]any)
		if got := keys(f); !reflect.DeepEqual(got, factKeys) {
			t.Errorf("fact keys = %v", got)
		}
		if got := keys(f["period"].(map[string]any)); !reflect.DeepEqual(got, []string{"end", "instant", "start"}) {
			t.Errorf("period keys = %v", got)
		}
		if got := keys(f["entity"].(map[string]any)); !reflect.DeepEqual(got, []string{"identifier", "scheme"}) {
			t.Errorf("entity keys = %v", got)
		}
	}
	cont := body["continuation"].(map[string]any)
	if cont["capability"] != "companies.financials" {
		t.Errorf("continuation = %v", cont)
	}
	b, _ := json.Marshal(cont["body"])
	if _, err := providertest.Prepare(t, Financials, string(b)); err != nil {
		t.Errorf("continuation body %s does not validate: %v", b, err)
	}
}

// factByID finds a fact object of a detail.
func factByID(t *testing.T, d *providers.Detail, id any) map[string]any {
	t.Helper()
	for _, f := range d.Body.(*FactsDetail).Facts {
		if (f.FactID == nil && id == nil) || (f.FactID != nil && *f.FactID == id) {
			return roundTrip(t, f)
		}
	}
	t.Fatalf("no fact %s", id)
	return nil
}

func TestFactSemantics(t *testing.T) {
	h := newHosts(t)
	c := h.client(t)
	body := `{"company":{"cik":"320193"},"view":"financials","accession":"` + appleAcc + `"}`
	page := mustExecute(t, c, providers.ModeLive, body)
	d := action(t, c, providers.ModeLive, prepare(t, body), viewFinancials, &page.Records[0])
	b := d.Body.(*FactsDetail)
	// 51 numeric facts, one of them referencing an undefined context
	if b.FactCount != 50 || b.Truncated || len(b.Facts) != 50 {
		t.Errorf("fact_count %v truncated %v", b.FactCount, b.Truncated)
	}
	sum := sha256.Sum256(providertest.Fixture(t, "instance_10k.xml"))
	if b.ContentSHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("sha %v", b.ContentSHA256)
	}
	// decimals INF, the shares measure resolved in the default namespace
	f := factByID(t, d, "f-7")
	if f["decimals"] != "INF" || !reflect.DeepEqual(f["unit"], map[string]any{"numerator": []any{"xbrli:shares"}, "denominator": []any{}}) {
		t.Errorf("shares outstanding = %v", f)
	}
	// a divide unit
	eps := factByID(t, d, "f-20")
	if !reflect.DeepEqual(eps["unit"], map[string]any{"numerator": []any{"iso4217:USD"}, "denominator": []any{"xbrli:shares"}}) || eps["decimals"] != "2" {
		t.Errorf("EPS = %v", eps)
	}
	// a consistent duplicate: the total of the income statement and of the segment note
	total := factByID(t, d, "f-10")
	if !reflect.DeepEqual(total["duplicate_fact_ids"], []any{"f-50"}) || total["conflicting_values"] != false || total["decimals"] != "-6" {
		t.Errorf("total = %v", total)
	}
	// duplicates at different decimals that agree (0.241 at 3, 0.24 at 2)
	if rate := factByID(t, d, "f-51"); rate["conflicting_values"] != false || !reflect.DeepEqual(rate["duplicate_fact_ids"], []any{"f-28"}) {
		t.Errorf("tax rate = %v", rate)
	}
	// a conflicting pair
	ipad := factByID(t, d, "f-52")
	if ipad["conflicting_values"] != true || ipad["value"] != "26964000000" {
		t.Errorf("iPad = %v", ipad)
	}
	// a typed dimension
	typed := factByID(t, d, "f-53")
	if !reflect.DeepEqual(typed["dimensions"], []any{map[string]any{"dimension": "aapl:CustomerContractAxis", "dimension_label": "Customer Contract [Axis]",
		"typed_element": "aapl:CustomerContractDomain", "value": "MSA-2024-001"}}) {
		t.Errorf("typed = %v", typed["dimensions"])
	}
	// a nil fact, a fact without id
	if n := factByID(t, d, "f-54"); n["value"] != nil || n["decimals"] != nil {
		t.Errorf("nil fact = %v", n)
	}
	if rd := factByID(t, d, nil); rd["concept"] != "us-gaap:ResearchAndDevelopmentExpense" || rd["source_url"] != "https://www.sec.gov"+appleFolder+"aapl-20240928_htm.xml" {
		t.Errorf("fact without id = %v", rd)
	}
	notes := strings.Join(b.Notes, " | ")
	for _, want := range []string{"1 fact references a context or unit the instance does not define and was left out", "with values that do not agree", "must not be added"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q miss %q", notes, want)
		}
	}
	// records: values as exact JSON numbers, absent values left out
	recs := roundTrip(t, providertest.RecordsJSON(page))["records"].([]any)
	for _, r := range recs {
		rec := r.(map[string]any)
		if rec["concept"] == "us-gaap:OtherNonoperatingIncomeExpense" {
			if _, ok := rec["value"]; ok {
				t.Errorf("nil fact has a value: %v", rec)
			}
		}
		if rec["fact_id"] == "f-20" && rec["value"] != json.Number("6.08") {
			t.Errorf("EPS value = %#v", rec["value"])
		}
	}
}

func TestTruncationAndContinuation(t *testing.T) {
	h := newHosts(t)
	h.sec.routes[appleFolder+"aapl-20240928_htm.xml"] = answer{200, []byte(generatedInstance(250))}
	c := h.client(t)
	body := `{"company":{"ticker":"AAPL"},"view":"financials","accession":"` + appleAcc + `","num":10}`
	page := mustExecute(t, c, providers.ModeLive, body)
	if len(page.Records) != 100 || providertest.Native(&page.Records[0])["fact_id"] != "g-1" || providertest.Native(&page.Records[99])["fact_id"] != "g-100" {
		t.Fatalf("%d records", len(page.Records))
	}
	if !strings.Contains(page.Notes[0], "1 to 100 of 250") || !strings.Contains(page.Notes[0], "fact_offset 100") {
		t.Errorf("notes = %v", page.Notes)
	}
	req := prepare(t, body)
	for i, want := range []struct {
		first, last string
		next        any
		truncated   bool
	}{{"g-1", "g-100", json.Number("100"), true}, {"g-101", "g-200", json.Number("200"), true}, {"g-201", "g-250", json.Number("200"), false}} {
		d := action(t, c, providers.ModeLive, req, viewFinancials, &page.Records[0])
		checkDetailKeys(t, d)
		b := roundTrip(t, d.Body)
		facts := b["facts"].([]any)
		if b["truncated"] != want.truncated || b["fact_count"] != json.Number("250") ||
			facts[0].(map[string]any)["fact_id"] != want.first || facts[len(facts)-1].(map[string]any)["fact_id"] != want.last {
			t.Fatalf("step %d: truncated %v count %v facts %v..%v", i, b["truncated"], b["fact_count"], facts[0].(map[string]any)["fact_id"], facts[len(facts)-1].(map[string]any)["fact_id"])
		}
		cont := b["continuation"].(map[string]any)
		wantBody := map[string]any{"company": map[string]any{"cik": "0000320193"}, "view": "financials", "accession": appleAcc, "fact_offset": want.next}
		if !reflect.DeepEqual(cont["body"], wantBody) {
			t.Fatalf("step %d: continuation %v", i, cont["body"])
		}
		if !want.truncated {
			break
		}
		// Follow the continuation: execute its body, then the action on one of its records.
		cb, _ := json.Marshal(cont["body"])
		req = prepare(t, string(cb))
		page = mustExecute(t, c, providers.ModeLive, string(cb))
		if got := providertest.Native(&page.Records[0])["fact_id"]; got != fmt.Sprintf("g-%d", (i+1)*100+1) {
			t.Fatalf("continuation records start at %v", got)
		}
	}
	if len(page.Records) != 50 || !strings.Contains(page.Notes[0], "201 to 250 of 250") {
		t.Errorf("last window: %d records, notes %v", len(page.Records), page.Notes)
	}

	_, err := run(t, c, providers.ModeLive, `{"company":{"cik":"320193"},"view":"financials","accession":"`+appleAcc+`","fact_offset":250}`)
	if !reflect.DeepEqual(providertest.ViolationPaths(err), []string{"/fact_offset"}) {
		t.Errorf("fact_offset past the end: %v", err)
	}
	// The revenue_breakdown action of a financials record starts at the first revenue fact.
	d := action(t, c, providers.ModeLive, req, viewRevenueBreakdown, &page.Records[0])
	if b := d.Body.(*FactsDetail); b.FactCount != 125 || !b.Truncated {
		t.Errorf("revenue breakdown of the generated instance: %v %v", b.FactCount, b.Truncated)
	}
}

// generatedInstance is an instance with n numeric facts (every other one a revenue fact).
func generatedInstance(n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>
<xbrl xmlns="http://www.xbrl.org/2003/instance" xmlns:us-gaap="http://fasb.org/us-gaap/2024" xmlns:iso4217="http://www.xbrl.org/2003/iso4217">
<context id="c-1"><entity><identifier scheme="http://www.sec.gov/CIK">0000320193</identifier></entity><period><instant>2024-09-28</instant></period></context>
<unit id="usd"><measure>iso4217:USD</measure></unit>
`)
	for i := 1; i <= n; i++ {
		concept := "us-gaap:Assets"
		if i%2 == 1 {
			concept = "us-gaap:Revenues"
		}
		fmt.Fprintf(&b, "<%s contextRef=\"c-%d\" decimals=\"-6\" id=\"g-%d\" unitRef=\"usd\">%d000000</%s>\n", concept, 1, i, i, concept)
	}
	b.WriteString("</xbrl>\n")
	return b.String()
}

func TestDetails(t *testing.T) {
	h := newHosts(t)
	c := h.client(t)
	body := `{"company":{"cik":"320193"},"forms":["10-K"]}`
	page := mustExecute(t, c, providers.ModeLive, body)
	d := action(t, c, providers.ModeLive, prepare(t, body), "details", &page.Records[0])
	providertest.Golden(t, "details", roundTrip(t, d))
	b := d.Body.(*FilingDetail)
	if string(b.AcceptedAt) != `"2024-11-01T06:01:36-04:00"` || b.XBRLInstanceURL != "https://www.sec.gov"+appleFolder+"aapl-20240928_htm.xml" {
		t.Errorf("details = %v", b)
	}
	if len(d.Links) != 4 {
		t.Errorf("links = %v", d.Links)
	}
	// details of a fact record finds the filing in the submissions list
	fpage := mustExecute(t, c, providers.ModeLive, `{"company":{"cik":"320193"},"view":"revenue_breakdown","accession":"`+appleAcc+`"}`)
	fd := action(t, c, providers.ModeLive, prepare(t, body), "details", &fpage.Records[0])
	if fd.Body.(*FilingDetail).Form != "10-K" {
		t.Errorf("details of a fact record = %v", fd.Body)
	}
	// an old filing found in the older page, whose folder EDGAR does not have
	old := providers.Record{Ref: json.RawMessage(`{"cik":"0000320193","accession":"0000320193-20-000096"}`)}
	_, err := providertest.Action(t, c, Financials, providers.ModeLive, nil, "details", &old)
	if providertest.ErrorCode(err) != providers.CodeNotFound {
		t.Errorf("details of a missing folder: %v", err)
	}
	if got := h.data.requests(); !slices.Contains(got, "/submissions/CIK0000320193-submissions-001.json") {
		t.Errorf("the older page was not read: %v", got)
	}
	bad := providers.Record{Ref: json.RawMessage(`{}`)}
	if _, err := providertest.Action(t, c, Financials, providers.ModeLive, nil, "financials", &bad); providertest.ErrorCode(err) != providers.CodeInvalidRequest {
		t.Errorf("record without a filing: %v", err)
	}
}

func TestUpstreamErrors(t *testing.T) {
	factBody := `{"company":{"cik":"320193"},"view":"financials","accession":"` + appleAcc + `"}`
	cases := []struct {
		name  string
		setup func(h *hosts)
		body  string
		code  providers.Code
		paths []string
	}{
		{"unknown CIK", func(h *hosts) {}, `{"company":{"cik":"999"}}`, providers.CodeInvalidRequest, []string{"/company/cik"}},
		{"unknown filing", func(h *hosts) {}, `{"company":{"cik":"320193"},"view":"financials","accession":"0000320193-24-999999"}`,
			providers.CodeInvalidRequest, []string{"/accession"}},
		{"filing without XBRL", func(h *hosts) {
			h.sec.serve(appleFolder+"index.json", 200, `{"directory":{"item":[{"last-modified":"2024-11-01 06:01:36","name":"aapl-20240928.htm","type":"text.gif","size":"1564221"}],"name":"x","parent-dir":"y"}}`)
		}, factBody, providers.CodeInvalidRequest, []string{"/accession"}},
		{"throttled", func(h *hosts) {
			h.data.serve("/submissions/CIK0000320193.json", 403, `<html><head><title>SEC.gov | Request Rate Threshold Exceeded</title></head><body>Your Request Originates from an Undeclared Automated Tool</body></html>`)
		}, `{"company":{"cik":"320193"}}`, providers.CodeRateLimited, nil},
		{"other 403", func(h *hosts) {
			h.sec.serve(appleFolder+"index.json", 403, `<html><body>Forbidden</body></html>`)
		}, factBody, providers.CodeProviderError, nil},
		{"server error", func(h *hosts) { h.data.serve("/submissions/CIK0000320193.json", 503, `<html>busy</html>`) },
			`{"company":{"cik":"320193"}}`, providers.CodeProviderError, nil},
		{"malformed submissions", func(h *hosts) { h.data.serve("/submissions/CIK0000320193.json", 200, `{"cik":`) },
			`{"company":{"cik":"320193"}}`, providers.CodeProviderError, nil},
		{"malformed ticker map", func(h *hosts) { h.sec.serve("/files/company_tickers.json", 200, `["AAPL"]`) },
			`{"company":{"ticker":"AAPL"}}`, providers.CodeProviderError, nil},
		{"not an instance", func(h *hosts) { h.sec.serve(appleFolder+"aapl-20240928_htm.xml", 200, `<html><body>x</body></html>`) },
			factBody, providers.CodeProviderError, nil},
		{"truncated instance", func(h *hosts) {
			h.sec.serve(appleFolder+"aapl-20240928_htm.xml", 200, `<xbrl xmlns="http://www.xbrl.org/2003/instance"><context id="c-1">`)
		}, factBody, providers.CodeProviderError, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resetTickers()
			h := newHosts(t)
			tc.setup(h)
			_, err := run(t, h.client(t), providers.ModeLive, tc.body)
			if got := providertest.ErrorCode(err); got != tc.code {
				t.Fatalf("error = %v, want %s", err, tc.code)
			}
			if tc.paths != nil && !reflect.DeepEqual(providertest.ViolationPaths(err), tc.paths) {
				t.Errorf("paths = %v, want %v", providertest.ViolationPaths(err), tc.paths)
			}
			if e, _ := providers.AsError(err); tc.code == providers.CodeRateLimited && (e.RetryAfter != 10*time.Minute || !e.IsRetryable()) {
				t.Errorf("throttle = %+v", e)
			}
		})
	}
	t.Run("label linkbase missing", func(t *testing.T) {
		h := newHosts(t)
		delete(h.sec.routes, appleFolder+"aapl-20240928_lab.xml")
		c := h.client(t)
		page := mustExecute(t, c, providers.ModeLive, factBody)
		if providertest.Native(&page.Records[0])["label"] != nil || !strings.Contains(strings.Join(page.Notes, " "), "labels are null") {
			t.Errorf("page = %v", page.Notes)
		}
		d := action(t, c, providers.ModeLive, prepare(t, factBody), viewFinancials, &page.Records[0])
		if docs := d.Body.(*FactsDetail).SourceDocuments; docs.Labels != "" || docs.Instance == "" {
			t.Errorf("source_documents = %v", docs)
		}
	})
}

func TestEasternAcceptance(t *testing.T) {
	cases := map[string]string{
		"2024-11-01T06:01:36.000Z": "2024-11-01T06:01:36-04:00", // before the first Sunday of November
		"2023-11-02T18:08:27.000Z": "2023-11-02T18:08:27-04:00",
		"2024-11-04T18:30:12.000Z": "2024-11-04T18:30:12-05:00",
		"2024-02-02T06:01:04.000Z": "2024-02-02T06:01:04-05:00",
		"2024-03-10T01:59:59.000Z": "2024-03-10T01:59:59-05:00", // daylight time starts 2024-03-10 02:00
		"2024-03-10T03:00:00.000Z": "2024-03-10T03:00:00-04:00",
		"2006-04-02T03:00:00.000Z": "2006-04-02T03:00:00-04:00", // before 2007: first Sunday of April
		"2006-10-29T03:00:00.000Z": "2006-10-29T03:00:00-05:00", // to the last Sunday of October
		"2006-10-28T12:00:00Z":     "2006-10-28T12:00:00-04:00",
	}
	for in, want := range cases {
		if got, ok := easternAcceptance(in); !ok || got != want {
			t.Errorf("easternAcceptance(%q) = %q, want %q", in, got, want)
		}
	}
	for _, in := range []string{"", "2024-11-01", "yesterday"} {
		if got, ok := easternAcceptance(in); ok {
			t.Errorf("easternAcceptance(%q) = %q", in, got)
		}
	}
}

func TestPickXBRL(t *testing.T) {
	items := func(names ...string) []indexItem {
		out := make([]indexItem, len(names))
		for i, n := range names {
			out[i] = indexItem{Name: lenient.Str(n)}
		}
		return out
	}
	cases := []struct {
		name            string
		items           []indexItem
		primary         string
		instance, label string
	}{
		{"inline", items("aapl-20240928.htm", "aapl-20240928.xsd", "aapl-20240928_cal.xml", "aapl-20240928_htm.xml", "aapl-20240928_lab.xml", "FilingSummary.xml", "R1.htm"),
			"", "aapl-20240928_htm.xml", "aapl-20240928_lab.xml"},
		{"inline, two documents", items("ex99_htm.xml", "aapl-8k_htm.xml", "aapl-8k.xsd", "aapl-8k_lab.xml"), "", "aapl-8k_htm.xml", "aapl-8k_lab.xml"},
		{"inline, primary wins", items("a_htm.xml", "b_htm.xml", "a.xsd"), "b.htm", "b_htm.xml", ""},
		{"classic instance", items("aapl-20100925.xml", "aapl-20100925.xsd", "aapl-20100925_cal.xml", "aapl-20100925_def.xml",
			"aapl-20100925_lab.xml", "aapl-20100925_pre.xml", "R1.xml", "FilingSummary.xml"), "", "aapl-20100925.xml", "aapl-20100925_lab.xml"},
		{"classic, only candidate", items("instance.xml", "R2.xml", "primary_doc.xml"), "", "instance.xml", ""},
		{"ambiguous classic", items("a.xml", "b.xml"), "", "", ""},
		{"no XBRL", items("d8k.htm", "primary_doc.xml", "FilingSummary.xml"), "", "", ""},
	}
	for _, tc := range cases {
		inst, lab := pickXBRL(tc.items, tc.primary)
		if inst != tc.instance || lab != tc.label {
			t.Errorf("%s: got %q %q, want %q %q", tc.name, inst, lab, tc.instance, tc.label)
		}
	}
}

func TestConsistency(t *testing.T) {
	f := func(v, dec string) *fact { return &fact{value: v, decimals: dec, unitRef: "u"} }
	cases := []struct {
		name  string
		facts []*fact
		want  bool
	}{
		{"equal", []*fact{f("100", "-6"), f("100", "-6")}, true},
		{"same value written differently", []*fact{f("1000.0", "INF"), f("1000", "INF")}, true},
		{"rounding agrees", []*fact{f("0.241", "3"), f("0.24", "2")}, true},
		{"rounding agrees at the edge", []*fact{f("0.245", "3"), f("0.24", "2")}, true},
		{"rounding disagrees", []*fact{f("0.2451", "4"), f("0.24", "2")}, false},
		{"millions", []*fact{f("391035000000", "-6"), f("391000000000", "-9")}, true},
		{"different", []*fact{f("26694000000", "-6"), f("26964000000", "-6")}, false},
		{"exact values differ", []*fact{f("1", "INF"), f("1.0001", "INF")}, false},
		{"three, one off", []*fact{f("10", "0"), f("10", "0"), f("12", "0")}, false},
		{"nil and value", []*fact{{isNil: true, unitRef: "u"}, f("1", "0")}, false},
		{"both nil", []*fact{{isNil: true, unitRef: "u"}, {isNil: true, unitRef: "u"}}, true},
		{"not decimals", []*fact{f("1e3", "0"), f("1000", "0")}, false},
		{"text", []*fact{{value: "a"}, {value: "a"}}, true},
		// An absurd decimals attribute is read as exact, not scaled in a billion steps.
		{"absurd decimals", []*fact{f("100", "-999999999"), f("100", "-999999999")}, true},
		{"absurd decimals differ", []*fact{f("100", "-999999999"), f("101", "-999999999")}, false},
	}
	for _, tc := range cases {
		if got := consistent(tc.facts); got != tc.want {
			t.Errorf("%s: consistent = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestExamples runs every example as the gateway does in test mode: execute in the sandbox, then
// every record action of the first record (local paging: no provider page follows). Each example
// also runs against the fakes of the live hosts.
func TestExamples(t *testing.T) {
	for _, ex := range Financials.Examples {
		body, err := json.Marshal(ex.Body)
		if err != nil {
			t.Fatal(err)
		}
		req := prepare(t, string(body))
		t.Run("sandbox: "+ex.Title, func(t *testing.T) {
			c := providertest.Client(t, Providers(), nil, nil)
			page, err := providertest.ExecuteState(t, c, Financials, providers.ModeTest, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 || page.HasMore {
				t.Fatalf("%d records, has_more %v", len(page.Records), page.HasMore)
			}
			rec := page.Records[0]
			names := rec.Actions
			if names == nil {
				names = Financials.ActionNames()
			}
			if len(names) != 3 {
				t.Errorf("first record offers %v", names)
			}
			for _, name := range names {
				d := action(t, c, providers.ModeTest, req, name, &rec)
				if len(d.Links) == 0 {
					t.Errorf("%s has no links", name)
				}
				if name != "details" {
					checkDetailKeys(t, d)
					if b := d.Body.(*FactsDetail); b.FactCount == 0 || b.SourceDocuments.Labels == "" {
						t.Errorf("%s: %v", name, b)
					}
				}
			}
		})
		t.Run("live: "+ex.Title, func(t *testing.T) {
			resetTickers()
			h := newHosts(t)
			page, err := providertest.ExecuteState(t, h.client(t), Financials, providers.ModeLive, req, nil)
			if err != nil || len(page.Records) == 0 {
				t.Fatalf("%v, %v", page, err)
			}
		})
	}
}

func TestSandbox(t *testing.T) {
	c := providertest.Client(t, Providers(), nil, nil)
	body := `{"company":{"ticker":"AAPL"},"view":"revenue_breakdown","accession":"` + appleAcc + `"}`
	page := mustExecute(t, c, providers.ModeTest, body)
	d := action(t, c, providers.ModeTest, prepare(t, body), viewRevenueBreakdown, &page.Records[0])
	providertest.Golden(t, "sandbox_revenue_breakdown_detail", roundTrip(t, d))
	b := d.Body.(*FactsDetail)
	if b.FactCount != 30 || b.Truncated {
		t.Errorf("sandbox revenue facts: %v", b.FactCount)
	}
	for _, f := range b.Facts {
		if f.ConflictingValues {
			t.Errorf("the sandbox filing has a conflicting fact: %v", f)
		}
	}

	page = mustExecute(t, c, providers.ModeTest, `{"company":{"cik":"320193"},"forms":["10-K"],"filed_from":"1994-01-01"}`)
	if len(page.Records) != 9 {
		t.Errorf("%d 10-Ks in the sandbox", len(page.Records))
	}
	// The reserved miss answers as live mode answers a CIK without a filer; any other CIK and
	// any listed filing answer (issue 18).
	_, err := run(t, c, providers.ModeTest, `{"company":{"cik":"9999999999"}}`)
	if !reflect.DeepEqual(providertest.ViolationPaths(err), []string{"/company/cik"}) {
		t.Errorf("the reserved miss CIK in the sandbox: %v", err)
	}
	if _, err := run(t, c, providers.ModeTest, `{"company":{"cik":"789019"}}`); err != nil {
		t.Errorf("another CIK in the sandbox: %v", err)
	}
	if _, err = run(t, c, providers.ModeTest, `{"company":{"cik":"320193"},"view":"financials","accession":"0000320193-23-000106"}`); err != nil {
		t.Errorf("another listed filing in the sandbox: %v", err)
	}
}

func TestOlderPagesByRange(t *testing.T) {
	cases := []struct {
		name, body string
		older      bool
		count      int
	}{
		{"no bounds: recent only", `{"company":{"cik":"320193"},"forms":["10-K"]}`, false, 3},
		{"from inside recent", `{"company":{"cik":"320193"},"forms":["10-K"],"filed_from":"2023-01-01"}`, false, 2},
		{"to before recent", `{"company":{"cik":"320193"},"forms":["10-K"],"filed_to":"2015-12-31"}`, true, 2},
		{"to inside recent, no from", `{"company":{"cik":"320193"},"forms":["10-K"],"filed_to":"2023-12-31"}`, false, 2},
		{"accession of 2014", `{"company":{"cik":"320193"},"accession":"0001193125-14-383437"}`, true, 1},
		{"accession of 2024", `{"company":{"cik":"320193"},"accession":"0000320193-24-000081"}`, false, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHosts(t)
			page := mustExecute(t, h.client(t), providers.ModeLive, tc.body)
			if got := slices.Contains(h.data.requests(), "/submissions/CIK0000320193-submissions-001.json"); got != tc.older || len(page.Records) != tc.count {
				t.Errorf("older page read %v (want %v), %d records (want %d)", got, tc.older, len(page.Records), tc.count)
			}
		})
	}
}

package edgar

import (
	"context"
	"fmt"
	"time"

	"github.com/capgate/capgate/providers"
)

// Views of companies.financials.
const (
	viewFilings          = "filings"
	viewFinancials       = "financials"
	viewRevenueBreakdown = "revenue_breakdown"
)

// capabilityID is the id of companies.financials (continuations name it).
const capabilityID = "companies.financials"

// sourceName is the record and detail key source.
const sourceName = "sec_edgar"

// maxFacts is the spec's bound on facts per detail (section 8); a fact view shows the same window.
const maxFacts = 100

// periodicForms are the forms the spec lets a caller ask for; without forms the filings view
// lists all of them.
var periodicForms = []string{"10-K", "10-Q", "20-F", "40-F", "10-K/A", "10-Q/A", "20-F/A", "40-F/A"}

// Financials is companies.financials (spec section 4.20).
var Financials = &providers.Capability{
	ID:      capabilityID,
	Fresh:   time.Hour,
	Title:   "Company filings and reported financials (SEC EDGAR)",
	Summary: "List a US-listed company's periodic reports (10-K, 10-Q, 20-F, 40-F and amendments) from SEC EDGAR and read the facts it reported in a filing's XBRL, with units, periods, dimensions and duplicate checks.",
	Description: "Reads SEC EDGAR. `company` names the filer by `cik` (the Central Index Key, 1 to 10 digits) or by " +
		"`ticker` (a ticker must identify exactly one filer in EDGAR's ticker map, otherwise use the CIK). " +
		"`view` filings (the default) lists the company's periodic reports, newest first: `forms` narrows them " +
		"(default: all eight periodic forms), `filed_from` / `filed_to` bound the filing date (YYYY-MM-DD), and " +
		"`accession` picks one filing. Filing records carry cik (10 digits), accession, source (sec_edgar), " +
		"issuer, form, filed_at, report_date, primary_document, primary_url, accepted_at (EDGAR's acceptance " +
		"time with its US Eastern offset, or null) and is_amendment. " +
		"`view` financials or revenue_breakdown (both require `accession`) reads the filing's XBRL instance: " +
		"financials lists every numeric fact it reports, revenue_breakdown the revenue facts (us-gaap Revenues, " +
		"RevenueFromContractWithCustomerExcludingAssessedTax and IncludingAssessedTax, RevenuesNetOfInterestExpense, " +
		"SalesRevenueNet, SalesRevenueGoodsNet, SalesRevenueServicesNet; ifrs-full Revenue and " +
		"RevenueFromContractsWithCustomers) with the filing's own dimensions (segments, products, geographies). " +
		"A fact view shows at most 100 facts, in document order, from `fact_offset` (default 0; a continuation " +
		"field of this gateway). Fact records carry cik, accession, source, fact_id, value (a JSON number for " +
		"numeric values, exactly as reported; XBRL values are never scaled), unit {numerator, denominator}, " +
		"period {start, end} or {instant}, dimensions [{dimension, member} or {dimension, typed_element, value}, " +
		"with labels when the filing's label linkbase has them] and, beyond the spec's keys, concept, label, " +
		"context_id, decimals, precision, duplicate_fact_ids and conflicting_values. Facts overlap across " +
		"dimensions (a total and its breakdowns report the same money): never add them up. " +
		"`num` sets the page size (1 to 10, default 5); the whole result is held by the gateway, so `more` is " +
		"free. Record actions, all free and cached on repeat: details (the filing's identity, documents and " +
		"source links), financials and revenue_breakdown (up to 100 facts of the filing with entity, period, " +
		"dimensions, concept, label, unit, value, decimals, precision, duplicate_fact_ids and conflicting_values, " +
		"the SHA-256 of the instance read, and a continuation request for the following facts).",
	Topic:   "Research and reading",
	Request: requestSchema,
	Rules:   rules,
	Paging:  providers.PagingLocal,
	Actions: []providers.Action{
		{
			Name: "details",
			Description: "The filing's identity (issuer, form, filing, report and acceptance dates, amendment and XBRL " +
				"flags) with its documents and links to the filing index, the primary document and the XBRL files. Free, cached on repeat.",
			Kind: providers.ActionLookup,
			Run:  filingDetails,
		},
		{
			Name: viewFinancials,
			Description: "Up to 100 numeric facts reported in the filing's XBRL instance, with entity, period, dimensions, " +
				"unit, decimals, labels, duplicate checks, the instance's SHA-256 and a continuation request for the next facts. Free, cached on repeat.",
			Kind: providers.ActionLookup,
			Run:  factsAction(viewFinancials),
		},
		{
			Name: viewRevenueBreakdown,
			Description: "The filing's revenue facts with its real dimensions (segments, products, geographies), up to " +
				"100, with a continuation request. The breakdowns overlap each other and the total: do not add them. Free, cached on repeat.",
			Kind: providers.ActionLookup,
			Run:  factsAction(viewRevenueBreakdown),
		},
	},
	Cost: providers.Cost{
		Typical: 0,
		Basis:   "free: SEC EDGAR is a free public source; more, details, financials and revenue_breakdown cost nothing",
	},
	Deadline:  40 * time.Second,
	Providers: []string{secID, secDataID},
	Examples: []providers.Example{
		{Title: "Latest periodic reports of a company by ticker", Body: providers.ExampleBody(`{"company": {"ticker": "AAPL"}}`)},
		{Title: "Annual reports and their amendments by CIK, filed 2019 to 2024", Body: providers.ExampleBody(`{"company": {"cik": "320193"}, "forms": ["10-K", "10-K/A"], "filed_from": "2019-01-01", "filed_to": "2024-12-31", "num": 10}`)},
		{Title: "Facts reported in one filing's XBRL (Apple's 10-K for fiscal 2024)", Body: providers.ExampleBody(`{"company": {"cik": "320193"}, "view": "` + viewFinancials + `", "accession": "0000320193-24-000123"}`)},
		{Title: "Revenue by segment and product as filed", Body: providers.ExampleBody(`{"company": {"ticker": "AAPL"}, "view": "` + viewRevenueBreakdown + `", "accession": "0000320193-24-000123", "num": 10}`)},
	},
	Record:  FilingRecord{},
	Execute: execute,
}

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "companies.financials request",
  "description": "List a company's periodic reports on SEC EDGAR, or read the facts reported in one filing's XBRL. Only company is required.",
  "type": "object",
  "additionalProperties": false,
  "required": ["company"],
  "properties": {
    "company": {
      "type": "object",
      "additionalProperties": false,
      "minProperties": 1,
      "maxProperties": 1,
      "description": "The filer: exactly one of cik or ticker.",
      "properties": {
        "cik": {
          "type": "string",
          "pattern": "^[0-9]{1,10}$",
          "description": "EDGAR Central Index Key, 1 to 10 digits (leading zeros optional), e.g. \"320193\" or \"0000320193\"."
        },
        "ticker": {
          "type": "string",
          "pattern": "^[A-Za-z0-9][A-Za-z0-9.-]{0,14}$",
          "description": "Trading symbol as in EDGAR's ticker map, e.g. \"AAPL\" or \"BRK-B\" (case and . versus - do not matter). It must identify exactly one filer; otherwise use the CIK."
        }
      }
    },
    "view": {
      "type": "string",
      "enum": ["filings", "financials", "revenue_breakdown"],
      "default": "filings",
      "description": "filings: the company's periodic reports. financials: every numeric fact of the filing named by accession. revenue_breakdown: the filing's revenue facts with their segment, product and geography dimensions."
    },
    "accession": {
      "type": "string",
      "pattern": "^[0-9]{10}-[0-9]{2}-[0-9]{6}$",
      "description": "EDGAR accession number of a filing, e.g. \"0000320193-24-000123\". Required by the fact views; in the filings view it picks that one filing."
    },
    "forms": {
      "type": "array",
      "minItems": 1,
      "maxItems": 8,
      "uniqueItems": true,
      "items": {"type": "string", "enum": ["10-K", "10-Q", "20-F", "40-F", "10-K/A", "10-Q/A", "20-F/A", "40-F/A"]},
      "description": "Filings view: only these forms (default: all eight). Amendments are listed only when their /A form is named."
    },
    "filed_from": {
      "type": "string",
      "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
      "description": "Filings view: earliest filing date, YYYY-MM-DD (a real date, not after filed_to)."
    },
    "filed_to": {
      "type": "string",
      "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
      "description": "Filings view: latest filing date, YYYY-MM-DD (a real date)."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 10,
      "default": 5,
      "description": "Records per page, 1 to 10."
    },
    "fact_offset": {
      "type": "integer",
      "minimum": 0,
      "maximum": 1000000,
      "description": "Fact views: index of the first fact shown (0-based, document order); each call shows up to 100 facts from here. The continuation of a financials or revenue_breakdown detail sets it."
    }
  }
}`

// rules checks the rules beyond the schema: a CIK other than zero, real dates in order, an
// accession for the fact views, fact_offset only with a fact view. The ticker rule needs EDGAR's
// ticker map, so it is checked when the search runs (resolveCompany).
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	var vs []providers.Violation
	if company, ok := req.Object("company"); ok {
		if cik, ok := company.String("cik"); ok && normalizeCIK(cik) == "" {
			vs = append(vs, providers.Violation{Path: "/company/cik", Message: "cik must be a Central Index Key above 0"})
		}
	}
	dates := map[string]time.Time{}
	for _, field := range []string{"filed_from", "filed_to"} {
		s, ok := req.String(field)
		if !ok {
			continue
		}
		d, err := time.Parse(time.DateOnly, s)
		if err != nil || d.Year() < 1 {
			vs = append(vs, providers.Violation{Path: "/" + field,
				Message: fmt.Sprintf("%s must be a real calendar date (YYYY-MM-DD); %q is not", field, s)})
			continue
		}
		dates[field] = d
	}
	from, hasFrom := dates["filed_from"]
	to, hasTo := dates["filed_to"]
	if hasFrom && hasTo && from.After(to) {
		vs = append(vs, providers.Violation{Path: "/filed_from",
			Message: fmt.Sprintf("filed_from (%s) is after filed_to (%s)", from.Format(time.DateOnly), to.Format(time.DateOnly))})
	}
	view := viewOf(req)
	if isFactView(view) && !req.Has("accession") {
		vs = append(vs, providers.Violation{Path: "/accession",
			Message: fmt.Sprintf("the %s view reads one filing: accession is required (list the filings with view filings to find it)", view)})
	}
	if req.Has("fact_offset") && !isFactView(view) {
		vs = append(vs, providers.Violation{Path: "/fact_offset",
			Message: "fact_offset applies to the financials and revenue_breakdown views only (in an update, send fact_offset null to drop it)"})
	}
	return vs
}

func viewOf(req providers.Request) string {
	if v := req.Str("view"); v != "" {
		return v
	}
	return viewFilings
}

func isFactView(view string) bool { return view == viewFinancials || view == viewRevenueBreakdown }

func execute(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	cik, err := resolveCompany(ctx, call)
	if err != nil {
		return nil, err
	}
	view := viewOf(call.Request)
	if !isFactView(view) {
		return filingsPage(ctx, call, cik)
	}
	offset, _ := call.Request.Int("fact_offset")
	return factsPage(ctx, call, cik, call.Request.Str("accession"), view, max(offset, 0))
}

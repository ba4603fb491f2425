package legal

import (
	"context"
	"fmt"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/courtlistener"
)

// Search is legal.search (spec section 4.4).
var Search = &providers.Capability{
	ID:      "legal.search",
	Fresh:   24 * time.Hour,
	Title:   "Legal search (US case law, EU law)",
	Summary: "Find US court decisions (CourtListener) or EU judgments, legislation and opinions (EUR-Lex, through the Publications Office's CELLAR) and get the exact legal.read request for each.",
	Description: "Discovers legal sources; the results are source records, not legal opinions, and carry no snippet: " +
		"read the text with legal.read. `search` chooses the jurisdiction. " +
		"`{\"jurisdiction\": \"us\", \"query\", \"courts\", \"from_year\", \"to_year\"}` searches US case law on CourtListener " +
		"(keyword search; CourtListener's operators such as quotes, AND, OR and -word work; only published opinions): " +
		"`courts` is all (default), federal (federal appellate, district, bankruptcy and special courts) or state " +
		"(state supreme, appellate, trial and special courts); from_year / to_year bound the filing date (whole years). " +
		"`{\"jurisdiction\": \"eu\", \"query\", \"kind\", \"language\"}` searches the titles of EU documents in the official " +
		"EUR-Lex metadata (CELLAR): every word of the query must appear in the title in `language` (one of the 24 EU " +
		"languages, default EN); `kind` narrows to judgment (judgments of the Court of Justice and the General Court), " +
		"legislation (regulations, directives and decisions, including implementing and delegated acts) or opinion " +
		"(opinions and views of Advocates General, opinions of the Court); newest first. `num` sets the page size (1 to 10, " +
		"default 3). Each record: title, url, identifier (CourtListener cluster id, or CELEX number), source (courtlistener " +
		"or cellar), source_class (reproduction or official_publication), document_kind, and when the source has them " +
		"language, ecli, date, court, citations, docket_number and full_text: the exact legal.read request for the document " +
		"(`{\"capability\": \"legal.read\", \"params\": {\"document\": {...}}}`; US Supreme Court cases in U.S. Reports " +
		"volumes 1-542 are read from the official U.S. Reports (source us_reports), other US cases from CourtListener " +
		"(source scholar), EU documents from EUR-Lex (source eurlex)). Follow-ups: more (next page), update (change the " +
		"search; paging restarts) and the record action details (free, stored at search time: source identity, metadata and " +
		"the legal.read requests).",
	Topic:   "Research and reading",
	Request: requestSchema,
	Rules:   rules,
	Paging:  providers.PagingPage,
	Actions: []providers.Action{{
		Name: "details",
		Description: "The record's source identity and metadata as found at search time (court, dates, citations, docket, " +
			"precedential status, opinions; or CELEX, ECLI, resource type, date, language and the full title) and the exact " +
			"legal.read request (with alternatives) for its text. Stored at search time: free, no provider call.",
		Kind: providers.ActionStored,
	}},
	Cost: providers.Cost{
		Typical: 4,
		Basis: "US: $0.004 per CourtListener search page (4 credits for every execute, more or update); EU: CELLAR " +
			"SPARQL searches are free (0 credits: a direct official source, no search or fallback retrieval credits are " +
			"used); stored details are free",
	},
	Deadline:  40 * time.Second,
	Providers: []string{courtlistener.ProviderID, cellarID},
	Examples: []providers.Example{
		{Title: "US federal case law on the right to privacy, 1960 to 2020", Body: providers.ExampleBody(`{"search": {"jurisdiction": "us", "query": "right to privacy", "courts": "federal", "from_year": 1960, "to_year": 2020}, "num": 3}`)},
		{Title: "EU judgments on the protection of personal data, in English", Body: providers.ExampleBody(`{"search": {"jurisdiction": "eu", "query": "protection of personal data", "kind": "judgment", "language": "EN"}}`)},
		{Title: "EU legislation on the processing of personal data", Body: providers.ExampleBody(`{"search": {"jurisdiction": "eu", "query": "processing of personal data", "kind": "legislation"}, "num": 5}`)},
	},
	Record:  LegalRecord{},
	Execute: search,
}

// languages maps the spec's set L to the Publications Office language authority codes
// (http://publications.europa.eu/resource/authority/language/<code>).
var languages = map[string]string{
	"BG": "BUL", "CS": "CES", "DA": "DAN", "DE": "DEU", "EL": "ELL", "EN": "ENG", "ES": "SPA", "ET": "EST",
	"FI": "FIN", "FR": "FRA", "GA": "GLE", "HR": "HRV", "HU": "HUN", "IT": "ITA", "LT": "LIT", "LV": "LAV",
	"MT": "MLT", "NL": "NLD", "PL": "POL", "PT": "POR", "RO": "RON", "SK": "SLK", "SL": "SLV", "SV": "SWE",
}

// Defaults of the jurisdiction branches, as the schema declares them; the gateway fills them in,
// and the adapter reads an absent value the same way.
const (
	defaultCourts   = "all"
	defaultLanguage = "EN"
)

// requestSchema keys the search object on jurisdiction with if/then (one branch applies, so a
// violation names the field at fault, e.g. /search/query or /search/kind, and never the other
// branch's jurisdiction); each branch has additionalProperties false.
const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "legal.search request",
  "description": "Search US case law (jurisdiction us) or EU legal sources (jurisdiction eu). The results are source records, not legal opinions; read a document's text with the legal.read request in its full_text key.",
  "type": "object",
  "additionalProperties": false,
  "required": ["search"],
  "properties": {
    "search": {
      "type": "object",
      "description": "What to search for. jurisdiction chooses the shape: us {jurisdiction, query, courts, from_year, to_year} or eu {jurisdiction, query, kind, language}; fields of the other shape are refused.",
      "required": ["jurisdiction"],
      "properties": {
        "jurisdiction": {
          "type": "string",
          "enum": ["us", "eu"],
          "description": "us: US case law (CourtListener). eu: EU judgments, legislation and opinions (EUR-Lex metadata in CELLAR)."
        }
      },
      "allOf": [
        {
          "if": {"properties": {"jurisdiction": {"const": "us"}}, "required": ["jurisdiction"]},
          "then": {
            "additionalProperties": false,
            "required": ["query"],
            "properties": {
              "jurisdiction": {"const": "us"},
              "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": 500,
                "pattern": "\\S",
                "description": "Keywords searched in US court opinions (CourtListener keyword search: \"exact phrase\", AND, OR, -exclude and fielded queries such as caseName:roe work). Must not be blank."
              },
              "courts": {
                "type": "string",
                "enum": ["all", "federal", "state"],
                "default": "all",
                "description": "all: every court; federal: federal appellate (including the Supreme Court), district, bankruptcy and special courts; state: state supreme, appellate, trial and special courts."
              },
              "from_year": {
                "type": "integer",
                "minimum": 1600,
                "maximum": 2100,
                "description": "Only decisions filed in or after this year."
              },
              "to_year": {
                "type": "integer",
                "minimum": 1600,
                "maximum": 2100,
                "description": "Only decisions filed in or before this year; must not be before from_year."
              }
            }
          }
        },
        {
          "if": {"properties": {"jurisdiction": {"const": "eu"}}, "required": ["jurisdiction"]},
          "then": {
            "additionalProperties": false,
            "required": ["query"],
            "properties": {
              "jurisdiction": {"const": "eu"},
              "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": 500,
                "pattern": "\\S",
                "description": "Words that must all appear in the document's title in the chosen language (case-insensitive; a case number such as C-131/12 or an act number such as 2016/679 is a word too). Must not be blank."
              },
              "kind": {
                "type": "string",
                "enum": ["judgment", "legislation", "opinion"],
                "description": "judgment: judgments of the EU courts; legislation: regulations, directives and decisions (including implementing and delegated acts); opinion: opinions and views of Advocates General and opinions of the Court. Absent: all of these."
              },
              "language": {
                "type": "string",
                "enum": ["BG", "CS", "DA", "DE", "EL", "EN", "ES", "ET", "FI", "FR", "GA", "HR", "HU", "IT", "LT", "LV", "MT", "NL", "PL", "PT", "RO", "SK", "SL", "SV"],
                "default": "EN",
                "description": "Language of the titles searched and shown, and of the legal.read request (one of the 24 official EU languages)."
              }
            }
          }
        }
      ]
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 10,
      "default": 3,
      "description": "Results per page, 1 to 10."
    }
  }
}`

// rules checks the rule beyond the schema: from_year must not exceed to_year (equal is a single year).
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	s, ok := req.Object("search")
	if !ok {
		return nil
	}
	from, okFrom := s.Int("from_year")
	to, okTo := s.Int("to_year")
	if okFrom && okTo && from > to {
		return []providers.Violation{{Path: "/search/from_year",
			Message: fmt.Sprintf("from_year (%d) must not exceed to_year (%d)", from, to)}}
	}
	return nil
}

func search(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	s, ok := call.Request.Object("search")
	if !ok {
		return nil, providers.InvalidField("/search", "search must be an object")
	}
	num, ok := call.Request.Int("num")
	if !ok || num < 1 {
		num = 3
	}
	switch s.Str("jurisdiction") {
	case "us":
		return searchUS(ctx, call, s, num)
	case "eu":
		return searchEU(ctx, call, s, num)
	}
	return nil, providers.InvalidField("/search/jurisdiction", "jurisdiction must be us or eu")
}

// readRequest is the typed legal.read request a record's full_text and details carry.
func readRequest(document ReadDocument) *ReadRequest {
	return &ReadRequest{Capability: "legal.read", Params: ReadParams{Document: document}}
}

// maxTitle bounds a record title (in runes); details keep the full title.
const maxTitle = 300

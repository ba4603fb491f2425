package legalread

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// Source values of document.source, and the source classes of the spec's details table.
const (
	sourceEurlex     = "eurlex"
	sourceUSReports  = "us_reports"
	sourceScholar    = "scholar"
	sourceHistorical = "historical"

	classOfficial      = "official_publication"
	classTranscription = "institutional_transcription"
	classReproduction  = "reproduction"

	// historicalWorkID is the one work of source historical (DESIGN.md section 4).
	historicalWorkID = "warren-brandeis-1890-right-to-privacy"
	defaultLanguage  = "EN"
	maxTitleRunes    = 300
)

// now is the retrieval clock (tests fix it).
var now = func() time.Time { return time.Now().UTC() }

// Read is legal.read (spec section 4.3).
var Read = &providers.Capability{
	ID:      "legal.read",
	Fresh:   24 * time.Hour,
	Title:   "Read a legal document",
	Summary: "Read one identified legal text (an EU act from EUR-Lex, a U.S. Reports opinion, a CourtListener case, or the 1890 Warren & Brandeis article) as bounded sections with source provenance.",
	Description: "Reads one identified legal document and returns it as bounded text sections (at most 4,000 characters " +
		"each, cut at article, paragraph or page boundaries), in order, with source provenance. `document` is one " +
		"of four shapes chosen by `document.source`: `eurlex` with `celex` (the exact CELEX number, e.g. 32016R0679; " +
		"no guessing) and `language` (one of the 24 EU languages, default EN), read from EUR-Lex's HTML; " +
		"`us_reports` with `item_id` (usrep + 3-digit volume + 3-digit first page, e.g. usrep277438 for 277 U.S. 438), " +
		"read from the Library of Congress PDF of the official U.S. Reports; `scholar` with `caselaw_id` (a " +
		"CourtListener opinion cluster id) for the opinions of a U.S. case as CourtListener reproduces them; and " +
		"`historical` with `work_id` warren-brandeis-1890-right-to-privacy (\"The Right to Privacy\", 4 Harv. L. Rev. " +
		"193 (1890)) from a university-hosted transcription. `num` (1 to 10, default 3) is the number of sections per " +
		"page. Each record is one section: title, url (the source, at the section's anchor or PDF page), snippet (the " +
		"complete text of the section), identifier, source_class, section and total_sections, extraction_method and " +
		"language (always), pdf_page (the PDF page index) and printed_page (the page number printed on that page, " +
		"which differs from the PDF index) for PDF sources when known, and paragraph_anchors (the anchors beginning " +
		"in the section, such as art_5, 005.001 or \"art_4 point (1)\" on EUR-Lex) when the source has them. The " +
		"whole document is held in the session: more continues it for free; update reads another document; the " +
		"record action details returns the stored section with its full provenance (title, identifier, source, " +
		"source_class, language, source_url, retrieved_at, source_sha256, extraction_method, legal_status " +
		"not_assessed, text, anchors, pdf_page, printed_page, section, total_sections, " +
		"complete_document_available_through_more). A source that answers a challenge, captcha, refusal or error " +
		"page is reported as provider_error, never returned as text. EUR-Lex and the historical transcription fall " +
		"back to a scraper API when they fail or answer a challenge (charged at the scraper's actual credits x $0.005); " +
		"scholar reads cost $0.004; everything else is free.",
	Topic:   "Research and reading",
	Request: requestSchema,
	Rules:   rules,
	Paging:  providers.PagingLocal,
	Actions: []providers.Action{{
		Name: "details",
		Description: "The complete stored section with its provenance: title, identifier, source, source_class, language, " +
			"source_url, retrieved_at, source_sha256, extraction_method, legal_status (not_assessed), text, anchors, " +
			"pdf_page, printed_page, section, total_sections and complete_document_available_through_more. Free; stored " +
			"at read time and never re-fetched.",
		Kind: providers.ActionStored,
	}},
	Cost: providers.Cost{
		Typical: 0,
		Basis: "Direct official and historical texts are free; a scholar (CourtListener) case retrieval is $0.004 (4 credits); " +
			"an EUR-Lex or historical read through the scraper fallback costs the scraper's actual credits x $0.005; " +
			"buffered sections (more) and stored details are free.",
	},
	Deadline: 40 * time.Second,
	// The keyless sources decide availability; scholar also needs CourtListener's token and is
	// answered capability_unavailable without it (doc.go).
	Providers: []string{eurlexID, locID, historicalID},
	Examples: []providers.Example{
		{Title: "An EU regulation from EUR-Lex (the GDPR), in English", Body: providers.ExampleBody(`{"document": {"source": "` + sourceEurlex + `", "celex": "32016R0679", "language": "EN"}}`)},
		{Title: "A U.S. Supreme Court opinion as printed in the U.S. Reports (277 U.S. 438), two sections per page", Body: providers.ExampleBody(`{"document": {"source": "` + sourceUSReports + `", "item_id": "usrep277438"}, "num": 2}`)},
		{Title: "A U.S. case's opinions from CourtListener, one section per page", Body: providers.ExampleBody(`{"document": {"source": "` + sourceScholar + `", "caselaw_id": "101320"}, "num": 1}`)},
		{Title: "Warren and Brandeis, \"The Right to Privacy\" (1890)", Body: providers.ExampleBody(`{"document": {"source": "` + sourceHistorical + `", "work_id": "` + historicalWorkID + `"}, "num": 2}`)},
	},
	Record:  SectionRecord{},
	Execute: read,
}

// SectionRecord is a legal.read record: one section of the document read.
type SectionRecord struct {
	Identifier       string   `json:"identifier" doc:"the document's identifier at its source (CELEX, U.S. Reports citation, ...)"`
	SourceClass      string   `json:"source_class" doc:"what kind of text this is: official, transcription, ..."`
	Language         string   `json:"language"`
	Section          int      `json:"section" doc:"1-based"`
	TotalSections    int      `json:"total_sections"`
	ExtractionMethod string   `json:"extraction_method" doc:"how the text was extracted (html_parse, pdf text, ...)"`
	PDFPage          int      `json:"pdf_page,omitempty" doc:"the PDF page the section starts on"`
	PrintedPage      string   `json:"printed_page,omitempty" doc:"the printed page number the section starts on"`
	ParagraphAnchors []string `json:"paragraph_anchors,omitempty"`
}

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "legal.read request",
  "description": "Read one identified legal document as bounded sections. document is one of four shapes chosen by document.source (eurlex, us_reports, scholar, historical); each shape admits only its own fields.",
  "type": "object",
  "additionalProperties": false,
  "required": ["document"],
  "properties": {
    "document": {
      "type": "object",
      "description": "The document to read: one of four shapes chosen by source. eurlex: {source, celex, language}; us_reports: {source, item_id}; scholar: {source, caselaw_id}; historical: {source, work_id}.",
      "required": ["source"],
      "properties": {
        "source": {
          "type": "string",
          "enum": ["eurlex", "us_reports", "scholar", "historical"],
          "description": "Where the document comes from: eurlex (EU law on EUR-Lex), us_reports (the official U.S. Reports as digitised by the Library of Congress), scholar (a U.S. case on CourtListener) or historical (the 1890 Warren and Brandeis article)."
        }
      },
      "allOf": [
        {
          "if": {"properties": {"source": {"const": "eurlex"}}, "required": ["source"]},
          "then": {
            "additionalProperties": false,
            "required": ["source", "celex"],
            "properties": {
              "source": {"const": "eurlex"},
              "celex": {
                "type": "string",
                "pattern": "^[0-9][0-9A-Z()_/-]{5,50}$",
                "description": "The exact CELEX number of the document, for example 32016R0679 (a regulation) or 62014CJ0362 (a judgment). Read as given: no guessing or correction."
              },
              "language": {
                "type": "string",
                "enum": ["BG", "CS", "DA", "DE", "EL", "EN", "ES", "ET", "FI", "FR", "GA", "HR", "HU", "IT", "LT", "LV", "MT", "NL", "PL", "PT", "RO", "SK", "SL", "SV"],
                "default": "EN",
                "description": "Language version to read (an EU language code, upper case). Default EN."
              }
            }
          }
        },
        {
          "if": {"properties": {"source": {"const": "us_reports"}}, "required": ["source"]},
          "then": {
            "additionalProperties": false,
            "required": ["source", "item_id"],
            "properties": {
              "source": {"const": "us_reports"},
              "item_id": {
                "type": "string",
                "pattern": "^usrep[0-9]{6}$",
                "description": "The Library of Congress item id of a U.S. Reports case: usrep, the volume in 3 digits and the first page in 3 digits, for example usrep277438 for 277 U.S. 438. Volume and page 000 are refused before any fetch."
              }
            }
          }
        },
        {
          "if": {"properties": {"source": {"const": "scholar"}}, "required": ["source"]},
          "then": {
            "additionalProperties": false,
            "required": ["source", "caselaw_id"],
            "properties": {
              "source": {"const": "scholar"},
              "caselaw_id": {
                "type": "string",
                "pattern": "^[0-9]{1,25}$",
                "description": "A CourtListener opinion cluster id (the number in https://www.courtlistener.com/opinion/<id>/...), for example 101320."
              }
            }
          }
        },
        {
          "if": {"properties": {"source": {"const": "historical"}}, "required": ["source"]},
          "then": {
            "additionalProperties": false,
            "required": ["source", "work_id"],
            "properties": {
              "source": {"const": "historical"},
              "work_id": {
                "const": "warren-brandeis-1890-right-to-privacy",
                "description": "The fixed identifier of Samuel D. Warren and Louis D. Brandeis, \"The Right to Privacy\", 4 Harvard Law Review 193 (1890)."
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
      "description": "Sections per page, 1 to 10. The whole document is held: more serves the following sections for free."
    }
  }
}`

// rules checks the rules beyond the schema. document is a union by source written as if/then
// branches (so a violation names only the chosen shape's field); the framework's default
// walker does not enter if/then, so the eurlex branch's declared default language is filled
// here, where every execute and update passes.
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	doc, ok := req.Object("document")
	if !ok {
		return nil
	}
	switch doc.Str("source") {
	case sourceEurlex:
		if !doc.Has("language") {
			doc["language"] = defaultLanguage
		}
	case sourceUSReports:
		// An invalid U.S. Reports identifier is refused before any fetch (spec 4.3): the
		// pattern admits volume or page 000, which no case has.
		id := doc.Str("item_id")
		if len(id) == len("usrep000000") {
			if vol, page := id[5:8], id[8:]; vol == "000" || page == "000" {
				return []providers.Violation{{Path: "/document/item_id", Message: fmt.Sprintf(
					"%q is not a U.S. Reports item: volume (%s) and first page (%s) start at 001, as in usrep277438 for 277 U.S. 438",
					id, vol, page)}}
			}
		}
	}
	return nil
}

// document is a read document before it is cut into sections.
type document struct {
	source      string
	identifier  string
	title       string
	sourceClass string
	language    string
	sourceURL   string
	sha256      string
	retrievedAt time.Time
	blocks      []block
	// sectionURL is the record url of a section (the source at its anchor or page).
	sectionURL func(c chunk) string
	links      []providers.Link
	notes      []string
	credits    int // actual charge in credits (0: free)
}

func read(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	doc, _ := call.Request.Object("document")
	var d *document
	var err error
	switch doc.Str("source") {
	case sourceEurlex:
		lang := doc.Str("language")
		if lang == "" {
			lang = defaultLanguage
		}
		d, err = readEurlex(ctx, call, doc.Str("celex"), lang)
	case sourceUSReports:
		d, err = readUSReports(ctx, call, doc.Str("item_id"))
	case sourceScholar:
		d, err = readScholar(ctx, call, doc.Str("caselaw_id"))
	case sourceHistorical:
		d, err = readHistorical(ctx, call)
	default:
		return nil, providers.InvalidField("/document/source", "unknown document source")
	}
	if err != nil {
		return nil, err
	}
	chunks := chunkBlocks(d.blocks)
	if len(chunks) == 0 {
		return nil, providers.Errorf(providers.CodeProviderError, "%s answered without any document text", d.source).WithRetryable(false)
	}
	if len(chunks) > maxSections {
		return nil, providers.Errorf(providers.CodeProviderError,
			"the document is too long to hold (%d sections of up to %d characters; at most %d are held)",
			len(chunks), maxChunkRunes, maxSections).WithRetryable(false)
	}
	page := &providers.Page{Records: d.records(chunks), Notes: d.notes}
	if d.credits > 0 {
		page.Credits = providers.Credits(d.credits)
	}
	return page, nil
}

// detail is the stored details answer: exactly the spec's keys, in its order.
type detail struct {
	Title               string   `json:"title"`
	Identifier          string   `json:"identifier"`
	Source              string   `json:"source"`
	SourceClass         string   `json:"source_class"`
	Language            string   `json:"language"`
	SourceURL           string   `json:"source_url"`
	RetrievedAt         string   `json:"retrieved_at"`
	SourceSHA256        string   `json:"source_sha256"`
	ExtractionMethod    string   `json:"extraction_method"`
	LegalStatus         string   `json:"legal_status"`
	Text                string   `json:"text"`
	Anchors             []string `json:"anchors,omitempty"`
	PDFPage             int      `json:"pdf_page,omitempty"`
	PrintedPage         string   `json:"printed_page,omitempty"`
	Section             int      `json:"section"`
	TotalSections       int      `json:"total_sections"`
	CompleteThroughMore bool     `json:"complete_document_available_through_more"`
}

// records turns the sections into records, each with its stored details.
func (d *document) records(chunks []chunk) []providers.Record {
	// "… 389 U.S. 347 (1967)." reads better as "… (1967), section 1 of 4".
	title := d.title
	if strings.HasSuffix(title, ").") {
		title = strings.TrimSuffix(title, ".")
	}
	title = providers.Clip(title, maxTitleRunes)
	retrieved := d.retrievedAt.UTC().Format(time.RFC3339)
	out := make([]providers.Record, 0, len(chunks))
	for i, c := range chunks {
		n := i + 1
		fields := &SectionRecord{Identifier: d.identifier, SourceClass: d.sourceClass, Language: d.language, Section: n,
			TotalSections: len(chunks), ExtractionMethod: c.method, PrintedPage: c.printed, ParagraphAnchors: c.anchors}
		if c.pdfPage > 0 {
			fields.PDFPage = c.pdfPage
		}
		det := &detail{
			Title: d.title, Identifier: d.identifier, Source: d.source, SourceClass: d.sourceClass,
			Language: d.language, SourceURL: d.sourceURL, RetrievedAt: retrieved, SourceSHA256: d.sha256,
			ExtractionMethod: c.method, LegalStatus: "not_assessed", Text: c.text, Anchors: c.anchors,
			PDFPage: c.pdfPage, PrintedPage: c.printed, Section: n, TotalSections: len(chunks),
			CompleteThroughMore: true,
		}
		url := d.sourceURL
		if d.sectionURL != nil {
			url = d.sectionURL(c)
		}
		out = append(out, providers.Record{
			Title:   title + ", section " + strconv.Itoa(n) + " of " + strconv.Itoa(len(chunks)),
			URL:     url,
			Snippet: c.text,
			Data:    fields,
			Stored:  map[string]*providers.Detail{"details": {Body: det, Links: d.links}},
		})
	}
	return out
}

package edgar

import "encoding/json"

// FilingRecord is an edgar.financials record: a filing (the filings view) or one XBRL fact (the
// fact views); a key the view or the source does not give is absent.
type FilingRecord struct {
	CIK       string `json:"cik" doc:"ten digits, zero-padded"`
	Accession string `json:"accession"`
	Source    string `json:"source"`
	// Filings view.
	Issuer          string `json:"issuer,omitempty"`
	Form            string `json:"form,omitempty"`
	FiledAt         string `json:"filed_at,omitempty"`
	ReportDate      string `json:"report_date,omitempty"`
	PrimaryDocument string `json:"primary_document,omitempty"`
	PrimaryURL      string `json:"primary_url,omitempty"`
	// AcceptedAt is null on a filing EDGAR gives no acceptance time for, absent on a fact.
	AcceptedAt  json.RawMessage `json:"accepted_at,omitempty" doc:"filings: when EDGAR accepted the filing (RFC 3339, US Eastern), or null"`
	IsAmendment *bool           `json:"is_amendment,omitempty" doc:"filings: the form ends in /A"`
	// Fact views.
	Concept           string      `json:"concept,omitempty" doc:"facts: the XBRL concept (QName)"`
	Label             string      `json:"label,omitempty" doc:"facts: the concept's label from the filing's label linkbase"`
	ContextID         string      `json:"context_id,omitempty"`
	FactID            string      `json:"fact_id,omitempty"`
	Value             any         `json:"value,omitempty" doc:"facts: a number when the fact is numeric, else its text"`
	Unit              *Unit       `json:"unit,omitempty"`
	Period            *Period     `json:"period,omitempty"`
	Dimensions        []Dimension `json:"dimensions,omitzero" doc:"facts: the context's dimensions, empty when none"`
	Decimals          string      `json:"decimals,omitempty"`
	Precision         string      `json:"precision,omitempty"`
	DuplicateFactIDs  []any       `json:"duplicate_fact_ids,omitempty" doc:"facts: ids (or null) of facts reported twice"`
	ConflictingValues *bool       `json:"conflicting_values,omitempty" doc:"facts: a duplicate reports another value"`
}

// Unit is a fact's unit: measures multiplied, divided by measures.
type Unit struct {
	Denominator []string `json:"denominator"`
	Numerator   []string `json:"numerator"`
}

// Period is a fact's period: start and end, or an instant.
type Period struct {
	End     string `json:"end,omitempty"`
	Instant string `json:"instant,omitempty"`
	Start   string `json:"start,omitempty"`
}

// Dimension is one dimension of a fact's context: explicit (a member) or typed (a value).
type Dimension struct {
	Container      string `json:"container,omitempty" doc:"scenario when the dimension sits in the context's scenario"`
	Dimension      string `json:"dimension"`
	DimensionLabel string `json:"dimension_label,omitempty"`
	Member         string `json:"member,omitempty" doc:"explicit dimensions"`
	MemberLabel    string `json:"member_label,omitempty"`
	TypedElement   string `json:"typed_element,omitempty" doc:"typed dimensions"`
	// Value is a typed dimension's value, null when the filing leaves it empty; absent on an
	// explicit dimension.
	Value json.RawMessage `json:"value,omitempty" doc:"typed dimensions: the value, or null"`
}

// nullableJSON is s as a JSON string, or null.
func nullableJSON(s *string) json.RawMessage {
	if s == nil {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(*s)
	return b
}

// FactsDetail is the financials / revenue_breakdown detail; fields in key order (a detail is
// written in declared order).
type FactsDetail struct {
	Accession        string          `json:"accession"`
	CIK              string          `json:"cik"`
	ContentSHA256    string          `json:"content_sha256"`
	Continuation     Continuation    `json:"continuation"`
	ExtractionStatus string          `json:"extraction_status"`
	FactCount        int             `json:"fact_count"`
	Facts            []Fact          `json:"facts"`
	Notes            []string        `json:"notes"`
	RetrievedAt      string          `json:"retrieved_at"`
	Source           string          `json:"source"`
	SourceDocuments  SourceDocuments `json:"source_documents"`
	Truncated        bool            `json:"truncated"`
}

// Continuation is the companies.financials request that lists the facts as records.
type Continuation struct {
	Body       ContinuationBody `json:"body"`
	Capability string           `json:"capability"`
}

// ContinuationBody is a companies.financials request body; fields in key order.
type ContinuationBody struct {
	Accession  string     `json:"accession"`
	Company    CompanyCIK `json:"company"`
	FactOffset int        `json:"fact_offset,omitempty"`
	View       string     `json:"view"`
}

// CompanyCIK names a company by CIK.
type CompanyCIK struct {
	CIK string `json:"cik"`
}

// SourceDocuments are the XBRL files the facts were read from.
type SourceDocuments struct {
	Instance string `json:"instance"`
	Labels   string `json:"labels,omitempty"`
}

// Fact is a fact as the financials and revenue_breakdown details show it (spec 4.20): every key
// present, null when the filing has no value; fields in key order.
type Fact struct {
	Concept           string      `json:"concept"`
	ConflictingValues bool        `json:"conflicting_values"`
	ContextID         string      `json:"context_id"`
	Decimals          *string     `json:"decimals"`
	Dimensions        []Dimension `json:"dimensions"`
	DuplicateFactIDs  []any       `json:"duplicate_fact_ids"`
	Entity            Entity      `json:"entity"`
	FactID            *string     `json:"fact_id"`
	Label             *string     `json:"label"`
	Period            FactPeriod  `json:"period"`
	Precision         *string     `json:"precision"`
	SourceURL         string      `json:"source_url"`
	Unit              *Unit       `json:"unit"`
	Value             *string     `json:"value"`
}

// Entity is the reporting entity of a fact's context.
type Entity struct {
	Identifier string `json:"identifier"`
	Scheme     string `json:"scheme"`
}

// FactPeriod is a fact's period with every key present (null when absent).
type FactPeriod struct {
	End     *string `json:"end"`
	Instant *string `json:"instant"`
	Start   *string `json:"start"`
}

// FilingDetail is the details answer of a filing; fields in key order.
type FilingDetail struct {
	// AcceptedAt is null when EDGAR gives no acceptance time, absent when the filing is not in
	// the submissions list.
	AcceptedAt                 json.RawMessage `json:"accepted_at,omitempty"`
	Accession                  string          `json:"accession"`
	CIK                        string          `json:"cik"`
	Documents                  []Document      `json:"documents"`
	FiledAt                    string          `json:"filed_at,omitempty"`
	FilingIndexURL             string          `json:"filing_index_url"`
	FolderURL                  string          `json:"folder_url"`
	Form                       string          `json:"form,omitempty"`
	IsAmendment                *bool           `json:"is_amendment,omitempty"`
	IsInlineXBRL               *bool           `json:"is_inline_xbrl,omitempty"`
	IsXBRL                     *bool           `json:"is_xbrl,omitempty"`
	Issuer                     string          `json:"issuer,omitempty"`
	LabelLinkbaseURL           string          `json:"label_linkbase_url,omitempty"`
	Notes                      []string        `json:"notes"`
	PrimaryDocument            string          `json:"primary_document,omitempty"`
	PrimaryDocumentDescription string          `json:"primary_document_description,omitempty"`
	PrimaryURL                 string          `json:"primary_url,omitempty"`
	ReportDate                 string          `json:"report_date,omitempty"`
	Source                     string          `json:"source"`
	XBRLInstanceURL            string          `json:"xbrl_instance_url,omitempty"`
}

// Document is one file of a filing's folder; fields in key order.
type Document struct {
	LastModified string `json:"last_modified,omitempty"`
	Name         string `json:"name"`
	Size         *int64 `json:"size,omitempty"`
	URL          string `json:"url"`
}

// nullStr is s, or nil when empty.
func nullStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

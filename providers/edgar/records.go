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

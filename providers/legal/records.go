package legal

// LegalRecord is a legal.search record: a US case (CourtListener) or an EU document (CELLAR); a
// key the source does not give is absent.
type LegalRecord struct {
	Identifier   string       `json:"identifier" doc:"US: the CourtListener cluster id; EU: the CELEX number"`
	Source       string       `json:"source"`
	SourceClass  string       `json:"source_class"`
	DocumentKind string       `json:"document_kind,omitempty"`
	Language     string       `json:"language,omitempty" doc:"EU: the language asked for"`
	Date         string       `json:"date,omitempty" doc:"YYYY-MM-DD"`
	Court        string       `json:"court,omitempty" doc:"US"`
	Citations    []string     `json:"citations,omitempty" doc:"US: reporter citations, e.g. 389 U.S. 347"`
	DocketNumber string       `json:"docket_number,omitempty" doc:"US"`
	ECLI         string       `json:"ecli,omitempty" doc:"EU"`
	FullText     *ReadRequest `json:"full_text,omitempty" doc:"the legal.read request that reads the document's text"`
}

// ReadRequest is a legal.read request a record and its details carry; fields in key order.
type ReadRequest struct {
	Capability string     `json:"capability"`
	Params     ReadParams `json:"params"`
}

// ReadParams is a legal.read request body.
type ReadParams struct {
	Document ReadDocument `json:"document"`
}

// ReadDocument names the document to read; fields in key order.
type ReadDocument struct {
	CaselawID string `json:"caselaw_id,omitempty"`
	Celex     string `json:"celex,omitempty"`
	ItemID    string `json:"item_id,omitempty"`
	Language  string `json:"language,omitempty"`
	Source    string `json:"source"`
}

// LegalDetail is the stored details of a record; fields in key order (a detail is written in
// declared order). US and EU keys differ; a key the jurisdiction does not have is absent.
type LegalDetail struct {
	CaseNameFull          string        `json:"case_name_full,omitempty"`
	Celex                 string        `json:"celex,omitempty"`
	CellarWork            string        `json:"cellar_work,omitempty"`
	Citations             []string      `json:"citations,omitempty"`
	CiteCount             *int64        `json:"cite_count,omitempty"`
	ClusterID             string        `json:"cluster_id,omitempty"`
	Court                 string        `json:"court,omitempty"`
	CourtCitationString   string        `json:"court_citation_string,omitempty"`
	CourtID               string        `json:"court_id,omitempty"`
	Date                  string        `json:"date,omitempty"`
	DateArgued            string        `json:"date_argued,omitempty"`
	DateFiled             string        `json:"date_filed,omitempty"`
	DocketID              string        `json:"docket_id,omitempty"`
	DocketNumber          string        `json:"docket_number,omitempty"`
	DocumentKind          string        `json:"document_kind,omitempty"`
	ECLI                  string        `json:"ecli,omitempty"`
	Identifier            string        `json:"identifier"`
	Judges                string        `json:"judges,omitempty"`
	Jurisdiction          string        `json:"jurisdiction"`
	Language              string        `json:"language,omitempty"`
	LegalRead             *ReadRequest  `json:"legal_read,omitempty"`
	LegalReadAlternatives []ReadRequest `json:"legal_read_alternatives,omitempty"`
	NatureOfSuit          string        `json:"nature_of_suit,omitempty"`
	Opinions              []Opinion     `json:"opinions,omitempty"`
	PrecedentialStatus    string        `json:"precedential_status,omitempty"`
	ResourceType          string        `json:"resource_type,omitempty"`
	Source                string        `json:"source"`
	SourceClass           string        `json:"source_class"`
	Title                 string        `json:"title,omitempty"`
	URL                   string        `json:"url,omitempty"`
}

// Opinion is one opinion of a US case; fields in key order.
type Opinion struct {
	AuthorID  string `json:"author_id,omitempty"`
	ID        string `json:"id"`
	PerCuriam *bool  `json:"per_curiam,omitempty"`
	Type      string `json:"type,omitempty"`
}

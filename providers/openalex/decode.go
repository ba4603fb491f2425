package openalex

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/capgate/capgate/providers/internal/lenient"
)

// OpenAlex's Work object is decoded leniently: a field that is absent, null or of an unexpected
// type reads as "not there" (never a panic, never a failed page), so one odd work or field costs
// only itself.

// optInt is an integer that may be absent, null or of another type (2018.0 counts, 2018.5 and
// "2018" do not).
type optInt struct {
	V  int
	OK bool
}

func (n *optInt) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*n = optInt{}
	if dec.PeekKind() != '0' {
		return dec.SkipValue()
	}
	num, err := dec.ReadValue()
	if err != nil {
		return err
	}
	f, perr := strconv.ParseFloat(string(num), 64)
	if perr != nil || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return nil
	}
	*n = optInt{V: int(f), OK: true}
	return nil
}

// UnmarshalJSON serves encoding/json callers; it never fails.
func (n *optInt) UnmarshalJSON(b []byte) error {
	_ = lenient.Unmarshal(b, n)
	return nil
}

// work is the part of OpenAlex's Work object the capability maps (the select= fields).
type work struct {
	ID                    lenient.Str                             `json:"id"`
	DOI                   lenient.Str                             `json:"doi"`
	DisplayName           lenient.Str                             `json:"display_name"`
	Title                 lenient.Str                             `json:"title"`
	PublicationYear       optInt                                  `json:"publication_year"`
	PublicationDate       lenient.Str                             `json:"publication_date"`
	Type                  lenient.Str                             `json:"type"`
	PrimaryLocation       lenient.Opt[location]                   `json:"primary_location"`
	BestOALocation        lenient.Opt[location]                   `json:"best_oa_location"`
	OpenAccess            lenient.Opt[openAccess]                 `json:"open_access"`
	Authorships           lenient.Opt[[]lenient.Opt[authorship]]  `json:"authorships"`
	CitedByCount          optInt                                  `json:"cited_by_count"`
	CountsByYear          lenient.Opt[[]lenient.Opt[countByYear]] `json:"counts_by_year"`
	AbstractInvertedIndex json.RawMessage                         `json:"abstract_inverted_index"`
}

// location is a Work's Location object (primary_location, best_oa_location).
type location struct {
	IsOA           lenient.Opt[bool]   `json:"is_oa"`
	LandingPageURL lenient.Str         `json:"landing_page_url"`
	PDFURL         lenient.Str         `json:"pdf_url"`
	License        lenient.Str         `json:"license"`
	Version        lenient.Str         `json:"version"`
	Source         lenient.Opt[source] `json:"source"`
}

// source is the dehydrated Source of a location (journal, repository, conference).
type source struct {
	DisplayName lenient.Str `json:"display_name"`
}

// openAccess is a Work's open_access object.
type openAccess struct {
	IsOA     lenient.Opt[bool] `json:"is_oa"`
	OAStatus lenient.Str       `json:"oa_status"`
	OAURL    lenient.Str       `json:"oa_url"`
}

// authorship is one entry of a Work's authorships.
type authorship struct {
	Author lenient.Opt[struct {
		DisplayName lenient.Str `json:"display_name"`
	}] `json:"author"`
	RawAuthorName lenient.Str `json:"raw_author_name"`
}

// countByYear is one entry of a Work's counts_by_year.
type countByYear struct {
	Year         optInt `json:"year"`
	CitedByCount optInt `json:"cited_by_count"`
}

// title is the work's display_name, else its title, whitespace collapsed.
func (w *work) title() string {
	for _, s := range []lenient.Str{w.DisplayName, w.Title} {
		if t := strings.Join(strings.Fields(string(s)), " "); t != "" {
			return t
		}
	}
	return ""
}

// venue is the primary location's source name.
func (w *work) venue() string {
	return string(w.PrimaryLocation.V.Source.V.DisplayName)
}

// authors lists the authors' display names in authorship order (the raw name when OpenAlex
// matched no author record), at most max.
func (w *work) authors(max int) []string {
	var out []string
	for _, a := range w.Authorships.V {
		name := a.V.Author.V.DisplayName
		if name == "" {
			name = a.V.RawAuthorName
		}
		if name == "" {
			continue
		}
		out = append(out, string(name))
		if len(out) == max {
			break
		}
	}
	return out
}

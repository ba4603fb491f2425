package npm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Search is jspkg.search (spec 4.9).
var Search = &providers.Capability{
	ID:      "jspkg.search",
	Fresh:   time.Hour,
	Title:   "JavaScript package search",
	Summary: "Search the JavaScript package registry by keywords, with the registry's keywords:, scope: and maintainer: qualifiers.",
	Description: "Full-text search of the JavaScript package registry. text is passed to the registry as it is, so " +
		"its search qualifiers work: keywords:a,b (packages with any of the keywords; + means and, ,- " +
		"excludes), scope:name, maintainer:name, author:name, not:unstable, is:unstable, not:insecure, " +
		"is:insecure and boost-exact:false. size (1..250, default 10) packages a page, from (default 0) " +
		"skips the first results. Each record is one package: title (the name), url (its page on the " +
		"registry's website), snippet (the description) and the keys package (string, always), version " +
		"(latest version), repository (repository URL), published_at (when the latest version was " +
		"published, ISO 8601), keywords (string[]), maintainers (object[]: username, email), links " +
		"(object: npm, homepage, repository, bugs), score (object: final and detail {quality, " +
		"popularity, maintenance}) and search_score (number, the relevance of the hit); each key except " +
		"package only when the registry has it. Follow-ups: more (the next page, by provider offset), " +
		"update (change text, size or from; paging restarts) and the record action details (free): the " +
		"package's full metadata document with every version manifest and the README when available, " +
		"refused with provider_error when over 8 MiB (use jspkg.package with a version then).",
	Topic:         "Dev",
	Request:       searchRequestSchema,
	Paging:        providers.PagingOffset,
	PageSizeField: "size",
	Cost:          providers.Cost{Typical: 0, Basis: "Free: the JavaScript package registry's search is a keyless public API; pages and details lookups cost no credits."},
	Deadline:      15 * time.Second,
	Providers:     []string{RegistryID},
	Actions: []providers.Action{{
		Name: "details",
		Description: "The package's full metadata document from the registry: every version manifest, the " +
			"dist-tags, publish times, maintainers and the README when available. Free registry lookup; " +
			"documents over 8 MiB are refused with provider_error (use jspkg.package with a version).",
		Kind:    providers.ActionLookup,
		Credits: 0,
		Run:     searchDetails,
	}},
	Examples: []providers.Example{
		{Title: "Packages for a task, three per page", Body: providers.ExampleBody(`{"text": "argument parser", "size": 3}`)},
		{Title: "Packages with a keyword, excluding pre-1.0 versions", Body: providers.ExampleBody(`{"text": "keywords:cli not:unstable", "size": 5}`)},
	},
	Execute: searchPackages,
	Record:  SearchRecord{},
}

const searchRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "jspkg.search request",
  "description": "Full-text search of the JavaScript package registry; the registry's qualifiers pass through in text.",
  "type": "object",
  "additionalProperties": false,
  "required": ["text"],
  "properties": {
    "text": {
      "type": "string",
      "minLength": 1,
      "maxLength": 1000,
      "pattern": "\\S",
      "description": "Search text. Registry qualifiers pass through: keywords:a,b (any of; + for all of; ,-x excludes), scope:name, maintainer:name, author:name, not:unstable, is:unstable, not:insecure, is:insecure, boost-exact:false."
    },
    "size": {
      "type": "integer",
      "minimum": 1,
      "maximum": 250,
      "default": 10,
      "description": "Packages per page (1 to 250)."
    },
    "from": {
      "type": "integer",
      "minimum": 0,
      "default": 0,
      "description": "Offset of the first result of the first page (0 = from the top); more continues after the last page."
    }
  }
}`

// offsetState is the opaque paging state: the registry offset of the page to fetch.
type offsetState struct {
	From int `json:"from"`
}

// searchAnswer is the registry's /-/v1/search answer, decoded leniently.
type searchAnswer struct {
	Objects json.RawMessage `json:"objects"`
	Total   lenient.Int     `json:"total"`
}

type searchObject struct {
	Package     lenient.Obj[searchPackage] `json:"package"`
	Score       json.RawMessage            `json:"score"`
	SearchScore lenient.Float              `json:"searchScore"`
}

type searchPackage struct {
	Name        lenient.Str               `json:"name"`
	Version     lenient.Str               `json:"version"`
	Description lenient.Str               `json:"description"`
	Keywords    lenient.List[lenient.Str] `json:"keywords"`
	Date        lenient.Str               `json:"date"`
	Links       json.RawMessage           `json:"links"`
	Maintainers json.RawMessage           `json:"maintainers"`
}

func searchPackages(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	from, _ := call.Request.Int("from")
	if len(call.State) > 0 {
		var st offsetState
		if err := json.Unmarshal(call.State, &st); err != nil || st.From < 0 {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
		from = st.From
	}
	size, ok := call.Request.Int("size")
	if !ok || size < 1 {
		size = 10
	}
	q := url.Values{}
	q.Set("text", call.Request.Str("text"))
	q.Set("size", strconv.Itoa(size))
	q.Set("from", strconv.Itoa(from))

	var ans searchAnswer
	if err := call.Upstream(RegistryID).GetJSON(ctx, "/-/v1/search", q, &ans); err != nil {
		return nil, searchError(err)
	}
	// The offset advances by the hits the registry returned, usable or not; an absent or
	// non-array objects member is an empty page.
	var hits []json.RawMessage
	_ = json.Unmarshal(ans.Objects, &hits)
	page := &providers.Page{Records: make([]providers.Record, 0, len(hits))}
	for _, raw := range hits {
		var o searchObject
		if json.Unmarshal(raw, &o) != nil {
			continue
		}
		if rec, ok := searchRecord(o); ok {
			page.Records = append(page.Records, rec)
		}
	}
	next := from + len(hits)
	page.HasMore = len(hits) > 0 && ans.Total.OK && int64(next) < ans.Total.V
	if page.HasMore {
		page.Next, _ = json.Marshal(offsetState{From: next})
	}
	return page, nil
}

// searchError maps a refused search: the only caller-controlled parameter the registry can refuse
// is text (size and from are within the documented limits), so a 400 or 422 with an error
// message becomes invalid_request at /text.
func searchError(err error) error {
	status, msg := upstreamStatus(err)
	if (status == http.StatusBadRequest || status == http.StatusUnprocessableEntity) && msg != "" {
		return providers.InvalidField("/text", "the registry refused the search text: "+msg)
	}
	return err
}

// searchRecord maps one search hit; a hit without a usable name is dropped (it has no title and
// no document to look up).
func searchRecord(o searchObject) (providers.Record, bool) {
	if o.Package.V == nil {
		return providers.Record{}, false
	}
	p := o.Package.V
	name := string(p.Name)
	if name == "" {
		return providers.Record{}, false
	}
	links, _ := stringMap(p.Links)
	f := &SearchRecord{Package: name, Version: string(p.Version), Links: links, Repository: links["repository"],
		PublishedAt: string(p.Date), Score: scoreOf(o.Score)}
	for _, k := range p.Keywords {
		if k != "" {
			f.Keywords = append(f.Keywords, string(k))
		}
	}
	if m, ok := objects(p.Maintainers); ok {
		f.Maintainers = m
	}
	if o.SearchScore.OK {
		f.SearchScore = &o.SearchScore.V
	}
	rec := providers.Record{
		Title:   name,
		URL:     webURL(links["npm"]),
		Snippet: providers.ClipLine(string(p.Description), maxSnippet),
		Data:    f,
	}
	if validPackageName(name) {
		rec.Ref, _ = json.Marshal(packageRef{Name: name})
	} else {
		rec.Actions = []string{} // a name the registry path cannot carry: no details
	}
	return rec, true
}

// scoreOf keeps the score object's numbers: final and detail {quality, popularity, maintenance}.
func scoreOf(raw json.RawMessage) *Score {
	var s struct {
		Final  lenient.Float `json:"final"`
		Detail lenient.Obj[struct {
			Quality     lenient.Float `json:"quality"`
			Popularity  lenient.Float `json:"popularity"`
			Maintenance lenient.Float `json:"maintenance"`
		}] `json:"detail"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	out := Score{}
	if s.Final.OK {
		out.Final = &s.Final.V
	}
	if d := s.Detail.V; d != nil {
		var detail ScoreDetail
		for _, p := range []struct {
			v   lenient.Float
			dst **float64
		}{{d.Quality, &detail.Quality}, {d.Popularity, &detail.Popularity}, {d.Maintenance, &detail.Maintenance}} {
			if p.v.OK {
				v := p.v.V
				*p.dst = &v
			}
		}
		if detail != (ScoreDetail{}) {
			out.Detail = &detail
		}
	}
	if out == (Score{}) {
		return nil
	}
	return &out
}

// packageRef is a search record's Ref: the package name the details lookup fetches.
type packageRef struct {
	Name string `json:"name"`
}

// searchDetails is the details lookup: the package's full metadata document.
func searchDetails(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref packageRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil || !validPackageName(ref.Name) {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this record has no package name the registry can look up, so it has no details")
	}
	u := call.Upstream(RegistryID)
	resp, err := u.Get(ctx, documentPath(ref.Name), nil, http.Header{"Accept": {"application/json"}})
	if err != nil {
		if status, _ := upstreamStatus(err); status == http.StatusNotFound {
			return nil, providers.Errorf(providers.CodeNotFound, "the registry no longer has the package %s", ref.Name)
		}
		return nil, oversize(err)
	}
	var doc map[string]json.RawMessage
	if err := u.Decode(resp, &doc); err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, providers.Errorf(providers.CodeProviderError, "%s answered a document that is not a JSON object", RegistryID).WithRetryable(false)
	}
	summary, _ := packumentRecord(ref.Name, doc)
	return &providers.Detail{Body: json.RawMessage(resp.Body), Links: detailLinks(summary)}, nil
}

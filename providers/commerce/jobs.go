package commerce

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

const (
	jobsEngine      = "google_jobs"
	jobsPerUpstream = 10  // listings google_jobs answers per page
	jobSnippetLen   = 300 // characters of the description shown as snippet
)

// JobsSearch is jobs.search (spec 4.22).
var JobsSearch = &providers.Capability{
	ID:      "jobs.search",
	Fresh:   time.Hour,
	Title:   "Job search",
	Summary: "Search job listings aggregated from job boards and employer sites (Google Jobs).",
	Description: "Searches Google Jobs (through SerpApi) for job listings. `query` is the job (title, skills, company), " +
		"`location` where it is (e.g. \"Berlin, Germany\"), `country` (two letters) and `language` localize the " +
		"search. `num` sets the page size (1 to 25, default 10); Google Jobs serves 10 listings per provider " +
		"page, so a page never holds more than the rest of one provider page and `more` continues where it " +
		"stopped. Each record is one listing: title, url (the listing's share link on Google, else its first " +
		"application link), snippet (the start of the description), and the keys company, location, posted_at " +
		"(as shown, e.g. \"3 days ago\"), schedule (e.g. Full-time) and salary when the listing has them, and " +
		"source (always: the site the listing comes from, e.g. LinkedIn). Follow-ups: more (provider cursor), " +
		"update, and the record action details (free, stored at search time; 410 session_expired once gone): " +
		"the full description, highlights ({title, items}), apply_options ({title, link}) and extensions, " +
		"with the application links.",
	Topic:   "Commerce and markets",
	Request: jobsSchema,
	Paging:  providers.PagingToken,
	Actions: []providers.Action{{
		Name: "details",
		Description: "The full listing stored at search time: description, highlights (qualifications, responsibilities, " +
			"benefits), apply_options ({title, link}) and extensions, with the application links. Free; " +
			"410 session_expired when the stored listing is gone.",
		Kind: providers.ActionStored,
	}},
	Cost: providers.Cost{
		Typical: 4,
		Basis:   "$0.004 per SerpApi Google Jobs page (execute, more and update); stored details are free",
	},
	Deadline:  40 * time.Second,
	Providers: []string{serpapi.ProviderID},
	Examples: []providers.Example{
		{Title: "Barista jobs in New York", Body: providers.ExampleBody(`{"query": "barista", "location": "New York, NY, United States"}`)},
		{Title: "Remote Go developer jobs in Germany, in English, five per page", Body: providers.ExampleBody(`{"query": "golang developer remote", "country": "de", "language": "en", "num": 5}`)},
	},
	Execute: searchJobs,
	Record:  JobRecord{},
}

// JobDetail is the details body of a job, stored at search time; fields in key order (a detail
// is written by encoding/json, which keeps the declared order).
type JobDetail struct {
	ApplyOptions []ApplyOption  `json:"apply_options"`
	Company      string         `json:"company,omitempty"`
	Description  string         `json:"description,omitempty"`
	Extensions   []string       `json:"extensions"`
	Highlights   []JobHighlight `json:"highlights"`
	JobID        string         `json:"job_id,omitempty"`
	Title        string         `json:"title"`
}

// ApplyOption is one place to apply.
type ApplyOption struct {
	Link  string `json:"link"`
	Title string `json:"title"`
}

// JobHighlight is one highlights section (qualifications, benefits, responsibilities).
type JobHighlight struct {
	Items []string `json:"items"`
	Title string   `json:"title,omitempty"`
}

// JobRecord is a jobs.search record (besides title and snippet); the details action has the
// description, highlights and apply links.
type JobRecord struct {
	Company  string `json:"company,omitempty"`
	Location string `json:"location,omitempty"`
	PostedAt string `json:"posted_at,omitempty" doc:"Google's wording, for example 3 days ago"`
	Schedule string `json:"schedule,omitempty" doc:"for example Full-time"`
	Salary   string `json:"salary,omitempty"`
	Source   string `json:"source" doc:"the board Google found the posting on"`
}

const jobsSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "jobs.search request",
  "description": "Search Google Jobs listings. Only query is required.",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500,
      "pattern": "\\S",
      "description": "The job to search for: a title, skills or a company, e.g. \"data engineer python\". Must not be blank."
    },
    "country": {
      "type": "string",
      "pattern": "^[a-zA-Z]{2}$",
      "description": "Two-letter country code (ISO 3166-1 alpha-2, e.g. us, gb, de) of the market to search; salaries are in this market's currency."
    },
    "language": {
      "type": "string",
      "minLength": 2,
      "maxLength": 12,
      "description": "Language code of the results, e.g. en, de, pt-BR."
    },
    "location": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200,
      "pattern": "\\S",
      "description": "Where the jobs are, best at city level, e.g. \"Austin, Texas, United States\"."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 25,
      "default": 10,
      "description": "Results per page, 1 to 25 (Google Jobs serves 10 per provider page; a page never spans two)."
    }
  }
}`

// jobsState is the paging state: the next_page_token of the upstream page ("" for the first) and
// the index in it where the caller's page begins.
type jobsState struct {
	Token  string `json:"token,omitempty"`
	Offset int    `json:"offset,omitempty"`
}

type jobsAnswer struct {
	JobsResults []json.RawMessage `json:"jobs_results"`
	Pagination  struct {
		NextPageToken json.RawMessage `json:"next_page_token"`
	} `json:"serpapi_pagination"`
}

func searchJobs(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	var st jobsState
	if len(call.State) > 0 {
		if err := json.Unmarshal(call.State, &st); err != nil || st.Offset < 0 {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
	}
	req := call.Request
	num, ok := req.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	q := url.Values{"q": {strings.TrimSpace(req.Str("query"))}}
	if s := req.Str("country"); s != "" {
		q.Set("gl", strings.ToLower(s))
	}
	if s := req.Str("language"); s != "" {
		q.Set("hl", s)
	}
	if s := strings.TrimSpace(req.Str("location")); s != "" {
		q.Set("location", s)
	}
	if st.Token != "" {
		q.Set("next_page_token", st.Token)
	}
	var ans jobsAnswer
	meta, err := serpapi.Search(ctx, call, jobsEngine, q, &ans)
	if err != nil {
		return nil, err
	}
	page := &providers.Page{Records: []providers.Record{}}
	if meta.NoResults() || len(ans.JobsResults) == 0 {
		return page, nil
	}
	results := ans.JobsResults
	from := min(st.Offset, len(results))
	to := min(from+num, len(results))
	for _, raw := range results[from:to] {
		if rec, ok := jobRecord(raw); ok {
			page.Records = append(page.Records, rec)
		}
	}
	next := stringOf(ans.Pagination.NextPageToken)
	switch {
	case to < len(results):
		page.HasMore = true
		page.Next, _ = json.Marshal(jobsState{Token: st.Token, Offset: to})
	case next != "":
		page.HasMore = true
		page.Next, _ = json.Marshal(jobsState{Token: next})
	}
	if to-from < num && page.HasMore {
		page.Notes = append(page.Notes, "Google Jobs serves 10 listings per provider page; this page holds the rest of one provider page and more continues with the next.")
	}
	return page, nil
}

// jobRecord maps one jobs_results entry; the full listing is stored for details.
func jobRecord(raw json.RawMessage) (providers.Record, bool) {
	job := objectOf(raw)
	if job == nil {
		return providers.Record{}, false
	}
	company := stringOf(job["company_name"])
	title := stringOf(job["title"])
	if title == "" {
		if company == "" {
			return providers.Record{}, false
		}
		title = "Job at " + company
	}
	ext := objectOf(job["detected_extensions"])
	source := strings.TrimSpace(strings.TrimPrefix(stringOf(job["via"]), "via "))
	if source == "" {
		source = jobsEngine
	}
	rec := providers.Record{Title: title, Data: &JobRecord{Company: company, Location: stringOf(job["location"]),
		PostedAt: stringOf(ext["posted_at"]), Schedule: stringOf(ext["schedule_type"]), Salary: stringOf(ext["salary"]), Source: source}}

	description := stringOf(job["description"])
	if description != "" {
		rec.Snippet = providers.ClipLine(description, jobSnippetLen)
	}
	detail := &JobDetail{Title: title, Company: company, JobID: stringOf(job["job_id"]), Description: description}
	highlights := []JobHighlight{}
	for _, h := range arrayOf(job["job_highlights"]) {
		m := objectOf(h)
		items := stringsOf(m["items"])
		if len(items) == 0 {
			continue
		}
		highlights = append(highlights, JobHighlight{Items: items, Title: stringOf(m["title"])})
	}
	detail.Highlights = highlights
	options := []ApplyOption{}
	links := []providers.Link{}
	for _, a := range arrayOf(job["apply_options"]) {
		m := objectOf(a)
		link := httpURL(stringOf(m["link"]))
		if link == "" {
			continue
		}
		t := stringOf(m["title"])
		if t == "" {
			t = "Apply"
		}
		options = append(options, ApplyOption{Title: t, Link: link})
		links = append(links, providers.Link{Label: "Apply on " + t, URL: link})
	}
	detail.ApplyOptions = options
	exts := stringsOf(job["extensions"])
	if exts == nil {
		exts = []string{}
	}
	detail.Extensions = exts

	if u := httpURL(stringOf(job["share_link"])); u != "" {
		rec.URL = u
		links = append([]providers.Link{{Label: "Listing on Google", URL: u}}, links...)
	} else if len(options) > 0 {
		rec.URL = options[0].Link
	}
	rec.Stored = map[string]*providers.Detail{"details": {Body: detail, Links: links}}
	return rec, true
}

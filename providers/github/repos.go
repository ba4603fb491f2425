package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// searchCap is GitHub's hard limit: a search serves only its first 1,000 results.
const searchCap = 1000

// maxBooleanOperators is GitHub's limit of AND, OR and NOT operators in one search query.
const maxBooleanOperators = 5

// RepoSearch is repo.search (named in spec section 1; shape designed in the capability issue).
var RepoSearch = &providers.Capability{
	ID:      "repo.search",
	Fresh:   time.Hour,
	Title:   "Code repository search",
	Summary: "Search public GitHub repositories by keywords and GitHub's qualifiers (language:, stars:, topic:, …), ranked by relevance, stars, forks or recent updates.",
	Description: "Searches public repositories on GitHub. Body: query (string, 1..256 characters, required; " +
		"keywords plus GitHub's repository search qualifiers, passed through as written: language:go, " +
		"stars:>1000, forks:>=50, topic:cli, user:NAME, org:NAME, repo:OWNER/NAME, in:name,description," +
		"readme,topics, license:mit, pushed:>2024-01-01, created:2020..2022, archived:false, fork:true, " +
		"size:<1000, is:public; at most five AND, OR or NOT operators), sort (best_match (default, " +
		"GitHub's relevance ranking), stars, forks or updated; the latter three descending) and num " +
		"(1..50 results a page, default 10). Each record is one repository: title (owner/name), url " +
		"(its GitHub page), snippet (its description) and the keys full_name (string, always), " +
		"description (string), language (string, the primary language), stars (integer), forks " +
		"(integer), open_issues (integer, open issues and pull requests), topics (string[]), license " +
		"(string, the SPDX id such as MIT, or the licence name when it has none), updated_at (string, " +
		"ISO 8601, when the repository last changed) and archived (boolean, always); the others only " +
		"when GitHub has them. Follow-ups: more (the next provider page; GitHub serves only the first " +
		"1,000 results of a search, so paging stops at the last whole page within them, with a note), " +
		"update (change query, sort or num; paging restarts) and the record action details (free): the " +
		"repository's README as GitHub stores it (Markdown for README.md; other markups such as " +
		"reStructuredText as they are), detail {full_name, path, markdown (up to 100,000 characters), " +
		"truncated (boolean), html_url}, with links to the repository page and the README page; a " +
		"repository without a README answers not_found. GitHub throttling (its primary and secondary " +
		"rate limits) answers rate_limited with Retry-After; a query GitHub cannot run answers " +
		"invalid_request at /query.",
	Topic:     "Dev",
	Request:   repoRequestSchema,
	Rules:     repoRules,
	Paging:    providers.PagingPage,
	Cost:      providers.Cost{Typical: 0, Basis: "Free: GitHub's REST search and README endpoints are public; pages and README lookups cost no credits."},
	Deadline:  15 * time.Second,
	Providers: []string{ProviderID},
	Actions: []providers.Action{{
		Name: "details",
		Description: "The repository's README from GitHub: {full_name, path, markdown (the README text, up to " +
			"100,000 characters), truncated, html_url}, with links to the repository and the README page. " +
			"not_found when the repository has no README. Free.",
		Kind:    providers.ActionLookup,
		Credits: 0,
		Run:     readmeDetails,
	}},
	Examples: []providers.Example{
		{Title: "Most-starred Go HTTP routers, five per page", Body: providers.ExampleBody(`{"query": "http router language:go", "sort": "stars", "num": 5}`)},
		{Title: "Recently updated static site generators with over 1,000 stars", Body: providers.ExampleBody(`{"query": "topic:static-site-generator stars:>1000", "sort": "updated"}`)},
	},
	Execute: searchRepos,
	Record:  RepoRecord{},
}

// RepoRecord is a repo.search record (besides title, url and snippet).
type RepoRecord struct {
	FullName    string   `json:"full_name" doc:"owner/name"`
	Description string   `json:"description,omitempty"`
	Language    string   `json:"language,omitempty"`
	Stars       *int     `json:"stars,omitempty"`
	Forks       *int     `json:"forks,omitempty"`
	OpenIssues  *int     `json:"open_issues,omitempty"`
	Topics      []string `json:"topics,omitempty"`
	License     string   `json:"license,omitempty" doc:"the SPDX id such as MIT, or the licence name when it has none"`
	UpdatedAt   string   `json:"updated_at,omitempty" doc:"ISO 8601, when the repository last changed"`
	Archived    bool     `json:"archived"`
}

// ReadmeDetail is the body of the details action (fields in key order: encoding/json writes
// them as declared).
type ReadmeDetail struct {
	FullName  string `json:"full_name"`
	HTMLURL   string `json:"html_url,omitempty"`
	Markdown  string `json:"markdown"`
	Path      string `json:"path,omitempty"`
	Truncated bool   `json:"truncated"`
}

const repoRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "repo.search request",
  "description": "Search public GitHub repositories; GitHub's search qualifiers pass through in query.",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 256,
      "pattern": "\\S",
      "description": "Search keywords and GitHub repository qualifiers, passed through as written: language:go, stars:>1000, forks:>=50, topic:cli, user:NAME, org:NAME, repo:OWNER/NAME, in:name,description,readme,topics, license:mit, pushed:>2024-01-01, created:2020..2022, archived:false, fork:true, size:<1000. At most 256 characters and five AND, OR or NOT operators."
    },
    "sort": {
      "type": "string",
      "enum": ["best_match", "stars", "forks", "updated"],
      "default": "best_match",
      "description": "Ranking: best_match (GitHub's relevance ranking), stars, forks or updated (most recently updated first); stars, forks and updated sort in descending order."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 50,
      "default": 10,
      "description": "Repositories per page (1 to 50)."
    }
  }
}`

// repoRules checks GitHub's operator limit, which a schema cannot express.
func repoRules(req providers.Request, _ *providers.Update) []providers.Violation {
	if n := booleanOperators(req.Str("query")); n > maxBooleanOperators {
		return []providers.Violation{{Path: "/query", Message: fmt.Sprintf(
			"GitHub accepts at most %d AND, OR or NOT operators in a query; this one has %d", maxBooleanOperators, n)}}
	}
	return nil
}

// booleanOperators counts the AND, OR and NOT operators of a query: upper-case words outside
// double-quoted phrases (GitHub reads lower-case "and" as a keyword).
func booleanOperators(q string) int {
	n := 0
	for i, part := range strings.Split(q, `"`) {
		if i%2 == 1 {
			continue // inside a quoted phrase
		}
		for _, w := range strings.Fields(part) {
			if w == "AND" || w == "OR" || w == "NOT" {
				n++
			}
		}
	}
	return n
}

// pageState is the opaque paging state: the GitHub page number (1-based) to fetch.
type pageState struct {
	Page int `json:"page"`
}

// searchAnswer is GitHub's search answer {total_count, incomplete_results, items[]}, decoded leniently.
type searchAnswer struct {
	TotalCount        lenient.Int      `json:"total_count"`
	IncompleteResults lenient.Bool     `json:"incomplete_results"`
	Items             *json.RawMessage `json:"items"`
}

// repoItem is the part of a repo-search-result-item the records map.
type repoItem struct {
	Name            lenient.Str               `json:"name"`
	FullName        lenient.Str               `json:"full_name"`
	Owner           lenient.Obj[repoOwner]    `json:"owner"`
	HTMLURL         lenient.Str               `json:"html_url"`
	Description     lenient.Str               `json:"description"`
	Language        lenient.Str               `json:"language"`
	StargazersCount lenient.Int               `json:"stargazers_count"`
	ForksCount      lenient.Int               `json:"forks_count"`
	OpenIssuesCount lenient.Int               `json:"open_issues_count"`
	Topics          lenient.List[lenient.Str] `json:"topics"`
	License         lenient.Obj[repoLicense]  `json:"license"`
	UpdatedAt       lenient.Str               `json:"updated_at"`
	Archived        lenient.Bool              `json:"archived"`
}

type repoOwner struct {
	Login lenient.Str `json:"login"`
}

type repoLicense struct {
	Key    lenient.Str `json:"key"`
	Name   lenient.Str `json:"name"`
	SpdxID lenient.Str `json:"spdx_id"`
}

func searchRepos(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	num, ok := call.Request.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	page := 1
	if len(call.State) > 0 {
		var st pageState
		if err := json.Unmarshal(call.State, &st); err != nil || st.Page < 1 || st.Page*num > searchCap {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
		page = st.Page
	}
	q := url.Values{}
	q.Set("q", call.Request.Str("query"))
	if s := call.Request.Str("sort"); s != "" && s != "best_match" {
		q.Set("sort", s)
		q.Set("order", "desc")
	}
	q.Set("per_page", strconv.Itoa(num))
	q.Set("page", strconv.Itoa(page))

	u := call.Upstream(ProviderID)
	resp, err := get(ctx, u, "/search/repositories", q, mediaJSON)
	if err != nil {
		return searchError(err)
	}
	var ans searchAnswer
	if err := u.Decode(resp, &ans); err != nil {
		return nil, err
	}
	var items lenient.List[repoItem]
	if ans.Items != nil {
		_ = json.Unmarshal(*ans.Items, &items)
	}
	if items == nil {
		return nil, providers.Errorf(providers.CodeProviderError, "github answered a search without its items list")
	}

	out := &providers.Page{Records: make([]providers.Record, 0, len(items))}
	for _, it := range items {
		if rec, ok := repoRecord(it); ok {
			out.Records = append(out.Records, rec)
		}
	}
	total := int(ans.TotalCount.V)
	moreMatched := len(items) > 0 && total > page*num
	if moreMatched && (page+1)*num <= searchCap {
		out.HasMore = true
		out.Next, _ = json.Marshal(pageState{Page: page + 1})
	} else if moreMatched {
		out.Notes = append(out.Notes, capNote(total))
	}
	if ans.IncompleteResults.V {
		out.Notes = append(out.Notes, "GitHub's search timed out before it had looked at every repository; "+
			"this page may miss matches (a narrower query runs faster).")
	}
	return out, nil
}

func capNote(total int) string {
	return fmt.Sprintf("GitHub serves only the first %s results of a search and this one matched %s; "+
		"narrow the query with qualifiers (language:, stars:>N, pushed:>YYYY-MM-DD, topic:, user:) to reach the others.",
		thousands(searchCap), thousands(total))
}

// searchError maps a refused search: 422 is GitHub's answer to a query it cannot run (too long,
// too many operators, a user: or org: that does not exist) and becomes invalid_request at /query;
// its 422 for a page past the first 1,000 results ends the search with the cap note instead.
func searchError(err error) (*providers.Page, error) {
	e, body, ok := upstreamError(err)
	if ok && e.UpstreamStatus == http.StatusUnprocessableEntity {
		if strings.Contains(string(body.Message), "first 1000") {
			return &providers.Page{Records: []providers.Record{}, Notes: []string{capNote(searchCap)}}, nil
		}
		return nil, providers.InvalidField("/query", "GitHub could not run the query: "+validationText(body)).
			WithHint("Check the qualifiers (a user: or org: must exist) and use at most five AND, OR or NOT operators.")
	}
	return nil, commonError(err)
}

// repoRecord maps one search item; ok is false when the item names no repository.
func repoRecord(it repoItem) (providers.Record, bool) {
	fullName := string(it.FullName)
	if fullName == "" && it.Owner.V != nil && it.Owner.V.Login != "" && it.Name != "" {
		fullName = string(it.Owner.V.Login) + "/" + string(it.Name)
	}
	if fullName == "" {
		return providers.Record{}, false
	}
	data := &RepoRecord{FullName: fullName, Archived: it.Archived.V,
		Description: string(it.Description), Language: string(it.Language), UpdatedAt: string(it.UpdatedAt),
		Stars: count(it.StargazersCount), Forks: count(it.ForksCount), OpenIssues: count(it.OpenIssuesCount),
		Topics: nonEmpty(it.Topics)}
	rec := providers.Record{Title: fullName, Snippet: string(it.Description), Data: data}
	if isWebURL(string(it.HTMLURL)) {
		rec.URL = string(it.HTMLURL)
	}
	if owner, repo, ok := splitFullName(fullName); ok {
		rec.Ref, _ = json.Marshal(repoRef{Owner: owner, Repo: repo})
	} else {
		rec.Actions = []string{} // no usable owner/name: no README lookup
	}
	if l := it.License.V; l != nil {
		if l.SpdxID != "" && l.SpdxID != "NOASSERTION" {
			data.License = string(l.SpdxID)
		} else {
			data.License = string(l.Name)
		}
	}
	return rec, true
}

// repoRef is the record's Ref: what the README lookup needs.
type repoRef struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
}

// GitHub logins are letters, digits and hyphens (managed users add "_shortcode"); repository
// names are letters, digits, ".", "-" and "_". Anything else never reaches a request path.
var (
	ownerPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$`)
	repoPattern  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
)

func validRef(owner, repo string) bool {
	return ownerPattern.MatchString(owner) && repoPattern.MatchString(repo) && repo != "." && repo != ".."
}

func splitFullName(fullName string) (owner, repo string, ok bool) {
	owner, repo, ok = strings.Cut(fullName, "/")
	return owner, repo, ok && validRef(owner, repo)
}

// count is a non-negative count GitHub gave, else nil.
func count(v lenient.Int) *int {
	if v.OK && v.V >= 0 {
		n := int(v.V)
		return &n
	}
	return nil
}

func nonEmpty(in lenient.List[lenient.Str]) []string {
	var out []string
	for _, s := range in {
		if s != "" {
			out = append(out, string(s))
		}
	}
	return out
}

func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// thousands formats a non-negative count with comma separators (1,000).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Media types of the two representations the adapter asks for.
const (
	mediaJSON = "application/vnd.github+json"
	mediaRaw  = "application/vnd.github.raw+json"
)

// get calls GitHub with the media type and the pinned API version.
func get(ctx context.Context, u *providers.Upstream, path string, q url.Values, accept string) (*providers.Response, error) {
	return u.Get(ctx, path, q, http.Header{"Accept": {accept}, "X-Github-Api-Version": {apiVersion}})
}

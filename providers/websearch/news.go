package websearch

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// newsWhen maps time_range to Google News' when: query operator (documented by SerpApi for q;
// the values follow the common when:<n><h|d|y> form, the month written in days; they could not be
// checked against Google News itself, see doc.go).
var newsWhen = map[string]string{"day": "when:1d", "week": "when:7d", "month": "when:30d", "year": "when:1y"}

// whenOperator finds a when: operator a caller wrote into the query.
var whenOperator = regexp.MustCompile(`(?i)(^|\s)when:\S`)

// maxNewsRecords bounds the flattened result set held in the session.
const maxNewsRecords = 100

// NewsSearch is news.search (named in spec section 1 without a shape; designed like web.search,
// the shape is written into its Description).
var NewsSearch = &providers.Capability{
	ID:      "news.search",
	Fresh:   15 * time.Minute,
	Title:   "News search",
	Summary: "Search current news articles (Google News): headline, publisher, publication time, snippet and image.",
	Description: "Searches Google News (through SerpApi) for news articles. Body: `query` (string, required, 1 to 500 " +
		"characters; Google News operators such as site: or intitle: work), `num` (integer, 1 to 20, default 10: " +
		"articles per page), `country` (string, a two-letter ISO 3166-1 code such as US, GB or FR: the Google News " +
		"edition), `language` (string, 2 to 5 characters: a language code, optionally with a region, such as en, " +
		"fr or pt-br) and `time_range` (day, week, month or year: only articles from that past period; it is sent " +
		"as Google News' when: operator, so a query carrying its own when: cannot also set time_range). Every " +
		"record is one article: title, url (the article on the publisher's site), snippet (when Google News " +
		"shows one), `source` (string, the publisher's name; always), `published_at` (string, the publication " +
		"time as RFC 3339 UTC, for example 2023-11-13T16:43:00Z, when Google News dates the article) and " +
		"`thumbnail` (string, image URL, when present). Story clusters (a headline with further coverage of the " +
		"same story) are flattened in Google News' order: the headline article, then each further article; an " +
		"article listed twice appears once; at most 100 articles per search. Paging is local: Google News " +
		"answers its whole result list in one request, so a search costs 1 credit and `more` serves the next " +
		"num articles from the session for free. Follow-ups: more (free), update (change any request field; " +
		"runs a new search, 1 credit) and the record action read ($0.005 per page, cached on repeat): the " +
		"article's page as Markdown.",
	Topic:         "Web and news",
	Request:       newsRequestSchema,
	Rules:         newsRules,
	Paging:        providers.PagingLocal,
	PageSizeField: "num",
	Actions:       []providers.Action{readAction("article")},
	Cost:          providers.Cost{Typical: 1, Basis: "1 credit per search (one SerpApi Google News request answers the whole result list; more is served from the session for free); read costs $0.005 (5 credits) per fresh page, cached repeats are free"},
	Deadline:      15 * time.Second,
	Providers:     []string{serpapi.ProviderID},
	Examples: []providers.Example{
		{Title: "News about a topic", Body: providers.ExampleBody(`{"query": "electric vehicles"}`)},
		{Title: "This week's UK coverage in English, five per page", Body: providers.ExampleBody(`{"query": "interest rates", "country": "GB", "language": "en", "time_range": "week", "num": 5}`)},
		{Title: "Articles from one publisher in the past month", Body: providers.ExampleBody(`{"query": "site:reuters.com semiconductors", "time_range": "month"}`)},
	},
	Execute: searchNews,
	Record:  NewsRecord{},
}

// NewsRecord is a news.search record (besides title, url and snippet).
type NewsRecord struct {
	Source      string `json:"source" doc:"the publisher's name, else the link's host"`
	PublishedAt string `json:"published_at,omitempty" doc:"RFC 3339 when the upstream gives a date, else its own wording"`
	Thumbnail   string `json:"thumbnail,omitempty"`
}

const newsRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "news.search request",
  "description": "Search Google News for articles. Only query is required.",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500,
      "pattern": "\\S",
      "description": "What to search for, as typed into Google News; operators such as site: and intitle: work. Must not be blank."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 20,
      "default": 10,
      "description": "Articles per page, 1 to 20. The whole result list is fetched once; more pages are served from the session for free."
    },
    "country": {
      "type": "string",
      "minLength": 2,
      "maxLength": 2,
      "pattern": "^[A-Za-z]{2}$",
      "description": "Google News edition of this country: an ISO 3166-1 alpha-2 code, exactly two letters (for example US, GB, FR)."
    },
    "language": {
      "type": "string",
      "minLength": 2,
      "maxLength": 5,
      "pattern": "^[A-Za-z]{2,3}(-[A-Za-z]{2})?$",
      "description": "Language of the Google News edition, 2 to 5 characters: a language code, optionally with a region (for example en, fr, pt-br)."
    },
    "time_range": {
      "type": "string",
      "enum": ["day", "week", "month", "year"],
      "description": "Only articles from the past day, week, month or year. Omit for any time. Cannot be combined with a when: operator in the query."
    }
  }
}`

// newsRules: time_range is sent as a when: operator, so the query must not carry its own.
func newsRules(req providers.Request, _ *providers.Update) []providers.Violation {
	if req.Str("time_range") != "" && whenOperator.MatchString(req.Str("query")) {
		return []providers.Violation{{Path: "/time_range",
			Message: "time_range cannot be combined with a when: operator in the query; remove one of them"}}
	}
	return nil
}

// newsParams builds the SerpApi google_news parameters of a request.
func newsParams(req providers.Request) url.Values {
	query := strings.TrimSpace(req.Str("query"))
	if when, ok := newsWhen[req.Str("time_range")]; ok {
		query += " " + when
	}
	q := url.Values{}
	q.Set("q", query)
	if c := req.Str("country"); c != "" {
		q.Set("gl", strings.ToLower(c))
	}
	if l := req.Str("language"); l != "" {
		q.Set("hl", strings.ToLower(l))
	}
	return q
}

func searchNews(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	if len(call.State) > 0 {
		// Local paging: the gateway serves more from the session and never calls back.
		return nil, providers.Errorf(providers.CodeInternal, "news.search pages locally; it has no provider page to continue")
	}
	var body map[string]json.RawMessage
	meta, err := serpapi.Search(ctx, call, newsEngine, newsParams(call.Request), &body)
	if err != nil {
		return nil, err
	}
	out := &providers.Page{Records: []providers.Record{}}
	if meta.NoResults() {
		return out, nil // "Google News hasn't returned any results for this query."
	}
	seen := map[string]bool{}
	add := func(a map[string]any) {
		if len(out.Records) >= maxNewsRecords {
			return
		}
		if rec, ok := newsRecord(a); ok && !seen[rec.URL] {
			seen[rec.URL] = true
			out.Records = append(out.Records, rec)
		}
	}
	for _, v := range list(decodeAny(body["news_results"])) {
		item := object(v)
		if item == nil {
			continue
		}
		// A story cluster carries its headline article in highlight and further coverage in
		// stories; a section of a full-coverage page ("Top news") carries only stories.
		if h := object(item["highlight"]); h != nil {
			add(h)
		}
		if item["stories"] == nil || item["source"] != nil || item["author"] != nil {
			add(item) // a section heading with stories is not an article, even when it links one
		}
		for _, s := range list(item["stories"]) {
			if m := object(s); m != nil {
				add(m)
			}
		}
	}
	return out, nil
}

// newsRecord maps one article; ok is false without a web link or anything to title it with (a
// cluster or section heading has neither a link of its own nor a publisher).
func newsRecord(a map[string]any) (providers.Record, bool) {
	link := str(a["link"])
	if !isWebURL(link) {
		return providers.Record{}, false
	}
	src := object(a["source"])
	source := firstString(src, "name")
	if source == "" {
		source = str(object(a["author"])["name"]) // posts on X carry an author instead of a source
	}
	if source == "" {
		source = hostOf(link)
	}
	title := str(a["title"])
	snippet := str(a["snippet"])
	if title == "" {
		title = providers.ClipLine(snippet, 120)
	}
	if title == "" || source == "" {
		return providers.Record{}, false
	}
	data := &NewsRecord{Source: source, PublishedAt: publishedAt(str(a["iso_date"]), str(a["date"]))}
	if th := str(a["thumbnail"]); isWebURL(th) {
		data.Thumbnail = th
	}
	return providers.Record{Title: title, Snippet: snippet, Data: data, Ref: refOf(link), URL: link}, true
}

// googleNewsDate is the layout of Google News dates as SerpApi answers them ("11/13/2023, 05:43 PM,
// +0100 CET"), once the trailing zone abbreviation is cut off.
const googleNewsDate = "01/02/2006, 03:04 PM, -0700"

// publishedAt is the article's publication time as RFC 3339 UTC: from iso_date when SerpApi sends
// one, else from date in Google News' format; a date in another form is passed on as written.
func publishedAt(isoDate, date string) string {
	if isoDate != "" {
		if t, err := time.Parse(time.RFC3339, isoDate); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	if date == "" {
		return isoDate
	}
	d := date
	if i := strings.LastIndexByte(d, ' '); i > 0 && strings.Count(d, ",") == 2 {
		if zone := d[i+1:]; zone != "" && !strings.ContainsAny(zone, "+-0123456789") {
			d = d[:i] // the abbreviation repeats what the numeric offset says
		}
	}
	if t, err := time.Parse(googleNewsDate, d); err == nil {
		return t.UTC().Format(time.RFC3339)
	}
	return date
}

// hostOf is a link's host without "www.", for articles without a publisher name.
func hostOf(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

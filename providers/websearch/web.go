package websearch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// googleQDR maps time_range to Google's tbs quick date range (qdr:d|w|m|y).
var googleQDR = map[string]string{"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}

// googlePageSize is the most organic results Google answers per request since it stopped
// honouring num (2025); it only sizes the note on short pages.
const googlePageSize = 10

// WebSearch is web.search (spec section 4.10).
var WebSearch = &providers.Capability{
	ID:      "web.search",
	Fresh:   time.Hour,
	Title:   "Web search",
	Summary: "Search the web with Google: organic results, plus the answer box and knowledge panel when Google shows them.",
	Description: "Searches the web with Google (through SerpApi). `query` is free text, 1 to 500 characters, and accepts " +
		"Google operators (site:, intitle:, \"exact phrase\", -word). Optional: `num` organic results per page " +
		"(1 to 20, default 10); `country`, a two-letter ISO 3166-1 code (US, DE, GB, ...) to search as from that " +
		"country; `language`, the interface language code, 2 to 5 characters (en, de, pt-br, zh-tw); `time_range` " +
		"(day, week, month or year) to keep only pages Google dates within that period. Every record has `kind` " +
		"(always): `organic` records are web results with title, url, snippet (when Google shows one), " +
		"`position` (integer, the 1-based organic rank, counted across pages) and `date` (string, as Google " +
		"shows it, when it shows one); an `answer_box` record is Google's direct answer, carrying `type` and " +
		"the provider's other keys (for example answer, result, displayed_link, snippet_highlighted_words, " +
		"list, table); a `knowledge_graph` record is Google's entity panel, carrying `type` (for example " +
		"\"Tower in Paris, France\"), `attributes` (object of the panel's facts, such as height or founded) and " +
		"provider keys such as kgmid, entity_type, image and source. Answer box and knowledge graph records " +
		"appear only on the first page, before the organic results, and do not count toward num. Google " +
		"serves at most about 10 organic results per request, so with num above 10 a page may hold fewer " +
		"results than num (a note says so); more always continues right after the last result shown. " +
		"Follow-ups: more (next provider page, 1 credit), update (change any request field; paging restarts), " +
		"and the record action read ($0.005 per page, cached on repeat): the record's url page as Markdown, " +
		"refused for records without a url (such as answer boxes without a link).",
	Topic:     "Web and news",
	Request:   webRequestSchema,
	Paging:    providers.PagingPage,
	Actions:   []providers.Action{readAction("result")},
	Cost:      providers.Cost{Typical: 1, Basis: "1 credit per page of results (one SerpApi Google search); read costs $0.005 (5 credits) per fresh page, cached repeats are free"},
	Deadline:  15 * time.Second,
	Providers: []string{serpapi.ProviderID},
	Examples: []providers.Example{
		{Title: "Web results for a question", Body: providers.ExampleBody(`{"query": "how tall is the eiffel tower"}`)},
		{Title: "Pages from the past year, searched from the US in English, five per page", Body: providers.ExampleBody(`{"query": "go generics tutorial", "num": 5, "country": "US", "language": "en", "time_range": "year"}`)},
		{Title: "This week's pages in German, from Germany", Body: providers.ExampleBody(`{"query": "Energiewende Strompreis", "country": "DE", "language": "de", "time_range": "week"}`)},
	},
	Execute: searchWeb,
	Record:  WebRecord{},
}

// WebRecord is a web.search record (besides title, url and snippet). An answer box or knowledge
// graph record also carries the upstream's other keys as it shapes them (free-form).
type WebRecord struct {
	Kind       string            `json:"kind" enum:"organic,answer_box,knowledge_graph"`
	Position   *int              `json:"position,omitempty" doc:"organic: the rank on Google's result page"`
	Date       string            `json:"date,omitempty"`
	Type       string            `json:"type,omitempty" doc:"answer_box and knowledge_graph: the upstream's type"`
	Attributes map[string]string `json:"attributes,omitempty" doc:"knowledge_graph: the panel's facts"`
}

const webRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "web.search request",
  "description": "Search the web with Google. Only query is required.",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500,
      "pattern": "\\S",
      "description": "What to search for, as typed into Google; Google operators such as site:, intitle:, \"exact phrase\" and -word work. Must not be blank."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 20,
      "default": 10,
      "description": "Organic results per page, 1 to 20. Google serves at most about 10 per request, so a page may hold fewer."
    },
    "country": {
      "type": "string",
      "minLength": 2,
      "maxLength": 2,
      "pattern": "^[A-Za-z]{2}$",
      "description": "Search as from this country: an ISO 3166-1 alpha-2 code, exactly two letters (for example US, GB, DE)."
    },
    "language": {
      "type": "string",
      "minLength": 2,
      "maxLength": 5,
      "pattern": "^[A-Za-z]{2,3}(-[A-Za-z]{2})?$",
      "description": "Interface language of the search, 2 to 5 characters: a language code, optionally with a region (for example en, de, pt-br, zh-tw)."
    },
    "time_range": {
      "type": "string",
      "enum": ["day", "week", "month", "year"],
      "description": "Only pages Google dates within the past day, week, month or year. Omit for any time."
    }
  }
}`

// webState is the opaque paging state: the page number (1-based) and the organic result offset
// (Google's start) where that page begins.
type webState struct {
	Page  int `json:"page"`
	Start int `json:"start"`
}

// webParams builds the SerpApi google parameters of a request and a result offset. SerpApi's num
// is no longer sent: Google stopped honouring it in 2025 and SerpApi removed it from the google
// engine's parameters; the page size is applied here instead.
func webParams(req providers.Request, start int) url.Values {
	q := url.Values{}
	q.Set("q", strings.TrimSpace(req.Str("query")))
	if start > 0 {
		q.Set("start", strconv.Itoa(start)) // 0 is Google's default and is left out
	}
	if c := req.Str("country"); c != "" {
		q.Set("gl", strings.ToLower(c))
	}
	if l := req.Str("language"); l != "" {
		q.Set("hl", strings.ToLower(l))
	}
	if tbs, ok := googleQDR[req.Str("time_range")]; ok {
		q.Set("tbs", tbs)
	}
	return q
}

func searchWeb(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	num, ok := call.Request.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	st := webState{Page: 1}
	if len(call.State) > 0 {
		if err := json.Unmarshal(call.State, &st); err != nil || st.Page < 2 || st.Start < 0 {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
	}

	var body map[string]json.RawMessage
	meta, err := serpapi.Search(ctx, call, webEngine, webParams(call.Request, st.Start), &body)
	if err != nil {
		return nil, err
	}
	out := &providers.Page{Records: []providers.Record{}}
	if meta.NoResults() {
		return out, nil // Google returned nothing for the query (or nothing past the last page)
	}

	if st.Page == 1 {
		for _, ab := range answerBoxes(decodeAny(body["answer_box"])) {
			out.Records = append(out.Records, answerBoxRecord(ab))
		}
		if kg := object(decodeAny(body["knowledge_graph"])); len(kg) > 0 {
			out.Records = append(out.Records, knowledgeGraphRecord(kg))
		}
	}

	organic := list(decodeAny(body["organic_results"]))
	consumed := min(num, len(organic))
	for i, v := range organic[:consumed] {
		if rec, ok := organicRecord(object(v), st.Start+i+1); ok {
			out.Records = append(out.Records, rec)
		}
	}
	if consumed > 0 && (consumed < len(organic) || hasNextPage(body)) {
		out.HasMore = true
		out.Next, _ = json.Marshal(webState{Page: st.Page + 1, Start: st.Start + consumed})
		if consumed < num && num > googlePageSize {
			out.Notes = append(out.Notes, fmt.Sprintf("Google answered %d organic results for this page, fewer than num (%d): it serves at most about %d per request. more continues with the next results.", consumed, num, googlePageSize))
		}
	}
	return out, nil
}

// hasNextPage tells whether Google has results after this page: serpapi_pagination.next or
// pagination.next.
func hasNextPage(body map[string]json.RawMessage) bool {
	for _, key := range []string{"serpapi_pagination", "pagination"} {
		if str(object(decodeAny(body[key]))["next"]) != "" {
			return true
		}
	}
	return false
}

// organicRecord maps one organic result; ok is false when it has neither a title nor a link.
func organicRecord(r map[string]any, position int) (providers.Record, bool) {
	link := str(r["link"])
	title := str(r["title"])
	if title == "" {
		title = str(r["displayed_link"])
	}
	if title == "" {
		title = link
	}
	if title == "" {
		return providers.Record{}, false
	}
	rec := providers.Record{
		Title:   title,
		Snippet: str(r["snippet"]),
		Data:    &WebRecord{Kind: "organic", Position: &position, Date: str(r["date"])},
	}
	setLink(&rec, link)
	return rec, true
}

// answerBoxes reads answer_box: one object, or (as SerpApi's overview documents it) an array of them.
func answerBoxes(v any) []map[string]any {
	if m := object(v); len(m) > 0 {
		return []map[string]any{m}
	}
	var out []map[string]any
	for _, x := range list(v) {
		if m := object(x); len(m) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// answerBoxRecord maps an answer box: title from its title (else its question, answer or result),
// url from its link, snippet from its snippet (else its answer or result); the other keys are
// kept as the provider shapes them.
func answerBoxRecord(ab map[string]any) providers.Record {
	title := firstString(ab, "title", "question", "answer", "result")
	if title == "" {
		title = answerBoxName(str(ab["type"]), str(ab["location"]))
	}
	rec := providers.Record{
		Title:   title,
		Snippet: firstString(ab, "snippet", "answer", "result"),
		Data:    &WebRecord{Kind: "answer_box", Type: str(ab["type"])},
		// the answer box's other keys, as SerpApi shapes them for each of its many types
		Fields: extraKeys(ab, func(k string) bool { return k == "link" }),
	}
	setLink(&rec, str(ab["link"]))
	return rec
}

// answerBoxName titles an answer box that has no title, question, answer or result of its own
// by its type and, when it has one, its location ("Weather: Dallas, TX").
func answerBoxName(typ, location string) string {
	name := "Answer"
	if t := strings.TrimSuffix(typ, "_result"); t != typ && t != "" && t != "organic" {
		t = strings.ReplaceAll(t, "_", " ")
		name = strings.ToUpper(t[:1]) + t[1:]
	}
	if location != "" {
		name += ": " + location
	}
	return name
}

// kgKnown are the knowledge graph members that are not facts of the entity.
var kgKnown = map[string]bool{
	"title": true, "type": true, "kgmid": true, "description": true, "website": true, "image": true,
	"thumbnail": true, "entity_type": true, "knowledge_graph_search_link": true, "source": true,
}

// knowledgeGraphRecord maps the knowledge graph: title, url (its website, else its source link),
// snippet (its description), type, attributes (the panel's facts: string members other than the
// known ones and Google's *_link / *_links search links) and the remaining provider keys.
func knowledgeGraphRecord(kg map[string]any) providers.Record {
	title := str(kg["title"])
	if title == "" {
		title = "Knowledge graph"
	}
	rec := providers.Record{
		Title:   title,
		Snippet: str(kg["description"]),
	}
	data := &WebRecord{Kind: "knowledge_graph", Type: str(kg["type"])}
	googleLink := func(k string) bool { return strings.HasSuffix(k, "_link") || strings.HasSuffix(k, "_links") }
	attrs := map[string]string{}
	for k, v := range kg {
		if s, ok := v.(string); ok && !kgKnown[k] && !googleLink(k) && !unsafeKey(k) && strings.TrimSpace(s) != "" {
			attrs[k] = strings.TrimSpace(s)
		}
	}
	if len(attrs) > 0 {
		data.Attributes = attrs
	}
	rec.Data = data
	// the panel's other keys, as SerpApi shapes them for each kind of entity
	rec.Fields = extraKeys(kg, func(k string) bool {
		_, isAttr := attrs[k]
		return isAttr || k == "website" || k == "description" || k == "knowledge_graph_search_link" || googleLink(k)
	})
	link := str(kg["website"])
	if !isWebURL(link) {
		link = str(object(kg["source"])["link"])
	}
	setLink(&rec, link)
	return rec
}

// setLink sets the record's url and the Ref read needs; a record without a web URL offers no read.
func setLink(rec *providers.Record, link string) {
	if ref := refOf(link); ref != nil {
		rec.URL, rec.Ref = link, ref
		return
	}
	rec.Actions = []string{}
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(m[k]); s != "" {
			return s
		}
	}
	return ""
}

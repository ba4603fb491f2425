package trends

import (
	"context"
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// SerpApi engine and the bounds the design leaves to the adapter (see doc.go).
const (
	trendsEngine  = "google_trends"
	sourceName    = "google_trends" // record key source
	exploreURL    = "https://trends.google.com/trends/explore?"
	maxPoints     = 1000 // series points kept per query (Google's longest series has about 270)
	maxRegions    = 250  // regions kept per query (countries worldwide are about 250)
	maxRelated    = 25   // entries kept per related-queries list (Google shows 25)
	snippetLeader = 3    // entries named in a snippet
)

// Values of the request's data field.
const (
	dataOverTime = "interest_over_time"
	dataByRegion = "interest_by_region"
	dataRelated  = "related_queries"
)

// dates maps time_range to SerpApi's date parameter (https://serpapi.com/google-trends-api).
var dates = map[string]string{
	"past_hour":      "now 1-H",
	"past_4_hours":   "now 4-H",
	"past_day":       "now 1-d",
	"past_7_days":    "now 7-d",
	"past_30_days":   "today 1-m",
	"past_90_days":   "today 3-m",
	"past_12_months": "today 12-m",
	"past_5_years":   "today 5-y",
	"all":            "all",
}

// Search is trends.search (named only in the spec; designed from its nearest siblings).
var Search = &providers.Capability{
	ID:      "trends.search",
	Fresh:   time.Hour,
	Title:   "Search trends",
	Summary: "How much people search for up to five terms on Google (Google Trends): interest over time, by region, and related queries.",
	Description: "Reads Google Trends (through SerpApi). Body: `queries` (required, 1 to 5 distinct search terms, each 1 to " +
		"100 characters without commas, compared case-insensitively), `geo` (optional: a country code such as US or a " +
		"region such as US-CA; worldwide when omitted), `time_range` (past_hour, past_4_hours, past_day, past_7_days, " +
		"past_30_days, past_90_days, past_12_months, past_5_years or all (since 2004); default past_12_months) and " +
		"`data` (interest_over_time, interest_by_region or related_queries; default interest_over_time; " +
		"related_queries takes exactly one query, as Google Trends does). Single result: one record per query, " +
		"in the order asked, titled with the query; url is the Google Trends explore page. Record keys: query, " +
		"data, time_range, source (always google_trends), geo (when given) and, by data: interest_over_time → " +
		"points [{date (Google's label of the period), timestamp (Unix seconds of its start), value (0-100, " +
		"relative to the highest point of all queries asked)}] oldest first, and average (number, when Google " +
		"supplies it); interest_by_region → regions [{geo, location, value}] highest first and measure: " +
		"\"interest\" for one query (0-100, relative to the region where the query is most popular) or \"share\" " +
		"for several (percent of the compared queries' searches in that region that are this query); " +
		"related_queries → top [{query, value (0-100)}] and rising [{query, value (percent growth), label (e.g. " +
		"\"+350%\" or \"Breakout\")}]. A query without data yields no record and a note. No more, no update, no " +
		"record actions. 2 credits per call.",
	Topic:     "Commerce and markets",
	Request:   requestSchema,
	Rules:     rules,
	Paging:    providers.PagingSingle,
	NoUpdate:  true,
	Cost:      providers.Cost{Typical: 2, Basis: "2 credits per call (one SerpApi Google Trends search, whatever the number of queries)"},
	Deadline:  15 * time.Second,
	Providers: []string{serpapi.ProviderID},
	Examples: []providers.Example{
		{Title: "Compare two terms in the US over the past year", Body: providers.ExampleBody(`{"queries": ["coffee", "tea"], "geo": "US", "time_range": "past_12_months"}`)},
		{Title: "Where in the US a term is searched most", Body: providers.ExampleBody(`{"queries": ["coffee"], "geo": "US", "data": "interest_by_region"}`)},
		{Title: "Which of two terms leads in each US state", Body: providers.ExampleBody(`{"queries": ["coffee", "tea"], "geo": "US", "data": "interest_by_region"}`)},
		{Title: "Related and rising searches of a term worldwide", Body: providers.ExampleBody(`{"queries": ["coffee"], "data": "related_queries"}`)},
	},
	Record:  TrendRecord{},
	Execute: search,
}

// TrendRecord is a trends.search record: one query's series, regions or related queries.
type TrendRecord struct {
	Query     string    `json:"query"`
	Data      string    `json:"data" doc:"interest_over_time, interest_by_region or related_queries"`
	TimeRange string    `json:"time_range"`
	Source    string    `json:"source" doc:"always google_trends"`
	Geo       string    `json:"geo,omitempty" doc:"the requested country or region, when given"`
	Points    []Point   `json:"points,omitempty" doc:"interest_over_time: the series, oldest first"`
	Average   *float64  `json:"average,omitempty" doc:"interest_over_time: the average, when Google supplies it"`
	Regions   []Region  `json:"regions,omitempty" doc:"interest_by_region: highest first"`
	Measure   string    `json:"measure,omitempty" doc:"interest_by_region: interest (one query) or share (several)"`
	Top       []Related `json:"top,omitempty" doc:"related_queries: the top related searches"`
	Rising    []Related `json:"rising,omitempty" doc:"related_queries: the rising related searches"`
}

// Point is one period of a series.
type Point struct {
	Date      string  `json:"date,omitempty" doc:"Google's label of the period"`
	Timestamp *int64  `json:"timestamp,omitempty" doc:"Unix seconds of the period's start"`
	Value     float64 `json:"value" doc:"0-100, relative to the highest point of all queries asked"`
}

// Region is one region of a ranking.
type Region struct {
	Geo      string  `json:"geo,omitempty"`
	Location string  `json:"location"`
	Value    float64 `json:"value" doc:"interest (0-100) or share (percent)"`
}

// Related is one related search.
type Related struct {
	Label string  `json:"label,omitempty" doc:"rising only: e.g. +350% or Breakout"`
	Query string  `json:"query"`
	Value float64 `json:"value" doc:"top: 0-100; rising: percent growth"`
}

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "trends.search request",
  "description": "Google Trends for 1 to 5 search terms: interest over time, interest by region or related queries.",
  "type": "object",
  "additionalProperties": false,
  "required": ["queries"],
  "properties": {
    "queries": {
      "type": "array",
      "minItems": 1,
      "maxItems": 5,
      "uniqueItems": true,
      "items": {
        "type": "string",
        "minLength": 1,
        "maxLength": 100,
        "pattern": "\\S",
        "description": "A search term as typed into Google (e.g. \"coffee\", \"electric cars\"); no commas."
      },
      "description": "The terms to look up, 1 to 5 distinct (compared case-insensitively). related_queries takes exactly one."
    },
    "geo": {
      "type": "string",
      "pattern": "^[A-Za-z]{2}(-[A-Za-z0-9]{1,3}){0,2}$",
      "description": "Where the searches were made: a two-letter country code (US, FR) or a region code (US-CA, GB-SCT). Worldwide when omitted."
    },
    "time_range": {
      "type": "string",
      "enum": ["past_hour", "past_4_hours", "past_day", "past_7_days", "past_30_days", "past_90_days", "past_12_months", "past_5_years", "all"],
      "default": "past_12_months",
      "description": "The period looked at, ending now; all is since 2004."
    },
    "data": {
      "type": "string",
      "enum": ["interest_over_time", "interest_by_region", "related_queries"],
      "default": "interest_over_time",
      "description": "interest_over_time: a series per query; interest_by_region: a ranking of regions per query; related_queries: the top and rising searches related to the one query."
    }
  }
}`

// terms returns the queries trimmed, in the order asked.
func terms(req providers.Request) []string {
	qs := req.Strings("queries")
	out := make([]string, 0, len(qs))
	for _, q := range qs {
		out = append(out, strings.TrimSpace(q))
	}
	return out
}

// rules checks what the schema cannot: no commas (SerpApi separates queries with them), queries
// distinct ignoring case and spaces, and one query for related_queries (SerpApi: "other types of
// data will only accept 1 query per search").
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	var vs []providers.Violation
	seen := map[string]int{}
	for i, q := range terms(req) {
		path := "/queries/" + strconv.Itoa(i)
		if strings.Contains(q, ",") {
			vs = append(vs, providers.Violation{Path: path, Message: "a query cannot contain a comma; send each term as its own item of queries"})
			continue
		}
		k := strings.ToLower(q)
		if j, dup := seen[k]; dup {
			vs = append(vs, providers.Violation{Path: path,
				Message: "query " + strconv.Quote(q) + " repeats queries[" + strconv.Itoa(j) + "] (queries are compared case-insensitively)"})
			continue
		}
		seen[k] = i
	}
	if n := len(req.Strings("queries")); req.Str("data") == dataRelated && n > 1 {
		vs = append(vs, providers.Violation{Path: "/queries",
			Message: "related_queries takes exactly one query (Google Trends answers related queries for a single term); got " + strconv.Itoa(n)})
	}
	return vs
}

// dataType is SerpApi's data_type for the request: interest by region is GEO_MAP_0 for one query
// and GEO_MAP (compared breakdown) for several, the only kinds SerpApi accepts for each.
func dataType(data string, n int) string {
	switch data {
	case dataByRegion:
		if n > 1 {
			return "GEO_MAP"
		}
		return "GEO_MAP_0"
	case dataRelated:
		return "RELATED_QUERIES"
	}
	return "TIMESERIES"
}

// params is the google_trends query of the request.
func params(req providers.Request) url.Values {
	ts := terms(req)
	q := url.Values{
		"q":         {strings.Join(ts, ",")},
		"data_type": {dataType(req.Str("data"), len(ts))},
		"date":      {dates[timeRange(req)]},
	}
	if g := req.Str("geo"); g != "" {
		q.Set("geo", strings.ToUpper(g))
	}
	return q
}

func timeRange(req providers.Request) string {
	if t := req.Str("time_range"); dates[t] != "" {
		return t
	}
	return "past_12_months"
}

func dataOf(req providers.Request) string {
	if d := req.Str("data"); d != "" {
		return d
	}
	return dataOverTime
}

// answer is the part of a google_trends answer the adapter reads; fields of an unexpected type
// count as absent.
type answer struct {
	InterestOverTime lenient.Obj[struct {
		TimelineData lenient.List[timelinePoint] `json:"timeline_data"`
		Averages     lenient.List[trendValue]    `json:"averages"`
	}] `json:"interest_over_time"`
	InterestByRegion lenient.List[region] `json:"interest_by_region"`
	Compared         lenient.List[region] `json:"compared_breakdown_by_region"`
	RelatedQueries   lenient.Obj[struct {
		Rising lenient.List[trendValue] `json:"rising"`
		Top    lenient.List[trendValue] `json:"top"`
	}] `json:"related_queries"`
}

type timelinePoint struct {
	Date      lenient.Str              `json:"date"`
	Timestamp lenient.Int              `json:"timestamp"` // Unix seconds, sent as a string
	Values    lenient.List[trendValue] `json:"values"`
}

// trendValue is one query's value: {query, value (display text), extracted_value (number)};
// averages carry the number in value.
type trendValue struct {
	Query      lenient.Str     `json:"query"`
	QueryIndex lenient.Int     `json:"query_index"`
	Value      json.RawMessage `json:"value"`
	Extracted  lenient.Float   `json:"extracted_value"`
}

// number is the value as a number: extracted_value, else a numeric value ("84" or 84).
func (v trendValue) number() (float64, bool) {
	if v.Extracted.OK {
		return v.Extracted.V, true
	}
	var f lenient.Float
	_ = json.Unmarshal(v.Value, &f)
	return f.V, f.OK
}

// label is the value as Google shows it ("+350%", "Breakout"), when it is text.
func (v trendValue) label() string {
	var s lenient.Str
	_ = json.Unmarshal(v.Value, &s)
	return string(s)
}

type region struct {
	Geo       lenient.Str              `json:"geo"`
	Location  lenient.Str              `json:"location"`
	Extracted lenient.Float            `json:"extracted_value"`
	Values    lenient.List[trendValue] `json:"values"`
}

// valueFor finds query i's entry among values: by query_index when SerpApi gives one, else by the
// query text, else by position (SerpApi lists values in the order of q) unless that entry names
// another of the queries.
func valueFor(values []trendValue, i int, all []string) (trendValue, bool) {
	term := all[i]
	indexed := false
	for _, v := range values {
		if v.QueryIndex.OK {
			indexed = true
			if int(v.QueryIndex.V) == i {
				return v, true
			}
		}
	}
	if indexed {
		return trendValue{}, false
	}
	for _, v := range values {
		if strings.EqualFold(string(v.Query), term) {
			return v, true
		}
	}
	if i < len(values) {
		for j, other := range all {
			if j != i && strings.EqualFold(string(values[i].Query), other) {
				return trendValue{}, false
			}
		}
		return values[i], true
	}
	return trendValue{}, false
}

func search(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	req := call.Request
	var ans answer
	meta, err := serpapi.Search(ctx, call, trendsEngine, params(req), &ans)
	if err != nil {
		return nil, err
	}
	page := &providers.Page{Records: []providers.Record{}}
	ts := terms(req)
	data := dataOf(req)
	if meta.NoResults() {
		page.Notes = append(page.Notes, "Google Trends has no data for these queries"+scope(req)+".")
		return page, nil
	}
	for i, term := range ts {
		rec, snippet, ok := (*TrendRecord)(nil), "", false
		switch data {
		case dataOverTime:
			rec, snippet, ok = overTime(ans, i, ts)
		case dataByRegion:
			rec, snippet, ok = byRegion(ans, i, ts)
		case dataRelated:
			rec, snippet, ok = related(ans)
		}
		if !ok {
			page.Notes = append(page.Notes, "Google Trends has no "+strings.ReplaceAll(data, "_", " ")+" data for "+strconv.Quote(term)+scope(req)+".")
			continue
		}
		rec.Query, rec.Data, rec.TimeRange, rec.Source = term, data, timeRange(req), sourceName
		rec.Geo = strings.ToUpper(req.Str("geo"))
		page.Records = append(page.Records, providers.Record{Title: term, URL: explore(req, ts, term), Snippet: snippet,
			Data: rec})
	}
	return page, nil
}

// scope words the request's place and period for notes: " in US over the past 12 months".
func scope(req providers.Request) string {
	s := ""
	if g := req.Str("geo"); g != "" {
		s = " in " + strings.ToUpper(g)
	}
	return s + " over the " + strings.ReplaceAll(timeRange(req), "_", " ")
}

// explore is the Google Trends page of the record: all queries compared for series and regions,
// the one query for related queries.
func explore(req providers.Request, ts []string, term string) string {
	q := url.Values{"q": {strings.Join(ts, ",")}, "date": {dates[timeRange(req)]}}
	if dataOf(req) == dataRelated {
		q.Set("q", term)
	}
	if g := req.Str("geo"); g != "" {
		q.Set("geo", strings.ToUpper(g))
	}
	return exploreURL + q.Encode()
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// overTime builds query i's series: points oldest first, the average when supplied.
func overTime(ans answer, i int, ts []string) (*TrendRecord, string, bool) {
	iot := ans.InterestOverTime.V
	if iot == nil {
		return nil, "", false
	}
	points := []Point{}
	var peak, latest float64
	peakDate := ""
	for _, p := range iot.TimelineData {
		if len(points) == maxPoints {
			break
		}
		v, ok := valueFor(p.Values, i, ts)
		if !ok {
			continue
		}
		n, ok := v.number()
		if !ok {
			continue
		}
		pt := Point{Date: string(p.Date), Value: n}
		if p.Timestamp.OK {
			pt.Timestamp = &p.Timestamp.V
		}
		if len(points) == 0 || n > peak {
			peak, peakDate = n, string(p.Date)
		}
		latest = n
		points = append(points, pt)
	}
	if len(points) == 0 {
		return nil, "", false
	}
	rec := &TrendRecord{Points: points}
	snippet := strconv.Itoa(len(points)) + " points; latest " + num(latest) + ", peak " + num(peak)
	if len(points) == 1 {
		snippet = "1 point: " + num(latest)
	}
	if peakDate != "" {
		snippet += " (" + peakDate + ")"
	}
	if v, ok := valueFor(iot.Averages, i, ts); ok {
		if n, ok := v.number(); ok {
			rec.Average = &n
			snippet += ", average " + num(n)
		}
	}
	return rec, snippet + ".", true
}

// byRegion builds query i's ranking of regions: interest_by_region for one query,
// compared_breakdown_by_region (shares) for several.
func byRegion(ans answer, i int, ts []string) (*TrendRecord, string, bool) {
	compared := len(ts) > 1
	regions := []Region{}
	src := ans.InterestByRegion
	if compared {
		src = ans.Compared
	}
	for _, r := range src {
		if r.Location == "" {
			continue
		}
		n, ok := r.Extracted.V, r.Extracted.OK
		if compared {
			var v trendValue
			if v, ok = valueFor(r.Values, i, ts); ok {
				n, ok = v.number()
			}
		}
		if !ok {
			continue
		}
		regions = append(regions, Region{Geo: string(r.Geo), Location: string(r.Location), Value: n})
	}
	if len(regions) == 0 {
		return nil, "", false
	}
	sort.SliceStable(regions, func(a, b int) bool { return regions[a].Value > regions[b].Value })
	if len(regions) > maxRegions {
		regions = regions[:maxRegions]
	}
	measure, unit, lead := "interest", "", "Most interest: "
	if compared {
		measure, unit, lead = "share", "%", "Highest share: "
	}
	names := []string{}
	for _, r := range regions[:min(snippetLeader, len(regions))] {
		names = append(names, r.Location+" "+num(r.Value)+unit)
	}
	return &TrendRecord{Regions: regions, Measure: measure}, lead + strings.Join(names, ", ") + ".", true
}

// related builds the one query's top and rising related queries.
func related(ans answer) (*TrendRecord, string, bool) {
	rq := ans.RelatedQueries.V
	if rq == nil {
		return nil, "", false
	}
	rec := &TrendRecord{}
	var parts []string
	for _, list := range []struct {
		key     string
		entries []trendValue
		out     *[]Related
	}{{"top", rq.Top, &rec.Top}, {"rising", rq.Rising, &rec.Rising}} {
		out := []Related{}
		var names []string
		for _, e := range list.entries {
			if len(out) == maxRelated {
				break
			}
			n, ok := e.number()
			if e.Query == "" || !ok {
				continue
			}
			m := Related{Query: string(e.Query), Value: n}
			if list.key == "rising" {
				m.Label = e.label()
			}
			out = append(out, m)
			if len(names) < snippetLeader {
				name := string(e.Query)
				if l := e.label(); list.key == "rising" && l != "" {
					name += " (" + l + ")"
				}
				names = append(names, name)
			}
		}
		if len(out) > 0 {
			*list.out = out
			parts = append(parts, strings.ToUpper(list.key[:1])+list.key[1:]+": "+strings.Join(names, ", "))
		}
	}
	if len(parts) == 0 {
		return nil, "", false
	}
	return rec, strings.Join(parts, "; ") + ".", true
}

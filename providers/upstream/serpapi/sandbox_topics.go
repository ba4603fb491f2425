package serpapi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
)

// The engines about a topic (web, news, patents, trends) are generated too (issue 36): a
// synthetic set about the asked query built from the recorded answer's records as templates,
// with the operators, filters, dates, orders and paging of the request applied. The recorded
// requests keep their recorded answers (isRecorded), so the golden files keep pinning the mapping
// of real upstream answers.
func init() {
	worldEngines["google"] = unlessError(generateWeb)
	worldEngines["google_news"] = unlessError(generateNews)
	worldEngines["google_patents"] = unlessError(generatePatents)
	worldEngines["google_trends"] = unlessError(generateTrends)
}

// unlessError leaves a recorded answer that is an error or has no results (empty.json) as it is.
func unlessError(gen func(map[string]any, url.Values) ([]byte, int, bool)) func(map[string]any, url.Values) ([]byte, int, bool) {
	return func(doc map[string]any, q url.Values) ([]byte, int, bool) {
		if doc["error"] != nil {
			return nil, 0, false
		}
		return gen(doc, q)
	}
}

// trendRegions are the regions of interest by region outside the recorded US answer: the
// gazetteer's largest cities of a country, and for the whole world its countries.
var trendRegions = sync.OnceValue(func() map[string][][2]string {
	out := map[string][][2]string{}
	seen := map[string]bool{}
	for _, p := range providers.GazetteerCities(100000) {
		if len(out[p.CountryCode]) < 30 {
			out[p.CountryCode] = append(out[p.CountryCode], [2]string{p.CountryCode + "-" + strings.ToUpper(providers.Slug(p.Name)), p.Name})
		}
		if !seen[p.CountryCode] && len(out[""]) < 60 {
			seen[p.CountryCode] = true
			out[""] = append(out[""], [2]string{p.CountryCode, p.Country})
		}
	}
	return out
})

// tbsWindow is the period of Google's quick date range (tbs=qdr:d|w|m|y); 0 for any time.
func tbsWindow(tbs string) time.Duration {
	switch tbs {
	case "qdr:d":
		return 24 * time.Hour
	case "qdr:w":
		return 7 * 24 * time.Hour
	case "qdr:m":
		return 30 * 24 * time.Hour
	case "qdr:y":
		return 365 * 24 * time.Hour
	}
	return 0
}

// generateWeb answers a google search with sandboxTotal organic results about the query (its
// words without operators), on the site a site: operator names, dated within the tbs period,
// ten per page by start.
func generateWeb(doc map[string]any, q url.Values) ([]byte, int, bool) {
	tmpls := providers.Templates(doc["organic_results"])
	query := strings.TrimSpace(q.Get("q"))
	if len(tmpls) == 0 || query == "" {
		return nil, 0, false
	}
	topic := providers.TopicWords(query)
	site := strings.ToLower(providers.QueryOperator(query, "site"))
	seed := strings.ToLower(query)
	window := tbsWindow(q.Get("tbs"))
	start := max(intParam(q, "start"), 0)
	today := providers.SandboxToday()
	page := []any{}
	for i := start; i < min(start+10, sandboxTotal); i++ {
		rec := providers.FromTemplate(tmpls, i)
		name, host := providers.SynthSite(seed, i)
		if site != "" {
			host, name = site, site
		}
		path := "/" + providers.Slug(topic) + "/" + strconv.Itoa(i+1)
		link := "https://" + host + path
		rec["position"] = i + 1
		rec["title"] = providers.TopicTitle(topic, i)
		rec["link"] = link
		rec["redirect_link"] = "https://www.google.com/url?sa=t&source=web&url=" + url.QueryEscape(link)
		rec["displayed_link"] = "https://" + host + " › " + providers.Slug(topic)
		rec["snippet"] = providers.TopicSnippet(topic, i)
		rec["snippet_highlighted_words"] = []any{topic}
		rec["source"] = name
		delete(rec, "sitelinks")
		delete(rec, "rich_snippet")
		delete(rec, "favicon")
		delete(rec, "date")
		if window > 0 {
			rec["date"] = providers.SynthTime(seed, i, sandboxTotal, today, window).Format("Jan 2, 2006")
		}
		page = append(page, rec)
	}
	doc["organic_results"] = page
	for _, k := range []string{"answer_box", "knowledge_graph", "related_questions", "related_searches", "inline_images", "top_stories"} {
		delete(doc, k)
	}
	if info, ok := doc["search_information"].(map[string]any); ok {
		info["total_results"] = sandboxTotal
		delete(info, "spelling_fix")
	}
	pag := map[string]any{"current": start/10 + 1}
	if start+10 < sandboxTotal {
		next := "https://serpapi.com/search.json?engine=google&q=" + url.QueryEscape(query) + "&start=" + strconv.Itoa(start+10)
		pag["next"], pag["next_link"] = next, next
	}
	doc["serpapi_pagination"] = pag
	doc["pagination"] = providers.Clone(pag)
	setParams(doc, q)
	return providers.JSONBytes(doc), http.StatusOK, true
}

// newsWindows are Google News' when: periods.
var newsWindows = map[string]time.Duration{"1h": time.Hour, "1d": 24 * time.Hour, "7d": 7 * 24 * time.Hour,
	"30d": 30 * 24 * time.Hour, "1y": 365 * 24 * time.Hour}

const newsTotal = 30

var newsOutlets = []string{"Daily Ledger", "Morning Courier", "Evening Standard-Bearer", "Metro Wire", "Harbour Times",
	"Continental Post", "Weekly Observer", "Capital Dispatch", "Northern Herald", "Global Bulletin"}

// generateNews answers a google_news search with newsTotal articles about the query (a when:
// operator bounds their dates), newest first; site: names their publisher.
func generateNews(doc map[string]any, q url.Values) ([]byte, int, bool) {
	var tmpls []map[string]any
	for _, t := range providers.Templates(doc["news_results"]) {
		if t["source"] != nil && t["link"] != nil && t["stories"] == nil {
			tmpls = append(tmpls, t)
		}
	}
	query := strings.TrimSpace(q.Get("q"))
	if len(tmpls) == 0 || query == "" {
		return nil, 0, false
	}
	topic := providers.TopicWords(query)
	seed := strings.ToLower(query)
	window := 60 * 24 * time.Hour
	if w, ok := newsWindows[strings.ToLower(providers.QueryOperator(query, "when"))]; ok {
		window = w
	}
	site := strings.ToLower(providers.QueryOperator(query, "site"))
	now := time.Now().UTC().Truncate(time.Hour)
	var out []any
	for i := range newsTotal {
		rec := providers.FromTemplate(tmpls, i)
		outlet := newsOutlets[(i+int(providers.Rand("outlet", seed).IntN(len(newsOutlets))))%len(newsOutlets)]
		host := providers.Slug(outlet) + ".example.com"
		if site != "" {
			host, outlet = site, site
		}
		link := fmt.Sprintf("https://%s/%s/%s-%d", host, now.Format("2006/01"), providers.Slug(topic), i+1)
		at := providers.SynthTime(seed, i, newsTotal, now, window)
		rec["position"] = i + 1
		rec["title"] = providers.NewsTitle(topic, i)
		rec["snippet"] = providers.TopicSnippet(topic, i)
		rec["link"] = link
		rec["date"] = at.Format("01/02/2006, 03:04 PM, +0000 UTC")
		if _, ok := rec["iso_date"]; ok {
			rec["iso_date"] = at.Format(time.RFC3339)
		}
		if src, ok := rec["source"].(map[string]any); ok {
			src["name"] = outlet
			src["icon"] = "https://" + host + "/favicon.ico"
			if _, ok := src["authors"]; ok {
				src["authors"] = []any{providers.SynthPerson(seed, i)}
			}
		}
		if _, ok := rec["thumbnail"]; ok {
			rec["thumbnail"] = "https://" + host + "/images/" + providers.Slug(topic) + "-" + strconv.Itoa(i+1) + ".jpg"
		}
		delete(rec, "highlight")
		out = append(out, rec)
	}
	doc["news_results"] = out
	delete(doc, "top_stories_link")
	setParams(doc, q)
	return providers.JSONBytes(doc), http.StatusOK, true
}

const patentsTotal = 40

var patentKinds = []string{"Method and apparatus for %s", "System for %s", "%s device", "Improved %s assembly",
	"Process for producing %s", "%s arrangement and control method", "Composition for %s", "%s unit with sensor"}

// patentBound reads a before/after value (kind:YYYYMMDD) as the kind of date and the day.
func patentBound(s string) (string, time.Time, bool) {
	kind, digits, ok := strings.Cut(s, ":")
	if !ok {
		kind, digits = "priority", s
	}
	d, err := time.Parse("20060102", digits)
	return kind, d, err == nil
}

// generatePatents answers a google_patents search with patentsTotal patents about the query,
// with the asked inventor and assignee, the countries, status and type, the before and after
// bounds and the new or old order applied, num per page by page.
func generatePatents(doc map[string]any, q url.Values) ([]byte, int, bool) {
	tmpls := providers.Templates(doc["organic_results"])
	query := strings.TrimSpace(q.Get("q"))
	if len(tmpls) == 0 || query == "" {
		return nil, 0, false
	}
	ps := newPatentSearch(query, q)
	if ps.hi.Sub(ps.lo) <= 0 {
		return emptyPatents(doc, q), http.StatusOK, true
	}
	var all []map[string]any
	for i := range patentsTotal {
		if rec, ok := ps.patent(tmpls, i, len(all)+1); ok {
			all = append(all, rec)
		}
	}
	switch q.Get("sort") {
	case "new":
		sort.SliceStable(all, func(i, j int) bool { return all[i]["filing_date"].(string) > all[j]["filing_date"].(string) })
	case "old":
		sort.SliceStable(all, func(i, j int) bool { return all[i]["filing_date"].(string) < all[j]["filing_date"].(string) })
	}
	return pagePatents(doc, q, query, all), http.StatusOK, true
}

// patentSearch is what a google_patents search asks of every patent: its topic and seed, the
// inventor and assignee, the countries, status and type, and the bounds on a kind of date.
type patentSearch struct {
	topic, seed        string
	inventor, assignee string
	countries          []string
	granted, design    bool
	lo, hi             time.Time
	// loKind and hiKind are the kinds of date the bounds are on ("" when unbounded); kind is
	// the one a patent's dates are drawn within.
	loKind, hiKind, kind string
}

// newPatentSearch reads a google_patents request about query.
func newPatentSearch(query string, q url.Values) patentSearch {
	ps := patentSearch{
		topic:     providers.TopicWords(query),
		seed:      strings.ToLower(query + "|" + q.Get("inventor") + "|" + q.Get("assignee")),
		inventor:  strings.TrimSpace(q.Get("inventor")),
		assignee:  strings.TrimSpace(q.Get("assignee")),
		countries: strings.Split(q.Get("country"), ","),
		granted:   q.Get("status") != "APPLICATION",
		design:    q.Get("type") == "DESIGN",
		lo:        time.Date(1995, 1, 1, 0, 0, 0, 0, time.UTC),
		hi:        providers.SandboxToday().AddDate(0, 0, -30),
	}
	if q.Get("country") == "" {
		ps.countries = []string{"US", "EP", "WO", "CN", "JP", "DE"}
	}
	if k, d, ok := patentBound(q.Get("after")); ok {
		ps.loKind, ps.lo = k, d
	}
	if k, d, ok := patentBound(q.Get("before")); ok {
		ps.hiKind, ps.hi = k, d
	}
	ps.kind = ps.loKind
	if ps.kind == "" {
		ps.kind = ps.hiKind
	}
	if ps.kind == "" {
		ps.kind = "priority"
	}
	return ps
}

// dates draws a patent's dates: priority, then filing a year later at most, then publication 18
// months on (also the grant); the bounded kind of date lies within the bounds. With bounds on two
// kinds of date, false when the other one does not hold.
func (ps patentSearch) dates(r *rand.Rand) (priority, filing, publication time.Time, ok bool) {
	span := ps.hi.Sub(ps.lo)
	anchor := ps.lo.Add(time.Duration(r.Float64() * float64(span))).Truncate(24 * time.Hour)
	offsets := map[string]int{"priority": 0, "filing": 200 + r.IntN(165), "publication": 0}
	offsets["publication"] = offsets["filing"] + 540
	priority = anchor.AddDate(0, 0, -offsets[ps.kind])
	filing = priority.AddDate(0, 0, offsets["filing"])
	publication = priority.AddDate(0, 0, offsets["publication"])
	if (ps.loKind != "" && ps.loKind != ps.kind) || (ps.hiKind != "" && ps.hiKind != ps.kind) {
		// Two kinds of bounds: the record is kept only if both hold.
		dates := map[string]time.Time{"priority": priority, "filing": filing, "publication": publication}
		if (ps.loKind != "" && dates[ps.loKind].Before(ps.lo)) || (ps.hiKind != "" && dates[ps.hiKind].After(ps.hi)) {
			return priority, filing, publication, false
		}
	}
	return priority, filing, publication, true
}

// patent makes the search's i-th patent, at position in the set, from the templates; false when
// its dates fall outside the bounds.
func (ps patentSearch) patent(tmpls []map[string]any, i, position int) (map[string]any, bool) {
	r := providers.Rand("patent", ps.seed, strconv.Itoa(i))
	priority, filing, publication, ok := ps.dates(r)
	if !ok {
		return nil, false
	}
	country := strings.ToUpper(strings.TrimSpace(ps.countries[i%len(ps.countries)]))
	number := fmt.Sprintf("%s%d", country, 10000000+r.IntN(89999999))
	suffix := "A1"
	if ps.granted && country == "US" {
		suffix = "B2"
	} else if ps.granted {
		suffix = "B1"
	}
	if ps.design {
		number = fmt.Sprintf("%sD%d", country, 900000+r.IntN(99999))
		suffix = "S"
	}
	number += suffix
	rec := providers.FromTemplate(tmpls, i)
	id := "patent/" + number + "/en"
	title := fmt.Sprintf(patentKinds[i%len(patentKinds)], ps.topic)
	rec["position"] = position
	rec["patent_id"] = id
	rec["patent_link"] = "https://patents.google.com/" + id
	rec["serpapi_link"] = "https://serpapi.com/search.json?engine=google_patents_details&patent_id=" + url.QueryEscape(id)
	rec["title"] = providers.UpperFirst(title)
	rec["snippet"] = "Disclosed: " + providers.UpperFirst(title) + ". The invention concerns " + ps.topic + " and improves its reliability and cost."
	rec["priority_date"] = priority.Format(time.DateOnly)
	rec["filing_date"] = filing.Format(time.DateOnly)
	rec["publication_date"] = publication.Format(time.DateOnly)
	delete(rec, "grant_date")
	if ps.granted {
		rec["grant_date"] = publication.Format(time.DateOnly)
	}
	rec["inventor"] = ps.inventor
	if ps.inventor == "" {
		rec["inventor"] = providers.SynthPerson(ps.seed, i)
	}
	rec["assignee"] = ps.assignee
	if ps.assignee == "" {
		rec["assignee"] = providers.SynthName(ps.seed+"assignee", i, "Ltd")
	}
	rec["publication_number"] = number
	rec["language"] = "en"
	rec["pdf"] = "https://patentimages.storage.googleapis.com/sandbox/" + number + ".pdf"
	rec["thumbnail"] = "https://patentimages.storage.googleapis.com/sandbox/" + number + "-D00000.png"
	delete(rec, "figures")
	rec["country_status"] = map[string]any{country: "ACTIVE"}
	return rec, true
}

// pagePatents answers the page of all that num and page ask for, with its pagination and totals.
func pagePatents(doc map[string]any, q url.Values, query string, all []map[string]any) []byte {
	size := max(intParam(q, "num"), 10)
	pageN := max(intParam(q, "page"), 1)
	from := (pageN - 1) * size
	page := []any{}
	for i := from; i < min(from+size, len(all)); i++ {
		all[i]["position"], all[i]["rank"] = i+1, i
		page = append(page, all[i])
	}
	doc["organic_results"] = page
	pag := map[string]any{"current": pageN - 1}
	if from+size < len(all) {
		pag["next"] = "https://patents.google.com/xhr/query?url=" + url.QueryEscape("q="+query+"&num="+strconv.Itoa(size)+"&page="+strconv.Itoa(pageN))
	}
	doc["pagination"] = pag
	if info, ok := doc["search_information"].(map[string]any); ok {
		info["total_results"] = len(all)
		info["total_pages"] = int(math.Ceil(float64(len(all)) / float64(size)))
		info["page_number"] = pageN
	}
	delete(doc, "summary")
	setParams(doc, q)
	return providers.JSONBytes(doc)
}

func emptyPatents(doc map[string]any, q url.Values) []byte {
	doc["organic_results"] = []any{}
	doc["pagination"] = map[string]any{"current": 0}
	if info, ok := doc["search_information"].(map[string]any); ok {
		info["total_results"] = 0
		info["total_pages"] = 0
	}
	delete(doc, "summary")
	setParams(doc, q)
	return providers.JSONBytes(doc)
}

// trendsPoints is the number of points and the step of each Google Trends date range.
func trendsPoints(date string) (int, time.Duration) {
	day := 24 * time.Hour
	switch date {
	case "now 1-H":
		return 60, time.Minute
	case "now 4-H":
		return 240, time.Minute
	case "now 1-d":
		return 180, 8 * time.Minute
	case "now 7-d":
		return 168, time.Hour
	case "today 1-m":
		return 30, day
	case "today 3-m":
		return 90, day
	case "today 5-y":
		return 261, 7 * day
	case "all":
		return 264, 30 * day
	}
	return 52, 7 * day
}

// trendLevel is a term's interest at point k of n: a level of its own with a yearly wave, the
// same for the same term whatever it is compared with.
func trendLevel(term string, t time.Time) float64 {
	r := providers.Rand("trend", strings.ToLower(term))
	base := 20 + 70*r.Float64()
	phase := r.Float64() * 2 * math.Pi
	wave := 0.25 * base * math.Sin(2*math.Pi*float64(t.YearDay())/365+phase)
	noise := providers.Rand("trendpoint", strings.ToLower(term), t.Format(time.RFC3339)).Float64()*0.1*base - 0.05*base
	return math.Max(base+wave+noise, 1)
}

// risingWords make the rising related queries of a term.
var risingWords = []string{"trend", "challenge", "shortage", "new flavour", "ban", "festival", "subscription", "app", "latte", "kit"}

// generateTrends answers a google_trends search about the asked terms: interest over time over
// the asked range (0 to 100, the peak of all terms 100), by region (each region's share between
// the terms, or one term's 0 to 100), or the related queries of a term.
func generateTrends(doc map[string]any, q url.Values) ([]byte, int, bool) {
	var terms []string
	for _, t := range strings.Split(q.Get("q"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 {
		return nil, 0, false
	}
	switch q.Get("data_type") {
	case "TIMESERIES", "":
		trendsOverTime(doc, q.Get("date"), terms)
	case "GEO_MAP", "GEO_MAP_0":
		if !trendsByRegion(doc, q.Get("geo"), terms) {
			return nil, 0, false
		}
	case "RELATED_QUERIES":
		trendsRelated(doc, terms[0])
	default:
		return nil, 0, false
	}
	setParams(doc, q)
	return providers.JSONBytes(doc), http.StatusOK, true
}

// trendValue is a term's value in a Google Trends answer, a percentage when pct.
func trendValue(query string, v float64, pct bool) map[string]any {
	s := strconv.Itoa(int(math.Round(v)))
	if pct {
		s += "%"
	}
	return map[string]any{"query": query, "value": s, "extracted_value": int(math.Round(v))}
}

// trendsOverTime sets the terms' interest over the date range, the peak of all terms 100, and
// with several terms their averages.
func trendsOverTime(doc map[string]any, date string, terms []string) {
	n, step := trendsPoints(date)
	end := time.Now().UTC().Truncate(step)
	if step >= 24*time.Hour {
		end = providers.SandboxToday()
	}
	levels := make([][]float64, n)
	peak := 0.0
	for k := range n {
		t := end.Add(-step * time.Duration(n-1-k))
		levels[k] = make([]float64, len(terms))
		for j, term := range terms {
			levels[k][j] = trendLevel(term, t)
			peak = math.Max(peak, levels[k][j])
		}
	}
	var timeline []any
	sums := make([]float64, len(terms))
	for k := range n {
		t := end.Add(-step * time.Duration(n-1-k))
		var values []any
		for j, term := range terms {
			v := math.Round(levels[k][j] / peak * 100)
			sums[j] += v
			values = append(values, trendValue(term, v, false))
		}
		label := t.Format("Jan 2, 2006")
		if step < 24*time.Hour {
			label = t.Format("Jan 2, 2006 at 3:04 PM")
		}
		timeline = append(timeline, map[string]any{"date": label, "timestamp": strconv.FormatInt(t.Unix(), 10), "values": values})
	}
	var averages []any
	for j, term := range terms {
		averages = append(averages, map[string]any{"query": term, "value": int(math.Round(sums[j] / float64(n)))})
	}
	iot := map[string]any{"timeline_data": timeline}
	if len(terms) > 1 {
		iot["averages"] = averages
	}
	doc["interest_over_time"] = iot
}

// trendsByRegion sets the terms' interest by region: the recorded US regions, or outside the US
// those of trendRegions; each region's share between the terms, or one term's 0 to 100. False
// when there are no regions.
func trendsByRegion(doc map[string]any, geo string, terms []string) bool {
	var regions []map[string]any
	for _, key := range []string{"compared_breakdown_by_region", "interest_by_region"} {
		regions = append(regions, providers.Templates(doc[key])...)
	}
	if geo = strings.ToUpper(geo); geo != "US" && !strings.HasPrefix(geo, "US-") {
		regions = nil
		for _, g := range trendRegions()[geo] {
			regions = append(regions, map[string]any{"geo": g[0], "location": g[1]})
		}
	}
	if len(regions) == 0 {
		return false
	}
	var out []map[string]any
	for _, reg := range regions {
		out = append(out, trendsRegion(reg, terms))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i]["_sort"].(float64) > out[j]["_sort"].(float64) })
	top := out[0]["_sort"].(float64)
	var list []any
	for _, m := range out {
		if len(terms) == 1 {
			v := math.Round(m["_sort"].(float64) / top * 100)
			m["value"], m["extracted_value"] = strconv.Itoa(int(v)), int(v)
		}
		delete(m, "_sort")
		list = append(list, m)
	}
	delete(doc, "compared_breakdown_by_region")
	delete(doc, "interest_by_region")
	if len(terms) > 1 {
		doc["compared_breakdown_by_region"] = list
	} else {
		doc["interest_by_region"] = list
	}
	return true
}

// trendsRegion is one region's entry: the term it prefers and, with several terms, each one's
// share; _sort holds what the regions are ordered by (the first term's share, or its level).
func trendsRegion(reg map[string]any, terms []string) map[string]any {
	loc, _ := reg["location"].(string)
	shares := make([]float64, len(terms))
	total := 0.0
	for j, term := range terms {
		shares[j] = trendLevel(term+"|"+loc, time.Time{})
		total += shares[j]
	}
	m := map[string]any{"geo": reg["geo"], "location": loc}
	best := 0
	for j := range terms {
		if shares[j] > shares[best] {
			best = j
		}
	}
	m["max_value_index"] = best
	if len(terms) > 1 {
		var values []any
		for j, term := range terms {
			values = append(values, trendValue(term, shares[j]/total*100, true))
		}
		m["values"] = values
		m["_sort"] = shares[0] / total
	} else {
		m["_sort"] = shares[0]
	}
	return m
}

// trendsRelated sets the related queries of term: the top ones, then the rising ones by growth.
func trendsRelated(doc map[string]any, term string) {
	words := []string{"near me", "price", "how to", "best", "vs", "meaning", "2026", "review", "recipe", "news"}
	var rising, top []any
	for i, w := range words {
		r := providers.Rand("related", strings.ToLower(term), w)
		link := func(s string) string { return "https://trends.google.com/trends/explore?q=" + url.QueryEscape(s) }
		query := term + " " + w
		if strings.HasSuffix(w, "to") || w == "best" {
			query = w + " " + term
		}
		top = append(top, map[string]any{"query": query, "value": strconv.Itoa(100 - i*8), "extracted_value": 100 - i*8,
			"link": link(query)})
		growth := 50 + r.IntN(3000)
		rq := term + " " + risingWords[i]
		rising = append(rising, map[string]any{"query": rq, "value": "+" + strconv.Itoa(growth) + "%",
			"extracted_value": growth, "link": link(rq)})
	}
	sort.SliceStable(rising, func(i, j int) bool {
		return rising[i].(map[string]any)["extracted_value"].(int) > rising[j].(map[string]any)["extracted_value"].(int)
	})
	doc["related_queries"] = map[string]any{"rising": rising, "top": top}
}

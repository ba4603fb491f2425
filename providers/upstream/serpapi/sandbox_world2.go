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

const jobsTotal, jobsPage = 30, 10

var companySuffix = map[string]string{"US": "Inc.", "DE": "GmbH", "AT": "GmbH", "CH": "AG", "GB": "Ltd", "FR": "SAS", "NL": "B.V.",
	"ES": "S.L.", "IT": "S.r.l.", "PT": "Lda.", "JP": "K.K.", "SE": "AB", "BR": "Ltda."}

var eurozone = map[string]bool{"DE": true, "FR": true, "ES": true, "IT": true, "PT": true, "NL": true, "AT": true, "BE": true,
	"IE": true, "FI": true, "GR": true}

func salaryCurrency(cc string) string {
	switch {
	case eurozone[cc]:
		return "€"
	case cc == "GB":
		return "£"
	case cc == "JP":
		return "¥"
	case cc == "CH":
		return "CHF "
	}
	return "$"
}

// jobsPlace is the job search's place: its location parameter, else a place its query names.
func jobsPlace(q url.Values) (providers.SandboxPlace, string, bool) {
	query := strings.TrimSpace(q.Get("q"))
	if loc := strings.TrimSpace(q.Get("location")); loc != "" {
		p, ok := providers.PlaceNamed(loc)
		return p, query, ok
	}
	if head, tail, ok := strings.Cut(query, ","); ok {
		if p, ok := providers.GazetteerPlace(tail); ok {
			return p, strings.TrimSpace(head), true
		}
	}
	if p, ok := providers.PlaceIn(query); ok {
		return p, mapsTopic(query), true
	}
	if p, ok := providers.PlaceNamed(providers.PlacePhrase(query)); ok {
		return p, mapsTopic(query), true
	}
	return providers.SandboxPlace{}, query, false
}

var seniority = []string{"", "Senior ", "Junior ", "Lead ", "Staff ", ""}
var schedules = []string{"Full-time", "Full-time", "Part-time", "Contractor", "Full-time"}

func generateJobs(doc map[string]any, q url.Values) ([]byte, int, bool) {
	tmpls := providers.Templates(doc["jobs_results"])
	place, topic, ok := jobsPlace(q)
	if len(tmpls) == 0 || topic == "" {
		return nil, 0, false
	}
	if !ok {
		place, _ = providers.PlaceNamed("New York") // SerpApi's default market (gl us)
	}
	from := pageFrom(q)
	to := min(from+jobsPage, jobsTotal)
	page := []any{}
	for i := from; i < to; i++ {
		rec := providers.FromTemplate(tmpls, i)
		r := providers.Rand("job", topic, place.Name, strconv.Itoa(i))
		title := seniority[r.IntN(len(seniority))] + providers.TitleCase(topic)
		suffix := companySuffix[place.CountryCode]
		if suffix == "" {
			suffix = "Ltd"
		}
		company := providers.SynthName(topic+place.Name, i, suffix)
		where := place.Name + ", " + place.Country
		lo := 30 + r.IntN(90)
		hi := lo + 10 + r.IntN(40)
		sym := salaryCurrency(place.CountryCode)
		salary := fmt.Sprintf("%s%dK–%s%dK a year", sym, lo, sym, hi)
		sched := schedules[r.IntN(len(schedules))]
		posted := fmt.Sprintf("%d days ago", 1+r.IntN(28))
		rec["title"] = title
		rec["company_name"] = company
		rec["location"] = where
		rec["via"] = "via Sandbox Jobs"
		rec["extensions"] = []any{posted, sched, salary}
		rec["detected_extensions"] = map[string]any{"posted_at": posted, "schedule_type": sched, "salary": salary}
		rec["description"] = fmt.Sprintf("Synthetic test-mode listing: %s is hiring a %s in %s (not a real job).", company, title, where)
		id := sandboxToken("job", map[string]any{"t": topic, "p": place.Name, "i": i})
		rec["job_id"] = id
		link := "https://jobs.example/" + providers.Slug(company) + "/" + providers.Slug(title)
		rec["apply_options"] = []any{map[string]any{"title": company + " Careers", "link": link}}
		rec["share_link"] = link
		if _, ok := rec["job_highlights"]; ok {
			rec["job_highlights"] = []any{map[string]any{"title": "Qualifications", "items": []any{
				fmt.Sprintf("%d+ years as %s", 1+r.IntN(6), strings.TrimSpace(providers.TitleCase(topic)))}}}
		}
		page = append(page, rec)
	}
	doc["jobs_results"] = page
	pag := map[string]any{}
	if to < jobsTotal {
		pag["next_page_token"] = pageToken(to)
		pag["next"] = "https://serpapi.com/search.json?engine=google_jobs&next_page_token=" + pageToken(to) + "&q=" + url.QueryEscape(q.Get("q"))
	}
	doc["serpapi_pagination"] = pag
	setParams(doc, q)
	if params, ok := doc["search_parameters"].(map[string]any); ok && q.Get("location") != "" {
		params["location_requested"] = q.Get("location")
		params["location_used"] = place.Name + "," + place.Country
	}
	return providers.JSONBytes(doc), http.StatusOK, true
}

// knownIssuers are the companies of the recorded EDGAR ticker map (the fixture set's names).
var knownIssuers = map[string][2]string{
	"AAPL": {"Apple Inc", "NASDAQ"}, "MSFT": {"Microsoft Corp", "NASDAQ"}, "NVDA": {"NVIDIA Corp", "NASDAQ"},
	"AMZN": {"Amazon.com Inc", "NASDAQ"}, "GOOGL": {"Alphabet Inc Class A", "NASDAQ"}, "GOOG": {"Alphabet Inc Class C", "NASDAQ"},
	"META": {"Meta Platforms Inc", "NASDAQ"}, "TSLA": {"Tesla Inc", "NASDAQ"}, "BRK-A": {"Berkshire Hathaway Inc Class A", "NYSE"},
	"BRK-B": {"Berkshire Hathaway Inc Class B", "NYSE"},
}

// windowPoints are the graph's points and the step between them for each window.
func windowPoints(window string, now time.Time) (n int, step time.Duration) {
	day := 24 * time.Hour
	switch window {
	case "5D":
		return 5 * 7, 3 * time.Hour
	case "1M":
		return 22, day
	case "6M":
		return 26, 7 * day
	case "YTD":
		return max(1, now.YearDay()/7), 7 * day
	case "1Y":
		return 52, 7 * day
	case "5Y":
		return 60, 30 * day
	case "MAX":
		return 120, 30 * day
	}
	return 8, time.Hour
}

func generateFinance(doc map[string]any, q url.Values) ([]byte, int, bool) {
	summary, _ := doc["summary"].(map[string]any)
	asked := strings.ToUpper(strings.TrimSpace(q.Get("q")))
	if summary == nil || asked == "" {
		return nil, 0, false
	}
	stock, exchange, _ := strings.Cut(asked, ":")
	title := "Sandbox Issuer " + stock + " (synthetic)"
	if k, ok := knownIssuers[stock]; ok {
		title = k[0]
		if exchange == "" {
			exchange = k[1]
		}
	}
	if exchange == "" {
		exchange = "NASDAQ"
	}
	r := providers.Rand("quote", stock)
	base := math.Exp(math.Log(5) + r.Float64()*(math.Log(900)-math.Log(5)))
	window := q.Get("window")
	now := time.Now().UTC()
	n, step := windowPoints(window, now)
	wr := providers.Rand("walk", stock, window, now.Format(time.DateOnly))
	prices := make([]float64, n)
	p := base
	for i := range prices {
		p *= 1 + (wr.Float64()-0.5)*0.02*math.Sqrt(float64(step)/float64(time.Hour))
		prices[i] = math.Round(p*100) / 100
	}
	last := prices[n-1]
	prev := base
	if window == "" || window == "1D" {
		prev = math.Round(base*(1+(r.Float64()-0.5)*0.01)*100) / 100
	} else {
		prev = prices[0]
	}
	change := last - prev
	move := "Up"
	if change < 0 {
		move = "Down"
	}
	ny := time.FixedZone("UTC-05:00", -5*3600)
	end := time.Date(now.Year(), now.Month(), now.Day(), 16, 0, 0, 0, ny)
	tmpls := providers.Templates(doc["graph"])
	graph := make([]any, 0, n)
	for i, v := range prices {
		pt := providers.FromTemplate(tmpls, i)
		if pt == nil {
			pt = map[string]any{}
		}
		pt["price"] = providers.Num(v, 2)
		pt["currency"] = "USD"
		pt["date"] = end.Add(-time.Duration(n-1-i) * step).Format("Jan 02 2006, 03:04 PM UTC-07:00")
		if _, ok := pt["volume"]; ok {
			pt["volume"] = 100000 + wr.IntN(900000)
		}
		graph = append(graph, pt)
	}
	doc["graph"] = graph
	summary["title"] = title
	summary["stock"] = stock
	summary["exchange"] = exchange
	summary["price"] = fmt.Sprintf("$%.2f", last)
	summary["extracted_price"] = providers.Num(last, 2)
	summary["currency"] = "$"
	summary["price_movement"] = map[string]any{"percentage": providers.Num(math.Abs(change)/prev*100, 2),
		"value": providers.Num(math.Abs(change), 2), "movement": move}
	delete(summary, "market")
	if ext, ok := summary["extensions"].([]any); ok && len(ext) > 2 {
		ext[2] = exchange
	}
	if kg, ok := doc["knowledge_graph"].(map[string]any); ok {
		if ks, ok := kg["key_stats"].(map[string]any); ok {
			for _, s := range providers.Templates(ks["stats"]) {
				switch s["label"] {
				case "Previous close":
					s["value"] = fmt.Sprintf("$%.2f", prev)
				case "Day range":
					s["value"] = fmt.Sprintf("$%.2f - $%.2f", math.Min(prev, last)*0.99, math.Max(prev, last)*1.01)
				case "Primary exchange":
					s["value"] = exchange
				}
			}
		}
		// The rest of the knowledge graph is about the recorded company.
		for k := range kg {
			if k != "key_stats" {
				delete(kg, k)
			}
		}
	}
	delete(doc, "markets")
	setParams(doc, q)
	return providers.JSONBytes(doc), http.StatusOK, true
}

// flightAirport is the gazetteer's airport of a code, or a synthetic one for a code it lacks.
func flightAirport(code string) providers.SandboxPlace {
	code = strings.ToUpper(strings.TrimSpace(code))
	if p, ok := providers.AirportCode(code); ok {
		return p
	}
	p, _ := providers.PlaceNamed("Sandbox airport " + code)
	p.Name, p.IATA = code+" Airport (synthetic)", code
	return p
}

var airlines = []struct{ name, code string }{{"Sandbox Air", "SX"}, {"Testwind Airways", "TW"}, {"Mockingbird Airlines", "MK"}}

// travelClass is a travel class's name and fare multiplier.
type travelClass struct {
	name string
	mult float64
}

// travelClasses are SerpApi's travel_class values with the fare multiplier.
var travelClasses = map[string]travelClass{"": {"Economy", 1}, "1": {"Economy", 1}, "2": {"Premium economy", 1.7}, "3": {"Business", 3.6}, "4": {"First", 5.8}}

// sandboxToday is the day before which a flight date is refused; a variable for tests.
var sandboxToday = func() time.Time { return time.Now().UTC().Truncate(24 * time.Hour) }

// generateFlights answers a google_flights search with up to nine itineraries between the asked
// airports on the asked day (the return day for a departure_token of the sandbox), nonstop or
// through hubs within the stops asked, priced for the class and party, the best three first.
func generateFlights(doc map[string]any, q url.Values) ([]byte, int, bool) {
	// Dates in the past are refused as SerpApi refuses them (HTTP 400 with an error).
	yesterday := sandboxToday().AddDate(0, 0, -1)
	for _, k := range []string{"outbound_date", "return_date"} {
		if d, err := time.Parse(time.DateOnly, q.Get(k)); err == nil && d.Before(yesterday) {
			return providers.JSONBytes(map[string]any{"error": k + " cannot be in the past."}), http.StatusBadRequest, true
		}
	}
	if q.Get("booking_token") != "" {
		return nil, 0, false
	}
	if t := q.Get("departure_token"); t != "" && !strings.HasPrefix(t, "sbxdep_") {
		return nil, 0, false // a recorded outbound's token: the recorded return flights
	}
	tmpls := append(providers.Templates(doc["best_flights"]), providers.Templates(doc["other_flights"])...)
	if len(tmpls) == 0 || q.Get("departure_id") == "" || q.Get("arrival_id") == "" {
		return nil, 0, false
	}
	if params, ok := doc["search_parameters"].(map[string]any); ok {
		// The airports block names the asked airports (the recorded answer's, rewritten).
		rewriteParams(map[string]any{"airports": doc["airports"]}, params, q)
	}
	fs, ok := newFlightSearch(q)
	if !ok {
		return nil, 0, false
	}
	var its []itin
	for i := 0; i < 9; i++ {
		if it, ok := fs.itinerary(tmpls, i); ok {
			its = append(its, it)
		}
	}
	sort.SliceStable(its, func(i, j int) bool { return its[i].price*float64(its[i].dur) < its[j].price*float64(its[j].dur) })
	best, other := []any{}, []any{}
	lowest := math.Inf(1)
	for i, it := range its {
		lowest = math.Min(lowest, it.price)
		if i < 3 {
			best = append(best, it.m)
		} else {
			other = append(other, it.m)
		}
	}
	doc["best_flights"], doc["other_flights"] = best, other
	if pi, ok := doc["price_insights"].(map[string]any); ok && len(its) > 0 {
		pi["lowest_price"] = lowest
		pi["typical_price_range"] = []any{math.Round(lowest * 0.9), math.Round(lowest * 1.4)}
		delete(pi, "price_history")
	}
	setParams(doc, q)
	return providers.JSONBytes(doc), http.StatusOK, true
}

// flightSearch is what a google_flights search asks of every itinerary: the airports (swapped
// for the return flights), the day, the stops at most, the party and class, and what follows
// from the airports (their distance and the hubs between them).
type flightSearch struct {
	from, to  providers.SandboxPlace
	date      string
	day       time.Time
	returning bool // the return flights of a sandbox outbound (departure_token)
	roundTrip bool // type=1
	maxStops  int
	pax       int
	cls       travelClass
	direct    float64
	hubs      []providers.SandboxPlace
}

// newFlightSearch reads a google_flights request; false when its day is not a date.
func newFlightSearch(q url.Values) (flightSearch, bool) {
	fs := flightSearch{from: flightAirport(q.Get("departure_id")), to: flightAirport(q.Get("arrival_id")), date: q.Get("outbound_date"),
		returning: q.Get("departure_token") != "", roundTrip: q.Get("type") == "1", maxStops: 2}
	if fs.returning {
		fs.from, fs.to, fs.date = fs.to, fs.from, q.Get("return_date")
	}
	day, err := time.Parse(time.DateOnly, fs.date)
	if err != nil {
		return fs, false
	}
	fs.day = day
	if s, err := strconv.Atoi(q.Get("stops")); err == nil && s > 0 {
		fs.maxStops = s - 1
	}
	for _, k := range []string{"adults", "children", "infants_in_seat"} {
		n, _ := strconv.Atoi(q.Get(k))
		fs.pax += n
	}
	fs.pax = max(fs.pax, 1)
	fs.cls = travelClasses[q.Get("travel_class")]
	fs.direct = providers.DistanceKm(fs.from.Lat, fs.from.Lon, fs.to.Lat, fs.to.Lon)
	fs.hubs = hubsOf(fs.from, fs.to)
	return fs, true
}

// itin is a generated itinerary with its price and total duration in minutes.
type itin struct {
	m     map[string]any
	price float64
	dur   int
}

// itinerary makes the search's i-th itinerary from the templates, with i%3 stops (one at least
// beyond a long-haul aircraft's range); false when it has more stops than asked or hubs allow.
func (fs flightSearch) itinerary(tmpls []map[string]any, i int) (itin, bool) {
	stops := i % 3
	if fs.direct > 12000 && stops == 0 {
		stops = 1 // no nonstop beyond a long-haul aircraft's range
	}
	if stops > fs.maxStops || stops > len(fs.hubs) {
		return itin{}, false
	}
	from, to := fs.from, fs.to
	r := providers.Rand("flight", from.IATA, to.IATA, fs.date, strconv.Itoa(i))
	path := []providers.SandboxPlace{from}
	for s := 0; s < stops; s++ {
		path = append(path, fs.hubs[(i/3+s*2)%len(fs.hubs)])
	}
	path = append(path, to)
	if stops == 2 && providers.DistanceKm(from.Lat, from.Lon, path[1].Lat, path[1].Lon) > providers.DistanceKm(from.Lat, from.Lon, path[2].Lat, path[2].Lon) {
		path[1], path[2] = path[2], path[1]
	}
	al := airlines[r.IntN(len(airlines))]
	rec := providers.FromTemplate(tmpls, i)
	dep := fs.day.Add(time.Duration(6*60+r.IntN(16*60)/5*5) * time.Minute) // local time at from
	utc := dep.Add(-time.Duration(from.UTCOffset) * time.Second)
	legs, layovers, total, km := fs.fly(path, providers.Templates(rec["flights"]), r, utc, al.name, al.code)
	price := math.Round((45 + km*0.075*(0.85+0.45*r.Float64())*(1-0.08*float64(stops))) * fs.cls.mult * float64(fs.pax))
	rec["flights"] = legs
	if len(layovers) > 0 {
		rec["layovers"] = layovers
	} else {
		delete(rec, "layovers")
	}
	rec["total_duration"] = total
	rec["price"] = price
	rec["carbon_emissions"] = map[string]any{"this_flight": int(km * 85 * float64(fs.pax)), "typical_for_this_route": int(fs.direct * 90 * float64(fs.pax)),
		"difference_percent": int(math.Round((km*85/(fs.direct*90) - 1) * 100))}
	delete(rec, "airline_logo")
	if fs.roundTrip && !fs.returning {
		rec["type"] = "Round trip"
		rec["departure_token"] = sandboxToken("dep", map[string]any{"i": i, "f": from.IATA, "t": to.IATA})
	} else {
		delete(rec, "departure_token")
		if fs.roundTrip {
			rec["type"] = "Round trip"
		} else {
			rec["type"] = "One way"
		}
	}
	return itin{rec, price, total}, true
}

// fly makes the legs along path, flown by the airline from utc on, from the leg templates, and
// the layovers between them; it returns them with the total minutes and the kilometres flown.
func (fs flightSearch) fly(path []providers.SandboxPlace, legTmpls []map[string]any, r *rand.Rand, utc time.Time,
	airline, code string) (legs, layovers []any, total int, km float64) {
	for l := 0; l+1 < len(path); l++ {
		a, b := path[l], path[l+1]
		d := providers.DistanceKm(a.Lat, a.Lon, b.Lat, b.Lon)
		km += d
		mins := int(math.Round(d/800*60)) + 30
		leg := providers.FromTemplate(legTmpls, l)
		if leg == nil {
			leg = map[string]any{}
		}
		arr := utc.Add(time.Duration(mins) * time.Minute)
		leg["departure_airport"] = map[string]any{"name": a.Name, "id": a.IATA, "time": utc.Add(time.Duration(a.UTCOffset) * time.Second).Format("2006-01-02 15:04")}
		leg["arrival_airport"] = map[string]any{"name": b.Name, "id": b.IATA, "time": arr.Add(time.Duration(b.UTCOffset) * time.Second).Format("2006-01-02 15:04")}
		leg["duration"] = mins
		leg["airline"] = airline
		leg["flight_number"] = fmt.Sprintf("%s %d", code, 100+r.IntN(899))
		leg["travel_class"] = fs.cls.name
		delete(leg, "ticket_also_sold_by")
		delete(leg, "airline_logo")
		legs = append(legs, leg)
		total += mins
		utc = arr
		if l+2 < len(path) {
			wait := 60 + r.IntN(150)
			layovers = append(layovers, map[string]any{"duration": wait, "name": b.Name, "id": b.IATA})
			total += wait
			utc = utc.Add(time.Duration(wait) * time.Minute)
		}
	}
	return legs, layovers, total, km
}

var (
	hubsMu    sync.Mutex
	hubsCache = map[string][]providers.SandboxPlace{}
)

// hubsOf is providers.Hubs for a pair of airports, remembered (a scan of the gazetteer).
func hubsOf(from, to providers.SandboxPlace) []providers.SandboxPlace {
	key := from.IATA + ">" + to.IATA
	hubsMu.Lock()
	h, ok := hubsCache[key]
	hubsMu.Unlock()
	if ok {
		return h
	}
	h = providers.Hubs(from, to, 6)
	hubsMu.Lock()
	if len(hubsCache) > 10000 {
		hubsCache = map[string][]providers.SandboxPlace{}
	}
	hubsCache[key] = h
	hubsMu.Unlock()
	return h
}

const shoppingTotal, shoppingPage = 40, 20

var productKinds = []string{"", " Pro", " Mini", " Plus", " Classic", " (2nd generation)", " Max", " Lite"}

// generateShopping answers a google_shopping search with a synthetic set of products named after
// the query, with the price bounds applied and the price and rating orders (sort_by, the
// sandbox's rating token), paged by start.
func generateShopping(doc map[string]any, q url.Values) ([]byte, int, bool) {
	tmpls := providers.Templates(doc["shopping_results"])
	query := strings.TrimSpace(q.Get("q"))
	if len(tmpls) == 0 || query == "" || q.Get("engine") != "google_shopping" {
		return nil, 0, false
	}
	if s := q.Get("shoprs"); s != "" && s != sandboxRatingToken {
		return nil, 0, false // a recorded filter token: the recorded filtered answer
	}
	minP, hasMin := floatParam(q, "min_price")
	maxP, hasMax := floatParam(q, "max_price")
	seed := strings.ToLower(query)
	base := 20 + providers.Rand("shopping", seed).Float64()*400
	var all []map[string]any
	for i := range shoppingTotal {
		rr := providers.Rand("product", seed, strconv.Itoa(i))
		price := math.Round(base*(0.4+1.4*rr.Float64())*100) / 100
		if (hasMin && price < minP) || (hasMax && price > maxP) {
			continue
		}
		rec := providers.FromTemplate(tmpls, i)
		title := providers.TitleCase(query) + productKinds[i%len(productKinds)]
		if i >= len(productKinds) {
			title += fmt.Sprintf(" %d", i/len(productKinds)+1)
		}
		id := strconv.FormatUint(9e18+rr.Uint64()%1e17, 10)
		rec["title"] = title
		rec["product_id"] = id
		rec["product_link"] = "https://www.google.com/shopping/product/" + id
		delete(rec, "immersive_product_page_token")
		delete(rec, "serpapi_immersive_product_api")
		rec["source"] = providers.SynthName(seed, i, "Store")
		rec["price"] = fmt.Sprintf("$%.2f", price)
		rec["extracted_price"] = providers.Num(price, 2)
		delete(rec, "old_price")
		delete(rec, "extracted_old_price")
		rec["rating"] = providers.Num(3+2*rr.Float64(), 1)
		rec["reviews"] = rr.IntN(5000)
		all = append(all, rec)
	}
	key := func(k string, desc bool) func(i, j int) bool {
		return func(i, j int) bool {
			a, _ := providers.NumOf(all[i][k])
			b, _ := providers.NumOf(all[j][k])
			if desc {
				return a > b
			}
			return a < b
		}
	}
	switch {
	case q.Get("shoprs") == sandboxRatingToken:
		sort.SliceStable(all, key("rating", true))
	case q.Get("sort_by") == "1":
		sort.SliceStable(all, key("extracted_price", false))
	case q.Get("sort_by") == "2":
		sort.SliceStable(all, key("extracted_price", true))
	}
	start, _ := strconv.Atoi(q.Get("start"))
	start = max(start, 0)
	page := []any{}
	for i := start; i < min(start+shoppingPage, len(all)); i++ {
		all[i]["position"] = i + 1
		page = append(page, all[i])
	}
	doc["shopping_results"] = page
	delete(doc, "inline_shopping_results")
	pag := map[string]any{}
	if start+shoppingPage < len(all) {
		pag["next"] = "https://serpapi.com/search.json?engine=google_shopping&q=" + url.QueryEscape(query) + "&start=" + strconv.Itoa(start+shoppingPage)
	}
	doc["serpapi_pagination"] = pag
	offerRatingOrder(doc)
	setParams(doc, q)
	return providers.JSONBytes(doc), http.StatusOK, true
}

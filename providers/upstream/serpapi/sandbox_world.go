package serpapi

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
)

// The engines about places and things in the world (hotels, maps, jobs, finance, flights) are
// generated, not rewritten (issue 36): each answer is a synthetic set built from the recorded
// answer's records as templates (every key, type and nesting stays SerpApi's), consistent with
// the request: results around the requested place of the gazetteer, the requested airports and
// tickers, filters and sort orders applied, paging that advances and ends.

// worldEngines generate a whole answer; ok false leaves the answer to the topic rewrite.
var worldEngines = map[string]func(doc map[string]any, q url.Values) (out []byte, status int, ok bool){
	"google_hotels":   generateHotels,
	"google_maps":     generateMaps,
	"google_jobs":     generateJobs,
	"google_finance":  generateFinance,
	"google_flights":  generateFlights,
	"google_shopping": generateShopping,
}

// incidental are the parameters that do not change which records an engine answers (dates,
// party, currency, language, paging of a recorded answer).
var incidental = map[string]bool{"api_key": true, "output": true, "engine": true, "check_in_date": true, "check_out_date": true,
	"adults": true, "children": true, "children_ages": true, "currency": true, "hl": true, "gl": true, "google_domain": true,
	"type": true, "next_page_token": true, "start": true, "q": true, "booking_token": true, "departure_token": true,
	"outbound_date": true, "return_date": true, "infants_in_seat": true, "infants_on_lap": true}

// isRecorded tells whether a request is the recorded one (same query, airports or symbol, and no
// other filter than the recording's): it gets the recorded answer, so the golden files keep
// pinning the mapping of a real upstream answer.
func isRecorded(doc map[string]any, q url.Values) bool {
	params, _ := doc["search_parameters"].(map[string]any)
	if params == nil {
		return false
	}
	rec := func(k string) string { s, _ := params[k].(string); return s }
	if !strings.EqualFold(strings.TrimSpace(q.Get("q")), rec("q")) {
		return false
	}
	for k := range q {
		if incidental[k] && k != "q" && k != "outbound_date" && k != "return_date" {
			continue
		}
		if k == "q" {
			continue
		}
		if rec(k) != q.Get(k) {
			return false
		}
	}
	return true
}

// sandboxToken is a self-describing token or id of a generated record (a property, a place):
// the details lookup decodes it to answer about the same record.
func sandboxToken(kind string, v any) string {
	b, _ := json.Marshal(v)
	return "sbx" + kind + "_" + base64.RawURLEncoding.EncodeToString(b)
}

func readToken(kind, tok string, v any) bool {
	rest, ok := strings.CutPrefix(tok, "sbx"+kind+"_")
	if !ok {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil && json.Unmarshal(b, v) == nil
}

// pageToken is the next_page_token of the sandbox's token-paged engines: the index of the next
// result.
func pageToken(from int) string { return "sbxpage_" + strconv.Itoa(from) }

func pageFrom(q url.Values) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(q.Get("next_page_token"), "sbxpage_"))
	return max(n, 0)
}

var currencySymbols = map[string]string{"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹", "CAD": "CA$", "AUD": "A$", "CHF": "CHF "}

func money(currency string, v float64) string {
	sym, ok := currencySymbols[strings.ToUpper(currency)]
	if !ok {
		sym = strings.ToUpper(currency) + " "
	}
	return sym + strconv.FormatFloat(math.Round(v), 'f', -1, 64)
}

// hotel is the part of a generated property its details lookup needs again.
type hotel struct {
	Place  string  `json:"p"`
	Index  int     `json:"i"`
	Rental bool    `json:"r,omitempty"`
	Nights int     `json:"n"`
	Cur    string  `json:"c"`
	Lat    float64 `json:"la"`
	Lon    float64 `json:"lo"`
}

const hotelsPerPlace, hotelsPage = 36, 18

func stayNights(q url.Values) int {
	in, err1 := time.Parse(time.DateOnly, q.Get("check_in_date"))
	out, err2 := time.Parse(time.DateOnly, q.Get("check_out_date"))
	if err1 != nil || err2 != nil || !out.After(in) {
		return 1
	}
	return int(out.Sub(in).Hours() / 24)
}

// hotelRecord fills a property template for hotel i of a place.
func hotelRecord(tmpl map[string]any, place providers.SandboxPlace, h hotel) map[string]any {
	rec := tmpl
	r := providers.Rand("hotel", strings.ToLower(place.Name), place.CountryCode, strconv.Itoa(h.Index), strconv.FormatBool(h.Rental))
	class := 2 + r.IntN(4)
	kind, suffix := "hotel", "Hotel"
	if h.Rental {
		kind, suffix = "vacation rental", "Apartments"
	}
	name := providers.SynthName(place.Name+kind, h.Index, suffix)
	price := float64(25*class) + float64(r.IntN(60*class))
	rating := math.Round((3+2*math.Pow(r.Float64(), 0.6))*10) / 10
	reviews := 20 + r.IntN(4000)
	lat, lon := providers.Scatter(place.Name+kind, h.Index, place.Lat, place.Lon, 5)
	h.Lat, h.Lon = lat, lon
	rec["type"] = kind
	rec["name"] = name
	rec["description"] = fmt.Sprintf("Synthetic test-mode %s in %s, %s (not a real property).", kind, place.Name, place.Country)
	rec["link"] = "https://" + providers.Slug(name+" "+place.Name) + ".hotels.example/"
	tok := sandboxToken("hotel", h)
	rec["property_token"] = tok
	if _, ok := rec["serpapi_property_details_link"]; ok {
		rec["serpapi_property_details_link"] = "https://serpapi.com/search.json?engine=google_hotels&property_token=" + url.QueryEscape(tok) +
			"&q=" + url.QueryEscape(h.Place)
	}
	rec["gps_coordinates"] = map[string]any{"latitude": lat, "longitude": lon}
	rate := func(v float64) map[string]any {
		return map[string]any{"lowest": money(h.Cur, v), "extracted_lowest": providers.Num(v, 0),
			"before_taxes_fees": money(h.Cur, v*0.88), "extracted_before_taxes_fees": providers.Num(math.Round(v*0.88), 0)}
	}
	rec["rate_per_night"] = rate(price)
	rec["total_rate"] = rate(price * float64(h.Nights))
	if h.Rental {
		delete(rec, "hotel_class")
		delete(rec, "extracted_hotel_class")
	} else {
		rec["hotel_class"] = fmt.Sprintf("%d-star hotel", class)
		rec["extracted_hotel_class"] = class
	}
	rec["overall_rating"] = providers.Num(rating, 1)
	rec["reviews"] = reviews
	delete(rec, "deal")
	delete(rec, "deal_description")
	if _, ok := rec["ratings"]; ok {
		five := int(float64(reviews) * (rating - 3) / 2 * 0.8)
		rest := reviews - five
		rec["ratings"] = []any{map[string]any{"stars": 5, "count": five}, map[string]any{"stars": 4, "count": rest / 2},
			map[string]any{"stars": 3, "count": rest / 4}, map[string]any{"stars": 2, "count": rest / 8},
			map[string]any{"stars": 1, "count": rest - rest/2 - rest/4 - rest/8}}
	}
	if ap := airportOf(place); ap.IATA != "" {
		d := providers.DistanceKm(lat, lon, ap.Lat, ap.Lon)
		rec["nearby_places"] = []any{map[string]any{"name": ap.Name, "transportations": []any{
			map[string]any{"type": "Taxi", "duration": fmt.Sprintf("%d min", 5+int(d*1.3/40*60))}}}}
	}
	if _, ok := rec["address"]; ok {
		rec["address"] = fmt.Sprintf("%d %s Street, %s, %s", 1+r.IntN(200), providers.SynthName(place.Name, h.Index+1000, ""), place.Name, place.Country)
	}
	return rec
}

// airportOf is the airport nearest to a place, remembered per place (a scan of the gazetteer).
func airportOf(p providers.SandboxPlace) providers.SandboxPlace {
	key := fmt.Sprintf("%.4f,%.4f", p.Lat, p.Lon)
	airportMu.Lock()
	ap, ok := airportCache[key]
	airportMu.Unlock()
	if ok {
		return ap
	}
	ap, _ = providers.NearestAirport(p.Lat, p.Lon)
	airportMu.Lock()
	if len(airportCache) > 10000 {
		airportCache = map[string]providers.SandboxPlace{}
	}
	airportCache[key] = ap
	airportMu.Unlock()
	return ap
}

var (
	airportMu    sync.Mutex
	airportCache = map[string]providers.SandboxPlace{}
)

func generateHotels(doc map[string]any, q url.Values) ([]byte, int, bool) {
	var h hotel
	if readToken("hotel", q.Get("property_token"), &h) {
		place, ok := providers.PlaceNamed(h.Place)
		if !ok {
			return nil, 0, false
		}
		rec := hotelRecord(doc, place, h)
		return providers.JSONBytes(rec), http.StatusOK, true
	}
	props := providers.Templates(doc["properties"])
	asked := strings.TrimSpace(q.Get("q"))
	place, ok := providers.PlaceNamed(asked)
	if len(props) == 0 || !ok {
		return nil, 0, false
	}
	h = hotel{Place: asked, Rental: q.Get("vacation_rentals") == "true", Nights: stayNights(q), Cur: q.Get("currency")}
	if h.Cur == "" {
		h.Cur = "USD"
	}
	maxPrice, hasMax := floatParam(q, "max_price")
	minRating := map[string]float64{"7": 3.5, "8": 4, "9": 4.5}[q.Get("rating")]
	var all []map[string]any
	for i := range hotelsPerPlace {
		h.Index = i
		rec := hotelRecord(providers.FromTemplate(props, i), place, h)
		p, _ := providers.NumOf(rec["rate_per_night"].(map[string]any)["extracted_lowest"])
		rt, _ := providers.NumOf(rec["overall_rating"])
		if hasMax && p > maxPrice || rt < minRating {
			continue
		}
		all = append(all, rec)
	}
	sortRecords(all, map[string]func(m map[string]any) float64{
		"3": func(m map[string]any) float64 {
			v, _ := providers.NumOf(m["rate_per_night"].(map[string]any)["extracted_lowest"])
			return v
		},
		"8":  func(m map[string]any) float64 { v, _ := providers.NumOf(m["overall_rating"]); return -v },
		"13": func(m map[string]any) float64 { v, _ := providers.NumOf(m["reviews"]); return -v },
	}[q.Get("sort_by")])
	from := pageFrom(q)
	to := min(from+hotelsPage, len(all))
	from = min(from, to)
	page := make([]any, 0, to-from)
	for _, m := range all[from:to] {
		page = append(page, m)
	}
	doc["properties"] = page
	delete(doc, "ads")
	pag := map[string]any{"current_from": from + 1, "current_to": to}
	if to < len(all) {
		pag["next_page_token"] = pageToken(to)
		pag["next"] = "https://serpapi.com/search.json?engine=google_hotels&next_page_token=" + pageToken(to) + "&q=" + url.QueryEscape(asked)
	}
	doc["serpapi_pagination"] = pag
	setParams(doc, q)
	return providers.JSONBytes(doc), http.StatusOK, true
}

func floatParam(q url.Values, k string) (float64, bool) {
	f, err := strconv.ParseFloat(q.Get(k), 64)
	return f, err == nil
}

// sortRecords orders records by key ascending (stable; nil key keeps the generated order).
func sortRecords(recs []map[string]any, key func(map[string]any) float64) {
	if key == nil {
		return
	}
	sort.SliceStable(recs, func(i, j int) bool { return key(recs[i]) < key(recs[j]) })
}

// setParams echoes the request's parameters in search_parameters, as SerpApi does.
func setParams(doc map[string]any, q url.Values) {
	params, _ := doc["search_parameters"].(map[string]any)
	if params == nil {
		return
	}
	for k, vs := range q {
		if k == "api_key" || k == "output" || len(vs) == 0 {
			continue
		}
		params[k] = vs[0]
	}
}

// mapsPlace is the part of a generated Google Maps result its place lookup needs again.
type mapsPlace struct {
	Topic string  `json:"t"`
	City  string  `json:"c"`
	Index int     `json:"i"`
	Lat   float64 `json:"la"`
	Lon   float64 `json:"lo"`
}

// mapsTopic is a maps query without the place it names ("ramen near Shibuya" → "ramen").
func mapsTopic(query string) string {
	words := strings.Fields(query)
	for i, w := range words {
		if i > 0 && (strings.EqualFold(w, "near") || strings.EqualFold(w, "in") || strings.EqualFold(w, "around")) {
			return strings.Join(words[:i], " ")
		}
	}
	return query
}

// parseLL reads SerpApi's ll "@lat,lon,<zoom>z".
func parseLL(ll string) (lat, lon float64, zoom int, ok bool) {
	parts := strings.Split(strings.TrimPrefix(ll, "@"), ",")
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	var err1, err2, err3 error
	lat, err1 = strconv.ParseFloat(parts[0], 64)
	lon, err2 = strconv.ParseFloat(parts[1], 64)
	zoom, err3 = strconv.Atoi(strings.TrimSuffix(parts[2], "z"))
	return lat, lon, zoom, err1 == nil && err2 == nil && err3 == nil
}

const mapsTotal, mapsPage = 40, 20

var weekdays = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

func mapsRecord(tmpl map[string]any, mp mapsPlace, city providers.SandboxPlace) map[string]any {
	rec := tmpl
	r := providers.Rand("maps", mp.Topic, mp.City, strconv.Itoa(mp.Index))
	topic := providers.TitleCase(mp.Topic)
	title := providers.SynthName(mp.Topic+mp.City, mp.Index, topic)
	rec["title"] = title
	id := sandboxToken("place", mp)
	rec["place_id"] = id
	delete(rec, "data_cid")
	rec["data_id"] = fmt.Sprintf("0x%x:0x%x", r.Uint32(), r.Uint64())
	rec["gps_coordinates"] = map[string]any{"latitude": mp.Lat, "longitude": mp.Lon}
	rec["place_id_search"] = "https://serpapi.com/search.json?engine=google_maps&place_id=" + url.QueryEscape(id)
	rec["rating"] = providers.Num(3.2+1.8*r.Float64(), 1)
	rec["reviews"] = 5 + r.IntN(3000)
	rec["type"] = topic
	rec["types"] = []any{topic}
	rec["type_id"] = strings.ReplaceAll(strings.ToLower(mp.Topic), " ", "_")
	rec["type_ids"] = []any{rec["type_id"]}
	rec["address"] = fmt.Sprintf("%d %s Street, %s, %s", 1+r.IntN(200), providers.SynthName(mp.City, mp.Index+500, ""), city.Name, city.Country)
	opens, closes := 7+r.IntN(5), 17+r.IntN(7)
	hours := map[string]any{}
	for _, d := range weekdays {
		hours[d] = fmt.Sprintf("%d AM–%d PM", opens, closes-12)
	}
	rec["operating_hours"] = hours
	if r.IntN(3) == 0 {
		rec["open_state"] = fmt.Sprintf("Closed ⋅ Opens %d AM", opens)
	} else {
		rec["open_state"] = fmt.Sprintf("Open ⋅ Closes %d PM", closes-12)
	}
	rec["hours"] = rec["open_state"]
	rec["description"] = fmt.Sprintf("Synthetic test-mode %s in %s (not a real place).", strings.ToLower(topic), city.Name)
	rec["website"] = "https://" + providers.Slug(title) + ".places.example/"
	rec["phone"] = fmt.Sprintf("+%d %03d %04d", 10+r.IntN(89), r.IntN(1000), r.IntN(10000))
	return rec
}

func generateMaps(doc map[string]any, q url.Values) ([]byte, int, bool) {
	var mp mapsPlace
	if readToken("place", q.Get("place_id"), &mp) {
		city, _ := providers.PlaceNamed(mp.City)
		res, _ := doc["place_results"].(map[string]any)
		if res == nil {
			return nil, 0, false
		}
		doc["place_results"] = mapsRecord(res, mp, city)
		return providers.JSONBytes(doc), http.StatusOK, true
	}
	tmpls := providers.Templates(doc["local_results"])
	query := strings.TrimSpace(q.Get("q"))
	if len(tmpls) == 0 || query == "" {
		return nil, 0, false
	}
	var city providers.SandboxPlace
	lat, lon, zoom, hasLL := parseLL(q.Get("ll"))
	radius := 2.5 // km around a named place
	if hasLL {
		city = providers.PlaceAt("", lat, lon)
		if city.Name == "" {
			city.Name = fmt.Sprintf("%.3f,%.3f", lat, lon)
		}
		radius = 0.5 * 62 * math.Pow(2, float64(21-zoom)) * math.Max(math.Cos(lat*math.Pi/180), 0.01) / 1000
	} else if p, ok := providers.PlaceIn(query); ok {
		city, lat, lon = p, p.Lat, p.Lon
	} else if p, ok := providers.PlaceNamed(providers.PlacePhrase(query)); ok {
		city, lat, lon = p, p.Lat, p.Lon // a place the gazetteer lacks: a synthetic one of that name
	} else {
		// No place asked: Google answers around the caller; the sandbox's caller is in a city
		// chosen by the query (the same every time).
		p, _ := providers.PlaceNamed([]string{"New York", "London", "Paris", "Tokyo", "Berlin", "São Paulo", "Sydney", "Toronto"}[providers.Rand("maps-home", query).IntN(8)])
		city, lat, lon = p, p.Lat, p.Lon
	}
	topic := mapsTopic(query)
	start, _ := strconv.Atoi(q.Get("start"))
	var page []any
	for i := start; i < min(start+mapsPage, mapsTotal); i++ {
		plat, plon := providers.Scatter(topic+city.Name, i, lat, lon, radius)
		mp := mapsPlace{Topic: topic, City: city.Name, Index: i, Lat: plat, Lon: plon}
		rec := mapsRecord(providers.FromTemplate(tmpls, i), mp, city)
		rec["position"] = i + 1
		page = append(page, rec)
	}
	if page == nil {
		page = []any{}
	}
	doc["local_results"] = page
	pag := map[string]any{}
	if start+mapsPage < mapsTotal {
		pag["next"] = "https://serpapi.com/search.json?engine=google_maps&ll=" + url.QueryEscape(fmt.Sprintf("@%g,%g,14z", lat, lon)) +
			"&q=" + url.QueryEscape(query) + "&start=" + strconv.Itoa(start+mapsPage) + "&type=search"
	}
	doc["serpapi_pagination"] = pag
	setParams(doc, q)
	return providers.JSONBytes(doc), http.StatusOK, true
}

package realestate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

const (
	sourceName     = "zillow" // record key source
	siteURL        = "https://www.zillow.com"
	maxPages       = 20 // the API serves at most 20 pages of a search
	maxHistory     = 30 // price-history entries in details
	maxDescription = 3000
	sqftPerAcre    = 43560
)

// now is the clock of fetched_at (tests pin it).
var now = time.Now

// Search is realestate.search (spec section 4.25).
var Search = &providers.Capability{
	ID:    "realestate.search",
	Fresh: 15 * time.Minute,
	Title: "Real estate listings (US)",
	Summary: "Search US homes for sale, for rent or recently sold (Zillow data) by place, type, price, beds, baths, " +
		"with property facts and reported sale history as details.",
	Description: "Searches Zillow listings through the Zillow.com API on RapidAPI. `query` is a US city, state, ZIP code, " +
		"neighborhood or address (1 to 300 characters; Zillow reads at most 100). `listing_status`: for_sale (default), " +
		"for_rent or sold (recently sold). Filters: `home_types` (1 to 7 of house, condo, townhouse, multi_family, apartment, " +
		"land, manufactured), `min_price` / `max_price` (USD; the monthly rent when for_rent; min_price must not exceed " +
		"max_price), `min_beds` (1 to 5), `min_baths` (1 to 4). `sort`: relevance (default), newest, price_asc, " +
		"price_desc, beds, baths, sqft. `num` (1 to 20, default 10) listings per page. Each page reads one Zillow result " +
		"page (up to about 40 listings, at most 20 pages): it holds the next `num` listings of that page that match, so " +
		"a page can hold fewer, or none while has_more is true (for rentals Zillow groups apartments with condos and " +
		"has no land, multi-family or manufactured filter: those home types are filtered here). Record keys (when Zillow " +
		"has them): street, city, state, zipcode, country, home_type, home_status (for_sale, for_rent, sold or Zillow's " +
		"other status), status_text, broker, currency, date_price_changed (YYYY-MM-DD), price_label (e.g. \"$649,000\" " +
		"or \"$2,450/mo\"), beds, baths, sqft, lot_sqft, days_on_zillow, price, latitude, longitude, lot_area_unit " +
		"(as Zillow reports the lot: sqft or acres), is_showcase; always price_kind (listing_price, monthly_rent, " +
		"reported_sold_price or unknown), source (zillow) and fetched_at (RFC 3339). An exact address answers one " +
		"record with the property's id only: use details. Follow-ups: more (next page; 4 credits), update (change " +
		"any field; paging restarts) and the record action details ($0.004 per fresh lookup, cached on repeat): " +
		"property facts (type, status, price, beds, baths, living area, lot, year built, Zestimates, HOA fee, tax " +
		"rate, description), the last sale when Zillow reports one (unknown otherwise, never zero) and the " +
		"reported price and sale history, with the listing link.",
	Topic:   "Commerce and markets",
	Request: requestSchema,
	Rules:   rules,
	Paging:  providers.PagingPage,
	Actions: []providers.Action{{
		Name: "details",
		Description: "Zillow's property facts (type, status, price, beds, baths, living area, lot, year built, Zestimate and " +
			"rent Zestimate, HOA fee, tax rate, description), the last sale (price and date when reported; status " +
			"unknown otherwise) and the price and sale history, with the listing link. $0.004 per fresh request, " +
			"cached on repeat.",
		Kind:    providers.ActionLookup,
		Credits: 4,
		Run:     details,
	}},
	Cost: providers.Cost{
		Typical: 4,
		Basis:   "$0.004 per Zillow API request: each page (execute, more, update) and each fresh details lookup; cached details are free",
	},
	Deadline:  15 * time.Second,
	Providers: []string{ProviderID},
	Examples: []providers.Example{
		{Title: "Homes for sale in a city", Body: map[string]any{"query": "Austin, TX"}},
		{Title: "Apartments and condos for rent under $3,000 a month, cheapest first", Body: map[string]any{
			"query": "Seattle, WA", "listing_status": "for_rent", "home_types": []any{"apartment", "condo"},
			"max_price": 3000, "min_beds": 1, "sort": "price_asc", "num": 5}},
		{Title: "Recently sold houses and townhouses in a ZIP code, newest first", Body: map[string]any{
			"query": "Denver, CO 80206", "listing_status": "sold", "home_types": []any{"house", "townhouse"},
			"min_price": 500000, "max_price": 1500000, "min_baths": 2, "sort": "newest"}},
	},
	Execute: search,
}

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "realestate.search request",
  "description": "Search US real estate listings (Zillow data). Only query is required.",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 300, "pattern": "\\S",
      "description": "Where to search: a US city and state, ZIP code, neighborhood, county or address, e.g. \"Austin, TX\" or \"80206\". Must not be blank."},
    "listing_status": {"type": "string", "enum": ["for_sale", "for_rent", "sold"], "default": "for_sale",
      "description": "for_sale (default), for_rent or sold (recently sold)."},
    "home_types": {"type": "array", "minItems": 1, "maxItems": 7, "uniqueItems": true,
      "items": {"type": "string", "enum": ["house", "condo", "townhouse", "multi_family", "apartment", "land", "manufactured"]},
      "description": "Only these home types (1 to 7 of house, condo, townhouse, multi_family, apartment, land, manufactured). Omit for all."},
    "min_price": {"type": "number", "minimum": 0,
      "description": "Lowest price in USD (the monthly rent when listing_status is for_rent). Must not exceed max_price."},
    "max_price": {"type": "number", "minimum": 0,
      "description": "Highest price in USD (the monthly rent when listing_status is for_rent)."},
    "min_beds": {"type": "integer", "minimum": 1, "maximum": 5, "description": "At least this many bedrooms, 1 to 5."},
    "min_baths": {"type": "integer", "minimum": 1, "maximum": 4, "description": "At least this many bathrooms, 1 to 4."},
    "sort": {"type": "string", "enum": ["relevance", "newest", "price_asc", "price_desc", "beds", "baths", "sqft"], "default": "relevance",
      "description": "Order: relevance (Zillow's default), newest, price_asc, price_desc, beds, baths or sqft (largest first as Zillow sorts them)."},
    "num": {"type": "integer", "minimum": 1, "maximum": 20, "default": 10, "description": "Listings per page, 1 to 20."}
  }
}`

// rules: min_price must not exceed max_price.
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	lo, okLo := req.Float("min_price")
	hi, okHi := req.Float("max_price")
	if okLo && okHi && lo > hi {
		return []providers.Violation{{Path: "/min_price",
			Message: fmt.Sprintf("min_price (%s) must not exceed max_price (%s)", number(lo), number(hi))}}
	}
	return nil
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// --- the request

var statusTypes = map[string]string{"for_sale": "ForSale", "for_rent": "ForRent", "sold": "RecentlySold"}

// saleTypes are the API's home_type values for ForSale and RecentlySold; rentTypes those for
// ForRent (which has no land, multi-family or manufactured value).
var (
	saleTypes = map[string]string{"house": "Houses", "condo": "Condos", "townhouse": "Townhomes", "multi_family": "Multi-family",
		"apartment": "Apartments", "land": "LotsLand", "manufactured": "Manufactured"}
	rentTypes = map[string]string{"house": "Houses", "townhouse": "Townhomes", "condo": "Apartments_Condos_Co-ops",
		"apartment": "Apartments_Condos_Co-ops"}
)

// sortValues are the API's sort values by listing kind (relevance sends none: the API's default).
var sortValues = map[string][2]string{ // {sale and sold, rent}
	"newest": {"Newest", "Newest"}, "price_asc": {"Price_Low_High", "Payment_Low_High"},
	"price_desc": {"Price_High_Low", "Payment_High_Low"}, "beds": {"Bedrooms", "Bedrooms"},
	"baths": {"Bathrooms", "Bathrooms"}, "sqft": {"Square_Feet", "Square_Feet"},
}

// searchParams builds the propertyExtendedSearch query of a request and a page.
func searchParams(req providers.Request, page int) url.Values {
	status := req.Str("listing_status")
	if _, ok := statusTypes[status]; !ok {
		status = "for_sale"
	}
	rent := status == "for_rent"
	q := url.Values{"location": {strings.TrimSpace(req.Str("query"))}, "status_type": {statusTypes[status]}}
	if page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	if types := upstreamTypes(req.Strings("home_types"), rent); len(types) > 0 {
		q.Set("home_type", strings.Join(types, ","))
	}
	minKey, maxKey := "minPrice", "maxPrice"
	if rent {
		minKey, maxKey = "rentMinPrice", "rentMaxPrice"
	}
	// The API takes whole dollars: bounds are rounded inwards so no listing outside them is asked for.
	if v, ok := req.Float("min_price"); ok && v > 0 {
		q.Set(minKey, number(math.Ceil(v)))
	}
	if v, ok := req.Float("max_price"); ok {
		q.Set(maxKey, number(math.Floor(v)))
	}
	if v, ok := req.Int("min_beds"); ok {
		q.Set("bedsMin", strconv.Itoa(v))
	}
	if v, ok := req.Int("min_baths"); ok {
		q.Set("bathsMin", strconv.Itoa(v))
	}
	if s, ok := sortValues[req.Str("sort")]; ok {
		if rent {
			q.Set("sort", s[1])
		} else {
			q.Set("sort", s[0])
		}
	}
	return q
}

// upstreamTypes are the API's home types for the requested ones; nil (all types, filtered here)
// when one of them has no value of its own for this listing kind.
func upstreamTypes(types []string, rent bool) []string {
	table := saleTypes
	if rent {
		table = rentTypes
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range types {
		v, ok := table[t]
		if !ok {
			return nil
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// --- the answer

// listing is one item of props (lenient: absent or mistyped fields are "not there").
type listing struct {
	Zpid              lenient.ID    `json:"zpid"`
	Address           lenient.Str   `json:"address"`
	Price             lenient.Float `json:"price"`
	Bedrooms          lenient.Float `json:"bedrooms"`
	Bathrooms         lenient.Float `json:"bathrooms"`
	LivingArea        lenient.Float `json:"livingArea"`
	LotAreaValue      lenient.Float `json:"lotAreaValue"`
	LotAreaUnit       lenient.Str   `json:"lotAreaUnit"`
	PropertyType      lenient.Str   `json:"propertyType"`
	ListingStatus     lenient.Str   `json:"listingStatus"`
	StatusText        lenient.Str   `json:"statusText"`
	BrokerName        lenient.Str   `json:"brokerName"`
	DaysOnZillow      lenient.Int   `json:"daysOnZillow"`
	DatePriceChanged  lenient.Int   `json:"datePriceChanged"`
	DateSold          lenient.Int   `json:"dateSold"`
	Latitude          lenient.Float `json:"latitude"`
	Longitude         lenient.Float `json:"longitude"`
	Country           lenient.Str   `json:"country"`
	Currency          lenient.Str   `json:"currency"`
	DetailURL         lenient.Str   `json:"detailUrl"`
	IsShowcaseListing lenient.Bool  `json:"isShowcaseListing"`
	Units             lenient.List[struct {
		Price lenient.Str `json:"price"`
	}] `json:"units"`
}

type searchAnswer struct {
	Props            lenient.List[json.RawMessage] `json:"props"`
	ResultsPerPage   lenient.Int                   `json:"resultsPerPage"`
	TotalPages       lenient.Int                   `json:"totalPages"`
	TotalResultCount lenient.Int                   `json:"totalResultCount"`
	// An exact address answers the property's id alone.
	Zpid lenient.ID `json:"zpid"`
	// Failures the API reports with HTTP 200 (unconfirmed shape: see doc.go).
	Message lenient.Str `json:"message"`
	Error   lenient.Str `json:"error"`
}

// pageState is the paging state: the API page (1-based) and the index in it where the next page
// of records starts.
type pageState struct {
	Page   int `json:"page"`
	Offset int `json:"offset"`
}

// ref is a record's Ref: the property id details looks up.
type ref struct {
	Zpid string `json:"zpid"`
}

var (
	zpidPattern = regexp.MustCompile(`^[0-9]{1,15}$`)
	zipPattern  = regexp.MustCompile(`^[0-9]{5}(?:-[0-9]{4})?$`)
)

func search(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	num, ok := call.Request.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	st := pageState{Page: 1}
	if len(call.State) > 0 {
		if err := json.Unmarshal(call.State, &st); err != nil || st.Page < 1 || st.Page > maxPages || st.Offset < 0 {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
	}
	u := call.Upstream(ProviderID)
	resp, err := u.Get(ctx, searchPath, searchParams(call.Request, st.Page), http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, mapError(err, "search")
	}
	fetched := now().UTC().Truncate(time.Second).Format(time.RFC3339)
	out := &providers.Page{Records: []providers.Record{}}
	body := bytes.TrimSpace(resp.Body)
	if len(body) > 0 && body[0] == '[' {
		// A building's address answers a list of ids.
		return exactAddressPage(call.Request, body, fetched), nil
	}
	var ans searchAnswer
	if err := u.Decode(resp, &ans); err != nil {
		return nil, err
	}
	if ans.Props == nil {
		switch {
		case ans.Zpid != "":
			return exactAddressPage(call.Request, []byte(`["`+string(ans.Zpid)+`"]`), fetched), nil
		case ans.Error != "" || ans.Message != "":
			msg := string(ans.Error)
			if msg == "" {
				msg = string(ans.Message)
			}
			return nil, providers.Errorf(providers.CodeProviderError, "the Zillow API could not search: %s", msg)
		}
		return out, nil // nothing found
	}
	wanted := map[string]bool{}
	for _, t := range call.Request.Strings("home_types") {
		wanted[t] = true
	}
	status := call.Request.Str("listing_status")
	i := min(st.Offset, len(ans.Props))
	for ; i < len(ans.Props) && len(out.Records) < num; i++ {
		var l listing
		if json.Unmarshal(ans.Props[i], &l) != nil {
			continue
		}
		rec, ok := listingRecord(l, status, fetched)
		if !ok {
			continue
		}
		if t, _ := rec.Fields["home_type"].(string); len(wanted) > 0 && t != "" && !wanted[t] {
			continue // a home type Zillow could not filter for this listing kind
		}
		out.Records = append(out.Records, rec)
	}
	switch {
	case i < len(ans.Props):
		out.HasMore = true
		out.Next, _ = json.Marshal(pageState{Page: st.Page, Offset: i})
	case len(ans.Props) > 0 && moreUpstreamPages(ans, st.Page):
		if st.Page >= maxPages {
			out.Notes = append(out.Notes, "The Zillow API serves at most 20 result pages per search; narrow the search "+
				"(a price range, home types or a smaller area) to reach further listings.")
			break
		}
		out.HasMore = true
		out.Next, _ = json.Marshal(pageState{Page: st.Page + 1})
	}
	return out, nil
}

// moreUpstreamPages: totalPages when given; otherwise a full page (resultsPerPage) suggests more.
func moreUpstreamPages(ans searchAnswer, page int) bool {
	if ans.TotalPages.OK {
		return int64(page) < ans.TotalPages.V
	}
	return ans.ResultsPerPage.OK && ans.ResultsPerPage.V > 0 && int64(len(ans.Props)) >= ans.ResultsPerPage.V
}

// exactAddressPage maps the answer of an exact address: property ids only (strings, numbers or
// objects with a zpid). The records carry what is known: the id, the link and details.
func exactAddressPage(req providers.Request, body []byte, fetched string) *providers.Page {
	out := &providers.Page{Records: []providers.Record{}}
	var items lenient.List[json.RawMessage]
	_ = json.Unmarshal(body, &items)
	query := strings.TrimSpace(req.Str("query"))
	for _, raw := range items {
		var id lenient.ID
		_ = json.Unmarshal(raw, &id)
		if id == "" {
			var o struct {
				Zpid lenient.ID `json:"zpid"`
			}
			_ = json.Unmarshal(raw, &o)
			id = o.Zpid
		}
		if !zpidPattern.MatchString(string(id)) {
			continue
		}
		title := query
		if len(items) > 1 {
			title = fmt.Sprintf("%s (property %s)", query, id)
		}
		r, _ := json.Marshal(ref{Zpid: string(id)})
		out.Records = append(out.Records, providers.Record{
			Title:   title,
			URL:     siteURL + "/homedetails/" + string(id) + "_zpid/",
			Snippet: "Zillow matched this address to its property " + string(id) + "; the search answers the id only: use details for its facts.",
			Fields:  map[string]any{"price_kind": "unknown", "source": sourceName, "fetched_at": fetched},
			Ref:     r,
		})
	}
	if len(out.Records) > 0 {
		out.Notes = []string{"The query is an exact address: Zillow's search answers the property's id only, without " +
			"listing facts or filters; the details action returns the property's facts and sale history."}
	}
	return out
}

// homeTypes maps Zillow's propertyType / homeType to the spec's home types.
var homeTypes = map[string]string{"SINGLE_FAMILY": "house", "CONDO": "condo", "TOWNHOUSE": "townhouse",
	"MULTI_FAMILY": "multi_family", "APARTMENT": "apartment", "LOT": "land", "MANUFACTURED": "manufactured"}

var homeTypeLabels = map[string]string{"house": "House", "condo": "Condo", "townhouse": "Townhouse",
	"multi_family": "Multi-family", "apartment": "Apartment", "land": "Land", "manufactured": "Manufactured"}

func homeType(zillow string) string {
	if t, ok := homeTypes[strings.ToUpper(zillow)]; ok {
		return t
	}
	return strings.ToLower(zillow)
}

// homeStatus maps Zillow's status to the spec's listing words; other statuses are lower-cased.
func homeStatus(zillow string) string {
	switch s := strings.ToUpper(zillow); s {
	case "FOR_SALE":
		return "for_sale"
	case "FOR_RENT":
		return "for_rent"
	case "RECENTLY_SOLD", "SOLD":
		return "sold"
	case "":
		return ""
	default:
		return strings.ToLower(s)
	}
}

// priceKind says what the price is: from the listing's status, else from the search's.
func priceKind(homeStatus, requested string) string {
	s := homeStatus
	if s == "" {
		s = requested
	}
	switch s {
	case "for_sale":
		return "listing_price"
	case "for_rent":
		return "monthly_rent"
	case "sold":
		return "reported_sold_price"
	}
	return "unknown"
}

// listingRecord maps one listing; ok is false without a usable zpid.
func listingRecord(l listing, requested, fetched string) (providers.Record, bool) {
	zpid := string(l.Zpid)
	if !zpidPattern.MatchString(zpid) {
		return providers.Record{}, false
	}
	f := map[string]any{"source": sourceName, "fetched_at": fetched}
	street, city, state, zip := splitAddress(string(l.Address))
	lenient.SetStr(f, "street", street)
	lenient.SetStr(f, "city", city)
	lenient.SetStr(f, "state", state)
	lenient.SetStr(f, "zipcode", zip)
	lenient.SetStr(f, "country", string(l.Country))
	ht := homeType(string(l.PropertyType))
	lenient.SetStr(f, "home_type", ht)
	hs := homeStatus(string(l.ListingStatus))
	lenient.SetStr(f, "home_status", hs)
	lenient.SetStr(f, "status_text", string(l.StatusText))
	lenient.SetStr(f, "broker", string(l.BrokerName))
	lenient.SetStr(f, "currency", string(l.Currency))
	if l.DatePriceChanged.OK && l.DatePriceChanged.V > 0 {
		f["date_price_changed"] = day(l.DatePriceChanged.V)
	}
	kind := priceKind(hs, requested)
	f["price_kind"] = kind
	if l.Price.OK && l.Price.V > 0 {
		f["price"] = l.Price.V
	}
	if label := priceLabel(l, kind); label != "" {
		f["price_label"] = label
	}
	if l.Bedrooms.OK && l.Bedrooms.V >= 0 {
		f["beds"] = l.Bedrooms.V // 0 is a studio
	}
	if l.Bathrooms.OK && l.Bathrooms.V > 0 {
		f["baths"] = l.Bathrooms.V
	}
	if l.LivingArea.OK && l.LivingArea.V > 0 {
		f["sqft"] = l.LivingArea.V
	}
	unit := strings.ToLower(string(l.LotAreaUnit))
	lenient.SetStr(f, "lot_area_unit", unit)
	if l.LotAreaValue.OK && l.LotAreaValue.V > 0 {
		switch unit {
		case "sqft":
			f["lot_sqft"] = math.Round(l.LotAreaValue.V)
		case "acres", "acre":
			f["lot_sqft"] = math.Round(l.LotAreaValue.V * sqftPerAcre)
		}
	}
	if l.DaysOnZillow.OK && l.DaysOnZillow.V >= 0 {
		f["days_on_zillow"] = l.DaysOnZillow.V
	}
	if l.Latitude.OK && l.Longitude.OK && (l.Latitude.V != 0 || l.Longitude.V != 0) &&
		math.Abs(l.Latitude.V) <= 90 && math.Abs(l.Longitude.V) <= 180 {
		f["latitude"], f["longitude"] = l.Latitude.V, l.Longitude.V
	}
	lenient.SetBool(f, "is_showcase", l.IsShowcaseListing)

	title := strings.TrimSpace(string(l.Address))
	if title == "" {
		title = "Zillow property " + zpid
	}
	r, _ := json.Marshal(ref{Zpid: zpid})
	return providers.Record{
		Title:   title,
		URL:     listingURL(string(l.DetailURL), zpid),
		Snippet: listingSnippet(f, ht, l, kind),
		Fields:  f,
		Ref:     r,
	}, true
}

// splitAddress reads "street, city, ST 12345" (the API's one-line address); parts it cannot
// place are left out.
func splitAddress(a string) (street, city, state, zip string) {
	parts := strings.Split(a, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if len(parts) < 2 {
		return "", "", "", ""
	}
	last := strings.Fields(parts[len(parts)-1])
	if len(last) == 0 || len(last) > 2 || len(last[0]) != 2 || strings.ToUpper(last[0]) != last[0] {
		return "", "", "", ""
	}
	state = last[0]
	if len(last) == 2 && zipPattern.MatchString(last[1]) {
		zip = last[1]
	}
	city = parts[len(parts)-2]
	if len(parts) > 2 {
		street = strings.Join(parts[:len(parts)-2], ", ")
	}
	return street, city, state, zip
}

// listingURL is the listing page: detailUrl (absolute, or a path on zillow.com), else the
// property's homedetails page.
func listingURL(detail, zpid string) string {
	if strings.HasPrefix(detail, "/") {
		return siteURL + detail
	}
	if u, err := url.Parse(detail); err == nil && u.Scheme == "https" && strings.HasSuffix(u.Hostname(), "zillow.com") {
		return detail
	}
	return siteURL + "/homedetails/" + zpid + "_zpid/"
}

// priceLabel formats the price ("$649,000", "$2,450/mo"); a rental building without one price
// shows its first unit's price as Zillow writes it ("$1,495+/mo").
func priceLabel(l listing, kind string) string {
	suffix := ""
	if kind == "monthly_rent" {
		suffix = "/mo"
	}
	if l.Price.OK && l.Price.V > 0 {
		cur := strings.ToUpper(string(l.Currency))
		if cur == "" || cur == "USD" {
			return "$" + grouped(l.Price.V) + suffix
		}
		return grouped(l.Price.V) + " " + cur + suffix
	}
	for _, u := range l.Units {
		if p := strings.TrimSpace(string(u.Price)); p != "" {
			return p + suffix
		}
	}
	return ""
}

// grouped writes a whole amount with thousands separators.
func grouped(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func listingSnippet(f map[string]any, ht string, l listing, kind string) string {
	var parts []string
	if p, ok := f["price_label"].(string); ok {
		if kind == "reported_sold_price" {
			p = "Sold for " + p
			if l.DateSold.OK && l.DateSold.V > 0 {
				p += " on " + day(l.DateSold.V)
			}
		}
		parts = append(parts, p)
	}
	if v, ok := f["beds"].(float64); ok {
		parts = append(parts, number(v)+" bd")
	}
	if v, ok := f["baths"].(float64); ok {
		parts = append(parts, number(v)+" ba")
	}
	if v, ok := f["sqft"].(float64); ok {
		parts = append(parts, grouped(v)+" sqft")
	}
	if label, ok := homeTypeLabels[ht]; ok {
		parts = append(parts, label)
	}
	if v, ok := f["days_on_zillow"].(int64); ok {
		switch v {
		case 1:
			parts = append(parts, "1 day on Zillow")
		default:
			parts = append(parts, fmt.Sprintf("%d days on Zillow", v))
		}
	}
	return strings.Join(parts, " · ")
}

// day writes epoch milliseconds as YYYY-MM-DD (UTC).
func day(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02") }

// --- details

// property is the /property answer (lenient).
type property struct {
	Zpid    lenient.ID `json:"zpid"`
	Address lenient.Obj[struct {
		StreetAddress lenient.Str `json:"streetAddress"`
		City          lenient.Str `json:"city"`
		State         lenient.Str `json:"state"`
		Zipcode       lenient.Str `json:"zipcode"`
		Neighborhood  lenient.Str `json:"neighborhood"`
	}] `json:"address"`
	HomeType        lenient.Str                `json:"homeType"`
	HomeStatus      lenient.Str                `json:"homeStatus"`
	Price           lenient.Float              `json:"price"`
	Currency        lenient.Str                `json:"currency"`
	Bedrooms        lenient.Float              `json:"bedrooms"`
	Bathrooms       lenient.Float              `json:"bathrooms"`
	LivingArea      lenient.Float              `json:"livingArea"`
	LotAreaValue    lenient.Float              `json:"lotAreaValue"`
	LotAreaUnits    lenient.Str                `json:"lotAreaUnits"`
	LotSize         lenient.Float              `json:"lotSize"`
	YearBuilt       lenient.Int                `json:"yearBuilt"`
	Description     lenient.Str                `json:"description"`
	Zestimate       lenient.Float              `json:"zestimate"`
	RentZestimate   lenient.Float              `json:"rentZestimate"`
	MonthlyHoaFee   lenient.Float              `json:"monthlyHoaFee"`
	PropertyTaxRate lenient.Float              `json:"propertyTaxRate"`
	County          lenient.Str                `json:"county"`
	DaysOnZillow    lenient.Int                `json:"daysOnZillow"`
	BrokerageName   lenient.Str                `json:"brokerageName"`
	LastSoldPrice   lenient.Float              `json:"lastSoldPrice"`
	DateSoldString  lenient.Str                `json:"dateSoldString"`
	DateSold        lenient.Int                `json:"dateSold"`
	Latitude        lenient.Float              `json:"latitude"`
	Longitude       lenient.Float              `json:"longitude"`
	URL             lenient.Str                `json:"url"`
	HdpURL          lenient.Str                `json:"hdpUrl"`
	PriceHistory    lenient.List[historyEntry] `json:"priceHistory"`
}

type historyEntry struct {
	Date               lenient.Str   `json:"date"`
	Time               lenient.Int   `json:"time"`
	Price              lenient.Float `json:"price"`
	PricePerSquareFoot lenient.Float `json:"pricePerSquareFoot"`
	Event              lenient.Str   `json:"event"`
	Source             lenient.Str   `json:"source"`
}

// details is the record action: the API's /property for the record's zpid.
func details(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var r ref
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &r) != nil || !zpidPattern.MatchString(r.Zpid) {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this record has no Zillow property id, so it has no details")
	}
	u := call.Upstream(ProviderID)
	resp, err := u.Get(ctx, propertyPath, url.Values{"zpid": {r.Zpid}}, http.Header{"Accept": {"application/json"}})
	if err != nil {
		if e, ok := providers.AsError(err); ok && e.UpstreamStatus == http.StatusNotFound {
			return nil, providers.Errorf(providers.CodeNotFound, "Zillow has no property %s", r.Zpid)
		}
		return nil, mapError(err, "details")
	}
	var p property
	if err := u.Decode(resp, &p); err != nil {
		return nil, err
	}
	if p.Zpid == "" && p.Address.V == nil && !p.Price.OK {
		return nil, providers.Errorf(providers.CodeNotFound, "Zillow has no property %s", r.Zpid)
	}
	body := propertyDetail(r.Zpid, p)
	link := rec.URL
	if s := string(p.URL); strings.HasPrefix(s, siteURL+"/") {
		link = s
	} else if strings.HasPrefix(string(p.HdpURL), "/") {
		link = siteURL + string(p.HdpURL)
	}
	if link == "" {
		link = siteURL + "/homedetails/" + r.Zpid + "_zpid/"
	}
	body["url"] = link
	return &providers.Detail{Body: body, Links: []providers.Link{{Label: "Listing on Zillow", URL: link}}}, nil
}

// propertyDetail builds the details body; absent values are left out, and the last sale is
// "unknown" unless Zillow reports a price or a date (a zero price is not a price).
func propertyDetail(zpid string, p property) map[string]any {
	d := map[string]any{"zpid": zpid}
	if a := p.Address.V; a != nil {
		addr := map[string]any{}
		lenient.SetStr(addr, "street", string(a.StreetAddress))
		lenient.SetStr(addr, "city", string(a.City))
		lenient.SetStr(addr, "state", string(a.State))
		lenient.SetStr(addr, "zipcode", string(a.Zipcode))
		lenient.SetStr(addr, "neighborhood", string(a.Neighborhood))
		if len(addr) > 0 {
			d["address"] = addr
		}
	}
	lenient.SetStr(d, "home_type", homeType(string(p.HomeType)))
	lenient.SetStr(d, "home_status", homeStatus(string(p.HomeStatus)))
	lenient.SetStr(d, "currency", string(p.Currency))
	lenient.SetStr(d, "county", string(p.County))
	lenient.SetStr(d, "brokerage", string(p.BrokerageName))
	positive := func(key string, v lenient.Float) {
		if v.OK && v.V > 0 {
			d[key] = v.V
		}
	}
	positive("price", p.Price)
	positive("baths", p.Bathrooms)
	positive("sqft", p.LivingArea)
	positive("zestimate", p.Zestimate)
	positive("rent_zestimate", p.RentZestimate)
	positive("monthly_hoa_fee", p.MonthlyHoaFee)
	positive("property_tax_rate", p.PropertyTaxRate)
	if p.Bedrooms.OK && p.Bedrooms.V >= 0 {
		d["beds"] = p.Bedrooms.V
	}
	if p.LotAreaValue.OK && p.LotAreaValue.V > 0 {
		lot := map[string]any{"value": p.LotAreaValue.V}
		lenient.SetStr(lot, "unit", strings.ToLower(string(p.LotAreaUnits)))
		d["lot"] = lot
	} else if p.LotSize.OK && p.LotSize.V > 0 {
		d["lot"] = map[string]any{"value": p.LotSize.V, "unit": "sqft"}
	}
	if p.YearBuilt.OK && p.YearBuilt.V > 0 {
		d["year_built"] = p.YearBuilt.V
	}
	if p.DaysOnZillow.OK && p.DaysOnZillow.V >= 0 {
		d["days_on_zillow"] = p.DaysOnZillow.V
	}
	if p.Latitude.OK && p.Longitude.OK && (p.Latitude.V != 0 || p.Longitude.V != 0) {
		d["latitude"], d["longitude"] = p.Latitude.V, p.Longitude.V
	}
	if s := strings.TrimSpace(string(p.Description)); s != "" {
		d["description"] = providers.Clip(s, maxDescription)
	}

	var history []map[string]any
	var lastSold *historyEntry
	for i, h := range p.PriceHistory {
		e := map[string]any{}
		date := string(h.Date)
		if date == "" && h.Time.OK && h.Time.V > 0 {
			date = day(h.Time.V)
		}
		lenient.SetStr(e, "date", date)
		lenient.SetStr(e, "event", string(h.Event))
		if h.Price.OK && h.Price.V > 0 {
			e["price"] = h.Price.V
		}
		if h.PricePerSquareFoot.OK && h.PricePerSquareFoot.V > 0 {
			e["price_per_sqft"] = h.PricePerSquareFoot.V
		}
		lenient.SetStr(e, "source", string(h.Source))
		if e["event"] == nil && e["date"] == nil {
			continue
		}
		if lastSold == nil && strings.EqualFold(string(h.Event), "Sold") {
			lastSold = &p.PriceHistory[i] // Zillow lists the newest event first
		}
		if len(history) < maxHistory {
			history = append(history, e)
		}
	}
	if len(history) > 0 {
		d["price_history"] = history
		d["price_history_total"] = len(p.PriceHistory)
	}

	last := map[string]any{}
	if p.LastSoldPrice.OK && p.LastSoldPrice.V > 0 {
		last["price"] = p.LastSoldPrice.V
	}
	switch {
	case p.DateSoldString != "":
		last["date"] = string(p.DateSoldString)
	case p.DateSold.OK && p.DateSold.V > 0:
		last["date"] = day(p.DateSold.V)
	}
	if len(last) == 0 && lastSold != nil { // from the history when the facts do not say
		if lastSold.Price.OK && lastSold.Price.V > 0 {
			last["price"] = lastSold.Price.V
		}
		if lastSold.Date != "" {
			last["date"] = string(lastSold.Date)
		} else if lastSold.Time.OK && lastSold.Time.V > 0 {
			last["date"] = day(lastSold.Time.V)
		}
	}
	if len(last) > 0 {
		last["status"] = "reported"
	} else {
		last["status"] = "unknown"
	}
	d["last_sale"] = last
	return d
}

// mapError reads RapidAPI's error body ({"message": "..."}): a refused key or subscription is a
// non-retryable provider_error; a per-second rate limit is rate_limited (retryable) while a used-up
// quota stays provider_allowance; other failures get the message added.
func mapError(err error, what string) error {
	e, ok := providers.AsError(err)
	if !ok || e.UpstreamStatus == 0 {
		return err
	}
	var body struct {
		Message lenient.Str `json:"message"`
		Error   lenient.Str `json:"error"`
	}
	_ = json.Unmarshal(e.Body, &body)
	msg := string(body.Message)
	if msg == "" {
		msg = string(body.Error)
	}
	switch {
	case e.UpstreamStatus == http.StatusUnauthorized || e.UpstreamStatus == http.StatusForbidden:
		out := providers.Errorf(providers.CodeProviderError, "the Zillow API refused this gateway's RapidAPI key (%s)", orStatus(msg, e.UpstreamStatus)).WithRetryable(false)
		out.UpstreamStatus, out.Cause = e.UpstreamStatus, err
		return out
	case e.UpstreamStatus == http.StatusTooManyRequests && strings.Contains(strings.ToLower(msg), "rate limit per"):
		out := providers.Errorf(providers.CodeRateLimited, "the Zillow API is rate limiting this gateway (%s); retry shortly", msg)
		out.RetryAfter, out.UpstreamStatus, out.Cause = time.Second, 429, err
		if e.RetryAfter > 0 {
			out.RetryAfter = e.RetryAfter
		}
		return out
	case msg != "":
		e.Message += " during " + what + ": " + msg
	}
	return e
}

func orStatus(msg string, status int) string {
	if msg != "" {
		return msg
	}
	return "HTTP " + strconv.Itoa(status)
}

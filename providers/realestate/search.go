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
		{Title: "Homes for sale in a city", Body: providers.ExampleBody(`{"query": "Austin, TX"}`)},
		{Title: "Apartments and condos for rent under $3,000 a month, cheapest first", Body: providers.ExampleBody(`{"query": "Seattle, WA", "listing_status": "for_rent", "home_types": ["apartment", "condo"], "max_price": 3000, "min_beds": 1, "sort": "price_asc", "num": 5}`)},
		{Title: "Recently sold houses and townhouses in a ZIP code, newest first", Body: providers.ExampleBody(`{"query": "Denver, CO 80206", "listing_status": "sold", "home_types": ["house", "townhouse"], "min_price": 500000, "max_price": 1500000, "min_baths": 2, "sort": "newest"}`)},
	},
	Execute: search,
	Record:  ListingRecord{},
}

// ListingRecord is a realestate.search record (besides title, url and snippet).
type ListingRecord struct {
	Source           string   `json:"source" doc:"zillow"`
	FetchedAt        string   `json:"fetched_at" doc:"when the upstream answered (RFC 3339)"`
	Street           string   `json:"street,omitempty"`
	City             string   `json:"city,omitempty"`
	State            string   `json:"state,omitempty"`
	Zipcode          string   `json:"zipcode,omitempty"`
	Country          string   `json:"country,omitempty"`
	HomeType         string   `json:"home_type,omitempty"`
	HomeStatus       string   `json:"home_status,omitempty"`
	StatusText       string   `json:"status_text,omitempty"`
	Broker           string   `json:"broker,omitempty"`
	Currency         string   `json:"currency,omitempty"`
	DatePriceChanged string   `json:"date_price_changed,omitempty" doc:"YYYY-MM-DD"`
	PriceKind        string   `json:"price_kind" enum:"listing_price,monthly_rent,reported_sold_price,unknown"`
	Price            *float64 `json:"price,omitempty"`
	PriceLabel       string   `json:"price_label,omitempty"`
	Beds             *float64 `json:"beds,omitempty" doc:"0 is a studio"`
	Baths            *float64 `json:"baths,omitempty"`
	Sqft             *float64 `json:"sqft,omitempty" doc:"living area"`
	LotAreaUnit      string   `json:"lot_area_unit,omitempty"`
	LotSqft          *float64 `json:"lot_sqft,omitempty"`
	DaysOnZillow     *int64   `json:"days_on_zillow,omitempty"`
	Latitude         *float64 `json:"latitude,omitempty"`
	Longitude        *float64 `json:"longitude,omitempty"`
	IsShowcase       *bool    `json:"is_showcase,omitempty"`
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
		if t := rec.Data.(*ListingRecord).HomeType; len(wanted) > 0 && t != "" && !wanted[t] {
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
			Data:    &ListingRecord{PriceKind: "unknown", Source: sourceName, FetchedAt: fetched},
			Ref:     r,
		})
	}
	if len(out.Records) > 0 {
		out.Notes = []string{"The query is an exact address: Zillow's search answers the property's id only, without " +
			"listing facts or filters; the details action returns the property's facts and sale history."}
	}
	return out
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

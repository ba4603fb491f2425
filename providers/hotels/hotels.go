package hotels

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

const (
	engine        = "google_hotels"
	dateLayout    = "2006-01-02"
	maxPerPage    = 20 // spec section 8: hotels pages hold at most 20 records
	maxHotelGuest = 6  // spec section 8: at most 6 guests for hotels
	maxRentGuest  = 10 // and 10 for vacation rentals
	minChildAge   = 1
	maxChildAge   = 17
)

// Search is hotels.search (spec section 4.18).
var Search = &providers.Capability{
	ID:      "hotels.search",
	Fresh:   15 * time.Minute,
	Title:   "Hotel and vacation rental search",
	Summary: "Find hotels or vacation rentals for a destination and dates, with nightly and total prices for the requested party (Google Hotels).",
	Description: "Searches Google Hotels (through SerpApi) for places to stay. `destination` is a city, area, landmark or " +
		"property name; `check_in` and `check_out` are real dates (YYYY-MM-DD), check-in not in the past and " +
		"check-out after check-in. The party is `adults` (1 to 10, default 2) and, for hotels only, " +
		"`children_ages` (up to 5 children, each 1 to 17 years old): at most 6 guests for hotels and 10 for vacation " +
		"rentals. `property_type` is hotel (the default when omitted) or vacation_rental. `currency` (three letters, " +
		"default USD) prices the stay. Filters: `max_price` (per night, in that currency), `min_rating` (0 to 5) and " +
		"`amenities` (up to 10 of: free_parking, parking, indoor_pool, outdoor_pool, pool, fitness_center, restaurant, " +
		"free_breakfast, spa, beach_access, child_friendly, bar, pet_friendly, room_service, free_wifi, air_conditioned, " +
		"all_inclusive, wheelchair_accessible, ev_charger for hotels; hot_tub, air_conditioned, outdoor_grill, " +
		"fireplace, patio, kitchen, fitness_center, crib, beach_access, child_friendly, pet_friendly, free_wifi, pool " +
		"for vacation rentals). Google applies coarser filters (ratings only at 3.5+, 4.0+ and 4.5+), so the " +
		"adapter also enforces max_price and min_rating on every page and leaves out properties that miss them or " +
		"show no price or rating: a page can be empty while has_more stays true. `sort`: relevance (default), " +
		"lowest_price, highest_rating or most_reviewed. Each record is one property: title (its name), url (its " +
		"website), snippet (its description), and the keys price_per_night and total_price (numbers, in currency), " +
		"rating, reviews, hotel_class (e.g. \"4-star hotel\"), type (hotel or vacation rental), amenities, location " +
		"(an address when Google gives one), lat, lon when supplied; requested_occupancy (always: adults, children, " +
		"children_ages and guests as asked) and occupancy_status (always: confirmed when the offer states the " +
		"requested guest count, requested when the price comes from a search for the requested party without a " +
		"stated guest count, different_occupancy when the offer is for another guest count, over_capacity when a " +
		"rental sleeps fewer than the party, no_price when nothing is bookable for these dates and party), with " +
		"occupancy_note explaining anything but confirmed and requested. Follow-ups: more (provider cursor), update " +
		"(change any field; paging restarts) and the record action details ($0.004 per fresh lookup, cached on " +
		"repeat): description, address, phone, check-in and check-out times, typical price range, nearby places " +
		"with travel times, amenities and the booking options (site, price per night and total, guests, official " +
		"site, link) with booking links.",
	Topic:   "Travel and places",
	Request: requestSchema,
	Rules:   rules,
	Paging:  providers.PagingToken,
	Actions: []providers.Action{{
		Name: "details",
		Description: "Google Hotels' property page for the record's stay and party: description, address, phone, check-in " +
			"and check-out times, hotel class, rating, typical price range, nearby places with travel times, amenities " +
			"and booking options (site, official, price per night and total, guests, free cancellation, link), with " +
			"the property website and booking links. $0.004 per fresh request, cached on repeat.",
		Kind:    providers.ActionLookup,
		Credits: 4,
		Run:     details,
	}},
	Cost: providers.Cost{
		Typical: 4,
		Basis:   "$0.004 per SerpApi Google Hotels page (execute, more and update) and per fresh details lookup; cached details are free",
	},
	Deadline:  15 * time.Second,
	Providers: []string{serpapi.ProviderID},
	Examples:  examples(time.Now()),
	Execute:   search,
	Record:    PropertyRecord{},
}

// PropertyRecord is a hotels.search record (besides title, url and snippet).
type PropertyRecord struct {
	PricePerNight      *float64  `json:"price_per_night,omitempty" doc:"in currency, before taxes and fees where Google Hotels says so"`
	TotalPrice         *float64  `json:"total_price,omitempty" doc:"for the whole stay, in currency"`
	Currency           string    `json:"currency,omitempty" doc:"ISO 4217, set when a price is"`
	Rating             *float64  `json:"rating,omitempty" doc:"guest rating, 0 to 5"`
	Reviews            *int64    `json:"reviews,omitempty"`
	HotelClass         string    `json:"hotel_class,omitempty"`
	Type               string    `json:"type,omitempty" doc:"hotel or vacation rental"`
	Amenities          []string  `json:"amenities,omitempty"`
	Location           string    `json:"location,omitempty" doc:"the address as Google Hotels gives it"`
	Lat                *float64  `json:"lat,omitempty"`
	Lon                *float64  `json:"lon,omitempty"`
	RequestedOccupancy Occupancy `json:"requested_occupancy" doc:"the party the search asked for"`
	OccupancyStatus    string    `json:"occupancy_status" doc:"whether the price shown is for the requested party"`
	OccupancyNote      string    `json:"occupancy_note,omitempty"`
}

// Occupancy is the party a search asked for.
type Occupancy struct {
	Adults       int   `json:"adults"`
	Children     int   `json:"children"`
	ChildrenAges []int `json:"children_ages"`
	Guests       int   `json:"guests"`
}

// examples are the inspect examples; their stay starts 30 days after the process started, so they
// never ask for dates in the past.
func examples(now time.Time) []providers.Example {
	day := func(n int) string { return now.UTC().AddDate(0, 0, n).Format(dateLayout) }
	return []providers.Example{
		{Title: "Hotels in Lisbon for two adults, three nights", Body: providers.ExampleBody(`{"destination": "Lisbon", "check_in": "` + day(30) + `", "check_out": "` + day(33) + `"}`)},
		{Title: "Family hotel with a pool and free breakfast, rated 4+, at most 250 EUR a night, cheapest first", Body: providers.ExampleBody(`{"destination": "Lisbon", "check_in": "` + day(30) + `", "check_out": "` + day(34) + `", "adults": 2,
			"children_ages": [6, 9], "currency": "EUR", "max_price": 250, "min_rating": 4, "amenities": ["pool", "free_breakfast"],
			"sort": "lowest_price"}`)},
		{Title: "Vacation rental with a kitchen for six, most reviewed first", Body: providers.ExampleBody(`{"destination": "Algarve", "check_in": "` + day(45) + `", "check_out": "` + day(52) + `", "adults": 6,
			"property_type": "vacation_rental", "amenities": ["kitchen"], "sort": "most_reviewed"}`)},
	}
}

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "hotels.search request",
  "description": "Search hotels or vacation rentals on Google Hotels for a destination, dates and party. destination, check_in and check_out are required.",
  "type": "object",
  "additionalProperties": false,
  "required": ["destination", "check_in", "check_out"],
  "properties": {
    "destination": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200,
      "pattern": "\\S",
      "description": "Where to stay: a city, area, landmark or property name, e.g. \"Lisbon\" or \"hotels near the Louvre\". Must not be blank."
    },
    "check_in": {
      "type": "string",
      "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
      "description": "Check-in date, YYYY-MM-DD: a real calendar date, not in the past."
    },
    "check_out": {
      "type": "string",
      "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
      "description": "Check-out date, YYYY-MM-DD: a real calendar date after check_in."
    },
    "adults": {
      "type": "integer",
      "minimum": 1,
      "maximum": 10,
      "default": 2,
      "description": "Number of adults, 1 to 10 (default 2). With children, at most 6 guests for hotels; at most 10 guests for vacation rentals."
    },
    "children_ages": {
      "type": "array",
      "maxItems": 5,
      "items": {"type": "integer", "description": "A child's age in years, 1 to 17 (a baby under one counts as 1)."},
      "description": "Hotels only: the age of each child (up to 5 children, each 1 to 17). Not accepted with property_type vacation_rental, where every guest counts in adults."
    },
    "currency": {
      "type": "string",
      "minLength": 3,
      "maxLength": 3,
      "pattern": "^[A-Za-z]{3}$",
      "default": "USD",
      "description": "Currency of the prices and of max_price, a three-letter code such as USD, EUR or GBP (default USD)."
    },
    "max_price": {
      "type": "number",
      "minimum": 0,
      "description": "Highest price per night, in currency. Properties above it, or without a price for the stay, are left out."
    },
    "min_rating": {
      "type": "number",
      "minimum": 0,
      "maximum": 5,
      "description": "Lowest guest rating, 0 to 5. Properties rated below it, or without a rating, are left out."
    },
    "amenities": {
      "type": "array",
      "maxItems": 10,
      "items": {
        "type": "string",
        "enum": ["free_parking", "parking", "indoor_pool", "outdoor_pool", "pool", "fitness_center", "restaurant", "free_breakfast", "spa", "beach_access", "child_friendly", "bar", "pet_friendly", "room_service", "free_wifi", "air_conditioned", "all_inclusive", "wheelchair_accessible", "ev_charger", "hot_tub", "outdoor_grill", "fireplace", "patio", "kitchen", "crib"]
      },
      "description": "Only properties offering every listed amenity (up to 10). Hotels accept free_parking, parking, indoor_pool, outdoor_pool, pool, fitness_center, restaurant, free_breakfast, spa, beach_access, child_friendly, bar, pet_friendly, room_service, free_wifi, air_conditioned, all_inclusive, wheelchair_accessible, ev_charger; vacation rentals accept hot_tub, air_conditioned, outdoor_grill, fireplace, patio, kitchen, fitness_center, crib, beach_access, child_friendly, pet_friendly, free_wifi, pool."
    },
    "property_type": {
      "type": "string",
      "enum": ["hotel", "vacation_rental"],
      "description": "hotel (hotels, inns, hostels and the like; the default when omitted) or vacation_rental (apartments, houses, villas)."
    },
    "sort": {
      "type": "string",
      "enum": ["relevance", "lowest_price", "highest_rating", "most_reviewed"],
      "description": "Order of the results: relevance (the default when omitted), lowest_price, highest_rating or most_reviewed."
    }
  }
}`

// Google Hotels amenity filter ids, per property type (https://serpapi.com/google-hotels-amenities
// and /google-hotels-vacation-rentals-amenities). The same amenity has different ids in the two.
var (
	hotelAmenities = map[string]int{
		"free_parking": 1, "parking": 3, "indoor_pool": 4, "outdoor_pool": 5, "pool": 6, "fitness_center": 7,
		"restaurant": 8, "free_breakfast": 9, "spa": 10, "beach_access": 11, "child_friendly": 12, "bar": 15,
		"pet_friendly": 19, "room_service": 22, "free_wifi": 35, "air_conditioned": 40, "all_inclusive": 52,
		"wheelchair_accessible": 53, "ev_charger": 61,
	}
	rentalAmenities = map[string]int{
		"hot_tub": 2, "air_conditioned": 4, "outdoor_grill": 6, "fireplace": 10, "patio": 12, "kitchen": 15,
		"fitness_center": 16, "crib": 18, "beach_access": 20, "child_friendly": 21, "pet_friendly": 24,
		"free_wifi": 29, "pool": 32,
	}
)

// sortBy maps sort to SerpApi's sort_by; relevance is its default and is not sent.
var sortBy = map[string]string{"lowest_price": "3", "highest_rating": "8", "most_reviewed": "13"}

// ratingThresholds are the only rating filters Google Hotels has: 3.5+, 4.0+ and 4.5+ (SerpApi
// rating 7, 8, 9), highest first.
var ratingThresholds = []struct {
	min   float64
	param string
}{{4.5, "9"}, {4.0, "8"}, {3.5, "7"}}

// today is the current UTC day; a variable so tests can pin it.
var today = func() time.Time { return time.Now().UTC().Truncate(24 * time.Hour) }

// stay is a validated request in the adapter's terms.
type stay struct {
	Destination  string
	CheckIn      time.Time
	CheckOut     time.Time
	Adults       int
	ChildrenAges []int
	Currency     string
	Rental       bool
	Amenities    []string
	MaxPrice     *float64
	MinRating    *float64
	Sort         string
}

func (s stay) guests() int { return s.Adults + len(s.ChildrenAges) }

func (s stay) nights() int { return int(s.CheckOut.Sub(s.CheckIn).Hours() / 24) }

// stayOf reads a request that passed the schema, defaults and rules.
func stayOf(req providers.Request) stay {
	s := stay{
		Destination: strings.TrimSpace(req.Str("destination")),
		Currency:    strings.ToUpper(req.Str("currency")),
		Rental:      req.Str("property_type") == "vacation_rental",
		Sort:        req.Str("sort"),
	}
	s.CheckIn, _ = time.Parse(dateLayout, req.Str("check_in"))
	s.CheckOut, _ = time.Parse(dateLayout, req.Str("check_out"))
	if s.Currency == "" {
		s.Currency = "USD"
	}
	if n, ok := req.Int("adults"); ok {
		s.Adults = n
	} else {
		s.Adults = 2
	}
	if arr, ok := req["children_ages"].([]any); ok {
		for _, v := range arr {
			if n, ok := asInt(v); ok {
				s.ChildrenAges = append(s.ChildrenAges, n)
			}
		}
	}
	for _, a := range req.Strings("amenities") {
		if !slices.Contains(s.Amenities, a) {
			s.Amenities = append(s.Amenities, a)
		}
	}
	if f, ok := req.Float("max_price"); ok {
		s.MaxPrice = &f
	}
	if f, ok := req.Float("min_rating"); ok && f > 0 {
		s.MinRating = &f // 0 admits every property, rated or not
	}
	return s
}

// rules checks the rules beyond the schema (spec 4.18): real dates, check-in not in the past and
// check-out after it; at least one adult; child ages 1..17; at most 6 guests for hotels and 10 for
// vacation rentals; children_ages not with vacation_rental; amenities offered for the property type.
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	var vs []providers.Violation
	add := func(path, format string, args ...any) {
		vs = append(vs, providers.Violation{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	dates := map[string]time.Time{}
	for _, field := range []string{"check_in", "check_out"} {
		s := req.Str(field)
		d, err := time.Parse(dateLayout, s)
		if err != nil || d.Year() < 1 {
			add("/"+field, "%s must be a real calendar date (YYYY-MM-DD); %q is not", field, s)
			continue
		}
		dates[field] = d
	}
	in, okIn := dates["check_in"]
	out, okOut := dates["check_out"]
	// One day of slack: it may still be yesterday at the destination.
	if okIn && in.Before(today().AddDate(0, 0, -1)) {
		add("/check_in", "check_in (%s) is in the past", in.Format(dateLayout))
	}
	if okIn && okOut && !out.After(in) {
		add("/check_out", "check_out (%s) must be after check_in (%s): a stay is at least one night",
			out.Format(dateLayout), in.Format(dateLayout))
	}

	adults, ok := req.Int("adults")
	if !ok {
		adults = 2
	}
	if adults < 1 {
		add("/adults", "at least one adult is required")
	}
	rental := req.Str("property_type") == "vacation_rental"
	ages, _ := req["children_ages"].([]any)
	for i, v := range ages {
		if n, ok := asInt(v); ok && (n < minChildAge || n > maxChildAge) {
			add(fmt.Sprintf("/children_ages/%d", i), "a child's age must be %d to %d years (a baby under one counts as 1); %d is not",
				minChildAge, maxChildAge, n)
		}
	}
	switch {
	case rental:
		if len(ages) > 0 {
			add("/children_ages", "children_ages is accepted only for hotels; for a vacation rental count every guest in adults (up to %d)", maxRentGuest)
		}
		if adults > maxRentGuest { // the schema already caps adults at 10; kept for the rule's own sake
			add("/adults", "at most %d guests for a vacation rental; this request has %d adults", maxRentGuest, adults)
		}
	case adults+len(ages) > maxHotelGuest:
		path := "/adults"
		if len(ages) > 0 {
			path = "/children_ages"
		}
		add(path, "at most %d guests (adults and children) for hotels; this request has %d adults and %d children",
			maxHotelGuest, adults, len(ages))
	}

	offered, kind := hotelAmenities, "hotels"
	if rental {
		offered, kind = rentalAmenities, "vacation rentals"
	}
	for i, a := range req.Strings("amenities") {
		if _, ok := offered[a]; !ok {
			add(fmt.Sprintf("/amenities/%d", i), "%s is not an amenity filter for %s; %s accept %s", a, kind, kind, amenityList(offered))
		}
	}
	return vs
}

// asInt reads a JSON integer of a decoded request (json.Number, float64 or int).
func asInt(v any) (int, bool) { return providers.Request{"v": v}.Int("v") }

func amenityList(m map[string]int) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return m[a] - m[b] })
	return strings.Join(names, ", ")
}

// params are the google_hotels parameters of a stay, shared by the search and the details lookup.
func (s stay) params() url.Values {
	q := url.Values{}
	q.Set("q", s.Destination)
	q.Set("check_in_date", s.CheckIn.Format(dateLayout))
	q.Set("check_out_date", s.CheckOut.Format(dateLayout))
	q.Set("adults", strconv.Itoa(s.Adults))
	if len(s.ChildrenAges) > 0 {
		ages := make([]string, len(s.ChildrenAges))
		for i, a := range s.ChildrenAges {
			ages[i] = strconv.Itoa(a)
		}
		q.Set("children", strconv.Itoa(len(ages))) // SerpApi: the ages must match children
		q.Set("children_ages", strings.Join(ages, ","))
	}
	q.Set("currency", s.Currency)
	if s.Rental {
		q.Set("vacation_rentals", "true")
	}
	return q
}

// searchParams adds the filters and the order of the search to the stay's parameters.
func (s stay) searchParams() url.Values {
	q := s.params()
	if v := s.sortBy(); v != "" {
		q.Set("sort_by", v)
	}
	if s.MaxPrice != nil && *s.MaxPrice > 0 {
		// Google filters on whole currency units; rounding up never hides a property the caller
		// asked for, and the adapter enforces the exact bound on the page.
		q.Set("max_price", strconv.FormatFloat(math.Ceil(*s.MaxPrice), 'f', -1, 64))
	}
	if s.MinRating != nil {
		for _, t := range ratingThresholds {
			if *s.MinRating >= t.min {
				q.Set("rating", t.param)
				break
			}
		}
	}
	if len(s.Amenities) > 0 {
		ids := s.amenityIDs()
		if len(ids) > 0 {
			q.Set("amenities", strings.Join(ids, ","))
		}
	}
	return q
}

func (s stay) sortBy() string { return sortBy[s.Sort] }

func (s stay) amenityIDs() []string {
	offered := hotelAmenities
	if s.Rental {
		offered = rentalAmenities
	}
	var ids []string
	for _, a := range s.Amenities {
		if id, ok := offered[a]; ok {
			ids = append(ids, strconv.Itoa(id))
		}
	}
	return ids
}

// pageState is the paging state: SerpApi's next_page_token of the upstream page ("" for the first)
// and the index in it where the caller's page begins (only past maxPerPage properties).
type pageState struct {
	Token  string `json:"token,omitempty"`
	Offset int    `json:"offset,omitempty"`
}

func search(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	var st pageState
	if len(call.State) > 0 {
		if err := json.Unmarshal(call.State, &st); err != nil || st.Offset < 0 {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
	}
	s := stayOf(call.Request)
	q := s.searchParams()
	if st.Token != "" {
		q.Set("next_page_token", st.Token)
	}
	var ans searchAnswer
	meta, err := serpapi.Search(ctx, call, engine, q, &ans)
	if err != nil {
		return nil, err
	}
	page := &providers.Page{Records: []providers.Record{}}
	if meta.NoResults() || len(ans.Properties) == 0 {
		return page, nil // an empty search (or a page past the end) ends the search
	}
	props := ans.Properties
	from := min(st.Offset, len(props))
	to := min(from+maxPerPage, len(props))
	var left []string
	for _, p := range props[from:to] {
		rec, ok := propertyRecord(p, s)
		if !ok {
			continue
		}
		if why := s.misses(rec); why != "" {
			left = append(left, why)
			continue
		}
		page.Records = append(page.Records, rec)
	}
	next := ""
	if ans.Pagination.V != nil {
		next = string(ans.Pagination.V.NextPageToken)
	}
	switch {
	case to < len(props):
		page.HasMore = true
		page.Next, _ = json.Marshal(pageState{Token: st.Token, Offset: to})
	case next != "":
		page.HasMore = true
		page.Next, _ = json.Marshal(pageState{Token: next})
	}
	if len(left) > 0 {
		page.Notes = append(page.Notes, filterNote(s, len(left), to-from, page))
	}
	return page, nil
}

// misses tells why a record fails the filters the adapter enforces (max_price per night, min_rating),
// or "" when it passes. A property without the value cannot be shown to meet the filter.
func (s stay) misses(rec providers.Record) string {
	if s.MaxPrice != nil {
		if p := rec.Data.(*PropertyRecord).PricePerNight; p == nil || *p > *s.MaxPrice {
			return "max_price"
		}
	}
	if s.MinRating != nil {
		if r := rec.Data.(*PropertyRecord).Rating; r == nil || *r < *s.MinRating {
			return "min_rating"
		}
	}
	return ""
}

func filterNote(s stay, left, seen int, page *providers.Page) string {
	var filters []string
	if s.MaxPrice != nil {
		filters = append(filters, fmt.Sprintf("max_price %s %s a night", strconv.FormatFloat(*s.MaxPrice, 'f', -1, 64), s.Currency))
	}
	if s.MinRating != nil {
		filters = append(filters, "min_rating "+strconv.FormatFloat(*s.MinRating, 'f', -1, 64))
	}
	note := fmt.Sprintf("%d of the %d properties Google Hotels returned on this page were left out: they do not meet %s "+
		"(or show no price or rating for the stay); Google's own filters are coarser.", left, seen, strings.Join(filters, " and "))
	if len(page.Records) == 0 && page.HasMore {
		note += " This page is empty but has_more is true: later pages may still hold matching properties."
	}
	return note
}

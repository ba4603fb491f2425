package flights

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// SerpApi engine and the bounds the spec and Google Flights set (see doc.go).
const (
	engine        = "google_flights"
	capabilityID  = "flights.search"
	maxPassengers = 9
	maxTokenLen   = 16384 // departure_token maxLength of the request schema
	language      = "en"  // hl: keeps SerpApi's texts (travel classes, extensions) in English
)

// travelClass maps the spec's cabin to SerpApi's travel_class.
var travelClass = map[string]string{"economy": "1", "premium_economy": "2", "business": "3", "first": "4"}

// passengerFields are the passenger counts in the order the total is checked.
var passengerFields = []string{"adults", "children", "infants_in_seat", "infants_on_lap"}

// Search is flights.search (spec section 4.17).
var Search = &providers.Capability{
	ID:      capabilityID,
	Fresh:   15 * time.Minute,
	Title:   "Flight search",
	Summary: "Search one-way and round-trip flights between two airports (Google Flights): prices, times, stops, layovers, legs and emissions, with booking options.",
	Description: "Searches Google Flights (through SerpApi) for flights from `origin` to `destination` (IATA airport codes, " +
		"e.g. CDG, AUS) on `departure_date` (YYYY-MM-DD). Add `return_date` for a round trip (omit it for one way); it must " +
		"not precede departure_date. Passengers: `adults` (1 to 9, default 1), `children` (0 to 8), `infants_in_seat` and " +
		"`infants_on_lap` (0 to 8); at most nine passengers in total and at most one lap infant per adult. `cabin` (economy, " +
		"premium_economy, business, first), `max_stops` (0 for nonstop, 1 or 2) and `currency` (three letters, default USD) " +
		"are optional. Each record is one itinerary (Google's best flights first, then the other flights): title (airlines, " +
		"airports and times, stops), snippet, and the keys price (number, for all requested passengers; for round trips the " +
		"round-trip total), currency and requested_passengers {adults, children, infants_in_seat, infants_on_lap} (always), " +
		"total_duration (like \"5h 30m\") with total_duration_min, stops (integer), layovers [{airport, name, duration, " +
		"duration_min, overnight}], departure and arrival (local times \"YYYY-MM-DD HH:MM\" of the first and last leg), legs " +
		"(always: [{from, from_name, departure, to, to_name, arrival, duration, duration_min, airline, flight_number, airplane, " +
		"travel_class, legroom, overnight, often_delayed_by_over_30_min, operated_by, also_sold_by, extensions}]), emissions_kg " +
		"with emissions_difference_percent (against the typical flight of the route), best (true for Google's best flights) and, " +
		"on round trips, needs_return_selection. Round trips take two steps: the first search lists outbound flights " +
		"(needs_return_selection true); record action details on one of them returns, free of charge, `return_search` " +
		"{capability, params}: the original body plus that flight's `departure_token`; executing it lists the return flights " +
		"for that outbound, and details on one of those (or on a one-way record) returns its booking options. notes carry " +
		"Google's price assessment of the search when it has one. Single result: `more` is refused and `update` is not offered. " +
		"Record action details: booking options (sellers with price, fare name, baggage and the booking request), baggage " +
		"prices and the selected flights, $0.004 per fresh request, cached on repeat; free for an outbound round-trip record.",
	Topic:    "Travel and places",
	Request:  requestSchema,
	Rules:    rules,
	Paging:   providers.PagingSingle,
	NoUpdate: true,
	Actions: []providers.Action{{
		Name: "details",
		Description: "For a bookable itinerary (one way, or the return flight of a round trip): Google Flights' booking options " +
			"(seller, whether it is the airline, price, fare name, baggage, the booking request to send the traveller to), " +
			"baggage prices and the selected flights, with a link to the Google Flights booking page; $0.004 per fresh request, " +
			"cached on repeat. For an outbound round-trip itinerary (needs_return_selection true): return_search {capability, " +
			"params}, the flights.search body that lists its return flights, at no charge.",
		Kind:    providers.ActionLookup,
		Credits: 4,
		Run:     details,
	}},
	Cost: providers.Cost{
		Typical: 4,
		Basis: "$0.004 per SerpApi Google Flights search and per fresh booking-options lookup; the return_search answer " +
			"of an outbound round-trip record and cached details are free",
	},
	Deadline:  15 * time.Second,
	Providers: []string{serpapi.ProviderID},
	Examples: []providers.Example{
		{Title: "One-way flights for one adult", Body: providers.ExampleBody(`{"origin": "CDG", "destination": "AUS", "departure_date": "2027-03-03"}`)},
		{Title: "Round trip for two adults and a child, at most one stop", Body: providers.ExampleBody(`{"origin": "CDG", "destination": "AUS", "departure_date": "2027-03-03", "return_date": "2027-03-10", "adults": 2, "children": 1, "max_stops": 1}`)},
		{Title: "Return flights of a chosen outbound (the return_search that details gives for it)", Body: providers.ExampleBody(`{"origin": "CDG", "destination": "AUS", "departure_date": "2027-03-03", "return_date": "2027-03-10",
			"adults": 2, "children": 1, "max_stops": 1, "departure_token": "` + exampleDepartureToken + `"}`)},
	},
	Execute: search,
	Record:  FlightRecord{},
}

// FlightRecord is a flights.search record (besides title and snippet).
type FlightRecord struct {
	Price                      *float64   `json:"price,omitempty" doc:"for all passengers, in currency"`
	Currency                   string     `json:"currency"`
	RequestedPassengers        Passengers `json:"requested_passengers"`
	Legs                       []Leg      `json:"legs"`
	Stops                      int        `json:"stops"`
	Best                       bool       `json:"best" doc:"among Google Flights' best flights"`
	TotalDuration              string     `json:"total_duration,omitempty" doc:"for example 6 h 40 min"`
	TotalDurationMin           *int64     `json:"total_duration_min,omitempty"`
	Layovers                   []Layover  `json:"layovers,omitempty"`
	Departure                  string     `json:"departure,omitempty" doc:"local time of the first leg's departure"`
	Arrival                    string     `json:"arrival,omitempty" doc:"local time of the last leg's arrival"`
	EmissionsKg                *float64   `json:"emissions_kg,omitempty"`
	EmissionsDifferencePercent *int64     `json:"emissions_difference_percent,omitempty"`
	NeedsReturnSelection       *bool      `json:"needs_return_selection,omitempty" doc:"round trip: details gives the return_search of this outbound"`
}

// Passengers are the requested passenger counts, defaults applied.
type Passengers struct {
	Adults        int `json:"adults"`
	Children      int `json:"children"`
	InfantsInSeat int `json:"infants_in_seat"`
	InfantsOnLap  int `json:"infants_on_lap"`
}

// Leg is one flight of an itinerary. Its fields are in key order: details writes legs with
// encoding/json, which keeps the declared order.
type Leg struct {
	Airline      string   `json:"airline,omitempty"`
	Airplane     string   `json:"airplane,omitempty"`
	AlsoSoldBy   []string `json:"also_sold_by,omitempty"`
	Arrival      string   `json:"arrival,omitempty"`
	Departure    string   `json:"departure,omitempty"`
	Duration     string   `json:"duration,omitempty"`
	DurationMin  *int64   `json:"duration_min,omitempty"`
	Extensions   []string `json:"extensions,omitempty"`
	FlightNumber string   `json:"flight_number,omitempty"`
	From         string   `json:"from,omitempty"`
	FromName     string   `json:"from_name,omitempty"`
	Legroom      string   `json:"legroom,omitempty"`
	OftenDelayed bool     `json:"often_delayed_by_over_30_min,omitempty"`
	OperatedBy   string   `json:"operated_by,omitempty"`
	Overnight    bool     `json:"overnight,omitempty"`
	To           string   `json:"to,omitempty"`
	ToName       string   `json:"to_name,omitempty"`
	TravelClass  string   `json:"travel_class,omitempty"`
}

// Layover is a stop between two legs (fields in key order, as Leg).
type Layover struct {
	Airport     string `json:"airport,omitempty"`
	Duration    string `json:"duration,omitempty"`
	DurationMin *int64 `json:"duration_min,omitempty"`
	Name        string `json:"name,omitempty"`
	Overnight   bool   `json:"overnight,omitempty"`
}

// exampleDepartureToken is the departure_token of the first outbound flight of the round-trip
// sandbox answer (sandbox/google_flights/roundtrip.json), so the third example is what details
// returns for it.
const exampleDepartureToken = "WyJRMnBTU1dGRlNVSlNSWEJZVkZjNVMxVklaRUpTVnpSNlRrWkdRMUo1TUhSTVV6QjBURk13ZEV4WVdqSmlSekZ0VFRCR1FsRlZSa0pTTWpWcVlsUm9XbE5yZEhOYWFrSkNSV2QwUTFGVVRYZE5XSGhEVVZSRk5VMVNiMHhEVFV0V1FYaEJRMGRuVGxaVk1GRTBTRWhFUTJ4UlRUMD0iLFtbIkNERyIsIjIwMjctMDMtMDMiLCJMSFIiLG51bGwsIkJBIiwiMzAxIl0sWyJMSFIiLCIyMDI3LTAzLTAzIiwiQVVTIixudWxsLCJCQSIsIjE5MSJdXV0="

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "flights.search request",
  "description": "Search flights on Google Flights. origin, destination and departure_date are required; add return_date for a round trip.",
  "type": "object",
  "additionalProperties": false,
  "required": ["origin", "destination", "departure_date"],
  "properties": {
    "origin": {
      "type": "string",
      "minLength": 3,
      "maxLength": 3,
      "pattern": "^[A-Za-z]{3}$",
      "description": "Departure airport as its three-letter IATA code, e.g. CDG (Paris Charles de Gaulle) or JFK. Case does not matter."
    },
    "destination": {
      "type": "string",
      "minLength": 3,
      "maxLength": 3,
      "pattern": "^[A-Za-z]{3}$",
      "description": "Arrival airport as its three-letter IATA code, e.g. AUS (Austin-Bergstrom). Must differ from origin."
    },
    "departure_date": {
      "type": "string",
      "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
      "description": "Date of the outbound flight, YYYY-MM-DD (a real calendar date)."
    },
    "return_date": {
      "type": "string",
      "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
      "description": "Date of the return flight for a round trip, YYYY-MM-DD, not before departure_date. Omit for a one-way search."
    },
    "departure_token": {
      "type": "string",
      "minLength": 1,
      "maxLength": 16384,
      "pattern": "^\\S+$",
      "description": "The outbound flight chosen in a round-trip search, as given in the return_search params of that flight's details; sent with the original round-trip body (including return_date) it lists the return flights for that outbound."
    },
    "adults": {
      "type": "integer",
      "minimum": 1,
      "maximum": 9,
      "default": 1,
      "description": "Number of adult passengers, 1 to 9."
    },
    "children": {
      "type": "integer",
      "minimum": 0,
      "maximum": 8,
      "default": 0,
      "description": "Number of child passengers, 0 to 8."
    },
    "infants_in_seat": {
      "type": "integer",
      "minimum": 0,
      "maximum": 8,
      "default": 0,
      "description": "Number of infants with their own seat, 0 to 8."
    },
    "infants_on_lap": {
      "type": "integer",
      "minimum": 0,
      "maximum": 8,
      "default": 0,
      "description": "Number of infants travelling on an adult's lap, 0 to 8; at most one per adult."
    },
    "cabin": {
      "type": "string",
      "enum": ["economy", "premium_economy", "business", "first"],
      "description": "Travel class; Google Flights searches economy when omitted."
    },
    "max_stops": {
      "type": "integer",
      "minimum": 0,
      "maximum": 2,
      "description": "Most stops per direction: 0 for nonstop flights only, 1 or 2. Any number of stops when omitted."
    },
    "currency": {
      "type": "string",
      "minLength": 3,
      "maxLength": 3,
      "pattern": "^[A-Za-z]{3}$",
      "default": "USD",
      "description": "Currency of the prices, a three-letter ISO 4217 code such as USD, EUR or GBP."
    }
  }
}`

// parseDate reads a YYYY-MM-DD calendar date; ok is false for a date the calendar does not have.
func parseDate(s string) (time.Time, bool) {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil || d.Year() < 1 {
		return time.Time{}, false
	}
	return d, true
}

// rules checks the rules beyond the schema (spec 4.17 and the decisions in doc.go).
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	var vs []providers.Violation
	add := func(path, format string, args ...any) {
		vs = append(vs, providers.Violation{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	dates := map[string]time.Time{}
	for _, field := range []string{"departure_date", "return_date"} {
		s, ok := req.String(field)
		if !ok {
			continue
		}
		d, ok := parseDate(s)
		if !ok {
			add("/"+field, "%s must be a real calendar date (YYYY-MM-DD); %q is not", field, s)
			continue
		}
		dates[field] = d
	}
	out, hasOut := dates["departure_date"]
	ret, hasRet := dates["return_date"]
	if hasOut && hasRet && ret.Before(out) {
		add("/return_date", "return_date (%s) must not precede departure_date (%s)", req.Str("return_date"), req.Str("departure_date"))
	}
	if o, d := req.Str("origin"), req.Str("destination"); o != "" && strings.EqualFold(o, d) {
		add("/destination", "destination must differ from origin (both are %s)", strings.ToUpper(o))
	}
	if req.Has("departure_token") && !req.Has("return_date") {
		add("/departure_token", "departure_token selects the outbound flight of a round trip: send it with the original "+
			"round-trip body, including its return_date")
	}
	total := 0
	for _, field := range passengerFields {
		n, _ := req.Int(field)
		if total <= maxPassengers && total+n > maxPassengers {
			add("/"+field, "at most %d passengers in total (adults, children, infants_in_seat and infants_on_lap); this makes %d",
				maxPassengers, total+n)
		}
		total += n
	}
	adults, _ := req.Int("adults")
	if lap, _ := req.Int("infants_on_lap"); lap > adults {
		add("/infants_on_lap", "each infant on a lap needs an adult: %d infants_on_lap for %d adults", lap, adults)
	}
	return vs
}

// passengers are the requested passenger counts, defaults applied (record key requested_passengers).
func passengers(req providers.Request) Passengers {
	m := passengerCounts(req)
	return Passengers{Adults: m["adults"], Children: m["children"], InfantsInSeat: m["infants_in_seat"], InfantsOnLap: m["infants_on_lap"]}
}

// passengerCounts are the requested passenger counts by request field, defaults applied.
func passengerCounts(req providers.Request) map[string]int {
	out := make(map[string]int, len(passengerFields))
	for _, field := range passengerFields {
		n, _ := req.Int(field)
		if field == "adults" && n < 1 {
			n = 1
		}
		out[field] = n
	}
	return out
}

// currencyOf is the request's currency in upper case (USD when absent).
func currencyOf(req providers.Request) string {
	if c := strings.ToUpper(strings.TrimSpace(req.Str("currency"))); c != "" {
		return c
	}
	return "USD"
}

// roundTrip tells whether the request is a round trip.
func roundTrip(req providers.Request) bool { return req.Str("return_date") != "" }

// searchParams builds the SerpApi google_flights parameters of a request.
func searchParams(req providers.Request) url.Values {
	q := url.Values{}
	q.Set("departure_id", strings.ToUpper(req.Str("origin")))
	q.Set("arrival_id", strings.ToUpper(req.Str("destination")))
	q.Set("outbound_date", req.Str("departure_date"))
	if roundTrip(req) {
		q.Set("type", "1")
		q.Set("return_date", req.Str("return_date"))
	} else {
		q.Set("type", "2")
	}
	for field, n := range passengerCounts(req) {
		q.Set(field, strconv.Itoa(n))
	}
	if tc, ok := travelClass[req.Str("cabin")]; ok {
		q.Set("travel_class", tc)
	}
	if n, ok := req.Int("max_stops"); ok && n >= 0 && n <= 2 {
		q.Set("stops", strconv.Itoa(n+1)) // SerpApi: 0 any, 1 nonstop, 2 one stop or fewer, 3 two or fewer
	}
	q.Set("currency", currencyOf(req))
	q.Set("hl", language)
	if t := req.Str("departure_token"); t != "" {
		q.Set("departure_token", t)
	}
	return q
}

package flights

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// airport is departure_airport / arrival_airport of a leg.
type airport struct {
	Name lenient.Str `json:"name"`
	ID   lenient.Str `json:"id"`
	Time lenient.Str `json:"time"`
}

// leg is one flight of an itinerary (flights[] of a result).
type leg struct {
	Departure    lenient.Obj[airport] `json:"departure_airport"`
	Arrival      lenient.Obj[airport] `json:"arrival_airport"`
	Duration     lenient.Int          `json:"duration"`
	Airplane     lenient.Str          `json:"airplane"`
	Airline      lenient.Str          `json:"airline"`
	TravelClass  lenient.Str          `json:"travel_class"`
	FlightNumber lenient.Str          `json:"flight_number"`
	Legroom      lenient.Str          `json:"legroom"`
	Extensions   lenient.List[string] `json:"extensions"`
	AlsoSoldBy   lenient.List[string] `json:"ticket_also_sold_by"`
	OperatedBy   lenient.Str          `json:"plane_and_crew_by"`
	Overnight    lenient.Bool         `json:"overnight"`
	OftenDelayed lenient.Bool         `json:"often_delayed_by_over_30_min"`
}

// layover is one entry of layovers[].
type layover struct {
	Duration  lenient.Int  `json:"duration"`
	Name      lenient.Str  `json:"name"`
	ID        lenient.Str  `json:"id"`
	Overnight lenient.Bool `json:"overnight"`
}

// emissions is carbon_emissions of a result (grams).
type emissions struct {
	ThisFlight        lenient.Float `json:"this_flight"`
	Typical           lenient.Float `json:"typical_for_this_route"`
	DifferencePercent lenient.Int   `json:"difference_percent"`
}

// itinerary is one entry of best_flights[] / other_flights[] (and selected_flights[] of a
// booking answer).
type itinerary struct {
	Flights        lenient.List[leg]      `json:"flights"`
	Layovers       lenient.List[layover]  `json:"layovers"`
	TotalDuration  lenient.Int            `json:"total_duration"`
	Emissions      lenient.Obj[emissions] `json:"carbon_emissions"`
	Price          lenient.Float          `json:"price"`
	Type           lenient.Str            `json:"type"`
	Extensions     lenient.List[string]   `json:"extensions"`
	DepartureToken lenient.Str            `json:"departure_token"`
	BookingToken   lenient.Str            `json:"booking_token"`
}

// priceInsights is price_insights of an answer.
type priceInsights struct {
	LowestPrice       lenient.Float         `json:"lowest_price"`
	PriceLevel        lenient.Str           `json:"price_level"`
	TypicalPriceRange lenient.List[float64] `json:"typical_price_range"`
}

// answer is the part of a google_flights search answer the adapter reads.
type answer struct {
	Best          lenient.List[json.RawMessage] `json:"best_flights"`
	Other         lenient.List[json.RawMessage] `json:"other_flights"`
	PriceInsights lenient.Obj[priceInsights]    `json:"price_insights"`
}

// recordRef is a record's Ref: the token its details needs and the validated query it came
// from (so details does not depend on the session's stored query).
type recordRef struct {
	BookingToken   string          `json:"booking_token,omitempty"`
	DepartureToken string          `json:"departure_token,omitempty"`
	Query          json.RawMessage `json:"query"`
}

func search(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	req := call.Request
	var ans answer
	meta, err := serpapi.Search(ctx, call, engine, searchParams(req), &ans)
	if err != nil {
		return nil, err
	}
	out := &providers.Page{Records: []providers.Record{}}
	results := len(ans.Best) + len(ans.Other)
	if meta.NoResults() || results == 0 {
		return out, nil // Google Flights found no flights: an empty single result
	}
	query, err := json.Marshal(req)
	if err != nil {
		return nil, providers.Errorf(providers.CodeInternal, "the flight search could not be recorded")
	}
	for i, group := range [][]json.RawMessage{ans.Best, ans.Other} {
		for _, raw := range group {
			var it itinerary
			if json.Unmarshal(raw, &it) != nil {
				continue // not an object: nothing to show
			}
			if rec, ok := flightRecord(req, it, i == 0, query); ok {
				out.Records = append(out.Records, rec)
			}
		}
	}
	out.Notes = searchNotes(req, ans.PriceInsights.V)
	return out, nil
}

// flightRecord maps one itinerary; ok is false when it has no usable leg.
func flightRecord(req providers.Request, it itinerary, best bool, query json.RawMessage) (providers.Record, bool) {
	legs := legObjects(it.Flights)
	if len(legs) == 0 {
		return providers.Record{}, false
	}
	first, last := it.Flights[0], it.Flights[len(it.Flights)-1]
	f := &FlightRecord{Currency: currencyOf(req), RequestedPassengers: passengers(req), Legs: legs,
		Stops: len(it.Flights) - 1, Best: best, Layovers: layoverObjects(it.Layovers)}
	if it.Price.OK && it.Price.V >= 0 {
		f.Price = &it.Price.V
	}
	if it.TotalDuration.OK && it.TotalDuration.V > 0 {
		f.TotalDuration, f.TotalDurationMin = duration(it.TotalDuration.V), &it.TotalDuration.V
	}
	if first.Departure.V != nil {
		f.Departure = string(first.Departure.V.Time)
	}
	if last.Arrival.V != nil {
		f.Arrival = string(last.Arrival.V.Time)
	}
	if e := it.Emissions.V; e != nil {
		if e.ThisFlight.OK && e.ThisFlight.V > 0 {
			kg := math.Round(e.ThisFlight.V/100) / 10 // grams → kg, one decimal
			f.EmissionsKg = &kg
		}
		if e.DifferencePercent.OK {
			f.EmissionsDifferencePercent = &e.DifferencePercent.V
		}
	}

	rec := providers.Record{Title: title(it), Snippet: snippet(it), Data: f}
	ref := recordRef{Query: query}
	switch {
	case it.BookingToken != "":
		ref.BookingToken = string(it.BookingToken)
	case usableDepartureToken(string(it.DepartureToken)) && roundTrip(req) && req.Str("departure_token") == "":
		ref.DepartureToken = string(it.DepartureToken)
	}
	if roundTrip(req) {
		needs := ref.DepartureToken != ""
		f.NeedsReturnSelection = &needs
	}
	if ref.BookingToken == "" && ref.DepartureToken == "" {
		rec.Actions = []string{} // neither bookable nor an outbound to pick: no details
	} else {
		rec.Ref, _ = json.Marshal(ref)
	}
	return rec, true
}

// usableDepartureToken tells whether a departure_token fits the request schema, so the
// return_search body that carries it validates.
func usableDepartureToken(t string) bool {
	return t != "" && len(t) <= maxTokenLen && !strings.ContainsAny(t, " \t\r\n\f\v")
}

// legObjects maps flights[] to the record's legs; a leg without any airport is left out.
func legObjects(flights []leg) []Leg {
	out := []Leg{}
	for _, l := range flights {
		m := Leg{Airline: string(l.Airline), FlightNumber: string(l.FlightNumber), Airplane: string(l.Airplane),
			TravelClass: string(l.TravelClass), Legroom: string(l.Legroom), OperatedBy: string(l.OperatedBy),
			Overnight: l.Overnight.OK && l.Overnight.V, OftenDelayed: l.OftenDelayed.OK && l.OftenDelayed.V,
			AlsoSoldBy: nonEmpty(l.AlsoSoldBy), Extensions: nonEmpty(l.Extensions)}
		if a := l.Departure.V; a != nil {
			m.From, m.FromName, m.Departure = strings.ToUpper(string(a.ID)), string(a.Name), string(a.Time)
		}
		if a := l.Arrival.V; a != nil {
			m.To, m.ToName, m.Arrival = strings.ToUpper(string(a.ID)), string(a.Name), string(a.Time)
		}
		if m.From == "" && m.To == "" {
			continue
		}
		if l.Duration.OK && l.Duration.V > 0 {
			m.Duration, m.DurationMin = duration(l.Duration.V), &l.Duration.V
		}
		out = append(out, m)
	}
	return out
}

// layoverObjects maps layovers[]; an entry without an airport is left out.
func layoverObjects(in []layover) []Layover {
	var out []Layover
	for _, l := range in {
		m := Layover{Airport: strings.ToUpper(string(l.ID)), Name: string(l.Name)}
		if m.Airport == "" && m.Name == "" {
			continue
		}
		if l.Duration.OK && l.Duration.V > 0 {
			m.Duration, m.DurationMin = duration(l.Duration.V), &l.Duration.V
		}
		m.Overnight = l.Overnight.OK && l.Overnight.V
		out = append(out, m)
	}
	return out
}

// title reads "British Airways: CDG 2027-03-03 10:10 → AUS 2027-03-03 16:50, 1 stop (LHR)".
func title(it itinerary) string {
	var airlines []string
	seen := map[string]bool{}
	for _, l := range it.Flights {
		if a := string(l.Airline); a != "" && !seen[a] {
			seen[a] = true
			airlines = append(airlines, a)
		}
	}
	var b strings.Builder
	if len(airlines) > 0 {
		b.WriteString(strings.Join(airlines, ", ") + ": ")
	}
	b.WriteString(endpoint(it.Flights[0].Departure.V) + " → " + endpoint(it.Flights[len(it.Flights)-1].Arrival.V))
	stops := len(it.Flights) - 1
	switch stops {
	case 0:
		b.WriteString(", nonstop")
	case 1:
		b.WriteString(", 1 stop")
	default:
		fmt.Fprintf(&b, ", %d stops", stops)
	}
	var via []string
	for _, l := range it.Flights[:len(it.Flights)-1] {
		if a := l.Arrival.V; a != nil && a.ID != "" {
			via = append(via, strings.ToUpper(string(a.ID)))
		}
	}
	if len(via) > 0 {
		b.WriteString(" (" + strings.Join(via, ", ") + ")")
	}
	return b.String()
}

func endpoint(a *airport) string {
	if a == nil {
		return "?"
	}
	s := strings.ToUpper(string(a.ID))
	if s == "" {
		s = string(a.Name)
	}
	if s == "" {
		s = "?"
	}
	if a.Time != "" {
		s += " " + string(a.Time)
	}
	return s
}

// snippet reads "13h 40m · BA 301, BA 191 · Economy · Checked baggage for a fee; ...".
func snippet(it itinerary) string {
	var parts, numbers, classes []string
	if it.TotalDuration.OK && it.TotalDuration.V > 0 {
		parts = append(parts, duration(it.TotalDuration.V))
	}
	seen := map[string]bool{}
	for _, l := range it.Flights {
		if n := string(l.FlightNumber); n != "" {
			numbers = append(numbers, n)
		}
		if c := string(l.TravelClass); c != "" && !seen[c] {
			seen[c] = true
			classes = append(classes, c)
		}
	}
	if len(numbers) > 0 {
		parts = append(parts, strings.Join(numbers, ", "))
	}
	if len(classes) > 0 {
		parts = append(parts, strings.Join(classes, " / "))
	}
	if ext := nonEmpty(it.Extensions); len(ext) > 0 {
		parts = append(parts, strings.Join(ext, "; "))
	}
	return strings.Join(parts, " · ")
}

// searchNotes are the caveats of a search: what the prices cover and Google's price assessment.
func searchNotes(req providers.Request, pi *priceInsights) []string {
	var notes []string
	switch {
	case req.Str("departure_token") != "":
		notes = append(notes, "These are return flights for the chosen outbound flight; prices are round-trip totals for all requested passengers. Use details on one to see its booking options.")
	case roundTrip(req):
		notes = append(notes, "Round trip: these are outbound flights and prices are round-trip totals for all requested passengers. Use details on one (free) to get the return_search body that lists its return flights.")
	}
	if pi != nil && pi.PriceLevel != "" {
		n := fmt.Sprintf("Google Flights rates the prices of this search as %s", pi.PriceLevel)
		if r := pi.TypicalPriceRange; len(r) == 2 {
			n += fmt.Sprintf(" (typical range %s–%s %s)", money(r[0]), money(r[1]), currencyOf(req))
		}
		if pi.LowestPrice.OK {
			n += fmt.Sprintf("; lowest price %s %s", money(pi.LowestPrice.V), currencyOf(req))
		}
		notes = append(notes, n+".")
	}
	return notes
}

// duration renders minutes as "5h 30m", "5h" or "45m".
func duration(min int64) string {
	h, m := min/60, min%60
	switch {
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh %dm", h, m)
}

// money renders an amount without a needless fraction (2512, 99.5).
func money(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// nonEmpty drops blank strings.
func nonEmpty(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// decodeRequest reads a stored query back as a request with exact numbers.
func decodeRequest(raw json.RawMessage) (providers.Request, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || m == nil {
		return nil, false
	}
	return providers.Request(m), true
}

package flights

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// bookingRequest is how Google Flights sends the traveller to a seller: a POST of post_data to url.
type bookingRequest struct {
	URL      lenient.Str `json:"url"`
	PostData lenient.Str `json:"post_data"`
}

// localPrice is one entry of local_prices[]: the fare in the seller's own currency.
type localPrice struct {
	Currency lenient.Str   `json:"currency"`
	Price    lenient.Float `json:"price"`
}

// bookingPart is one seller's offer: together, or departing / returning for separate tickets.
type bookingPart struct {
	BookWith       lenient.Str                 `json:"book_with"`
	Airline        lenient.Bool                `json:"airline"`
	Price          lenient.Float               `json:"price"`
	MarketedAs     lenient.List[string]        `json:"marketed_as"`
	OptionTitle    lenient.Str                 `json:"option_title"`
	Extensions     lenient.List[string]        `json:"extensions"`
	BaggagePrices  lenient.List[string]        `json:"baggage_prices"`
	LocalPrices    lenient.List[localPrice]    `json:"local_prices"`
	BookingRequest lenient.Obj[bookingRequest] `json:"booking_request"`
	BookingPhone   lenient.Str                 `json:"booking_phone"`
	PhoneFee       lenient.Float               `json:"estimated_phone_service_fee"`
}

// bookingOption is one entry of booking_options[].
type bookingOption struct {
	Together  lenient.Obj[bookingPart] `json:"together"`
	Departing lenient.Obj[bookingPart] `json:"departing"`
	Returning lenient.Obj[bookingPart] `json:"returning"`
}

// bookingAnswer is the part of a google_flights answer to a booking_token request the adapter reads.
type bookingAnswer struct {
	SearchMetadata struct {
		GoogleFlightsURL lenient.Str `json:"google_flights_url"`
	} `json:"search_metadata"`
	SelectedFlights lenient.List[itinerary]                      `json:"selected_flights"`
	BaggagePrices   lenient.Obj[map[string]lenient.List[string]] `json:"baggage_prices"`
	BookingOptions  lenient.List[bookingOption]                  `json:"booking_options"`
	PriceInsights   lenient.Obj[priceInsights]                   `json:"price_insights"`
}

// details is the record action: the return_search body of an outbound round-trip record (free),
// else a booking-options request with the record's booking_token.
func details(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref recordRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this flight has no booking reference, so it has no details")
	}
	query, ok := decodeRequest(ref.Query)
	if !ok || query.Str("origin") == "" {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this flight has no booking reference, so it has no details")
	}
	switch {
	case ref.BookingToken != "":
		return bookingDetails(ctx, call, query, ref.BookingToken)
	case ref.DepartureToken != "":
		return returnSearch(query, ref.DepartureToken)
	}
	return nil, providers.Errorf(providers.CodeInvalidRequest, "this flight has no booking reference, so it has no details")
}

// bodyCheck validates a flights.search body as the gateway does (schema, defaults, rules); it is
// Search's request contract without the actions, so details can use it without an
// initialization cycle.
var bodyCheck = &providers.Capability{ID: capabilityID, Request: requestSchema, Rules: rules}

// returnSearch answers, without a provider call, the flights.search body that lists the return
// flights of an outbound round-trip flight: the original body plus its departure_token.
func returnSearch(query providers.Request, token string) (*providers.Detail, error) {
	params := query.Clone()
	params["departure_token"] = token
	for _, k := range []string{"origin", "destination", "currency"} {
		if s, ok := params.String(k); ok {
			params[k] = strings.ToUpper(s)
		}
	}
	// The promise is a body that executes: check it exactly as the gateway will.
	if _, err := bodyCheck.Prepare(params.Clone(), nil); err != nil {
		return nil, &providers.Error{Code: providers.CodeInternal,
			Message: "the return-flight search of this outbound flight could not be built", Cause: err}
	}
	return &providers.Detail{
		Body:    &ReturnSearchDetail{ReturnSearch: ReturnSearch{Capability: capabilityID, Params: params}},
		Links:   []providers.Link{},
		Credits: providers.Credits(0),
	}, nil
}

// ReturnSearchDetail is the details body of an outbound round-trip record.
type ReturnSearchDetail struct {
	ReturnSearch ReturnSearch `json:"return_search"`
}

// ReturnSearch is the flights.search call that lists the return flights.
type ReturnSearch struct {
	Capability string `json:"capability"`
	// Params is a flights.search request body, whatever keys the caller sent (a request map).
	Params providers.Request `json:"params"`
}

// BookingDetails is the details body of a bookable record. Fields are declared in key order (a
// detail is written by encoding/json).
type BookingDetails struct {
	// BaggagePrices is keyed by Google's own bag labels, which the upstream leaves free-form.
	BaggagePrices       map[string][]string   `json:"baggage_prices,omitempty"`
	BookingOptions      []BookingOffer        `json:"booking_options"`
	Currency            string                `json:"currency"`
	PriceInsights       *BookingPriceInsights `json:"price_insights,omitempty"`
	RequestedPassengers Passengers            `json:"requested_passengers"`
	SelectedFlights     []SelectedFlight      `json:"selected_flights,omitempty"`
}

// BookingOffer is one booking option (tickets "together", the seller's offer) or one part of a
// "separate" option (departing / returning, with price their sum); fields in key order.
type BookingOffer struct {
	Airline         *bool           `json:"airline,omitempty"`
	BaggagePrices   []string        `json:"baggage_prices,omitempty"`
	BookWith        string          `json:"book_with,omitempty"`
	BookingRequest  *BookingRequest `json:"booking_request,omitempty"`
	Departing       *BookingOffer   `json:"departing,omitempty"`
	Extensions      []string        `json:"extensions,omitempty"`
	LocalPrices     []LocalPrice    `json:"local_prices,omitempty"`
	MarketedAs      []string        `json:"marketed_as,omitempty"`
	OptionTitle     string          `json:"option_title,omitempty"`
	Phone           string          `json:"phone,omitempty"`
	PhoneServiceFee *float64        `json:"phone_service_fee,omitempty"`
	Price           *float64        `json:"price,omitempty"`
	Returning       *BookingOffer   `json:"returning,omitempty"`
	Tickets         string          `json:"tickets,omitempty"`
}

// BookingRequest is how to reach the seller: GET url, or POST post_data to url.
type BookingRequest struct {
	Method   string `json:"method"`
	PostData string `json:"post_data,omitempty"`
	URL      string `json:"url"`
}

// LocalPrice is the fare in the seller's own currency.
type LocalPrice struct {
	Currency string  `json:"currency"`
	Price    float64 `json:"price"`
}

// SelectedFlight is one of the flights the booking is for.
type SelectedFlight struct {
	Legs          []Leg    `json:"legs"`
	Price         *float64 `json:"price,omitempty"`
	TotalDuration string   `json:"total_duration,omitempty"`
	Type          string   `json:"type,omitempty"`
}

// BookingPriceInsights is price_insights of a booking answer.
type BookingPriceInsights struct {
	LowestPrice       *float64  `json:"lowest_price,omitempty"`
	PriceLevel        string    `json:"price_level,omitempty"`
	TypicalPriceRange []float64 `json:"typical_price_range,omitempty"`
}

// bookingDetails asks SerpApi for the booking options of the selected flights.
func bookingDetails(ctx context.Context, call *providers.Call, query providers.Request, token string) (*providers.Detail, error) {
	params := searchParams(query)
	params.Del("departure_token") // SerpApi: booking_token cannot be used together with departure_token
	params.Set("booking_token", token)
	var ans bookingAnswer
	_, err := serpapi.Search(ctx, call, engine, params, &ans)
	if err != nil {
		return nil, err
	}
	options := []BookingOffer{}
	for _, o := range ans.BookingOptions {
		if m := optionObject(o); m != nil {
			options = append(options, *m)
		}
	}
	if len(options) == 0 {
		return nil, providers.Errorf(providers.CodeNotFound,
			"Google Flights has no booking options for this flight now; it may be sold out or its fare may have changed: run the search again")
	}
	body := &BookingDetails{Currency: currencyOf(query), RequestedPassengers: passengers(query), BookingOptions: options}
	for _, it := range ans.SelectedFlights {
		if m := selectedObject(it); m != nil {
			body.SelectedFlights = append(body.SelectedFlights, *m)
		}
	}
	if bp := ans.BaggagePrices.V; bp != nil {
		bags := map[string][]string{}
		for k, v := range *bp {
			if s := nonEmpty(v); len(s) > 0 {
				bags[k] = s
			}
		}
		if len(bags) > 0 {
			body.BaggagePrices = bags
		}
	}
	if pi := ans.PriceInsights.V; pi != nil {
		m := BookingPriceInsights{PriceLevel: string(pi.PriceLevel)}
		if pi.LowestPrice.OK {
			v := pi.LowestPrice.V
			m.LowestPrice = &v
		}
		if len(pi.TypicalPriceRange) == 2 {
			m.TypicalPriceRange = []float64(pi.TypicalPriceRange)
		}
		if m.LowestPrice != nil || m.PriceLevel != "" || m.TypicalPriceRange != nil {
			body.PriceInsights = &m
		}
	}
	return &providers.Detail{Body: body, Links: bookingLinks(ans, options)}, nil
}

// optionObject maps one booking option: {tickets: together, ...offer} or {tickets: separate,
// departing, returning, price (their sum)}; nil when no seller is named.
func optionObject(o bookingOption) *BookingOffer {
	if p := partObject(o.Together.V); p != nil {
		p.Tickets = "together"
		return p
	}
	dep, ret := partObject(o.Departing.V), partObject(o.Returning.V)
	if dep == nil && ret == nil {
		return nil
	}
	m := &BookingOffer{Tickets: "separate", Departing: dep, Returning: ret}
	if dep != nil && ret != nil && dep.Price != nil && ret.Price != nil {
		sum := *dep.Price + *ret.Price
		m.Price = &sum
	}
	return m
}

// partObject maps one seller's offer; nil without a seller name.
func partObject(p *bookingPart) *BookingOffer {
	if p == nil || p.BookWith == "" {
		return nil
	}
	m := &BookingOffer{BookWith: string(p.BookWith), OptionTitle: string(p.OptionTitle), Phone: string(p.BookingPhone),
		MarketedAs: nonEmpty(p.MarketedAs), Extensions: nonEmpty(p.Extensions), BaggagePrices: nonEmpty(p.BaggagePrices)}
	if p.Airline.OK {
		v := p.Airline.V
		m.Airline = &v
	}
	if p.Price.OK && p.Price.V >= 0 {
		v := p.Price.V
		m.Price = &v
	}
	for _, lp := range p.LocalPrices {
		if lp.Currency != "" && lp.Price.OK {
			m.LocalPrices = append(m.LocalPrices, LocalPrice{Currency: string(lp.Currency), Price: lp.Price.V})
		}
	}
	if br := p.BookingRequest.V; br != nil && isWebURL(string(br.URL)) {
		r := &BookingRequest{URL: string(br.URL), Method: "GET"}
		if br.PostData != "" {
			r.Method, r.PostData = "POST", string(br.PostData)
		}
		m.BookingRequest = r
	}
	if p.PhoneFee.OK {
		v := p.PhoneFee.V
		m.PhoneServiceFee = &v
	}
	return m
}

// selectedObject maps one of selected_flights[]: its legs, duration, price and trip type.
func selectedObject(it itinerary) *SelectedFlight {
	legs := legObjects(it.Flights)
	if len(legs) == 0 {
		return nil
	}
	m := &SelectedFlight{Legs: legs, Type: string(it.Type)}
	if it.TotalDuration.OK && it.TotalDuration.V > 0 {
		m.TotalDuration = duration(it.TotalDuration.V)
	}
	if it.Price.OK {
		v := it.Price.V
		m.Price = &v
	}
	return m
}

// bookingLinks are the Google Flights booking page and every seller link that opens with a plain
// GET (a POST booking request is in the body, not a link).
func bookingLinks(ans bookingAnswer, options []BookingOffer) []providers.Link {
	links := []providers.Link{}
	if u := string(ans.SearchMetadata.GoogleFlightsURL); isWebURL(u) {
		links = append(links, providers.Link{Label: "Google Flights booking page", URL: u})
	}
	add := func(p *BookingOffer) {
		if p == nil || p.BookingRequest == nil || p.BookingRequest.Method != "GET" {
			return
		}
		links = append(links, providers.Link{Label: "Book with " + p.BookWith, URL: p.BookingRequest.URL})
	}
	for i := range options {
		if o := &options[i]; o.Tickets == "together" {
			add(o)
			continue
		}
		add(options[i].Departing)
		add(options[i].Returning)
	}
	return links
}

func isWebURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

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
		Body:    map[string]any{"return_search": map[string]any{"capability": capabilityID, "params": params}},
		Links:   []providers.Link{},
		Credits: providers.Credits(0),
	}, nil
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
	options := []map[string]any{}
	for _, o := range ans.BookingOptions {
		if m := optionObject(o); m != nil {
			options = append(options, m)
		}
	}
	if len(options) == 0 {
		return nil, providers.Errorf(providers.CodeNotFound,
			"Google Flights has no booking options for this flight now; it may be sold out or its fare may have changed: run the search again")
	}
	body := map[string]any{
		"currency":             currencyOf(query),
		"requested_passengers": passengers(query),
		"booking_options":      options,
	}
	var selected []map[string]any
	for _, it := range ans.SelectedFlights {
		if m := selectedObject(it); m != nil {
			selected = append(selected, m)
		}
	}
	if len(selected) > 0 {
		body["selected_flights"] = selected
	}
	if bp := ans.BaggagePrices.V; bp != nil {
		bags := map[string]any{}
		for k, v := range *bp {
			if s := nonEmpty(v); len(s) > 0 {
				bags[k] = s
			}
		}
		if len(bags) > 0 {
			body["baggage_prices"] = bags
		}
	}
	if pi := ans.PriceInsights.V; pi != nil {
		m := map[string]any{}
		if pi.LowestPrice.OK {
			m["lowest_price"] = pi.LowestPrice.V
		}
		lenient.SetStr(m, "price_level", string(pi.PriceLevel))
		if len(pi.TypicalPriceRange) == 2 {
			m["typical_price_range"] = []float64(pi.TypicalPriceRange)
		}
		if len(m) > 0 {
			body["price_insights"] = m
		}
	}
	return &providers.Detail{Body: body, Links: bookingLinks(ans, options)}, nil
}

// optionObject maps one booking option: {tickets: together, ...offer} or {tickets: separate,
// departing, returning, price (their sum)}; nil when no seller is named.
func optionObject(o bookingOption) map[string]any {
	if p := partObject(o.Together.V); p != nil {
		p["tickets"] = "together"
		return p
	}
	dep, ret := partObject(o.Departing.V), partObject(o.Returning.V)
	if dep == nil && ret == nil {
		return nil
	}
	m := map[string]any{"tickets": "separate"}
	if dep != nil {
		m["departing"] = dep
	}
	if ret != nil {
		m["returning"] = ret
	}
	if dep != nil && ret != nil {
		a, okA := dep["price"].(float64)
		b, okB := ret["price"].(float64)
		if okA && okB {
			m["price"] = a + b
		}
	}
	return m
}

// partObject maps one seller's offer; nil without a seller name.
func partObject(p *bookingPart) map[string]any {
	if p == nil || p.BookWith == "" {
		return nil
	}
	m := map[string]any{"book_with": string(p.BookWith)}
	lenient.SetBool(m, "airline", p.Airline)
	if p.Price.OK && p.Price.V >= 0 {
		m["price"] = p.Price.V
	}
	lenient.SetStr(m, "option_title", string(p.OptionTitle))
	for key, list := range map[string][]string{"marketed_as": p.MarketedAs, "extensions": p.Extensions, "baggage_prices": p.BaggagePrices} {
		if s := nonEmpty(list); len(s) > 0 {
			m[key] = s
		}
	}
	var local []map[string]any
	for _, lp := range p.LocalPrices {
		if lp.Currency != "" && lp.Price.OK {
			local = append(local, map[string]any{"currency": string(lp.Currency), "price": lp.Price.V})
		}
	}
	if len(local) > 0 {
		m["local_prices"] = local
	}
	if br := p.BookingRequest.V; br != nil && isWebURL(string(br.URL)) {
		r := map[string]any{"url": string(br.URL), "method": "GET"}
		if br.PostData != "" {
			r["method"], r["post_data"] = "POST", string(br.PostData)
		}
		m["booking_request"] = r
	}
	lenient.SetStr(m, "phone", string(p.BookingPhone))
	if p.PhoneFee.OK {
		m["phone_service_fee"] = p.PhoneFee.V
	}
	return m
}

// selectedObject maps one of selected_flights[]: its legs, duration, price and trip type.
func selectedObject(it itinerary) map[string]any {
	legs := legObjects(it.Flights)
	if len(legs) == 0 {
		return nil
	}
	m := map[string]any{"legs": legs}
	if it.TotalDuration.OK && it.TotalDuration.V > 0 {
		m["total_duration"] = duration(it.TotalDuration.V)
	}
	if it.Price.OK {
		m["price"] = it.Price.V
	}
	lenient.SetStr(m, "type", string(it.Type))
	return m
}

// bookingLinks are the Google Flights booking page and every seller link that opens with a plain
// GET (a POST booking request is in the body, not a link).
func bookingLinks(ans bookingAnswer, options []map[string]any) []providers.Link {
	links := []providers.Link{}
	if u := string(ans.SearchMetadata.GoogleFlightsURL); isWebURL(u) {
		links = append(links, providers.Link{Label: "Google Flights booking page", URL: u})
	}
	add := func(part any) {
		p, _ := part.(map[string]any)
		r, _ := p["booking_request"].(map[string]any)
		if r == nil || r["method"] != "GET" {
			return
		}
		links = append(links, providers.Link{Label: "Book with " + p["book_with"].(string), URL: r["url"].(string)})
	}
	for _, o := range options {
		if o["tickets"] == "together" {
			add(o)
			continue
		}
		add(o["departing"])
		add(o["returning"])
	}
	return links
}

func isWebURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

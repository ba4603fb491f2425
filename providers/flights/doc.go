// Package flights adapts Google Flights, read through SerpApi (the shared provider `serpapi`,
// PROVIDER_SERPAPI_URL / PROVIDER_SERPAPI_KEY, key sent as the api_key query parameter), to the
// capability flights.search (spec section 4.17): single result, deadline 15 s, typical credits 4
// ($0.004 per SerpApi search), update not offered, record action details (a provider lookup, 4
// credits when fresh, cached by the gateway on repeat; free for an outbound round-trip record).
//
// # Upstream endpoint
//
// GET {base}/search.json?engine=google_flights (https://serpapi.com/google-flights-api, its
// Flights Results, Price Insights and Booking Options pages):
//
//   - Search: departure_id, arrival_id, outbound_date, type (1 round trip with return_date, 2 one
//     way), adults, children, infants_in_seat, infants_on_lap, travel_class (1 economy, 2 premium
//     economy, 3 business, 4 first), stops (0 any, 1 nonstop only, 2 one stop or fewer, 3 two stops
//     or fewer), currency, hl, and departure_token to list the return flights of a chosen outbound.
//     The answer holds best_flights[] (not always) and other_flights[], each {flights[] (legs:
//     departure_airport / arrival_airport {name, id, time}, duration (minutes), airplane, airline,
//     airline_logo, travel_class, flight_number, legroom, extensions[], ticket_also_sold_by[],
//     overnight, often_delayed_by_over_30_min, plane_and_crew_by), layovers[] {duration, name, id,
//     overnight}, total_duration (minutes), carbon_emissions {this_flight (grams),
//     typical_for_this_route, difference_percent}, price, type, airline_logo, extensions[], and
//     departure_token (an outbound of a round trip) or booking_token}; price_insights
//     {lowest_price, price_level, typical_price_range, price_history}; airports[].
//   - Booking options: the same request with booking_token (never together with
//     departure_token). The answer holds selected_flights[] (itineraries as above),
//     baggage_prices {together[] | departing[], returning[]}, booking_options[] {together |
//     departing + returning + separate_tickets}, each part {book_with, airline, airline_logos[],
//     marketed_as[], price, local_prices[] {currency, price}, baggage_prices[], option_title,
//     extensions[], booking_request {url, post_data}, booking_phone,
//     estimated_phone_service_fee}, and price_insights.
//
// Failures and empty results are mapped by serpapi.Search (HTTP 4xx/5xx with {"error": ...},
// search_metadata.status "Error", the "hasn't returned any results" answer of an empty search).
//
// # Decisions where the spec is silent
//
//   - Rules beyond the schema, each with its violation path: departure_date and return_date must
//     be real calendar dates (/departure_date, /return_date); return_date must not precede
//     departure_date (/return_date; the same day is allowed); destination must differ from origin
//     (/destination); departure_token requires return_date (/departure_token; whether the token
//     belongs to that query cannot be checked: it is opaque); at most nine passengers in total
//     (the violation names the field whose count crosses nine, in the order adults, children,
//     infants_in_seat, infants_on_lap); at most one infant on a lap per adult (/infants_on_lap),
//     the limit Google Flights' passenger picker applies (SerpApi does not document it; Google
//     would answer no flights). Dates in the past are not refused: examples stay valid, and Google
//     then answers no flights (an empty result) or SerpApi an error.
//   - Upstream parameters: origin, destination and currency are upper-cased; type is 1 with
//     return_date, else 2; the four passenger counts are always sent (defaults applied); cabin →
//     travel_class; max_stops n → stops n+1 (omitted: any number of stops); hl=en so SerpApi's
//     texts are English; gl is not sent (SerpApi's default market). The booking request sends the
//     same parameters (without departure_token, which SerpApi refuses with booking_token) plus
//     booking_token: SerpApi says dates and filters do not affect it, passenger counts do.
//   - Records: best_flights first (best: true), then other_flights; an itinerary without a leg
//     that names an airport is dropped. Title "<airlines>: <from> <time> → <to> <time>, <n>
//     stop(s) (<via>)"; snippet: total duration, flight numbers, travel classes and the fare
//     extensions. price is SerpApi's price (for all requested passengers; the round-trip total for
//     round trips) and is left out when absent or negative; currency is the request's;
//     requested_passengers echoes the four counts. stops is the number of connections (legs − 1);
//     total_duration "5h 30m" / "5h" / "45m" with total_duration_min; layovers [{airport, name,
//     duration, duration_min, overnight (only when true)}]; departure / arrival are the first leg's
//     departure and the last leg's arrival local times as Google gives them ("YYYY-MM-DD HH:MM");
//     legs [{from, from_name, departure, to, to_name, arrival, duration, duration_min, airline,
//     flight_number, airplane, travel_class, legroom, overnight, often_delayed_by_over_30_min
//     (flags only when true), operated_by, also_sold_by, extensions}]; emissions_kg is
//     carbon_emissions.this_flight in kg with one decimal, emissions_difference_percent is copied.
//     needs_return_selection is present on round trips only: true for an outbound selection.
//   - Ref is {booking_token | departure_token, query}: the validated request is kept with the
//     token so details never depends on the session's stored query. A record with a booking_token
//     is bookable (details = booking options); a round-trip record with only a departure_token, in
//     a search without departure_token, is an outbound selection (details = return_search). A
//     record with neither (or with a departure_token on a one-way or return-flight search, which
//     SerpApi uses only for multi-city trips, or one too long for the request schema) has no
//     details action.
//   - return_search: {capability: "flights.search", params: the validated original body (defaults
//     included, origin, destination and currency upper-cased) + departure_token}; it is checked
//     against the request schema and rules before it is returned, costs nothing
//     (Detail.Credits 0) and makes no provider call. The gateway still reserves the action's 4
//     credits before running it, so a caller with fewer than 4 credits left gets
//     credits_exhausted even for this free answer (a gateway matter, reported to the lead).
//   - Booking details body: currency, requested_passengers, booking_options [{tickets: together,
//     book_with, airline, price, option_title, marketed_as, extensions, baggage_prices,
//     local_prices, booking_request {url, method GET|POST, post_data}, phone, phone_service_fee} |
//     {tickets: separate, departing {...}, returning {...}, price (their sum when both are
//     priced)}], selected_flights [{legs, total_duration, price, type}], baggage_prices and
//     price_insights {lowest_price, price_level, typical_price_range} when supplied. An option
//     without a seller name is dropped; a booking_request whose url is not http(s) is dropped.
//     Links: the answer's google_flights_url ("Google Flights booking page") and every seller URL
//     that opens with a plain GET (Google's usual booking request is a POST of post_data to
//     https://www.google.com/travel/clk/f: it stays in the body). No options: not_found (the fare
//     may be gone; search again); a SerpApi error without options: provider_error.
//   - notes: what the prices cover on round trips (outbound selection, return flights), and
//     Google's price_insights (price level, typical range, lowest price) when it has a level.
//
// # Sandbox
//
// sandbox/google_flights/ of the serpapi provider: default.json (a one-way CDG → AUS answer, the
// documented one-way example moved to 2027 and trimmed), return.json (return flights picked by
// departure_token, with booking tokens), booking.json (booking options picked by booking_token)
// and roundtrip.json (the round-trip outbound answer with departure tokens). serveSandbox picks
// booking.json and return.json by parameter; a first search always gets default.json, so in the
// sandbox the round-trip example shows the one-way flights (bookable, details = booking.json)
// until the serpapi sandbox selects roundtrip.json for a request with return_date (a one-line
// selector, proposed to the lead). The third example is the round-trip example plus the
// departure_token of roundtrip.json's first flight: exactly the return_search its details returns.
// No empty.json: flights has no q, so the "noresults" rule never applies.
//
// # Checks
//
// providers.md marks nothing about flights.search as "check". Confirmed from SerpApi's Google
// Flights API page (read through a public copy of the page) and its JSON examples: every search
// parameter above, its values and defaults, the departure_token / booking_token rules, the result,
// layover, emissions and price_insights shapes (fixtures follow the documented one-way CDG → AUS
// and round-trip PEK → AUS examples and a real round-trip return answer). Not confirmed from an
// official page: (1) the Booking Options answer (selected_flights, baggage_prices, booking_options
// parts, booking_phone, estimated_phone_service_fee) is taken from public client code that reads
// SerpApi's answer (typed models and test fixtures), not from SerpApi's own page; (2) whether
// departure_id / arrival_id / outbound_date must accompany booking_token (they are sent); (3)
// the wording of SerpApi's no-flights answer (serpapi.Meta.NoResults matches its usual wording);
// (4) Google's lap-infant limit as SerpApi applies it.
package flights

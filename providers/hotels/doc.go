// Package hotels adapts Google Hotels, read through SerpApi (the shared provider `serpapi`,
// PROVIDER_SERPAPI_URL / PROVIDER_SERPAPI_KEY, key sent as the api_key query parameter), to the
// capability hotels.search (spec section 4.18): token paging (SerpApi's next_page_token), deadline
// 15 s, typical credits 4 ($0.004 per SerpApi search page), record action details (a provider
// lookup, 4 credits when fresh, cached by the gateway on repeat).
//
// # Upstream endpoints
//
//   - Search: GET {base}/search.json?engine=google_hotels&q=&check_in_date=&check_out_date=&adults=
//     &children=&children_ages=&currency=&vacation_rentals=&sort_by=&max_price=&rating=&amenities=
//     &next_page_token= (https://serpapi.com/google-hotels-api, /google-hotels-properties). The answer
//     is {search_metadata, search_parameters, search_information{total_results}, brands[], ads[],
//     properties[{type ("hotel" or "vacation rental"), name, description, link, logo, sponsored,
//     eco_certified, property_token, serpapi_property_details_link, gps_coordinates{latitude,
//     longitude}, check_in_time, check_out_time, rate_per_night{lowest, extracted_lowest,
//     before_taxes_fees, extracted_before_taxes_fees}, total_rate{same}, prices[{source, logo,
//     num_guests, rate_per_night}], deal, deal_description, nearby_places[{name, transportations[{type,
//     duration}]}], hotel_class ("4-star hotel"), extracted_hotel_class, images[{thumbnail,
//     original_image}], overall_rating, reviews, ratings[{stars, count}], location_rating,
//     reviews_breakdown[], amenities[], excluded_amenities[], essential_info[] (rentals: "Sleeps 4",
//     "2 bedrooms")}], serpapi_pagination{current_from, current_to, next_page_token, next}}.
//   - Property details: the same engine with property_token and the stay's parameters (the shape of
//     serpapi_property_details_link): GET {base}/search.json?engine=google_hotels&q=&check_in_date=
//     &check_out_date=&adults=&children=&children_ages=&currency=[&vacation_rentals=]&property_token=
//     (https://serpapi.com/google-hotels-property-details). The answer adds to the property fields
//     address, phone, phone_link, featured_prices[{source, link, logo, official, remarks, rooms[{name,
//     link, num_guests, rate_per_night, total_rate}], num_guests, rate_per_night, total_rate}],
//     prices[{source, link, logo, official, num_guests, rate_per_night, total_rate,
//     original_rate_per_night, discount_remarks}], typical_price_range{lowest, extracted_lowest,
//     highest, extracted_highest} and nearby_places[{category, name, link, thumbnail,
//     transportations, rating, reviews, description, gps_coordinates}].
//
// Failures and empty results are mapped by serpapi.Search (HTTP 4xx/5xx with {"error": ...},
// search_metadata.status "Error", the "hasn't returned any results" answer of an empty search, which
// is an empty last page; a 200 answer without properties whose error is something else is a
// provider_error carrying it).
//
// # Decisions where the spec is silent
//
//   - Dates: check_in and check_out must match YYYY-MM-DD (schema) and be real calendar dates (rule,
//     at /check_in and /check_out). check_out must be after check_in (a stay is at least one night;
//     violation at /check_out). check_in must not be in the past, with one day of slack for time zones
//     (today UTC minus one day; at /check_in): SerpApi cannot price past stays. There is no upper
//     bound on how far ahead or how long a stay is. Inspect examples compute their dates when the
//     process starts (30 to 52 days ahead), so they never go stale.
//   - Party: adults 1..10 (default 2); children_ages at most 5 items, each 1..17 (rule, at
//     /children_ages/<i>; SerpApi counts a baby under one as 1). Hotels take at most 6 guests
//     (adults + children): the violation is at /children_ages when children were given, else at
//     /adults. Vacation rentals take at most 10 adults (the schema's own bound) and refuse
//     children_ages (at /children_ages). "At least one adult" is enforced by the schema (minimum 1) and
//     again by the rule. Children are sent as children=<count>&children_ages=<a,b> (SerpApi requires
//     the count to match the ages).
//   - property_type: omitted means hotels (SerpApi's default search); vacation_rental sends
//     vacation_rentals=true. Google's finer property_types, hotel_class, brands, min_price,
//     free_cancellation, bedrooms and bathrooms filters are not exposed: the spec does not list them.
//   - amenities vocabulary: snake_case names mapped to SerpApi's amenity ids, which differ between
//     hotels and vacation rentals. Hotels: free_parking 1, parking 3, indoor_pool 4, outdoor_pool 5,
//     pool 6, fitness_center 7, restaurant 8, free_breakfast 9, spa 10, beach_access 11,
//     child_friendly 12, bar 15, pet_friendly 19, room_service 22, free_wifi 35, air_conditioned 40,
//     all_inclusive 52, wheelchair_accessible 53, ev_charger 61. Vacation rentals: hot_tub 2,
//     air_conditioned 4, outdoor_grill 6, fireplace 10, patio 12, kitchen 15, fitness_center 16,
//     crib 18, beach_access 20, child_friendly 21, pet_friendly 24, free_wifi 29, pool 32. The schema
//     enumerates the union; a name not offered for the request's property type is refused by a rule
//     at /amenities/<i>, naming the accepted list. Duplicates are sent once; ids go comma-separated.
//   - sort: lowest_price → sort_by=3, highest_rating → 8, most_reviewed → 13; relevance sends nothing.
//   - currency: upper-cased and sent as currency; records' currency is the requested one (SerpApi
//     prices in it).
//   - Filters enforced on the page: Google's rating filter only knows 3.5+, 4.0+, 4.5+ (rating=7, 8,
//     9), so the highest threshold not above min_rating is sent (none below 3.5) and the adapter keeps
//     only properties whose overall_rating is at least min_rating. max_price is sent rounded up to a
//     whole unit (never hides a match; 0 is not sent) and the adapter keeps only properties whose
//     price_per_night (rate_per_night.extracted_lowest) is at most max_price. A property without the
//     value (no rating, no price for the stay) is left out while the filter is set; min_rating 0
//     filters nothing. A page that lost properties carries a note; an emptied page keeps has_more.
//   - Paging: state {"token": T, "offset": O} (both omitted on the first page). A caller page is at
//     most 20 properties (spec section 8's hotels bound; Google serves about 20 a page); a provider page
//     holding more is served in several caller pages re-reading the same token (a SerpApi cache hit,
//     billed the typical 4 credits). Otherwise more sends serpapi_pagination.next_page_token with the
//     same search parameters; no token, or an empty page, ends the search.
//   - Records: title is name (an entry without one, or not an object, is dropped); url the property's
//     website (http(s) only); snippet its description, else a rental's essential_info joined with
//     " · ". price_per_night and total_price are the extracted_lowest numbers (with taxes and fees, as
//     Google shows them; negative values are absent); currency is set when either price is; rating
//     overall_rating (0..5); reviews; hotel_class the hotel_class string, else "<n>-star hotel" from
//     extracted_hotel_class; type as Google words it ("hotel", "vacation rental"); amenities the names
//     Google lists; location the property's address when the answer has one (list results usually
//     do not: details carries it); lat, lon from gps_coordinates when in range. requested_occupancy
//     is always {adults, children, children_ages, guests} as asked. occupancy_status is always one of:
//     no_price (no rate for the stay: sold out or not bookable for the party), over_capacity (a
//     rental whose essential_info says "Sleeps N" with N below the party), confirmed (the booking
//     offer behind the lowest nightly rate, or else the first offer stating a guest count, states
//     num_guests equal to the party), different_occupancy (it states another count), requested (a
//     price from a search made for the party, with no offer stating a count: the usual hotel case).
//     occupancy_note explains no_price, over_capacity and different_occupancy.
//   - Ref is {property_token, q, check_in_date, check_out_date, adults, children_ages, currency,
//     vacation_rentals}: details asks Google for the stay and party the record was priced for, even
//     after an update changed the search. A record without a property_token has no details
//     (Actions empty).
//   - details body: name, type, description, address, phone, check_in_time, check_out_time,
//     hotel_class, rating, reviews, location_rating, lat, lon, stay{check_in, check_out, nights},
//     currency, price_per_night, total_price, typical_price_range{lowest, highest},
//     requested_occupancy, occupancy_status, occupancy_note, amenities, nearby_places (up to 10:
//     {name, category, rating, reviews, transportations[{type, duration}]}) and booking_options (up to
//     20, featured_prices first then prices, one per site: {source, price_per_night, total_price,
//     num_guests, official, free_cancellation, link}). Links: "Property website" and up to 10
//     "Book on <site>" links. SerpApi's no-results answer, or an answer without a name, is not_found
//     (provider_error when it carries another error).
//
// # Checks
//
// providers.md marks nothing about hotels.search as "check". Confirmed from SerpApi's pages: the
// parameters q, gl, hl, currency, check_in_date, check_out_date, adults (default 2), children,
// children_ages (1..17, comma-separated, matching children), min_price, max_price, property_types,
// amenities, vacation_rentals, next_page_token and property_token; the amenity id tables (hotels and
// vacation rentals) and property type tables; the properties[], ads[] and property details JSON
// structure overviews (field names and types). Not confirmed from an official page: (1) the sort_by
// values 3 / 8 / 13 and the rating values 7 / 8 / 9 (3.5+ / 4.0+ / 4.5+) come from third-party
// copies of SerpApi's parameter table (scrapeless, allmates) because the stored copy of SerpApi's page
// is cut before them; (2) whether max_price takes decimals (whole units are sent); (3) whether
// prices[].num_guests counts children, and whether featured_prices/prices carry free_cancellation
// (seen in public client code); (4) the wording of Google Hotels' empty answer (the sandbox uses
// "Google Hotels hasn't returned any results for this query."; serpapi.Meta.NoResults matches any
// "hasn't returned any results"); (5) the page size (20 per page as serpapi_pagination.current_to
// shows in a real answer). The test fixtures follow real SerpApi answers found in public repositories
// (a london search and a property details answer, dates moved to 2099); the sandbox fixtures
// (Lisbon) follow the same shapes with illustrative properties.
package hotels

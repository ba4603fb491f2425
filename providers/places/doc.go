// Package places adapts Google Maps, read through SerpApi (the shared provider `serpapi`,
// PROVIDER_SERPAPI_URL / PROVIDER_SERPAPI_KEY, key sent as the api_key query parameter), to the
// capability places.search (spec section 4.27): page paging, deadline 15 s, typical credits 4
// ($0.004 per SerpApi search), record action details (a provider lookup, 4 credits when fresh,
// cached by the gateway on repeat).
//
// # Upstream endpoints
//
//   - GET {base}/search.json?engine=google_maps&type=search&q=&ll=@lat,lon,<zoom>z&hl=&gl=&start=
//     (https://serpapi.com/google-maps-api, /maps-local-results). The answer is {search_metadata,
//     search_parameters, search_information, local_results[{position, title, place_id, data_id,
//     data_cid, reviews_link, photos_link, gps_coordinates{latitude, longitude}, place_id_search,
//     provider_id, rating, reviews, price, type, types, type_id, type_ids, address, open_state, hours,
//     operating_hours{day: hours}, phone, website, description, service_options{option: bool},
//     order_online, thumbnail}], serpapi_pagination{next}}; start is the result offset in steps of 20
//     ("0 (default) is the first page of results, 20 is the 2nd page"); ll "is required when using
//     pagination". A query that names one place is answered with place_results instead of
//     local_results (search_information.local_results_state "Showing results for type: "place"
//     instead of type: "search""). The sandbox and test fixtures default.json / search.json are the
//     documented JSON examples (q=Coffee and q=pizza at @40.7455096,-74.0083012,14z).
//   - GET {base}/search.json?engine=google_maps&type=place&place_id=… (or data_cid=…)&hl=&gl= for
//     details. The docs say place_id or data_cid can be used alone ("type … is not required when using
//     place_id or data_cid", "place_id and data_cid can't be used together", "gl … only affects Place
//     Results API"). The answer's place_results holds title, place_id, data_id, data_cid,
//     gps_coordinates, rating, reviews, price, type (a list there), type_ids, description, menu,
//     service_options, extensions [{category: [values]}], address, website, phone, open_state,
//     plus_code, hours [{day: hours}], … .
//
// Failures and empty results are mapped by serpapi.Search (HTTP 4xx/5xx with {"error": ...},
// search_metadata.status "Error", the "hasn't returned any results" answer of an empty search).
//
// # Decisions where the spec is silent
//
//   - num and the 20-result Google Maps page. A page of this search never spans two Google Maps pages,
//     so each page is exactly one SerpApi call and costs the typical 4 credits. The paging state is
//     {"page": P, "offset": O[, "ll": …]}: Google Maps page P (1-based, sent as start=(P-1)×20, page 1
//     without start) and the index in its local_results where this page starts. A page walks the
//     results from O, applying the filters, until it holds num records or the Google Maps page ends;
//     the next page continues on the same Google Maps page after the last result read, or at page P+1
//     offset 0 when SerpApi's serpapi_pagination.next says there is one. So a page can hold fewer than
//     num records, or none after filtering while has_more is true (spec 4.2 rule 4). Re-reading a
//     Google Maps page for the following page is a SerpApi cache hit for an hour (free upstream),
//     still billed 4 credits here. Paging stops after Google Maps page 20 (start 380): its page reports
//     has_more false and a note when SerpApi still offered a next page.
//   - ll: with location, "@lat,lon,<zoom>z" where zoom is 14 without radius_m (SerpApi's example) and,
//     with radius_m, the largest zoom (3..21) whose map still spans the radius at that latitude, taking
//     a zoom-0 map to span 62×2^21 m at the equator so that the smallest radius, 62 m, is zoom 21.
//     Without location no ll is sent; to page, the ll of SerpApi's next link is kept in the state and
//     sent with start (SerpApi needs ll to page); when the link has none, start is sent alone.
//   - Filters run on every Google Maps result: radius_m is a strict haversine distance from location
//     (Earth mean radius 6,371,008.8 m); results farther or without usable coordinates are dropped.
//     min_rating above 0 drops results without a rating (or with one outside 0..5). open_now keeps only
//     results whose state is known and as asked; the state is read from the first part of open_state
//     (else of hours when it is a string): "Open…", "Closes soon…", "Closing soon…" are open; "Closed…",
//     "Opens…", "Temporarily closed", "Permanently closed" are closed; anything else is unknown and
//     dropped. The wording is Google's English one; with a language not starting with "en" the page
//     carries a note. radius_m without location is refused at /radius_m (also after an update that
//     removes location, since the rules see the merged request).
//   - language is sent as hl, country lower-cased as gl (on the search and on details).
//   - Records: title (a result without one is dropped); url is the Google Maps URLs form
//     https://www.google.com/maps/search/?api=1&query=<title>&query_place_id=<place_id>, else
//     https://maps.google.com/?cid=<data_cid>; snippet is the description. address, phone,
//     open_state, price_level_label (SerpApi's price, e.g. "$$" or "€10–20") and type are copied when
//     non-blank; website only when an http(s) URL; types is types (else the type list of a place
//     answer, else [type]); hours is the weekly hours on one line, Monday first ("Monday 7 AM–5 PM;
//     Tuesday …") from operating_hours or a place answer's hours list; rating (0..5), reviews
//     (integer ≥ 0), coordinates {lat, lon}; distance_m (metres, one decimal) only with location and
//     coordinates; open_now only when the state is known; source is "google_maps" and fetched_at the
//     RFC 3339 UTC time of the call, always. Values of an unexpected JSON type count as absent.
//   - Ref is {"place_id", "data_cid"} (those that look valid); a record with neither has no details.
//     Details send place_id when there is one, else data_cid. The detail body is {title, place_id,
//     data_cid, type, types, description, price_level_label, rating, reviews, contacts{phone,
//     website}, hours{open_state, open_now, weekly[{day, hours}]}, location{address, plus_code,
//     coordinates}, amenities{<category>: [values]}}; amenities come from extensions, plus
//     service_options (the options marked true, by SerpApi's key) when extensions do not list them.
//     Links: the Google Maps page and the website. SerpApi's "no results" answer, or an answer without a
//     titled place_results, is not_found (provider_error when it carries another error message).
//   - A search answered with place_results (one place) gives that one record and a note, no paging.
//
// # Checks
//
// providers.md marks nothing about places.search as "check". Confirmed from SerpApi's pages: the
// search parameters (type, q, ll with zoom, hl, gl, start in steps of 20, place_id / data_cid), the
// local_results shape and serpapi_pagination.next. Not confirmed from an official page: (1) the
// place_results JSON example (the SerpApi place results page could not be read): its shape is taken
// from a real SerpApi answer kept as test data in a public repository (jamie6king/scamradar:
// type and hours as lists, extensions as a list of one-key objects); (2) how SerpApi pages a search
// sent without ll (the adapter follows its next link); (3) the wording of Google Maps' empty answer
// (the sandbox uses the documented Google Search wording); (4) open_state wordings beyond those of
// the documented examples ("Open 24 hours", "Opens soon", "Temporarily closed" are Google Maps'
// usual English labels). sandbox/google_maps/page2.json and place.json and testdata/search_odd.json
// are illustrative places in the documented shape.
package places

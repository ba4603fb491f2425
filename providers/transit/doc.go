// Package transit adapts Google Maps Platform's Routes API (provider `googleroutes`,
// PROVIDER_GOOGLEROUTES_URL / PROVIDER_GOOGLEROUTES_KEY, key sent in the X-Goog-Api-Key header) to
// the capability transit.routes (spec section 4.24): local paging, deadline 40 s, typical credits 4,
// record action details stored at search time (free; the gateway answers 410 once it is gone).
//
// # Upstream endpoint
//
// POST {base}/directions/v2:computeRoutes (developers.google.com/maps/documentation/routes:
// "Get a transit route", reference/rest/v2/TopLevel/computeRoutes, TransitPreferences) with the
// headers X-Goog-Api-Key and X-Goog-FieldMask (fieldMask in routes.go: duration, distanceMeters,
// localizedValues, travelAdvisory.transitFare, warnings, legs.stepsOverview and the steps' travelMode,
// distanceMeters, staticDuration, navigationInstruction, localizedValues and transitDetails, plus
// geocodingResults) and the body {origin, destination (each {address} or {location: {latLng:
// {latitude, longitude}}}), travelMode: TRANSIT, computeAlternativeRoutes: true, departureTime or
// arrivalTime (RFC 3339, sent in UTC), transitPreferences {allowedTravelModes, routingPreference},
// regionCode, languageCode}. The answer is {routes[{legs[{steps[{distanceMeters, staticDuration
// ("123s"), navigationInstruction {maneuver, instructions}, localizedValues {distance, staticDuration},
// travelMode (WALK, TRANSIT), transitDetails {stopDetails {arrivalStop {name, location},
// arrivalTime, departureStop, departureTime}, localizedValues {arrivalTime, departureTime: {time
// {text}, timeZone}}, headsign, headway, transitLine {agencies [{name, phoneNumber, uri}], name,
// nameShort, color, textColor, vehicle {name {text}, type, iconUri}}, stopCount, tripShortText}}],
// stepsOverview {multiModalSegments [{stepStartIndex, stepEndIndex, navigationInstruction,
// travelMode}]}}], distanceMeters, duration, localizedValues {distance, duration, transitFare},
// travelAdvisory {transitFare {currencyCode, units, nanos}}, warnings}], geocodingResults {origin,
// destination: {geocoderStatus, type, placeId}}}; an answer without a route is {}. Errors are
// Google's {"error": {code, message, status, details [{@type, reason, ...}]}}.
//
// # Decisions where the spec is silent
//
//   - Places: strings are sent as {address} (trimmed; Google geocodes them, "lat,lon" text included),
//     {lat, lon} objects as {location: {latLng}}. A geocoderStatus with a non-zero code on a route-less
//     answer is invalid_request at /origin or /destination with Google's message.
//   - time: depart_at → departureTime, arrive_by → arrivalTime (both converted to UTC); omitted → no
//     time (Google departs now). last_available cannot be expressed in the Routes API: nothing is
//     sent (departs now), a note says so and requested_time_status is not_supported. The rule beyond
//     the schema refuses an `at` Go cannot read as RFC 3339 (e.g. 30 February) and an `at` given with
//     last_available, both at /time/at; the schema requires `at` with depart_at and arrive_by, an
//     explicit offset (Z or ±hh:mm) and at most 40 characters. Google's window (7 days back, 100 days
//     ahead) is not checked locally, so examples never age; Google's INVALID_ARGUMENT answer becomes
//     invalid_request at the field its message names.
//   - requested_time_status (always): now (no time), honored (sent, and the itinerary leaves at or
//     after a depart_at time / arrives at or before an arrive_by time, with one minute of tolerance
//     for rounded walking times; also when the itinerary has no timed ride), not_met (sent, but this
//     itinerary leaves earlier / arrives later: Google answered the nearest it had), not_supported
//     (last_available). requested_time is the caller's `at` verbatim, absent otherwise.
//   - preference: best sends nothing, fewer_transfers / less_walking the matching routingPreference;
//     wheelchair_accessible has no Routes API equivalent: nothing is sent and a note says the routes
//     are not checked for step-free access. prefer → allowedTravelModes (tram_and_light_rail →
//     LIGHT_RAIL); Google documents them as the modes to use. country → regionCode (lower-cased),
//     language → languageCode. units are not sent: labels follow Google's inference from the origin.
//   - realtime_status is always "unknown": the Routes API does not say whether its times come from
//     live data or the timetable.
//   - time_window {departure, arrival, time_zone}: leaving the origin = the first ride's departure
//     less the walking steps before it; reaching the destination = the last ride's arrival plus the
//     walking after it (RFC 3339 UTC); time_zone is the first stop's IANA zone. Absent for an
//     itinerary without a timed ride (e.g. walking only).
//   - lines: one entry per ride in riding order: vehicle name and short name ("Bus 014"), or the
//     line's name without a short name ("Metro rail Expo Line"). Titles are "Option N: lines ·
//     duration"; the snippet names each ride's line, boarding stop and time and headsign, then
//     transfers, distance and fare. The record url (and first link) opens the same trip in Google
//     Maps (Maps URLs, travelmode=transit); agency websites (http(s) only) are further links.
//   - details (stored): the record's values plus transfers, fare {currency, amount, label} and
//     warnings, and segments: consecutive non-transit steps merged into one walk segment (summed
//     distance and time; Google's stepsOverview instruction such as "Walk to X" when given), each ride
//     one transit segment (line, line_name, line_short_name, vehicle, vehicle_type, agency, headsign,
//     trip, stops, departure/arrival time (UTC) and local label, time_zone, stop_count,
//     headway_seconds, distance, duration).
//   - Errors: a 400 with reason API_KEY_INVALID, a 401/403 (PERMISSION_DENIED, SERVICE_DISABLED) →
//     provider_error, not retryable ("the Routes API refused this gateway's key"); 400
//     INVALID_ARGUMENT / FAILED_PRECONDITION → invalid_request; 429 RESOURCE_EXHAUSTED keeps the
//     client's mapping (rate_limited with Retry-After, else provider_allowance) and 5xx provider_error,
//     each with Google's message added. An empty answer is an empty page with a note.
//
// # Not confirmed from an official page
//
// The JSON of a full transit response was taken from the reference (field names and types) and a
// public project's recorded response (TransLink, Vancouver); the sandbox itineraries are
// illustrative. Not confirmed: (1) how a place Google cannot geocode is answered (a geocoderStatus on
// an empty answer, as handled, or a 400 naming the origin, also handled); (2) the exact wording of
// Google's refusal of an out-of-window time; (3) whether allowedTravelModes is a strict restriction
// or a preference for transit; (4) which billing SKU a transit request with transitDetails falls in
// and its price; the charge is the spec's typical 4 credits per call whatever the SKU.
package transit

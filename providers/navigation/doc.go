// Package navigation holds navigation.route (spec section 4.7) and navigation.matrix (named in the
// spec without a shape; designed like navigation.route, its shape is written into its inspect
// description): routes and travel-time/distance matrices by car, on foot or by bike, from
// OpenRouteService, with the OSRM demo server as the car-only fallback engine and Nominatim for
// place names.
//
// Upstream endpoints:
//   - OpenRouteService (provider ors, https://api.openrouteservice.org, key required, sent as the
//     Authorization header): POST /v2/directions/{driving-car|foot-walking|cycling-regular}/json
//     with {coordinates: [[lon, lat], ...], instructions: true, alternative_routes: {target_count:
//     3, share_factor: 0.6, weight_factor: 1.4}} (the last only with alternatives), answering
//     {routes[{summary{distance, duration}, segments[{distance, duration, steps[{distance,
//     duration, type, instruction, name, way_points}]}], bbox, geometry, way_points}], bbox,
//     metadata{attribution, service, timestamp, query, engine}}; and POST /v2/matrix/{profile}
//     with {locations, sources, destinations, metrics}, answering {durations, distances (rows per
//     source, null where no route exists), sources, destinations, metadata}. Engine errors are
//     {error: {code, message}, info: {engine, timestamp}}; its API gateway answers {error: "..."}
//     (a bare string) for a missing or refused key and for quota.
//   - OSRM demo server (provider osrm, https://router.project-osrm.org, keyless; identifying
//     User-Agent sent by the client): GET /route/v1/driving/{lon,lat;...}?overview=false&steps=
//     true&alternatives=true|false ({code, routes[{distance, duration, legs[{steps[{distance,
//     duration, name, ref, maneuver{type, modifier, exit}}]}]}], waypoints}) and GET
//     /table/v1/driving/{coordinates}?sources=i;j&destinations=k;l&annotations=duration,distance
//     ({code, durations, distances, sources, destinations}). Failures are HTTP 400 with {code,
//     message} (NoRoute, NoTable, NoSegment, TooBig, InvalidQuery, ...). The list options are
//     written with literal ";" and "," as OSRM documents them.
//   - Nominatim (provider nominatim, https://nominatim.openstreetmap.org, keyless, identifying
//     User-Agent, RequestsPerSecond 1): GET /search?q=&format=jsonv2&limit=1, answering
//     [{place_id, licence, osm_type, osm_id, lat (string), lon (string), category, type,
//     place_rank, importance, addresstype, name, display_name, boundingbox}] ([] when nothing
//     matched); errors are {"error":{"code","message"}}.
//
// Decisions where the spec is silent:
//   - Engine choice: OpenRouteService when it has a key, its breaker is closed and the call
//     succeeds (it gets at most 8 s or half the remaining deadline); otherwise, for mode driving,
//     the OSRM demo server, with a note naming the fallback, why it was used ("car profile only,
//     no service level") and the OpenStreetMap attribution, and records without attribution,
//     license and license_url (the spec lists those "always" for the primary engine). A walking or
//     cycling request without a usable primary engine is refused with capability_unavailable
//     (retryable when the primary is failing, not when it is not configured) rather than answered
//     with a car route. The fallback absorbs provider_error, provider_timeout,
//     service_unavailable, provider_allowance and capability_unavailable (providers.FallbackWorthy);
//     a short rate limit (rate_limited) and refusals of the request itself are returned as they are.
//   - Capability.Providers is [osrm, nominatim]: both keyless with default URLs, so the
//     capabilities are available on the fallback alone; ors only improves them.
//   - Places: a name (geocoded), a "lat, lon" string (taken as coordinates, no geocoding), or
//     {lat, lon}. Each distinct name (case and spaces ignored) is geocoded once per call, and
//     answers are cached in process (bounded map of 2,048 entries, matches a day, misses an hour,
//     safe for concurrent use) because the public geocoder allows one request a second. Names
//     nothing matches are refused after geocoding (the "rules beyond the schema": no static Rules
//     function is declared) with 400 invalid_request and one violation per field (/origin,
//     /waypoints/2, /origins/1), all at once. Geocoding may use the deadline up to 5 s before its
//     end; when Nominatim's one-request-a-second queue does not fit, the call fails with a
//     retryable provider_timeout saying the names geocoded so far are cached. A note names what
//     each name resolved to (display name and coordinates) so a wrong match is visible.
//   - Engine refusals: a point the engine cannot snap (ORS 2010/6010, OSRM NoSegment) is 400
//     invalid_request with a violation at the field(s) its coordinate index came from; requests
//     over an engine's limits (ORS 2004/2017/6004/6020, OSRM TooBig) are 400 invalid_request
//     with the engine's message; "no route" (ORS 2009, OSRM NoRoute/NoTable, an empty routes
//     list) is an empty result with a note for a route, and every pair unroutable for a matrix.
//     Other ORS engine errors are non-retryable provider_error (2099/6099 retryable) and, being
//     provider errors, fall back to OSRM for driving. ORS's quotas (standard plan: 2,000
//     directions a day and 40 a minute; matrices their own daily and per-minute counts) answer the
//     daily quota with HTTP 403 ({"error": "Daily quota reached or API key unauthorized"}):
//     gateway answers mentioning a quota are provider_allowance (driving falls back); other
//     401/403 answers are provider_error naming the refused key. The per-minute limit answers
//     HTTP 429 ({"error": "Rate limit exceeded"}), a sliding 60-second window: rate_limited with
//     the upstream's Retry-After when it sends one (at most 60 s), else 60 s; no fallback.
//   - OSRM demo server policy (Project-OSRM/osrm-backend wiki "Api usage policy" and the FOSSGIS
//     routing servers' terms): at most one request a second, a valid identifying User-Agent, no
//     heavy use, distance tables not allowed, and access may be withdrawn for commercial users.
//     So the osrm provider is throttled to one request a second per process (like Nominatim),
//     the catalog descriptions say the fallback is the public demo, and navigation.matrix never
//     calls /table on it: with the default base URL and no OpenRouteService a matrix is refused
//     with capability_unavailable (hint: PROVIDER_ORS_KEY, or PROVIDER_OSRM_URL to a self-hosted
//     OSRM server, which does answer /table).
//   - Alternatives: up to 3 (ORS target_count 3 with its documented default share and weight
//     factors; OSRM alternatives=true). Both engines compute alternatives only between two points
//     (ORS refuses them with error 2011), so with waypoints they are not asked for and a note
//     says so. ORS limits the distance of alternative routes more tightly than single routes: on
//     its limit error the request is repeated once without alternatives, with a note. A note also
//     says when no alternative was found. Without alternatives only the first route is kept.
//   - Records of navigation.route: title "Route Berlin → Potsdam (driving, 35.5 km)", with
//     " via <waypoints>" (or "via N stops" beyond three) and "Alternative N: A → B (...)" for
//     alternatives; labels are the caller's place text or "lat, lon" (5 decimals), cut at 60
//     characters. distance_km has 2 decimals, duration_min 1; steps counts the turn-by-turn steps
//     of all legs (arrivals at waypoints included). via lists the waypoints when there are any,
//     otherwise up to three main roads (the names travelled longest, in route order); it is left
//     out when empty. The snippet gives distance, duration and main roads. attribution is the
//     answer's metadata.attribution ("openrouteservice.org | OpenStreetMap contributors"),
//     license "ODbL 1.0", license_url https://www.openstreetmap.org/copyright.
//   - details is stored at search time (ActionStored; the gateway answers 410 once gone):
//     {distance_km, duration_min, steps[{instruction, distance_m, duration_s, name}], attribution,
//     license, license_url}; name is left out for ways without one (ORS "-", OSRM ""), the last
//     three with the fallback. Links: the OpenStreetMap copyright page with the primary engine,
//     none with the fallback. OSRM words no instructions: they are built in English from the
//     documented maneuver type, modifier and roundabout exit (a maneuver's own "instruction",
//     which some OSRM-compatible servers add, is used when present); OSRM way names carry their
//     reference ("Stadtring (A 100)"). An ORS step without instruction text is worded from its
//     documented instruction type.
//   - navigation.matrix: body origins and destinations (1..25 places each), mode (default
//     driving), metrics (duration and/or distance, 1..2 unique, default both). One record per
//     pair in origin-then-destination order, titled "A → B", with origin_index and
//     destination_index (positions in the request), duration_min (1 decimal) and distance_km (2
//     decimals) when routable and requested, status "ok" or "unroutable" (a pair missing any
//     requested metric is unroutable and keeps no numbers), engine, and attribution, license and
//     license_url with the primary engine. Identical positions are sent once (locations are
//     deduplicated, and sources/destinations index them). Notes list up to 10 unroutable pairs.
//     No record actions.
//   - Both are single results (more is refused by the gateway), update is not offered, and cost
//     0 credits: ORS's free plan, the OSRM demo server and Nominatim charge nothing per call.
//   - Upstream JSON is decoded leniently (providers/internal/lenient): absent, null or mistyped fields are
//     absent, numbers may be strings (Nominatim's lat and lon are), list entries that do not
//     decode are skipped, matrix cells that are not numbers mean no route. A route summary that
//     is present but empty means zero (ORS leaves zero values out); a route with neither summary
//     nor segments is unusable. A matrix missing or smaller than asked is provider_error.
//
// providers.md marks nothing "check" for these capabilities. What could and could not be
// confirmed:
//   - ORS directions /json shape: testdata/ors_directions_waypoints.json is a recorded answer
//     (engine 7.1.1, three points) quoted in a public script; the matrix shape and the null cells
//     of unroutable pairs are confirmed by a recorded foot-walking answer in public API docs
//     (testdata/ors_matrix_walking.json) and by maintainers in GIScience/openrouteservice issues
//     #191 and #1785; error codes are GIScience/openrouteservice docs/api-reference/error-codes.md;
//     the 2010 and 2011 bodies are quoted from real answers; the 2009 and 2004 message texts, and
//     the 2004 limit for alternative routes, were not confirmed and are written from memory of the
//     engine. The gateway bodies ({"error": "Access to this API has been disallowed"}, "Daily
//     quota reached or API key unauthorized", "Authorization field/api_key missing ...") are
//     quoted from public issues (403 for the daily quota: GIScience/openrouteservice PR #1705,
//     docs/frequently-asked-questions.md "When and how does my quota reset?": 403 daily, 429
//     minutely); the 401 status of the missing-key body was not confirmed. Request body
//     fields follow openrouteservice-py's DirectionsServiceBody and AlternativeRoutes docs;
//     sources and destinations are sent as integers (the ORS docs show index strings; client
//     libraries send integers). ORS's terms of service page could not be retrieved: the
//     attribution is the one ORS puts in its own answers, the license that of OpenStreetMap data.
//   - OSRM: docs/http.md of Project-OSRM/osrm-backend (route, table, status codes, maneuver
//     types and modifiers); testdata/osrm_route.json is a recorded steps=true answer of an OSRM
//     server on a Berlin extract; the annotations=duration,distance option and null cells are
//     confirmed by public clients of the demo server; error bodies (NoSegment, NoRoute) are
//     quoted from OSRM's own tests and client tests. The demo server's exact limits were not
//     confirmed.
//   - Nominatim: the jsonv2 entry shape is a recorded answer quoted in a geocoder library's tests;
//     the error body shape is Nominatim's server code (nominatim_api/server/asgi_adaptor.py).
//   - Sandbox fixtures (sandbox/) follow these shapes field for field, but their values (routes,
//     steps, durations, place ids) are realistic, not recordings. They answer the examples'
//     places (Berlin, Potsdam, Leipzig, Hamburg, Helgoland); sandbox.go generates the answer for
//     any other place and any number of points from them (docs/test-mode.md), and the reserved
//     place Nowhere answers [] as Nominatim answers a miss.
package navigation

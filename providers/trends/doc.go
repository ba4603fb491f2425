// Package trends adapts Google Trends, read through SerpApi (the shared provider `serpapi`,
// PROVIDER_SERPAPI_URL / PROVIDER_SERPAPI_KEY, key sent as the api_key query parameter), to the
// capability trends.search. The spec names it without a shape; it is designed like its nearest
// siblings (markets.quote: single result, one record per asked item, no update) and its shape is
// written into the inspect description: single result, no more, no update, no record actions,
// 2 credits per call, deadline 15 s.
//
// # Upstream endpoint
//
// GET {base}/search.json?engine=google_trends&q=<terms, comma-separated>&data_type=&date=&geo=
// (https://serpapi.com/google-trends-api and its Interest over time, Compared breakdown by region,
// Interest by region and Related queries pages). q takes up to 5 queries, each up to 100
// characters; "The maximum number of queries per search is 5 (this only applies to "Interest over
// time" and "Compared breakdown by region" data_type, other types of data will only accept 1 query
// per search)". data_type: TIMESERIES (single and multiple queries), GEO_MAP (compared breakdown,
// multiple queries only), GEO_MAP_0 (interest by region, single query only), RELATED_QUERIES (single
// query only). date: now 1-H, now 4-H, now 1-d, now 7-d, today 1-m, today 3-m, today 12-m, today 5-y,
// all. geo: a Google Trends location code, worldwide when empty. Answers:
// interest_over_time{timeline_data[{date, timestamp (string), values[{query, value (string),
// extracted_value (number)}]}], averages[{query, value}]}; compared_breakdown_by_region[{geo,
// location, max_value_index, values[{query, value ("43%"), extracted_value}]}];
// interest_by_region[{geo, location, max_value_index, value, extracted_value}]; related_queries{
// rising[], top[] of {query, value ("+4,500%", "Breakout" or "100"), extracted_value, link,
// serpapi_link}}. The sandbox fixtures (sandbox/google_trends/<lower-case data_type>.json) follow these
// documented examples with illustrative values; testdata/timeseries_doc.json is the documented
// TIMESERIES example (three of its five queries, as the page shows them).
//
// Failures and empty results are mapped by serpapi.Search (HTTP 4xx/5xx with {"error": ...},
// search_metadata.status "Error", the "hasn't returned any results" answer).
//
// # Design decisions
//
//   - Body: queries (1..5 distinct terms, 1..100 characters, not blank; rules refuse a comma, since
//     SerpApi splits q on commas, and duplicates ignoring case at /queries/<i>), geo (^[A-Za-z]{2}
//     (-[A-Za-z0-9]{1,3}){0,2}$, upper-cased when sent: US, US-CA, US-CA-807), time_range (past_hour,
//     past_4_hours, past_day, past_7_days, past_30_days, past_90_days, past_12_months, past_5_years,
//     all → the dates above; default past_12_months), data (interest_over_time → TIMESERIES;
//     interest_by_region → GEO_MAP_0 for one query and GEO_MAP for several, the only kinds SerpApi
//     accepts for each; related_queries → RELATED_QUERIES; default interest_over_time). related_queries
//     with more than one query is refused at /queries, where SerpApi would refuse it. Related topics
//     are left out (topic objects are not search terms); hl, tz, cat and gprop are not offered (SerpApi
//     defaults: English labels, tz 420, all categories, web search).
//   - Records: one per query in the order asked, titled with the query (trimmed); url is the Google
//     Trends explore page (q = all queries, for related queries the one query; date; geo); keys query,
//     data, time_range, source ("google_trends") always, geo when given. interest_over_time: points
//     [{date, timestamp (integer), value}] oldest first (at most 1000) and average when averages has the
//     query; interest_by_region: regions [{geo, location, value}] sorted by value, highest first (at
//     most 250), and measure "interest" (one query: 0-100 relative to the top region) or "share"
//     (several: the query's percent of the compared queries' searches in the region);
//     related_queries: top [{query, value}] and rising [{query, value, label}] (at most 25 each; label
//     is Google's text such as "+850%" or "Breakout"). Values are extracted_value, else a numeric value;
//     entries without a number are skipped. A query's value in a values list is found by query_index
//     when SerpApi gives one, else by the query text (case-insensitive), else by position unless that
//     entry names another asked query. The snippet summarises the record (points, latest, peak and
//     average; the three leading regions; the three first top and rising queries).
//   - A query without data gives no record and a note; SerpApi's no-results answer gives no records
//     and a note; an answer without the expected block but with an error message is provider_error.
//
// # Checks
//
// providers.md only names the engine. Confirmed from SerpApi's pages: parameters, data types and
// their query limits, the date values and the four answer shapes above. Not confirmed: the exact
// wording of Google Trends' empty answer (the sandbox uses SerpApi's usual "hasn't returned any
// results" text) and whether timeline values carry query_index in every answer (read when present).
package trends

// Package openalex adapts OpenAlex (https://api.openalex.org, provider id "openalex") to the
// capability academic.search (spec section 4.11): page paging, deadline 15 s, typical credits 0,
// record action details (a free provider lookup).
//
// # Upstream endpoints
//
//   - GET /works?search=&filter=&sort=&page=&per_page=&select= (list works; developers.openalex.org
//     guides "Search", "Filtering", "Sort", "Page through results", "Select fields"). The answer is
//     {meta: {count, db_response_time_ms, page, per_page, groups_count}, results: [Work], group_by}
//     (ourresearch/openalex-elastic-api works/schemas.py, core/schemas.py). select= asks only for
//     the root-level Work fields the records map: id, doi, display_name, title, publication_year,
//     type, primary_location, authorships, cited_by_count, open_access, abstract_inverted_index.
//   - GET /works/{W-id}?select= (get a single work; free for OpenAlex's own metering). A merged
//     work answers 301 to the work it was merged into; the shared client follows the redirect.
//     A missing work answers 404.
//   - Authentication: every live call carries ?api_key=KEY, the deployment's PROVIDER_OPENALEX_KEY
//     (developers.openalex.org "Authentication & Pricing", API key required since 13 February
//     2026). Without a key OpenAlex grants $0.01 of usage a day, so the provider is KeyRequired:
//     academic.search is unavailable to live keys, with a reason naming the setting, until it is
//     set. Test keys use the sandbox.
//   - Cost (same page, "Pricing by Endpoint"): singletons (/works/{id}) are free; list/filter
//     calls cost $0.10 per 1,000; full-text search= calls $1 per 1,000. A free key carries $1 of
//     usage a day (about 1,000 searches), then the account pays as it goes. Every search page is a
//     search= call; details are singletons. The spec's 0 credits are kept; Cost.Basis says this.
//
// # Decisions where the spec is silent
//
//   - filter=: publication_year:A-B for a closed range, publication_year:A when both ends are the
//     same year, publication_year:>A-1 / publication_year:<B+1 (the documented inequality forms)
//     for an open end, and is_oa:true for open_access_only; joined with commas (AND).
//   - sort=: relevance → relevance_score:desc (valid because every call has a search), cited →
//     cited_by_count:desc, recent → publication_date:desc. The query is sent trimmed.
//   - Rule beyond the schema (not in the spec, kept because a reversed range can only answer
//     nothing): from_year must not be after to_year, violation at /from_year. Every body string
//     that must not be blank carries "pattern": "\\S".
//   - Paging state is {"page": N}; per_page is num. has_more is meta.count > page × num on a page
//     with results (without a count: a full page). OpenAlex's basic paging serves page × per_page ≤
//     10,000 and documents page as 1..500, so has_more turns false when the next page would pass
//     either bound, and a note says the rest is unreachable by paging.
//   - Record keys: openalex_id (the W-id from id, with or without the https://openalex.org/
//     prefix); year (publication_year); venue (primary_location.source.display_name); authors
//     (authorships[].author.display_name in order, raw_author_name when OpenAlex matched no
//     author, at most 20); cited_by (cited_by_count, 0 included: it is a real count); type; open_access
//     (open_access.is_oa, false included); oa_url (open_access.oa_url, http(s) only); doi (the bare
//     DOI, without the https://doi.org/ prefix and with its case as OpenAlex gives it). url is
//     https://doi.org/{doi} when the work has a DOI, else its OpenAlex page https://openalex.org/{W-id}.
//     snippet is the abstract rebuilt from abstract_inverted_index, cut at a word to at most 300
//     characters with the "…". A key is left out when OpenAlex has no value; a field of an unexpected
//     JSON type counts as absent and never fails the page. A work without a title is titled
//     "Untitled work W…"; a work with neither title nor id is dropped.
//   - openalex_id is "always" for every work OpenAlex returns with an id (its schema makes id
//     required). A work that nevertheless arrives without a usable W-id keeps its other keys, has
//     no openalex_id and no record actions (Record.Actions is empty), and the details lookup refuses
//     a record without one with invalid_request at /record_id.
//   - Abstracts: every word of the inverted index is placed at each of its positions and the words
//     are joined by single spaces in position order; gaps are skipped, a position claimed twice
//     keeps the word that sorts first, positions of the wrong type are ignored, and at most 20,000
//     words are kept.
//   - details body: openalex_id, openalex_url, title, doi, publication_year, publication_date, type,
//     venue, abstract (full), cited_by_count, counts_by_year (always a list of {year,
//     cited_by_count}, newest first), open_access {is_oa, oa_status, oa_url, and from
//     best_oa_location: pdf_url, license, version}, landing_page_url (primary_location), each only
//     when OpenAlex has it. links: DOI, landing page, open-access PDF, open-access copy and the
//     OpenAlex record, without repeating a URL. A work gone from OpenAlex (404) is not_found.
//   - Errors: OpenAlex documents error bodies as {"error": ..., "message": ...}. A 400 whose message
//     is about the search parameter (the | operator, words starting with !) is invalid_request at
//     /query with a hint; other 400s are provider_error (not retryable) carrying OpenAlex's message.
//     401 (unknown or expired API key) is provider_error, not retryable, with a hint for the
//     operator. 403 is documented as "rate limit exceeded; slow down" and becomes rate_limited
//     (Retry-After 1 s), except a 403 whose body names another cause (OpenAlex's proxy refuses some
//     filters without a key), which is provider_error. 429 is told apart by its body, as
//     the API proxy writes it (ourresearch/openalex-api-proxy src/index.ts; fixtures
//     error_429*.json): "Insufficient budget ... Resets at midnight UTC" (the daily allowance,
//     "429 Daily limit exceeded" on developers.openalex.org/api-reference/errors) is
//     provider_allowance with Retry-After until midnight UTC, whatever the Retry-After header says;
//     error "Plan upgrade required" (a filter or sort of a paid plan) is provider_error, not
//     retryable; any other 429 (the per-second throttle) is rate_limited with its Retry-After (1 s
//     when absent or over a minute). 5xx are retryable provider_error (shared client).
//   - The provider is bounded to 10 requests a second per process (OpenAlex's long-documented burst
//     limit; its newer pages allow 100).
//
// # Checks
//
// providers.md marks nothing about OpenAlex as "check"; the brief asked to check the open-access
// filter. Confirmed: is_oa:true is a works filter (an alias of open_access.is_oa) in the API's source
// (ourresearch/openalex-elastic-api works/fields.py) and in the current filtering guide; the
// publication_year range and inequality forms (core/fields.py RangeField, quickstart and recipes);
// relevance_score needing a search (sort guide); the 10,000-result paging limit and its 400
// "Pagination error." (core/paginate.py); the 400 body shape (app.py error handler); the 401 and 429
// bodies of the API proxy (ourresearch/openalex-api-proxy src/index.ts); the api_key parameter.
// Not confirmed: the "page 1..500" bound appears only in the current paging guide (the API source
// checks only the 10,000 limit), so both are honoured; the 403 "rate limit" body is documented only
// by its meaning, so any 403 that does not name another cause is treated as throttling; the 404
// body of a missing work is documented only as a message ("Work W… not found"; the API's source
// answers Flask's default HTML page), so only the status is read. OpenAlex's pages say that since
// February 2026 an API key is needed for real use (without one the daily allowance is for tests)
// and that searches are metered against the key's free daily allowance; the spec's cost of 0
// credits is kept, and the key is required (above). Sandbox fixtures follow the recorded Work shape; apart from W2741809807 (whose
// abstract is the real one) the W-ids, author ids, citation counts and the abstract texts are
// illustrative summaries and may not match the live index.
package openalex

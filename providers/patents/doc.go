// Package patents adapts Google Patents, read through SerpApi (the shared provider `serpapi`,
// PROVIDER_SERPAPI_URL / PROVIDER_SERPAPI_KEY, key sent as the api_key query parameter), to the
// capability patents.search (spec section 4.29): page paging, deadline 40 s, typical credits 4
// ($0.004 per SerpApi search), record action details (a provider lookup, 4 credits when fresh,
// cached by the gateway on repeat).
//
// # Upstream endpoints
//
//   - GET {base}/search.json?engine=google_patents&q=&num=&page=&country=&status=&type=&inventor=
//     &assignee=&before=&after=&sort= (https://serpapi.com/google-patents-api and
//     /google-patents-organic-results). The answer is {search_metadata, search_parameters,
//     search_information{total_results, total_pages, page_number}, organic_results[{position, rank,
//     patent_id, patent_link, serpapi_link, title, snippet, priority_date, filing_date, grant_date,
//     publication_date, inventor, assignee, publication_number, language, thumbnail, pdf, figures,
//     country_status}], summary{assignee, inventor, cpc}, pagination{current, next}}; the fixtures
//     follow the JSON example of that page (q=(Coffee)).
//   - GET {base}/search.json?engine=google_patents_details&patent_id=patent/<number>/<lang>
//     (https://serpapi.com/google-patents-details-api): {title, type, pdf, publication_number,
//     country, application_number, inventors[{name, link, serpapi_link}], assignees[], priority_date,
//     filing_date, publication_date, family_id, abstract, description_link, claims[], classifications,
//     events, legal_events, worldwide_applications, patent_citations{original[], family_to_family[]},
//     cited_by{original[], family_to_family[]} (entries: publication_number, primary_language,
//     examiner_cited, priority_date, publication_date, assignee_original, title, patent_id,
//     serpapi_link), similar_documents, non_patent_citations, ...}.
//
// Failures and empty results are mapped by serpapi.Search (HTTP 4xx/5xx with {"error": ...},
// search_metadata.status "Error", the "hasn't returned any results" answer of an empty search).
//
// # Decisions where the spec is silent
//
//   - Page size. SerpApi takes num 10..100 while the spec allows 1..25, so the upstream page size is
//     the smallest multiple of num that is at least 10 (num 1..9 → 10..18, e.g. 3 → 12; num ≥ 10 → num).
//     A caller page then never straddles two upstream pages and is always one SerpApi call. The paging
//     state is {"page": P, "offset": O}: SerpApi page P (1-based; page 1 is sent without `page`) and
//     the index in it where the caller page starts. After a page, the next caller page is the same
//     upstream page at O+num while it holds more results, otherwise page P+1 at 0 when SerpApi has a
//     next page: never past search_information.total_pages, else pagination.next (or
//     serpapi_pagination.next), else total_results > P*size. An upstream page shorter than size (Google
//     Patents deduplicates families) is consumed and paging moves on to P+1, so nothing repeats or is
//     skipped; an empty upstream page ends the search (a 200 answer without results whose error is
//     not SerpApi's no-results message is a provider_error carrying that message). Re-reading the
//     same upstream page for the following caller page is a SerpApi cache hit for an hour (cached
//     searches are free upstream), but each page is billed the typical 4 credits.
//   - before / after are sent as type:YYYYMMDD; without a prefix the adapter sends priority:, the
//     date type Google Patents applies by default (SerpApi documents only the prefixed form). The rule
//     beyond the schema rejects dates that are not real calendar dates (month, day of month with leap
//     years, no year 0) at /before and /after, and, when both bounds apply to the same date type, an
//     after later than before at /after (equal dates are accepted). Bounds on different date
//     types are not compared.
//   - countries: each item must be a two-letter office code (^[A-Za-z]{2}$; Google Patents codes
//     offices as WO, EP, US, CN, ...); codes are upper-cased, de-duplicated and sent comma-separated
//     as `country`. status → `status`, patent_type → `type`, inventor/assignee → themselves (trimmed;
//     SerpApi splits several names on commas). sort new/old → `sort`; relevance (or no sort) sends
//     nothing, SerpApi's default order. query, inventor and assignee also carry "pattern": "\\S".
//   - Records: title and snippet with HTML entities decoded (SerpApi keeps "&hellip;"), a blank title
//     falls back to the publication number; url is patent_link (http(s) only), else
//     https://patents.google.com/<patent_id>. publication_number falls back to the number inside
//     patent_id; a result with neither, or a Google Scholar result (is_scholar), is dropped, so a page
//     can hold fewer than num records. priority_date, filing_date, publication_date, inventor,
//     assignee and language are copied when non-empty strings, pdf when an http(s) URL; grant_date,
//     thumbnails, figures and country_status are not record keys of the spec and are left out.
//     source is always "google_patents". Values of an unexpected JSON type count as absent.
//   - Ref is {"patent_id": "patent/<number>/<lang>"} (or patent/<number>, which the details engine
//     also accepts, when the result had no usable patent_id); a record without one has no details
//     action.
//   - details body: patent_id, publication_number, title, type, country, application_number,
//     family_id, priority_date, filing_date, publication_date, abstract (strings, when supplied),
//     inventors and assignees (names), claims (the first 20, entities decoded) with claims_total, and
//     citations{patent_citations, cited_by} each {total, family_to_family_total, entries (up to 20 of
//     original, or of family_to_family when original is empty: publication_number, title,
//     priority_date, publication_date, assignee, examiner_cited, url)} when supplied. Links: the
//     Google Patents page and the PDF (the details pdf, else the record's). SerpApi's "no results"
//     answer, or an answer with nothing usable, is not_found.
//
// # Checks
//
// providers.md marks nothing about patents.search as "check". Confirmed from SerpApi's pages: the
// parameters q, page, num (10..100), sort (new, old), before/after (type:YYYYMMDD with type
// priority, filing or publication), inventor, assignee, country (comma-separated), status (GRANT,
// APPLICATION), type (PATENT, DESIGN) and the organic result, summary and pagination shapes; the
// details engine's patent_id forms. Not confirmed: (1) whether `page` is 1-based: the parameter
// text says "1 (default) is the first page", but the page's JSON example shows page_number 0 and a
// serpapi_pagination.next with page=1 for the second page; the adapter follows the parameter text
// and never sends page=1. (2) What SerpApi does with an unprefixed before/after. (3) The details
// engine's full JSON example could not be read: its fields are taken from the brief, the page's
// parameter text and public client code (a SerpApi-to-SQLite loader's DAOs and the test data of
// SoftwareStartups/google-patents-mcp); the exact description_link form and the answer for an
// unknown patent_id are unconfirmed. (4) The wording of Google Patents' empty answer (the sandbox
// uses the documented Google Search wording). Sandbox and test fixtures keep these shapes; their
// patents beyond the documented example are illustrative.
package patents

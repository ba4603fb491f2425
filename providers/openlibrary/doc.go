// Package openlibrary adapts Open Library (https://openlibrary.org, provider id "openlibrary",
// keyless) to the capability books.search (spec section 4.15): page paging, deadline 15 s,
// typical credits 0, record action details (a free provider lookup).
//
// # Upstream endpoints
//
//   - GET /search.json?q=&author=&subject=&page=&limit=&fields= (Search API,
//     https://openlibrary.org/dev/docs/api/search). fields= asks only for the Solr fields the
//     records map: key, title, author_name, first_publish_year, edition_count, ratings_average,
//     subject, isbn, cover_i. The answer is {numFound, start, numFoundExact, num_found,
//     documentation_url, q, offset, docs[]} (the FastAPI handler openlibrary/fastapi/search.py of
//     internetarchive/openlibrary; field types from openlibrary/solr/solr_types.py).
//   - Covers: https://covers.openlibrary.org/b/id/{cover_i}-M.jpg (record cover_url) and -L.jpg
//     (detail link). Covers fetched by cover id are not rate limited by Open Library; the adapter
//     never calls the covers host itself.
//   - GET /works/{OLID}.json (Works API): description is a string or {"type": "/type/text",
//     "value": ...}; a merged work answers {"type": {"key": "/type/redirect"}, "location": ...}
//     and is followed (at most 3 hops); a missing work answers 404 {"error": "notfound", "key": ...}.
//   - GET /works/{OLID}/editions.json?limit=50 (the work's editions: {links, size, entries[]};
//     entries are raw edition records with isbn_10 / isbn_13 arrays); a 404 there means no editions.
//
// # Decisions where the spec is silent
//
//   - All three filters go to Open Library as their own parameters (q, author, subject), so a work
//     must match all that are given; values are sent trimmed. Every body string also carries
//     "pattern": "\\S" (a blank query, author or subject means nothing).
//   - Open Library refuses a free-text q shorter than 3 characters (and the single word "the") with
//     422: FastAPI's {"detail": [{"loc": ["query", "q"], "msg": ...}]} today, {"error": ...} from the
//     older web.py handler. Both become invalid_request with a violation at /query and a hint; the
//     schema keeps the spec's 1..300 limit, so the upstream stays the judge of what it accepts.
//     Other 422 details, a 200 answer carrying "error", and 4xx statuses are provider_error.
//   - Paging state is {"page": N}; has_more is numFound > page*num, and false on a page without
//     docs (so a caller never loops on an empty tail).
//   - Record keys: authors (author_name, trimmed, de-duplicated); first_published
//     (first_publish_year); editions (edition_count); rating (ratings_average rounded to 2
//     decimals; absent when 0 or missing); subjects (first 10 distinct subject values); isbn (the
//     first ISBN-13 in the work's isbn list, else the first well-formed ISBN-10); cover_url (cover_i
//     when positive: Open Library uses -1 for "no cover"). A key is left out when Open Library has
//     no value. url is the work page on openlibrary.org. A doc without a title but with a work key
//     is titled "Untitled work OL…W"; a doc with neither is dropped. A record without a usable work
//     key (OL<digits>W) gets no details action. Fields of an unexpected JSON type are treated as
//     absent rather than failing the page.
//   - details body: key, url, title, description, subjects (first 25 distinct), first_publish_date,
//     edition_count (editions.json size), editions (up to 10 of the first 50 editions that carry an
//     ISBN: key, url, title, publishers, publish_date, isbn_13, isbn_10, number_of_pages,
//     physical_format, each only when present; always an array, possibly empty). links: the work
//     page, the first positive cover id as a large cover image, and up to 10 http(s) external links
//     the work lists. A work gone from Open Library (404, "notfound", /type/delete) is not_found.
//     If the editions call fails otherwise, the lookup fails (so a partial detail is never cached).
//   - Record URLs and links always point to the public site https://openlibrary.org, whatever base
//     URL a deployment configures for API calls.
//
// # Checks
//
// providers.md marks nothing about Open Library as "check". Confirmed from Open Library's source
// (internetarchive/openlibrary): the search.json parameters, response members and the 3-character
// rule; the editions.json shape and its limit default of 50 (max 1000); the Solr field names and
// types. Not confirmed from an official page: the request-rate allowance (third-party pages cite
// 3 requests a second for clients sending an identifying User-Agent; the provider is bounded to 3
// a second, fleet wide with Redis). Open Library's developer pages ask API clients to send a
// User-Agent with the application's name and a contact email (openlibrary.org/developers/api;
// its staff's published examples use "MyAppName/1.0 (myemail@example.com)"): the provider is
// ContactRequired, unavailable to live keys until GATEWAY_CONTACT is set and the exact 404 body of /works/{OLID}.json (taken from client test
// fixtures). Sandbox fixtures follow these shapes; their OLIDs, cover ids and counts are
// illustrative and may not match the live catalog.
package openlibrary

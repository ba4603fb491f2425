// Package websearch holds web.search (spec section 4.10) and news.search (named in spec section 1
// without a shape; designed like web.search, its shape is written into its inspect Description).
// Both read Google through the shared SerpApi provider (provider id "serpapi", api_key query
// parameter), topic "Web and news", deadline 15 s, typical cost 1 credit, record action read.
//
// # Upstream endpoints
//
//   - web.search: GET {serpapi}/search.json?engine=google&q=&start=&gl=&hl=&tbs=&output=json
//     (https://serpapi.com/search-api; parameter list as in serpapi/serpapi-mcp engines/google.json).
//     Records come from organic_results (https://serpapi.com/organic-results), answer_box
//     (https://serpapi.com/direct-answer-box-api: one object, or an array as its overview shows) and
//     knowledge_graph (https://serpapi.com/knowledge-graph); the next page from
//     serpapi_pagination.next / pagination.next (https://serpapi.com/pagination).
//   - news.search: GET {serpapi}/search.json?engine=google_news&q=&gl=&hl=&output=json
//     (https://serpapi.com/google-news-api; serpapi/serpapi-mcp engines/google_news.json). Records
//     come from news_results, whose entries are articles, story clusters ({highlight, stories}) or,
//     on full-coverage pages, sections ({title, stories}).
//   - Failures go through serpapi.Search: HTTP 4xx/5xx with {"error": …}, HTTP 200 with
//     search_metadata.status "Error", 429 "run out of searches" as provider_allowance. A successful
//     search whose error says Google (News) "hasn't returned any results" is an empty page.
//   - read calls ReadPage (read.go): web.read's guarded reader
//     (providers/upstream/pageread.Read: GET {reader}/{url}, Accept: text/markdown, optional Bearer key).
//
// # Decisions where the spec is silent
//
//   - num on SerpApi's google engine is no longer sent: Google stopped honouring it in 2025 and
//     SerpApi removed it from the engine (its client libraries and MCP server dropped it; the
//     engine's parameter list has only start for pagination). The page size is applied here: each
//     page shows the first num organic results of the upstream answer and the next page starts at
//     start + the results shown, so start = (page-1)*num whenever Google fills the page, and no
//     result is skipped when it answers fewer (num above 10: Google serves about 10 per request,
//     the page then holds fewer results than num and a note says so). The paging state is
//     {"page", "start"}; has_more is true when results were held back or SerpApi has a next page,
//     and never on a page without organic results.
//   - position is the absolute organic rank start+i+1 (counted across pages), not SerpApi's
//     per-request position. date is Google's displayed date string, unparsed ("Aug 21, 2024",
//     "2 hours ago").
//   - Answer box and knowledge graph records come first and only on the first page, in addition
//     to the num organic results. An answer box is titled by its title, question, answer or result
//     (else its type and location, "Weather: Dallas, TX", else "Answer"); its snippet is its snippet,
//     answer or result; url is its link. A knowledge graph record takes title, url (website, else
//     source.link), snippet (description), type, and attributes: every non-empty string member other
//     than the known ones (title, type, kgmid, description, website, image, thumbnail, entity_type,
//     source, knowledge_graph_search_link) and Google's *_link(s) / *_stick members.
//   - Provider-shaped extra keys: the remaining members of the answer box / knowledge graph, minus
//     SerpApi's own serpapi_* links (they need this deployment's key), *_stick tokens, the knowledge
//     graph's Google *_link(s) search links, inline data: images, nulls and empty values
//     (recursively), any value whose JSON exceeds 4 KiB, and whatever exceeds 16 KiB per record.
//     Extra keys never overwrite record keys (title, url, snippet, kind, position, type, attributes).
//   - country and language go upstream lower-cased (gl, hl) as SerpApi lists them. language also
//     has the pattern ^[A-Za-z]{2,3}(-[A-Za-z]{2})?$ within the spec's 2..5 characters (en, de,
//     pt-br, zh-tw, haw), so a value with spaces or symbols is refused up front.
//   - news.search: query 1..500 (pattern \S), num 1..20 default 10, country, language and
//     time_range as web.search. time_range is sent as Google News' when: operator appended to q
//     (day when:1d, week when:7d, month when:30d, year when:1y; the google_news engine has no tbs
//     or date parameter, and its q documents when:). Rule beyond the schema: a query that already
//     carries when: cannot also set time_range (violation at /time_range).
//   - news.search paging is local: the google_news engine has no pagination parameter and answers
//     its whole list at once, so the search returns the whole flattened set in one page (has_more
//     false) and the gateway slices it by num; more is free. Flattening, in Google News' order: a
//     cluster's highlight, the entry itself when it is an article, then its stories; section
//     headings ({title, stories} without a source) are not articles; an article listed twice (by
//     link) appears once; at most 100 articles. An article needs a web link and a title (else the
//     first 120 characters of its snippet: posts on X have no title).
//   - news records: source is source.name, else author.name (posts on X), else the link's host
//     without www.; published_at is RFC 3339 UTC, from iso_date when present, else parsed from
//     Google News' "MM/DD/YYYY, hh:mm AM, +hhmm ZONE" date, else the date string as given;
//     thumbnail only when it is a web URL.
//   - read (ActionLookup, 5 credits = $0.005 per page for both capabilities, cached by the
//     gateway): Ref is {"url"} of the record's link; records without a web link get Actions [] so
//     read is refused. "reader" is not listed in Providers, so both searches stay available when
//     only SerpApi is configured; read itself answers capability_unavailable without the reader.
//   - Sandbox fixtures live in providers/upstream/serpapi/sandbox/google/ (default, page2, empty) and
//     providers/upstream/serpapi/sandbox/google_news/ (default, empty). The shared sandbox answers any
//     google query containing site: with site.json (pypkg.search's fixture), so web.search's
//     examples avoid site:.
//
// # Checks
//
// providers.md marks the google_news engine "check". Confirmed from SerpApi's Google News API page
// and its MCP engine schema: engine=google_news, q (with site: and when: documented), gl, hl, the
// news_results shape (position, title, snippet, source {name, icon, authors}, author, link,
// thumbnail, date, highlight, stories, story_token) and the "Google News hasn't returned any results
// for this query." answer; no start/num/page parameter exists. Not confirmed: an iso_date member
// on Google News results (read when present, never required); which when: values Google News
// accepts (SerpApi documents the operator, not its values; 1d, 7d, 30d and 1y follow the
// common when:<n><h|d|y> form and were not tested against Google News). Fixture values (ids,
// thumbnails, article URLs) are realistic but not recordings of today's results.
package websearch

// Package commerce adapts three SerpApi engines (the shared provider `serpapi`,
// PROVIDER_SERPAPI_URL / PROVIDER_SERPAPI_KEY, key sent as the api_key query parameter) to the
// "Commerce and markets" capabilities shopping.search (spec 4.28), jobs.search (spec 4.22) and
// markets.quote (named only in the spec; designed here). Failures, SerpApi's HTTP 200
// search_metadata.status "Error" and its "hasn't returned any results" answer are mapped by
// serpapi.Search; an empty search is an empty page.
//
// # Upstream endpoints
//
//   - shopping.search: GET {base}/search.json?engine=google_shopping&q=&gl=&hl=&location=&shoprs=
//     &min_price=&max_price=&sort_by=&start= (https://serpapi.com/google-shopping-api and
//     /google-shopping-new-layout). Answer: {search_metadata, search_parameters, search_information,
//     filters[{type, options[{text, shoprs, serpapi_link}]}], shopping_results[{position, title,
//     product_id, product_link, immersive_product_page_token, serpapi_immersive_product_api, source,
//     source_icon, price, extracted_price, old_price, extracted_old_price, rating, reviews, snippet,
//     extensions, thumbnail, tag, delivery, second_hand_condition, multiple_sources}],
//     serpapi_pagination{next}}.
//   - shopping.search details: GET {base}/search.json?engine=google_immersive_product&page_token=
//     &more_stores=true[&gl=&hl=]. SerpApi's google_product engine (product_id) is shut down: its page
//     says Google closed the product pages and points to the immersive product engine. Answer:
//     product_results{product_id, title, brand, rating, reviews, stores[{name, title, link, price,
//     extracted_price, original_price, shipping, total, extracted_total, tag, details_and_offers,
//     rating, reviews}], about_the_product{title, description, features[{title, value}]}}.
//   - jobs.search: GET {base}/search.json?engine=google_jobs&q=&gl=&hl=&location=&next_page_token=
//     (https://serpapi.com/google-jobs-api). Answer: jobs_results[{title, company_name, location, via,
//     share_link, thumbnail, extensions[], detected_extensions{posted_at, schedule_type, salary, ...},
//     description, job_highlights[{title, items[]}], apply_options[{title, link}], job_id}],
//     serpapi_pagination{next_page_token, next}.
//   - markets.quote: GET {base}/search.json?engine=google_finance&q=TICKER:EXCHANGE[&window=]
//     (https://serpapi.com/google-finance-api). Answer: summary{title, stock, exchange, price,
//     extracted_price, currency, price_movement{percentage, value, movement}, date, extensions[],
//     market{trading, price, extracted_price, price_movement}}, graph[{price, currency, date, volume}],
//     knowledge_graph{key_stats{tags[], stats[{label, description, value}]}}, markets, news_results.
//
// # Decisions where the spec is silent
//
// shopping.search
//   - Paging: google_shopping's new layout has no num (about 40 to 60 results a page) and pages with
//     start (0, 60, ...). The paging state is {"start": S, "offset": O}: the upstream page at start S
//     and the index in it where the caller's page begins. A caller page never spans two upstream
//     pages; the next caller page is the same upstream page at O+num while it holds more results (a
//     SerpApi cache hit for an hour, free upstream, but billed the typical 4 credits), else the start
//     of serpapi_pagination.next (S + the page's length when the link has no start). No next link
//     ends the search.
//   - filters[]: every filters[].options[] entry with a shoprs token becomes {id: the shoprs token,
//     label: text, group: type} (ids are opaque and deduplicated; options without a token, such as a
//     free price range input, are left out; a group without a type is "Filter"). filter_id is sent
//     back as shoprs together with q. filters[] is on every page, empty when none.
//   - Rules: filter_id present on execute (even null) is refused at /filter_id. On update, a
//     filter_id sent with a change (a different value, or null removing it) of query, country,
//     language or location is refused at /filter_id, before its membership check against the
//     filters[] of the search's last page. filter_id with sort or condition in the merged query is
//     refused at /filter_id when the params carry the filter, else at /sort or /condition (the field
//     the caller added to a stored filter). price_min > price_max is refused at /price_min (equal is
//     fine). Merge (shallow, null removes) drops a stored filter_id when one of those four fields
//     changes and the params do not carry filter_id.
//   - condition: google_shopping has no condition parameter; SerpApi documents that the new layout
//     understands natural-language refinements in q, so "used" / "new" is appended to q. sort:
//     sort_by 1 (price low to high), 2 (price high to low): SerpApi's google_shopping sort_by has
//     only those two values. rating_high_to_low has none: the search runs unsorted, and when its
//     filters[] hold a "Sort by" group with a rating (or review) option carrying a shoprs token,
//     the search is repeated with shoprs=<that token> (a second SerpApi search, billed as one
//     page) and the token is kept in the paging state {start, offset, sort_token} so later pages
//     stay in that order; without such an option the call is refused with invalid_request at
//     /sort naming price_low_to_high and price_high_to_low. Google's new-layout "Sort by" group
//     ({"type": "Sort by", "options": [{"text": "Price: low to high", "shoprs", "serpapi_link"},
//     {"text": "Price: high to low", ...}]}) is the shape recorded in public SerpApi answers
//     (testdata/shopping_sort_by_price.json follows it); a rating option was not seen in them, so
//     testdata/shopping_sort_by_rating.json adds one in the same shape to test that path. price_min /
//     price_max → min_price / max_price (which SerpApi says override a price filter of shoprs).
//   - Records: title required (entries without one are dropped); url is product_link, else link
//     (http(s) only); snippet when supplied. price is extracted_price (a number only), price_display
//     price, seller source, delivery, condition second_hand_condition, else a tag that names a
//     condition (Used, Refurbished, Open box, Renewed, Pre-owned, New), never a sale tag; rating
//     0..5; reviews integer; source always "google_shopping". Ref is {page_token, product_id}; the
//     token is immersive_product_page_token or the page_token of serpapi_immersive_product_api. A
//     record without one has no details (Actions empty).
//   - details body: {title, brand, rating, reviews, description, specifications[{name, value}] (up to
//     50, from about_the_product.features), offers[{merchant, title, price, extracted_price,
//     original_price, shipping, total, extracted_total, tag, rating, reviews, details, link}] (up to
//     20)}; links: the product page and up to 10 offer links. An empty answer is not_found.
//
// jobs.search
//   - google_jobs answers 10 listings a page and pages with next_page_token. The paging state is
//     {"token": T, "offset": O} (T empty for the first page): a caller page is a slice of one upstream
//     page (the same token re-read while it holds more, a SerpApi cache hit), then the page of
//     serpapi_pagination.next_page_token. With num above 10 a page holds at most the rest of one
//     upstream page and carries a note saying so; nothing is skipped or repeated. One upstream call
//     per caller page keeps the cost at the typical 4 credits.
//   - Records: title (or "Job at <company>"; a listing with neither is dropped), url share_link (else
//     the first apply link), snippet the first 300 characters of the description; company
//     company_name, location, posted_at / schedule / salary from detected_extensions
//     (posted_at, schedule_type, salary); source is via without its "via " prefix, "google_jobs" when
//     the listing has no via (source is "always" in the spec).
//   - details (stored): {title, company, job_id, description, highlights[{title, items}],
//     apply_options[{title, link}] (http(s) links only; a missing title is "Apply"), extensions};
//     links: the Google listing and each application link.
//
// markets.quote (shape written into its Description)
//   - Body: symbols (1..10, pattern ^[A-Za-z0-9.\-]{1,15}(:[A-Za-z0-9.\-]{1,15})?$, uniqueItems, and a
//     rule refusing duplicates that differ only in case at /symbols/<i>), window (1D|5D|1M|6M|YTD|1Y|
//     5Y|MAX, default 1D). Symbols are upper-cased and sent as q. Single result, no update, deadline
//     15 s (the spec's default; markets.quote is not in its table).
//   - One SerpApi call per symbol, at most 4 in flight; the first failure (allowance, key, SerpApi
//     error) fails the call and cancels the others. A symbol whose answer is "no results" or has no
//     summary yields a note and no record.
//   - window 1D is not sent: it is SerpApi's default, and sending window makes SerpApi serve only
//     summary and graph, which would drop knowledge_graph.key_stats and so previous_close. Other
//     windows are sent; previous_close is then absent.
//   - Record: title "<summary.title> (<stock>:<exchange>)", url the Google Finance quote page; symbol
//     (as asked, upper-cased, always; an extra key so callers can match records to symbols), price
//     (extracted_price, else the number in price), currency (summary.currency when it is an ISO code,
//     else the first graph point's ISO code; "$" alone is not kept), change and change_percent
//     (price_movement value / percentage, negative when movement is "Down"), previous_close (key_stats
//     "Previous close"), market_state (summary.market.trading, else the "Closed" / "Open" prefix of
//     summary.extensions, normalized to open, closed, pre_market, after_hours), as_of (summary.date,
//     else the last graph point's date), source "google_finance" (always).
//   - Cost: 1 credit per call whatever the number of symbols, as the brief fixes it ("1 credit per
//     call"), although the upstream runs one SerpApi search per symbol. Details (stored, free):
//     {symbol, window, series[{price, currency, date, volume}] (up to 2,000 points), key_stats[{label,
//     value}] (window 1D only)}.
//
// # Checks and what is not confirmed
//
// providers.md marks nothing about these three as "check"; it names "google_product / immersive
// product" for details, and the immersive product engine is the one in use (google_product is shut
// down). Confirmed from SerpApi's pages: google_shopping's q, gl, hl, location, shoprs (and that it is
// the filters[].options[].shoprs token), min_price, max_price, start (60 per page), the absence of num
// in the new layout, serpapi_pagination.next and the shopping_results fields; google_immersive_product's
// page_token and more_stores; google_jobs' q, gl, hl, location, next_page_token and its result fields;
// google_finance's q, hl, window values and that window restricts the answer to summary and graph.
// Not confirmed: (1) the wording of a rating option in Google's "Sort by" filters (matched by
// "rating" or "review" in its text); (2) google_shopping's exact error
// wording for an empty search (the sandbox uses Google Search's documented wording); (3) the full
// JSON example of the immersive product page (store and about_the_product fields are taken from
// public client code and tests that parse SerpApi answers); (4) google_finance's summary.date and
// summary.market fields and its unknown-symbol answer (assumed to be SerpApi's "hasn't returned any
// results" error); the currency of summary is a symbol ("$") in public fixtures, hence the ISO fallback
// to graph. Sandbox fixtures (providers/upstream/serpapi/sandbox/google_shopping, google_immersive_product,
// google_jobs, google_finance) follow these shapes; their data is illustrative. The sandbox answers
// every symbol with the same GOOGL quote (its router does not select by q), except a symbol containing
// "noresults".
//
// Reported, not changed (providers/upstream/serpapi is not this package's): serpapi.go's sandbox selector
// "immersive_product_page_token" → product.json is not the parameter the immersive product engine
// takes (page_token, which the sandbox treats as a paging parameter), so the immersive product fixture
// is google_immersive_product/default.json.
package commerce

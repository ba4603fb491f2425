// Package edgar adapts SEC EDGAR to the capability companies.financials (spec section 4.20):
// a company's periodic reports, and the facts a filing reports in its XBRL. Local paging
// (the whole result in one page; the gateway slices it by num), deadline 40 s, cost 0, record
// actions details, financials and revenue_breakdown (lookups with Credits 0, cached by the
// gateway on repeat).
//
// # Providers
//
// EDGAR answers on two hosts, modelled as two keyless providers so that each can be pointed at a
// mirror (PROVIDER_SEC_URL, PROVIDER_SECDATA_URL) and the sandbox answers both:
//
//   - sec, https://www.sec.gov: the ticker map and the filing archives.
//   - secdata, https://data.sec.gov: the submissions API.
//
// EDGAR's fair-access policy (sec.gov/os/accessing-edgar-data, "Fair Access") allows 10 requests
// a second per client "regardless of the number of machines used", across its hosts: both
// providers draw on one allowance (LimitGroup "sec", paced at 8 a second, under SEC's 10), held in Redis when the gateway
// runs as a fleet, so all instances together stay within it (e2e TestUpstreamPacingAcrossInstances).
// The same page requires a User-Agent declaring the company and an admin contact (its example:
// "Sample Company Name AdminContact@<sample company domain>.com") and blocks others as an
// "Undeclared Automated Tool": both providers are ContactRequired, unavailable to live keys until
// GATEWAY_CONTACT is set, and then send capgate/<version> (+contact). The archive host's response limit is 64 MiB (instances of large
// filers exceed the 8 MiB metadata limit of other capabilities), the submissions host's 32 MiB.
//
// # Upstream endpoints
//
//   - GET {sec}/files/company_tickers.json: {"0": {"cik_str": 320193, "ticker": "AAPL",
//     "title": "Apple Inc."}, ...}. Read only for a ticker, reused for an hour per base URL.
//   - GET {secdata}/submissions/CIK##########.json (10-digit CIK): {cik, entityType, sic, name,
//     tickers, exchanges, ..., filings: {recent: {accessionNumber[], filingDate[], reportDate[],
//     acceptanceDateTime[], act[], form[], fileNumber[], filmNumber[], items[], core_type[], size[],
//     isXBRL[], isInlineXBRL[], primaryDocument[], primaryDocDescription[]} (parallel arrays),
//     files: [{name, filingCount, filingFrom, filingTo}]}}. An unknown CIK is a 404 (an S3
//     NoSuchKey XML body).
//   - GET {secdata}/submissions/CIK##########-submissions-NNN.json: an older page, whose body is
//     the bare parallel arrays.
//   - GET {sec}/Archives/edgar/data/{cik}/{accession without dashes}/index.json: {"directory":
//     {"item": [{"last-modified", "name", "type", "size"}], "name", "parent-dir"}}; 404 when the
//     filing is not the filer's.
//   - GET {sec}/Archives/edgar/data/{cik}/{folder}/{instance}: the XBRL instance, *_htm.xml (the
//     instance EDGAR extracts from an inline XBRL filing) or a classic .xml instance; and
//     {prefix}_lab.xml, the label linkbase.
//
// EDGAR answers a client over its rate, or without a declared User-Agent, with 403 and a page
// titled "Request Rate Threshold Exceeded" / "Undeclared Automated Tool" and keeps it out for about
// ten minutes: that is rate_limited with Retry-After 600 s. Other 403s and 5xx are provider_error.
//
// # Decisions where the spec is silent
//
//   - Ticker uniqueness: tickers are compared case-insensitively with "." and "-" the same
//     (callers write BRK.B, the map writes BRK-B). A ticker is accepted when all its entries in
//     company_tickers.json carry one CIK (share classes of one filer, BRK-A and BRK-B, are one
//     filer); entries with two or more distinct CIKs, or none, are refused at /company/ticker with
//     a message naming the CIKs and telling the caller to use the CIK. This needs the ticker map,
//     so it is checked when the search runs, not in Rules.
//   - The other rules beyond the schema (Rules): a CIK above 0 (/company/cik); filed_from and
//     filed_to real calendar dates (/filed_from, /filed_to), filed_from not after filed_to
//     (/filed_from); the fact views require accession (/accession); fact_offset only with a fact
//     view (/fact_offset). company takes exactly one of cik or ticker (the schema's
//     minProperties/maxProperties 1).
//   - Filings view: forms defaults to all eight periodic forms (amendments included). Rows are
//     filtered by form, filing date and, when given, accession, and sorted newest first (filing
//     date, then acceptance). filings.recent is read first; older pages are read only when the query
//     reaches before the oldest recent filing (filed_from, or an accession's year) or lies wholly
//     before it (filed_to), only pages whose filingFrom..filingTo overlaps the range, at most 8 (a
//     note says when more were in range). Without filed_from a note gives the first date of the
//     recent list. Records: cik (10 digits), accession, source "sec_edgar", issuer (the filer's
//     current name), form, filed_at, report_date, primary_document, primary_url (on www.sec.gov),
//     accepted_at, is_amendment (form ends in /A); title "<issuer> <form> filed <date>", url the
//     filing index page, snippet with the period, accession and XBRL kind. A filing EDGAR marks as
//     without XBRL offers only the details action.
//   - accepted_at: EDGAR writes acceptanceDateTime with a Z suffix ("2024-11-01T06:01:36.000Z"),
//     but the wall-clock time is US Eastern: EDGAR's RSS feed gives the same filing's acceptance as
//     2024-11-01T06:01:36-04:00, and a filing accepted at 18:08 carries the next day's filing date.
//     The time is kept and given the Eastern offset in force on that date (-04:00 in daylight
//     saving time, -05:00 otherwise, by the US rules since 1987), or null when absent.
//   - Fact views and fact details read the instance: contexts (entity scheme and identifier;
//     period startDate/endDate/instant as written; explicitMember and typedMember of the segment,
//     and of the scenario, marked container "scenario"), units (measures, or divide numerator and
//     denominator) and item facts (elements with contextRef, in document order; tuples are not read:
//     EDGAR does not accept them). QNames written as text (measures, members, dimensions) are
//     resolved in their namespace scope and written with the document's prefix, the XBRL
//     specification's for its own namespaces (EDGAR's instances declare xbrli as the default
//     namespace and write <measure>shares</measure>, which reads xbrli:shares).
//   - financials selects every numeric fact (with a unitRef); revenue_breakdown the numeric facts of
//     us-gaap (http://fasb.org/us-gaap/<year>) Revenues, RevenueFromContractWithCustomerExcluding-
//     AssessedTax, RevenueFromContractWithCustomerIncludingAssessedTax, RevenuesNetOfInterestExpense,
//     SalesRevenueNet, SalesRevenueGoodsNet, SalesRevenueServicesNet and ifrs-full Revenue and
//     RevenueFromContractsWithCustomers, with all their dimensions. A fact whose context or unit is
//     not defined is left out, with a note. Text facts are not selected.
//   - Window and continuation: a fact view shows at most 100 facts (the detail limit of spec
//     section 8) from fact_offset, a body field this gateway adds (integer 0..1,000,000, fact views
//     only; past the last fact it is refused at /fact_offset). The financials and
//     revenue_breakdown details show the same window: from 0, or from the search's fact_offset when
//     the record comes from a fact view of the same kind and filing. continuation.body is
//     {company: {cik}, view, accession, fact_offset: <next>} when truncated, so executing it lists
//     the next facts and the same action on one of its records returns them as a detail; when not
//     truncated it names the same window (the same facts as search records).
//   - Fact records keep the spec's keys (cik, accession, source, fact_id, value, unit, period,
//     dimensions) and add concept, label, context_id, decimals, precision, duplicate_fact_ids (when
//     any) and conflicting_values, so that a record is evidence on its own. value is a JSON number
//     written exactly as reported when it is a plain decimal, otherwise a string; a nil fact has no
//     value. period holds start and end, or instant. Title is the concept, url the instance with
//     the fact id as fragment, snippet a one-line reading.
//   - Detail facts: the spec's keys; values, decimals and precision are the instance's text; label
//     is the label linkbase's standard label (then terse, verbose, other roles; en-US, then en, then
//     any language), found through the element id EDGAR requires (prefix_Name; else a unique id with
//     the same name), null without a linkbase; source_url is the instance URL with #fact_id.
//     Dimensions are {dimension, member} or {dimension, typed_element, value}, with dimension_label
//     and member_label when known.
//   - Duplicates: facts with the same concept, context id and unit (as a set of measures; the
//     language for text) are duplicates; duplicate_fact_ids lists the others' ids (null for one
//     without id). conflicting_values follows XBRL Duplicates 1.0: a numeric value stands for the
//     interval that rounds to it at its decimals ([v - ½·10^-d, v + ½·10^-d]; exact for INF, for no
//     decimals or for a precision attribute, which EDGAR does not accept) and duplicates conflict
//     when their intervals share no point; other values conflict when their text differs, nil only
//     agrees with nil.
//   - Instance choice in the folder: *_htm.xml (with several, the primary document's, else the one
//     named like the schema .xsd, else the first by name); otherwise the .xml that is not a
//     linkbase, FilingSummary.xml, R<n>.xml or primary_doc.xml and is named like the schema (or is
//     the only one). Labels: *_lab.xml named like the instance, or the only one. A filing without an
//     instance is refused at /accession (not_found in an action). content_sha256 is the SHA-256 of
//     the instance bytes as received; retrieved_at the time of that read.
//   - details: the filing's row in the submissions list (recent, then older pages of its year) and
//     its folder listing: cik, accession, source, issuer, form, filed_at, report_date, accepted_at,
//     is_amendment, is_xbrl, is_inline_xbrl, primary_document, primary_document_description,
//     primary_url, filing_index_url, folder_url, documents [{name, url, size, last_modified}],
//     xbrl_instance_url, label_linkbase_url, notes; links to the filing index, the primary
//     document, the instance and the label linkbase. All public links are on https://www.sec.gov,
//     whichever base URL a deployment reads through.
//
// # Checks
//
// Confirmed from public samples of EDGAR's answers (client code and test fixtures that copy
// them; the SEC's API pages were seen only as others quote them): the shapes of
// company_tickers.json, submissions and their older pages, index.json, the extracted *_htm.xml
// (default xbrli namespace, contexts c-N, facts with id f-N, <measure>pure</measure>) and label
// linkbases; the 10 requests a second limit and the User-Agent rule; the 403 page titles; the 404
// NoSuchKey body of data.sec.gov; Apple's accession 0000320193-24-000123 (aapl-20240928.htm,
// filed 2024-11-01, accepted 06:01:36) and 0000320193-23-000106 (accepted
// 2023-11-02T18:08:27.000Z, filed 2023-11-03).
// Not confirmed: the body of www.sec.gov's 404 (any 404 is read as "no such filer or filing");
// whether company_tickers.json ever lists one ticker under two CIKs (the rule handles it; the
// test's DUAL entries are constructed). The fixtures are trimmed: the recent list holds 13 rows,
// the older page 9; accession numbers, film numbers, sizes and acceptance times other than the
// confirmed ones, and the index listing's sizes, are illustrative. The instance and label
// fixtures follow the shape of Apple's fiscal 2024 10-K with its reported amounts (in millions:
// net sales 391,035, 383,285 and 394,328, with their product, product-line and geographic
// segment breakdowns); in testdata the last six facts (a duplicate at other decimals, a
// conflicting iPad value, a typed dimension, a nil fact, a fact without id, a fact with an
// undefined context) are constructed for the tests.
package edgar

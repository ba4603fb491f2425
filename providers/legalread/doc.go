// Package legalread holds legal.read (spec section 4.3): one identified legal document read into
// bounded text sections with source provenance. Paging local (the whole document is held in the
// session; more is free), update offered, record action details (stored, free), deadline 40 s,
// typical credits 0.
//
// # Sources and upstream endpoints
//
//   - eurlex (provider `eurlex`, keyless, https://eur-lex.europa.eu): GET
//     /legal-content/{LANG}/TXT/HTML/?uri=CELEX:{celex}. The HTML is the Official Journal layout:
//     since 2014 `div.eli-subdivision` with ids art_N, rct_N, cit_N, pbl_1, cpt_X, anx_X,
//     paragraph divs 005.001, `p.oj-ti-art`, `p.oj-normal`, points laid out as two-cell table rows
//     ((a) | text), the title in `div.eli-main-title`; before, the same classes without `oj-`
//     (`p.ti-art`, `p.doc-ti`, `p.normal`) and no eli ids. source_class official_publication.
//   - us_reports (provider `loc`, keyless, https://www.loc.gov, at most 8 calls in 10 s, a margin
//     below the 10 in 10 s past which loc.gov blocks a client for five minutes): GET /item/{item_id}/?fo=json, then the PDF named by
//     resources[].pdf (or a resources[].files entry of mimetype application/pdf) on
//     tile.loc.gov (storage-services/service/ll/usrep/usrepVVV/usrepVVVPPP/usrepVVVPPP.pdf),
//     fetched through the same provider (its limiter and breaker). Only https loc.gov hosts (or
//     the configured host itself) are followed. source_class official_publication.
//   - scholar (the shared provider `courtlistener`, `Authorization: Token <key>`): GET
//     /api/rest/v4/clusters/{id}/ → sub_opinions (opinion API URLs) → GET
//     /api/rest/v4/opinions/{id}/ for each (at most 20). Text from html_with_citations, else
//     html, html_lawbox, html_columbia, html_anon_2020, xml_harvard, else plain_text.
//     source_class reproduction. Billed 4 credits ($0.004, the spec's scholar case retrieval).
//   - historical (provider `historical`, keyless, https://groups.csail.mit.edu): GET
//     /mac/classes/6.805/articles/privacy/Privacy_brand_warr2.html, the MIT CSAIL 6.805 course
//     archive's HTML transcription of Warren and Brandeis, "The Right to Privacy", 4 Harv. L. Rev.
//     193 (1890): a stable university-hosted page of a public-domain text. source_class
//     institutional_transcription.
//   - scraper fallback (provider `scrape`, keyed, https://app.scrapingbee.com, key sent as the
//     api_key query parameter): GET /api/v1/?url={public page URL}&render_js=false. The body is
//     the page; Spb-cost is the request's cost in scraper credits, Spb-initial-status-code the
//     page's own status (ScrapingBee's help page "What kind of headers are returned by the API").
//     Used for eurlex and historical only, when the direct source is not configured, is paused
//     by its breaker, fails in a way providers.FallbackWorthy accepts, or answers a challenge
//     page; billed Spb-cost x 5 credits ($0.005 per scraper credit; 1 scraper credit when the
//     header is missing), with a note.
//
// # Challenge and error pages
//
// A source may answer 200 or 202 with something that is not the document. blockedPage
// (challenge.go) refuses a page that carries a challenge or captcha system's technical marker
// (AWS WAF awswaf/challenge.js, Cloudflare cf-chl/_cf_chl_opt, reCAPTCHA, hCaptcha, Incapsula,
// PerimeterX, DataDome, Akamai bot manager) anywhere, and a page with less than 2,500 characters
// of text that says "Access denied", "Request blocked", "enable JavaScript", "Just a moment",
// "verify you are human", "captcha" and the like, or whose title is an error page's (Error, 4xx,
// 5xx, Service unavailable, Not found, Forbidden), or that has no text at all. Such an answer is
// provider_error (retryable), through the scraper as well; its text is never returned. A loc.gov
// item that is not JSON, or a "PDF" that does not start with %PDF-, is checked the same way.
//
// # Decisions where the spec is silent
//
//   - document is a union by source. It is written as allOf of if/then branches, each closed
//     (additionalProperties false) and discriminated by source, rather than a bare oneOf: the
//     validator then reports only the chosen shape's field (/document/celex, /document/item_id,
//     an unknown /document/foo), never the other branches' complaints. The framework's default
//     walker does not enter if/then, so the rule step fills eurlex's declared default language
//     (EN) into the stored query.
//   - The rule beyond the schema: an item_id whose volume or first page is 000 (which the pattern
//     admits and no case has) is refused at /document/item_id before any fetch.
//   - Sections: at most 4,000 characters. Text is read as paragraph-level blocks in document order
//     (a table row is one block: "(a) text of the point"); a section starts at a structural unit
//     (article, recital, chapter, annex; a heading on the transcription) once the current one
//     holds 1,200 characters, and wherever the next block would overflow; a PDF page and each
//     CourtListener opinion always start a section (so a section has one pdf_page and one
//     extraction method); a block longer than the bound is cut at a sentence end (else a line
//     break, else a space) in its last fifth. A document of more than 1,000 sections is refused
//     (provider_error) rather than cut, since every section promises the whole document.
//   - Records: title "<document title>, section i of n" (a title ending "(1967)." loses the
//     period; titles longer than 300 characters are cut); url the source at the section's first
//     EUR-Lex id anchor (#art_3), the transcription's anchor, or the PDF page (#page=2);
//     snippet the complete text of the section (the spec returns text chunks; records carry no
//     separate text key). language is always present: the requested EUR-Lex language, loc.gov's
//     item language (eng → EN), and EN for CourtListener (U.S. opinions; the API has no language
//     field) and the 1890 article. identifier is the id as requested (CELEX number, item id,
//     cluster id, work id). source in details is the request's source value.
//   - paragraph_anchors: EUR-Lex element ids usable as #fragments (art_N, rct_N, cit_N, pbl_1,
//     cpt_X, anx_X, enc_1, 005.001; article title ids art_N.tit_1 and footnote ids left out) and,
//     for a point row inside an article or paragraph, "<id> point <label>" such as
//     "art_4 point (1)" or "002.002 point (a)" (not for a recital's own number); CourtListener
//     "opinion_<id>" at the start of each opinion plus the ids of its block elements (Harvard
//     paragraph ids such as b379-5); the transcription's <a name> and element ids.
//   - pdf_page is the 1-based PDF page index. printed_page is read from the page's running head
//     or foot (a number opening or closing one of its first three or last two lines, not a
//     volume citation "277 U. S." or a term year "OCTOBER TERM, 1927."): the offset printed −
//     index that most pages agree on is taken, and a page gets a printed page only when its own
//     head prints that number (a cover sheet gets none; nothing is inferred). For CourtListener,
//     star pagination (<span class="star-pagination" label="439">*439</span>, or *439 in plain
//     text) gives the printed page a section begins on; text before the first marker (usually
//     the case heading) has none.
//   - PDF text: github.com/ledongthuc/pdf, pure Go (the product builds and runs with `make run` on
//     a machine with only Go; no cgo, no poppler), reading glyph positions: a new line where the
//     baseline moves by more than half the font size, a space where a gap of a fifth of it opens
//     (OCR text layers place words without spaces). Text drawn inside form XObjects is not read.
//     A PDF without a text layer (an image-only scan) is provider_error: no OCR is performed. At most 2,000 pages; loc MaxBody 64 MiB.
//   - Not found: a 404/410 from EUR-Lex, loc.gov, CourtListener or (through Spb-initial-status-code)
//     the scraper, EUR-Lex's "The requested document does not exist." page, a loc.gov item
//     without a PDF and a cluster without opinions are not_found; a missing document never
//     spends scraper credits. A short rate limit stays rate_limited (no fallback). ScrapingBee's
//     401 (credits used up or key invalid) is provider_allowance.
//   - retrieved_at is when the source answered (RFC 3339, UTC, seconds); source_sha256 the
//     SHA-256 of the bytes the text was read from (the HTML page, the PDF, the opinion JSON
//     answers in request order).
//   - Availability: the capability needs eurlex, loc and historical (all keyless). scholar needs
//     CourtListener's token too; without it a scholar read is capability_unavailable naming
//     PROVIDER_COURTLISTENER_KEY, while the other sources keep working. The scraper is optional.
//
// # Checks
//
// Confirmed from official or first-hand pages: the EUR-Lex TXT/HTML URL form; the loc.gov item
// response's item/resources attributes and the usrep PDF path and resource pdf/url/image keys
// (loc.gov "Item and Resource Responses" and recorded loc.gov JSON of usrep items); loc.gov rate
// limits; CourtListener v4 cluster (sub_opinions, citations, case_name, date_filed,
// absolute_url) and opinion fields (type codes, html_with_citations, plain_text, ...) and its
// star-pagination markup (recorded html_with_citations); ScrapingBee's render_js parameter and
// Spb-cost / Spb-initial-status-code / Spb-resolved-url headers. Not confirmed: the exact
// markup of every EUR-Lex act (older acts use other layouts; the reader works on plain
// paragraphs too, without anchors) and the status and wording of EUR-Lex's answer for an
// unknown CELEX (404 and the "does not exist" page are both handled); whether a loc.gov item
// response always carries resources[].pdf (files is read as well); the live markup of the MIT
// transcription (the sandbox page is a faithful excerpt of the article in a plain 1990s HTML
// shape with <a name> paragraph anchors, not a recording); ScrapingBee's error body wording.
// Sandbox texts are abridged excerpts of the real public-domain or EU texts (GDPR recitals 1-4
// and Articles 1-4; Olmstead v. United States, 277 U.S. 438; the opening of "The Right to
// Privacy"); the U.S. Reports sandbox PDF is built by TestSandboxPDF (go test -run
// TestSandboxPDF -update) with printed pages 438-441 on PDF pages 1-4.
package legalread

// Package legal adapts legal.search (spec section 4.4): US case law from CourtListener and EU
// judgments, legislation and opinions from the EU Publications Office's CELLAR. Page paging,
// deadline 40 s, typical credits 4, record action details (stored at search time, free).
//
// # Upstream endpoints
//
//   - US, provider `courtlistener` (shared with legal.read, providers/upstream/courtlistener; token sent as
//     `Authorization: Token <key>`): GET {base}/api/rest/v4/search/?type=o&q=&filed_after=&filed_before=
//     [&cursor=] (https://www.courtlistener.com/help/api/rest/search/). The answer is {count, next (a URL
//     carrying `cursor`), previous, results: [{absolute_url, attorney, caseName, caseNameFull,
//     citation[], citeCount, cluster_id, court, court_citation_string, court_id, dateArgued, dateFiled,
//     dateReargued, dateReargumentDenied, docketNumber, docket_id, judge, lexisCite, meta, neutralCite,
//     non_participating_judge_ids, opinions: [{author_id, cites, download_url, id, joined_by_ids,
//     local_path, meta, per_curiam, sha1, snippet, type}], panel_ids, panel_names, posture,
//     procedural_history, scdb_id, sibling_ids, source, status, suitNature, syllabus}]}; the fixtures
//     (providers/upstream/courtlistener/sandbox/search*.json, testdata/cl_search.json) follow the JSON example
//     of that page. Errors are Django REST framework bodies {"detail": "…"}.
//   - EU, provider `cellar` (keyless, PROVIDER_CELLAR_URL, default https://publications.europa.eu):
//     GET {base}/webapi/rdf/sparql?query=<SPARQL>&format=application/sparql-results+json with
//     Accept: application/sparql-results+json (the SPARQL 1.1 protocol; the endpoint also takes POST).
//     The answer is the W3C SPARQL 1.1 JSON results format {head: {vars}, results: {bindings: [{var:
//     {type, value, xml:lang?, datatype?}}]}} (Virtuoso adds head.link and results.distinct/ordered, and
//     may write typed-literal for datatyped literals; both are read). Errors are Virtuoso's text/plain
//     messages ("Virtuoso 37000 Error SP030: SPARQL compiler …", "Virtuoso S1T00 Error SR171:
//     Transaction timed out").
//
// # The SPARQL query (CDM ontology, http://publications.europa.eu/ontology/cdm#)
//
// One row per work (GROUP BY ?work ?celex) with cdm:work_has_resource-type in the kind's resource
// types (authority table resource-type: judgment JUDG; legislation REG, REG_IMPL, REG_DEL, DIR,
// DIR_IMPL, DIR_DEL, DEC, DEC_IMPL, DEC_DEL; opinion OPIN_AG, VIEW_AG, OPIN_JUR; no kind: all of these),
// cdm:resource_legal_id_celex ?celex, and an expression (cdm:expression_belongs_to_work) in the
// language (cdm:expression_uses_language <…/authority/language/ENG> etc., set L mapped to the
// three-letter authority codes) whose cdm:expression_title contains every search word
// (FILTER(CONTAINS(LCASE(STR(?t)), "word") && …)); OPTIONAL cdm:case-law_ecli and cdm:work_date_document.
// ORDER BY DESC(?date) ?celex (newest first, stable for paging), LIMIT num+1 (the extra row tells
// whether another page follows) OFFSET from the paging state {"offset": n}.
//
// Escaping: the query text is split into words (letters, digits and inner - / . ' ’; at most 12, lower
// case), so no character with a meaning in SPARQL (quotes, backslashes, braces, brackets, #, <, >, ?)
// ever reaches the query; each word is still written through sparqlString, which escapes " \ ' and
// line breaks with SPARQL ECHAR sequences and drops other control characters. A query with no word at
// all is refused at /search/query. Tests decode every literal of generated queries and compare the
// rest with the query of harmless words.
//
// # Decisions where the spec is silent
//
//   - Schema: search is keyed on jurisdiction with allOf [if jurisdiction us then {…}, if eu then {…}],
//     each branch additionalProperties false, so exactly one branch reports (a us body with kind is one
//     violation at /search/kind, an unknown jurisdiction one at /search/jurisdiction). The gateway
//     applies the defaults of the branch that applies (courts all, language EN); the adapter still
//     reads an absent value as its default, for a stored query prepared before that. query also carries "pattern": "\\S" (not blank).
//   - Rule beyond the schema: from_year > to_year is refused at /search/from_year; equal years are one
//     year; either bound alone is fine.
//   - courts: CourtListener's case-law index has a court_jurisdiction keyword holding the Court
//     model's jurisdiction code (cl/search/documents.py; codes from cl/search/models.py). federal adds
//     `court_jurisdiction:(F OR FD OR FB OR FBP OR FS)` (federal appellate including the Supreme
//     Court, district, bankruptcy, bankruptcy panel, special) and state `court_jurisdiction:(S OR SA
//     OR ST OR SS)` (state supreme, appellate, trial, special) to q as `(<query>) AND <clause>`; all adds
//     nothing. Tribal, territorial, military, international and committee bodies and state attorneys
//     general are in neither. (The `court` parameter takes explicit court ids; the state list would be
//     over two thousand ids.) from_year / to_year → filed_after YYYY-01-01 / filed_before YYYY-12-31.
//     No order_by (relevance) and no status filter (CourtListener returns published opinions only).
//   - US paging: CourtListener's page size is its own (20 in practice); a caller page of num records is
//     a slice of one CourtListener page. The state is {"cursor": c, "offset": o} (cursor absent for the
//     first provider page, offset absent when 0): the next caller page is the same provider page at
//     o+num while it holds more results (re-read; CourtListener caches results ten minutes), else the
//     cursor of `next` at 0. A caller page therefore never spans two provider pages and may hold fewer
//     than num records at a provider page's end. A `next` without a cursor ends the search with a note.
//     Every execute, more and update is one CourtListener request: the typical 4 credits.
//   - EU cost: CELLAR is a free, direct official source; every EU page reports Page.Credits 0.
//   - Records: identifier is the CourtListener cluster id (US) or the CELEX number (EU); source is the
//     provider the record was found through (courtlistener, cellar); source_class uses legal.read's
//     vocabulary: reproduction (CourtListener, a non-profit's collection of court opinions) and
//     official_publication (the Publications Office). document_kind: judicial_opinion (US); judgment,
//     regulation, directive, decision, advocate_general_opinion, court_opinion (EU, from the resource
//     type; absent for a type outside that list). language: the EU language searched (the titles'
//     language); US records have none (CourtListener does not state one). ecli: when CELLAR has it (case
//     law, Advocates General's opinions too). Extra keys: date (US dateFiled / EU document date,
//     YYYY-MM-DD), court, citations, docket_number. No snippet (spec). Titles: caseName (else
//     caseNameFull); EU titles have CELLAR's "#" separators joined into sentences and, for case law of
//     four parts or more, only the court and date, the parties and the case number; record titles are
//     clipped at 300 characters (details keep the full title). url: CourtListener's page (absolute_url
//     under https://www.courtlistener.com) or the EUR-Lex page in the language.
//   - full_text: EU `{"source": "eurlex", "celex", "language"}` when the CELEX number has legal.read's
//     form (^[0-9][0-9A-Z()_/-]{5,50}$). US: `{"source": "us_reports", "item_id": "usrepVVVPPP"}` when
//     a citation "VVV U.S. PPP" (also "17 U.S. (4 Wheat.) 316") lies in the Library of Congress
//     collection legal.read reads (volumes 1-542; page at most 999, the item id's three digits): the
//     official text, and free in legal.read; otherwise `{"source": "scholar", "caselaw_id": "<cluster
//     id>"}`, which CourtListener always has. The details keep the other request in
//     legal_read_alternatives, so a missing Library of Congress item can fall back to scholar.
//   - Candidates: a result CourtListener answers without a numeric cluster_id, or a CELLAR row without
//     a CELEX number, cannot be identified or read and is not a record (a page may then hold fewer than
//     num records). Every record carries its details in Record.Stored at search time; there is no
//     candidate without details, so the gateway's 410 session_expired on details only ever means the
//     stored detail is gone with its session.
//   - details: source identity (jurisdiction, source, source_class, identifier; cluster_id or celex),
//     metadata (US: case_name_full, court, court_id, court_citation_string, date_filed, date_argued,
//     docket_number, docket_id, judges, precedential_status, nature_of_suit, cite_count, citations,
//     opinions [{id, type, author_id, per_curiam}], url; EU: full title, ecli, document_kind,
//     resource_type, date, language, url, cellar_work) and legal_read (the exact request, equal to
//     full_text) with legal_read_alternatives. Links: CourtListener and the Library of Congress item, or
//     EUR-Lex and the CELLAR work.
//   - Errors: CourtListener 401/403 → provider_error (the deployment's token, not retryable); 429 →
//     the client's rate_limited / provider_allowance with DRF's detail; 400 → invalid_request at
//     /search/query with the detail (CourtListener refused the search); 404 on a cursor page →
//     provider_error "run the search again"; a 200 without results → provider_error. CELLAR 4xx →
//     provider_error, not retryable (the query is the adapter's, not the caller's), with Virtuoso's first
//     line; 5xx retryable; X-SQL-State S1TAT (an "anytime" query cut short) → a note.
//
// # Sandbox
//
// CourtListener's sandbox (providers/upstream/courtlistener/sandbox) serves search.json for a first page,
// search_page2.json for a cursor and search_empty.json for a query containing "noresults"; CELLAR's
// (sandbox/) serves cellar_empty.json for the word noresults, cellar_legislation.json for legislation
// types, cellar_judgments_page2.json for OFFSET > 0 and cellar_judgments.json otherwise. The first US
// record (Olmstead v. United States, cluster 101320, 277 U.S. 438 → usrep277438) and the first
// legislation record (32016R0679, EN) are documents legal.read's sandbox holds, so following full_text
// works in test mode too.
//
// # Not confirmed from an official page
//
// (1) That CourtListener's search accepts a fielded court_jurisdiction clause in q: the field is in the
// index definition of its source code, the operators page documents fielded queries but its field
// list could not be read. (2) CourtListener's body for a query it cannot parse (assumed a 400 with
// {"detail": …}) and for a stale cursor (assumed 404 {"detail": "Invalid cursor"}). (3) The CDM
// terms are taken from public client code querying CELLAR (cdm:resource_legal_id_celex,
// cdm:case-law_ecli, cdm:work_has_resource-type, cdm:expression_title, cdm:expression_uses_language,
// cdm:work_date_document and the resource-type codes), not from the CDM documentation itself; whether
// every expression title carries a language tag is not known (both are read). (4) CELLAR's speed for
// CONTAINS over all titles of legislation is not known; a slow query ends with provider_timeout at the
// 40 s deadline. (5) The Library of Congress item id for cases beyond the first case on a page. Sandbox
// and test fixtures keep the documented shapes; their ids beyond the documented examples are
// illustrative.
package legal

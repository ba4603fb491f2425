package legalread

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/courtlistener"
)

// TestExamplesInSandbox runs every inspect example as the gateway does in test mode: execute,
// every record action on the first record, then the following local page (more), which must
// continue the document.
func TestExamplesInSandbox(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	seen := map[string]bool{}
	for _, ex := range Read.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			body, _ := json.Marshal(ex.Body)
			req, err := providertest.Prepare(t, Read, string(body))
			if err != nil {
				t.Fatalf("example does not validate: %v", err)
			}
			page, err := providertest.ExecuteState(t, client, Read, providers.ModeTest, req, nil)
			if err != nil {
				t.Fatalf("example fails in the sandbox: %v", err)
			}
			checkSections(t, page)
			for _, name := range Read.ActionNames() {
				d, err := providertest.Action(t, client, Read, providers.ModeTest, req, name, &page.Records[0])
				if err != nil || d == nil {
					t.Fatalf("action %s on the first record: %v", name, err)
				}
			}
			num := Read.PageSize(req)
			if len(page.Records) <= num {
				t.Fatalf("%d sections for pages of %d: more would not be offered", len(page.Records), num)
			}
			more := page.Records[num:min(2*num, len(page.Records))]
			if providertest.Native(&more[0])["section"] != num+1 {
				t.Fatalf("more starts at section %v, want %d", providertest.Native(&more[0])["section"], num+1)
			}
			if page.Credits != nil && *page.Credits != 0 && ex.Body.Request()["document"].(map[string]any)["source"] != sourceScholar {
				t.Fatalf("a direct read costs %d credits", *page.Credits)
			}
			src, _ := ex.Body.Request()["document"].(map[string]any)["source"].(string)
			seen[src] = true
			providertest.Golden(t, "sandbox_"+src, providertest.RecordsJSON(page))
		})
	}
	for _, s := range []string{sourceEurlex, sourceUSReports, sourceScholar, sourceHistorical} {
		if !seen[s] {
			t.Errorf("no example reads source %s", s)
		}
	}
}

// TestSandboxChargesAndPages pins what the examples show: the scholar read is billed 4 credits,
// EUR-Lex anchors and points are kept, the U.S. Reports PDF keeps pdf_page and printed_page apart.
func TestSandboxChargesAndPages(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	run := func(body string) *providers.Page {
		t.Helper()
		page, err := providertest.Execute(t, client, Read, providers.ModeTest, body)
		if err != nil {
			t.Fatal(err)
		}
		return page
	}
	scholar := run(`{"document": {"source": "scholar", "caselaw_id": "101320"}}`)
	if scholar.Credits == nil || *scholar.Credits != 4 {
		t.Fatalf("scholar credits %v, want 4", scholar.Credits)
	}
	// The first section begins with the case heading, before the first star page: no page is
	// claimed for it; the second begins at *478.
	if got, ok := providertest.Native(&scholar.Records[0])["printed_page"]; ok {
		t.Errorf("first scholar section claims page %v", got)
	}
	if got := providertest.Native(&scholar.Records[1])["printed_page"]; got != "478" {
		t.Errorf("second scholar section begins on page %v, want 478", got)
	}

	// legal.search's sandbox results name these clusters too.
	if katz := run(`{"document": {"source": "scholar", "caselaw_id": "107564"}}`); len(katz.Records) != 2 {
		t.Errorf("Katz reads as %d sections in the sandbox", len(katz.Records))
	}

	reports := run(`{"document": {"source": "us_reports", "item_id": "usrep277438"}}`)
	if reports.Credits != nil {
		t.Fatalf("a U.S. Reports read is free, got %d credits", *reports.Credits)
	}
	for i, r := range reports.Records {
		wantPrinted := []string{"438", "439", "440", "441"}[i]
		if providertest.Native(&r)["pdf_page"] != i+1 || providertest.Native(&r)["printed_page"] != wantPrinted {
			t.Errorf("section %d: pdf_page %v printed_page %v, want %d and %s", i+1, providertest.Native(&r)["pdf_page"], providertest.Native(&r)["printed_page"], i+1, wantPrinted)
		}
	}

	eu := run(`{"document": {"source": "eurlex", "celex": "32016R0679"}}`)
	var all []string
	for _, r := range eu.Records {
		all = append(all, anchorsOf(r)...)
	}
	for _, want := range []string{"rct_1", "art_1", "001.001", "art_4", "art_4 point (1)", "002.002 point (a)"} {
		if !slices.Contains(all, want) {
			t.Errorf("anchor %q missing from %q", want, all)
		}
	}
	for _, not := range []string{"art_1.tit_1", "rct_1 point (1)", "ntr1-L_2016119EN.01000101-E0001"} {
		if slices.Contains(all, not) {
			t.Errorf("%q is not a paragraph anchor: %q", not, all)
		}
	}
	if !strings.HasPrefix(eu.Records[0].Title, "REGULATION (EU) 2016/679 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL of 27 April 2016") {
		t.Errorf("title %q", eu.Records[0].Title)
	}
}

// TestEurlexLive reads an act in the pre-2014 EUR-Lex layout from a fake EUR-Lex and checks the
// request it sent; language takes its default.
func TestEurlexLive(t *testing.T) {
	var h hits
	fake := recorder(&h, serveFile(t, "eurlex_32002L0058_EN.html", "text/html;charset=UTF-8"))
	page, err := liveRun(t, map[string]http.Handler{eurlexID: fake}, nil, `{"document": {"source": "eurlex", "celex": "32002L0058"}}`)
	if err != nil {
		t.Fatal(err)
	}
	reqs := h.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if r := reqs[0]; r.URL.Path != "/legal-content/EN/TXT/HTML/" || r.URL.Query().Get("uri") != "CELEX:32002L0058" ||
		!strings.HasPrefix(r.Header.Get("User-Agent"), "capgate/") {
		t.Fatalf("request %s %q UA %q", r.URL.Path, r.URL.RawQuery, r.Header.Get("User-Agent"))
	}
	checkSections(t, page)
	r := page.Records[0]
	if providertest.Native(&r)["language"] != "EN" || providertest.Native(&r)["source_class"] != classOfficial || providertest.Native(&r)["extraction_method"] != "html_parse" {
		t.Fatalf("fields %v", r.Fields)
	}
	if !strings.HasPrefix(r.Title, "DIRECTIVE 2002/58/EC OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL of 12 July 2002 concerning") {
		t.Fatalf("title %q", r.Title)
	}
	providertest.Golden(t, "eurlex_old_layout", providertest.RecordsJSON(page))
}

// usReportsFake serves a loc.gov item (its PDF link pointing back at the fake) and the PDF: a
// cover sheet, then the printed pages 347 to 349.
func usReportsFake(t *testing.T, h *hits, pdfBody []byte) http.Handler {
	item := string(providertest.Fixture(t, "loc_item_usrep389347.json"))
	return recorder(h, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/item/usrep389347/":
			if r.URL.Query().Get("fo") != "json" {
				http.Error(w, "want fo=json", http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(strings.ReplaceAll(item, "{{BASE}}", "http://"+r.Host)))
		case "/storage-services/service/ll/usrep/usrep389/usrep389347/usrep389347.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write(pdfBody)
		default:
			http.NotFound(w, r)
		}
	})
}

var katzPages = []reportsPage{
	{body: []string{"LIBRARY OF CONGRESS", "UNITED STATES REPORTS", "Katz v. United States, 389 U.S. 347 (1967)"}},
	{head: [][2]string{{"", "OCTOBER TERM, 1967. 347"}, {"", "Syllabus."}},
		body: []string{"KATZ v. UNITED STATES.", "CERTIORARI TO THE UNITED STATES COURT OF APPEALS FOR THE NINTH CIRCUIT.",
			"No. 35. Argued October 17, 1967. Decided December 18, 1967.",
			"Petitioner was convicted under an indictment charging him with transmitting wagering information by telephone across state lines."}},
	{head: [][2]string{{"348", "OCTOBER TERM, 1967."}, {"Opinion of the Court.", "389 U. S."}},
		body: []string{"MR. JUSTICE STEWART delivered the opinion of the Court.",
			"The petitioner was convicted in the District Court for the Southern District of California under an eight-count indictment."}},
	{head: [][2]string{{"", "KATZ v. UNITED STATES. 349"}, {"347", "Opinion of the Court."}},
		body: []string{"For the Fourth Amendment protects people, not places."}},
}

// TestUSReportsLive reads a U.S. Reports PDF whose PDF pages and printed pages differ: the cover
// sheet has no printed page, PDF page 2 prints 347.
func TestUSReportsLive(t *testing.T) {
	var h hits
	fake := usReportsFake(t, &h, buildReportsPDF(t, katzPages))
	page, err := liveRun(t, map[string]http.Handler{locID: fake}, nil, `{"document": {"source": "us_reports", "item_id": "usrep389347"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Requests()) != 2 {
		t.Fatalf("%d requests, want the item and its PDF", len(h.Requests()))
	}
	checkSections(t, page)
	want := []struct {
		pdf     int
		printed any
	}{{1, nil}, {2, "347"}, {3, "348"}, {4, "349"}}
	for i, w := range want {
		r := page.Records[i]
		if providertest.Native(&r)["pdf_page"] != w.pdf || providertest.Native(&r)["printed_page"] != w.printed {
			t.Errorf("section %d: pdf_page %v printed_page %v, want %d and %v", i+1, providertest.Native(&r)["pdf_page"], providertest.Native(&r)["printed_page"], w.pdf, w.printed)
		}
		if !strings.HasSuffix(r.URL, "#page="+string(rune('0'+w.pdf))) {
			t.Errorf("section %d url %s", i+1, r.URL)
		}
	}
	goldenLive(t, "usreports_cover_sheet", page)
}

// clFake serves CourtListener fixtures by path and checks the token.
func clFake(t *testing.T, h *hits, files map[string]string) http.Handler {
	bodies := map[string][]byte{}
	for path, name := range files {
		bodies[path] = providertest.Fixture(t, name)
	}
	return recorder(h, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Token k" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"detail":"Invalid token."}`))
			return
		}
		b, ok := bodies[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"detail":"Not found."}`))
			return
		}
		_, _ = w.Write(b)
	})
}

var katzFiles = map[string]string{
	"/api/rest/v4/clusters/107564/":  "clusters_107564.json",
	"/api/rest/v4/opinions/107564/":  "opinions_107564.json",
	"/api/rest/v4/opinions/9422117/": "opinions_9422117.json",
}

// TestScholarLive reads a cluster of two opinions (the lead opinion only as plain text, the
// concurrence as Harvard-derived HTML): lead first, each opinion its own section, star pages
// as printed pages, 4 credits.
func TestScholarLive(t *testing.T) {
	var h hits
	page, err := liveRun(t, map[string]http.Handler{courtlistener.ProviderID: clFake(t, &h, katzFiles)},
		map[string]string{courtlistener.ProviderID: "k"}, `{"document": {"source": "scholar", "caselaw_id": "107564"}}`)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range h.Requests() {
		paths = append(paths, r.URL.Path)
	}
	if !slices.Equal(paths, []string{"/api/rest/v4/clusters/107564/", "/api/rest/v4/opinions/9422117/", "/api/rest/v4/opinions/107564/"}) {
		t.Fatalf("paths %q", paths)
	}
	if page.Credits == nil || *page.Credits != scholarCredits {
		t.Fatalf("credits %v, want %d", page.Credits, scholarCredits)
	}
	checkSections(t, page)
	first, last := page.Records[0], page.Records[len(page.Records)-1]
	if providertest.Native(&first)["extraction_method"] != "courtlistener_plain_text" || !slices.Contains(anchorsOf(first), "opinion_107564") {
		t.Errorf("the lead opinion comes first: %v", first.Fields)
	}
	if providertest.Native(&last)["extraction_method"] != "courtlistener_html_with_citations" || providertest.Native(&last)["printed_page"] != "360" ||
		!slices.Contains(anchorsOf(last), "opinion_9422117") || !slices.Contains(anchorsOf(last), "b379-5") {
		t.Errorf("the concurrence: %v", last.Fields)
	}
	if !strings.HasPrefix(first.Title, "Katz v. United States, 389 U.S. 347 (1967)") {
		t.Errorf("title %q", first.Title)
	}
	providertest.Golden(t, "scholar_two_opinions", providertest.RecordsJSON(page))
}

const wafChallenge = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title></title>
<script type="text/javascript">window.awsWafCookieDomainList = [];window.gokuProps = {"key":"AQIDAHjcYu","iv":"D549","context":"x"};</script>
<script src="https://3e3378af7cd0.5cc2d8d5.eu-central-1.token.awswaf.com/3e3378af7cd0/challenge.js"></script>
</head><body><div id="challenge-container"></div><noscript><h1>JavaScript is disabled</h1>In order to continue, you need to verify that you're not a robot by solving a CAPTCHA puzzle.</noscript></body></html>`

// TestHistoricalFallback: the transcription host answers a WAF challenge, so the page is read
// through the scraper, billed its Spb-cost x 5, with a note.
func TestHistoricalFallback(t *testing.T) {
	var direct, scraped hits
	page := string(mustRead(t, "sandbox/historical_privacy_brand_warr2.html"))
	fakes := map[string]http.Handler{
		historicalID: recorder(&direct, answer(http.StatusAccepted, "text/html", wafChallenge)),
		scrapeID: recorder(&scraped, answer(http.StatusOK, "text/html; charset=utf-8", page,
			"Spb-cost", "3", "Spb-initial-status-code", "200", "Spb-resolved-url", historicalHost+historicalPath)),
	}
	got, err := liveRun(t, fakes, map[string]string{scrapeID: "sk"}, `{"document": {"source": "historical", "work_id": "warren-brandeis-1890-right-to-privacy"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(direct.Requests()) != 1 || len(scraped.Requests()) != 1 {
		t.Fatalf("direct %d scraper %d requests", len(direct.Requests()), len(scraped.Requests()))
	}
	if p := direct.Requests()[0].URL.Path; p != historicalPath {
		t.Fatalf("the transcription was asked for %s", p)
	}
	q := scraped.Requests()[0].URL.Query()
	if scraped.Requests()[0].URL.Path != "/api/v1/" || q.Get("url") != historicalHost+historicalPath || q.Get("render_js") != "false" || q.Get("api_key") != "sk" {
		t.Fatalf("scraper request %s?%s", scraped.Requests()[0].URL.Path, scraped.Requests()[0].URL.RawQuery)
	}
	if got.Credits == nil || *got.Credits != 15 {
		t.Fatalf("credits %v, want 3 scraper credits x 5", got.Credits)
	}
	if len(got.Notes) != 1 || !strings.Contains(got.Notes[0], "scraper fallback") || !strings.Contains(got.Notes[0], "challenge") {
		t.Fatalf("notes %q", got.Notes)
	}
	checkSections(t, got)
	for _, r := range got.Records {
		if providertest.Native(&r)["extraction_method"] != "html_parse_via_scraper" || providertest.Native(&r)["source_class"] != classTranscription {
			t.Fatalf("fields %v", r.Fields)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := sandboxFS.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRules checks the schema's violation paths and the rule beyond it.
func TestRules(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
	}{
		{"celex pattern", `{"document": {"source": "eurlex", "celex": "gdpr"}}`, []string{"/document/celex"}},
		{"celex lower case", `{"document": {"source": "eurlex", "celex": "32016r0679"}}`, []string{"/document/celex"}},
		{"language outside set L", `{"document": {"source": "eurlex", "celex": "32016R0679", "language": "XX"}}`, []string{"/document/language"}},
		{"field of another source", `{"document": {"source": "eurlex", "celex": "32016R0679", "item_id": "usrep277438"}}`, []string{"/document/item_id"}},
		{"missing celex", `{"document": {"source": "eurlex"}}`, []string{"/document/celex"}},
		{"missing source", `{"document": {"celex": "32016R0679"}}`, []string{"/document/source"}},
		{"unknown source", `{"document": {"source": "westlaw", "id": "1"}}`, []string{"/document/source"}},
		{"item id pattern", `{"document": {"source": "us_reports", "item_id": "usrep27743"}}`, []string{"/document/item_id"}},
		{"item id volume 000", `{"document": {"source": "us_reports", "item_id": "usrep000438"}}`, []string{"/document/item_id"}},
		{"item id page 000", `{"document": {"source": "us_reports", "item_id": "usrep277000"}}`, []string{"/document/item_id"}},
		{"caselaw id not digits", `{"document": {"source": "scholar", "caselaw_id": "roe-v-wade"}}`, []string{"/document/caselaw_id"}},
		{"caselaw id too long", `{"document": {"source": "scholar", "caselaw_id": "12345678901234567890123456"}}`, []string{"/document/caselaw_id"}},
		{"other historical work", `{"document": {"source": "historical", "work_id": "holmes-1897-path-of-the-law"}}`, []string{"/document/work_id"}},
		{"num too small", `{"document": {"source": "scholar", "caselaw_id": "1"}, "num": 0}`, []string{"/num"}},
		{"num too large", `{"document": {"source": "scholar", "caselaw_id": "1"}, "num": 11}`, []string{"/num"}},
		{"unknown top-level key", `{"document": {"source": "scholar", "caselaw_id": "1"}, "page": 2}`, []string{"/page"}},
		{"missing document", `{"num": 3}`, []string{"/document"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, Read, tc.body)
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("err %v, want invalid_request", err)
			}
			if got := providertest.ViolationPaths(err); !slices.Equal(got, tc.want) {
				t.Fatalf("paths %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("default language and num", func(t *testing.T) {
		req, err := providertest.Prepare(t, Read, `{"document": {"source": "eurlex", "celex": "32016R0679"}}`)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := req.Object("document")
		if doc["language"] != "EN" || Read.PageSize(req) != 3 {
			t.Fatalf("defaults not applied: %v", req)
		}
	})
}

// TestUSReportsRefusedBeforeFetch: an invalid U.S. Reports id is refused at validation, so the
// Library of Congress never sees a request (the gateway executes only prepared requests).
func TestUSReportsRefusedBeforeFetch(t *testing.T) {
	var h hits
	client := providertest.Client(t, Providers(), map[string]http.Handler{locID: recorder(&h, answer(200, "application/json", `{}`))}, nil)
	for _, body := range []string{
		`{"document": {"source": "us_reports", "item_id": "usrep000001"}}`,
		`{"document": {"source": "us_reports", "item_id": "usrep410000"}}`,
		`{"document": {"source": "us_reports", "item_id": "US410113"}}`,
	} {
		req, err := providertest.Prepare(t, Read, body)
		if err == nil {
			_, _ = providertest.ExecuteState(t, client, Read, providers.ModeLive, req, nil)
			t.Fatalf("%s was accepted", body)
		}
		if e, _ := providers.AsError(err); e.HTTPStatus() != http.StatusBadRequest {
			t.Fatalf("%s: status %d", body, e.HTTPStatus())
		}
	}
	if len(h.Requests()) != 0 {
		t.Fatalf("the Library of Congress saw %d requests", len(h.Requests()))
	}
}

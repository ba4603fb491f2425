package legalread

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/courtlistener"
)

const (
	cloudflarePage = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><meta http-equiv="refresh" content="390"></head>` +
		`<body><div class="main-wrapper"><h1>eur-lex.europa.eu</h1><h2>Checking if the site connection is secure</h2>` +
		`<noscript>Enable JavaScript and cookies to continue</noscript></div><script>(function(){window._cf_chl_opt={cvId: '3'};})();</script></body></html>`
	akamaiDenied = `<HTML><HEAD>
<TITLE>Access Denied</TITLE>
</HEAD><BODY>
<H1>Access Denied</H1>
You don't have permission to access "http&#58;&#47;&#47;www&#46;loc&#46;gov&#47;item&#47;usrep277438&#47;" on this server.<P>
Reference&#32;&#35;18&#46;6f3c2e17&#46;1727000000&#46;1a2b3c4d
</BODY>
</HTML>`
	captchaPage = `<html><head><title>Security check</title><script src="https://www.google.com/recaptcha/api.js" async defer></script></head>` +
		`<body><form method="post"><div class="g-recaptcha" data-sitekey="6Lc"></div><p>Please confirm you are not a robot.</p></form></body></html>`
	errorPage  = `<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center><hr><center>nginx</center></body></html>`
	jsRequired = `<html><head><title>EUR-Lex</title></head><body><noscript>This application requires JavaScript. Please enable JavaScript in your browser.</noscript><div id="app"></div></body></html>`
)

// TestBlockedPage recognises challenge, refusal and error pages, and leaves documents alone
// even when their text mentions the same words.
func TestBlockedPage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		body    string
		blocked bool
	}{
		{"AWS WAF challenge", wafChallenge, true},
		{"Cloudflare interstitial", cloudflarePage, true},
		{"Akamai access denied", akamaiDenied, true},
		{"reCAPTCHA page", captchaPage, true},
		{"server error page", errorPage, true},
		{"JavaScript-required shell", jsRequired, true},
		{"empty page", `<html><head><title>x</title></head><body></body></html>`, true},
		{"EUR-Lex act", string(mustRead(t, "sandbox/eurlex_32016R0679_EN.html")), false},
		{"historical transcription", string(mustRead(t, "sandbox/historical_privacy_brand_warr2.html")), false},
		{"long act that says access denied", "<html><body><p>" + strings.Repeat("Where access is denied, the controller shall state the reasons. ", 60) + "</p></body></html>", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := blockedPage([]byte(tc.body)); (got != "") != tc.blocked {
				t.Fatalf("blockedPage = %q, want blocked %v", got, tc.blocked)
			}
		})
	}
}

// TestSourceFailures maps upstream failures and challenge pages: a challenge is provider_error
// and never text, a missing document not_found without spending scraper credits, throttling
// rate_limited, a missing key capability_unavailable.
func TestSourceFailures(t *testing.T) {
	const eu = `{"document": {"source": "eurlex", "celex": "32016R0679"}}`
	const us = `{"document": {"source": "us_reports", "item_id": "usrep389347"}}`
	const cl = `{"document": {"source": "scholar", "caselaw_id": "107564"}}`
	scraperOK := answer(200, "text/html", string(mustRead(t, "sandbox/eurlex_32016R0679_EN.html")), "Spb-cost", "1", "Spb-initial-status-code", "200")
	blankPDF := func() []byte { return buildReportsPDF(t, []reportsPage{{}}) }
	cases := []struct {
		name     string
		body     string
		fakes    map[string]http.HandlerFunc
		keys     map[string]string
		code     providers.Code
		msg      string
		scrapes  int // requests the scraper must have received (-1: not checked)
		retryExp *bool
	}{
		{name: "EUR-Lex challenge without a scraper", body: eu,
			fakes: map[string]http.HandlerFunc{eurlexID: answer(202, "text/html", wafChallenge)},
			code:  providers.CodeProviderError, msg: "challenge", scrapes: 0},
		{name: "EUR-Lex challenge, scraper challenged too", body: eu,
			fakes: map[string]http.HandlerFunc{eurlexID: answer(200, "text/html", cloudflarePage), scrapeID: answer(200, "text/html", captchaPage, "Spb-cost", "1")},
			keys:  map[string]string{scrapeID: "sk"}, code: providers.CodeProviderError, msg: "through the scraper", scrapes: 1},
		{name: "EUR-Lex down, scraper failing", body: eu,
			fakes: map[string]http.HandlerFunc{eurlexID: answer(503, "text/html", errorPage),
				scrapeID: answer(500, "application/json", `{"message": "Error with your request, please try again, you will not be charged for this request"}`)},
			keys: map[string]string{scrapeID: "sk"}, code: providers.CodeProviderError, msg: "scraper fallback failed", scrapes: 1},
		{name: "EUR-Lex has no such document", body: eu,
			fakes: map[string]http.HandlerFunc{eurlexID: answer(404, "text/html", string(mustRead(t, "sandbox/eurlex_not_found.html"))), scrapeID: scraperOK},
			keys:  map[string]string{scrapeID: "sk"}, code: providers.CodeNotFound, msg: "CELEX 32016R0679", scrapes: 0},
		{name: "EUR-Lex answers its missing-document page with 200", body: eu,
			fakes: map[string]http.HandlerFunc{eurlexID: answer(200, "text/html", string(mustRead(t, "sandbox/eurlex_not_found.html")))},
			code:  providers.CodeNotFound, scrapes: 0},
		{name: "scraper out of credits", body: eu,
			fakes: map[string]http.HandlerFunc{eurlexID: answer(202, "text/html", wafChallenge), scrapeID: answer(401, "application/json", `{"message": "Monthly API calls limit reached: 1000"}`)},
			keys:  map[string]string{scrapeID: "sk"}, code: providers.CodeProviderAllowance, scrapes: 1},
		{name: "scraper finds the page missing", body: eu,
			fakes: map[string]http.HandlerFunc{eurlexID: answer(502, "text/html", errorPage), scrapeID: answer(200, "text/html", "<html><body>gone</body></html>", "Spb-initial-status-code", "404", "Spb-cost", "1")},
			keys:  map[string]string{scrapeID: "sk"}, code: providers.CodeNotFound, scrapes: 1},
		{name: "EUR-Lex throttles shortly", body: eu,
			fakes: map[string]http.HandlerFunc{eurlexID: answer(429, "text/html", "Too Many Requests", "Retry-After", "5"), scrapeID: scraperOK},
			keys:  map[string]string{scrapeID: "sk"}, code: providers.CodeRateLimited, scrapes: 0},
		{name: "loc.gov refuses with an HTML page", body: us,
			fakes: map[string]http.HandlerFunc{locID: answer(200, "text/html", akamaiDenied)},
			code:  providers.CodeProviderError, msg: "refusal or challenge page", scrapes: -1},
		{name: "loc.gov has no such item", body: us,
			fakes: map[string]http.HandlerFunc{locID: answer(404, "application/json", `{"status": 404}`)},
			code:  providers.CodeNotFound, msg: "usrep389347", scrapes: -1},
		{name: "loc.gov item without a PDF", body: us,
			fakes: map[string]http.HandlerFunc{locID: answer(200, "application/json", `{"item": {"title": "U.S. Reports: Katz v. United States, 389 U.S. 347 (1967)."}, "resources": [{"image": "x.gif"}]}`)},
			code:  providers.CodeNotFound, msg: "no PDF", scrapes: -1},
		{name: "loc.gov item naming a PDF elsewhere", body: us,
			fakes: map[string]http.HandlerFunc{locID: answer(200, "application/json", `{"resources": [{"pdf": "https://attacker.example/x.pdf"}]}`)},
			code:  providers.CodeProviderError, msg: "outside loc.gov", scrapes: -1},
		{name: "loc.gov throttles", body: us,
			fakes: map[string]http.HandlerFunc{locID: answer(429, "text/html", "Too Many Requests", "Retry-After", "3")},
			code:  providers.CodeRateLimited, scrapes: -1},
		{name: "CourtListener has no such cluster", body: cl,
			fakes: map[string]http.HandlerFunc{courtlistener.ProviderID: answer(404, "application/json", `{"detail": "Not found."}`)},
			keys:  map[string]string{courtlistener.ProviderID: "k"}, code: providers.CodeNotFound, msg: "107564", scrapes: -1},
		{name: "CourtListener refuses the token", body: cl,
			fakes: map[string]http.HandlerFunc{courtlistener.ProviderID: answer(401, "application/json", `{"detail": "Invalid token."}`)},
			keys:  map[string]string{courtlistener.ProviderID: "k"}, code: providers.CodeProviderError, scrapes: -1},
		{name: "CourtListener answers a challenge instead of JSON", body: cl,
			fakes: map[string]http.HandlerFunc{courtlistener.ProviderID: answer(200, "text/html", cloudflarePage)},
			keys:  map[string]string{courtlistener.ProviderID: "k"}, code: providers.CodeProviderError, scrapes: -1},
		{name: "CourtListener throttles", body: cl,
			fakes: map[string]http.HandlerFunc{courtlistener.ProviderID: answer(429, "application/json", `{"detail": "Request was throttled. Expected available in 7 seconds."}`, "Retry-After", "7")},
			keys:  map[string]string{courtlistener.ProviderID: "k"}, code: providers.CodeRateLimited, scrapes: -1},
		{name: "scholar without a CourtListener token", body: cl,
			fakes: map[string]http.HandlerFunc{courtlistener.ProviderID: answer(200, "application/json", `{}`)},
			code:  providers.CodeCapabilityUnavailable, msg: "PROVIDER_COURTLISTENER_KEY", scrapes: -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var scraped hits
			fakes := map[string]http.Handler{}
			for id, h := range tc.fakes {
				if id == scrapeID {
					fakes[id] = recorder(&scraped, h)
				} else {
					fakes[id] = h
				}
			}
			if _, ok := fakes[scrapeID]; !ok {
				fakes[scrapeID] = recorder(&scraped, scraperOK)
			}
			page, err := liveRun(t, fakes, tc.keys, tc.body)
			if err == nil {
				t.Fatalf("no error; %d sections returned (first: %.80q)", len(page.Records), page.Records[0].Snippet)
			}
			if got := providertest.ErrorCode(err); got != tc.code {
				t.Fatalf("code %s (%v), want %s", got, err, tc.code)
			}
			if tc.msg != "" && !strings.Contains(providers.MessageOf(err), tc.msg) {
				t.Fatalf("message %q does not mention %q", providers.MessageOf(err), tc.msg)
			}
			if tc.scrapes >= 0 && len(scraped.Requests()) != tc.scrapes {
				t.Fatalf("scraper saw %d requests, want %d", len(scraped.Requests()), tc.scrapes)
			}
		})
	}

	t.Run("PDF answered with a captcha page", func(t *testing.T) {
		var h hits
		fake := usReportsFake(t, &h, []byte(captchaPage))
		_, err := liveRun(t, map[string]http.Handler{locID: fake}, nil, us)
		if providertest.ErrorCode(err) != providers.CodeProviderError || !strings.Contains(providers.MessageOf(err), "challenge") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("PDF without a text layer", func(t *testing.T) {
		var h hits
		fake := usReportsFake(t, &h, blankPDF())
		_, err := liveRun(t, map[string]http.Handler{locID: fake}, nil, us)
		if providertest.ErrorCode(err) != providers.CodeProviderError || !strings.Contains(providers.MessageOf(err), "no text layer") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("malformed PDF", func(t *testing.T) {
		var h hits
		fake := usReportsFake(t, &h, []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF"))
		_, err := liveRun(t, map[string]http.Handler{locID: fake}, nil, us)
		if providertest.ErrorCode(err) != providers.CodeProviderError {
			t.Fatalf("err %v", err)
		}
	})
}

// TestScraperCharges: the fallback is billed the scraper's Spb-cost x 5, one credit when the
// header is missing; a direct read is free.
func TestScraperCharges(t *testing.T) {
	doc := string(mustRead(t, "sandbox/eurlex_32016R0679_EN.html"))
	for _, tc := range []struct {
		name   string
		header []string
		want   int
	}{
		{"render_js=false", []string{"Spb-cost", "1"}, 5},
		{"premium proxy", []string{"Spb-cost", "10"}, 50},
		{"no cost header", nil, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakes := map[string]http.Handler{
				eurlexID: answer(403, "text/html", `<html><head><title>Request Rejected</title></head><body>The requested URL was rejected. Please consult with your administrator.</body></html>`),
				scrapeID: answer(200, "text/html", doc, tc.header...),
			}
			page, err := liveRun(t, fakes, map[string]string{scrapeID: "sk"}, `{"document": {"source": "eurlex", "celex": "32016R0679", "language": "EN"}}`)
			if err != nil {
				t.Fatal(err)
			}
			if page.Credits == nil || *page.Credits != tc.want {
				t.Fatalf("credits %v, want %d", page.Credits, tc.want)
			}
			if providertest.Native(&page.Records[0])["extraction_method"] != "html_parse_via_scraper" {
				t.Fatalf("method %v", providertest.Native(&page.Records[0])["extraction_method"])
			}
		})
	}
}

// TestChunkBounds: sections never exceed the bound, start at units once the minimum is held,
// always at hard blocks, and a long block is cut at sentence ends with its anchors on the
// first piece.
func TestChunkBounds(t *testing.T) {
	sentence := "The controller shall implement appropriate technical and organisational measures. "
	long := strings.TrimSpace(strings.Repeat(sentence, 150)) // about 12,300 characters
	blocks := []block{
		{text: "Article 1", anchors: []string{"art_1"}, unit: true},
		{text: "Short article text."},
		{text: "Article 2", anchors: []string{"art_2"}, unit: true}, // below the minimum: stays with article 1
		{text: long, anchors: []string{"002.001"}},
		{text: strings.Repeat("x", minChunkRunes), anchors: []string{"art_3"}, unit: true},
		{text: "Article 4", anchors: []string{"art_4"}, unit: true}, // the section holds the minimum: new section
		{text: "page two", hard: true, pdfPage: 2, printed: "8"},
	}
	chunks := chunkBlocks(blocks)
	for i, c := range chunks {
		if n := utf8.RuneCountInString(c.text); n > maxChunkRunes || n == 0 {
			t.Fatalf("section %d holds %d characters", i+1, n)
		}
	}
	if !strings.HasPrefix(chunks[0].text, "Article 1\n\nShort article text.\n\nArticle 2") {
		t.Fatalf("small articles do not share a section: %.60q", chunks[0].text)
	}
	var longPieces int
	for _, c := range chunks {
		if strings.Contains(c.text, "organisational measures.") {
			longPieces++
		}
	}
	if longPieces < 4 {
		t.Fatalf("the 12,000-character paragraph spans %d sections", longPieces)
	}
	for _, p := range splitLong(long, maxChunkRunes) {
		if utf8.RuneCountInString(p) > maxChunkRunes || !strings.HasSuffix(p, "measures.") {
			t.Fatalf("a long paragraph was not cut at a sentence end: …%q", p[len(p)-40:])
		}
	}
	if got := splitLong(strings.Repeat("y", 9000), maxChunkRunes); len(got) != 3 || len(got[0]) != maxChunkRunes {
		t.Fatalf("text without breaks: %d pieces", len(got))
	}
	count := func(a string) (n int) {
		for _, c := range chunks {
			for _, x := range c.anchors {
				if x == a {
					n++
				}
			}
		}
		return n
	}
	if count("002.001") != 1 {
		t.Fatalf("the anchor of a cut paragraph appears %d times", count("002.001"))
	}
	last, prev := chunks[len(chunks)-1], chunks[len(chunks)-2]
	if last.text != "page two" || last.pdfPage != 2 || last.printed != "8" {
		t.Fatalf("a hard block did not start its own section: %+v", last)
	}
	if !strings.HasPrefix(prev.text, "Article 4") || prev.anchors[0] != "art_4" {
		t.Fatalf("a unit after the minimum did not start a section: %.40q", prev.text)
	}
	if got := chunkBlocks([]block{{text: "  "}, {text: ""}}); len(got) != 0 {
		t.Fatalf("blank blocks made %d sections", len(got))
	}
}

// TestPrintedPages reads running heads: numbers at either end of the head lines, not volume
// citations or term years, in step with the PDF index; a page without its number gets none.
func TestPrintedPages(t *testing.T) {
	pages := []pdfPage{
		{index: 1, lines: []string{"LIBRARY OF CONGRESS", "U.S. REPORTS", "410 U.S. 113"}},
		{index: 2, lines: []string{"OCTOBER TERM, 1972", "Syllabus 410 U. S.", "ROE ET AL. v. WADE"}},
		{index: 3, lines: []string{"114 OCTOBER TERM, 1972.", "Opinion of the Court. 410 U. S.", "text"}},
		{index: 4, lines: []string{"ROE v. WADE 115", "113 Opinion of the Court.", "text", "2 See Doe v. Bolton, post, p. 179."}},
		{index: 5, lines: []string{"116 OCTOBER TERM, 1972.", "text"}},
	}
	got := printedPages(pages)
	want := map[int]string{3: "114", 4: "115", 5: "116"}
	if len(got) != len(want) {
		t.Fatalf("printed pages %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("printed pages %v, want %v", got, want)
		}
	}
	if got := printedPages([]pdfPage{{index: 1, lines: []string{"no numbers here"}}}); len(got) != 0 {
		t.Fatalf("numbers invented: %v", got)
	}
}

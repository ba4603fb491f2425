package legalread

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Challenge and error pages (spec 4.3: "source access failures are reported as provider_error,
// never replaced by challenge-page text"). A source behind a web application firewall or a bot
// manager may answer 200 (or 202) with a page that is not the document: a JavaScript challenge,
// a captcha, an "Access denied" notice, or a server error page. blockedPage recognises them.

// strongMarkers are technical names of challenge and captcha systems: a legal text never
// contains them, so one is enough.
var strongMarkers = []string{
	"awswaf", "aws-waf-token", "challenge.js", "/challenge-platform/", "cf-chl", "cf_chl_opt", "__cf_chl",
	"cf-browser-verification", "g-recaptcha", "recaptcha/api.js", "hcaptcha.com", "h-captcha",
	"_incapsula_resource", "incap_ses_", "px-captcha", "captcha-delivery.com", "datadome",
	"/_sec/cp_challenge/", "sec-if-cpt-container", "akamai-bot-manager",
}

// weakMarkers are phrases of challenge and refusal pages that a long document could contain;
// they count only on a page with little text.
var weakMarkers = []string{
	"access denied", "request blocked", "the requested url was rejected", "you don't have permission to access",
	"enable javascript", "javascript is disabled", "javascript is required", "please turn javascript on",
	"requires javascript", "just a moment", "checking your browser", "verify you are human", "are you a robot",
	"unusual traffic", "captcha", "too many requests", "bot detection", "security check",
}

// errorTitle matches the title or main heading of a server's error page.
var errorTitle = regexp.MustCompile(`(?i)^(?:error\b|http error|[45][0-9]{2}\b|bad gateway|service (?:temporarily )?unavailable|internal server error|gateway time-?out|not found|page not found|forbidden|site maintenance|maintenance)`)

// shortPage is the amount of text under which a page may be a challenge or error page.
const shortPage = 2500

// blockedPage tells why an HTML answer is not a document ("" when it looks like one).
func blockedPage(body []byte) string {
	head := body
	if len(head) > 256<<10 {
		head = head[:256<<10]
	}
	lower := bytes.ToLower(head)
	for _, m := range strongMarkers {
		if bytes.Contains(lower, []byte(m)) {
			return "a bot challenge or captcha page (" + m + ")"
		}
	}
	// A page of a megabyte is a document, not a challenge: spare parsing it twice.
	if len(body) > 1<<20 {
		return ""
	}
	root, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return ""
	}
	text := collapseSpace(textOf(root))
	if utf8.RuneCountInString(text) >= shortPage {
		return ""
	}
	lt := strings.ToLower(text + " " + pageTitle(root))
	for _, m := range weakMarkers {
		if strings.Contains(lt, m) {
			return "a refusal or challenge page (\"" + m + "\")"
		}
	}
	if t := pageTitle(root); errorTitle.MatchString(t) {
		return "an error page (\"" + t + "\")"
	}
	if text == "" {
		return "an empty page"
	}
	return ""
}

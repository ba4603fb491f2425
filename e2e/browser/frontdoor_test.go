package browser

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestFrontDoorJourney is a newcomer's way in: GET / leads to the API reference; a capability's
// reference page has its parameter table, record keys, follow-ups, cost and a test-mode sample;
// in the console the capability page runs the form in test mode, shows the records and runs a
// follow-up; the admin overview's going-live card names the keys that unlock capabilities; a
// signed-in user changes their password. Every page is checked at 1280 and 390 px (overflow,
// axe-core) and saved as a screenshot.
func TestFrontDoorJourney(t *testing.T) {
	s := start(t)
	b := newBrowser(t)

	// GET / redirects to the reference.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Get(s.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusFound || loc != "/docs" {
		t.Fatalf("GET /: %d to %q, want 302 to /docs", res.StatusCode, loc)
	}

	b.run(t, chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(css(`[data-testid="docs-intro"]`)))
	b.run(t, chromedp.Click(css(`[data-testid="docs-link-hotels.search"]`)), chromedp.WaitVisible(css(`[data-testid="docs-title"]`)))
	for _, sel := range []string{`[data-testid="param-destination"]`, `[data-testid="record-keys"]`, `[data-testid="followup-details"]`,
		`[data-testid="ref-cost"]`, `[data-testid="sample-execute"]`, `[data-testid="detail-keys"]`} {
		if n := value(t, b, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('%s').length`, sel))); n == 0 {
			t.Errorf("/docs/hotels.search has no %s", sel)
		}
	}
	if got := text(t, b, `[data-testid="param-adults"]`); !strings.Contains(got, "2") {
		t.Errorf("the adults row shows no default: %q", got)
	}
	// The Markdown of the description is rendered: no raw backticks.
	if desc := value(t, b, chromedp.Evaluate[string](`document.querySelector('[data-testid="ref-overview"] .prose').innerHTML`)); strings.Contains(desc, "`") || !strings.Contains(desc, "<code>") {
		t.Errorf("the description is not rendered Markdown: %.200s", desc)
	}
	if sample := text(t, b, `[data-testid="sample-execute"]`); !strings.Contains(sample, `"search_id"`) || !strings.Contains(sample, `"price_per_night"`) {
		t.Errorf("the sample is not a test-mode execute answer: %.300s", sample)
	}

	// Sign in; the admin overview has the going-live card.
	b.run(t, chromedp.Navigate(s.url+"/console/login"), chromedp.WaitVisible(css(`[data-testid="login"]`)),
		chromedp.SendKeys(css(`#email`), "admin@capgate.local"), chromedp.SendKeys(css(`#password`), s.pwd),
		chromedp.Click(css(`[data-testid="login-submit"]`)), chromedp.WaitVisible(css(`[data-testid="going-live"]`)))
	first := text(t, b, `[data-testid="going-live"] [data-testid="unlock-row"]:first-of-type`)
	if !strings.Contains(first, "PROVIDER_SERPAPI_KEY") {
		t.Errorf("the first key of the going-live card is not SerpApi's: %q", first)
	}
	if n := value(t, b, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="going-live"] a[href^="https://serpapi.com"]').length`)); n == 0 {
		t.Error("the going-live card has no link to SerpApi's sign-up page")
	}
	b.shot(t, "fd-01-overview-going-live")

	// The capability page: run the form in test mode, see records, run a follow-up.
	b.run(t, chromedp.Navigate(s.url+"/console/catalog/books.search"), chromedp.WaitVisible(css(`[data-testid="run-form"]`)))
	b.run(t, chromedp.SetValue(css(`[data-testid="run-query"]`), "dune"), chromedp.Click(css(`[data-testid="run-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="run-result"]`)))
	if n := value(t, b, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="run-record"]').length`)); n == 0 {
		t.Fatalf("the test run shows no records: %s", text(t, b, `[data-testid="run-result"]`))
	}
	if got := text(t, b, `[data-testid="run-record"]`); !strings.Contains(strings.ToLower(got), "dune") {
		t.Errorf("the first record does not come from the request: %q", got)
	}
	b.shot(t, "fd-02-run-result")
	b.run(t, chromedp.Click(css(`[data-testid="run-record"] [data-testid="run-followup-details"]`)),
		chromedp.WaitVisible(css(`[data-testid="run-detail"]`)))
	if got := text(t, b, `[data-testid="run-result"] h3`); !strings.Contains(got, "details") || !strings.Contains(got, "200") {
		t.Errorf("the follow-up answer: %q", got)
	}
	b.shot(t, "fd-03-run-followup")

	// Revoking a key asks first: the first click only opens the question.
	b.run(t, chromedp.Navigate(s.url+"/console/keys?mode=test"), chromedp.WaitVisible(css(`[data-testid="keys"]`)))
	ask := value(t, b, chromedp.Evaluate[string](`document.querySelector('[data-testid^="ask-revoke-"]').dataset.testid.slice(4)`))
	b.run(t, chromedp.Click(css(`[data-testid="ask-`+ask+`"]`)), chromedp.WaitVisible(css(`[data-testid="`+ask+`"]`)))
	if n := value(t, b, chromedp.Evaluate[int](`document.querySelectorAll('.pill.off').length`)); n != 0 {
		t.Fatal("a key was revoked before the confirmation")
	}
	b.shot(t, "fd-04-confirm-revoke")
	b.run(t, chromedp.Click(css(`[data-testid="`+ask+`"]`)), chromedp.WaitVisible(css(`[data-testid="flash"]`)))

	// The plan form picks capabilities: "typical cost at most 1" is saved as typical<=1.
	b.run(t, chromedp.Navigate(s.url+"/console/admin/plans"), chromedp.WaitVisible(css(`[data-testid="caps-picker-free"]`)))
	if checked := value(t, b, chromedp.Evaluate[string](`document.querySelector('[data-testid="caps-picker-free"] input[name="caps_mode"]:checked').value + ' ' + document.querySelector('#capsmax-free').value`)); checked != "typical 1" {
		t.Errorf("the free plan's picker shows %q, want typical 1", checked)
	}
	b.shot(t, "fd-05-plans")

	// Password change: the new password signs in, the old one no longer does.
	b.run(t, chromedp.Navigate(s.url+"/console/account"), chromedp.WaitVisible(css(`[data-testid="password-form"]`)),
		chromedp.SendKeys(css(`#current`), s.pwd), chromedp.SendKeys(css(`#new`), "a-new-password-for-e2e"),
		chromedp.SendKeys(css(`#confirm`), "a-new-password-for-e2e"), chromedp.Click(css(`[data-testid="password-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="flash"]`)))
	b.shot(t, "fd-06-password-changed")
	b.run(t, chromedp.Click(css(`.who button`)), chromedp.WaitVisible(css(`[data-testid="login"]`)),
		chromedp.SendKeys(css(`#email`), "admin@capgate.local"), chromedp.SendKeys(css(`#password`), "a-new-password-for-e2e"),
		chromedp.Click(css(`[data-testid="login-submit"]`)), chromedp.WaitVisible(css(`[data-testid="plan"]`)))

	// Every new page at desktop and phone size.
	pages := []string{"/docs", "/docs/hotels.search", "/docs/web.read", "/console/", "/console/catalog/books.search", "/console/account",
		"/console/admin/plans", "/console/admin/providers", "/console/keys?mode=test", "/console/sharpen"}
	for _, size := range []struct {
		name          string
		width, height int64
	}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
		b.run(t, chromedp.EmulateViewport(size.width, size.height))
		for i, p := range pages {
			t.Run(size.name+" "+p, func(t *testing.T) {
				b.run(t, chromedp.Navigate(s.url+p), chromedp.WaitVisible(css(`main h1`)))
				b.shot(t, fmt.Sprintf("fd-page-%s-%02d-%s", size.name, i, slug(strings.TrimPrefix(p, "/"))))
				if overflow := value(t, b, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`)); overflow > 0 {
					wide := value(t, b, chromedp.Evaluate[[]string](`[...document.querySelectorAll('body *')]
						.filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && ![...e.children].some(c => c.getBoundingClientRect().right > window.innerWidth + 1))
						.filter(e => !e.closest('.nav'))
						.slice(0, 5).map(e => e.tagName.toLowerCase() + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`))
					t.Errorf("the page is %d px wider than the %d px window; widest: %v", overflow, size.width, wide)
				}
				for _, v := range axeViolations(t, b) {
					t.Errorf("accessibility: %s", v)
				}
			})
		}
	}
}

package browser

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestRequestLogPageOnAPhone: a 400 and a 200 made with the first-start test key appear on the
// console's request log; at 390 px the page does not overflow and the columns that matter (time,
// status with the error code and message, capability, latency) stay visible while the others
// (credits, key, request id) give way.
func TestRequestLogPageOnAPhone(t *testing.T) {
	s := start(t)
	b := newBrowser(t)
	s.api(t, http.MethodPost, "/v1/capabilities/books.search/execute", s.testKey, map[string]any{"query": "dune"})
	req, _ := http.NewRequest(http.MethodPost, s.url+"/v1/capabilities/books.search/execute", bytes.NewReader([]byte(`{"query": "dune", "bogus": 1}`)))
	req.Header.Set("Authorization", "Bearer "+s.testKey)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	badID := res.Header.Get("X-Request-Id")
	if res.StatusCode != 400 || badID == "" {
		t.Fatalf("bad call: %d %q", res.StatusCode, badID)
	}

	b.run(t, chromedp.EmulateViewport(390, 844))
	b.run(t, chromedp.Navigate(s.url+"/console/login"), chromedp.WaitVisible(css(`[data-testid="login"]`)),
		chromedp.SendKeys(css(`#email`), "admin@capgate.local"), chromedp.SendKeys(css(`#password`), s.pwd),
		chromedp.Click(css(`[data-testid="login-submit"]`)), chromedp.WaitVisible(css(`[data-testid="plan"]`)))
	// The log is written within a fraction of a second of the answer: reload until it shows.
	row := fmt.Sprintf(`[data-testid="request-%s"]`, badID)
	found := false
	for range 50 {
		b.run(t, chromedp.Navigate(s.url+"/console/requests?mode=test"), chromedp.WaitVisible(css(`main h1`)))
		if value(t, b, chromedp.Evaluate[bool](fmt.Sprintf(`!!document.querySelector('%s')`, row))) {
			found = true
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !found {
		t.Fatal("the 400 never appeared on the request log page")
	}
	b.shot(t, "request-log-phone")
	if n := value(t, b, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="requests"] tbody tr').length`)); n != 2 {
		t.Errorf("%d rows, want the 200 and the 400", n)
	}
	if code := text(t, b, row+` [data-testid="error-code"]`); code != "invalid_request" {
		t.Errorf("error code %q", code)
	}
	if msg := text(t, b, row+` [data-testid="error-message"]`); !strings.Contains(msg, "bogus") {
		t.Errorf("error message %q", msg)
	}
	if overflow := value(t, b, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`)); overflow > 0 {
		t.Errorf("the page is %d px wider than the window", overflow)
	}
	// Header cells: visible ones within the window, in order.
	shown := value(t, b, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="requests"] thead th')]
		.filter(th => th.getBoundingClientRect().width > 0 && th.getBoundingClientRect().right <= window.innerWidth + 1)
		.map(th => th.textContent.trim())`))
	if got := strings.Join(shown, ","); got != "Time,Status,Capability,Latency" {
		t.Errorf("columns shown at 390 px: %s", got)
	}
	for _, v := range axeViolations(t, b) {
		t.Errorf("accessibility: %s", v)
	}
}

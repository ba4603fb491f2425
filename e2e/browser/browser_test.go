// Package browser drives the real console in Debian's Chromium with chromedp: sign in, create a
// key, call the API with it and see the balance and chart change, change the sharpen stage, open
// a workout, and as admin set a provider key and see availability flip. Then every console page,
// at 1280×800 and at 390×844, is saved as a screenshot (under the test's temp dir, or
// CAPGATE_ARTIFACTS) and checked: no horizontal overflow, navigation links that do not wrap, and
// no serious or critical violation found by axe-core (vendored in testdata/axe-core). Any
// console error in a page fails the test.
package browser

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/capgate/capgate/tenants"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "capgate-browser-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "gateway")
	out, err := exec.Command("go", "build", "-o", binary, "github.com/capgate/capgate/cmd/gateway").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func chromiumPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the browser journey does not run under -short (make test-quick)")
	}
	for _, p := range []string{os.Getenv("CAPGATE_TEST_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	if os.Getenv("CAPGATE_REQUIRE_SERVERS") == "1" {
		t.Fatal("Chromium is required (make test installs Debian's chromium) but was not found")
	}
	t.Skip("no Chromium on this machine")
	return ""
}

type server struct {
	url, dataDir                  string
	tenant, liveKey, testKey, pwd string
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// start runs `gateway serve` on SQLite in a temp dir and reads the first-start secrets.
func start(t *testing.T) *server {
	t.Helper()
	addr := freePort(t)
	s := &server{url: "http://" + addr, dataDir: t.TempDir()}
	cmd := exec.Command(binary, "serve")
	cmd.Env = append(os.Environ(), "GATEWAY_ADDR="+addr, "GATEWAY_DATA_DIR="+s.dataDir, "GATEWAY_PUBLIC_URL="+s.url, "LOG_LEVEL=warn")
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	fields := map[string]*string{"tenant": &s.tenant, "live key": &s.liveKey, "test key": &s.testKey, "password": &s.pwd}
	sc := bufio.NewScanner(stdout)
	deadline := time.Now().Add(30 * time.Second)
	for s.pwd == "" && time.Now().Before(deadline) && sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		for k, dst := range fields {
			if strings.HasPrefix(line, k+" ") {
				*dst = strings.Fields(strings.TrimSpace(strings.TrimPrefix(line, k)))[0]
			}
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	if s.pwd == "" || !strings.HasPrefix(s.testKey, "cap_test_") {
		t.Fatalf("first start printed no secrets; stderr: %s", stderr.String())
	}
	for i := 0; i < 100; i++ {
		if res, err := http.Get(s.url + "/readyz"); err == nil && res.StatusCode == 200 {
			res.Body.Close()
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("server not ready; stderr: %s", stderr.String())
	return nil
}

func (s *server) api(t *testing.T, method, path, key string, body any) map[string]any {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 {
		t.Fatalf("%s %s: %d %v", method, path, res.StatusCode, out)
	}
	return out
}

// browser is a headless Chromium tab that records console errors.
type browser struct {
	ctx    context.Context
	shots  string
	mu     sync.Mutex
	errors []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	// Screenshots are test artifacts: under the test's temp dir, or CAPGATE_ARTIFACTS when set.
	shots := t.TempDir()
	if dir := os.Getenv("CAPGATE_ARTIFACTS"); dir != "" {
		shots = filepath.Join(dir, t.Name())
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b := &browser{ctx: ctx, shots: shots}
	listen := func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				b.errors = append(b.errors, fmt.Sprintf("console.error: %v", e.Args))
			}
		case *runtime.EventExceptionThrown:
			b.errors = append(b.errors, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				b.errors = append(b.errors, "log: "+e.Entry.Text+" "+e.Entry.URL)
			}
		}
	}
	if err := chromedp.Listen(ctx, listen); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { t.Logf("screenshots in %s", b.shots) })
	return b
}

func (b *browser) run(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		t.Fatal(err)
	}
	b.checkErrors(t)
}

// value runs an action that returns a value.
func value[T any](t *testing.T, b *browser, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	b.checkErrors(t)
	return v
}

func (b *browser) checkErrors(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.errors) > 0 {
		t.Fatalf("console errors in the page: %v", b.errors)
	}
}

func (b *browser) shot(t *testing.T, name string) {
	t.Helper()
	buf := value(t, b, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(b.shots, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

func text(t *testing.T, b *browser, sel string) string { return value(t, b, chromedp.Text(css(sel))) }

func TestConsoleJourney(t *testing.T) {
	s := start(t)
	b := newBrowser(t)

	// Sign in as the first-start admin.
	b.run(t, chromedp.Navigate(s.url+"/console/login"), chromedp.WaitVisible(css(`[data-testid="login"]`)))
	b.shot(t, "01-login")
	b.run(t, chromedp.SendKeys(css(`#email`), "admin@capgate.local"), chromedp.SendKeys(css(`#password`), s.pwd),
		chromedp.Click(css(`[data-testid="login-submit"]`)), chromedp.WaitVisible(css(`[data-testid="plan"]`)))
	b.shot(t, "02-overview")

	// Create a test key with a label (the keys page in test mode); it is shown once.
	b.run(t, chromedp.Navigate(s.url+"/console/keys"), chromedp.WaitVisible(css(`[data-testid="mode-switch"]`)),
		chromedp.Click(css(`[data-testid="mode-switch"] a:last-child`)), chromedp.WaitVisible(css(`#label`)),
		chromedp.SendKeys(css(`#label`), "browser test"),
		chromedp.Click(css(`[data-testid="create-key"]`)), chromedp.WaitVisible(css(`[data-testid="new-key"]`)))
	key := value(t, b, chromedp.Value(css(`[data-testid="new-key-value"]`)))
	b.shot(t, "03-new-key")
	if !tenants.WellFormedKey(key) || !strings.HasPrefix(key, "cap_test_") {
		t.Fatalf("new key %q", key)
	}

	// Switch sharpen on (stage1) in the console.
	b.run(t, chromedp.Navigate(s.url+"/console/sharpen"), chromedp.WaitVisible(css(`[data-testid="stage-stage1"]`)),
		chromedp.Click(css(`[data-testid="stage-stage1"]`)), chromedp.Click(css(`[data-testid="save-stage"]`)),
		chromedp.WaitVisible(css(`[data-testid="flash"]`)))
	b.shot(t, "04-sharpen")

	// Call the API with the new key: a sandbox sharpen review costs 5 test credits.
	out := s.api(t, http.MethodPost, "/v1/sharpen", key, map[string]any{"task": "Boiling point of water?", "draft": "90 °C", "caller_provider": "openai"})
	if out["charged_credits"] != float64(5) {
		t.Fatalf("sharpen charged %v", out["charged_credits"])
	}
	s.api(t, http.MethodPost, "/v1/capabilities/books.search/execute", key, map[string]any{"query": "dune"})
	b.run(t, chromedp.Navigate(s.url+"/console/?mode=test"), chromedp.WaitVisible(css(`[data-testid="chart"]`)))
	used, calls := text(t, b, `[data-testid="used"]`), text(t, b, `[data-testid="calls"]`)
	bars := value(t, b, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="chart"] rect').length`))
	b.shot(t, "05-overview-after-calls")
	if used != "5" || calls != "2" || bars < 1 {
		t.Fatalf("overview after calls: used %q calls %q chart segments %d", used, calls, bars)
	}

	// fitness.exercises saves its demonstrations as workouts; the record's workout_resource.url
	// opens the console page, which plays the demonstration (the sandbox's demo video).
	found := s.api(t, http.MethodPost, "/v1/capabilities/fitness.exercises/execute", key, map[string]any{"muscle": "chest", "num": 3})
	var resource map[string]any
	for _, r := range found["results"].([]any) {
		if wr, ok := r.(map[string]any)["workout_resource"].(map[string]any); ok {
			resource = wr
			break
		}
	}
	if resource == nil {
		t.Fatalf("fitness.exercises returned no workout_resource: %v", found["results"])
	}
	workoutURL, _ := resource["url"].(string)
	if !strings.HasPrefix(workoutURL, s.url+"/console/workouts/wkt_") {
		t.Fatalf("workout_resource.url %q", workoutURL)
	}
	b.run(t, chromedp.Navigate(s.url+"/console/workouts"), chromedp.WaitVisible(css(`[data-testid="workouts"]`)))
	b.shot(t, "06-workouts")
	b.run(t, chromedp.Navigate(workoutURL), chromedp.WaitVisible(css(`[data-testid="workout-video"]`)))
	title := text(t, b, `[data-testid="workout-title"]`)
	if title != resource["title"] {
		t.Fatalf("workout title %q, want %q", title, resource["title"])
	}
	// The video element follows the protected redirect to a playable file: metadata loads.
	b.run(t, chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid="workout-video"]').readyState >= 1`,
		chromedp.WithPollingTimeout(20*time.Second)))
	b.shot(t, "07-workout")

	// Every other page renders without console errors.
	for i, p := range []string{"catalog", "usage", "projects", "admin/tenants", "admin/plans", "admin/audit"} {
		b.run(t, chromedp.Navigate(s.url+"/console/"+p), chromedp.WaitVisible(css(`main h1`)))
		b.shot(t, fmt.Sprintf("%02d-%s", 8+i, strings.ReplaceAll(p, "/", "-")))
	}

	// As admin, set a provider key and see the catalog's availability flip for the live key.
	cat := s.api(t, http.MethodGet, "/v1/catalog", s.liveKey, nil)
	var capID, provider string
	re := regexp.MustCompile(`provider (\S+) has no API key`)
	for _, c := range cat["capabilities"].([]any) {
		m := c.(map[string]any)
		if m["available"] == false {
			if sub := re.FindStringSubmatch(fmt.Sprint(m["unavailable_reason"])); sub != nil {
				capID, provider = m["id"].(string), sub[1]
				break
			}
		}
	}
	if capID == "" {
		// Sharpen's reviewers are keyed providers too: use one when no capability needs a key.
		provider = "anthropic"
	}
	b.run(t, chromedp.Navigate(s.url+"/console/admin/providers"), chromedp.WaitVisible(css(`[data-testid="providers"]`)),
		chromedp.Click(css(`[data-testid="provider-`+provider+`"] summary`)), chromedp.WaitVisible(css(`[data-testid="key-input-`+provider+`"]`)),
		chromedp.SendKeys(css(`[data-testid="key-input-`+provider+`"]`), "e2e-secret-key-value"),
		chromedp.Click(css(`[data-testid="save-`+provider+`"]`)), chromedp.WaitVisible(css(`[data-testid="flash"]`)))
	b.shot(t, "14-providers")
	status := text(t, b, `[data-testid="configured-`+provider+`"]`)
	html := value(t, b, chromedp.OuterHTML(css(`html`)))
	if status != "configured" || strings.Contains(html, "e2e-secret-key-value") {
		t.Fatalf("provider %s status %q (key rendered: %v)", provider, status, strings.Contains(html, "e2e-secret-key-value"))
	}
	if capID != "" {
		cat = s.api(t, http.MethodGet, "/v1/catalog", s.liveKey, nil)
		for _, c := range cat["capabilities"].([]any) {
			m := c.(map[string]any)
			if m["id"] == capID && m["available"] != true {
				t.Fatalf("%s still unavailable after setting the %s key: %v", capID, provider, m)
			}
		}
	}
	checkEveryPage(t, s, b, workoutURL)
}

// checkEveryPage visits every console page at desktop and phone size: a screenshot of each, no
// horizontal overflow, navigation that does not wrap, and no serious or critical accessibility
// violation found by axe-core.
func checkEveryPage(t *testing.T, s *server, b *browser, workoutURL string) {
	pages := []string{"/console/", "/console/?mode=test", "/console/catalog", "/console/catalog?mode=test&q=search", "/console/catalog/books.search?mode=test",
		"/console/keys", "/console/keys?mode=test", "/console/usage?mode=test", "/console/requests?mode=test", "/console/sharpen", "/console/workouts", strings.TrimPrefix(workoutURL, s.url),
		"/console/projects", "/console/admin/tenants", "/console/admin/plans", "/console/admin/providers", "/console/admin/audit"}
	sizes := []struct {
		name          string
		width, height int64
	}{{"desktop", 1280, 800}, {"phone", 390, 844}}
	for _, size := range sizes {
		b.run(t, chromedp.EmulateViewport(size.width, size.height))
		for i, p := range pages {
			t.Run(fmt.Sprintf("%s %s", size.name, p), func(t *testing.T) {
				b.run(t, chromedp.Navigate(s.url+p), chromedp.WaitVisible(css(`main h1`)))
				b.shot(t, fmt.Sprintf("page-%s-%02d-%s", size.name, i, slug(p)))
				overflow := value(t, b, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`))
				if overflow > 0 {
					wide := value(t, b, chromedp.Evaluate[[]string](`[...document.querySelectorAll('body *')]
						.filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && ![...e.children].some(c => c.getBoundingClientRect().right > window.innerWidth + 1))
						.filter(e => !e.closest('.nav, pre'))
						.slice(0, 5).map(e => e.tagName.toLowerCase() + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`))
					t.Errorf("the page is %d px wider than the %d px window; widest: %v", overflow, size.width, wide)
				}
				// Navigation: every link on one line; one column in the sidebar (desktop), one
				// row that scrolls sideways (phone).
				nav := value(t, b, chromedp.Evaluate[string](`(() => {
					const links = [...document.querySelectorAll('[data-testid="nav"] a')];
					const lh = parseFloat(getComputedStyle(links[0]).lineHeight) || 24;
					const wrapped = links.filter(a => a.getClientRects().length > 1 || a.getBoundingClientRect().height > lh * 1.6 + 16).map(a => a.textContent);
					const xs = new Set(links.map(a => Math.round(a.getBoundingClientRect().left)));
					const ys = new Set(links.map(a => Math.round(a.getBoundingClientRect().top)));
					if (wrapped.length) return 'link text wraps: ' + wrapped.join(', ');
					if (window.innerWidth >= 900 && xs.size !== 1) return 'sidebar links are not one column';
					if (window.innerWidth < 900 && ys.size !== 1) return 'top bar links wrap onto ' + ys.size + ' rows';
					return '';
				})()`))
				if nav != "" {
					t.Errorf("navigation: %s", nav)
				}
				for _, v := range axeViolations(t, b) {
					t.Errorf("accessibility: %s", v)
				}
				// Usage keeps the columns that matter on a phone: when, what and what it cost.
				if strings.HasPrefix(p, "/console/usage") {
					shown := value(t, b, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="usage"] th')]
						.filter(th => th.getBoundingClientRect().width > 0).map(th => th.textContent.trim())`))
					if len(shown) == 0 {
						t.Errorf("usage: no table (the journey's calls should be listed)")
					}
					for _, col := range []string{"Time", "Capability", "Credits"} {
						if len(shown) > 0 && !slices.Contains(shown, col) {
							t.Errorf("usage at %d px shows columns %v, missing %s", size.width, shown, col)
						}
					}
				}
			})
		}
	}
}

func slug(p string) string {
	return strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.TrimPrefix(p, "/console/"), "-"), "-")
}

// axeViolations runs the vendored axe-core on the page and lists its serious and critical
// violations.
func axeViolations(t *testing.T, b *browser) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](string(src)+";true")); err != nil {
		t.Fatalf("inject axe-core: %v", err)
	}
	out := value(t, b, chromedp.Evaluate[[]string](`axe.run(document, {resultTypes: ['violations']}).then(r =>
		r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
			.map(v => v.impact + ' ' + v.id + ': ' + v.help + ' — ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')))`, chromedp.EvalAwaitPromise))
	return out
}

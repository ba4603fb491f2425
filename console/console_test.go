package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/console"
	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/fitness"
	"github.com/capgate/capgate/providers/registry"
	"github.com/capgate/capgate/providers/upstream/reviewers"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

const password = "correct horse battery staple"

type env struct {
	t       *testing.T
	app     *fiber.App
	url     string
	store   *tenants.Store
	client  *providers.Client
	changed int
}

// consoleOpts are the options of a test console over db and client.
func consoleOpts(t *testing.T, store *tenants.Store, client *providers.Client) console.Options {
	t.Helper()
	sealer, err := tenants.NewSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return console.Options{Store: store, Client: client, Capabilities: registry.Capabilities(), Sealer: sealer,
		Env: map[string]providers.Setting{}, Videos: fitness.NewPlayer(client, fitness.PlayerOptions{SandboxVideo: console.SandboxVideo}),
		ReviewerModels: map[string]string{"anthropic": reviewers.ModelsLine("anthropic", nil)}}
}

func newEnv(t *testing.T, db *tenants.DB) *env {
	t.Helper()
	store := tenants.NewStore(db)
	client := providers.NewClient(registry.Providers(), providers.ClientOptions{})
	e := &env{t: t, store: store, client: client}
	opts := consoleOpts(t, store, client)
	opts.AccessChanged = func() { e.changed++ }
	e.serve(console.New(opts))
	return e
}

// serve runs the console on a loopback port: tests speak real HTTP to it.
func (e *env) serve(cn *console.Console) { e.serveWith(cn, fiber.Config{}) }

func (e *env) serveWith(cn *console.Console, cfg fiber.Config) {
	e.t.Helper()
	cfg.DisableStartupMessage = true
	e.app = fiber.New(cfg)
	cn.Mount(e.app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.t.Fatal(err)
	}
	go func() { _ = e.app.Listener(ln) }()
	e.t.Cleanup(func() { _ = e.app.Shutdown() })
	e.url = "http://" + ln.Addr().String()
}

// user makes a tenant with a console user.
func (e *env) user(email, role, plan string) *tenants.User {
	e.t.Helper()
	ctx := context.Background()
	tn, err := e.store.CreateTenant(ctx, "T "+email, plan, email)
	if err != nil {
		e.t.Fatal(err)
	}
	u, err := e.store.CreateUser(ctx, tn.ID, email, password, role)
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

type browser struct {
	e       *env
	http    *http.Client
	cookies map[string]string
}

func (e *env) browser() *browser { return e.browserFrom("127.0.0.1") }

// browserFrom is a browser whose connections come from the loopback address ip (127.0.0.0/8),
// so the console sees different client addresses.
func (e *env) browserFrom(ip string) *browser {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	client := &http.Client{
		Transport:     &http.Transport{DialContext: d.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}
	return &browser{e: e, http: client, cookies: map[string]string{}}
}

func (b *browser) do(method, path string, form url.Values) (*http.Response, string) {
	b.e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.e.url+path, body)
	if err != nil {
		b.e.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	res, err := b.http.Do(req)
	if err != nil {
		b.e.t.Fatal(err)
	}
	for _, c := range res.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	out, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, string(out)
}

func doc(t *testing.T, html string) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func csrfOf(t *testing.T, html string) string {
	t.Helper()
	v, ok := doc(t, html).Find(`input[name="_csrf"]`).First().Attr("value")
	if !ok || v == "" {
		t.Fatalf("no CSRF token in page")
	}
	return v
}

func (b *browser) signIn(email, pw string) *http.Response {
	b.e.t.Helper()
	_, page := b.do(http.MethodGet, "/console/login", nil)
	res, _ := b.do(http.MethodPost, "/console/login", url.Values{"_csrf": {csrfOf(b.e.t, page)}, "email": {email}, "password": {pw}})
	return res
}

func TestSignInCookieAndCSRF(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		e.user("owner@a.test", tenants.RoleOwner, "pro")
		b := e.browser()
		if res, _ := b.do(http.MethodGet, "/console/", nil); res.StatusCode != 303 || res.Header.Get("Location") != "/console/login" {
			t.Fatalf("anonymous: %d %s", res.StatusCode, res.Header.Get("Location"))
		}
		// The sign-in form itself needs its CSRF token.
		if res, _ := b.do(http.MethodPost, "/console/login", url.Values{"email": {"owner@a.test"}, "password": {password}}); res.StatusCode != 403 {
			t.Fatalf("login without csrf: %d", res.StatusCode)
		}
		res := b.signIn("owner@a.test", password)
		if res.StatusCode != 303 {
			t.Fatalf("sign-in: %d", res.StatusCode)
		}
		var session *http.Cookie
		for _, c := range res.Cookies() {
			if c.Name == "capgate_console" {
				session = c
			}
		}
		if session == nil || !session.HttpOnly || !session.Secure || session.SameSite != http.SameSiteLaxMode {
			t.Fatalf("session cookie %+v", session)
		}
		_, page := b.do(http.MethodGet, "/console/keys", nil)
		// A POST without the token (a cross-site form) is refused and changes nothing.
		if res, _ := b.do(http.MethodPost, "/console/keys", url.Values{"label": {"x"}, "mode": {"live"}}); res.StatusCode != 403 {
			t.Fatalf("csrf-less post: %d", res.StatusCode)
		}
		if res, _ := b.do(http.MethodPost, "/console/keys", url.Values{"_csrf": {"wrong"}, "label": {"x"}, "mode": {"live"}}); res.StatusCode != 403 {
			t.Fatalf("wrong csrf: %d", res.StatusCode)
		}
		res, created := b.do(http.MethodPost, "/console/keys", url.Values{"_csrf": {csrfOf(t, page)}, "label": {"ci"}, "mode": {"test"}})
		key, _ := doc(t, created).Find(`[data-testid="new-key-value"]`).Attr("value")
		if res.StatusCode != 200 || !tenants.WellFormedKey(key) || !strings.HasPrefix(key, "cap_test_") {
			t.Fatalf("created key %q (%d)", key, res.StatusCode)
		}
		// The key is shown once: the list shows only its prefix.
		_, list := b.do(http.MethodGet, "/console/keys?mode=test", nil)
		if strings.Contains(list, key) || !strings.Contains(list, key[:12]) {
			t.Fatal("key list shows the full key or misses its prefix")
		}
		// Sign out ends the session.
		_, page = b.do(http.MethodGet, "/console/", nil)
		b.do(http.MethodPost, "/console/logout", url.Values{"_csrf": {csrfOf(t, page)}})
		if res, _ := b.do(http.MethodGet, "/console/", nil); res.StatusCode != 303 {
			t.Fatalf("after sign-out: %d", res.StatusCode)
		}
	})
}

func TestSignInThrottledAndSessionExpiry(t *testing.T) {
	e := newEnv(t, tenantstest.SQLite(t))
	u := e.user("owner@b.test", tenants.RoleOwner, "free")
	b := e.browser()
	for i := 0; i < 5; i++ {
		if res := b.signIn("owner@b.test", "wrong password!"); res.StatusCode != 401 {
			t.Fatalf("attempt %d: %d", i, res.StatusCode)
		}
	}
	if res := b.signIn("owner@b.test", password); res.StatusCode != 429 || res.Header.Get("Retry-After") == "" {
		t.Fatalf("throttled: %d", res.StatusCode)
	}
	// An expired session is no session.
	raw, _, err := e.store.CreateConsoleSession(context.Background(), u.ID, -time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	b2 := e.browser()
	b2.cookies["capgate_console"] = raw
	if res, _ := b2.do(http.MethodGet, "/console/", nil); res.StatusCode != 303 {
		t.Fatalf("expired session: %d", res.StatusCode)
	}
}

func TestCrossTenantWorkoutAndUsage(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		a := e.user("a@c.test", tenants.RoleOwner, "pro")
		e.user("b@c.test", tenants.RoleOwner, "pro")
		w, err := e.store.SaveWorkout(ctx, &tenants.Workout{TenantID: a.TenantID, Title: "Goblet squat", Provider: "exercisevideo", ExerciseRef: "42",
			Muscles: `["quadriceps","glutes"]`, Equipment: `["kettlebell"]`, VideoAvailable: true})
		if err != nil {
			t.Fatal(err)
		}
		tn, _ := e.store.Tenant(ctx, a.TenantID)
		plan, _ := e.store.Plan(ctx, "pro")
		m := tenants.NewMeter(db, tenants.MeterOptions{})
		defer m.Close()
		r, _ := m.Reserve(ctx, tn, plan, tenants.ModeLive, 3)
		if _, _, err := m.Settle(ctx, r, 3, tenants.LedgerEntry{RequestID: "req_secret_a", Capability: "books.search", Action: "execute"}); err != nil {
			t.Fatal(err)
		}
		owner := e.browser()
		owner.signIn("a@c.test", password)
		res, page := owner.do(http.MethodGet, "/console/workouts/"+w.ID, nil)
		if res.StatusCode != 200 || doc(t, page).Find(`[data-testid="workout-title"]`).Text() != "Goblet squat" {
			t.Fatalf("own workout: %d", res.StatusCode)
		}
		other := e.browser()
		other.signIn("b@c.test", password)
		if res, _ := other.do(http.MethodGet, "/console/workouts/"+w.ID, nil); res.StatusCode != 404 {
			t.Fatalf("other tenant's workout: %d", res.StatusCode)
		}
		if res, _ := other.post("/console/workouts/"+w.ID+"/delete", url.Values{}); res.StatusCode != 404 {
			t.Fatalf("other tenant deletes the workout: %d", res.StatusCode)
		}
		if _, err := e.store.Workout(ctx, a.TenantID, w.ID); err != nil {
			t.Fatalf("the workout is gone after another tenant's delete: %v", err)
		}
		for _, path := range []string{"/console/usage", "/console/usage.csv", "/console/"} {
			_, body := other.do(http.MethodGet, path, nil)
			if strings.Contains(body, "req_secret_a") {
				t.Fatalf("%s shows another tenant's usage", path)
			}
		}
		_, csv := owner.do(http.MethodGet, "/console/usage.csv?capability=books.search", nil)
		if !strings.Contains(csv, "req_secret_a") || !strings.HasPrefix(csv, "time,capability") {
			t.Fatalf("csv: %q", csv)
		}
		// Owners do not see admin pages.
		if res, _ := owner.do(http.MethodGet, "/console/admin/providers", nil); res.StatusCode != 404 {
			t.Fatalf("owner on admin page: %d", res.StatusCode)
		}
	})
}

func TestAdminProviderKeyNeverRenderedAndFlipsAvailability(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		e.user("admin@d.test", tenants.RoleAdmin, "pro")
		b := e.browser()
		b.signIn("admin@d.test", password)
		if ok, _ := e.client.Configured("anthropic"); ok {
			t.Fatal("anthropic configured before a key")
		}
		_, page := b.do(http.MethodGet, "/console/admin/providers", nil)
		if !strings.Contains(page, `data-testid="models-anthropic"`) || !strings.Contains(page, "ultra claude-opus-5-5") {
			t.Error("the providers page does not show the model each sharpen tier uses")
		}
		secret := "sk-ant-very-secret-value"
		res, _ := b.do(http.MethodPost, "/console/admin/providers/anthropic", url.Values{"_csrf": {csrfOf(t, page)}, "key": {secret}, "base_url": {"https://api.anthropic.com"}})
		if res.StatusCode != 303 {
			t.Fatalf("save: %d", res.StatusCode)
		}
		if ok, _ := e.client.Configured("anthropic"); !ok {
			t.Fatal("key did not take effect at once")
		}
		for _, path := range []string{"/console/admin/providers", "/console/admin/audit"} {
			_, body := b.do(http.MethodGet, path, nil)
			if strings.Contains(body, secret) {
				t.Fatalf("%s renders the provider key", path)
			}
		}
		stored, _ := e.store.ProviderSettings(context.Background())
		if len(stored) != 1 || strings.Contains(stored[0].KeyCiphertext, secret) || stored[0].KeyCiphertext == "" {
			t.Fatalf("stored %+v", stored)
		}
		_, audit := b.do(http.MethodGet, "/console/admin/audit", nil)
		if !strings.Contains(audit, "provider.update") {
			t.Fatal("no audit entry")
		}
		// Clearing the key flips availability back.
		_, page = b.do(http.MethodGet, "/console/admin/providers", nil)
		b.do(http.MethodPost, "/console/admin/providers/anthropic", url.Values{"_csrf": {csrfOf(t, page)}, "clear_key": {"1"}})
		if ok, _ := e.client.Configured("anthropic"); ok {
			t.Fatal("cleared key still configured")
		}
		// Plan change and suspension notify the gateway.
		tn, _ := e.store.CreateTenant(context.Background(), "Acme", "free", "")
		_, page = b.do(http.MethodGet, "/console/admin/tenants", nil)
		b.do(http.MethodPost, "/console/admin/tenants/"+tn.ID+"/plan", url.Values{"_csrf": {csrfOf(t, page)}, "plan": {"pro"}})
		if got, _ := e.store.Tenant(context.Background(), tn.ID); got.PlanID != "pro" || e.changed == 0 {
			t.Fatalf("plan change: %s, notified %d", got.PlanID, e.changed)
		}
	})
}

func TestComponentsRender(t *testing.T) {
	var buf bytes.Buffer
	chart := console.UsageChart([]time.Time{time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)},
		[]tenants.DailyUsage{{Day: "2026-11-01", Capability: "books.search", Credits: 4}, {Day: "2026-11-01", Capability: "sharpen", Credits: 6}, {Day: "2026-11-02", Capability: "web.search", Credits: 10}},
		func(c string) string {
			if c == "sharpen" {
				return "Sharpen"
			}
			if c == "web.search" {
				return "Web and news"
			}
			return "Research and reading"
		})
	o := views.Overview{Plan: "pro", Status: "active", Used: 20, Cap: 100, Percent: 20, PeriodEnd: time.Now(), CallsToday: 3, Mode: views.ModeView{Path: "/console/", Mode: "live"}, Chart: chart}
	if err := views.OverviewPage(o).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	d := doc(t, buf.String())
	if d.Find(`[data-testid="chart-bar"]`).Length() != 2 || d.Find(`[data-testid="chart"] rect`).Length() != 3 {
		t.Fatalf("chart bars/segments: %s", buf.String())
	}
	if d.Find(`[data-testid="used"]`).Text() != "20" || d.Find(`[data-testid="calls"]`).Text() != "3" {
		t.Fatal("balance or calls")
	}
	if v, _ := d.Find(`[data-testid="balance-bar"]`).Attr("value"); v != "20" {
		t.Fatalf("progress %s", v)
	}
	if d.Find(`[data-testid="cache-empty"]`).Length() != 1 {
		t.Fatal("no shared-cache answers: the card says so")
	}
	buf.Reset()
	o.Cache = []views.CacheUsage{{ID: "web.search", Calls: 9, Hits: 5, CallsSaved: 6, CreditsSaved: 24}}
	if err := views.OverviewPage(o).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	cells := doc(t, buf.String()).Find(`[data-testid="cache-usage"] tbody td`)
	if got := strings.Join(cells.Map(func(_ int, s *goquery.Selection) string { return strings.TrimSpace(s.Text()) }), "|"); got != "web.search|9|5|6|24" {
		t.Fatalf("shared-cache card: %q", got)
	}
	buf.Reset()
	opts := []views.StageOption{{Stage: "stock", Allowed: true}, {Stage: "stage1", Tier: "sharpen", Credits: 5, Allowed: true, Selected: true}, {Stage: "stage3+", Tier: "ultra2x", Credits: 80}}
	if err := views.SharpenPage(views.Nav{CSRF: "tok"}, opts).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	d = doc(t, buf.String())
	if _, dis := d.Find(`[data-testid="stage-stage3+"]`).Attr("disabled"); !dis {
		t.Fatal("stage above the plan is selectable")
	}
	if _, ck := d.Find(`[data-testid="stage-stage1"]`).Attr("checked"); !ck {
		t.Fatal("saved stage not checked")
	}
}

// playbackEnv is a console whose provider client includes the exercise video provider, pointed at
// a fake YMove that answers exercise lookups with signed video URLs.
type playbackEnv struct {
	*env
	mu      sync.Mutex
	lookups map[string]int
	status  map[string]int // a lookup answering a status instead of the exercise
}

const playbackKey = "ym_console_test"

func newPlaybackEnv(t *testing.T, db *tenants.DB) *playbackEnv {
	t.Helper()
	pe := &playbackEnv{lookups: map[string]int{}, status: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/exercises/")
		if r.Header.Get("X-API-Key") != playbackKey || id == r.URL.Path {
			t.Errorf("lookup %s with key %q", r.URL.Path, r.Header.Get("X-API-Key"))
		}
		pe.mu.Lock()
		pe.lookups[id]++
		status := pe.status[id]
		pe.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch status {
		case 0:
			fmt.Fprintf(w, `{"data":{"id":%q,"title":"Goblet Squat","slug":"goblet-squat","muscleGroup":"quads","equipment":"kettlebell","hasVideo":true,"hasVideoWhite":true,"hasVideoGym":false,"videoUrl":"https://vz-1.b-cdn.net/%s/play_720p.mp4?token=t&expires=4102444800","videos":[{"id":"v1","videoUrl":"https://vz-1.b-cdn.net/%s/play_720p.mp4?token=t&expires=4102444800","tag":"white-background","orientation":"portrait","isPrimary":true}]}}`, id, id, id)
		case http.StatusNotFound:
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error":{"code":"NOT_FOUND","message":"Exercise not found"}}`))
		default:
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error":{"code":"INTERNAL_ERROR","message":"signing failed"}}`))
		}
	}))
	t.Cleanup(srv.Close)
	provs := registry.Providers()
	known := map[string]bool{}
	for _, p := range provs {
		known[p.ID] = true
	}
	for _, p := range fitness.Providers() {
		if !known[p.ID] {
			provs = append(provs, p)
		}
	}
	client := providers.NewClient(provs, providers.ClientOptions{})
	if err := client.Configure(fitness.VideoProviderID, providers.Setting{URL: srv.URL, Key: playbackKey}); err != nil {
		t.Fatal(err)
	}
	store := tenants.NewStore(db)
	e := &env{t: t, store: store, client: client}
	e.serve(console.New(consoleOpts(t, store, client)))
	pe.env = e
	return pe
}

func (pe *playbackEnv) lookupsOf(id string) int {
	pe.mu.Lock()
	defer pe.mu.Unlock()
	return pe.lookups[id]
}

func (pe *playbackEnv) failLookups(id string, status int) {
	pe.mu.Lock()
	defer pe.mu.Unlock()
	pe.status[id] = status
}

func (pe *playbackEnv) workout(tenantID, title, ref string, video bool) *tenants.Workout {
	pe.t.Helper()
	w, err := pe.store.SaveWorkout(context.Background(), &tenants.Workout{TenantID: tenantID, Title: title, Provider: fitness.VideoProviderID,
		ExerciseRef: ref, Muscles: `["quads"]`, Equipment: `["kettlebell"]`, VideoAvailable: video})
	if err != nil {
		pe.t.Fatal(err)
	}
	return w
}

// envelope decodes the spec's error envelope.
func envelope(t *testing.T, body string) (code string, retryable bool) {
	t.Helper()
	var e struct {
		Error struct {
			Code      string `json:"code"`
			Message   string `json:"message"`
			Retryable bool   `json:"retryable"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Message == "" {
		t.Fatalf("not an error envelope: %q", body)
	}
	return e.Error.Code, e.Error.Retryable
}

func TestWorkoutPlayback(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		pe := newPlaybackEnv(t, db)
		a := pe.user("a@play.test", tenants.RoleOwner, "pro")
		b := pe.user("b@play.test", tenants.RoleOwner, "pro")
		const squat = "e5f6a7b8-9c0d-4e1f-8a2b-3c4d5e6f7a85"
		wa := pe.workout(a.TenantID, "Goblet Squat", squat, true)
		wb := pe.workout(b.TenantID, "Goblet Squat", squat, true) // the same exercise, saved by another tenant
		owner, other := pe.browser(), pe.browser()
		owner.signIn("a@play.test", password)
		other.signIn("b@play.test", password)
		signed := "https://vz-1.b-cdn.net/" + squat + "/play_720p.mp4?token=t&expires=4102444800"

		// The page plays the demonstration through the protected redirect.
		res, page := owner.do(http.MethodGet, "/console/workouts/"+wa.ID, nil)
		src, _ := doc(t, page).Find(`[data-testid="workout-video"]`).Attr("src")
		if res.StatusCode != 200 || src != "/console/workouts/"+wa.ID+"/video" || strings.Contains(page, "token=") {
			t.Fatalf("workout page: %d, video src %q", res.StatusCode, src)
		}
		res, _ = owner.do(http.MethodGet, "/console/workouts/"+wa.ID+"/video", nil)
		if res.StatusCode != http.StatusFound || res.Header.Get("Location") != signed || res.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("redirect: %d %q %q", res.StatusCode, res.Header.Get("Location"), res.Header.Get("Cache-Control"))
		}
		// The URL is cached across tenants: the other tenant's own workout of the same exercise
		// plays without a new lookup.
		if res, _ := other.do(http.MethodGet, "/console/workouts/"+wb.ID+"/video", nil); res.StatusCode != http.StatusFound || res.Header.Get("Location") != signed {
			t.Fatalf("other tenant's own workout: %d", res.StatusCode)
		}
		if n := pe.lookupsOf(squat); n != 1 {
			t.Errorf("%d lookups, want 1 (page, two plays, two tenants)", n)
		}
		// Another tenant's workout, and signed-out viewers, get nothing.
		if res, body := other.do(http.MethodGet, "/console/workouts/"+wa.ID+"/video", nil); res.StatusCode != 404 || strings.Contains(body, "b-cdn") {
			t.Fatalf("other tenant's redirect: %d", res.StatusCode)
		}
		if res, _ := pe.browser().do(http.MethodGet, "/console/workouts/"+wa.ID+"/video", nil); res.StatusCode != 303 || res.Header.Get("Location") != "/console/login" {
			t.Fatalf("signed out: %d %s", res.StatusCode, res.Header.Get("Location"))
		}

		// A workout without a demonstration: workout_unavailable (404).
		plain := pe.workout(a.TenantID, "Plank", "0a1b2c3d-plank", false)
		res, body := owner.do(http.MethodGet, "/console/workouts/"+plain.ID+"/video", nil)
		if code, _ := envelope(t, body); res.StatusCode != 404 || code != "workout_unavailable" {
			t.Fatalf("no demonstration: %d %s", res.StatusCode, body)
		}
		if _, page := owner.do(http.MethodGet, "/console/workouts/"+plain.ID, nil); doc(t, page).Find(`[data-testid="workout-no-video"]`).Length() != 1 {
			t.Fatal("page of a workout without demonstration")
		}
		// The provider no longer has the exercise: workout_unavailable.
		gone := pe.workout(a.TenantID, "Old Exercise", "gone-id", true)
		pe.failLookups("gone-id", http.StatusNotFound)
		res, body = owner.do(http.MethodGet, "/console/workouts/"+gone.ID+"/video", nil)
		if code, _ := envelope(t, body); res.StatusCode != 404 || code != "workout_unavailable" {
			t.Fatalf("gone upstream: %d %s", res.StatusCode, body)
		}
		// The link cannot be renewed: media_stale (409, retryable), and the page says to reload.
		stale := pe.workout(a.TenantID, "Lunge", "stale-id", true)
		pe.failLookups("stale-id", http.StatusBadGateway)
		res, body = owner.do(http.MethodGet, "/console/workouts/"+stale.ID+"/video", nil)
		if code, retryable := envelope(t, body); res.StatusCode != 409 || code != "media_stale" || !retryable {
			t.Fatalf("stale: %d %s", res.StatusCode, body)
		}
		if _, page := owner.do(http.MethodGet, "/console/workouts/"+stale.ID, nil); doc(t, page).Find(`[data-testid="workout-video-stale"]`).Length() != 1 {
			t.Fatal("page of a stale demonstration")
		}
		// Renewal works again once the provider does.
		pe.failLookups("stale-id", 0)
		if res, _ := owner.do(http.MethodGet, "/console/workouts/"+stale.ID+"/video", nil); res.StatusCode != http.StatusFound {
			t.Fatalf("after recovery: %d", res.StatusCode)
		}

		// A workout found with a test key renews through the sandbox, never the live provider, and
		// plays the gateway's own demo video, which the console serves.
		sandbox := pe.workout(a.TenantID, "Goblet Squat (test)", fitness.ExerciseRef(providers.ModeTest, squat), true)
		res, _ = owner.do(http.MethodGet, "/console/workouts/"+sandbox.ID+"/video", nil)
		if loc := res.Header.Get("Location"); res.StatusCode != http.StatusFound || loc != "/console/static/sandbox/exercise-demo.webm" {
			t.Fatalf("sandbox workout: %d %q", res.StatusCode, loc)
		}
		if res, body := owner.do(http.MethodGet, "/console/static/sandbox/exercise-demo.webm", nil); res.StatusCode != http.StatusOK ||
			!strings.HasPrefix(res.Header.Get("Content-Type"), "video/webm") || len(body) < 1000 {
			t.Fatalf("sandbox demo video: %d %q, %d bytes", res.StatusCode, res.Header.Get("Content-Type"), len(body))
		}
		if n := pe.lookupsOf(squat); n != 1 {
			t.Errorf("the sandbox workout reached the live provider (%d lookups)", n)
		}
	})
}

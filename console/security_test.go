package console_test

import (
	"context"
	"go/build"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/console"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/registry"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// limiterKind makes the sign-in limiter of one deployment shape; instances of one kind made in
// one test share their counters the way that deployment does (a fleet shares Redis).
type limiterKind struct {
	name string
	make func(t *testing.T) func() console.SignInLimiter
}

func limiterKinds(t *testing.T) []limiterKind {
	kinds := []limiterKind{{"memory", func(*testing.T) func() console.SignInLimiter {
		l := console.NewMemorySignInLimiter()
		return func() console.SignInLimiter { return l }
	}}}
	if u := tenantstest.RedisURL(t); u != "" {
		kinds = append(kinds, limiterKind{"redis", func(t *testing.T) func() console.SignInLimiter {
			opts, err := redis.ParseURL(u)
			if err != nil {
				t.Fatal(err)
			}
			rdb := redis.NewClient(opts)
			t.Cleanup(func() { _ = rdb.Close() })
			// Each test starts from empty counters.
			if err := rdb.FlushDB(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}
			return func() console.SignInLimiter { return console.NewRedisSignInLimiter(rdb) }
		}})
	}
	return kinds
}

// instance is one more console over the same database and limiter.
func instance(t *testing.T, db *tenants.DB, limiter console.SignInLimiter) *env {
	t.Helper()
	store := tenants.NewStore(db)
	client := providers.NewClient(registry.Providers(), providers.ClientOptions{})
	e := &env{t: t, store: store, client: client}
	opts := consoleOpts(t, store, client)
	opts.SignInLimiter = limiter
	// The default allowances, refilling over a day instead of 15 minutes: a slow run of the
	// test earns no token back.
	opts.SignInLimits = console.DefaultSignInLimits
	opts.SignInLimits.PerEmail.Per, opts.SignInLimits.PerAddress.Per = 24*time.Hour, 24*time.Hour
	e.serve(console.New(opts))
	return e
}

func TestSignInLimit(t *testing.T) {
	for _, kind := range limiterKinds(t) {
		t.Run(kind.name, func(t *testing.T) {
			tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
				cases := []struct {
					name string
					run  func(t *testing.T, newInstance func() *env)
				}{
					{"spellings of one email share its counter", func(t *testing.T, newInstance func() *env) {
						e := newInstance()
						e.user("victim@limit.test", tenants.RoleOwner, "free")
						// Five wrong guesses, each a different spelling from a different address.
						for i, spelling := range []string{"victim@limit.test", "v ictim@limit.test", "VICTIM@limit.test", " vic tim@limit.test ", "victim@limit.te\tst"} {
							b := e.browserFrom("127.0.1." + string(rune('1'+i)))
							if res := b.signIn(spelling, "wrong password!"); res.StatusCode != http.StatusUnauthorized {
								t.Fatalf("guess %d (%q): %d", i, spelling, res.StatusCode)
							}
						}
						// The right password from a fresh address is refused too: the account's
						// counter is spent, whatever the spelling.
						res := e.browserFrom("127.0.1.9").signIn("vi ctim@limit.test", password)
						if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
							t.Fatalf("sixth attempt: %d, want 429 with Retry-After", res.StatusCode)
						}
					}},
					{"another account's success resets nothing", func(t *testing.T, newInstance func() *env) {
						e := newInstance()
						e.user("attacker@limit.test", tenants.RoleOwner, "free")
						attacker := e.browserFrom("127.0.2.1")
						// Four guesses at each of five accounts (under the per-account limit),
						// signing in to one's own account between them.
						for n := 0; n < 5; n++ {
							if res := attacker.signIn("attacker@limit.test", password); res.StatusCode != http.StatusSeeOther {
								t.Fatalf("own sign-in %d: %d", n, res.StatusCode)
							}
							for i := 0; i < 4; i++ {
								if res := attacker.signIn("target"+string(rune('a'+n))+"@limit.test", "guess"); res.StatusCode != http.StatusUnauthorized {
									t.Fatalf("account %d guess %d: %d", n, i, res.StatusCode)
								}
							}
						}
						// Twenty failures from this address: the next guess, at a fresh account,
						// is refused however many successes came between.
						if res := attacker.signIn("targetz@limit.test", "guess"); res.StatusCode != http.StatusTooManyRequests {
							t.Fatalf("21st failure from one address: %d, want 429", res.StatusCode)
						}
						// Another address is not locked out by it.
						if res := e.browserFrom("127.0.2.2").signIn("attacker@limit.test", password); res.StatusCode != http.StatusSeeOther {
							t.Fatalf("other address: %d", res.StatusCode)
						}
					}},
					{"one account's own success starts its count over", func(t *testing.T, newInstance func() *env) {
						e := newInstance()
						e.user("forgetful@limit.test", tenants.RoleOwner, "free")
						for round := 0; round < 2; round++ {
							for i := 0; i < 4; i++ {
								e.browserFrom("127.0.3.1").signIn("forgetful@limit.test", "wrong password!")
							}
							if res := e.browserFrom("127.0.3.2").signIn("forgetful@limit.test", password); res.StatusCode != http.StatusSeeOther {
								t.Fatalf("round %d: %d", round, res.StatusCode)
							}
						}
					}},
				}
				cases = append(cases, []struct {
					name string
					run  func(t *testing.T, newInstance func() *env)
				}{
					{"concurrent guesses at one account check at most its allowance", func(t *testing.T, newInstance func() *env) {
						e := newInstance()
						e.user("rushed@limit.test", tenants.RoleOwner, "free")
						var browsers []*browser
						for i := 0; i < 40; i++ { // forty addresses: only the account's limit (5) applies
							browsers = append(browsers, e.browserFrom("127.0.4."+strconv.Itoa(i+1)))
						}
						checked := concurrentGuesses(t, browsers, func(int) string { return "rushed@limit.test" })
						if checked > 5 {
							t.Fatalf("%d concurrent guesses had their password checked, want at most 5", checked)
						}
						// The right password is refused too: the allowance is spent.
						if res := e.browserFrom("127.0.4.99").signIn("rushed@limit.test", password); res.StatusCode != http.StatusTooManyRequests {
							t.Fatalf("after the rush: %d, want 429", res.StatusCode)
						}
					}},
					{"concurrent guesses from one address check at most its allowance", func(t *testing.T, newInstance func() *env) {
						e := newInstance()
						var browsers []*browser
						for i := 0; i < 60; i++ { // one address, sixty accounts: the address's limit (20)
							browsers = append(browsers, e.browserFrom("127.0.5.1"))
						}
						checked := concurrentGuesses(t, browsers, func(i int) string { return "spray" + strconv.Itoa(i) + "@limit.test" })
						if checked > 20 {
							t.Fatalf("%d concurrent guesses had their password checked, want at most 20", checked)
						}
					}},
				}...)
				for _, tc := range cases {
					t.Run(tc.name, func(t *testing.T) {
						shared := kind.make(t)
						tc.run(t, func() *env { return instance(t, db, shared()) })
					})
				}
				if kind.name != "redis" {
					return
				}
				t.Run("two instances count together", func(t *testing.T) {
					shared := kind.make(t)
					a, b := instance(t, db, shared()), instance(t, db, shared())
					a.user("fleet@limit.test", tenants.RoleOwner, "free")
					for i := 0; i < 5; i++ {
						e := a
						if i%2 == 1 {
							e = b
						}
						if res := e.browserFrom("127.0.4.1").signIn("fleet@limit.test", "wrong password!"); res.StatusCode != http.StatusUnauthorized {
							t.Fatalf("guess %d: %d", i, res.StatusCode)
						}
					}
					for _, e := range []*env{a, b} {
						if res := e.browserFrom("127.0.4.2").signIn("fleet@limit.test", password); res.StatusCode != http.StatusTooManyRequests {
							t.Fatalf("after five guesses across the fleet: %d, want 429", res.StatusCode)
						}
					}
				})
			})
		})
	}
}

// signedIn is a browser signed in to a fresh tenant's account.
func signedIn(t *testing.T, e *env, email, role string) *browser {
	t.Helper()
	e.user(email, role, "pro")
	b := e.browser()
	if res := b.signIn(email, password); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", res.StatusCode)
	}
	return b
}

func (b *browser) post(path string, form url.Values) (*http.Response, string) {
	b.e.t.Helper()
	_, page := b.do(http.MethodGet, "/console/", nil)
	form.Set("_csrf", csrfOf(b.e.t, page))
	return b.do(http.MethodPost, path, form)
}

func TestFormInputNeverReachesTheRedirect(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		b := signedIn(t, e, "admin@redirect.test", tenants.RoleAdmin)
		cases := []struct {
			name, path string
			form       url.Values
			location   string
			flash      string // the banner shown after the redirect, exactly
		}{
			{"CR/LF in the sharpen stage", "/console/sharpen", url.Values{"stage": {"stage9\r\nX-Evil: injected"}}, "/console/sharpen",
				"unknown sharpen stage stage9\nX-Evil: injected"}, // HTML reads CR LF as LF
			{"& # % in a tenant name", "/console/admin/tenants", url.Values{"name": {"A&B #1 100% <i>x</i>"}, "plan": {"free"}}, "/console/admin/tenants",
				"Tenant A&B #1 100% <i>x</i> created."},
			{"CR/LF in a tenant name", "/console/admin/tenants", url.Values{"name": {"x\r\nSet-Cookie: x=1"}, "plan": {"free"}}, "/console/admin/tenants",
				"Tenant x\nSet-Cookie: x=1 created."},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res, _ := b.post(tc.path, tc.form)
				if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != tc.location {
					t.Fatalf("%d, Location %q, want 303 to %q", res.StatusCode, res.Header.Get("Location"), tc.location)
				}
				for name := range res.Header {
					if strings.EqualFold(name, "X-Evil") || (strings.EqualFold(name, "Set-Cookie") && strings.Contains(strings.Join(res.Header.Values(name), ";"), "x=1")) {
						t.Fatalf("injected header %s", name)
					}
				}
				_, page := b.do(http.MethodGet, tc.location, nil)
				d := doc(t, page)
				banner := d.Find(`[data-testid="flash"]`).Text() + d.Find(`[data-testid="error"]`).Text()
				if tc.flash != "" && banner != tc.flash {
					t.Fatalf("banner %q, want %q", banner, tc.flash)
				}
				if tc.flash == "" && banner == "" {
					t.Fatal("no banner after a refused form")
				}
				// One-time: the next page has none.
				_, again := b.do(http.MethodGet, tc.location, nil)
				if doc(t, again).Find(`[data-testid="flash"], [data-testid="error"]`).Length() != 0 {
					t.Fatal("the banner showed twice")
				}
			})
		}
	})
}

func TestQueryTextIsNeverABanner(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		b := signedIn(t, e, "owner@banner.test", tenants.RoleOwner)
		const lure = "Your account is locked, call 555-0100"
		for _, path := range []string{"/console/?err=", "/console/?ok=", "/console/keys?err=", "/console/login?err="} {
			t.Run(path, func(t *testing.T) {
				_, page := b.do(http.MethodGet, path+url.QueryEscape(lure), nil)
				if strings.Contains(page, "555-0100") {
					t.Fatalf("%s shows the query's text", path)
				}
			})
		}
		t.Run("a flash cookie this server did not sign", func(t *testing.T) {
			b.cookies["capgate_flash"] = "b2sKWW91ciBhY2NvdW50IGlzIGxvY2tlZCwgY2FsbCA1NTUtMDEwMA.forged"
			if _, page := b.do(http.MethodGet, "/console/", nil); strings.Contains(page, "555-0100") {
				t.Fatal("an unsigned flash cookie is shown")
			}
		})
		t.Run("another session's flash", func(t *testing.T) {
			other := signedIn(t, e, "other@banner.test", tenants.RoleOwner)
			other.post("/console/sharpen", url.Values{"stage": {"no such stage"}})
			b.cookies["capgate_flash"] = other.cookies["capgate_flash"]
			if _, page := b.do(http.MethodGet, "/console/sharpen", nil); strings.Contains(page, "no such stage") {
				t.Fatal("a flash signed for another session is shown")
			}
		})
	})
}

func TestStaticDirectoriesAnswerAPage(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		signed := signedIn(t, e, "owner@static.test", tenants.RoleOwner)
		for _, path := range []string{"/console/static/", "/console/static", "/console/static/sandbox/", "/console/static/sandbox", "/console/static/nope.css", "/console/nope"} {
			for who, b := range map[string]*browser{"anonymous": e.browser(), "signed in": signed} {
				t.Run(who+" "+path, func(t *testing.T) {
					res, page := b.do(http.MethodGet, path, nil)
					if who == "anonymous" && path == "/console/nope" {
						// Every page but the static files needs a sign-in first.
						if res.StatusCode != http.StatusSeeOther {
							t.Fatalf("%d", res.StatusCode)
						}
						return
					}
					if res.StatusCode != http.StatusForbidden && res.StatusCode != http.StatusNotFound {
						t.Fatalf("%d, want 403 or 404", res.StatusCode)
					}
					if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || doc(t, page).Find(`[data-testid="error-page"]`).Length() != 1 {
						t.Fatalf("not the console's error page: %q %.200s", res.Header.Get("Content-Type"), page)
					}
				})
			}
		}
	})
}

func TestSecurityHeaders(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		b := signedIn(t, e, "owner@headers.test", tenants.RoleOwner)
		cases := []struct {
			path    string
			browser *browser
			noStore bool
		}{
			{"/console/login", e.browser(), true},
			{"/console/", b, true},
			{"/console/keys", b, true},
			{"/console/usage", b, true},
			{"/console/usage.csv", b, true},
			{"/console/static/console.css", b, false},
			{"/console/static/", e.browser(), false},
			{"/console/", e.browser(), false}, // the redirect to sign in
		}
		for _, tc := range cases {
			t.Run(tc.path, func(t *testing.T) {
				res, _ := tc.browser.do(http.MethodGet, tc.path, nil)
				h := res.Header
				if h.Get("X-Content-Type-Options") != "nosniff" {
					t.Errorf("X-Content-Type-Options %q", h.Get("X-Content-Type-Options"))
				}
				if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
					t.Errorf("Content-Security-Policy %q", csp)
				}
				if h.Get("Referrer-Policy") == "" {
					t.Error("no Referrer-Policy")
				}
				if tc.noStore && h.Get("Cache-Control") != "no-store" {
					t.Errorf("Cache-Control %q, want no-store", h.Get("Cache-Control"))
				}
			})
		}
	})
}

func TestSuspendedTenantChangesNothing(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		u := e.user("owner@suspended.test", tenants.RoleOwner, "pro")
		if _, err := e.store.SetStatus(ctx, u.TenantID, tenants.StatusSuspended); err != nil {
			t.Fatal(err)
		}
		b := e.browser()
		if res := b.signIn("owner@suspended.test", password); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", res.StatusCode)
		}
		_, page := b.do(http.MethodGet, "/console/", nil)
		if doc(t, page).Find(`[data-testid="suspended"]`).Length() != 1 {
			t.Fatal("the overview does not say the account is suspended")
		}
		keys, _ := e.store.Keys(ctx, u.TenantID)
		cases := []struct {
			path string
			form url.Values
		}{
			{"/console/keys", url.Values{"mode": {"live"}, "label": {"x"}}},
			{"/console/sharpen", url.Values{"stage": {"stage1"}}},
		}
		for _, tc := range cases {
			t.Run(tc.path, func(t *testing.T) {
				res, page := b.post(tc.path, tc.form)
				if res.StatusCode != http.StatusForbidden || doc(t, page).Find(`[data-testid="suspended-refused"]`).Length() != 1 {
					t.Fatalf("%d, want 403 saying the account is suspended", res.StatusCode)
				}
			})
		}
		if after, _ := e.store.Keys(ctx, u.TenantID); len(after) != len(keys) {
			t.Fatalf("a suspended tenant created a key (%d → %d)", len(keys), len(after))
		}
		if stage, _ := e.store.SharpenStage(ctx, u.TenantID); stage == "stage1" {
			t.Fatal("a suspended tenant saved a sharpen stage")
		}
		// Signing out still works.
		if res, _ := b.post("/console/logout", url.Values{}); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/login" {
			t.Fatalf("sign-out: %d", res.StatusCode)
		}
	})
}

// The console reaches workouts through its own narrow interface, never the fitness provider.
func TestConsoleDoesNotImportProviders(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, "github.com/capgate/capgate/providers/") {
			t.Errorf("console imports %s", imp)
		}
	}
}

// Behind the shipped reverse proxy (nginx appends the client to X-Forwarded-For), with the
// proxy trusted, the address limit counts each client, not the proxy: one client's failures do
// not lock out another. The console keys on c.IP(), which the server's trusted-proxy settings
// resolve.
func TestSignInLimitBehindAProxy(t *testing.T) {
	db := tenantstest.SQLite(t)
	store := tenants.NewStore(db)
	client := providers.NewClient(registry.Providers(), providers.ClientOptions{})
	e := &env{t: t, store: store, client: client}
	e.serveWith(console.New(consoleOpts(t, store, client)), fiber.Config{ProxyHeader: fiber.HeaderXForwardedFor,
		EnableTrustedProxyCheck: true, TrustedProxies: []string{"127.0.0.1"}, EnableIPValidation: true})
	backend, err := url.Parse(e.url)
	if err != nil {
		t.Fatal(err)
	}
	// httputil.ReverseProxy appends the client's address to X-Forwarded-For, as nginx's
	// $proxy_add_x_forwarded_for does, and dials the console from 127.0.0.1.
	proxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(backend))
	t.Cleanup(proxy.Close)
	e.url = proxy.URL
	e.user("someone@proxy.test", tenants.RoleOwner, "free")
	guesser := e.browserFrom("127.0.5.1")
	for i := 0; i < 20; i++ {
		if res := guesser.signIn("nobody"+strconv.Itoa(i)+"@proxy.test", "guess"); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d", i, res.StatusCode)
		}
	}
	if res := guesser.signIn("nobody-else@proxy.test", "guess"); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("21st failure from one client: %d, want 429", res.StatusCode)
	}
	if res := e.browserFrom("127.0.5.2").signIn("someone@proxy.test", password); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("another client behind the same proxy: %d, want a sign-in", res.StatusCode)
	}
}

// concurrentGuesses loads each browser's sign-in form, then posts every wrong guess at once
// (email of the i-th from emailOf) and returns how many were answered 401: those had their
// password checked. Every other answer must be 429.
func concurrentGuesses(t *testing.T, browsers []*browser, emailOf func(int) string) int {
	t.Helper()
	type guess struct {
		req *http.Request
		b   *browser
	}
	guesses := make([]guess, len(browsers))
	for i, b := range browsers {
		_, page := b.do(http.MethodGet, "/console/login", nil)
		form := url.Values{"_csrf": {csrfOf(t, page)}, "email": {emailOf(i)}, "password": {"wrong password!"}}
		req, err := http.NewRequest(http.MethodPost, b.e.url+"/console/login", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range b.cookies {
			req.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		guesses[i] = guess{req, b}
	}
	statuses := make([]int, len(guesses))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, g := range guesses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := g.b.http.Do(g.req)
			if err != nil {
				return // status 0: reported below
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			statuses[i] = res.StatusCode
		}()
	}
	close(start)
	wg.Wait()
	checked := 0
	for i, st := range statuses {
		switch st {
		case http.StatusUnauthorized:
			checked++
		case http.StatusTooManyRequests:
		default:
			t.Errorf("guess %d: status %d, want 401 or 429", i, st)
		}
	}
	return checked
}

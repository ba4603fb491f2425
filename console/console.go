// Package console is the web console of account owners and admins: server-rendered templ pages
// on fiber, working without JavaScript. Sign-in uses email and password with server-side
// sessions in the database (a Secure, HttpOnly, SameSite=Lax cookie holding a random id whose
// hash is stored), a CSRF token on every form, and throttled failed sign-ins.
package console

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/filesystem"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/fitness"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/web"
)

const (
	sessionCookie = "capgate_console"
	loginCookie   = "capgate_login"
	// SessionTTL is how long a console sign-in lasts.
	SessionTTL = 12 * time.Hour
)

// Options are the console's dependencies.
type Options struct {
	Store        *tenants.Store
	Client       *providers.Client
	Capabilities []*providers.Capability
	Sealer       *tenants.Sealer
	Logger       *slog.Logger
	// Env is the provider configuration from the environment; console settings override it.
	Env map[string]providers.Setting
	// SharpenModels are the SHARPEN_MODEL_<FAMILY>_<TIER> overrides, shown on the providers page.
	SharpenModels map[string]map[string]string
	// AccessChanged is called after a change that alters API access (key revoked, plan or
	// tenant status changed) so the gateway drops its cached key lookups at once.
	AccessChanged func()
}

// Console serves /console.
type Console struct {
	opts     Options
	store    *tenants.Store
	log      *slog.Logger
	throttle *throttle
}

// New makes the console.
func New(opts Options) *Console {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.AccessChanged == nil {
		opts.AccessChanged = func() {}
	}
	return &Console{opts: opts, store: opts.Store, log: opts.Logger, throttle: newThrottle(5, 15*time.Minute)}
}

// Mount adds the console's routes to the app.
func (cn *Console) Mount(app *fiber.App) {
	app.Use("/console/static", filesystem.New(filesystem.Config{Root: http.FS(web.Static), PathPrefix: "static", MaxAge: 3600}))
	g := app.Group("/console")
	g.Get("/login", cn.loginPage)
	g.Post("/login", cn.login)
	in := g.Group("", cn.requireUser)
	in.Post("/logout", cn.logout)
	in.Get("/", cn.overview)
	in.Get("/catalog", cn.catalog)
	in.Get("/keys", cn.keys)
	in.Post("/keys", cn.createKey)
	in.Post("/keys/:id/revoke", cn.revokeKey)
	in.Get("/sharpen", cn.sharpen)
	in.Post("/sharpen", cn.saveSharpen)
	// Workout playback renews demonstration URLs through the provider client, cached across
	// tenants (providers/fitness.Player); one player per console.
	player := fitness.NewPlayer(cn.opts.Client, fitness.PlayerOptions{SandboxVideo: "/console/static/sandbox/exercise-demo.webm"})
	in.Get("/workouts", cn.workouts)
	in.Get("/workouts/:id", cn.workout(player))
	in.Get("/workouts/:id/video", cn.workoutVideo(player))
	in.Get("/usage", cn.usage)
	in.Get("/usage.csv", cn.usageCSV)
	in.Get("/projects", cn.projects)
	admin := in.Group("/admin", cn.requireAdmin)
	admin.Get("/tenants", cn.tenants)
	admin.Post("/tenants", cn.createTenant)
	admin.Post("/tenants/:id/plan", cn.setTenantPlan)
	admin.Post("/tenants/:id/status", cn.setTenantStatus)
	admin.Get("/plans", cn.plans)
	admin.Post("/plans", cn.createPlan)
	admin.Post("/plans/:name", cn.updatePlan)
	admin.Get("/providers", cn.providers)
	admin.Post("/providers/:id", cn.saveProvider)
	admin.Get("/audit", cn.audit)
}

// viewer is the signed-in user of a request.
type viewer struct {
	user    *tenants.User
	tenant  *tenants.Tenant
	plan    *tenants.Plan
	session *tenants.ConsoleSession
}

func viewerOf(c *fiber.Ctx) *viewer {
	v, _ := c.Locals("viewer").(*viewer)
	return v
}

func (v *viewer) nav(active string) views.Nav {
	return views.Nav{Active: active, Email: v.user.Email, Tenant: v.tenant.Name, IsAdmin: v.user.Role == tenants.RoleAdmin, CSRF: v.session.CSRF}
}

func render(c *fiber.Ctx, status int, comp templ.Component) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set("X-Frame-Options", "DENY")
	c.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: https:; media-src https: 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'")
	c.Set("Referrer-Policy", "same-origin")
	c.Set("Cache-Control", "no-store")
	c.Status(status)
	return comp.Render(c.UserContext(), c.Response().BodyWriter())
}

func (cn *Console) page(c *fiber.Ctx, title, active string, content templ.Component) error {
	nav := viewerOf(c).nav(active)
	nav.Flash = c.Query("ok")
	nav.Error = c.Query("err")
	return render(c, fiber.StatusOK, views.Layout(title, nav, content))
}

func (cn *Console) notFound(c *fiber.Ctx) error {
	return render(c, fiber.StatusNotFound, views.Layout("Not found", viewerOf(c).nav(""), views.NotFound()))
}

func (cn *Console) failed(c *fiber.Ctx, err error) error {
	cn.log.Error("console error", "path", c.Path(), "err", err)
	c.Status(fiber.StatusInternalServerError)
	return render(c, fiber.StatusInternalServerError, views.Layout("Error", viewerOf(c).nav(""), views.NotFound()))
}

// back redirects after a form (POST/redirect/GET) with a flash message.
func back(c *fiber.Ctx, path, flash string, err error) error {
	q := "ok=" + urlQuery(flash)
	if err != nil {
		q = "err=" + urlQuery(err.Error())
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return c.Redirect(path+sep+q, fiber.StatusSeeOther)
}

func urlQuery(s string) string { return strings.ReplaceAll(templ.EscapeString(s), " ", "+") }

// requireUser loads the session; POSTs must carry its CSRF token.
func (cn *Console) requireUser(c *fiber.Ctx) error {
	raw := c.Cookies(sessionCookie)
	if raw == "" {
		return c.Redirect("/console/login", fiber.StatusSeeOther)
	}
	ctx := c.UserContext()
	s, err := cn.store.ConsoleSession(ctx, raw)
	if err != nil {
		clearCookie(c, sessionCookie)
		return c.Redirect("/console/login", fiber.StatusSeeOther)
	}
	u, err := cn.store.User(ctx, s.UserID)
	if err != nil {
		return c.Redirect("/console/login", fiber.StatusSeeOther)
	}
	t, err := cn.store.Tenant(ctx, u.TenantID)
	if err != nil {
		return cn.failed(c, err)
	}
	p, err := cn.store.Plan(ctx, t.PlanID)
	if err != nil {
		return cn.failed(c, err)
	}
	c.Locals("viewer", &viewer{user: u, tenant: t, plan: p, session: s})
	if c.Method() == fiber.MethodPost && subtle.ConstantTimeCompare([]byte(c.FormValue("_csrf")), []byte(s.CSRF)) != 1 {
		c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
		return c.Status(fiber.StatusForbidden).SendString("forbidden: the form's CSRF token is missing or wrong; reload the page")
	}
	return c.Next()
}

func (cn *Console) requireAdmin(c *fiber.Ctx) error {
	if viewerOf(c).user.Role != tenants.RoleAdmin {
		return cn.notFound(c)
	}
	return c.Next()
}

func setCookie(c *fiber.Ctx, name, value string, ttl time.Duration) {
	c.Cookie(&fiber.Cookie{Name: name, Value: value, Path: "/console", HTTPOnly: true, Secure: true, SameSite: fiber.CookieSameSiteLaxMode,
		Expires: time.Now().Add(ttl)})
}

func clearCookie(c *fiber.Ctx, name string) {
	c.Cookie(&fiber.Cookie{Name: name, Value: "", Path: "/console", HTTPOnly: true, Secure: true, SameSite: fiber.CookieSameSiteLaxMode,
		Expires: time.Unix(0, 0), MaxAge: -1})
}

func (cn *Console) loginPage(c *fiber.Ctx) error {
	token := c.Cookies(loginCookie)
	if len(token) != 32 {
		token = tenants.RandomString(32)
		setCookie(c, loginCookie, token, time.Hour)
	}
	nav := views.Nav{Error: c.Query("err")}
	return render(c, fiber.StatusOK, views.Layout("Sign in", nav, views.Login(c.Query("email"), token)))
}

// login checks the double-submit CSRF token, the throttle and the password.
func (cn *Console) login(c *fiber.Ctx) error {
	token := c.Cookies(loginCookie)
	if token == "" || subtle.ConstantTimeCompare([]byte(c.FormValue("_csrf")), []byte(token)) != 1 {
		c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
		return c.Status(fiber.StatusForbidden).SendString("forbidden: the sign-in form's CSRF token is missing or wrong; reload the page")
	}
	email := strings.ToLower(strings.TrimSpace(c.FormValue("email")))
	keys := []string{"email:" + email, "ip:" + c.IP()}
	if wait := cn.throttle.blocked(keys...); wait > 0 {
		c.Set("Retry-After", itoa(int(wait.Seconds())+1))
		nav := views.Nav{Error: "Too many failed sign-ins. Try again in a few minutes."}
		return render(c, fiber.StatusTooManyRequests, views.Layout("Sign in", nav, views.Login(email, token)))
	}
	u, err := cn.store.CheckPassword(c.UserContext(), email, c.FormValue("password"))
	if err != nil {
		cn.throttle.fail(keys...)
		nav := views.Nav{Error: "The email or password is not right."}
		return render(c, fiber.StatusUnauthorized, views.Layout("Sign in", nav, views.Login(email, token)))
	}
	cn.throttle.reset(keys...)
	raw, _, err := cn.store.CreateConsoleSession(c.UserContext(), u.ID, SessionTTL)
	if err != nil {
		return cn.failed(c, err)
	}
	setCookie(c, sessionCookie, raw, SessionTTL)
	clearCookie(c, loginCookie)
	return c.Redirect("/console/", fiber.StatusSeeOther)
}

func (cn *Console) logout(c *fiber.Ctx) error {
	_ = cn.store.DeleteConsoleSession(c.UserContext(), c.Cookies(sessionCookie))
	clearCookie(c, sessionCookie)
	return c.Redirect("/console/login", fiber.StatusSeeOther)
}

// throttle counts failed sign-ins per key (email, client address) in a window.
type throttle struct {
	max    int
	window time.Duration
	mu     sync.Mutex
	fails  map[string][]time.Time
}

func newThrottle(max int, window time.Duration) *throttle {
	return &throttle{max: max, window: window, fails: map[string][]time.Time{}}
}

func (t *throttle) prune(key string, now time.Time) []time.Time {
	kept := t.fails[key][:0]
	for _, at := range t.fails[key] {
		if now.Sub(at) < t.window {
			kept = append(kept, at)
		}
	}
	if len(kept) == 0 {
		delete(t.fails, key)
		return nil
	}
	t.fails[key] = kept
	return kept
}

func (t *throttle) blocked(keys ...string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	for _, k := range keys {
		if f := t.prune(k, now); len(f) >= t.max {
			return t.window - now.Sub(f[0])
		}
	}
	return 0
}

func (t *throttle) fail(keys ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range keys {
		t.fails[k] = append(t.fails[k], time.Now())
	}
}

func (t *throttle) reset(keys ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range keys {
		delete(t.fails, k)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// SyncProviders applies the provider settings stored by admins (they take precedence over the
// environment) and repeats every interval so other instances follow a change within it.
func (cn *Console) SyncProviders(ctx context.Context, every time.Duration) {
	cn.applyProviderSettings(ctx)
	if every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			cn.applyProviderSettings(ctx)
		}
	}
}

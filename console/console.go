// Package console is the web console of account owners and admins: server-rendered templ pages
// on fiber, working without JavaScript. Sign-in uses email and password with server-side
// sessions in the database (a Secure, HttpOnly, SameSite=Lax cookie holding a random id whose
// hash is stored), a CSRF token on every form, and throttled failed sign-ins.
package console

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/filesystem"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/web"
)

const (
	sessionCookie = "capgate_console"
	loginCookie   = "capgate_login"
	flashCookie   = "capgate_flash"
	// SandboxVideo is the demonstration video test-mode workouts play, served by the console.
	SandboxVideo = "/console/static/sandbox/exercise-demo.webm"
	// SessionTTL is how long a console sign-in lasts.
	SessionTTL = 12 * time.Hour
)

// Options are the console's dependencies.
type Options struct {
	Store        Store
	Client       *providers.Client
	Capabilities []*providers.Capability
	Sealer       *tenants.Sealer
	Logger       *slog.Logger
	// Env is the provider configuration from the environment; console settings override it.
	Env map[string]providers.Setting
	// ReviewerModels is, by provider id, the line naming the model a sharpen reviewer family uses
	// per tier (overrides included), shown on the providers page.
	ReviewerModels map[string]string
	// RetiredReviewers lists the sharpen reviewer families and tiers whose last live call the
	// vendor answered with "no such model" (gateway.Server.RetiredReviewers, wired by cmd); the
	// providers page warns about them. Nil: no warning.
	RetiredReviewers func() []RetiredReviewer
	// AccessChanged is called after a change that alters API access (key revoked, plan or
	// tenant status changed) so the gateway drops its cached key lookups at once.
	AccessChanged func()
	// Videos resolves saved workouts' demonstrations (providers/fitness.Player, wired by cmd);
	// without it workout pages say no video can be played.
	Videos WorkoutVideos
	// SignInLimiter counts failed sign-ins; a fleet shares one through Redis
	// (NewRedisSignInLimiter). Default: in memory.
	SignInLimiter SignInLimiter
	// SignInLimits default to DefaultSignInLimits.
	SignInLimits SignInLimits
	// Samples answers a capability's test-mode sample for the API reference (gateway.Server.Sample,
	// wired by cmd); without it the reference shows no sample.
	Samples func(ctx context.Context, id string) (SampleAnswer, error)
	// TestCalls runs API calls in-process as a tenant's test key (gateway.Server.TestCall, wired
	// by cmd); without it capability pages have no "Run in test mode".
	TestCalls TestCaller
	// PublicURL is the gateway's public URL: the OAuth issuer and the base of the /mcp resource
	// the consent page grants (oauth.go).
	PublicURL string
}

// RetiredReviewer is a sharpen reviewer family and tier whose model the vendor no longer serves.
type RetiredReviewer struct {
	// Family is the provider id; Title the vendor's name.
	Family, Title, Tier, Model string
	// Setting is the environment variable that picks another model.
	Setting string
	// Message is the vendor's answer, with its HTTP status.
	Message string
	At      time.Time
}

// WorkoutVideos resolves a saved workout's demonstration to a URL that plays now, or an error
// with the spec's code (workout_unavailable, media_stale).
type WorkoutVideos interface {
	VideoURL(ctx context.Context, provider, exerciseRef string, videoAvailable bool) (string, error)
}

// Console serves /console.
type Console struct {
	opts    Options
	store   Store
	log     *slog.Logger
	limiter SignInLimiter
}

// New makes the console.
func New(opts Options) *Console {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.AccessChanged == nil {
		opts.AccessChanged = func() {}
	}
	if opts.SignInLimiter == nil {
		opts.SignInLimiter = NewMemorySignInLimiter()
	}
	if opts.SignInLimits == (SignInLimits{}) {
		opts.SignInLimits = DefaultSignInLimits
	}
	opts.PublicURL = strings.TrimRight(opts.PublicURL, "/")
	return &Console{opts: opts, store: opts.Store, log: opts.Logger, limiter: opts.SignInLimiter}
}

// Mount adds the console's routes to the app.
func (cn *Console) Mount(app *fiber.App) {
	app.Use("/console", cn.errorPages)
	cn.mountDocs(app)
	app.Use("/console/static", filesystem.New(filesystem.Config{Root: http.FS(web.Static), PathPrefix: "static", MaxAge: 3600}))
	// A file that is not there is a 404 of its own, not a sign-in redirect.
	app.Use("/console/static", func(*fiber.Ctx) error { return fiber.ErrNotFound })
	g := app.Group("/console")
	g.Get("/login", cn.loginPage)
	g.Post("/login", cn.login)
	g.Get("/reset/:token", cn.resetPage) // an admin's one-time reset link (account.go)
	g.Post("/reset/:token", cn.reset)
	// OAuth's authorization endpoint: signing in first returns here (oauth.go).
	g.Get("/oauth/authorize", cn.authorizePage, cn.consentPage)
	in := g.Group("", cn.requireUser)
	in.Post("/oauth/authorize", cn.authorize)
	in.Post("/oauth/grants/:id/revoke", cn.revokeGrant)
	in.Post("/logout", cn.logout)
	in.Get("/", cn.overview)
	in.Get("/catalog", cn.catalog)
	in.Get("/catalog/:id", cn.capabilityPage)
	in.Post("/catalog/:id/run", cn.runCapability)
	in.Post("/catalog/:id/follow-up", cn.runFollowUp)
	in.Get("/keys", cn.keys)
	in.Post("/keys", cn.createKey)
	in.Post("/keys/:id/revoke", cn.revokeKey)
	in.Post("/keys/:id/edit", cn.editKey)
	in.Post("/keys/:id/roll", cn.rollKey)
	in.Get("/sharpen", cn.sharpen)
	in.Post("/sharpen", cn.saveSharpen)
	in.Get("/workouts", cn.workouts)
	in.Get("/workouts/:id", cn.workout)
	in.Get("/workouts/:id/video", cn.workoutVideo)
	in.Post("/workouts/:id/delete", cn.deleteWorkout)
	in.Get("/usage", cn.usage)
	in.Get("/usage.csv", cn.usageCSV)
	in.Get("/requests", cn.requests)
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
	admin.Post("/providers/:id/test", cn.testProvider)
	admin.Get("/audit", cn.audit)
	cn.mountAccount(in, admin)
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
	return views.Nav{Active: active, Email: v.user.Email, Tenant: v.tenant.Name, IsAdmin: v.user.Role == tenants.RoleAdmin, CSRF: v.session.CSRF,
		Suspended: v.tenant.Status == tenants.StatusSuspended}
}

// securityHeaders go on every console response, redirects, files and errors included.
func securityHeaders(c *fiber.Ctx) {
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderContentSecurityPolicy, "default-src 'self'; img-src 'self' data: https:; media-src https: 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
	c.Set(fiber.HeaderReferrerPolicy, "same-origin")
}

// errorPages is the console's one error mapping: an error from any console route (the static
// files' 403 for a directory, the router's 404, a handler's failure, which handlers simply
// return) becomes a console page with the error's own status; only what is not a client error
// is logged, with the path, and answered 500 without details.
func (cn *Console) errorPages(c *fiber.Ctx) error {
	if p := c.Path(); p != "/console" && !strings.HasPrefix(p, "/console/") {
		return c.Next() // a sibling path such as /consoles is not the console's
	}
	securityHeaders(c)
	err := c.Next()
	if err == nil {
		return nil
	}
	status := fiber.StatusInternalServerError
	var fe *fiber.Error
	if errors.As(err, &fe) && fe.Code >= 400 && fe.Code < 500 {
		status = fe.Code
	} else {
		cn.log.Error("console error", "method", c.Method(), "path", c.Path(), "err", err)
	}
	return cn.errorPage(c, status)
}

// errorPage renders the page of an HTTP error status, in the viewer's frame when signed in.
func (cn *Console) errorPage(c *fiber.Ctx, status int) error {
	var nav views.Nav
	if v := viewerOf(c); v != nil {
		nav = v.nav("")
	}
	title := http.StatusText(status)
	return render(c, status, views.Layout(title, nav, views.ErrorPage(status, title)))
}

func render(c *fiber.Ctx, status int, comp templ.Component) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Status(status)
	return comp.Render(c.UserContext(), c.Response().BodyWriter())
}

func (cn *Console) page(c *fiber.Ctx, title, active string, content templ.Component) error {
	nav := viewerOf(c).nav(active)
	nav.Flash, nav.Error = cn.takeFlash(c)
	return render(c, fiber.StatusOK, views.Layout(title, nav, content))
}

func (cn *Console) notFound(c *fiber.Ctx) error { return cn.errorPage(c, fiber.StatusNotFound) }

// back ends a form (POST/redirect/GET): the outcome travels in a signed one-time flash cookie,
// never in the URL, so no text of a form or a link reaches the Location header or the page's
// banner unless this server wrote it for this session.
func back(c *fiber.Ctx, path, ok string, err error) error {
	if err != nil {
		setFlash(c, flashError, err.Error())
	} else if ok != "" {
		setFlash(c, flashOK, ok)
	}
	return c.Redirect(path, fiber.StatusSeeOther)
}

const (
	flashOK    = "ok"
	flashError = "err"
	maxFlash   = 300
)

// flashMAC signs a flash with the session's CSRF secret: only this server, for this session,
// can write one (a cookie planted from a sibling domain or an old session does not verify).
func flashMAC(c *fiber.Ctx, payload string) string {
	m := hmac.New(sha256.New, []byte("capgate flash\x00"+viewerOf(c).session.CSRF))
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func setFlash(c *fiber.Ctx, kind, msg string) {
	if len(msg) > maxFlash {
		msg = strings.ToValidUTF8(msg[:maxFlash], "") + "…"
	}
	payload := base64.RawURLEncoding.EncodeToString([]byte(kind + "\n" + msg))
	setCookie(c, flashCookie, payload+"."+flashMAC(c, payload), time.Minute)
}

// takeFlash reads and clears the flash cookie; one that does not verify shows nothing.
func (cn *Console) takeFlash(c *fiber.Ctx) (ok, failed string) {
	raw := c.Cookies(flashCookie)
	if raw == "" {
		return "", ""
	}
	clearCookie(c, flashCookie)
	payload, mac, found := strings.Cut(raw, ".")
	if !found || !hmac.Equal([]byte(mac), []byte(flashMAC(c, payload))) {
		return "", ""
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return "", ""
	}
	kind, msg, _ := strings.Cut(string(b), "\n")
	if kind == flashError {
		return "", msg
	}
	return msg, ""
}

// requireUser loads the session; POSTs must carry its CSRF token, and a suspended tenant's
// users may look but change nothing (signing out aside; an admin keeps the admin pages, or a
// suspended admin tenant could never be restored).
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
		return err
	}
	p, err := cn.store.Plan(ctx, t.PlanID)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Locals("viewer", &viewer{user: u, tenant: t, plan: p, session: s})
	if c.Method() != fiber.MethodGet && c.Method() != fiber.MethodHead {
		if subtle.ConstantTimeCompare([]byte(c.FormValue("_csrf")), []byte(s.CSRF)) != 1 {
			c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
			return c.Status(fiber.StatusForbidden).SendString("forbidden: the form's CSRF token is missing or wrong; reload the page")
		}
		adminChange := u.Role == tenants.RoleAdmin && strings.HasPrefix(c.Path(), "/console/admin/")
		if t.Status == tenants.StatusSuspended && c.Path() != "/console/logout" && !adminChange {
			return render(c, fiber.StatusForbidden, views.Layout("Account suspended", viewerOf(c).nav(""), views.Suspended()))
		}
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
	c.Set(fiber.HeaderCacheControl, "no-store")
	return render(c, fiber.StatusOK, views.Layout("Sign in", views.Nav{}, views.Login("", token)))
}

// login checks the double-submit CSRF token, the failed sign-in limits and the password.
func (cn *Console) login(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	token := c.Cookies(loginCookie)
	if token == "" || subtle.ConstantTimeCompare([]byte(c.FormValue("_csrf")), []byte(token)) != 1 {
		c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
		return c.Status(fiber.StatusForbidden).SendString("forbidden: the sign-in form's CSRF token is missing or wrong; reload the page")
	}
	ctx := c.UserContext()
	email := c.FormValue("email")
	// The account's key is the normalised email the user lookup matches on, so every spelling
	// of one address spends one allowance.
	account, address := "email:"+tenants.NormalizeEmail(email), "ip:"+c.IP()
	signInPage := func(status int, msg string) error {
		return render(c, status, views.Layout("Sign in", views.Nav{Error: msg}, views.Login(email, token)))
	}
	// Both attempts are taken before the password is checked: concurrent guesses cannot all
	// pass a check that only counted failures after bcrypt (150 at once were all checked).
	counters := []struct {
		key   string
		limit SignInLimit
	}{{account, cn.opts.SignInLimits.PerEmail}, {address, cn.opts.SignInLimits.PerAddress}}
	var taken []Attempt
	giveBack := func() {
		for _, a := range taken {
			if err := a.Give(ctx); err != nil {
				cn.log.Error("sign-in limiter unavailable", "err", err)
			}
		}
	}
	for _, k := range counters {
		a, wait, err := cn.limiter.Take(ctx, k.key, k.limit)
		if err != nil {
			// Without its counters the limit cannot hold: refuse rather than allow unlimited guesses.
			giveBack()
			cn.log.Error("sign-in limiter unavailable", "err", err)
			return signInPage(fiber.StatusServiceUnavailable, "Sign-in is unavailable right now. Try again shortly.")
		}
		if a == nil {
			giveBack()
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int(wait.Seconds())+1))
			return signInPage(fiber.StatusTooManyRequests, "Too many failed sign-ins. Try again in a few minutes.")
		}
		taken = append(taken, a)
	}
	u, err := cn.store.CheckPassword(ctx, email, c.FormValue("password"))
	if err != nil {
		return signInPage(fiber.StatusUnauthorized, "The email or password is not right.") // the attempts stay spent
	}
	giveBack() // a success is not a failure: the address gets its attempt back
	// Only the account's own counter starts over; the address keeps its failures, so signing in
	// to one's own account does not buy more guesses at another.
	if err := cn.limiter.Reset(ctx, account); err != nil {
		cn.log.Error("sign-in limiter unavailable", "err", err)
	}
	raw, _, err := cn.store.CreateConsoleSession(ctx, u.ID, SessionTTL)
	if err != nil {
		return err
	}
	setCookie(c, sessionCookie, raw, SessionTTL)
	clearCookie(c, loginCookie)
	return c.Redirect(returnTo(c), fiber.StatusSeeOther)
}

func (cn *Console) logout(c *fiber.Ctx) error {
	_ = cn.store.DeleteConsoleSession(c.UserContext(), c.Cookies(sessionCookie))
	clearCookie(c, sessionCookie)
	return c.Redirect("/console/login", fiber.StatusSeeOther)
}

// ApplyProviderSettings applies the provider settings stored now (the admin API calls it after
// a change, so the instance that took the change follows it at once).
func (cn *Console) ApplyProviderSettings(ctx context.Context) { cn.applyProviderSettings(ctx) }

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

// ChangeRoutes lists the state-changing routes (any method but GET and HEAD) the console has
// mounted on app; the audit test holds every one to writing an audit row.
func ChangeRoutes(app *fiber.App) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range app.GetRoutes(true) {
		if r.Method == fiber.MethodGet || r.Method == fiber.MethodHead || !strings.HasPrefix(r.Path, "/console") || seen[r.Path] {
			continue
		}
		seen[r.Path] = true
		out = append(out, r.Path)
	}
	return out
}

package console

// The authorization endpoint of the gateway's OAuth 2.1 server (issue 32): an MCP host sends
// the account owner here; signed in (or after signing in, returning here), the owner picks the
// mode and the capabilities the host may use and allows or denies. Allowing records a grant
// (tenants/oauth.go) and sends the browser back to the client's registered redirect URI with a
// one-time code, which the client exchanges at /oauth/token with its PKCE verifier
// (gateway/oauth.go). Grants are listed on the keys page and revoked there, audited.
//
// A request whose client or redirect URI cannot be trusted is answered on a page of its own
// (never redirected: RFC 6749 §4.1.2.1); any other error goes back to the client as
// ?error=…&state=….

import (
	"encoding/base64"
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/tenants"
)

const (
	auditOAuthGrant  = "oauth.grant"
	auditOAuthRevoke = "oauth.revoke"
	// returnCookie holds the authorization request a sign-in returns to.
	returnCookie = "capgate_return"
	oauthPath    = "/console/oauth/authorize"
	maxReturn    = 4000
	maxState     = 500
)

var hostPattern = regexp.MustCompile(`^[A-Za-z0-9.\-\[\]:]+$`)

// authzRequest is an authorization request's parameters (query of the GET, form of the POST).
type authzRequest struct {
	client                                       *tenants.OAuthClient
	clientID, redirectURI, state, challenge, res string
}

// oauthPageError is an authorization request answered on a page of its own.
func (cn *Console) oauthPageError(c *fiber.Ctx, msg string) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	nav := views.Nav{}
	if v := viewerOf(c); v != nil {
		nav = v.nav("")
	}
	return render(c, fiber.StatusBadRequest, views.Layout("Sign-in refused", nav, views.OAuthErrorPage(msg)))
}

// readAuthz checks the client and the redirect URI; on failure it has answered the page.
func (cn *Console) readAuthz(c *fiber.Ctx, get func(string) string) (*authzRequest, bool, error) {
	r := &authzRequest{clientID: get("client_id"), redirectURI: get("redirect_uri"), state: get("state"),
		challenge: get("code_challenge"), res: get("resource")}
	if r.clientID == "" {
		return nil, false, cn.oauthPageError(c, "The request names no client (client_id is missing).")
	}
	cl, err := cn.store.OAuthClientByID(c.UserContext(), r.clientID)
	if errors.Is(err, tenants.ErrNotFound) {
		return nil, false, cn.oauthPageError(c, "The client is not registered with this gateway.")
	}
	if err != nil {
		return nil, false, err
	}
	r.client = cl
	if r.redirectURI == "" && len(cl.RedirectURIs) == 1 {
		r.redirectURI = cl.RedirectURIs[0]
	}
	if !cl.Allows(r.redirectURI) {
		return nil, false, cn.oauthPageError(c, "The redirect URI is not one the client registered.")
	}
	return r, true, nil
}

// sendBack redirects the browser to the client with the query parameters (state and iss added).
func (cn *Console) sendBack(c *fiber.Ctx, r *authzRequest, params url.Values) error {
	u, err := url.Parse(r.redirectURI)
	if err != nil {
		return cn.oauthPageError(c, "The redirect URI is not a URL.")
	}
	q := u.Query()
	for k, vs := range params {
		q[k] = vs
	}
	if r.state != "" {
		q.Set("state", r.state)
	}
	q.Set("iss", cn.opts.PublicURL)
	u.RawQuery = q.Encode()
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Redirect(u.String(), fiber.StatusSeeOther)
}

func (cn *Console) sendError(c *fiber.Ctx, r *authzRequest, code, desc string) error {
	return cn.sendBack(c, r, url.Values{"error": {code}, "error_description": {desc}})
}

// checkAuthz checks what is sent back as an error: the response type, PKCE (S256 only) and the
// resource. It returns false when it has answered.
func (cn *Console) checkAuthz(c *fiber.Ctx, r *authzRequest, get func(string) string) (bool, error) {
	if len(r.state) > maxState {
		return false, cn.sendError(c, &authzRequest{redirectURI: r.redirectURI}, "invalid_request", "state is too long")
	}
	if get("response_type") != "code" {
		return false, cn.sendError(c, r, "unsupported_response_type", "response_type must be code")
	}
	if m := get("code_challenge_method"); m != "S256" {
		return false, cn.sendError(c, r, "invalid_request", "PKCE with code_challenge_method=S256 is required (plain is not accepted)")
	}
	if !tenants.ValidCodeChallenge(r.challenge) {
		return false, cn.sendError(c, r, "invalid_request", "code_challenge must be 43 base64url characters (S256)")
	}
	if r.res != "" {
		res := strings.TrimRight(r.res, "/")
		if res != cn.opts.PublicURL+"/mcp" && res != cn.opts.PublicURL {
			return false, cn.sendError(c, r, "invalid_target", "resource must be "+cn.opts.PublicURL+"/mcp")
		}
	}
	return true, nil
}

// authorizePage is the authorization endpoint (GET): it checks the request, has the owner sign
// in when needed and shows the consent page.
func (cn *Console) authorizePage(c *fiber.Ctx) error {
	get := func(k string) string { return c.Query(k) }
	r, ok, err := cn.readAuthz(c, get)
	if !ok {
		return err
	}
	if ok, err := cn.checkAuthz(c, r, get); !ok {
		return err
	}
	if !cn.signedIn(c) {
		if ret := c.OriginalURL(); len(ret) <= maxReturn {
			setCookie(c, returnCookie, base64.RawURLEncoding.EncodeToString([]byte(ret)), time.Hour)
		}
		return c.Redirect("/console/login", fiber.StatusSeeOther)
	}
	return cn.requireUser(c) // loads the viewer, then consentPage (c.Next)
}

// signedIn tells whether the request carries a live console session.
func (cn *Console) signedIn(c *fiber.Ctx) bool {
	raw := c.Cookies(sessionCookie)
	if raw == "" {
		return false
	}
	_, err := cn.store.ConsoleSession(c.UserContext(), raw)
	return err == nil
}

// returnTo is where a sign-in goes: back to the authorization request it interrupted, or the
// overview. Only the console's own authorization path is ever followed.
func returnTo(c *fiber.Ctx) string {
	raw := c.Cookies(returnCookie)
	if raw == "" {
		return "/console/"
	}
	clearCookie(c, returnCookie)
	b, err := base64.RawURLEncoding.DecodeString(raw)
	ret := string(b)
	if err != nil || !strings.HasPrefix(ret, oauthPath+"?") || strings.ContainsAny(ret, "\\\r\n") {
		return "/console/"
	}
	return ret
}

func (cn *Console) consentTopics(checked []string) []views.ConsentTopic {
	var out []views.ConsentTopic
	idx := map[string]int{}
	for _, cp := range cn.opts.Capabilities {
		k := tenants.TopicKey(cp.Topic)
		if k == "" {
			continue
		}
		if i, ok := idx[k]; ok {
			out[i].Count++
			continue
		}
		idx[k] = len(out)
		out = append(out, views.ConsentTopic{Key: k, Name: cp.Topic, Count: 1, Checked: slices.Contains(checked, k)})
	}
	slices.SortFunc(out, func(a, b views.ConsentTopic) int { return strings.Compare(a.Key, b.Key) })
	return out
}

func (cn *Console) renderConsent(c *fiber.Ctx, status int, r *authzRequest, mode string, topics []string, capabilities, msg string) error {
	v := viewerOf(c)
	host := ""
	if u, err := url.Parse(r.redirectURI); err == nil {
		host = u.Scheme + "://" + u.Host
	}
	o := views.OAuthConsent{ClientName: r.client.Name, ClientID: r.client.ID, RedirectHost: host, RedirectURI: r.redirectURI, State: r.state,
		Challenge: r.challenge, Resource: r.res, Mode: mode, Topics: cn.consentTopics(topics), Capabilities: capabilities, Error: msg}
	nav := v.nav("keys")
	// The form is answered by a redirect to the client: a browser holds that redirect to the
	// page's form-action, so it names the client's origin besides this one.
	if u, err := url.Parse(r.redirectURI); err == nil {
		target := ""
		switch {
		case (u.Scheme == "https" || u.Scheme == "http") && hostPattern.MatchString(u.Host):
			target = u.Scheme + "://" + u.Host
		case tenants.PrivateUseScheme(u.Scheme):
			target = u.Scheme + ":" // a native app's scheme (RFC 8252 §7.1)
		}
		if target != "" {
			c.Set(fiber.HeaderContentSecurityPolicy, "default-src 'self'; img-src 'self' data: https:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self' "+
				target+"; base-uri 'none'")
		}
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return render(c, status, views.Layout("Connect "+r.client.Name, nav, views.OAuthConsentPage(nav, o)))
}

func (cn *Console) consentPage(c *fiber.Ctx) error {
	r, ok, err := cn.readAuthz(c, func(k string) string { return c.Query(k) })
	if !ok {
		return err
	}
	return cn.renderConsent(c, fiber.StatusOK, r, tenants.ModeTest, nil, "", "")
}

// authorize is the owner's answer (POST, CSRF-checked by requireUser): deny sends
// access_denied back; allow records the grant and sends the code back.
func (cn *Console) authorize(c *fiber.Ctx) error {
	get := func(k string) string { return c.FormValue(k) }
	r, ok, err := cn.readAuthz(c, get)
	if !ok {
		return err
	}
	if ok, err := cn.checkAuthz(c, r, get); !ok {
		return err
	}
	if c.FormValue("decision") != "allow" {
		return cn.sendError(c, r, "access_denied", "the account owner denied the request")
	}
	v := viewerOf(c)
	mode := c.FormValue("mode")
	var topics []string
	for _, t := range c.Request().PostArgs().PeekMulti("topic") {
		topics = append(topics, string(t))
	}
	capabilities := c.FormValue("capabilities")
	if mode != tenants.ModeLive && mode != tenants.ModeTest {
		return cn.renderConsent(c, fiber.StatusBadRequest, r, tenants.ModeTest, topics, capabilities, "Pick the mode: live or test.")
	}
	scope, err := tenants.NewScope(strings.Split(capabilities, ","), topics)
	if err == nil {
		var ids, all []string
		for _, cp := range cn.opts.Capabilities {
			ids, all = append(ids, cp.ID), append(all, cp.Topic)
		}
		err = scope.CheckKnown(ids, all)
	}
	if err != nil {
		return cn.renderConsent(c, fiber.StatusBadRequest, r, mode, topics, capabilities, err.Error())
	}
	g, code, err := cn.store.CreateOAuthGrant(c.UserContext(), tenants.GrantRequest{TenantID: v.tenant.ID, GrantedBy: v.user.Email, Mode: mode, Scope: scope,
		Client: r.client, RedirectURI: r.redirectURI, Challenge: r.challenge, Resource: r.res})
	if err != nil {
		var oe *tenants.OAuthError
		if errors.As(err, &oe) {
			return cn.sendError(c, r, oe.Code, oe.Description)
		}
		return err
	}
	cn.record(c, auditOAuthGrant, g.ID, nil, grantState(g))
	return cn.sendBack(c, r, url.Values{"code": {code}})
}

func grantState(g *tenants.OAuthGrant) state {
	return state{"tenant_id": g.TenantID, "client": g.ClientName, "client_id": g.ClientID, "mode": g.Mode, "scope": g.Scope.String(), "revoked": g.RevokedAt != nil}
}

func (cn *Console) grantRows(c *fiber.Ctx, mode string) ([]views.GrantRow, error) {
	gs, err := cn.store.OAuthGrants(c.UserContext(), viewerOf(c).tenant.ID)
	if err != nil {
		return nil, err
	}
	var rows []views.GrantRow
	for _, g := range gs {
		if g.Mode != mode {
			continue
		}
		rows = append(rows, views.GrantRow{ID: g.ID, Client: g.ClientName, GrantedBy: g.GrantedBy, Scope: g.Scope.String(), Created: g.CreatedAt,
			LastUsed: g.LastUsedAt, Revoked: g.RevokedAt != nil})
	}
	return rows, nil
}

func (cn *Console) revokeGrant(c *fiber.Ctx) error {
	v := viewerOf(c)
	g, err := cn.store.RevokeOAuthGrant(c.UserContext(), c.Params("id"), v.tenant.ID)
	if err != nil {
		if errors.Is(err, tenants.ErrNotFound) {
			return cn.notFound(c)
		}
		return err
	}
	cn.opts.AccessChanged()
	before := grantState(g)
	after := grantState(g)
	after["revoked"] = true
	cn.record(c, auditOAuthRevoke, g.ID, before, after)
	return back(c, "/console/keys?mode="+url.QueryEscape(g.Mode), "Access of "+g.ClientName+" revoked.", nil)
}

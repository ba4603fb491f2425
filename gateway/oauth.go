package gateway

// OAuth 2.1 sign-in for MCP hosts (issue 32), the protocol side; the consent page is the
// console's (console/oauth.go) and the storage tenants/oauth.go.
//
//   - /.well-known/oauth-protected-resource[/mcp]: RFC 9728 protected-resource metadata, the
//     MCP Go SDK's oauthex.ProtectedResourceMetadata. A 401 of the API names it in
//     WWW-Authenticate: Bearer resource_metadata="…".
//   - /.well-known/oauth-authorization-server: RFC 8414 metadata; the issuer is the public URL.
//   - POST /oauth/register: RFC 7591 dynamic registration of public clients (PKCE, no secret).
//   - POST /oauth/token: authorization_code (PKCE S256 only) and refresh_token (rotating).
//   - POST /oauth/revoke: RFC 7009.
//
// Errors of these endpoints are OAuth's JSON ({"error", "error_description"}), not the API's
// envelope: OAuth clients read that shape.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/capgate/capgate/tenants"
)

// OAuth defaults.
const (
	DefaultOAuthAccessTTL  = time.Hour
	DefaultOAuthRefreshTTL = 30 * 24 * time.Hour
	// DefaultOAuthRegistrationsPerMinute limits dynamic registrations per client address.
	DefaultOAuthRegistrationsPerMinute = 10
	// oauthTokenCallsPerMinute limits token and revocation requests per client address.
	oauthTokenCallsPerMinute = 120
	maxRegistrationBody      = 16 << 10
	// ConsentPath is the console's authorization endpoint (it needs the owner's console session).
	ConsentPath = "/console/oauth/authorize"
)

// oauthStore is the storage of the OAuth endpoints (tenants.Store).
type oauthStore interface {
	RegisterOAuthClient(ctx context.Context, name string, redirectURIs []string) (*tenants.OAuthClient, error)
	RedeemOAuthCode(ctx context.Context, code, clientID, redirectURI, verifier, resource string, ttl tenants.OAuthTTLs) (*tenants.OAuthTokenPair, error)
	RefreshOAuth(ctx context.Context, refresh, clientID string, ttl tenants.OAuthTTLs) (*tenants.OAuthTokenPair, error)
	RevokeOAuthToken(ctx context.Context, raw, clientID string) (*tenants.OAuthGrant, error)
	OAuthAccess(ctx context.Context, hash string) (*tenants.OAuthGrant, time.Time, error)
	TouchOAuthGrant(ctx context.Context, id string, at time.Time) error
	SweepOAuth(ctx context.Context) (int64, error)
}

func (s *Server) oauthRoutes() {
	app := s.app
	app.Get("/.well-known/oauth-protected-resource", s.protectedResourceMetadata(""))
	app.Get("/.well-known/oauth-protected-resource/mcp", s.protectedResourceMetadata("/mcp"))
	app.Get("/.well-known/oauth-authorization-server", s.authServerMetadata)
	app.Post("/oauth/register", s.oauthLimit("oauth-register", s.opts.OAuthRegistrationsPerMinute), s.oauthRegister)
	app.Post("/oauth/token", s.oauthLimit("oauth-token", oauthTokenCallsPerMinute), s.oauthToken)
	app.Post("/oauth/revoke", s.oauthLimit("oauth-token", oauthTokenCallsPerMinute), s.oauthRevoke)
}

// MCPResource is the resource identifier of /mcp (RFC 8707), the audience of access tokens.
func (s *Server) MCPResource() string { return s.opts.PublicURL + "/mcp" }

// resourceMetadataURL is the RFC 9728 metadata URL of the resource a path belongs to.
func (s *Server) resourceMetadataURL(path string) string {
	if path == "/mcp" {
		return s.opts.PublicURL + "/.well-known/oauth-protected-resource/mcp"
	}
	return s.opts.PublicURL + "/.well-known/oauth-protected-resource"
}

func (s *Server) protectedResourceMetadata(suffix string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		m := oauthex.ProtectedResourceMetadata{
			Resource:               s.opts.PublicURL + suffix,
			AuthorizationServers:   []string{s.opts.PublicURL},
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "capgate",
			ResourceDocumentation:  s.opts.PublicURL + "/console/docs",
		}
		c.Set(fiber.HeaderCacheControl, "public, max-age=300")
		return c.JSON(m)
	}
}

// authServerMeta is RFC 8414's document (oauthex.AuthServerMeta always writes jwks_uri, which
// this server, issuing opaque tokens, has none of).
type authServerMeta struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ServiceDocumentation              string   `json:"service_documentation"`
	AuthorizationResponseIssSupported bool     `json:"authorization_response_iss_parameter_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
}

func (s *Server) authServerMetadata(c *fiber.Ctx) error {
	p := s.opts.PublicURL
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	return c.JSON(authServerMeta{
		Issuer: p, AuthorizationEndpoint: p + ConsentPath, TokenEndpoint: p + "/oauth/token",
		RegistrationEndpoint: p + "/oauth/register", RevocationEndpoint: p + "/oauth/revoke",
		ResponseTypesSupported: []string{"code"}, ResponseModesSupported: []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported: []string{"none"}, RevocationEndpointAuthMethods: []string{"none"},
		CodeChallengeMethodsSupported: []string{"S256"}, ServiceDocumentation: p + "/console/docs",
		AuthorizationResponseIssSupported: true,
	})
}

// oauthError answers an OAuth error (RFC 6749 §5.2): 400, or 401 for invalid_client.
func oauthError(c *fiber.Ctx, status int, code, desc string) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("Pragma", "no-cache")
	return c.Status(status).JSON(fiber.Map{"error": code, "error_description": desc})
}

// oauthFailure maps a storage error to the OAuth answer; anything else is a 500-free
// temporarily_unavailable (RFC 6749's error for an outage) with the cause logged.
func (s *Server) oauthFailure(c *fiber.Ctx, err error) error {
	var oe *tenants.OAuthError
	if errors.As(err, &oe) {
		status := fiber.StatusBadRequest
		if oe.Code == "invalid_client" {
			status = fiber.StatusUnauthorized
		}
		return oauthError(c, status, oe.Code, oe.Description)
	}
	var inv *tenants.InvalidError
	if errors.As(err, &inv) {
		return oauthError(c, fiber.StatusBadRequest, "invalid_request", inv.Message)
	}
	s.log.Warn("oauth request failed", "request_id", requestID(c), "path", c.Path(), "err", err)
	return oauthError(c, fiber.StatusServiceUnavailable, "temporarily_unavailable", "the account store is unavailable; retry shortly")
}

// oauthLimit limits requests per client address (the OAuth endpoints need no key, so the plan's
// limit cannot apply); the limiter failing lets requests pass, as for the API.
func (s *Server) oauthLimit(space string, perMinute int) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if perMinute <= 0 {
			return c.Next()
		}
		rr, err := s.opts.Limiter.Allow(c.UserContext(), space+":"+c.IP(), perMinute)
		if err == nil && !rr.Allowed {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(max(1, int(rr.RetryAfter.Seconds()+0.5))))
			return oauthError(c, fiber.StatusTooManyRequests, "slow_down", "too many requests from this address; retry after Retry-After seconds")
		}
		return c.Next()
	}
}

// oauthRegister is RFC 7591 registration of a public client: redirect URIs must be https, or
// http on loopback; the client authenticates at the token endpoint with PKCE alone ("none").
func (s *Server) oauthRegister(c *fiber.Ctx) error {
	body := c.Body()
	if len(body) > maxRegistrationBody {
		return oauthError(c, fiber.StatusBadRequest, "invalid_client_metadata", "the registration request must be at most 16 KiB")
	}
	if ct := c.Get(fiber.HeaderContentType); !strings.HasPrefix(strings.ToLower(ct), fiber.MIMEApplicationJSON) {
		return oauthError(c, fiber.StatusBadRequest, "invalid_client_metadata", "send the client metadata as application/json")
	}
	var m oauthex.ClientRegistrationMetadata
	if err := json.Unmarshal(body, &m); err != nil {
		return oauthError(c, fiber.StatusBadRequest, "invalid_client_metadata", "the body is not client metadata JSON: "+clip(err.Error(), 200))
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return oauthError(c, fiber.StatusBadRequest, "invalid_client_metadata", "grant_types may list authorization_code and refresh_token only")
		}
	}
	for _, rt := range m.ResponseTypes {
		if rt != "code" {
			return oauthError(c, fiber.StatusBadRequest, "invalid_client_metadata", "response_types may list code only")
		}
	}
	cl, err := s.store.RegisterOAuthClient(c.UserContext(), m.ClientName, m.RedirectURIs)
	if err != nil {
		return s.oauthFailure(c, err)
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{
		"client_id": cl.ID, "client_id_issued_at": cl.CreatedAt.Unix(), "client_name": cl.Name,
		"redirect_uris": []string(cl.RedirectURIs), "token_endpoint_auth_method": "none",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
	})
}

// basicAuth decodes an HTTP Basic credential.
func basicAuth(b64 string) (user, password string, ok bool) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return "", "", false
	}
	return strings.Cut(string(raw), ":")
}

// clientID is the client of a token or revocation request: the client_id form field, or the
// user of HTTP Basic authentication (a public client's empty password).
func clientID(c *fiber.Ctx) string {
	if id := c.FormValue("client_id"); id != "" {
		return id
	}
	h := c.Get(fiber.HeaderAuthorization)
	if scheme, rest, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "Basic") {
		if u, _, ok := basicAuth(rest); ok {
			if id, err := url.QueryUnescape(u); err == nil {
				return id
			}
		}
	}
	return ""
}

func (s *Server) oauthTTLs() tenants.OAuthTTLs {
	return tenants.OAuthTTLs{Access: s.opts.OAuthAccessTTL, Refresh: s.opts.OAuthRefreshTTL}
}

// checkResource refuses an RFC 8707 resource other than /mcp or the gateway itself.
func (s *Server) checkResource(resource string) bool {
	if resource == "" {
		return true
	}
	r := strings.TrimRight(resource, "/")
	return r == s.MCPResource() || r == s.opts.PublicURL
}

func (s *Server) oauthToken(c *fiber.Ctx) error {
	if !strings.HasPrefix(strings.ToLower(c.Get(fiber.HeaderContentType)), fiber.MIMEApplicationForm) {
		return oauthError(c, fiber.StatusBadRequest, "invalid_request", "send the token request as application/x-www-form-urlencoded")
	}
	id := clientID(c)
	if id == "" {
		return oauthError(c, fiber.StatusUnauthorized, "invalid_client", "client_id is required")
	}
	resource := c.FormValue("resource")
	if !s.checkResource(resource) {
		return oauthError(c, fiber.StatusBadRequest, "invalid_target", "resource must be "+s.MCPResource())
	}
	var pair *tenants.OAuthTokenPair
	var err error
	switch gt := c.FormValue("grant_type"); gt {
	case "authorization_code":
		pair, err = s.store.RedeemOAuthCode(c.UserContext(), c.FormValue("code"), id, c.FormValue("redirect_uri"), c.FormValue("code_verifier"), resource, s.oauthTTLs())
	case "refresh_token":
		pair, err = s.store.RefreshOAuth(c.UserContext(), c.FormValue("refresh_token"), id, s.oauthTTLs())
	case "":
		return oauthError(c, fiber.StatusBadRequest, "invalid_request", "grant_type is required")
	default:
		return oauthError(c, fiber.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
	}
	if err != nil {
		if errors.Is(err, tenants.ErrNotFound) {
			return oauthError(c, fiber.StatusBadRequest, "invalid_grant", "the grant is unknown")
		}
		// A refresh token reused or a code replayed revoked a grant: this instance stops serving
		// its tokens from the cache at once.
		if oe := (*tenants.OAuthError)(nil); errors.As(err, &oe) && oe.Revoked {
			s.auth.forget()
			s.log.Warn("oauth grant revoked: a code or refresh token was used twice", "request_id", requestID(c), "client", clientID(c))
		}
		return s.oauthFailure(c, err)
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("Pragma", "no-cache")
	return c.JSON(fiber.Map{"access_token": pair.Access, "token_type": "Bearer", "expires_in": int(pair.AccessExpiresIn.Seconds()),
		"refresh_token": pair.Refresh, "scope": grantScope(pair.Grant)})
}

// grantScope describes a grant in the token response's scope field: the mode and what it may use.
func grantScope(g *tenants.OAuthGrant) string {
	parts := []string{"mode:" + g.Mode}
	for _, id := range g.Scope.Capabilities {
		parts = append(parts, "capability:"+id)
	}
	for _, t := range g.Scope.Topics {
		parts = append(parts, "topic:"+t)
	}
	return strings.Join(parts, " ")
}

// oauthRevoke is RFC 7009: the grant of the token (access or refresh) is revoked with all its
// tokens; an unknown token is answered 200 too.
func (s *Server) oauthRevoke(c *fiber.Ctx) error {
	if !strings.HasPrefix(strings.ToLower(c.Get(fiber.HeaderContentType)), fiber.MIMEApplicationForm) {
		return oauthError(c, fiber.StatusBadRequest, "invalid_request", "send the revocation request as application/x-www-form-urlencoded")
	}
	id := clientID(c)
	if id == "" {
		return oauthError(c, fiber.StatusUnauthorized, "invalid_client", "client_id is required")
	}
	tok := c.FormValue("token")
	if tok == "" {
		return oauthError(c, fiber.StatusBadRequest, "invalid_request", "token is required")
	}
	g, err := s.store.RevokeOAuthToken(c.UserContext(), tok, id)
	if err != nil {
		return s.oauthFailure(c, err)
	}
	if g != nil {
		s.auth.forget()
		s.log.Info("oauth grant revoked by its client", "grant", g.ID, "tenant", g.TenantID, "client", g.ClientID)
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.SendStatus(fiber.StatusOK)
}

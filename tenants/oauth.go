package tenants

// OAuth 2.1 for MCP hosts (issue 32): the gateway is its own authorization server. An account
// owner's consent makes a grant (tenant, mode, scope) for a registered client; the grant's
// authorization code is exchanged once, with PKCE (S256), for a short-lived access token and a
// refresh token. Refresh tokens rotate: each is used once, and presenting one already used
// revokes the whole grant (its family), since either the client or a thief holds a copy. Every
// code and token is stored only as its SHA-256 hash, like API keys.

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"database/sql/driver"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// OAuth limits.
const (
	OAuthMaxRedirectURIs = 5
	OAuthMaxRedirectURI  = 500
	OAuthMaxClientName   = 100
	// OAuthCodeTTL is how long an authorization code may be exchanged.
	OAuthCodeTTL = time.Minute
)

// Token kinds.
const (
	oauthAccess  = "access"
	oauthRefresh = "refresh"
)

var (
	accessTokenPattern  = regexp.MustCompile(`^cap_oat_[0-9A-Za-z]{40}$`)
	refreshTokenPattern = regexp.MustCompile(`^cap_ort_[0-9A-Za-z]{40}$`)
	codePattern         = regexp.MustCompile(`^[0-9A-Za-z]{43}$`)
	// RFC 7636 §4.1: 43 to 128 unreserved characters.
	verifierPattern  = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)
	challengePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`) // base64url(SHA-256), no padding
)

// WellFormedAccessToken tells whether s has the shape of an OAuth access token of this gateway.
func WellFormedAccessToken(s string) bool { return accessTokenPattern.MatchString(s) }

// ValidCodeChallenge tells whether s is an S256 code challenge (43 base64url characters).
func ValidCodeChallenge(s string) bool { return challengePattern.MatchString(s) }

// OAuthError is a refusal of the OAuth endpoints: Code is the RFC 6749 error code
// (invalid_grant, invalid_request, invalid_client, invalid_target, ...).
type OAuthError struct {
	Code, Description string
	// Revoked: the request revoked a grant (a replayed code, a reused refresh token).
	Revoked bool
}

func (e *OAuthError) Error() string { return e.Code + ": " + e.Description }

func oauthErr(code, desc string) error { return &OAuthError{Code: code, Description: desc} }

// OAuthClient is a client registered dynamically (RFC 7591): a public client (no secret) that
// proves itself with PKCE and its registered redirect URIs.
type OAuthClient struct {
	bun.BaseModel `bun:"table:oauth_clients"`

	ID           string    `bun:"id,pk"`
	Name         string    `bun:"name"`
	RedirectURIs URIList   `bun:"redirect_uris,type:text"`
	CreatedAt    time.Time `bun:"created_at"`
}

// URIList is stored as JSON text.
type URIList []string

// Value stores the list as JSON.
func (l URIList) Value() (driver.Value, error) {
	b, err := json.Marshal([]string(l))
	return string(b), err
}

// Scan reads the JSON form.
func (l *URIList) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case string:
		b = []byte(v)
	case []byte:
		b = v
	case nil:
		*l = nil
		return nil
	default:
		return fmt.Errorf("uri list: cannot scan %T", src)
	}
	return json.Unmarshal(b, (*[]string)(l))
}

// Allows tells whether uri is exactly one of the client's registered redirect URIs (no prefix
// or pattern matching: OAuth 2.1 §4.1.1 requires an exact match). A loopback redirect URI may
// differ in its port only (RFC 8252 §7.3: native apps take an ephemeral port).
func (c *OAuthClient) Allows(uri string) bool {
	for _, r := range c.RedirectURIs {
		if r == uri {
			return true
		}
		if sameLoopbackButPort(r, uri) {
			return true
		}
	}
	return false
}

func sameLoopbackButPort(registered, uri string) bool {
	a, err1 := url.Parse(registered)
	b, err2 := url.Parse(uri)
	if err1 != nil || err2 != nil || a.Scheme != "http" || b.Scheme != "http" || !isLoopback(a.Hostname()) {
		return false
	}
	return a.Hostname() == b.Hostname() && a.EscapedPath() == b.EscapedPath() && a.RawQuery == b.RawQuery && b.Fragment == "" && b.User == nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckRedirectURI refuses a redirect URI that is not absolute https, or http on a loopback
// host (RFC 8252 §7.3), or that carries a fragment or user info, or is too long.
func CheckRedirectURI(raw string) error {
	if len(raw) > OAuthMaxRedirectURI {
		return oauthErr("invalid_redirect_uri", fmt.Sprintf("a redirect URI must be at most %d characters", OAuthMaxRedirectURI))
	}
	if checkText("redirect_uri", raw) != nil || strings.ContainsAny(raw, " \t\r\n") {
		return oauthErr("invalid_redirect_uri", "a redirect URI must be a plain URL")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" || (u.Host == "" && (u.Scheme == "http" || u.Scheme == "https" || u.Path == "")) {
		return oauthErr("invalid_redirect_uri", fmt.Sprintf("redirect URI %q is not an absolute URL", clipText(raw)))
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return oauthErr("invalid_redirect_uri", "a redirect URI must not have a fragment")
	}
	if u.User != nil {
		return oauthErr("invalid_redirect_uri", "a redirect URI must not carry user info")
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		return oauthErr("invalid_redirect_uri", fmt.Sprintf("redirect URI %q: http is allowed only on a loopback host (127.0.0.1, [::1], localhost); use https", clipText(raw)))
	case PrivateUseScheme(u.Scheme):
		return nil
	}
	return oauthErr("invalid_redirect_uri", fmt.Sprintf("redirect URI %q: the scheme must be https (or http on loopback, or a native app's own scheme such as cursor://)", clipText(raw)))
}

var privateScheme = regexp.MustCompile(`^[a-z][a-z0-9+.-]{1,62}$`)

// webSchemes are schemes a browser (or the OS) gives a meaning of their own: never a native app's
// private-use callback.
var webSchemes = map[string]bool{"javascript": true, "data": true, "file": true, "blob": true, "about": true, "vbscript": true, "ftp": true,
	"ws": true, "wss": true, "mailto": true, "tel": true, "sms": true, "filesystem": true, "view-source": true, "chrome": true, "intent": true,
	"content": true, "urn": true, "http": true, "https": true}

// PrivateUseScheme tells whether a redirect URI's scheme is a native app's own (RFC 8252 §7.1,
// such as Cursor's cursor://anysphere.cursor-mcp/oauth/callback) rather than one the web or the
// OS gives a meaning. Such a URI is matched exactly; PKCE protects its code from another app that
// claims the scheme (RFC 8252 §8.1).
func PrivateUseScheme(scheme string) bool {
	return privateScheme.MatchString(scheme) && !webSchemes[scheme]
}

// RegisterOAuthClient registers a public client with its redirect URIs.
func (s *Store) RegisterOAuthClient(ctx context.Context, name string, redirectURIs []string) (*OAuthClient, error) {
	name = strings.TrimSpace(name)
	if len(name) > OAuthMaxClientName || checkText("client_name", name) != nil {
		return nil, oauthErr("invalid_client_metadata", fmt.Sprintf("client_name must be valid text of at most %d characters", OAuthMaxClientName))
	}
	if name == "" {
		name = "MCP client"
	}
	if len(redirectURIs) == 0 {
		return nil, oauthErr("invalid_redirect_uri", "redirect_uris must list at least one redirect URI")
	}
	if len(redirectURIs) > OAuthMaxRedirectURIs {
		return nil, oauthErr("invalid_redirect_uri", fmt.Sprintf("redirect_uris lists at most %d URIs", OAuthMaxRedirectURIs))
	}
	for _, u := range redirectURIs {
		if err := CheckRedirectURI(u); err != nil {
			return nil, err
		}
	}
	c := &OAuthClient{ID: NewID("oac"), Name: name, RedirectURIs: redirectURIs, CreatedAt: Now()}
	if _, err := s.DB.NewInsert().Model(c).Exec(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// OAuthClientByID loads a registered client.
func (s *Store) OAuthClientByID(ctx context.Context, id string) (*OAuthClient, error) {
	c := new(OAuthClient)
	if !storable(id) || len(id) > 100 {
		return c, ErrNotFound
	}
	err := s.DB.NewSelect().Model(c).Where("id = ?", id).Scan(ctx)
	return c, notFound(err)
}

// OAuthGrant is what an account owner allowed a client: the tenant, the mode and the scope its
// tokens carry. Revoking it ends every token of it at once.
type OAuthGrant struct {
	bun.BaseModel `bun:"table:oauth_grants"`

	ID         string     `bun:"id,pk"`
	TenantID   string     `bun:"tenant_id"`
	ClientID   string     `bun:"client_id"`
	ClientName string     `bun:"client_name"`
	GrantedBy  string     `bun:"granted_by"`
	Mode       string     `bun:"mode"`
	Scope      Scope      `bun:"scope,type:text"`
	CreatedAt  time.Time  `bun:"created_at"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
}

type oauthCode struct {
	bun.BaseModel `bun:"table:oauth_codes"`

	Hash        string     `bun:"hash,pk"`
	GrantID     string     `bun:"grant_id"`
	ClientID    string     `bun:"client_id"`
	RedirectURI string     `bun:"redirect_uri"`
	Challenge   string     `bun:"challenge"`
	Resource    string     `bun:"resource"`
	ExpiresAt   time.Time  `bun:"expires_at"`
	UsedAt      *time.Time `bun:"used_at"`
}

// OAuthToken is a stored access or refresh token (its hash).
type OAuthToken struct {
	bun.BaseModel `bun:"table:oauth_tokens"`

	Hash      string     `bun:"hash,pk"`
	GrantID   string     `bun:"grant_id"`
	Kind      string     `bun:"kind"`
	CreatedAt time.Time  `bun:"created_at"`
	ExpiresAt time.Time  `bun:"expires_at"`
	UsedAt    *time.Time `bun:"used_at"`
}

// GrantRequest is an account owner's consent to a client's authorization request.
type GrantRequest struct {
	TenantID, GrantedBy, Mode string
	Scope                     Scope
	Client                    *OAuthClient
	RedirectURI, Challenge    string
	Resource                  string
}

// CreateOAuthGrant records a consent and returns its authorization code (shown once).
func (s *Store) CreateOAuthGrant(ctx context.Context, r GrantRequest) (*OAuthGrant, string, error) {
	if r.Mode != ModeLive && r.Mode != ModeTest {
		return nil, "", invalidf("mode", "mode must be live or test")
	}
	if !ValidCodeChallenge(r.Challenge) {
		return nil, "", oauthErr("invalid_request", "code_challenge must be an S256 challenge (43 base64url characters)")
	}
	if !r.Client.Allows(r.RedirectURI) {
		return nil, "", oauthErr("invalid_request", "redirect_uri is not registered for this client")
	}
	if err := checkTexts("granted_by", r.GrantedBy, "resource", r.Resource); err != nil {
		return nil, "", err
	}
	now := Now()
	g := &OAuthGrant{ID: NewID("oag"), TenantID: r.TenantID, ClientID: r.Client.ID, ClientName: r.Client.Name, GrantedBy: r.GrantedBy,
		Mode: r.Mode, Scope: r.Scope, CreatedAt: now}
	code := RandomString(43)
	err := s.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(g).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(&oauthCode{Hash: HashKey(code), GrantID: g.ID, ClientID: r.Client.ID, RedirectURI: r.RedirectURI,
			Challenge: r.Challenge, Resource: r.Resource, ExpiresAt: now.Add(OAuthCodeTTL)}).Exec(ctx)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return g, code, nil
}

// OAuthTokenPair is what the token endpoint hands out.
type OAuthTokenPair struct {
	Access, Refresh string
	AccessExpiresIn time.Duration
	Grant           *OAuthGrant
}

// OAuthTTLs are the lifetimes of the tokens issued.
type OAuthTTLs struct {
	Access, Refresh time.Duration
}

// S256 is the PKCE code challenge of a verifier: base64url(SHA-256(verifier)), no padding.
func S256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// RedeemOAuthCode exchanges an authorization code, once, for a token pair. The client, the
// redirect URI, the PKCE verifier and the resource (when the request named one) must match what
// the code was issued for. A code presented again revokes the grant and every token issued from
// it (OAuth 2.1 §4.1.3).
func (s *Store) RedeemOAuthCode(ctx context.Context, code, clientID, redirectURI, verifier, resource string, ttl OAuthTTLs) (*OAuthTokenPair, error) {
	if !codePattern.MatchString(code) {
		return nil, oauthErr("invalid_grant", "the authorization code is unknown, expired or already used")
	}
	if !verifierPattern.MatchString(verifier) {
		return nil, oauthErr("invalid_grant", "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636)")
	}
	c := new(oauthCode)
	if err := s.DB.NewSelect().Model(c).Where("hash = ?", HashKey(code)).Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, oauthErr("invalid_grant", "the authorization code is unknown, expired or already used")
		}
		return nil, err
	}
	if c.UsedAt != nil {
		if err := s.revokeGrant(ctx, c.GrantID); err != nil {
			return nil, err
		}
		return nil, &OAuthError{Code: "invalid_grant", Description: "the authorization code was already used; the grant and its tokens are revoked", Revoked: true}
	}
	now := Now()
	switch {
	case !now.Before(c.ExpiresAt):
		return nil, oauthErr("invalid_grant", "the authorization code is unknown, expired or already used")
	case c.ClientID != clientID:
		return nil, oauthErr("invalid_grant", "the authorization code was issued to another client")
	case c.RedirectURI != redirectURI:
		return nil, oauthErr("invalid_grant", "redirect_uri differs from the one of the authorization request")
	case subtle.ConstantTimeCompare([]byte(S256(verifier)), []byte(c.Challenge)) != 1:
		return nil, oauthErr("invalid_grant", "code_verifier does not match the code_challenge")
	case resource != "" && c.Resource != "" && resource != c.Resource:
		return nil, oauthErr("invalid_target", "resource differs from the one of the authorization request")
	}
	var pair *OAuthTokenPair
	err := s.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*oauthCode)(nil)).Set("used_at = ?", now).Where("hash = ?", c.Hash).Where("used_at IS NULL").Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return oauthErr("invalid_grant", "the authorization code was already used")
		}
		g, err := liveGrant(ctx, tx, c.GrantID)
		if err != nil {
			return err
		}
		pair, err = issuePair(ctx, tx, g, now, ttl)
		return err
	})
	if err != nil {
		return nil, err
	}
	return pair, nil
}

func liveGrant(ctx context.Context, db bun.IDB, id string) (*OAuthGrant, error) {
	g := new(OAuthGrant)
	if err := db.NewSelect().Model(g).Where("id = ?", id).Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, oauthErr("invalid_grant", "the grant no longer exists")
		}
		return nil, err
	}
	if g.RevokedAt != nil {
		return nil, oauthErr("invalid_grant", "the grant was revoked")
	}
	return g, nil
}

func issuePair(ctx context.Context, db bun.IDB, g *OAuthGrant, now time.Time, ttl OAuthTTLs) (*OAuthTokenPair, error) {
	access, refresh := "cap_oat_"+RandomString(40), "cap_ort_"+RandomString(40)
	toks := []OAuthToken{
		{Hash: HashKey(access), GrantID: g.ID, Kind: oauthAccess, CreatedAt: now, ExpiresAt: now.Add(ttl.Access)},
		{Hash: HashKey(refresh), GrantID: g.ID, Kind: oauthRefresh, CreatedAt: now, ExpiresAt: now.Add(ttl.Refresh)},
	}
	if _, err := db.NewInsert().Model(&toks).Exec(ctx); err != nil {
		return nil, err
	}
	return &OAuthTokenPair{Access: access, Refresh: refresh, AccessExpiresIn: ttl.Access, Grant: g}, nil
}

// RefreshOAuth rotates a refresh token: it is used up and a new pair issued. A refresh token
// presented again revokes the grant (its whole family).
func (s *Store) RefreshOAuth(ctx context.Context, refresh, clientID string, ttl OAuthTTLs) (*OAuthTokenPair, error) {
	if !refreshTokenPattern.MatchString(refresh) {
		return nil, oauthErr("invalid_grant", "the refresh token is unknown, expired or revoked")
	}
	t := new(OAuthToken)
	if err := s.DB.NewSelect().Model(t).Where("hash = ?", HashKey(refresh)).Where("kind = ?", oauthRefresh).Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, oauthErr("invalid_grant", "the refresh token is unknown, expired or revoked")
		}
		return nil, err
	}
	g, err := liveGrant(ctx, s.DB, t.GrantID)
	if err != nil {
		return nil, err
	}
	if g.ClientID != clientID {
		return nil, oauthErr("invalid_grant", "the refresh token was issued to another client")
	}
	if t.UsedAt != nil {
		if err := s.revokeGrant(ctx, g.ID); err != nil {
			return nil, err
		}
		return nil, &OAuthError{Code: "invalid_grant", Description: "the refresh token was already used; the grant and all its tokens are revoked", Revoked: true}
	}
	now := Now()
	if !now.Before(t.ExpiresAt) {
		return nil, oauthErr("invalid_grant", "the refresh token expired; sign in again")
	}
	var pair *OAuthTokenPair
	reused := false
	err = s.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*OAuthToken)(nil)).Set("used_at = ?", now).Where("hash = ?", t.Hash).Where("used_at IS NULL").Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			reused = true // a concurrent use of the same token won
			return oauthErr("invalid_grant", "the refresh token was already used")
		}
		pair, err = issuePair(ctx, tx, g, now, ttl)
		return err
	})
	if reused {
		if rerr := s.revokeGrant(ctx, g.ID); rerr != nil {
			return nil, rerr
		}
		return nil, &OAuthError{Code: "invalid_grant", Description: "the refresh token was already used; the grant and all its tokens are revoked", Revoked: true}
	}
	if err != nil {
		return nil, err
	}
	return pair, nil
}

func (s *Store) revokeGrant(ctx context.Context, id string) error {
	_, err := s.DB.NewUpdate().Model((*OAuthGrant)(nil)).Set("revoked_at = ?", Now()).Where("id = ?", id).Where("revoked_at IS NULL").Exec(ctx)
	return err
}

// OAuthAccess finds the live grant of an unexpired access token by the token's hash; an unknown,
// expired or revoked token is ErrNotFound. It also returns when the token expires.
func (s *Store) OAuthAccess(ctx context.Context, hash string) (*OAuthGrant, time.Time, error) {
	t := new(OAuthToken)
	err := s.DB.NewSelect().Model(t).Where("hash = ?", hash).Where("kind = ?", oauthAccess).Scan(ctx)
	if err != nil {
		return nil, time.Time{}, notFound(err)
	}
	if !Now().Before(t.ExpiresAt) {
		return nil, time.Time{}, ErrNotFound
	}
	g := new(OAuthGrant)
	if err := s.DB.NewSelect().Model(g).Where("id = ?", t.GrantID).Scan(ctx); err != nil {
		return nil, time.Time{}, notFound(err)
	}
	if g.RevokedAt != nil {
		return nil, time.Time{}, ErrNotFound
	}
	return g, t.ExpiresAt, nil
}

// RevokeOAuthToken revokes the grant an access or refresh token belongs to (RFC 7009), when it
// was issued to clientID; revoked reports whether a grant was found and revoked. An unknown token
// is no error (RFC 7009 §2.2).
func (s *Store) RevokeOAuthToken(ctx context.Context, raw, clientID string) (*OAuthGrant, error) {
	if !accessTokenPattern.MatchString(raw) && !refreshTokenPattern.MatchString(raw) {
		return nil, nil
	}
	t := new(OAuthToken)
	if err := s.DB.NewSelect().Model(t).Where("hash = ?", HashKey(raw)).Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, err
	}
	g := new(OAuthGrant)
	if err := s.DB.NewSelect().Model(g).Where("id = ?", t.GrantID).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	if g.ClientID != clientID {
		return nil, oauthErr("invalid_client", "the token was not issued to this client")
	}
	if g.RevokedAt != nil {
		return nil, nil
	}
	if err := s.revokeGrant(ctx, g.ID); err != nil {
		return nil, err
	}
	return g, nil
}

// OAuthGrants lists a tenant's grants, newest first.
func (s *Store) OAuthGrants(ctx context.Context, tenantID string) ([]OAuthGrant, error) {
	var gs []OAuthGrant
	err := s.DB.NewSelect().Model(&gs).Where("tenant_id = ?", tenantID).OrderExpr("created_at DESC, id").Limit(500).Scan(ctx)
	return gs, err
}

// RevokeOAuthGrant revokes a tenant's grant (revoking twice is a no-op); it returns the grant.
func (s *Store) RevokeOAuthGrant(ctx context.Context, id, tenantID string) (*OAuthGrant, error) {
	if !storable(id) || !storable(tenantID) {
		return nil, ErrNotFound
	}
	g := new(OAuthGrant)
	if err := s.DB.NewSelect().Model(g).Where("id = ?", id).Where("tenant_id = ?", tenantID).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	if err := s.revokeGrant(ctx, id); err != nil {
		return nil, err
	}
	return g, nil
}

// TouchOAuthGrant records a grant's last use.
func (s *Store) TouchOAuthGrant(ctx context.Context, id string, at time.Time) error {
	_, err := s.DB.NewUpdate().Model((*OAuthGrant)(nil)).Set("last_used_at = ?", at).Where("id = ?", id).Exec(ctx)
	return err
}

// SweepOAuth deletes expired codes and tokens.
func (s *Store) SweepOAuth(ctx context.Context) (int64, error) {
	now := Now()
	var total int64
	r, err := s.DB.NewDelete().Model((*oauthCode)(nil)).Where("expires_at < ?", now.Add(-time.Hour)).Exec(ctx)
	if err != nil {
		return 0, err
	}
	n, _ := r.RowsAffected()
	total += n
	r, err = s.DB.NewDelete().Model((*OAuthToken)(nil)).Where("expires_at < ?", now).Exec(ctx)
	if err != nil {
		return total, err
	}
	n, _ = r.RowsAffected()
	return total + n, nil
}

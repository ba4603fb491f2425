package tenants_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

func TestCheckRedirectURI(t *testing.T) {
	for _, tc := range []struct {
		uri string
		ok  bool
	}{
		{"https://host.example/cb", true},
		{"http://127.0.0.1:3000/callback", true},
		{"http://localhost:8976/oauth", true},
		{"http://[::1]:9/cb", true},
		{"http://host.example/cb", false},           // http off loopback
		{"http://127.0.0.1.evil.example/cb", false}, // a name that starts like loopback
		{"https://host.example/cb#x", false},
		{"https://user:pw@host.example/cb", false},
		{"javascript:alert(1)", false},
		{"/relative", false},
		{"cursor://anysphere.cursor-mcp/oauth/callback", true}, // a native app's own scheme (RFC 8252 §7.1)
		{"com.example.app:/oauth2redirect", true},
		{"data:text/html,x", false},
		{"file:///etc/passwd", false},
		{"vbscript:x", false},
		{"ws://127.0.0.1/cb", false},
		{"https://host.example/" + strings.Repeat("a", 600), false},
		{"https://host.example/c b", false},
		{"https://host.example/\x00", false},
	} {
		if err := tenants.CheckRedirectURI(tc.uri); (err == nil) != tc.ok {
			t.Errorf("%q: %v, want ok=%v", tc.uri, err, tc.ok)
		}
	}
}

func TestOAuthClientAllowsExactRedirectOnly(t *testing.T) {
	c := &tenants.OAuthClient{RedirectURIs: []string{"http://127.0.0.1:3000/cb", "https://host.example/cb"}}
	for uri, want := range map[string]bool{
		"http://127.0.0.1:3000/cb":    true,
		"http://127.0.0.1:4111/cb":    true, // a loopback port may change (RFC 8252 §7.3)
		"http://127.0.0.1:3000/cb2":   false,
		"http://localhost:3000/cb":    false,
		"https://host.example/cb":     true,
		"https://host.example/cb/":    false,
		"https://host.example:444/cb": false,
		"https://host.example/cb?x=1": false,
		"":                            false,
	} {
		if got := c.Allows(uri); got != want {
			t.Errorf("Allows(%q) = %v, want %v", uri, got, want)
		}
	}
}

func newCode(t *testing.T, s *tenants.Store, tenantID, verifier string) (*tenants.OAuthClient, string) {
	t.Helper()
	ctx := context.Background()
	c, err := s.RegisterOAuthClient(ctx, "store test", []string{"http://127.0.0.1:9/cb"})
	if err != nil {
		t.Fatal(err)
	}
	_, code, err := s.CreateOAuthGrant(ctx, tenants.GrantRequest{TenantID: tenantID, GrantedBy: "o@x.test", Mode: tenants.ModeTest,
		Client: c, RedirectURI: "http://127.0.0.1:9/cb", Challenge: tenants.S256(verifier)})
	if err != nil {
		t.Fatal(err)
	}
	return c, code
}

func errCode(err error) string {
	var oe *tenants.OAuthError
	if errors.As(err, &oe) {
		return oe.Code
	}
	return ""
}

var ttl = tenants.OAuthTTLs{Access: time.Hour, Refresh: time.Hour}

const verifier = "v3rifier-v3rifier-v3rifier-v3rifier-v3rifier"

// TestOAuthCodeAndRefreshRules: the storage's refusals, on SQLite and PostgreSQL: a wrong
// verifier, another client, a replayed code (which revokes the grant), an expired access token,
// and a refresh token used twice (at once or later), which revokes the family.
func TestOAuthCodeAndRefreshRules(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		s := tenants.NewStore(db)
		tn, err := s.CreateTenant(ctx, "OAuth", "pro", "")
		if err != nil {
			t.Fatal(err)
		}
		const cb = "http://127.0.0.1:9/cb"

		t.Run("verifier, client, redirect", func(t *testing.T) {
			c, code := newCode(t, s, tn.ID, verifier)
			for _, tc := range []struct{ code, client, redirect, verifier, want string }{
				{code, c.ID, cb, verifier + "x", "invalid_grant"},
				{code, c.ID, cb, "short", "invalid_grant"},
				{code, "oac_other", cb, verifier, "invalid_grant"},
				{code, c.ID, cb + "x", verifier, "invalid_grant"},
				{strings.Repeat("A", 43), c.ID, cb, verifier, "invalid_grant"},
			} {
				if _, err := s.RedeemOAuthCode(ctx, tc.code, tc.client, tc.redirect, tc.verifier, "", ttl); errCode(err) != tc.want {
					t.Errorf("%+v: %v", tc, err)
				}
			}
			// None of those used the code up.
			if _, err := s.RedeemOAuthCode(ctx, code, c.ID, cb, verifier, "", ttl); err != nil {
				t.Fatalf("the right request after refusals: %v", err)
			}
		})

		t.Run("replayed code revokes the grant", func(t *testing.T) {
			c, code := newCode(t, s, tn.ID, verifier)
			pair, err := s.RedeemOAuthCode(ctx, code, c.ID, cb, verifier, "", ttl)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.RedeemOAuthCode(ctx, code, c.ID, cb, verifier, "", ttl); errCode(err) != "invalid_grant" {
				t.Fatalf("replay: %v", err)
			}
			if _, _, err := s.OAuthAccess(ctx, tenants.HashKey(pair.Access)); !errors.Is(err, tenants.ErrNotFound) {
				t.Errorf("the first exchange's access token after a replay: %v", err)
			}
			if _, err := s.RefreshOAuth(ctx, pair.Refresh, c.ID, ttl); errCode(err) != "invalid_grant" {
				t.Errorf("the first exchange's refresh token after a replay: %v", err)
			}
		})

		t.Run("expired access token", func(t *testing.T) {
			c, code := newCode(t, s, tn.ID, verifier)
			pair, err := s.RedeemOAuthCode(ctx, code, c.ID, cb, verifier, "", tenants.OAuthTTLs{Access: time.Nanosecond, Refresh: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.OAuthAccess(ctx, tenants.HashKey(pair.Access)); !errors.Is(err, tenants.ErrNotFound) {
				t.Errorf("an expired access token: %v", err)
			}
			if _, err := s.RefreshOAuth(ctx, pair.Refresh, c.ID, ttl); err != nil {
				t.Errorf("refresh after the access token expired: %v", err)
			}
		})

		t.Run("refresh token used twice at once", func(t *testing.T) {
			c, code := newCode(t, s, tn.ID, verifier)
			pair, err := s.RedeemOAuthCode(ctx, code, c.ID, cb, verifier, "", ttl)
			if err != nil {
				t.Fatal(err)
			}
			const n = 4
			var wg sync.WaitGroup
			results := make([]*tenants.OAuthTokenPair, n)
			errs := make([]error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i], errs[i] = s.RefreshOAuth(ctx, pair.Refresh, c.ID, ttl)
				}()
			}
			wg.Wait()
			won, reused := 0, 0
			for i := range n {
				if errs[i] == nil {
					won++
				} else if errCode(errs[i]) == "invalid_grant" {
					reused++
				} else if errCode(errs[i]) != "invalid_grant" && !strings.Contains(errs[i].Error(), "lock") && !strings.Contains(errs[i].Error(), "busy") {
					t.Errorf("refresh %d: %v", i, errs[i])
				}
			}
			if won > 1 {
				t.Fatalf("%d concurrent refreshes of one token succeeded", won)
			}
			// Any reuse revoked the family: whatever was issued no longer works.
			if won == 1 && reused > 0 {
				for _, r := range results {
					if r == nil {
						continue
					}
					if _, _, err := s.OAuthAccess(ctx, tenants.HashKey(r.Access)); !errors.Is(err, tenants.ErrNotFound) {
						t.Errorf("the winner's access token after a concurrent reuse: %v", err)
					}
				}
			}
		})

		t.Run("revocation by token and by the owner", func(t *testing.T) {
			c, code := newCode(t, s, tn.ID, verifier)
			pair, err := s.RedeemOAuthCode(ctx, code, c.ID, cb, verifier, "", ttl)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.RevokeOAuthToken(ctx, pair.Access, "oac_someone"); errCode(err) != "invalid_client" {
				t.Errorf("another client revoking: %v", err)
			}
			g, err := s.RevokeOAuthToken(ctx, pair.Access, c.ID)
			if err != nil || g == nil {
				t.Fatalf("revoke: %v %v", g, err)
			}
			if _, err := s.RefreshOAuth(ctx, pair.Refresh, c.ID, ttl); errCode(err) != "invalid_grant" {
				t.Errorf("refresh after revoking the access token: %v", err)
			}
			if _, err := s.RevokeOAuthGrant(ctx, g.ID, "tnt_someoneelse"); !errors.Is(err, tenants.ErrNotFound) {
				t.Errorf("another tenant revoking the grant: %v", err)
			}
		})
	})
}

package console_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestOAuthConsentSignInReturns: an owner who is not signed in is sent to sign in and comes back
// to the same authorization request; only the console's own authorization path is ever followed
// after a sign-in; requests whose client or redirect URI cannot be trusted stay on the gateway;
// the consent page lets its form be answered by a redirect to the client's origin only.
func TestOAuthConsentSignInReturns(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		e.user("owner@oauth.test", tenants.RoleOwner, "pro")
		c, err := e.store.RegisterOAuthClient(ctx, "Consent host", []string{"http://127.0.0.1:7777/cb"})
		if err != nil {
			t.Fatal(err)
		}
		q := url.Values{"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {"http://127.0.0.1:7777/cb"}, "state": {"xyz"},
			"code_challenge": {tenants.S256(strings.Repeat("k", 43))}, "code_challenge_method": {"S256"}}
		authorize := "/console/oauth/authorize?" + q.Encode()

		b := e.browser()
		res, _ := b.do(http.MethodGet, authorize, nil)
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/login" {
			t.Fatalf("not signed in: %d %q", res.StatusCode, res.Header.Get("Location"))
		}
		res = b.signIn("owner@oauth.test", password)
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != authorize {
			t.Fatalf("after sign-in: %d %q, want back at %s", res.StatusCode, res.Header.Get("Location"), authorize)
		}
		res, page := b.do(http.MethodGet, authorize, nil)
		if res.StatusCode != http.StatusOK || !strings.Contains(page, `data-testid="oauth-consent"`) || !strings.Contains(page, "Consent host") {
			t.Fatalf("consent page: %d", res.StatusCode)
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' http://127.0.0.1:7777;") {
			t.Errorf("consent CSP %q", csp)
		}
		// Deny sends access_denied back with the state.
		form := url.Values{"decision": {"deny"}}
		for k, v := range q {
			form[k] = v
		}
		res, _ = b.post("/console/oauth/authorize", form)
		loc, _ := url.Parse(res.Header.Get("Location"))
		if res.StatusCode != http.StatusSeeOther || loc.Query().Get("error") != "access_denied" || loc.Query().Get("state") != "xyz" || loc.Host != "127.0.0.1:7777" {
			t.Errorf("deny: %d %q", res.StatusCode, res.Header.Get("Location"))
		}
		// An unknown capability is shown on the page, not granted.
		form.Set("decision", "allow")
		form.Set("mode", "live")
		form.Set("capabilities", "no.such.capability")
		res, page = b.post("/console/oauth/authorize", form)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, `data-testid="consent-error"`) {
			t.Errorf("unknown capability: %d", res.StatusCode)
		}

		// A planted return cookie leading elsewhere is not followed.
		for _, ret := range []string{"https://evil.example/", "//evil.example/console/oauth/authorize?x", "/console/oauth/authorizeX?", "not base64!"} {
			b2 := e.browser()
			b2.cookies["capgate_return"] = base64.RawURLEncoding.EncodeToString([]byte(ret))
			if ret == "not base64!" {
				b2.cookies["capgate_return"] = ret
			}
			if res := b2.signIn("owner@oauth.test", password); res.Header.Get("Location") != "/console/" {
				t.Errorf("return cookie %q led to %q", ret, res.Header.Get("Location"))
			}
		}

		// Untrusted client or redirect URI: a page of its own, never a redirect.
		for name, bad := range map[string]url.Values{
			"unknown client":        {"client_id": {"oac_nobody"}},
			"unregistered redirect": {"redirect_uri": {"http://127.0.0.1:7777/other"}},
			"https impostor":        {"redirect_uri": {"https://evil.example/cb"}},
		} {
			bq := url.Values{}
			for k, v := range q {
				bq[k] = v
			}
			for k, v := range bad {
				bq[k] = v
			}
			res, page := b.do(http.MethodGet, "/console/oauth/authorize?"+bq.Encode(), nil)
			if res.StatusCode != http.StatusBadRequest || res.Header.Get("Location") != "" || !strings.Contains(page, `data-testid="oauth-error"`) {
				t.Errorf("%s: %d %q", name, res.StatusCode, res.Header.Get("Location"))
			}
		}
	})
}

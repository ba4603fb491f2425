package scripture

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// quranHosts answers the Quran Foundation's real hosts from fixtures and records every request,
// so that the hosts and headers the adapter uses are seen without a network.
type quranHosts struct {
	t          *testing.T
	mu         sync.Mutex
	reqs       []*http.Request
	forms      []url.Values
	tokenFile  string
	tokenCode  int
	apiCode    int
	apiFixture string
}

func (h *quranHosts) RoundTrip(r *http.Request) (*http.Response, error) {
	var form url.Values
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		form, _ = url.ParseQuery(string(b))
	}
	h.mu.Lock()
	h.reqs, h.forms = append(h.reqs, r), append(h.forms, form)
	h.mu.Unlock()
	file, code := h.apiFixture, h.apiCode
	if r.URL.Path == "/oauth2/token" {
		file, code = h.tokenFile, h.tokenCode
	}
	body, err := os.ReadFile(file)
	if err != nil {
		h.t.Fatal(err)
	}
	return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
}

func quranClient(t *testing.T, h *quranHosts, key string) *providers.Client {
	t.Helper()
	quranTokens = &tokenCache{tokens: map[string]cachedToken{}, now: quranTokens.now}
	c := providers.NewClient(Providers(), providers.ClientOptions{Version: "test", Contact: "tests@example.com", Transport: h})
	if key != "" {
		if err := c.Configure(quranID, providers.Setting{Key: key}); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// With PROVIDER_QURAN_KEY the adapter takes a client-credentials token from the Quran Foundation's
// OAuth2 host once and calls the Content API with x-auth-token and x-client-id; without it the
// keyless v4 host is the fallback.
func TestQuranFoundationAuth(t *testing.T) {
	t.Run("client credentials, then the Content API", func(t *testing.T) {
		h := &quranHosts{t: t, tokenFile: "testdata/quran_oauth_token.json", tokenCode: 200, apiCode: 200, apiFixture: "testdata/quran_by_key_2_255.json"}
		c := quranClient(t, h, "my-client:s3cr~t")
		for i := 0; i < 2; i++ {
			if _, err := run(t, c, `{"text":"quran","reference":"2:255"}`, ""); err != nil {
				t.Fatal(err)
			}
		}
		if len(h.reqs) != 3 {
			t.Fatalf("%d requests, want one token request and two verse requests", len(h.reqs))
		}
		tok := h.reqs[0]
		wantAuth := "Basic " + base64.StdEncoding.EncodeToString([]byte("my-client:s3cr~t"))
		if tok.Method != http.MethodPost || tok.URL.String() != "https://oauth2.quran.foundation/oauth2/token" ||
			tok.Header.Get("Authorization") != wantAuth || tok.Header.Get("Content-Type") != "application/x-www-form-urlencoded" ||
			h.forms[0].Get("grant_type") != "client_credentials" || h.forms[0].Get("scope") != "content" {
			t.Errorf("token request %s %s %v form %v", tok.Method, tok.URL, tok.Header, h.forms[0])
		}
		for _, r := range h.reqs[1:] {
			if r.Method != http.MethodGet || r.URL.Host != "apis.quran.foundation" || r.URL.Path != "/content/api/v4/verses/by_key/2:255" ||
				!strings.HasPrefix(r.Header.Get("x-auth-token"), "eyJ") || r.Header.Get("x-client-id") != "my-client" ||
				r.Header.Get("User-Agent") != "capgate/test (+tests@example.com)" {
				t.Errorf("content request %s %s %v", r.Method, r.URL, r.Header)
			}
		}
	})
	t.Run("search goes to the Content API's search", func(t *testing.T) {
		h := &quranHosts{t: t, tokenFile: "testdata/quran_oauth_token.json", tokenCode: 200, apiCode: 200, apiFixture: "testdata/quran_search.json"}
		page, err := run(t, quranClient(t, h, "my-client:secret"), `{"text":"quran","query":"mercy","num":3}`, "")
		if err != nil || len(page.Records) == 0 {
			t.Fatalf("search: %v, %v", page, err)
		}
		r := h.reqs[1]
		if r.URL.Host != "apis.quran.foundation" || r.URL.Path != "/content/api/v4/search" || r.URL.Query().Get("q") != "mercy" || r.Header.Get("x-client-id") != "my-client" {
			t.Errorf("search request %s %v", r.URL, r.Header)
		}
	})
	t.Run("refused credentials", func(t *testing.T) {
		h := &quranHosts{t: t, tokenFile: "testdata/quran_oauth_error_401.json", tokenCode: 401, apiCode: 200, apiFixture: "testdata/quran_by_key_2_255.json"}
		_, err := run(t, quranClient(t, h, "my-client:wrong"), `{"text":"quran","reference":"2:255"}`, "")
		e, ok := providers.AsError(err)
		if !ok || e.Code != providers.CodeProviderError || e.IsRetryable() || !strings.Contains(e.Message, "invalid_client") || !strings.Contains(e.Hint, "PROVIDER_QURAN_KEY") {
			t.Fatalf("error %v, want a non-retryable provider_error naming invalid_client and PROVIDER_QURAN_KEY", err)
		}
		if len(h.reqs) != 1 {
			t.Errorf("%d requests, want only the token request", len(h.reqs))
		}
	})
	t.Run("malformed credentials", func(t *testing.T) {
		h := &quranHosts{t: t}
		_, err := run(t, quranClient(t, h, "no-colon"), `{"text":"quran","reference":"2:255"}`, "")
		if providertest.ErrorCode(err) != providers.CodeProviderError || len(h.reqs) != 0 {
			t.Fatalf("error %v after %d requests, want provider_error before any", err, len(h.reqs))
		}
	})
	t.Run("keyless fallback", func(t *testing.T) {
		h := &quranHosts{t: t, apiCode: 200, apiFixture: "testdata/quran_by_key_2_255.json"}
		if _, err := run(t, quranClient(t, h, ""), `{"text":"quran","reference":"2:255"}`, ""); err != nil {
			t.Fatal(err)
		}
		r := h.reqs[0]
		if len(h.reqs) != 1 || r.URL.Host != "api.quran.com" || r.URL.Path != "/api/v4/verses/by_key/2:255" || r.Header.Get("x-auth-token") != "" {
			t.Errorf("keyless request %s %v", r.URL, r.Header)
		}
	})
}

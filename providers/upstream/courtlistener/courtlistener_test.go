package courtlistener

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestSandboxName(t *testing.T) {
	for in, want := range map[string]string{
		"/api/rest/v4/search/":           "search",
		"/api/rest/v4/opinions/2812209/": "opinions_2812209",
		"/api/rest/v4/clusters/112331":   "clusters_112331",
	} {
		if got := SandboxName(in); got != want {
			t.Errorf("SandboxName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSandboxRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, path, auth string
		want             int
	}{
		{"no token", "/api/rest/v4/search/", "", http.StatusUnauthorized},
		{"outside the API", "/other/", "Token k", http.StatusNotFound},
		{"no fixture", "/api/rest/v4/opinions/1/", "Token k", http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tc.path, nil)
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			serveSandbox(w, r)
			if w.Code != tc.want {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.want, w.Body)
			}
		})
	}
}

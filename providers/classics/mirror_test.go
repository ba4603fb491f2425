package classics

import (
	"net/http"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// Project Gutenberg asks automated clients to read from its mirrors: the texts come from a mirror
// (PROVIDER_GUTENBERG_URL overrides it), at most one request every 2 seconds, and each text is
// read once and then served from the process cache.
func TestGutenbergMirror(t *testing.T) {
	var pg *providers.Provider
	for _, p := range Providers() {
		if p.ID == gutenbergID {
			pg = p
		}
	}
	if pg == nil || pg.BaseURL != "https://gutenberg.pglaf.org" || pg.RequestsPerSecond != 0.5 || strings.Contains(pg.BaseURL, "www.gutenberg.org") {
		t.Fatalf("gutenberg provider = %+v, want the PGLAF mirror at one request every 2 s", pg)
	}

	t.Run("request, then the cache", func(t *testing.T) {
		f := providertest.ServeFile(t, http.StatusOK, "sandbox/gutenberg_4791.txt")
		c := client(t, fakes{gutenberg: f})
		ref := `{"source":"gutendex","id":4791,"text":"https://www.gutenberg.org/ebooks/4791.txt.utf-8","editors":["Hetzel, Pierre-Jules"]}`
		for i := 0; i < 2; i++ {
			d, err := detailOf(t, c, ref)
			if err != nil {
				t.Fatal(err)
			}
			body := d.Body.(*BookDetail)
			if !strings.HasPrefix(body.Excerpt, "VOYAGE AU CENTRE DE LA TERRE") {
				t.Fatalf("lookup %d: excerpt %q", i+1, body.Excerpt)
			}
			if eds := body.Editors; len(eds) != 1 || eds[0] != "Hetzel, Pierre-Jules" {
				t.Errorf("editors = %v", body.Editors)
			}
		}
		reqs := f.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests for the same text, want 1 (then the cache)", len(reqs))
		}
		r := reqs[0]
		if r.Method != http.MethodGet || r.URL.Path != "/cache/epub/4791/pg4791.txt" || r.Header.Get("Range") != "bytes=0-65535" ||
			r.Header.Get("Accept") != "text/plain" || r.Header.Get("User-Agent") != "capgate/test (+tests@example.com)" {
			t.Errorf("request %s %s headers %v", r.Method, r.URL, r.Header)
		}
	})

	t.Run("a missing file is remembered; a failure is not", func(t *testing.T) {
		missing := providertest.ServeBody(http.StatusNotFound, "<html><body>404 Not Found</body></html>")
		c := client(t, fakes{gutenberg: missing})
		ref := `{"source":"gutendex","id":99999,"text":"https://www.gutenberg.org/ebooks/99999.txt.utf-8"}`
		for i := 0; i < 2; i++ {
			d, err := detailOf(t, c, ref)
			if err != nil || d.Body.(*BookDetail).Note == "" {
				t.Fatalf("lookup %d: %v %v, want a detail with a note", i+1, d, err)
			}
		}
		if n := len(missing.Requests()); n != 1 {
			t.Errorf("%d requests for a missing file, want 1", n)
		}
		failing := providertest.ServeBody(http.StatusServiceUnavailable, "<html>busy</html>")
		c = client(t, fakes{gutenberg: failing})
		if _, err := detailOf(t, c, `{"source":"gutendex","id":98,"text":"https://www.gutenberg.org/ebooks/98.txt.utf-8"}`); providers.CodeOf(err) != providers.CodeProviderError {
			t.Fatalf("error %v, want provider_error", err)
		}
		if _, ok := ebookTexts.Get(c.Upstream(gutenbergID, providers.ModeLive).BaseURL + "\x00" + "98"); ok {
			t.Error("a failed read was cached")
		}
	})
}

package classics

import (
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func detailOf(t *testing.T, c *providers.Client, ref string) (*providers.Detail, error) {
	t.Helper()
	rec := &providers.Record{Title: "A Tale of Two Cities", Ref: json.RawMessage(ref)}
	return providertest.Action(t, c, Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", rec)
}

const taleRef = `{"source":"gutendex","id":98,"text":"https://www.gutenberg.org/ebooks/98.txt.utf-8",` +
	`"epub":"https://www.gutenberg.org/ebooks/98.epub3.images","html":"https://www.gutenberg.org/ebooks/98.html.images"}`

func TestEbookDetails(t *testing.T) {
	t.Run("golden", func(t *testing.T) {
		// A ranged answer: 206 with the first bytes, cut in the middle of a character.
		text, err := os.ReadFile("testdata/gutenberg_98.txt")
		if err != nil {
			t.Fatal(err)
		}
		cut := strings.Index(string(text), "Spiritual revelations") + 1
		pg := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Content-Range", "bytes 0-65535/804335")
			w.WriteHeader(http.StatusPartialContent)
			_, _ = w.Write(append(text[:cut:cut], 0xe2, 0x80)) // half of "—"
		}}
		d, err := detailOf(t, client(t, fakes{gutenberg: pg}), taleRef)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "ebook_details", d)
		body := d.Body.(*BookDetail)
		excerpt := body.Excerpt
		if strings.Contains(excerpt, "Project Gutenberg") || !strings.HasPrefix(excerpt, "A TALE OF TWO CITIES") || strings.Contains(excerpt, "\r") {
			t.Errorf("excerpt keeps the header: %q", excerpt[:80])
		}
		if !utf8.ValidString(excerpt) || utf8.RuneCountInString(excerpt) > excerptChars+1 {
			t.Errorf("excerpt of %d characters", utf8.RuneCountInString(excerpt))
		}
		if d.Credits != nil {
			t.Errorf("credits = %d, want the action's 0", *d.Credits)
		}
		var labels []string
		for _, l := range d.Links {
			labels = append(labels, l.Label)
		}
		if !reflect.DeepEqual(labels, []string{"Plain text", "EPUB", "HTML", "Project Gutenberg page"}) {
			t.Errorf("links = %v", d.Links)
		}
	})
	t.Run("whole short text", func(t *testing.T) {
		pg := providertest.ServeFile(t, 200, "sandbox/gutenberg_4791.txt")
		d, err := detailOf(t, client(t, fakes{gutenberg: pg}), `{"source":"gutendex","id":4791,"text":"https://www.gutenberg.org/ebooks/4791.txt.utf-8"}`)
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body.(*BookDetail)
		want := "VOYAGE AU CENTRE DE LA TERRE\n\npar Jules Verne\n\nI\n\nLe 24 mai 1863"
		if ex := body.Excerpt; !strings.HasPrefix(ex, want) || strings.Contains(ex, "END OF") || !strings.HasSuffix(ex, "cuisine.") || (body.ExcerptTruncated == nil || *body.ExcerptTruncated) {
			t.Errorf("excerpt = %q truncated %v", ex, body.ExcerptTruncated)
		}
		if len(d.Links) != 2 || d.Links[0].Label != "Plain text" {
			t.Errorf("links = %v", d.Links)
		}
	})
	t.Run("no plain-text format: no fetch", func(t *testing.T) {
		d, err := detailOf(t, client(t, fakes{}), `{"source":"gutendex","id":20038}`)
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body.(*BookDetail)
		if body.Excerpt != "" || !strings.Contains(body.Note, "no plain-text format") {
			t.Errorf("body = %v", body)
		}
		if len(d.Links) != 1 || d.Links[0].URL != "https://www.gutenberg.org/ebooks/20038" {
			t.Errorf("links = %v", d.Links)
		}
	})
	t.Run("text file missing", func(t *testing.T) {
		pg := providertest.ServeFile(t, 404, "sandbox/gutenberg_not_found.html")
		d, err := detailOf(t, client(t, fakes{gutenberg: pg}), taleRef)
		if err != nil {
			t.Fatal(err)
		}
		if body := d.Body.(*BookDetail); body.Excerpt != "" || !strings.Contains(body.Note, "no plain-text file") || len(d.Links) != 4 {
			t.Errorf("detail = %v %v", body, d.Links)
		}
	})
	for _, tc := range []struct {
		name      string
		answer    *upstream
		code      providers.Code
		retryable bool
	}{
		{"a web page instead of the text", &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte("<html><body>Access to this site has been blocked.</body></html>"))
		}}, providers.CodeProviderError, true},
		{"HTTP 500", providertest.ServeBody(500, "Internal Server Error"), providers.CodeProviderError, true},
		{"HTTP 403", providertest.ServeBody(403, "Forbidden"), providers.CodeProviderError, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := detailOf(t, client(t, fakes{gutenberg: tc.answer}), taleRef)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code || e.IsRetryable() != tc.retryable {
				t.Errorf("error = %v, want %s (retryable %v)", err, tc.code, tc.retryable)
			}
		})
	}
	t.Run("empty text after the header", func(t *testing.T) {
		pg := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("\ufeffThe Project Gutenberg eBook of X\r\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\r\n\r\n*** END OF THE PROJECT GUTENBERG EBOOK X ***\r\n"))
		}}
		d, err := detailOf(t, client(t, fakes{gutenberg: pg}), taleRef)
		if err != nil {
			t.Fatal(err)
		}
		if body := d.Body.(*BookDetail); body.Excerpt != "" || body.Note == "" {
			t.Errorf("body = %v", body)
		}
	})
}

func TestWikisourceDetails(t *testing.T) {
	const christmasRef = `{"source":"wikisource","pageid":44862,"title":"A Christmas Carol (Dickens)/Stave 1"}`
	const taleWikiRef = `{"source":"wikisource","pageid":79014,"title":"A Tale of Two Cities/Book 1/Chapter 1"}`
	t.Run("extract", func(t *testing.T) {
		ws := sandboxFake(wikisourceID)
		d, err := detailOf(t, client(t, fakes{wikisource: ws}), taleWikiRef)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "wikisource_details_extract", d)
		if n := len(ws.Requests()); n != 1 {
			t.Errorf("%d requests, want the extract only", n)
		}
	})
	t.Run("empty extract: the rendered page", func(t *testing.T) {
		d, err := detailOf(t, client(t, fakes{wikisource: sandboxFake(wikisourceID)}), christmasRef)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "wikisource_details_parse", d)
		ex := d.Body.(*BookDetail).Excerpt
		for _, furniture := range []string{"Stave II", "Public domain", "[1]", "Original text"} {
			if strings.Contains(ex, furniture) {
				t.Errorf("excerpt keeps %q: %q", furniture, ex)
			}
		}
	})
	pages := func(extract string) *upstream {
		sb := sandboxFake(wikisourceID)
		return &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("prop") == "extracts" {
				_, _ = w.Write([]byte(extract))
				return
			}
			sb.Answer(w, r)
		}}
	}
	t.Run("TextExtracts not installed", func(t *testing.T) {
		ws := pages(`{"batchcomplete":true,"warnings":{"main":{"warnings":"Unrecognized value for parameter \"prop\": extracts."}},"query":{"pages":[{"pageid":44862,"ns":0,"title":"A Christmas Carol (Dickens)/Stave 1"}]}}`)
		d, err := detailOf(t, client(t, fakes{wikisource: ws}), christmasRef)
		if err != nil {
			t.Fatal(err)
		}
		if ex := d.Body.(*BookDetail).Excerpt; !strings.HasPrefix(ex, "STAVE ONE.\n\nMARLEY'S GHOST.\n\nMarley was dead") {
			t.Errorf("excerpt = %q", ex)
		}
	})
	t.Run("a short extract loses to the rendered page", func(t *testing.T) {
		ws := pages(`{"batchcomplete":true,"query":{"pages":[{"pageid":44862,"ns":0,"title":"A Christmas Carol (Dickens)/Stave 1","extract":"STAVE ONE."}]}}`)
		d, err := detailOf(t, client(t, fakes{wikisource: ws}), christmasRef)
		if err != nil {
			t.Fatal(err)
		}
		if ex := d.Body.(*BookDetail).Excerpt; !strings.Contains(ex, "Marley was dead") {
			t.Errorf("excerpt = %q", ex)
		}
	})
	t.Run("a short extract is kept when the page cannot be rendered", func(t *testing.T) {
		ws := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("action") == "parse" {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			_, _ = w.Write([]byte(`{"batchcomplete":true,"query":{"pages":[{"pageid":44862,"ns":0,"title":"A Christmas Carol (Dickens)/Stave 1","extract":"A short poem."}]}}`))
		}}
		d, err := detailOf(t, client(t, fakes{wikisource: ws}), christmasRef)
		if err != nil {
			t.Fatal(err)
		}
		if body := d.Body.(*BookDetail); body.Excerpt != "A short poem." || (body.ExcerptTruncated == nil || *body.ExcerptTruncated) {
			t.Errorf("body = %v", body)
		}
	})
	t.Run("nothing at all", func(t *testing.T) {
		ws := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("action") == "parse" {
				_, _ = w.Write([]byte(`{"parse":{"title":"X","pageid":44862,"text":"<div class=\"mw-content-ltr mw-parser-output\"><div class=\"ws-noexport\">Header</div></div>"}}`))
				return
			}
			_, _ = w.Write([]byte(`{"batchcomplete":true,"query":{"pages":[{"pageid":44862,"ns":0,"title":"X","extract":""}]}}`))
		}}
		d, err := detailOf(t, client(t, fakes{wikisource: ws}), christmasRef)
		if err != nil {
			t.Fatal(err)
		}
		if body := d.Body.(*BookDetail); body.Excerpt != "" || body.Note == "" || body.Title != "X" {
			t.Errorf("body = %v", body)
		}
	})
	for _, tc := range []struct {
		name string
		ws   *upstream
		code providers.Code
	}{
		{"missing page", providertest.ServeFile(t, 200, "sandbox/wikisource_extract_missing.json"), providers.CodeNotFound},
		{"deleted since the search", sandboxFake(wikisourceID), providers.CodeNotFound}, // extract missing for an unknown id
		{"page id gone at parse", pages(`{"batchcomplete":true,"query":{"pages":[{"pageid":999999999,"ns":0,"title":"X"}]}}`), providers.CodeNotFound},
		{"rendering fails with no extract", &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("action") == "parse" {
				w.WriteHeader(http.StatusBadGateway)
				return
			}
			_, _ = w.Write([]byte(`{"batchcomplete":true,"query":{"pages":[{"pageid":999999999,"ns":0,"title":"X"}]}}`))
		}}, providers.CodeProviderError},
		{"API error", providertest.ServeBody(200, `{"error":{"code":"ratelimited","info":"You've exceeded your rate limit."}}`), providers.CodeRateLimited},
		{"malformed", providertest.ServeBody(200, `{"query":`), providers.CodeProviderError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := detailOf(t, client(t, fakes{wikisource: tc.ws}), `{"source":"wikisource","pageid":999999999,"title":"X"}`)
			if providertest.ErrorCode(err) != tc.code {
				t.Errorf("error = %v, want %s", err, tc.code)
			}
		})
	}
}

func TestDetailReferences(t *testing.T) {
	for _, ref := range []string{``, `{}`, `not json`, `{"source":"gutendex"}`, `{"source":"gutendex","id":-4}`,
		`{"source":"wikisource","pageid":5}`, `{"source":"wikisource","title":"X"}`, `{"source":"openlibrary","id":5}`} {
		t.Run(ref, func(t *testing.T) {
			_, err := detailOf(t, client(t, fakes{}), ref)
			if providertest.ErrorCode(err) != providers.CodeInternal {
				t.Errorf("error = %v, want internal_error", err)
			}
		})
	}
	t.Run("records without an id offer no details", func(t *testing.T) {
		gx := providertest.ServeBody(200, `{"count":2,"next":null,"previous":null,"results":[{"id":null,"title":"No id"},{"id":7,"title":null},{"title":null}]}`)
		page, err := run(t, client(t, fakes{gutendex: gx}), `{"query":"x"}`, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) != 2 {
			t.Fatalf("records = %+v", page.Records)
		}
		if r := page.Records[0]; r.Actions == nil || len(r.Actions) != 0 || r.Ref != nil || r.URL != "" {
			t.Errorf("record without id: %+v", r)
		}
		if r := page.Records[1]; r.Actions != nil || r.Title != "Project Gutenberg ebook #7" || r.URL != "https://www.gutenberg.org/ebooks/7" {
			t.Errorf("record without title: %+v", r)
		}
	})
}

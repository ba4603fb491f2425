package scripture

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func TestBibleReference(t *testing.T) {
	t.Run("golden and request", func(t *testing.T) {
		f := providertest.ServeFile(t, http.StatusOK, "testdata/bibleapi_jhn_3_16-18.json")
		page := mustRun(t, fakes{bible: f}.client(t), `{"text":"bible","reference":"Jn 3:16-18"}`, "")
		providertest.Golden(t, "bibleapi_jhn_3_16-18", providertest.RecordsJSON(page))
		reqs := f.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests", len(reqs))
		}
		r := reqs[0]
		if r.URL.Path != "/JHN+3:16-18" || !reflect.DeepEqual(r.URL.Query(), url.Values{"translation": {"kjv"}}) {
			t.Errorf("request %s?%s", r.URL.Path, r.URL.RawQuery)
		}
		if r.Header.Get("User-Agent") != "capgate/test (+tests@example.com)" || r.Header.Get("Accept") != "application/json" {
			t.Errorf("headers = %v", r.Header)
		}
		if page.HasMore || page.Next != nil || len(page.Records) != 3 {
			t.Errorf("has_more %v next %s, %d records", page.HasMore, page.Next, len(page.Records))
		}
	})

	t.Run("non-English translation keeps the source's book name", func(t *testing.T) {
		f := providertest.ServeFile(t, http.StatusOK, "testdata/bibleapi_rom_12_1-2_almeida.json")
		page := mustRun(t, fakes{bible: f}.client(t), `{"text":"bible","reference":"Romans 12:1-2","translation":"Almeida"}`, "")
		providertest.Golden(t, "bibleapi_rom_12_1-2_almeida", providertest.RecordsJSON(page))
		if r := f.Requests()[0]; r.URL.Path != "/ROM+12:1-2" || r.URL.Query().Get("translation") != "almeida" {
			t.Errorf("request %s?%s", r.URL.Path, r.URL.RawQuery)
		}
	})

	t.Run("whole chapter pages locally by offset", func(t *testing.T) {
		f := providertest.ServeFile(t, http.StatusOK, "sandbox/bibleapi_psa_23.json")
		c := fakes{bible: f}.client(t)
		body := `{"text":"bible","reference":"Ps 23","num":4}`
		p1 := mustRun(t, c, body, "")
		if len(p1.Records) != 4 || !p1.HasMore || string(p1.Next) != `{"offset":4}` {
			t.Fatalf("page 1: %d records, has_more %v, next %s", len(p1.Records), p1.HasMore, p1.Next)
		}
		p2 := mustRun(t, c, body, string(p1.Next))
		if len(p2.Records) != 2 || p2.HasMore || p2.Next != nil {
			t.Fatalf("page 2: %d records, has_more %v, next %s", len(p2.Records), p2.HasMore, p2.Next)
		}
		if providertest.Native(&p2.Records[0])["verse"] != 5 || p2.Records[1].Title != "Psalms 23:6 (KJV)" {
			t.Errorf("page 2 = %v / %q", providertest.Native(&p2.Records[0]), p2.Records[1].Title)
		}
		past := mustRun(t, c, body, `{"offset":40}`)
		if len(past.Records) != 0 || past.HasMore {
			t.Errorf("past the end: %+v", past)
		}
		for _, r := range f.Requests() {
			want := url.Values{"translation": {"kjv"}, "single_chapter_book_matching": {"indifferent"}}
			if r.URL.Path != "/PSA+23" || !reflect.DeepEqual(r.URL.Query(), want) {
				t.Errorf("request %s?%s", r.URL.Path, r.URL.RawQuery)
			}
		}
	})

	t.Run("phrase within a passage", func(t *testing.T) {
		f := providertest.ServeFile(t, http.StatusOK, "sandbox/bibleapi_psa_23.json")
		page := mustRun(t, fakes{bible: f, apiBible: nil}.client(t), `{"text":"bible","reference":"Psalm 23","query":"the lord","translation":"bbe"}`, "")
		if len(page.Records) != 2 || providertest.Native(&page.Records[0])["verse"] != 1 || providertest.Native(&page.Records[1])["verse"] != 6 {
			t.Fatalf("records = %+v", page.Records)
		}
		if len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "2 of its 6 verses") {
			t.Errorf("notes = %q", page.Notes)
		}
		if q := f.Requests()[0].URL.Query(); q.Get("translation") != "bbe" {
			t.Errorf("translation sent = %q", q.Get("translation"))
		}
	})

	t.Run("odd verse entries are dropped, not fatal", func(t *testing.T) {
		f := providertest.ServeBody(http.StatusOK, `{"reference":"John 3:16","verses":[{"book_id":"JHN","book_name":"John","chapter":3,"verse":16,"text":"For God so loved the world"},
			{"book_id":"JHN","chapter":"3","verse":17,"text":"For God sent not his Son"},{"book_id":"JHN","book_name":"John","chapter":3,"verse":null,"text":"x"},
			{"book_name":"John","chapter":3,"verse":19,"text":"  "},"junk",null,{"book_id":"XYZ","chapter":1,"verse":1,"text":"y"}],
			"translation_id":null,"translation_name":7}`)
		page := mustRun(t, fakes{bible: f}.client(t), `{"text":"bible","reference":"John 3:16-19"}`, "")
		if len(page.Records) != 3 {
			t.Fatalf("%d records: %+v", len(page.Records), page.Records)
		}
		if rec := page.Records[1]; rec.Title != "John 3:17 (KJV)" || providertest.Native(&rec)["book"] != "John" {
			t.Errorf("book name from the code: %+v", rec)
		}
		if rec := page.Records[2]; providertest.Native(&rec)["book"] != "XYZ" || rec.Actions == nil || len(rec.Actions) != 0 {
			t.Errorf("unknown book code: %+v", rec)
		}
		if _, ok := providertest.Native(&page.Records[0])["translation_name"]; ok {
			t.Error("translation_name from a non-string value")
		}
	})

	errorsCases := []struct {
		name      string
		status    int
		body      string
		header    http.Header
		code      providers.Code
		path      string
		retryable bool
	}{
		{"verse not found", 404, "testdata/bibleapi_not_found.json", nil, providers.CodeInvalidRequest, "/reference", false},
		{"translation not found", 404, "testdata/bibleapi_translation_not_found.json", nil, providers.CodeInvalidRequest, "/translation", false},
		{"too many chapters", 400, "testdata/bibleapi_too_many_chapters.json", nil, providers.CodeInvalidRequest, "/reference", false},
		{"throttled with a short Retry-After", 429, "", http.Header{"Retry-After": {"20"}}, providers.CodeRateLimited, "", true},
		{"throttled without Retry-After", 429, "", nil, providers.CodeProviderAllowance, "", false},
		{"server error", 503, "", nil, providers.CodeProviderError, "", true},
		{"malformed JSON", 200, "", nil, providers.CodeProviderError, "", true},
	}
	for _, tc := range errorsCases {
		t.Run("error: "+tc.name, func(t *testing.T) {
			body := "<html>oops</html>"
			if tc.body != "" {
				body = string(providertest.Fixture(t, strings.TrimPrefix(tc.body, "testdata/")))
			}
			f := &fake{Answer: func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tc.header {
					w.Header()[k] = v
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(body))
			}}
			_, err := run(t, fakes{bible: f}.client(t), `{"text":"bible","reference":"John 3:16"}`, "")
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code {
				t.Fatalf("error = %v, want %s", err, tc.code)
			}
			if tc.path != "" && !reflect.DeepEqual(providertest.ViolationPaths(err), []string{tc.path}) {
				t.Errorf("violations = %v", e.Violations)
			}
			if tc.code != providers.CodeInvalidRequest && e.IsRetryable() != tc.retryable {
				t.Errorf("retryable = %v", e.IsRetryable())
			}
		})
	}
}

func TestAPIBibleSearch(t *testing.T) {
	t.Run("golden, request and paging", func(t *testing.T) {
		f := providertest.ServeFile(t, http.StatusOK, "testdata/apibible_search.json")
		c := fakes{apiBible: f}.client(t)
		body := `{"text":"bible","query":"love one another","num":5}`
		page := mustRun(t, c, body, "")
		providertest.Golden(t, "apibible_search", providertest.RecordsJSON(page))
		if !page.HasMore || string(page.Next) != `{"offset":5}` {
			t.Errorf("has_more %v next %s", page.HasMore, page.Next)
		}
		p2 := mustRun(t, c, body, string(page.Next))
		if !p2.HasMore || string(p2.Next) != `{"offset":10}` {
			t.Errorf("page 2 has_more %v next %s", p2.HasMore, p2.Next)
		}
		last := mustRun(t, c, body, `{"offset":10}`)
		if last.HasMore { // the fixture says total 14: offset 10 + 5 covers it
			t.Errorf("last page has_more")
		}
		reqs := f.Requests()
		for i, offset := range []string{"0", "5", "10"} {
			r := reqs[i]
			want := url.Values{"query": {"love one another"}, "limit": {"5"}, "offset": {offset}}
			if r.URL.Path != "/v1/bibles/de4e12af7f28f599-02/search" || !reflect.DeepEqual(r.URL.Query(), want) {
				t.Errorf("request %d: %s?%s", i, r.URL.Path, r.URL.RawQuery)
			}
			if r.Header.Get("api-key") != testKey || r.Header.Get("User-Agent") != "capgate/test (+tests@example.com)" {
				t.Errorf("request %d headers = %v", i, r.Header)
			}
		}
	})

	t.Run("translation mapping", func(t *testing.T) {
		for code, id := range apiBibleIDs {
			f := providertest.ServeFile(t, http.StatusOK, "testdata/apibible_search.json")
			page := mustRun(t, fakes{apiBible: f}.client(t), `{"text":"bible","query":"grace","translation":"`+strings.ToUpper(code)+`"}`, "")
			if p := f.Requests()[0].URL.Path; p != "/v1/bibles/"+id+"/search" {
				t.Errorf("%s: path %s", code, p)
			}
			if got := providertest.Native(&page.Records[0])["translation"]; got != strings.ToUpper(code) {
				t.Errorf("%s: translation %v", code, got)
			}
		}
	})

	t.Run("no API.Bible key", func(t *testing.T) {
		_, err := run(t, fakes{noAPIBibleKey: true}.client(t), `{"text":"bible","query":"grace"}`, "")
		e, ok := providers.AsError(err)
		if !ok || e.Code != providers.CodeCapabilityUnavailable || e.Hint == "" {
			t.Errorf("error = %v", err)
		}
	})

	t.Run("a query read as a passage", func(t *testing.T) {
		f := providertest.ServeFile(t, http.StatusOK, "testdata/apibible_passages.json")
		page := mustRun(t, fakes{apiBible: f}.client(t), `{"text":"bible","query":"John 3:16"}`, "")
		if len(page.Records) != 0 || page.HasMore || len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "(John 3:16)") {
			t.Errorf("page = %+v", page)
		}
	})

	t.Run("no results and odd shapes", func(t *testing.T) {
		for _, body := range []string{
			`{"query":"zzz","data":{"query":"zzz","limit":10,"offset":0,"total":0,"verseCount":0,"verses":[]}}`,
			`{"query":"zzz","data":null}`,
			`{"data":{"verses":"none","total":"many"}}`,
			`{}`,
		} {
			page := mustRun(t, fakes{apiBible: providertest.ServeBody(200, body)}.client(t), `{"text":"bible","query":"zzz"}`, "")
			if len(page.Records) != 0 || page.HasMore {
				t.Errorf("%s: %+v", body, page)
			}
		}
	})

	t.Run("has_more without total", func(t *testing.T) {
		body := `{"data":{"verses":[{"id":"JHN.1.1","text":"In the beginning was the Word"},{"id":"JHN.1.2","text":"The same was in the beginning with God."}]}}`
		page := mustRun(t, fakes{apiBible: providertest.ServeBody(200, body)}.client(t), `{"text":"bible","query":"beginning","num":2}`, "")
		if len(page.Records) != 2 || !page.HasMore || string(page.Next) != `{"offset":2}` {
			t.Errorf("page = %+v", page)
		}
	})

	errorsCases := []struct {
		name   string
		status int
		file   string
		code   providers.Code
		path   string
	}{
		{"bad request", 400, "apibible_error_400.json", providers.CodeInvalidRequest, "/query"},
		{"bad key", 401, "apibible_error_401.json", providers.CodeProviderError, ""},
		{"bible not licensed", 403, "apibible_error_403.json", providers.CodeProviderError, ""},
		{"unknown bible", 404, "apibible_error_403.json", providers.CodeProviderError, ""},
		{"daily quota", 429, "apibible_error_403.json", providers.CodeProviderAllowance, ""},
		{"server error", 500, "apibible_error_403.json", providers.CodeProviderError, ""},
	}
	for _, tc := range errorsCases {
		t.Run("error: "+tc.name, func(t *testing.T) {
			f := providertest.ServeFile(t, tc.status, "testdata/"+tc.file)
			_, err := run(t, fakes{apiBible: f}.client(t), `{"text":"bible","query":"grace"}`, "")
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code {
				t.Fatalf("error = %v, want %s", err, tc.code)
			}
			if tc.path != "" && !reflect.DeepEqual(providertest.ViolationPaths(err), []string{tc.path}) {
				t.Errorf("violations = %v", e.Violations)
			}
			if tc.code == providers.CodeProviderError && (tc.status < 500) == e.IsRetryable() {
				t.Errorf("retryable = %v for %d", e.IsRetryable(), tc.status)
			}
		})
	}
}

package scripture

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// chapterFake answers /verses/by_chapter/{s} like Quran.com: per_page ayahs from page, in the
// documented shape, with generated texts; it also records requests.
func chapterFake(t *testing.T, tid int, drop func(ayah int) bool) *fake {
	return &fake{Answer: func(w http.ResponseWriter, r *http.Request) {
		s, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/verses/by_chapter/"))
		info, ok := surahInfo(s)
		if err != nil || !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write(providertest.Fixture(t, "quran_error_404.json"))
			return
		}
		q := r.URL.Query()
		page, _ := strconv.Atoi(q.Get("page"))
		per, _ := strconv.Atoi(q.Get("per_page"))
		page, per = max(page, 1), min(max(per, 1), 50)
		var verses []map[string]any
		for a := (page-1)*per + 1; a <= min(page*per, info.Ayahs); a++ {
			v := map[string]any{"id": 1000 + a, "verse_number": a, "verse_key": fmt.Sprintf("%d:%d", s, a),
				"hizb_number": 1, "rub_el_hizb_number": 1, "ruku_number": 1, "manzil_number": 1, "sajdah_number": nil,
				"text_uthmani": fmt.Sprintf("آية %d", a), "page_number": 2, "juz_number": 1}
			if drop == nil || !drop(a) {
				v["translations"] = []map[string]any{{"id": 5000 + a, "resource_id": tid,
					"text": fmt.Sprintf("Ayah %d of %s.<sup foot_note=%d>1</sup>", a, info.Name, 9000+a), "resource_name": "Test Translation"}}
			}
			verses = append(verses, v)
		}
		total := (info.Ayahs + per - 1) / per
		var next any
		if page < total {
			next = page + 1
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"verses": verses, "pagination": map[string]any{
			"per_page": per, "current_page": page, "next_page": next, "total_pages": total, "total_records": info.Ayahs}})
	}}
}

func verseQuery(tid string) url.Values {
	return url.Values{"translations": {tid}, "translation_fields": {"resource_name"}, "fields": {"text_uthmani"}, "words": {"false"}}
}

func TestQuranReference(t *testing.T) {
	t.Run("one ayah: golden and request", func(t *testing.T) {
		f := providertest.ServeFile(t, http.StatusOK, "testdata/quran_by_key_2_255.json")
		page := mustRun(t, fakes{quran: f}.client(t), `{"text":"quran","reference":"2:255"}`, "")
		providertest.Golden(t, "quran_by_key_2_255", providertest.RecordsJSON(page))
		r := f.Requests()[0]
		if r.URL.Path != "/verses/by_key/2:255" || !reflect.DeepEqual(r.URL.Query(), verseQuery("131")) {
			t.Errorf("request %s?%s", r.URL.Path, r.URL.RawQuery)
		}
		if r.Header.Get("User-Agent") != "capgate/test (+tests@example.com)" {
			t.Errorf("User-Agent = %q", r.Header.Get("User-Agent"))
		}
		if page.HasMore || len(page.Records) != 1 {
			t.Errorf("page = %+v", page)
		}
	})

	t.Run("range pages by offset over by_chapter pages", func(t *testing.T) {
		f := chapterFake(t, 20, nil)
		c := fakes{quran: f}.client(t)
		body := `{"text":"quran","reference":"2:45-60","translation":"20","num":10}`
		p1 := mustRun(t, c, body, "")
		if len(p1.Records) != 10 || providertest.Native(&p1.Records[0])["verse"] != 45 || providertest.Native(&p1.Records[9])["verse"] != 54 {
			t.Fatalf("page 1 = %v … %v (%d)", providertest.Native(&p1.Records[0])["verse"], providertest.Native(&p1.Records[len(p1.Records)-1])["verse"], len(p1.Records))
		}
		if !p1.HasMore || string(p1.Next) != `{"offset":10}` {
			t.Fatalf("page 1 has_more %v next %s", p1.HasMore, p1.Next)
		}
		// Ayahs 45..54 straddle the first two pages of 50.
		reqs := f.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests for page 1", len(reqs))
		}
		for i, r := range reqs {
			want := verseQuery("20")
			want.Set("page", strconv.Itoa(i+1))
			want.Set("per_page", "50")
			if r.URL.Path != "/verses/by_chapter/2" || !reflect.DeepEqual(r.URL.Query(), want) {
				t.Errorf("request %d: %s?%s", i, r.URL.Path, r.URL.RawQuery)
			}
		}
		p2 := mustRun(t, c, body, string(p1.Next))
		if len(p2.Records) != 6 || providertest.Native(&p2.Records[0])["verse"] != 55 || p2.HasMore || p2.Next != nil {
			t.Fatalf("page 2 = %d records, has_more %v", len(p2.Records), p2.HasMore)
		}
		if got := f.Requests()[2].URL.Query().Get("page"); got != "2" || len(f.Requests()) != 3 {
			t.Errorf("page 2 asked page %s in %d requests", got, len(f.Requests()))
		}
		rec := p2.Records[0]
		if rec.Title != "Al-Baqarah 2:55 (Test Translation)" || providertest.Native(&rec)["text"] != "Ayah 55 of Al-Baqarah." ||
			providertest.Native(&rec)["translation"] != "20" || providertest.Native(&rec)["arabic"] != "آية 55" || rec.URL != "https://quran.com/2/55" {
			t.Errorf("record = %+v", rec)
		}
	})

	t.Run("whole surah", func(t *testing.T) {
		f := chapterFake(t, 131, nil)
		page := mustRun(t, fakes{quran: f}.client(t), `{"text":"quran","reference":"114","num":25}`, "")
		if len(page.Records) != 6 || page.HasMore {
			t.Errorf("%d records, has_more %v", len(page.Records), page.HasMore)
		}
		if q := f.Requests()[0].URL.Query(); q.Get("page") != "1" || len(f.Requests()) != 1 {
			t.Errorf("requests = %d, page %s", len(f.Requests()), q.Get("page"))
		}
	})

	t.Run("phrase within a surah", func(t *testing.T) {
		f := providertest.ServeFile(t, http.StatusOK, "sandbox/quran_by_chapter_1.json")
		page := mustRun(t, fakes{quran: f}.client(t), `{"text":"quran","reference":"1","query":"most merciful","num":1}`, "")
		if len(page.Records) != 1 || providertest.Native(&page.Records[0])["verse"] != 1 || !page.HasMore || string(page.Next) != `{"offset":1}` {
			t.Fatalf("page = %+v", page)
		}
		if len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "Al-Fatihah (1)") || !strings.Contains(page.Notes[0], "2 of its 7 verses") {
			t.Errorf("notes = %q", page.Notes)
		}
		p2 := mustRun(t, fakes{quran: f}.client(t), `{"text":"quran","reference":"1","query":"most merciful","num":1}`, `{"offset":1}`)
		if len(p2.Records) != 1 || providertest.Native(&p2.Records[0])["verse"] != 3 || p2.HasMore {
			t.Errorf("page 2 = %+v", p2)
		}
	})

	t.Run("unknown translation id", func(t *testing.T) {
		f := providertest.ServeFile(t, http.StatusOK, "testdata/quran_by_key_no_translation.json")
		_, err := run(t, fakes{quran: f}.client(t), `{"text":"quran","reference":"2:255","translation":"999999"}`, "")
		if providertest.ErrorCode(err) != providers.CodeInvalidRequest || !reflect.DeepEqual(providertest.ViolationPaths(err), []string{"/translation"}) {
			t.Errorf("error = %v", err)
		}
	})

	t.Run("ayahs lacking the translation carry the Arabic", func(t *testing.T) {
		f := chapterFake(t, 131, func(a int) bool { return a == 2 })
		page := mustRun(t, fakes{quran: f}.client(t), `{"text":"quran","reference":"1:1-3"}`, "")
		if len(page.Records) != 3 || providertest.Native(&page.Records[1])["translation"] != arabicLabel || providertest.Native(&page.Records[1])["text"] != "آية 2" ||
			page.Records[1].Title != "Al-Fatihah 1:2 (Arabic)" || len(page.Notes) != 1 {
			t.Errorf("page = %+v", page)
		}
	})

	errorsCases := []struct {
		name   string
		status int
		body   string
		code   providers.Code
		path   string
	}{
		{"not found", 404, "quran_error_404.json", providers.CodeInvalidRequest, "/reference"},
		{"OAuth host", 401, "quran_error_422.json", providers.CodeProviderError, ""},
		{"server error", 502, "quran_error_404.json", providers.CodeProviderError, ""},
		{"malformed JSON", 200, "", providers.CodeProviderError, ""},
	}
	for _, tc := range errorsCases {
		t.Run("error: "+tc.name, func(t *testing.T) {
			body := "not json"
			if tc.body != "" {
				body = string(providertest.Fixture(t, tc.body))
			}
			_, err := run(t, fakes{quran: providertest.ServeBody(tc.status, body)}.client(t), `{"text":"quran","reference":"2:255"}`, "")
			if providertest.ErrorCode(err) != tc.code {
				t.Fatalf("error = %v, want %s", err, tc.code)
			}
			if tc.path != "" && !reflect.DeepEqual(providertest.ViolationPaths(err), []string{tc.path}) {
				t.Errorf("violations = %v", providertest.ViolationPaths(err))
			}
		})
	}

	t.Run("odd shapes do not panic", func(t *testing.T) {
		for _, body := range []string{`{"verse":null}`, `{"verse":{"verse_key":5,"translations":"x"}}`, `{}`, `{"verse":{"verse_key":"2:255","translations":[null,7]}}`} {
			page, err := run(t, fakes{quran: providertest.ServeBody(200, body)}.client(t), `{"text":"quran","reference":"2:255"}`, "")
			if err != nil && providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Errorf("%s: %v", body, err)
			}
			if err == nil && len(page.Records) != 0 {
				t.Errorf("%s: %+v", body, page.Records)
			}
		}
	})
}

func TestQuranSearch(t *testing.T) {
	t.Run("golden, request and paging", func(t *testing.T) {
		f := providertest.ServeFile(t, http.StatusOK, "testdata/quran_search.json")
		c := fakes{quran: f}.client(t)
		body := `{"text":"quran","query":"mercy","num":3}`
		page := mustRun(t, c, body, "")
		providertest.Golden(t, "quran_search", providertest.RecordsJSON(page))
		if !page.HasMore || string(page.Next) != `{"offset":3}` {
			t.Errorf("has_more %v next %s", page.HasMore, page.Next)
		}
		mustRun(t, c, body, string(page.Next))
		for i, r := range f.Requests() {
			want := url.Values{"q": {"mercy"}, "size": {"3"}, "page": {strconv.Itoa(i + 1)}, "language": {"en"}, "translations": {"131"}}
			if r.URL.Path != "/search" || !reflect.DeepEqual(r.URL.Query(), want) {
				t.Errorf("request %d: %s?%s", i, r.URL.Path, r.URL.RawQuery)
			}
		}
	})

	t.Run("last page", func(t *testing.T) {
		page := mustRun(t, fakes{quran: providertest.ServeFile(t, 200, "sandbox/quran_search_page2.json")}.client(t), `{"text":"quran","query":"Allah","num":3}`, `{"offset":3}`)
		if page.HasMore || len(page.Records) != 1 {
			t.Errorf("page = %+v", page)
		}
	})

	t.Run("long query note", func(t *testing.T) {
		q := strings.Repeat("mercy ", 50)
		page := mustRun(t, fakes{quran: providertest.ServeFile(t, 200, "testdata/quran_search.json")}.client(t), `{"text":"quran","query":"`+strings.TrimSpace(q)+`"}`, "")
		if !strings.Contains(strings.Join(page.Notes, " "), "first 250 characters") {
			t.Errorf("notes = %q", page.Notes)
		}
	})

	t.Run("no results and odd shapes", func(t *testing.T) {
		for _, body := range []string{
			`{"search":{"query":"zzz","total_results":0,"current_page":1,"total_pages":0,"results":[]}}`,
			`{"search":null}`,
			`{"search":{"results":"none","total_pages":1}}`,
		} {
			page := mustRun(t, fakes{quran: providertest.ServeBody(200, body)}.client(t), `{"text":"quran","query":"zzz"}`, "")
			if len(page.Records) != 0 || page.HasMore {
				t.Errorf("%s: %+v", body, page)
			}
		}
		// Unusable hits are dropped; the upstream's page count still says whether more follow (a
		// page may be empty while has_more stays true).
		body := `{"search":{"results":[{"verse_key":"x"},{"verse_key":"1:1"},{"verse_key":"999:1","text":"x"},null,3],"current_page":1,"total_pages":"2"}}`
		page := mustRun(t, fakes{quran: providertest.ServeBody(200, body)}.client(t), `{"text":"quran","query":"zzz"}`, "")
		if len(page.Records) != 0 || !page.HasMore || string(page.Next) != `{"offset":10}` {
			t.Errorf("%s: %+v", body, page)
		}
	})

	t.Run("refused query", func(t *testing.T) {
		_, err := run(t, fakes{quran: providertest.ServeFile(t, 422, "testdata/quran_error_422.json")}.client(t), `{"text":"quran","query":"x"}`, "")
		if providertest.ErrorCode(err) != providers.CodeInvalidRequest || !reflect.DeepEqual(providertest.ViolationPaths(err), []string{"/query"}) {
			t.Errorf("error = %v", err)
		}
	})

	t.Run("throttled", func(t *testing.T) {
		f := &fake{Answer: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
		}}
		_, err := run(t, fakes{quran: f}.client(t), `{"text":"quran","query":"x"}`, "")
		if providertest.ErrorCode(err) != providers.CodeRateLimited {
			t.Errorf("error = %v", err)
		}
	})
}

func TestDetails(t *testing.T) {
	t.Run("bible chapter", func(t *testing.T) {
		f := providertest.ServeFile(t, http.StatusOK, "sandbox/bibleapi_1co_13.json")
		c := fakes{bible: f}.client(t)
		req := prepare(t, `{"text":"bible","reference":"1 Cor 13:4-7"}`)
		rec := bibleRecord(verse{BookID: "1CO", Book: "1 Corinthians", Chapter: 13, Verse: 4, Text: "Charity suffereth long", Translation: "KJV"}, "kjv")
		d, err := providertest.Action(t, c, Search, providers.ModeLive, req, "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "details_bible", d)
		r := f.Requests()[0]
		want := url.Values{"translation": {"kjv"}, "single_chapter_book_matching": {"indifferent"}}
		if r.URL.Path != "/1CO+13" || !reflect.DeepEqual(r.URL.Query(), want) {
			t.Errorf("request %s?%s", r.URL.Path, r.URL.RawQuery)
		}
		if vs := d.Body.(*BibleChapter).Verses; len(vs) != 13 || d.Credits != nil {
			t.Errorf("%d verses, credits %v", len(vs), d.Credits)
		}
	})

	t.Run("quran surah over several pages", func(t *testing.T) {
		f := chapterFake(t, 131, nil)
		c := fakes{quran: f}.client(t)
		req := prepare(t, `{"text":"quran","reference":"2:255"}`)
		rec := quranRecord(verse{Book: "Al-Baqarah", Chapter: 2, Verse: 255, Text: "x", Translation: "131"}, "131")
		d, err := providertest.Action(t, c, Search, providers.ModeLive, req, "details", &rec)
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body.(*SurahDetail)
		vs := body.Verses
		if len(vs) != 286 || vs[285].Verse != 286 || body.SurahName != "Al-Baqarah" || body.TranslationName != "Test Translation" || body.Note != "" {
			t.Errorf("%d verses, body %v", len(vs), body.SurahName)
		}
		if n := len(f.Requests()); n != 6 {
			t.Errorf("%d requests, want 6 pages of 50", n)
		}
		if d.Links[0].URL != "https://quran.com/2" {
			t.Errorf("links = %v", d.Links)
		}
	})

	t.Run("quran sandbox golden", func(t *testing.T) {
		client := providertest.Client(t, Providers(), nil, nil)
		req := prepare(t, `{"text":"quran","reference":"112:1"}`)
		page, err := providertest.ExecuteState(t, client, Search, providers.ModeTest, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := providertest.Action(t, client, Search, providers.ModeTest, req, "details", &page.Records[0])
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "details_quran", d)
	})

	t.Run("chapter gone", func(t *testing.T) {
		rec := bibleRecord(verse{BookID: "JHN", Book: "John", Chapter: 3, Verse: 16, Text: "x", Translation: "KJV"}, "kjv")
		_, err := providertest.Action(t, fakes{bible: providertest.ServeFile(t, 404, "testdata/bibleapi_not_found.json")}.client(t), Search,
			providers.ModeLive, prepare(t, `{"text":"bible","reference":"John 3:16"}`), "details", &rec)
		if providertest.ErrorCode(err) != providers.CodeNotFound {
			t.Errorf("error = %v", err)
		}
		qrec := quranRecord(verse{Book: "Al-Fatihah", Chapter: 1, Verse: 1, Text: "x", Translation: "131"}, "131")
		_, err = providertest.Action(t, fakes{quran: providertest.ServeFile(t, 404, "testdata/quran_error_404.json")}.client(t), Search,
			providers.ModeLive, prepare(t, `{"text":"quran","reference":"1:1"}`), "details", &qrec)
		if providertest.ErrorCode(err) != providers.CodeNotFound {
			t.Errorf("quran error = %v", err)
		}
	})

	for _, ref := range []string{"", `{}`, `not json`, `{"text":"bible","book":"XYZ","chapter":1,"translation":"kjv"}`,
		`{"text":"bible","book":"JHN","chapter":22,"translation":"kjv"}`, `{"text":"bible","book":"JHN","chapter":3,"translation":"niv"}`,
		`{"text":"quran","chapter":115,"translation":"131"}`, `{"text":"quran","chapter":1,"translation":"x"}`} {
		t.Run("unusable ref "+ref, func(t *testing.T) {
			rec := providers.Record{Title: "x", Ref: json.RawMessage(ref)}
			_, err := providertest.Action(t, fakes{}.client(t), Search, providers.ModeLive, prepare(t, `{"text":"bible","reference":"Ps 23"}`), "details", &rec)
			if providertest.ErrorCode(err) != providers.CodeInternal {
				t.Errorf("error = %v", err)
			}
		})
	}
}

package scripture

import (
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
)

// The sandbox answers any passage (issue 18): a Bible passage or Quran verse without a recording
// is built in bible-api.com's and Quran.com's shapes, with the requested book, chapter and verse
// numbers and a text that says it is the sandbox's; whole chapters hold sandboxChapterVerses
// verses; a surah holds its real number of ayahs.
func init() {
	providers.RegisterGenerators(bibleAPIID, providers.GeneratedRoute{Path: "/*", Generate: generatePassage})
	providers.RegisterGenerators(apiBibleID, providers.GeneratedRoute{Path: "/v1/bibles/*", Generate: missFinds("query")})
	providers.RegisterGenerators(quranID,
		providers.GeneratedRoute{Path: "/api/v4/search", Generate: missFinds("q")},
		providers.GeneratedRoute{Path: "/api/v4/verses/by_key/*", Generate: generateQuranKey},
		providers.GeneratedRoute{Path: "/api/v4/verses/by_chapter/*", Generate: generateQuranChapter})
}

const sandboxChapterVerses = 20

// missFinds answers a search for the reserved miss (sandbox-not-found) without results.
func missFinds(param string) providers.Generator {
	return func(r *http.Request, fixture []byte, status int) ([]byte, int) {
		if status == http.StatusOK && providers.IsSandboxMiss(r.URL.Query().Get(param)) {
			return providers.EmptyAnswer(fixture), status
		}
		return fixture, status
	}
}

// sandboxVerses reads bible-api's "C", "C:V", "C:V-W" or "C:V-C2:W".
func sandboxVerses(nums string) (out [][2]int, ok bool) {
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	from, to, isRange := strings.Cut(nums, "-")
	c, v, hasVerse := strings.Cut(from, ":")
	ch, vs := atoi(c), atoi(v)
	if ch < 1 {
		return nil, false
	}
	if !hasVerse {
		for i := 1; i <= sandboxChapterVerses; i++ {
			out = append(out, [2]int{ch, i})
		}
		return out, true
	}
	endC, endV := ch, vs
	if isRange {
		if c2, v2, cross := strings.Cut(to, ":"); cross {
			endC, endV = atoi(c2), atoi(v2)
		} else {
			endV = atoi(to)
		}
	}
	for c := ch; c <= endC && len(out) < 500; c++ {
		first, last := 1, sandboxChapterVerses
		if c == ch {
			first = vs
		}
		if c == endC {
			last = endV
		}
		for i := first; i <= last; i++ {
			out = append(out, [2]int{c, i})
		}
	}
	return out, len(out) > 0
}

func generatePassage(r *http.Request, fixture []byte, status int) ([]byte, int) {
	code, nums, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "+")
	if status == http.StatusOK || !ok {
		return fixture, status
	}
	var bk *book
	for i := range books {
		if books[i].ID == code {
			bk = &books[i]
		}
	}
	verses, ok := sandboxVerses(nums)
	if bk == nil || !ok {
		return fixture, status
	}
	var list []any
	var text strings.Builder
	for _, cv := range verses {
		t := fmt.Sprintf("%s %d:%d in the capgate sandbox; a live key reads the translation's text.\n", bk.Name, cv[0], cv[1])
		list = append(list, map[string]any{"book_id": bk.ID, "book_name": bk.Name, "chapter": cv[0], "verse": cv[1], "text": t})
		text.WriteString(t)
	}
	translation := r.URL.Query().Get("translation")
	if translation == "" {
		translation = "web"
	}
	doc := map[string]any{"reference": bk.Name + " " + nums, "verses": list, "text": text.String(),
		"translation_id": translation, "translation_name": strings.ToUpper(translation) + " (sandbox)", "translation_note": "Public Domain"}
	return providers.JSONBytes(doc), http.StatusOK
}

// sandboxAyah is a verse in Quran.com's shape, made from the recorded one.
func sandboxAyah(tmpl map[string]any, s, a int) map[string]any {
	v := map[string]any{}
	for k, x := range tmpl {
		v[k] = x
	}
	v["id"], v["verse_number"], v["verse_key"] = s*1000+a, a, fmt.Sprintf("%d:%d", s, a)
	if ts, ok := tmpl["translations"].([]any); ok && len(ts) > 0 {
		t := map[string]any{}
		for k, x := range ts[0].(map[string]any) {
			t[k] = x
		}
		t["text"] = fmt.Sprintf("Ayah %d:%d in the capgate sandbox; a live key reads the translation's text.", s, a)
		v["translations"] = []any{t}
	}
	return v
}

func recordedVerse() map[string]any {
	b, err := fs.ReadFile(sandboxFS(), "quran_by_key_112_1.json")
	if err != nil {
		return nil
	}
	v, _ := providers.JSONObject(b)["verse"].(map[string]any)
	return v
}

func generateQuranKey(r *http.Request, fixture []byte, status int) ([]byte, int) {
	s, a, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/api/v4/verses/by_key/"), ":")
	sn, err1 := strconv.Atoi(s)
	an, err2 := strconv.Atoi(a)
	info, known := surahInfo(sn)
	tmpl := recordedVerse()
	if status == http.StatusOK || !ok || err1 != nil || err2 != nil || !known || an < 1 || an > info.Ayahs || tmpl == nil {
		return fixture, status
	}
	return providers.JSONBytes(map[string]any{"verse": sandboxAyah(tmpl, sn, an)}), http.StatusOK
}

func generateQuranChapter(r *http.Request, fixture []byte, status int) ([]byte, int) {
	sn, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/api/v4/verses/by_chapter/"))
	info, known := surahInfo(sn)
	tmpl := recordedVerse()
	if status == http.StatusOK || err != nil || !known || tmpl == nil {
		return fixture, status
	}
	q := r.URL.Query()
	page, _ := strconv.Atoi(q.Get("page"))
	per, _ := strconv.Atoi(q.Get("per_page"))
	page, per = max(page, 1), min(max(per, 1), 50)
	pages := (info.Ayahs + per - 1) / per
	var verses []any
	for a := (page-1)*per + 1; a <= min(page*per, info.Ayahs); a++ {
		verses = append(verses, sandboxAyah(tmpl, sn, a))
	}
	var next any
	if page < pages {
		next = page + 1
	}
	return providers.JSONBytes(map[string]any{"verses": verses, "pagination": map[string]any{
		"per_page": per, "current_page": page, "next_page": next, "total_pages": pages, "total_records": info.Ayahs}}), http.StatusOK
}

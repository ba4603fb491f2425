package scripture

import (
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"sort"
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
	providers.RegisterGenerators(apiBibleID, providers.GeneratedRoute{Path: "/v1/bibles/*", Generate: recordedOr("query", "the lord", generateBibleSearch)})
	providers.RegisterGenerators(quranID,
		providers.GeneratedRoute{Path: "/api/v4/search", Generate: recordedOr("q", "allah", generateQuranSearch)},
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
	var list []passageVerse
	var text strings.Builder
	for _, cv := range verses {
		t := fmt.Sprintf("%s %d:%d in the capgate sandbox; a live key reads the translation's text.\n", bk.Name, cv[0], cv[1])
		list = append(list, passageVerse{BookID: bk.ID, BookName: bk.Name, Chapter: cv[0], Verse: cv[1], Text: t})
		text.WriteString(t)
	}
	translation := r.URL.Query().Get("translation")
	if translation == "" {
		translation = "web"
	}
	doc := passageAnswer{Reference: bk.Name + " " + nums, Verses: list, Text: text.String(),
		TranslationID: translation, TranslationName: strings.ToUpper(translation) + " (sandbox)", TranslationNote: "Public Domain"}
	return providers.JSONBytes(doc), http.StatusOK
}

// sandboxAyah is a verse in Quran.com's shape, made from the recorded one.
func sandboxAyah(tmpl map[string]any, s, a int) map[string]any {
	v := maps.Clone(tmpl)
	v["id"], v["verse_number"], v["verse_key"] = s*1000+a, a, fmt.Sprintf("%d:%d", s, a)
	if ts, ok := tmpl["translations"].([]any); ok && len(ts) > 0 {
		t := maps.Clone(ts[0].(map[string]any))
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
	return providers.JSONBytes(quranKeyAnswer{Verse: sandboxAyah(tmpl, sn, an)}), http.StatusOK
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
	var verses []map[string]any
	for a := (page-1)*per + 1; a <= min(page*per, info.Ayahs); a++ {
		verses = append(verses, sandboxAyah(tmpl, sn, a))
	}
	var next *int // null on the last page
	if page < pages {
		next = new(page + 1)
	}
	return providers.JSONBytes(quranChapterAnswer{Verses: verses, Pagination: quranPaging{
		PerPage: per, CurrentPage: page, NextPage: next, TotalPages: pages, TotalRecords: info.Ayahs}}), http.StatusOK
}

// Phrase searches (issue 36): the recorded phrases keep their recorded answers; any other phrase
// finds a synthetic set of verses across the canon (or the surahs), each holding the phrase as
// written, in canonical order, paged as the provider pages.
func recordedOr(param, recorded string, gen providers.Generator) providers.Generator {
	miss := missFinds(param)
	return func(r *http.Request, fixture []byte, status int) ([]byte, int) {
		q := strings.TrimSpace(r.URL.Query().Get(param))
		if status != http.StatusOK || q == "" || providers.IsSandboxMiss(q) || strings.EqualFold(q, recorded) {
			return miss(r, fixture, status)
		}
		return gen(r, fixture, status)
	}
}

// phraseHits are the verses a phrase finds: a count of its own, each a verse of the canon
// (book, chapter, verse), in canonical order.
func phraseHits(phrase string, chapters func(i int) (int, bool), units, verses int) [][3]int {
	seed := strings.ToLower(phrase)
	n := 8 + providers.Rand("hits", seed).IntN(30)
	seen := map[[3]int]bool{}
	var out [][3]int
	for i := 0; len(out) < n && i < n*4; i++ {
		r := providers.Rand("hit", seed, strconv.Itoa(i))
		b := r.IntN(units)
		chs, ok := chapters(b)
		if !ok || chs < 1 {
			continue
		}
		h := [3]int{b, 1 + r.IntN(chs), 1 + r.IntN(verses)}
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		for k := range 3 {
			if out[i][k] != out[j][k] {
				return out[i][k] < out[j][k]
			}
		}
		return false
	})
	return out
}

func sandboxVerseText(ref, phrase string) string {
	return fmt.Sprintf("%s in the capgate sandbox, a verse that holds %q; a live key reads the translation's text.", ref, phrase)
}

// generateBibleSearch answers API.Bible's search with verses holding the phrase, limit per page
// from offset.
func generateBibleSearch(r *http.Request, fixture []byte, status int) ([]byte, int) {
	q := r.URL.Query()
	phrase := strings.TrimSpace(q.Get("query"))
	doc := providers.JSONObject(fixture)
	data, _ := doc["data"].(map[string]any)
	tmpls := providers.Templates(data["verses"])
	if len(tmpls) == 0 {
		return fixture, status
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	offset, _ := strconv.Atoi(q.Get("offset"))
	limit, offset = max(limit, 1), max(offset, 0)
	hits := phraseHits(phrase, func(i int) (int, bool) { return books[i].Chapters, true }, len(books), sandboxChapterVerses)
	bibleID := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1/bibles/"), "/search")
	var verses []any
	for i := offset; i < min(offset+limit, len(hits)); i++ {
		h := hits[i]
		bk := books[h[0]]
		v := providers.FromTemplate(tmpls, i)
		id := fmt.Sprintf("%s.%d.%d", bk.ID, h[1], h[2])
		ref := fmt.Sprintf("%s %d:%d", bk.Name, h[1], h[2])
		v["id"], v["orgId"], v["bibleId"], v["bookId"] = id, id, bibleID, bk.ID
		v["chapterId"] = fmt.Sprintf("%s.%d", bk.ID, h[1])
		v["reference"], v["text"] = ref, sandboxVerseText(ref, phrase)
		verses = append(verses, v)
	}
	if verses == nil {
		verses = []any{}
	}
	doc["query"] = phrase
	data["query"], data["limit"], data["offset"], data["total"] = phrase, limit, offset, len(hits)
	data["verseCount"], data["verses"] = len(verses), verses
	return providers.JSONBytes(doc), http.StatusOK
}

// generateQuranSearch answers Quran.com's search with ayahs whose translation holds the phrase,
// size per page by page.
func generateQuranSearch(r *http.Request, fixture []byte, status int) ([]byte, int) {
	q := r.URL.Query()
	phrase := strings.TrimSpace(q.Get("q"))
	doc := providers.JSONObject(fixture)
	sr, _ := doc["search"].(map[string]any)
	tmpls := providers.Templates(sr["results"])
	if len(tmpls) == 0 {
		return fixture, status
	}
	size, _ := strconv.Atoi(q.Get("size"))
	page, _ := strconv.Atoi(q.Get("page"))
	size, page = max(size, 1), max(page, 1)
	// A hit's "chapter" is the ayah of its surah.
	hits := phraseHits(phrase, func(i int) (int, bool) { info, ok := surahInfo(i + 1); return info.Ayahs, ok }, 114, 1)
	var results []any
	for i := (page - 1) * size; i < min(page*size, len(hits)); i++ {
		s := hits[i][0] + 1
		a := hits[i][1]
		v := providers.FromTemplate(tmpls, i)
		key := fmt.Sprintf("%d:%d", s, a)
		v["verse_key"], v["verse_id"] = key, s*1000+a
		if ts, ok := v["translations"].([]any); ok && len(ts) > 0 {
			if t, ok := ts[0].(map[string]any); ok {
				t["text"] = strings.Replace(sandboxVerseText("Ayah "+key, phrase), phrase, "<em>"+phrase+"</em>", 1)
				v["translations"] = []any{t}
			}
		}
		results = append(results, v)
	}
	if results == nil {
		results = []any{}
	}
	sr["query"], sr["total_results"], sr["current_page"] = phrase, len(hits), page
	sr["total_pages"], sr["results"] = (len(hits)+size-1)/size, results
	return providers.JSONBytes(doc), http.StatusOK
}

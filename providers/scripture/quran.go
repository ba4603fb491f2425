package scripture

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Quran.com API v4 answers (quran/quran.com-api app/views/api/v4/verses, the Content API reference).

type quranVerse struct {
	ID           lenient.Int                    `json:"id"`
	VerseNumber  lenient.Int                    `json:"verse_number"`
	VerseKey     lenient.Str                    `json:"verse_key"`
	TextUthmani  lenient.Str                    `json:"text_uthmani"`
	Translations lenient.List[quranTranslation] `json:"translations"`
}

type quranTranslation struct {
	ID           lenient.Int `json:"id"`
	ResourceID   lenient.Int `json:"resource_id"`
	Text         lenient.Str `json:"text"`
	ResourceName lenient.Str `json:"resource_name"` // verses endpoints, with translation_fields=resource_name
	Name         lenient.Str `json:"name"`          // search results
	LanguageName lenient.Str `json:"language_name"`
}

type quranByKey struct {
	Verse lenient.Opt[quranVerse] `json:"verse"`
}

type quranByChapter struct {
	Verses     lenient.List[quranVerse]     `json:"verses"`
	Pagination lenient.Opt[quranPagination] `json:"pagination"`
}

type quranPagination struct {
	PerPage      lenient.Int `json:"per_page"`
	CurrentPage  lenient.Int `json:"current_page"`
	NextPage     lenient.Int `json:"next_page"`
	TotalPages   lenient.Int `json:"total_pages"`
	TotalRecords lenient.Int `json:"total_records"`
}

type quranSearchAnswer struct {
	Search lenient.Opt[quranSearch] `json:"search"`
}

type quranSearch struct {
	Query        lenient.Str               `json:"query"`
	TotalResults lenient.Int               `json:"total_results"`
	CurrentPage  lenient.Int               `json:"current_page"`
	TotalPages   lenient.Int               `json:"total_pages"`
	Results      lenient.List[quranResult] `json:"results"`
}

type quranResult struct {
	VerseKey     lenient.Str                    `json:"verse_key"`
	VerseID      lenient.Int                    `json:"verse_id"`
	Text         lenient.Str                    `json:"text"`
	Highlighted  lenient.Str                    `json:"highlighted"`
	Translations lenient.List[quranTranslation] `json:"translations"`
}

const (
	// quranPerPage is the page size of by_chapter calls: the API's maximum (larger values are capped at 50).
	quranPerPage = 50
	// quranMaxPages bounds the by_chapter pages of one call (Al-Baqarah, 286 ayahs, needs 6).
	quranMaxPages = 8
	// quranQueryLimit is the length of query Quran.com searches (it keeps the first 250 characters).
	quranQueryLimit = 250
	// arabicLabel is the translation shown when a search hit carries only the Arabic text.
	arabicLabel = "arabic"
)

// verseParams are the query parameters of every verses call: the translation with its name, the
// Uthmani text, and no word-by-word data.
func verseParams(tid string) url.Values {
	return url.Values{
		"translations":       {tid},
		"translation_fields": {"resource_name"},
		"fields":             {"text_uthmani"},
		"words":              {"false"},
	}
}

// fetchQuranKey reads one ayah: GET /verses/by_key/{surah}:{ayah}.
func fetchQuranKey(ctx context.Context, u *quranAPI, s, a int, tid string, inDetails bool) ([]quranVerse, error) {
	var ans quranByKey
	key := fmt.Sprintf("%d:%d", s, a)
	if err := u.getJSON(ctx, "/verses/by_key/"+key, verseParams(tid), &ans); err != nil {
		return nil, quranError(err, key, inDetails)
	}
	if strings.TrimSpace(string(ans.Verse.V.VerseKey)) == "" && !ans.Verse.V.VerseNumber.OK {
		return nil, nil
	}
	return []quranVerse{ans.Verse.V}, nil
}

// fetchQuranRange reads ayahs from..to of a surah from GET /verses/by_chapter/{surah}?page=&per_page=50,
// the pages that cover the range.
func fetchQuranRange(ctx context.Context, u *quranAPI, s, from, to int, tid string, inDetails bool) ([]quranVerse, error) {
	var out []quranVerse
	first, last := (from-1)/quranPerPage+1, (to-1)/quranPerPage+1
	last = min(last, first+quranMaxPages-1)
	for p := first; p <= last; p++ {
		q := verseParams(tid)
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(quranPerPage))
		var ans quranByChapter
		if err := u.getJSON(ctx, "/verses/by_chapter/"+strconv.Itoa(s), q, &ans); err != nil {
			return nil, quranError(err, strconv.Itoa(s), inDetails)
		}
		for _, v := range ans.Verses {
			if a := ayahOf(v, s); a >= from && a <= to {
				out = append(out, v)
			}
		}
		if len(ans.Verses) == 0 {
			break // past the surah's last page
		}
	}
	return out, nil
}

// ayahOf is the ayah number of a verse of surah s: from verse_key "s:a", else verse_number.
func ayahOf(v quranVerse, s int) int {
	if ss, a, ok := splitVerseKey(string(v.VerseKey)); ok {
		if ss != s {
			return 0
		}
		return a
	}
	if v.VerseNumber.OK {
		return int(v.VerseNumber.V)
	}
	return 0
}

func splitVerseKey(key string) (int, int, bool) {
	l, r, ok := strings.Cut(strings.TrimSpace(key), ":")
	if !ok {
		return 0, 0, false
	}
	s, err1 := strconv.Atoi(l)
	a, err2 := strconv.Atoi(r)
	if err1 != nil || err2 != nil || s < 1 || a < 1 {
		return 0, 0, false
	}
	return s, a, true
}

// pickTranslation finds the requested translation among a verse's translations.
func pickTranslation(ts []quranTranslation, tid string) (quranTranslation, bool) {
	want, _ := strconv.Atoi(tid)
	for _, t := range ts {
		if t.ResourceID.OK && t.ResourceID.V == int64(want) && cleanText(string(t.Text)) != "" {
			return t, true
		}
	}
	return quranTranslation{}, false
}

// quranVerseOf maps a verse of surah s. ok is false when it has no ayah number; translated is false
// when it lacks the requested translation (text then holds the Arabic).
func quranVerseOf(v quranVerse, s int, tid string) (verse, bool, bool) {
	a := ayahOf(v, s)
	info, known := surahInfo(s)
	if a < 1 || !known {
		return verse{}, false, false
	}
	out := verse{Book: info.Name, Chapter: s, Verse: a, Arabic: cleanText(string(v.TextUthmani)), Translation: tid}
	t, ok := pickTranslation(v.Translations, tid)
	if ok {
		out.Text = cleanText(string(t.Text))
		out.TranslationName = strings.TrimSpace(string(t.ResourceName))
		if out.TranslationName == "" {
			out.TranslationName = strings.TrimSpace(string(t.Name))
		}
		return out, true, true
	}
	if out.Arabic == "" {
		return verse{}, false, false
	}
	out.Text, out.Translation = out.Arabic, arabicLabel
	return out, true, false
}

// quranVerses maps the verses of a surah; it refuses the translation when no verse carries it
// (Quran.com leaves out translations it does not know), and notes verses that lack it.
func quranVerses(raw []quranVerse, s int, tid string) ([]verse, []string, error) {
	out := make([]verse, 0, len(raw))
	missing := 0
	for _, v := range raw {
		mv, ok, translated := quranVerseOf(v, s, tid)
		if !ok {
			continue
		}
		if !translated {
			missing++
		}
		out = append(out, mv)
	}
	if len(out) > 0 && missing == len(out) {
		return nil, nil, noQuranTranslation(tid)
	}
	var notes []string
	if missing > 0 {
		notes = append(notes, fmt.Sprintf("%d ayah(s) have no text in translation %s; their records carry the Arabic text as text, with translation %q.", missing, tid, arabicLabel))
	}
	return out, notes, nil
}

func noQuranTranslation(tid string) error {
	return providers.InvalidField("/translation", fmt.Sprintf("Quran.com has no translation with id %s", tid)).
		WithHint("Use an id from Quran.com's translation list, for example 131 (The Clear Quran) or 20 (Saheeh International).")
}

// quranRecord maps an ayah to a record.
func quranRecord(v verse, tid string) providers.Record {
	label := v.TranslationName
	switch {
	case v.Translation == arabicLabel:
		label = "Arabic"
	case label == "":
		label = "translation " + v.Translation
	}
	rec := providers.Record{
		Title: fmt.Sprintf("%s %d:%d (%s)", v.Book, v.Chapter, v.Verse, label),
		URL:   fmt.Sprintf("%s/%d/%d", quranSite, v.Chapter, v.Verse),
		Data: &VerseRecord{Text: v.Text, Book: v.Book, Translation: v.Translation, Chapter: v.Chapter, Verse: v.Verse,
			Arabic: v.Arabic, TranslationName: v.TranslationName},
		Ref: mustJSON(recordRef{Text: textQuran, Chapter: v.Chapter, Translation: tid}),
	}
	return rec
}

func searchQuran(ctx context.Context, c *providers.Call, in call) (*providers.Page, error) {
	tid := in.translation
	if !quranTranslationPattern.MatchString(tid) {
		return nil, providers.InvalidField("/translation", fmt.Sprintf("%q is not a Quran.com translation id", tid))
	}
	u, err := quranFor(c)
	if err != nil {
		return nil, err
	}
	if in.reference == "" {
		return searchQuranText(ctx, u, in, tid)
	}
	ref, err := parseQuranRef(in.reference)
	if err != nil {
		return nil, providers.InvalidField("/reference", err.Error())
	}
	page := &providers.Page{}
	from, to := ref.From, ref.To
	if in.query == "" {
		// Page the passage by ayah: this page holds ayahs from+offset … at most num of them.
		from = ref.From + in.offset
		if from > ref.To {
			return page, nil
		}
		to = min(ref.To, from+in.num-1)
	}
	var raw []quranVerse
	if from == to {
		raw, err = fetchQuranKey(ctx, u, ref.Surah, from, tid, false)
	} else {
		raw, err = fetchQuranRange(ctx, u, ref.Surah, from, to, tid, false)
	}
	if err != nil {
		return nil, err
	}
	verses, notes, err := quranVerses(raw, ref.Surah, tid)
	if err != nil {
		return nil, err
	}
	page.Notes = notes
	if in.query == "" {
		page.Records = make([]providers.Record, 0, len(verses))
		for _, v := range verses {
			page.Records = append(page.Records, quranRecord(v, tid))
		}
		if to < ref.To {
			page.HasMore, page.Next = true, nextState(in.offset+in.num)
		}
		return page, nil
	}
	total := len(verses)
	kept := verses[:0:0]
	for _, v := range verses {
		if containsPhrase(in.query, v.Text, v.Arabic) {
			kept = append(kept, v)
		}
	}
	passage := fmt.Sprintf("%s (%s)", surahs[ref.Surah-1].Name, ref.String())
	page.Notes = append(page.Notes, phraseNote(in.query, passage, len(kept), total))
	items, more, next := slicePage(kept, in.offset, in.num)
	page.Records = make([]providers.Record, 0, len(items))
	for _, v := range items {
		page.Records = append(page.Records, quranRecord(v, tid))
	}
	page.HasMore, page.Next = more, next
	return page, nil
}

// searchQuranText runs Quran.com's search: GET /search?q=&size=&page=&language=en&translations=,
// the offset mapped to the page (offset / num + 1; num is fixed for a search, update resets paging).
func searchQuranText(ctx context.Context, u *quranAPI, in call, tid string) (*providers.Page, error) {
	pageNo := in.offset/in.num + 1
	q := url.Values{
		"q":            {in.query},
		"size":         {strconv.Itoa(in.num)},
		"page":         {strconv.Itoa(pageNo)},
		"language":     {"en"},
		"translations": {tid},
	}
	var ans quranSearchAnswer
	if err := u.getJSON(ctx, "/search", q, &ans); err != nil {
		return nil, quranError(err, "", false)
	}
	s := ans.Search.V
	page := &providers.Page{Records: make([]providers.Record, 0, len(s.Results))}
	missing := 0
	for _, r := range s.Results {
		sn, _, ok := splitVerseKey(string(r.VerseKey))
		if !ok {
			continue
		}
		v, ok, translated := quranVerseOf(quranVerse{VerseKey: r.VerseKey, TextUthmani: r.Text, Translations: r.Translations}, sn, tid)
		if !ok {
			continue
		}
		if !translated {
			missing++
		}
		page.Records = append(page.Records, quranRecord(v, tid))
	}
	if missing > 0 {
		page.Notes = append(page.Notes, fmt.Sprintf("%d result(s) matched the Arabic text and have no text in translation %s; their records carry the Arabic text as text, with translation %q.", missing, tid, arabicLabel))
	}
	if utf8.RuneCountInString(in.query) > quranQueryLimit {
		page.Notes = append(page.Notes, fmt.Sprintf("Quran.com searched only the first %d characters of the query.", quranQueryLimit))
	}
	current := pageNo
	if s.CurrentPage.OK && s.CurrentPage.V > 0 {
		current = int(s.CurrentPage.V)
	}
	if len(s.Results) > 0 && s.TotalPages.OK && int64(current) < s.TotalPages.V {
		page.HasMore, page.Next = true, nextState(in.offset+in.num)
	}
	return page, nil
}

// quranError maps Quran.com's refusals ({"status": 404, "error": "..."} for an unknown verse or
// surah; 4xx bodies of the Content API carry "message"). In a search a 4xx is a refused query.
func quranError(err error, key string, inDetails bool) error {
	e, msg, ok := refusal(err, "error", "message")
	if !ok {
		return err
	}
	switch {
	case e.UpstreamStatus == http.StatusUnauthorized || e.UpstreamStatus == http.StatusForbidden:
		return (&providers.Error{Code: providers.CodeProviderError, Message: "Quran.com refused this gateway's request: " + msg,
			UpstreamStatus: e.UpstreamStatus, Cause: err}).WithRetryable(false).
			WithHint("The Quran Foundation API needs OAuth2 client credentials: set " + quranKeyFormat + ", or point PROVIDER_QURAN_URL at the keyless api.quran.com/api/v4.")
	case key == "":
		return providers.InvalidField("/query", "Quran.com refused the search: "+msg)
	case e.UpstreamStatus == http.StatusNotFound && inDetails:
		return providers.Errorf(providers.CodeNotFound, "Quran.com cannot find %s: %s", key, msg)
	case e.UpstreamStatus == http.StatusNotFound:
		return providers.InvalidField("/reference", fmt.Sprintf("Quran.com cannot find %s: %s", key, msg))
	}
	return (&providers.Error{Code: providers.CodeProviderError, Message: "Quran.com refused the request: " + msg,
		UpstreamStatus: e.UpstreamStatus, Cause: err}).WithRetryable(false)
}

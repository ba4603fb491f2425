package scripture

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"github.com/capgate/capgate/providers"
)

// details is the record action: every verse of the record's chapter (surah), in its translation.
func details(ctx context.Context, c *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref recordRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil {
		return nil, providers.Errorf(providers.CodeInternal, "the record carries no usable scripture reference")
	}
	switch ref.Text {
	case textBible:
		return bibleChapter(ctx, c, ref)
	case textQuran:
		return quranChapter(ctx, c, ref)
	}
	return nil, providers.Errorf(providers.CodeInternal, "the record carries no usable scripture reference")
}

// chapterVerse is one verse of a details answer.
type chapterVerse struct {
	Verse  int    `json:"verse"`
	Text   string `json:"text"`
	Arabic string `json:"arabic,omitempty"`
}

// bibleChapter reads the chapter from bible-api.com: GET /{BOOK}+{chapter}?translation=
// &single_chapter_book_matching=indifferent.
func bibleChapter(ctx context.Context, c *providers.Call, ref recordRef) (*providers.Detail, error) {
	b, ok := bookByID[ref.Book]
	code := bibleCode(ref.Translation)
	if _, known := bibleTranslationByCode[code]; !ok || !known || ref.Chapter < 1 || ref.Chapter > b.Chapters {
		return nil, providers.Errorf(providers.CodeInternal, "the record carries no usable scripture reference")
	}
	path := b.ID + "+" + strconv.Itoa(ref.Chapter)
	p, err := fetchPassage(ctx, c.Upstream(bibleAPIID), path, code, true, true)
	if err != nil {
		return nil, err
	}
	verses := passageVerses(p, code)
	if len(verses) == 0 {
		return nil, providers.Errorf(providers.CodeNotFound, "bible-api.com returned no verses for %s %d in %s", b.Name, ref.Chapter, bibleLabel(code))
	}
	body := &BibleChapter{Text: textBible, Book: verses[0].Book, BookID: b.ID, Chapter: ref.Chapter,
		Translation: verses[0].Translation, Reference: string(p.Reference), TranslationName: verses[0].TranslationName,
		TranslationNote: string(p.TranslationNote)}
	list := make([]chapterVerse, 0, len(verses))
	for _, v := range verses {
		if v.Chapter == ref.Chapter {
			list = append(list, chapterVerse{Verse: v.Verse, Text: v.Text})
		}
	}
	body.Verses, body.VerseCount = list, len(list)
	q := url.Values{"translation": {code}, "single_chapter_book_matching": {"indifferent"}}
	links := []providers.Link{{Label: "bible-api.com chapter (JSON)", URL: bibleAPISite + "/" + path + "?" + q.Encode()}}
	return &providers.Detail{Body: body, Links: links}, nil
}

// quranChapter reads the whole surah from GET /verses/by_chapter/{surah}, 50 ayahs a page.
func quranChapter(ctx context.Context, c *providers.Call, ref recordRef) (*providers.Detail, error) {
	info, ok := surahInfo(ref.Chapter)
	if !ok || !quranTranslationPattern.MatchString(ref.Translation) {
		return nil, providers.Errorf(providers.CodeInternal, "the record carries no usable scripture reference")
	}
	u, err := quranFor(c)
	if err != nil {
		return nil, err
	}
	raw, err := fetchQuranRange(ctx, u, ref.Chapter, 1, info.Ayahs, ref.Translation, true)
	if err != nil {
		return nil, err
	}
	verses, _, err := quranVerses(raw, ref.Chapter, ref.Translation)
	if err != nil {
		return nil, providers.Errorf(providers.CodeNotFound, "Quran.com no longer has the translation %s", ref.Translation)
	}
	if len(verses) == 0 {
		return nil, providers.Errorf(providers.CodeNotFound, "Quran.com returned no ayahs for surah %d", ref.Chapter)
	}
	body := &SurahDetail{Text: textQuran, Surah: ref.Chapter, SurahName: info.Name, Translation: ref.Translation,
		AyahCount: info.Ayahs}
	list := make([]chapterVerse, 0, len(verses))
	for _, v := range verses {
		if v.TranslationName != "" {
			body.TranslationName = v.TranslationName
		}
		list = append(list, chapterVerse{Verse: v.Verse, Text: v.Text, Arabic: v.Arabic})
	}
	body.Verses = list
	if len(list) < info.Ayahs {
		body.Note = fmt.Sprintf("Quran.com returned %d of the surah's %d ayahs.", len(list), info.Ayahs)
	}
	links := []providers.Link{{Label: "Surah " + info.Name + " on Quran.com", URL: fmt.Sprintf("%s/%d", quranSite, ref.Chapter)}}
	return &providers.Detail{Body: body, Links: links}, nil
}

// BibleChapter is the details answer of a Bible verse: its whole chapter; fields in key order
// (a detail is written in declared order).
type BibleChapter struct {
	Book            string         `json:"book"`
	BookID          string         `json:"book_id"`
	Chapter         int            `json:"chapter"`
	Reference       string         `json:"reference,omitempty"`
	Text            string         `json:"text"`
	Translation     string         `json:"translation"`
	TranslationName string         `json:"translation_name,omitempty"`
	TranslationNote string         `json:"translation_note,omitempty"`
	VerseCount      int            `json:"verse_count"`
	Verses          []chapterVerse `json:"verses"`
}

// SurahDetail is the details answer of an ayah: its whole surah; fields in key order.
type SurahDetail struct {
	AyahCount       int            `json:"ayah_count"`
	Note            string         `json:"note,omitempty"`
	Surah           int            `json:"surah"`
	SurahName       string         `json:"surah_name"`
	Text            string         `json:"text"`
	Translation     string         `json:"translation"`
	TranslationName string         `json:"translation_name,omitempty"`
	Verses          []chapterVerse `json:"verses"`
}

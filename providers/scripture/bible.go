package scripture

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// verse is one verse as the adapter holds it, whichever source it came from.
type verse struct {
	BookID          string // USFM code (Bible) or "" (Quran)
	Book            string
	Chapter         int
	Verse           int
	Text            string
	Arabic          string
	Translation     string // the translation identifier the record shows (KJV, 131)
	TranslationName string
}

// recordRef is what the details action needs: the scripture, the chapter and the translation.
type recordRef struct {
	Text        string `json:"text"`
	Book        string `json:"book,omitempty"`
	Chapter     int    `json:"chapter"`
	Translation string `json:"translation"`
}

// bible-api.com answers (seven1m/bible_api app.rb render_response): the passage and its verses.
type bibleAPIPassage struct {
	Reference       lenient.Str                 `json:"reference"`
	Verses          lenient.List[bibleAPIVerse] `json:"verses"`
	Text            lenient.Str                 `json:"text"`
	TranslationID   lenient.Str                 `json:"translation_id"`
	TranslationName lenient.Str                 `json:"translation_name"`
	TranslationNote lenient.Str                 `json:"translation_note"`
}

type bibleAPIVerse struct {
	BookID   lenient.Str `json:"book_id"`
	BookName lenient.Str `json:"book_name"`
	Chapter  lenient.Int `json:"chapter"`
	Verse    lenient.Int `json:"verse"`
	Text     lenient.Str `json:"text"`
}

// fetchPassage reads a passage from bible-api.com: GET /{ref}?translation={code}. A whole chapter
// is asked with single_chapter_book_matching=indifferent so that "JUD+1" is Jude's chapter rather
// than its first verse. inDetails changes how a missing passage is reported (not_found rather than
// a refused reference).
func fetchPassage(ctx context.Context, u *providers.Upstream, path, code string, wholeChapter, inDetails bool) (*bibleAPIPassage, error) {
	if wait := bibleAPIBlocks.remaining(u.BaseURL); wait > 0 {
		return nil, blockedError(wait)
	}
	q := url.Values{"translation": {code}}
	if wholeChapter {
		q.Set("single_chapter_book_matching", "indifferent")
	}
	var p bibleAPIPassage
	if err := u.GetJSON(ctx, "/"+path, q, &p); err != nil {
		if e, ok := providers.AsError(err); ok && e.UpstreamStatus == http.StatusForbidden {
			bibleAPIBlocks.block(u.BaseURL, bibleAPIBlockTime)
			return nil, blockedError(bibleAPIBlockTime)
		}
		return nil, bibleAPIError(err, path, code, inDetails)
	}
	return &p, nil
}

// bibleAPIBlockTime is how long bible-api.com blocks an address that had more than 10 404s in
// 30 s, answering every request with a plain-text 403 "Forbidden" (seven1m/bible_api
// lib/abuse_middleware.rb: limit 10, window 30, block_time 3600).
const bibleAPIBlockTime = time.Hour

// bibleAPIBlocks remembers a block per base URL, so that this process waits it out instead of
// sending requests that only meet the 403 (and the pypistats-style pause is visible to callers).
var bibleAPIBlocks = &blocks{until: map[string]time.Time{}, now: time.Now}

type blocks struct {
	mu    sync.Mutex
	until map[string]time.Time
	now   func() time.Time
}

func (b *blocks) block(base string, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.now().Add(d); t.After(b.until[base]) {
		b.until[base] = t
	}
}

func (b *blocks) remaining(base string) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	d := b.until[base].Sub(b.now())
	if d <= 0 {
		delete(b.until, base)
		return 0
	}
	return d
}

// blockedError is the answer while bible-api.com blocks the gateway: retryable, after the block.
func blockedError(wait time.Duration) error {
	e := providers.Errorf(providers.CodeProviderAllowance,
		"bible-api.com has blocked this gateway's address after too many requests for passages it does not have; "+
			"Bible references can be read again in %s", max(wait.Round(time.Minute), time.Minute)).
		WithRetryable(true).WithHint("Phrase search (no reference) uses API.Bible and is not affected.")
	e.RetryAfter = wait
	return e
}

// bibleAPIError maps bible-api.com's refusals: 404 {"error": "not found"} for a passage it does
// not have (unknown verse, a book missing from the translation), 404 {"error": "translation not
// found"}, and 400 {"error": "too many chapters"} for a multi-chapter request.
func bibleAPIError(err error, path, code string, inDetails bool) error {
	e, ok := providers.AsError(err)
	if !ok || (e.UpstreamStatus != http.StatusNotFound && e.UpstreamStatus != http.StatusBadRequest) {
		return err
	}
	var body struct {
		Error lenient.Str `json:"error"`
	}
	_ = json.Unmarshal(e.Body, &body)
	msg := strings.TrimSpace(string(body.Error))
	if msg == "" {
		msg = fmt.Sprintf("HTTP %d", e.UpstreamStatus)
	}
	passage := strings.ReplaceAll(path, "+", " ")
	switch {
	case msg == "too many chapters":
		// The adapter refuses such ranges itself; should the service's rule tighten, say so.
		return providers.InvalidField("/reference", fmt.Sprintf("bible-api.com refused %s as too many chapters at once: read at most one chapter boundary per reference", passage))
	case msg == "translation not found":
		if inDetails {
			return providers.Errorf(providers.CodeNotFound, "bible-api.com no longer serves the translation %s", bibleLabel(code))
		}
		return providers.InvalidField("/translation", fmt.Sprintf("bible-api.com does not serve the translation %s", bibleLabel(code)))
	case inDetails:
		return providers.Errorf(providers.CodeNotFound, "bible-api.com has no passage %s in %s (%s)", passage, bibleLabel(code), msg)
	}
	return providers.InvalidField("/reference", fmt.Sprintf("bible-api.com has no passage %s in %s (%s): the chapter or verse does not exist in this translation", passage, bibleLabel(code), msg)).
		WithHint("Check the chapter and verse numbers; some translations (CHEROKEE) have only the New Testament.")
}

// passageVerses turns a bible-api.com answer into verses, dropping entries without a chapter,
// verse number or text.
func passageVerses(p *bibleAPIPassage, code string) []verse {
	label := bibleLabel(code)
	if id := bibleCode(string(p.TranslationID)); id != "" {
		label = bibleLabel(id)
	}
	name := strings.TrimSpace(string(p.TranslationName))
	out := make([]verse, 0, len(p.Verses))
	for _, v := range p.Verses {
		text := cleanText(string(v.Text))
		if !v.Chapter.OK || !v.Verse.OK || v.Chapter.V < 1 || v.Verse.V < 1 || text == "" {
			continue
		}
		id := strings.ToUpper(strings.TrimSpace(string(v.BookID)))
		bookName := strings.TrimSpace(string(v.BookName))
		if bookName == "" {
			if b, ok := bookByID[id]; ok {
				bookName = b.Name
			} else {
				bookName = id
			}
		}
		if bookName == "" {
			continue
		}
		out = append(out, verse{BookID: id, Book: bookName, Chapter: int(v.Chapter.V), Verse: int(v.Verse.V), Text: text,
			Translation: label, TranslationName: name})
	}
	return out
}

// bibleRecord maps a Bible verse to a record; code is the bible-api.com translation the details
// action reads the chapter in.
func bibleRecord(v verse, code string) providers.Record {
	rec := providers.Record{
		Title: fmt.Sprintf("%s %d:%d (%s)", v.Book, v.Chapter, v.Verse, v.Translation),
		Data: &VerseRecord{Text: v.Text, Book: v.Book, Translation: v.Translation, Chapter: v.Chapter, Verse: v.Verse,
			TranslationName: v.TranslationName},
	}
	b, known := bookByID[v.BookID]
	if known && v.Chapter <= b.Chapters {
		rec.Ref = mustJSON(recordRef{Text: textBible, Book: b.ID, Chapter: v.Chapter, Translation: code})
	} else {
		rec.Actions = []string{} // a book outside the 66 (an API.Bible deuterocanonical hit): no chapter lookup
	}
	return rec
}

func searchBible(ctx context.Context, c *providers.Call, in call) (*providers.Page, error) {
	code := bibleCode(in.translation)
	if _, ok := bibleTranslationByCode[code]; !ok {
		return nil, providers.InvalidField("/translation", fmt.Sprintf("unknown Bible translation %q; use one of %s", in.translation, bibleCodes()))
	}
	if in.reference == "" {
		return searchAPIBible(ctx, c, in, code)
	}
	ref, err := parseBibleRef(in.reference)
	if err == nil {
		err = checkVerses(ref, code)
	}
	if err != nil {
		return nil, providers.InvalidField("/reference", err.Error())
	}
	p, err := fetchPassage(ctx, c.Upstream(bibleAPIID), ref.upstreamPath(), code, ref.WholeChapter, false)
	if err != nil {
		return nil, err
	}
	verses := passageVerses(p, code)
	page := &providers.Page{}
	if in.query != "" {
		total := len(verses)
		kept := verses[:0:0]
		for _, v := range verses {
			if containsPhrase(in.query, v.Text) {
				kept = append(kept, v)
			}
		}
		verses = kept
		page.Notes = append(page.Notes, phraseNote(in.query, ref.String(), len(kept), total))
	}
	items, more, next := slicePage(verses, in.offset, in.num)
	page.Records = make([]providers.Record, 0, len(items))
	for _, v := range items {
		page.Records = append(page.Records, bibleRecord(v, code))
	}
	page.HasMore, page.Next = more, next
	return page, nil
}

// API.Bible search answer (docs.api.bible/guides/search): {query, data: {query, limit, offset,
// total, verseCount, verses[{id, orgId, bibleId, bookId, chapterId, text, reference}], passages[…]}}.
// A query that reads as a passage reference answers passages instead of verses. meta.fumsToken
// identifies the answer for API.Bible's fair-use reporting (FUMS, docs.api.bible/guides/fair-use).
type apiBibleAnswer struct {
	Query lenient.Str               `json:"query"`
	Data  lenient.Opt[apiBibleData] `json:"data"`
	Meta  lenient.Opt[apiBibleMeta] `json:"meta"`
}

type apiBibleMeta struct {
	FumsToken lenient.Str `json:"fumsToken"`
}

// fumsNote hands API.Bible's fair-use token to the caller: FUMS reports a display of the text
// from the device that shows it (a JavaScript tracker in web apps), which the gateway is not.
func fumsNote(token string) string {
	return "API.Bible asks web apps that display its text to report it with its Fair Use Management System (FUMS); " +
		"this answer's fumsToken is " + token + "."
}

type apiBibleData struct {
	Query      lenient.Str                   `json:"query"`
	Limit      lenient.Int                   `json:"limit"`
	Offset     lenient.Int                   `json:"offset"`
	Total      lenient.Int                   `json:"total"`
	VerseCount lenient.Int                   `json:"verseCount"`
	Verses     lenient.List[apiBibleVerse]   `json:"verses"`
	Passages   lenient.List[apiBiblePassage] `json:"passages"`
}

type apiBibleVerse struct {
	ID        lenient.Str `json:"id"`
	OrgID     lenient.Str `json:"orgId"`
	BibleID   lenient.Str `json:"bibleId"`
	BookID    lenient.Str `json:"bookId"`
	ChapterID lenient.Str `json:"chapterId"`
	Text      lenient.Str `json:"text"`
	Reference lenient.Str `json:"reference"`
}

type apiBiblePassage struct {
	ID        lenient.Str `json:"id"`
	Reference lenient.Str `json:"reference"`
}

// searchAPIBible runs a phrase search of the whole Bible on API.Bible:
// GET /v1/bibles/{bibleId}/search?query=&limit=&offset=, paged by API.Bible's offset.
func searchAPIBible(ctx context.Context, c *providers.Call, in call, code string) (*providers.Page, error) {
	bibleID, ok := apiBibleIDs[code]
	if !ok {
		return nil, providers.InvalidField("/translation", fmt.Sprintf("phrase search of the whole Bible is available in %s, not in %s", searchableCodes(), bibleLabel(code)))
	}
	u := c.Upstream(apiBibleID)
	if !u.Available() {
		return nil, (&providers.Error{Code: providers.CodeCapabilityUnavailable,
			Message: "Bible phrase search needs API.Bible, which this deployment has not configured (PROVIDER_APIBIBLE_KEY)"}).
			WithHint("Look the passage up by reference instead, or search within a passage by giving both reference and query.")
	}
	q := url.Values{
		"query":  {in.query},
		"limit":  {strconv.Itoa(min(in.num, apiBibleMaxVerses))},
		"offset": {strconv.Itoa(in.offset)},
	}
	if c.Mode == providers.ModeLive {
		if ok, wait := apiBibleQuota.take(u.BaseURL); !ok {
			return nil, apiBibleAllowanceError(wait, false)
		}
	}
	var ans apiBibleAnswer
	if err := u.GetJSON(ctx, "/v1/bibles/"+url.PathEscape(bibleID)+"/search", q, &ans); err != nil {
		if c.Mode == providers.ModeLive && apiBibleAllowanceUsedUp(err) {
			if e, _ := providers.AsError(err); e.Code == providers.CodeProviderAllowance {
				return nil, apiBibleAllowanceError(apiBibleQuota.exhaust(u.BaseURL), true)
			}
		}
		return nil, apiBibleError(err, bibleID)
	}
	data := ans.Data.V
	page := &providers.Page{Records: make([]providers.Record, 0, len(data.Verses))}
	if tok := strings.TrimSpace(string(ans.Meta.V.FumsToken)); tok != "" {
		page.Notes = append(page.Notes, fumsNote(tok))
	}
	if len(data.Verses) == 0 && len(data.Passages) > 0 {
		refs := make([]string, 0, len(data.Passages))
		for _, p := range data.Passages {
			if r := strings.TrimSpace(string(p.Reference)); r != "" {
				refs = append(refs, r)
			}
		}
		page.Notes = append(page.Notes, fmt.Sprintf("API.Bible read the query as a passage reference (%s) rather than a phrase; send it as reference to look the passage up.", strings.Join(refs, ", ")))
		return page, nil
	}
	label := bibleLabel(code)
	name := bibleTranslationByCode[code].Name
	for _, raw := range data.Verses {
		v, ok := apiBibleVerseOf(raw)
		if !ok {
			continue
		}
		v.Translation, v.TranslationName = label, name
		page.Records = append(page.Records, bibleRecord(v, code))
	}
	n := len(data.Verses)
	if data.Total.OK {
		page.HasMore = n > 0 && int64(in.offset+n) < data.Total.V
	} else {
		page.HasMore = n >= in.num
	}
	if page.HasMore {
		page.Next = nextState(in.offset + in.num)
	}
	return page, nil
}

var trailingChapterVerse = regexp.MustCompile(`^(.*\S)\s+(\d+):(\d+)$`)

// apiBibleVerseOf reads a search hit: the verse id "JHN.3.16" (book, chapter, verse), else the
// chapter id "JHN.3" and the reference "John 3:16".
func apiBibleVerseOf(raw apiBibleVerse) (verse, bool) {
	text := cleanText(string(raw.Text))
	if text == "" {
		return verse{}, false
	}
	var v verse
	parts := strings.Split(strings.TrimSpace(string(raw.ID)), ".")
	if len(parts) == 3 {
		ch, err1 := strconv.Atoi(parts[1])
		vs, err2 := strconv.Atoi(parts[2])
		if err1 == nil && err2 == nil {
			v.BookID, v.Chapter, v.Verse = strings.ToUpper(parts[0]), ch, vs
		}
	}
	reference := strings.TrimSpace(string(raw.Reference))
	m := trailingChapterVerse.FindStringSubmatch(reference)
	if v.Chapter == 0 && m != nil {
		ch, _ := strconv.Atoi(m[2])
		vs, _ := strconv.Atoi(m[3])
		v.Chapter, v.Verse = ch, vs
		v.BookID = strings.ToUpper(strings.TrimSpace(string(raw.BookID)))
		if cp := strings.Split(string(raw.ChapterID), "."); len(cp) == 2 && v.BookID == "" {
			v.BookID = strings.ToUpper(cp[0])
		}
	}
	if v.Chapter < 1 || v.Verse < 1 {
		return verse{}, false
	}
	if b, ok := bookByID[v.BookID]; ok {
		v.Book = b.Name
	} else if m != nil {
		v.Book = m[1]
	} else {
		v.Book = v.BookID
	}
	if v.Book == "" {
		return verse{}, false
	}
	v.Text = text
	return v, true
}

// apiBibleError maps API.Bible's refusals ({"statusCode", "error", "message"}): 400 is a query it
// cannot run (reported at /query), 401/403 a key problem of this deployment, 404 an unknown Bible.
func apiBibleError(err error, bibleID string) error {
	e, msg, ok := refusal(err, "message", "error")
	if !ok {
		return err
	}
	switch e.UpstreamStatus {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return providers.InvalidField("/query", "API.Bible refused the search: "+msg)
	case http.StatusUnauthorized, http.StatusForbidden:
		return (&providers.Error{Code: providers.CodeProviderError, Message: "API.Bible refused this gateway's key: " + msg,
			UpstreamStatus: e.UpstreamStatus, Cause: err}).WithRetryable(false)
	case http.StatusNotFound:
		return (&providers.Error{Code: providers.CodeProviderError, Message: fmt.Sprintf("API.Bible does not know the Bible %s: %s", bibleID, msg),
			UpstreamStatus: e.UpstreamStatus, Cause: err}).WithRetryable(false)
	}
	return err
}

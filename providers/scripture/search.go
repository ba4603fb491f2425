package scripture

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// Wire values of the request's text field. The spec's neutral "the service" is the Quran.
const (
	textBible = "bible"
	textQuran = "quran"
)

// Default translations (the spec: Bible KJV, the Quran Quran.com translation id 131, Dr. Mustafa
// Khattab's The Clear Quran).
const (
	defaultBibleTranslation = "KJV"
	defaultQuranTranslation = "131"
)

// Search is scripture.search (spec section 4.5).
var Search = &providers.Capability{
	ID:      "scripture.search",
	Fresh:   24 * time.Hour,
	Title:   "Scripture search",
	Summary: "Look up Bible or Quran passages by reference, or search them for a phrase, in a chosen translation.",
	Description: "Looks up scripture verses by reference or finds verses containing a phrase. `text` (required) picks " +
		"the scripture: \"bible\" or \"quran\". Give `reference`, `query` or both (at least one is required). " +
		"Bible references use the form book chapter:verse-range with the book's name or a common " +
		"abbreviation: \"John 3:16\", \"Jn 3:16-18\", \"1 Cor 13\" (a whole chapter), \"Song of Solomon 2:1-3\", " +
		"\"Ps 23\", \"John 3:16-4:2\" (a verse range may cross one chapter boundary, not two); in one-chapter books a single number is a verse (\"Jude 3\"). Quran " +
		"references are \"surah:ayah\", \"surah:ayah-ayah\" or \"surah\" (for example \"2:255\", \"2:255-257\", " +
		"\"112\"). An unknown book, a chapter or ayah that does not exist, or an unreadable reference is " +
		"refused with a violation at /reference. `query` (1 to 300 characters) is a phrase: alone it runs " +
		"the source's full-text search of the whole text (all words, any order; Bible phrase search needs the " +
		"translation to be KJV, ASV, WEB, WEBBE or DRA); with a reference it keeps the verses of that passage " +
		"containing the exact phrase. `translation` " +
		"is a Bible translation code (default KJV; also ASV, BBE, DARBY, DRA, WEB, WEBBE, YLT, OEB-CW, " +
		"OEB-US, CHEROKEE, CUV, BKR, CLEMENTINE, ALMEIDA, RCCV, SYNODAL, BES, PDDPT, RV1909, VBL) or a " +
		"Quran.com translation id (default 131, The Clear Quran); an unknown Bible translation is refused " +
		"at /translation. `num` is the page size (1 to 25, default 10). Each record is one verse: title " +
		"like \"John 3:16 (KJV)\", and the keys text, book, translation (strings) and chapter, verse " +
		"(integers) always, plus arabic (the Uthmani Arabic text) for the Quran and translation_name " +
		"when the source names the translation; for the Quran, book is the surah's name, chapter the surah " +
		"number, verse the ayah number, and url the verse's page on quran.com. A passage longer than num " +
		"verses, and every phrase search, continues with more (by offset). Follow-ups: more, update " +
		"(change any field; paging restarts; switching text drops a translation the update does not " +
		"set, so the new text's default applies), and the record action details (free, cached on repeat): " +
		"all verses of the surrounding chapter (surah).",
	Topic:     "Research and reading",
	Request:   requestSchema,
	Rules:     rules,
	Merge:     merge,
	Paging:    providers.PagingOffset,
	Deadline:  15 * time.Second,
	Providers: []string{bibleAPIID, quranID},
	Cost: providers.Cost{
		Typical: 0,
		Basis: "Free: bible-api.com and the Quran.com API are keyless public services and API.Bible's " +
			"phrase search is free for non-commercial use, so searches, more, update and details cost no credits.",
	},
	Actions: []providers.Action{{
		Name: "details",
		Description: "All verses of the chapter (for the Quran, the surah) around the record, in the record's " +
			"translation (with the Arabic text for the Quran). Free; repeats are served from the cache.",
		Kind:    providers.ActionLookup,
		Credits: 0,
		Run:     details,
	}},
	Examples: []providers.Example{
		{Title: "A whole Bible chapter, three verses per page", Body: providers.ExampleBody(`{"text": "bible", "reference": "Psalm 23", "num": 3}`)},
		{Title: "A Bible verse range in the King James Version", Body: providers.ExampleBody(`{"text": "bible", "reference": "1 Cor 13:4-7", "translation": "KJV"}`)},
		{Title: "Bible verses containing a phrase", Body: providers.ExampleBody(`{"text": "bible", "query": "the LORD", "num": 3}`)},
		{Title: "One ayah of the Quran", Body: providers.ExampleBody(`{"text": "quran", "reference": "112:1"}`)},
		{Title: "A whole surah, four ayahs per page", Body: providers.ExampleBody(`{"text": "quran", "reference": "1", "num": 4}`)},
		{Title: "Quran ayahs containing a word", Body: providers.ExampleBody(`{"text": "quran", "query": "Allah", "num": 3}`)},
	},
	Record:  VerseRecord{},
	Execute: execute,
}

// VerseRecord is a scripture.search record: one Bible verse or Quran ayah.
type VerseRecord struct {
	Text            string `json:"text" doc:"the verse in the translation"`
	Book            string `json:"book" doc:"the Bible book or the surah's name"`
	Chapter         int    `json:"chapter" doc:"the chapter or surah number"`
	Verse           int    `json:"verse" doc:"the verse or ayah number"`
	Translation     string `json:"translation" doc:"the translation's code or id"`
	TranslationName string `json:"translation_name,omitempty"`
	Arabic          string `json:"arabic,omitempty" doc:"Quran: the ayah in Arabic"`
}

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "scripture.search request",
  "description": "Look up verses of the Bible or the Quran by reference, or find verses containing a phrase. At least one of reference and query is required.",
  "type": "object",
  "additionalProperties": false,
  "required": ["text"],
  "properties": {
    "text": {
      "type": "string",
      "enum": ["bible", "quran"],
      "description": "Which scripture: \"bible\" (the 66-book Bible) or \"quran\" (the Quran)."
    },
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 300,
      "pattern": "\\S",
      "description": "A phrase to find, for example \"love one another\". Alone it runs the source's full-text search of the whole text (every word must occur, in any order; for the Bible only in KJV, ASV, WEB, WEBBE or DRA); with reference it keeps the verses of that passage that contain the exact phrase (whole words, ignoring case and punctuation). Must not be blank."
    },
    "reference": {
      "type": "string",
      "minLength": 1,
      "maxLength": 60,
      "pattern": "\\S",
      "description": "A passage. Bible: book chapter:verse-range with the book's name or a common abbreviation, for example \"John 3:16\", \"Jn 3:16-18\", \"1 Cor 13\" (whole chapter), \"Song of Solomon 2:1-3\", \"Ps 23\" or \"John 3:16-4:2\" (at most one chapter boundary); in one-chapter books (Obadiah, Philemon, 2 John, 3 John, Jude) a single number is a verse. Quran: \"surah:ayah\", \"surah:ayah-ayah\" or \"surah\", for example \"2:255\", \"2:255-257\" or \"112\". Must not be blank."
    },
    "translation": {
      "type": "string",
      "minLength": 1,
      "maxLength": 20,
      "pattern": "\\S",
      "description": "Bible: a translation code, case-insensitive (default KJV): KJV, ASV, BBE, DARBY, DRA, WEB, WEBBE, YLT, OEB-CW, OEB-US (English), CHEROKEE (New Testament only), CUV, BKR, CLEMENTINE, ALMEIDA, RCCV, SYNODAL, BES, PDDPT, RV1909, VBL. Quran: a Quran.com translation id (default \"131\", Dr. Mustafa Khattab's The Clear Quran; for example \"20\" is Saheeh International)."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 25,
      "default": 10,
      "description": "Verses per page, 1 to 25."
    }
  },
  "anyOf": [
    {
      "properties": {
        "text": {"const": "bible", "description": "The Bible."},
        "translation": {"default": "KJV", "description": "Bible translation code; KJV when omitted."}
      }
    },
    {
      "properties": {
        "text": {"const": "quran", "description": "The Quran."},
        "translation": {"default": "131", "description": "Quran.com translation id; 131 (The Clear Quran) when omitted."}
      }
    }
  ]
}`

var quranTranslationPattern = regexp.MustCompile(`^[0-9]{1,6}$`)

// rules checks what the schema cannot: one of query and reference, the reference's form and
// range, and the translation.
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	var vs []providers.Violation
	query := strings.TrimSpace(req.Str("query"))
	refText := strings.TrimSpace(req.Str("reference"))
	translation := strings.TrimSpace(req.Str("translation"))
	if query == "" && refText == "" {
		vs = append(vs, providers.Violation{Path: "", Message: "query or reference is required: give a reference to look up, a phrase to search for, or both"})
	}
	switch req.Str("text") {
	case textQuran:
		if refText != "" {
			if _, err := parseQuranRef(refText); err != nil {
				vs = append(vs, providers.Violation{Path: "/reference", Message: err.Error()})
			}
		}
		if translation != "" && !quranTranslationPattern.MatchString(translation) {
			vs = append(vs, providers.Violation{Path: "/translation", Message: fmt.Sprintf("%q is not a Quran translation: use a Quran.com translation id such as \"131\" (The Clear Quran) or \"20\" (Saheeh International)", translation)})
		}
	default:
		code := bibleCode(translation)
		if code == "" {
			code = bibleCode(defaultBibleTranslation)
		}
		t, known := bibleTranslationByCode[code]
		if !known {
			vs = append(vs, providers.Violation{Path: "/translation", Message: fmt.Sprintf("unknown Bible translation %q; use one of %s", translation, bibleCodes())})
		}
		if refText != "" {
			ref, err := parseBibleRef(refText)
			switch {
			case err != nil:
				vs = append(vs, providers.Violation{Path: "/reference", Message: err.Error()})
			case known && t.NTOnly && !ref.Book.NT:
				vs = append(vs, providers.Violation{Path: "/reference", Message: fmt.Sprintf("%s is not in the %s (%s), which has only the New Testament", ref.Book.Name, t.Name, bibleLabel(t.Code))})
			default:
				if err := checkVerses(ref, code); err != nil {
					vs = append(vs, providers.Violation{Path: "/reference", Message: err.Error()})
				}
			}
		} else if query != "" && known {
			if _, ok := apiBibleIDs[code]; !ok {
				vs = append(vs, providers.Violation{Path: "/translation", Message: fmt.Sprintf("phrase search of the whole Bible is available in %s, not in %s; choose one of those, or add a reference to search within a passage", searchableCodes(), bibleLabel(code))})
			}
		}
	}
	return vs
}

// merge folds update params into the stored query (null removes a key). When the update switches
// text without naming a translation, the stored translation (KJV or a Quran id, usually a default)
// is dropped so that the new text's default applies.
func merge(prev, params providers.Request) providers.Request {
	out := prev.Clone()
	for k, v := range params {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	if t, ok := params["text"]; ok && t != nil && t != prev["text"] {
		if _, given := params["translation"]; !given {
			delete(out, "translation")
		}
	}
	return out
}

// pageState is the paging state: the offset of the next verse of the passage, or of the next
// search result.
type pageState struct {
	Offset int `json:"offset"`
}

func decodeState(raw json.RawMessage) (int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var st pageState
	if err := json.Unmarshal(raw, &st); err != nil || st.Offset < 0 {
		return 0, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is unreadable")
	}
	return st.Offset, nil
}

func nextState(offset int) json.RawMessage { return mustJSON(pageState{Offset: offset}) }

// call is one validated request as the adapter reads it.
type call struct {
	query       string
	reference   string
	translation string
	num         int
	offset      int
}

func readCall(c *providers.Call) (call, error) {
	offset, err := decodeState(c.State)
	if err != nil {
		return call{}, err
	}
	num, ok := c.Request.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	return call{
		query:       strings.TrimSpace(c.Request.Str("query")),
		reference:   strings.TrimSpace(c.Request.Str("reference")),
		translation: strings.TrimSpace(c.Request.Str("translation")),
		num:         num,
		offset:      offset,
	}, nil
}

func execute(ctx context.Context, c *providers.Call) (*providers.Page, error) {
	in, err := readCall(c)
	if err != nil {
		return nil, err
	}
	if in.query == "" && in.reference == "" {
		return nil, providers.InvalidField("", "query or reference is required")
	}
	if c.Request.Str("text") == textQuran {
		if in.translation == "" {
			in.translation = defaultQuranTranslation
		}
		return searchQuran(ctx, c, in)
	}
	if in.translation == "" {
		in.translation = defaultBibleTranslation
	}
	return searchBible(ctx, c, in)
}

// slicePage pages a fully known list locally: the items from offset, at most num, and the state of
// the following page.
func slicePage[T any](items []T, offset, num int) ([]T, bool, json.RawMessage) {
	if offset >= len(items) {
		return nil, false, nil
	}
	end := min(offset+num, len(items))
	if end < len(items) {
		return items[offset:end], true, nextState(end)
	}
	return items[offset:end], false, nil
}

// phraseNote tells the caller how a phrase was matched within a passage.
func phraseNote(query, passage string, matched, total int) string {
	return fmt.Sprintf("The phrase %q was matched within %s (whole words, ignoring case and punctuation): %d of its %d verses contain it.", query, passage, matched, total)
}

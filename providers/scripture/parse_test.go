package scripture

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers/internal/lenient"
)

func TestParseBibleRef(t *testing.T) {
	cases := []struct {
		in       string
		path     string // upstreamPath
		display  string
		whole    bool
		chapter  int
		verse    int
		endVerse int
	}{
		{"John 3:16", "JHN+3:16", "John 3:16", false, 3, 16, 16},
		{"Jn 3:16-18", "JHN+3:16-18", "John 3:16-18", false, 3, 16, 18},
		{"1 Cor 13", "1CO+13", "1 Corinthians 13", true, 13, 0, 0},
		{"Song of Solomon 2:1-3", "SNG+2:1-3", "Song of Solomon 2:1-3", false, 2, 1, 3},
		{"Ps 23", "PSA+23", "Psalms 23", true, 23, 0, 0},
		{"psalm 119:176", "PSA+119:176", "Psalms 119:176", false, 119, 176, 176},
		{"JOHN 3:16–4:2", "JHN+3:16-4:2", "John 3:16-4:2", false, 3, 16, 2},
		{"  Gen. 1 : 1 - 3 ", "GEN+1:1-3", "Genesis 1:1-3", false, 1, 1, 3},
		{"Gen 1.1", "GEN+1:1", "Genesis 1:1", false, 1, 1, 1},
		{"I Corinthians 13:4", "1CO+13:4", "1 Corinthians 13:4", false, 13, 4, 4},
		{"II Kings 2:11", "2KI+2:11", "2 Kings 2:11", false, 2, 11, 11},
		{"First John 4:8", "1JN+4:8", "1 John 4:8", false, 4, 8, 8},
		{"3rd John 1:4", "3JN+1:4", "3 John 1:4", false, 1, 4, 4},
		{"1john 4:8", "1JN+4:8", "1 John 4:8", false, 4, 8, 8},
		{"1jn4:8", "1JN+4:8", "1 John 4:8", false, 4, 8, 8},
		{"Song of Songs 8", "SNG+8", "Song of Solomon 8", true, 8, 0, 0},
		{"Rev 22:21", "REV+22:21", "Revelation 22:21", false, 22, 21, 21},
		{"Phil 4:13", "PHP+4:13", "Philippians 4:13", false, 4, 13, 13},
		{"Phlm 1:6", "PHM+1:6", "Philemon 1:6", false, 1, 6, 6},
		{"Judg 6", "JDG+6", "Judges 6", true, 6, 0, 0},
		{"Jon 2", "JON+2", "Jonah 2", true, 2, 0, 0},
		{"jhn 1:1", "JHN+1:1", "John 1:1", false, 1, 1, 1},
		// One-chapter books: the book alone is the chapter, a single number a verse.
		{"Jude", "JUD+1", "Jude 1", true, 1, 0, 0},
		{"Jude 3", "JUD+1:3", "Jude 1:3", false, 1, 3, 3},
		{"Jude 1", "JUD+1:1", "Jude 1:1", false, 1, 1, 1},
		{"Jude 3-5", "JUD+1:3-5", "Jude 1:3-5", false, 1, 3, 5},
		{"Obadiah 1:4", "OBA+1:4", "Obadiah 1:4", false, 1, 4, 4},
		{"2 John", "2JN+1", "2 John 1", true, 1, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			r, err := parseBibleRef(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.upstreamPath(); got != tc.path {
				t.Errorf("path = %q, want %q", got, tc.path)
			}
			if got := r.String(); got != tc.display {
				t.Errorf("display = %q, want %q", got, tc.display)
			}
			if r.WholeChapter != tc.whole || r.Chapter != tc.chapter || r.Verse != tc.verse || r.EndVerse != tc.endVerse {
				t.Errorf("parsed = %+v", r)
			}
		})
	}
	bad := map[string]string{
		"":                "not a Bible reference",
		"3:16":            "not a Bible reference",
		"Hezekiah 1:1":    `unknown book "hezekiah"`,
		"John":            "names no chapter",
		"John 0:1":        "not a valid chapter or verse number",
		"John 22":         "John has 21 chapters; chapter 22 does not exist",
		"Obadiah 2:1":     "Obadiah has 1 chapter;",
		"Ps 23-24":        "chapter ranges",
		"John 3:18-16":    "ends before it starts",
		"John 4:1-3:2":    "ends before it starts",
		"Ps 119:177":      "no chapter of the Bible has more than 176 verses",
		"John 3:16:1":     "cannot be read",
		"John 3-4:2":      "cannot be read",
		"John 99999:1":    "not a valid chapter or verse number",
		"John three":      "unknown book",
		"Ez 1":            "unknown book", // ambiguous between Ezra and Ezekiel
		"Genesis 1:1 foo": "cannot be read",
	}
	for in, want := range bad {
		t.Run("refused "+in, func(t *testing.T) {
			_, err := parseBibleRef(in)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error = %v, want it to mention %q", err, want)
			}
		})
	}
}

func TestParseQuranRef(t *testing.T) {
	cases := []struct {
		in       string
		want     quranRef
		rendered string
	}{
		{"2:255", quranRef{Surah: 2, From: 255, To: 255}, "2:255"},
		{"2:255-257", quranRef{Surah: 2, From: 255, To: 257}, "2:255-257"},
		{" 2 : 255 – 257 ", quranRef{Surah: 2, From: 255, To: 257}, "2:255-257"},
		{"1", quranRef{Surah: 1, From: 1, To: 7, Whole: true}, "1"},
		{"114", quranRef{Surah: 114, From: 1, To: 6, Whole: true}, "114"},
		{"114:6", quranRef{Surah: 114, From: 6, To: 6}, "114:6"},
		{"2:286", quranRef{Surah: 2, From: 286, To: 286}, "2:286"},
	}
	for _, tc := range cases {
		got, err := parseQuranRef(tc.in)
		if err != nil || got != tc.want || got.String() != tc.rendered {
			t.Errorf("parseQuranRef(%q) = %+v %q, %v", tc.in, got, got.String(), err)
		}
	}
	bad := map[string]string{
		"0":         "surah 0 does not exist",
		"115":       "surah 115 does not exist",
		"2:287":     "surah 2 (Al-Baqarah) has 286 ayahs; ayah 287 does not exist",
		"1:0":       "ayah 0 does not exist",
		"1:8":       "has 7 ayahs",
		"2:10-5":    "ends before it starts",
		"2:1-300":   "ayah 300 does not exist",
		"Al-Fatiha": "not a Quran reference",
		"2:255:1":   "not a Quran reference",
		"2-3":       "not a Quran reference",
		"99999":     "not a valid surah or ayah number",
	}
	for in, want := range bad {
		_, err := parseQuranRef(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseQuranRef(%q) error = %v, want it to mention %q", in, err, want)
		}
	}
}

// TestTables checks the reference tables against known totals: 66 books (39 + 27) with 1,189
// chapters (929 + 260), 114 surahs with 6,236 ayahs.
func TestTables(t *testing.T) {
	if len(books) != 66 {
		t.Fatalf("%d books", len(books))
	}
	var ot, nt, otCh, ntCh int
	seen := map[string]bool{}
	for _, b := range books {
		if seen[b.ID] {
			t.Errorf("duplicate book %s", b.ID)
		}
		seen[b.ID] = true
		if b.NT {
			nt++
			ntCh += b.Chapters
		} else {
			ot++
			otCh += b.Chapters
		}
		if got, ok := lookupBook(b.Name); !ok || got.ID != b.ID {
			t.Errorf("the name %q does not find %s", b.Name, b.ID)
		}
		if got, ok := lookupBook(b.ID); !ok || got.ID != b.ID {
			t.Errorf("the code %q does not find itself", b.ID)
		}
	}
	if ot != 39 || nt != 27 || otCh != 929 || ntCh != 260 {
		t.Errorf("OT %d books %d chapters, NT %d books %d chapters", ot, otCh, nt, ntCh)
	}
	for id, want := range map[string]int{"PSA": 150, "ISA": 66, "GEN": 50, "JER": 52, "MAL": 4, "JOL": 3, "REV": 22, "JUD": 1} {
		if bookByID[id].Chapters != want {
			t.Errorf("%s has %d chapters, want %d", id, bookByID[id].Chapters, want)
		}
	}
	total := 0
	for i, s := range surahs {
		if s.Name == "" || s.Ayahs < 3 {
			t.Errorf("surah %d = %+v", i+1, s)
		}
		total += s.Ayahs
	}
	if total != 6236 {
		t.Errorf("%d ayahs, want 6236", total)
	}
	if len(bibleTranslations) != 21 || len(bibleTranslationByCode) != 21 {
		t.Errorf("%d Bible translations", len(bibleTranslations))
	}
	for code := range apiBibleIDs {
		if _, ok := bibleTranslationByCode[code]; !ok {
			t.Errorf("API.Bible mapping for %s, which bible-api.com does not serve (details would fail)", code)
		}
	}
	if apiBibleIDs["kjv"] != "de4e12af7f28f599-02" {
		t.Errorf("KJV id = %s", apiBibleIDs["kjv"])
	}
}

func TestTextHelpers(t *testing.T) {
	clean := map[string]string{
		"For God so loved the world,\n that he gave \n":                        "For God so loved the world, that he gave",
		"His Seat<sup foot_note=76545>1</sup> encompasses":                     "His Seat encompasses",
		`a <SUP foot_note="1">12</SUP> b`:                                      "a b",
		"We have sent you ˹O Prophet˺ only as a <em>mercy</em> for the world.": "We have sent you ˹O Prophet˺ only as a mercy for the world.",
		"Tom &amp; Jerry&#39;s":                                                "Tom & Jerry's",
		"  <i>it</i>  ":                                                        "it",
		"plain":                                                                "plain",
		"":                                                                     "",
	}
	for in, want := range clean {
		if got := cleanText(in); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", in, got, want)
		}
	}
	match := []struct {
		phrase, text string
		want         bool
	}{
		{"the LORD", "The LORD is my shepherd; I shall not want.", true},
		{"lord is my", "The LORD, is my shepherd", true},
		{"love", "that ye love one another", true},
		{"love", "he that loveth another", false},
		{"one another", "love one another;", true},
		{"Allah", "In the Name of Allah—the Most Compassionate", true},
		{"!!!", "anything", false},
		{"ٱللَّهُ", "ٱللَّهُ ٱلصَّمَدُ", true},
	}
	for _, tc := range match {
		if got := containsPhrase(tc.phrase, tc.text); got != tc.want {
			t.Errorf("containsPhrase(%q, %q) = %v", tc.phrase, tc.text, got)
		}
	}
	t.Run("lenient JSON", func(t *testing.T) {
		var v struct {
			S lenient.Str                `json:"s"`
			N lenient.Int                `json:"n"`
			M lenient.Int                `json:"m"`
			F lenient.Int                `json:"f"`
			Q lenient.Int                `json:"q"`
			L lenient.List[lenient.Str]  `json:"l"`
			B lenient.List[lenient.Str]  `json:"b"`
			O lenient.Opt[bibleAPIVerse] `json:"o"`
		}
		in := `{"s":12,"n":"7","m":3.0,"f":2.5,"q":null,"l":["a",1,null,"b"],"b":{"x":1},"o":"nope"}`
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatal(err)
		}
		if v.S != "" || v.N != (lenient.Int{V: 7, OK: true}) || v.M != (lenient.Int{V: 3, OK: true}) || v.F.OK || v.Q.OK ||
			len(v.L) != 3 || v.L[0] != "a" || v.L[1] != "" || v.L[2] != "b" || len(v.B) != 0 || v.O.V.Chapter.OK {
			t.Errorf("decoded = %+v", v)
		}
	})
}

func TestAPIBibleVerseOf(t *testing.T) {
	cases := []struct {
		name string
		in   apiBibleVerse
		ok   bool
		want verse
	}{
		{"verse id", apiBibleVerse{ID: "JHN.3.16", BookID: "JHN", ChapterID: "JHN.3", Text: " For God so loved the world ", Reference: "John 3:16"}, true,
			verse{BookID: "JHN", Book: "John", Chapter: 3, Verse: 16, Text: "For God so loved the world"}},
		{"reference fallback", apiBibleVerse{ID: "x", ChapterID: "ROM.13", Text: "Owe no man any thing", Reference: "Romans 13:8"}, true,
			verse{BookID: "ROM", Book: "Romans", Chapter: 13, Verse: 8, Text: "Owe no man any thing"}},
		{"book outside the 66", apiBibleVerse{ID: "TOB.4.15", BookID: "TOB", Text: "Do that to no man which thou hatest", Reference: "Tobit 4:15"}, true,
			verse{BookID: "TOB", Book: "Tobit", Chapter: 4, Verse: 15, Text: "Do that to no man which thou hatest"}},
		{"no text", apiBibleVerse{ID: "JHN.3.16", Reference: "John 3:16"}, false, verse{}},
		{"no numbers", apiBibleVerse{ID: "JHN", Text: "x", Reference: "John"}, false, verse{}},
	}
	for _, tc := range cases {
		got, ok := apiBibleVerseOf(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	rec := bibleRecord(verse{BookID: "TOB", Book: "Tobit", Chapter: 4, Verse: 15, Text: "x", Translation: "DRA"}, "dra")
	if rec.Actions == nil || len(rec.Actions) != 0 || len(rec.Ref) != 0 {
		t.Errorf("a deuterocanonical record offers details: %+v", rec)
	}
}

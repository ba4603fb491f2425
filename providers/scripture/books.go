package scripture

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// book is one of the 66 books of the Protestant canon, as bible-api.com and API.Bible identify them
// (USFM book codes), with its chapter count and the names and abbreviations a reference may use.
type book struct {
	ID       string // USFM code: GEN … REV
	Name     string // English name, as bible-api.com's English book list writes it
	Chapters int
	NT       bool
	Aliases  []string // normalized forms (lower case, no spaces, no dots); see normalizeBookName
}

// books lists the canon in order. Chapter counts are those of the King James Version, which every
// translation bible-api.com serves follows for the chapter division of these books.
var books = []book{
	{"GEN", "Genesis", 50, false, []string{"genesis", "gen", "ge", "gn"}},
	{"EXO", "Exodus", 40, false, []string{"exodus", "exod", "exo", "ex"}},
	{"LEV", "Leviticus", 27, false, []string{"leviticus", "lev", "le", "lv"}},
	{"NUM", "Numbers", 36, false, []string{"numbers", "num", "nu", "nm", "nb"}},
	{"DEU", "Deuteronomy", 34, false, []string{"deuteronomy", "deut", "deu", "dt", "de"}},
	{"JOS", "Joshua", 24, false, []string{"joshua", "josh", "jos", "jsh"}},
	{"JDG", "Judges", 21, false, []string{"judges", "judg", "jdg", "jg", "jdgs"}},
	{"RUT", "Ruth", 4, false, []string{"ruth", "rut", "rth", "ru"}},
	{"1SA", "1 Samuel", 31, false, []string{"1samuel", "1sam", "1sa", "1sm", "1s"}},
	{"2SA", "2 Samuel", 24, false, []string{"2samuel", "2sam", "2sa", "2sm", "2s"}},
	{"1KI", "1 Kings", 22, false, []string{"1kings", "1kgs", "1ki", "1kin", "1k"}},
	{"2KI", "2 Kings", 25, false, []string{"2kings", "2kgs", "2ki", "2kin", "2k"}},
	{"1CH", "1 Chronicles", 29, false, []string{"1chronicles", "1chron", "1chr", "1ch"}},
	{"2CH", "2 Chronicles", 36, false, []string{"2chronicles", "2chron", "2chr", "2ch"}},
	{"EZR", "Ezra", 10, false, []string{"ezra", "ezr"}},
	{"NEH", "Nehemiah", 13, false, []string{"nehemiah", "neh", "ne"}},
	{"EST", "Esther", 10, false, []string{"esther", "esth", "est", "es"}},
	{"JOB", "Job", 42, false, []string{"job", "jb"}},
	{"PSA", "Psalms", 150, false, []string{"psalms", "psalm", "ps", "psa", "pss", "psm", "pslm"}},
	{"PRO", "Proverbs", 31, false, []string{"proverbs", "prov", "pro", "prv", "pr"}},
	{"ECC", "Ecclesiastes", 12, false, []string{"ecclesiastes", "eccles", "eccl", "ecc", "ec", "qoh", "qoheleth"}},
	{"SNG", "Song of Solomon", 8, false, []string{"songofsolomon", "songofsongs", "song", "songs", "sos", "sng", "canticles", "cant", "ss"}},
	{"ISA", "Isaiah", 66, false, []string{"isaiah", "isa", "is"}},
	{"JER", "Jeremiah", 52, false, []string{"jeremiah", "jer", "je", "jr"}},
	{"LAM", "Lamentations", 5, false, []string{"lamentations", "lam", "la"}},
	{"EZK", "Ezekiel", 48, false, []string{"ezekiel", "ezek", "eze", "ezk"}},
	{"DAN", "Daniel", 12, false, []string{"daniel", "dan", "da", "dn"}},
	{"HOS", "Hosea", 14, false, []string{"hosea", "hos", "ho"}},
	{"JOL", "Joel", 3, false, []string{"joel", "jol", "jl"}},
	{"AMO", "Amos", 9, false, []string{"amos", "amo", "am"}},
	{"OBA", "Obadiah", 1, false, []string{"obadiah", "obad", "oba", "ob"}},
	{"JON", "Jonah", 4, false, []string{"jonah", "jon", "jnh"}},
	{"MIC", "Micah", 7, false, []string{"micah", "mic", "mi"}},
	{"NAM", "Nahum", 3, false, []string{"nahum", "nah", "nam", "na"}},
	{"HAB", "Habakkuk", 3, false, []string{"habakkuk", "hab", "hb"}},
	{"ZEP", "Zephaniah", 3, false, []string{"zephaniah", "zeph", "zep", "zp"}},
	{"HAG", "Haggai", 2, false, []string{"haggai", "hag", "hg"}},
	{"ZEC", "Zechariah", 14, false, []string{"zechariah", "zech", "zec", "zc"}},
	{"MAL", "Malachi", 4, false, []string{"malachi", "mal", "ml"}},
	{"MAT", "Matthew", 28, true, []string{"matthew", "matt", "mat", "mt"}},
	{"MRK", "Mark", 16, true, []string{"mark", "mrk", "mk", "mr", "mar"}},
	{"LUK", "Luke", 24, true, []string{"luke", "luk", "lk"}},
	{"JHN", "John", 21, true, []string{"john", "jhn", "jn", "joh"}},
	{"ACT", "Acts", 28, true, []string{"acts", "act", "ac"}},
	{"ROM", "Romans", 16, true, []string{"romans", "rom", "ro", "rm"}},
	{"1CO", "1 Corinthians", 16, true, []string{"1corinthians", "1cor", "1co"}},
	{"2CO", "2 Corinthians", 13, true, []string{"2corinthians", "2cor", "2co"}},
	{"GAL", "Galatians", 6, true, []string{"galatians", "gal", "ga"}},
	{"EPH", "Ephesians", 6, true, []string{"ephesians", "ephes", "eph"}},
	{"PHP", "Philippians", 4, true, []string{"philippians", "phil", "php", "phi"}},
	{"COL", "Colossians", 4, true, []string{"colossians", "col"}},
	{"1TH", "1 Thessalonians", 5, true, []string{"1thessalonians", "1thess", "1thes", "1th"}},
	{"2TH", "2 Thessalonians", 3, true, []string{"2thessalonians", "2thess", "2thes", "2th"}},
	{"1TI", "1 Timothy", 6, true, []string{"1timothy", "1tim", "1ti", "1tm"}},
	{"2TI", "2 Timothy", 4, true, []string{"2timothy", "2tim", "2ti", "2tm"}},
	{"TIT", "Titus", 3, true, []string{"titus", "tit", "ti"}},
	{"PHM", "Philemon", 1, true, []string{"philemon", "philem", "phm", "phlm", "pm"}},
	{"HEB", "Hebrews", 13, true, []string{"hebrews", "heb"}},
	{"JAS", "James", 5, true, []string{"james", "jas", "jam", "jm"}},
	{"1PE", "1 Peter", 5, true, []string{"1peter", "1pet", "1pe", "1pt", "1p"}},
	{"2PE", "2 Peter", 3, true, []string{"2peter", "2pet", "2pe", "2pt", "2p"}},
	{"1JN", "1 John", 5, true, []string{"1john", "1jn", "1jo", "1joh", "1jhn", "1j"}},
	{"2JN", "2 John", 1, true, []string{"2john", "2jn", "2jo", "2joh", "2jhn", "2j"}},
	{"3JN", "3 John", 1, true, []string{"3john", "3jn", "3jo", "3joh", "3jhn", "3j"}},
	{"JUD", "Jude", 1, true, []string{"jude", "jud", "jd"}},
	{"REV", "Revelation", 22, true, []string{"revelation", "revelations", "rev", "re", "rv", "apocalypse", "apoc"}},
}

var (
	bookByAlias = map[string]*book{}
	bookByID    = map[string]*book{}
)

func init() {
	for i := range books {
		b := &books[i]
		bookByID[b.ID] = b
		// The USFM code is accepted too (lower case, as every alias).
		for _, a := range append([]string{strings.ToLower(b.ID)}, b.Aliases...) {
			if prev, dup := bookByAlias[a]; dup && prev != b {
				panic(fmt.Sprintf("scripture: alias %q names both %s and %s", a, prev.ID, b.ID))
			}
			bookByAlias[a] = b
		}
	}
}

// maxRangeChapters is the most chapters a verse range may touch: bible-api.com answers 400 "too
// many chapters" to a range across more than one chapter boundary (seven1m/bible_api app.rb).
const maxRangeChapters = 2

// maxVerse is the highest verse number in the Bible (Psalm 119:176); a larger verse number cannot
// exist in any chapter. Per-chapter verse counts differ between translations' versifications, so
// the verse is otherwise checked by the source (bible-api.com answers 404 for a verse it lacks).
const maxVerse = 176

// normalizeBookName turns a book name as written ("1 Cor.", "I Corinthians", "First John", "Song
// of Solomon") into the alias form: lower case, a leading number as a digit, no dots, no spaces.
func normalizeBookName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.ReplaceAll(s, ".", " ")
	s = strings.Join(strings.Fields(s), " ")
	for _, p := range [][2]string{
		{"first ", "1"}, {"second ", "2"}, {"third ", "3"},
		{"1st ", "1"}, {"2nd ", "2"}, {"3rd ", "3"},
		{"iii ", "3"}, {"ii ", "2"}, {"i ", "1"},
	} {
		if strings.HasPrefix(s, p[0]) {
			s = p[1] + s[len(p[0]):]
			break
		}
	}
	return strings.ReplaceAll(s, " ", "")
}

// lookupBook finds a book by any of its names or abbreviations.
func lookupBook(name string) (*book, bool) {
	b, ok := bookByAlias[normalizeBookName(name)]
	return b, ok
}

// bibleRef is a parsed Bible reference: one whole chapter, or a verse range that may cross into a
// later chapter of the same book.
type bibleRef struct {
	Book         *book
	Chapter      int
	Verse        int // 0: the whole chapter
	EndChapter   int
	EndVerse     int
	WholeChapter bool
}

// upstreamPath is the bible-api.com reference for the passage, with the book as its USFM code:
// bible-api.com accepts a book code in every translation's language ("JHN 3:16" finds Juan 3:16 in
// a Spanish translation), while English names are only understood by English translations.
func (r bibleRef) upstreamPath() string {
	return r.Book.ID + "+" + r.numbers()
}

// String is the reference in English ("1 Corinthians 13:4-7").
func (r bibleRef) String() string {
	return r.Book.Name + " " + r.numbers()
}

func (r bibleRef) numbers() string {
	switch {
	case r.WholeChapter:
		return strconv.Itoa(r.Chapter)
	case r.EndChapter != r.Chapter:
		return fmt.Sprintf("%d:%d-%d:%d", r.Chapter, r.Verse, r.EndChapter, r.EndVerse)
	case r.EndVerse != r.Verse:
		return fmt.Sprintf("%d:%d-%d", r.Chapter, r.Verse, r.EndVerse)
	}
	return fmt.Sprintf("%d:%d", r.Chapter, r.Verse)
}

// refError is a reason a reference is refused, shown as a violation at /reference.
type refError struct{ msg string }

func (e *refError) Error() string { return e.msg }

func refErrorf(format string, args ...any) *refError {
	return &refError{msg: fmt.Sprintf(format, args...)}
}

var (
	// bibleRefPattern splits "book numbers": the book ends with a letter, a dot or an apostrophe.
	bibleRefPattern = regexp.MustCompile(`^(.*?[a-z][a-z.']*)\s*([0-9].*)?$`)
	// numbersPattern is "C", "C:V", "C:V-V", "C:V-C:V" or "C-C" (verse separator ":" or ".").
	numbersPattern = regexp.MustCompile(`^(\d+)(?:\s*[:.]\s*(\d+))?(?:\s*-\s*(\d+)(?:\s*[:.]\s*(\d+))?)?$`)
)

const bibleRefForms = `use "Book chapter", "Book chapter:verse" or "Book chapter:verse-verse" (for example "John 3:16", "Jn 3:16-18", "1 Cor 13", "Ps 23")`

// parseBibleRef parses "book chapter:verse-range" forms: "John 3:16", "Jn 3:16-18", "1 Cor 13",
// "Song of Solomon 2:1-3", "Ps 23", "John 3:16-4:2". In a one-chapter book (Obadiah, Philemon, 2
// and 3 John, Jude) a single number is a verse ("Jude 3", as bible-api.com reads it) and the book
// alone is its chapter.
func parseBibleRef(s string) (bibleRef, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	in = strings.NewReplacer("\u2013", "-", "\u2014", "-", "\u2012", "-", "\u2010", "-").Replace(in)
	m := bibleRefPattern.FindStringSubmatch(in)
	if m == nil {
		return bibleRef{}, refErrorf("the reference %q is not a Bible reference; %s", s, bibleRefForms)
	}
	name, nums := strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
	b, ok := lookupBook(name)
	if !ok {
		return bibleRef{}, refErrorf("unknown book %q; use a book of the 66-book Bible by name or common abbreviation (for example \"Genesis\", \"Gen\", \"1 Cor\", \"Song of Solomon\")", strings.TrimSpace(m[1]))
	}
	if nums == "" {
		if b.Chapters == 1 {
			return bibleRef{Book: b, Chapter: 1, EndChapter: 1, WholeChapter: true}, nil
		}
		return bibleRef{}, refErrorf("the reference %q names no chapter; %s", s, bibleRefForms)
	}
	n := numbersPattern.FindStringSubmatch(nums)
	if n == nil {
		return bibleRef{}, refErrorf("the chapter and verse part %q of %q cannot be read; %s", nums, s, bibleRefForms)
	}
	var v [4]int
	for i, g := range n[1:] {
		if g == "" {
			continue
		}
		x, err := strconv.Atoi(g)
		if err != nil || x < 1 || x > 9999 {
			return bibleRef{}, refErrorf("%q is not a valid chapter or verse number in %q", g, s)
		}
		v[i] = x
	}
	c1, v1, x, v2 := v[0], v[1], v[2], v[3]
	var r bibleRef
	r.Book = b
	switch {
	case n[2] == "" && n[3] == "":
		// "C": a chapter, or a verse of a one-chapter book.
		if b.Chapters == 1 {
			r.Chapter, r.Verse, r.EndChapter, r.EndVerse = 1, c1, 1, c1
		} else {
			r.Chapter, r.EndChapter, r.WholeChapter = c1, c1, true
		}
	case n[2] == "" && n[4] == "":
		// "C-C": verses of a one-chapter book; a chapter range otherwise.
		if b.Chapters != 1 {
			return bibleRef{}, refErrorf("chapter ranges such as %q are not supported; give one chapter (\"%s %d\") or a verse range (\"%s %d:1-%d:5\")", s, b.Name, c1, b.Name, c1, x)
		}
		r.Chapter, r.Verse, r.EndChapter, r.EndVerse = 1, c1, 1, x
	case n[2] == "":
		return bibleRef{}, refErrorf("the chapter and verse part %q of %q cannot be read; %s", nums, s, bibleRefForms)
	case n[3] == "":
		r.Chapter, r.Verse, r.EndChapter, r.EndVerse = c1, v1, c1, v1
	case n[4] == "":
		r.Chapter, r.Verse, r.EndChapter, r.EndVerse = c1, v1, c1, x
	default:
		r.Chapter, r.Verse, r.EndChapter, r.EndVerse = c1, v1, x, v2
	}
	if r.Chapter > b.Chapters || r.EndChapter > b.Chapters {
		bad := max(r.Chapter, r.EndChapter)
		return bibleRef{}, refErrorf("%s has %d chapter%s; chapter %d does not exist", b.Name, b.Chapters, plural(b.Chapters), bad)
	}
	if r.EndChapter < r.Chapter || (r.EndChapter == r.Chapter && r.EndVerse < r.Verse) {
		return bibleRef{}, refErrorf("the range in %q ends before it starts", s)
	}
	if r.EndChapter-r.Chapter+1 > maxRangeChapters {
		return bibleRef{}, refErrorf("the range in %q spans %d chapters; bible-api.com serves a verse range across at most one chapter boundary (for example \"%s %d:%d-%d:%d\")",
			s, r.EndChapter-r.Chapter+1, b.Name, r.Chapter, r.Verse, r.Chapter+1, verseCounts[b.ID][r.Chapter])
	}
	if r.Verse > maxVerse || r.EndVerse > maxVerse {
		return bibleRef{}, refErrorf("verse %d does not exist: no chapter of the Bible has more than %d verses", max(r.Verse, r.EndVerse), maxVerse)
	}
	return r, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

package classics

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

// excerptChars is the length of a details excerpt, in characters (both sources).
const excerptChars = 2000

// snippetChars bounds a record snippet made from a Gutendex summary (they run to about 1,000
// characters; a search page of 25 full summaries would bury the records).
const snippetChars = 600

var (
	// Project Gutenberg's texts open with a licence header that ends in a line like
	// "*** START OF THE PROJECT GUTENBERG EBOOK FRANKENSTEIN ***" ("THIS" in older files) and
	// close with "*** END OF THE PROJECT GUTENBERG EBOOK ... ***". Texts from the 1990s end the
	// header with "*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*...".
	pgStart      = regexp.MustCompile(`(?im)^[ \t]*\*{3}[ \t]*START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK[^\n]*$`)
	pgSmallPrint = regexp.MustCompile(`(?im)^[ \t]*\*END\*[ \t]*THE SMALL PRINT[^\n]*$`)
	pgEnd        = regexp.MustCompile(`(?im)^[ \t]*\*{3}[ \t]*END OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK`)
	blankLines   = regexp.MustCompile(`\n[ \t]*\n(?:[ \t]*\n)+`)
	// Transcriber credits that open many texts right after the header.
	pgCredits = regexp.MustCompile(`(?is)^(?:produced by|e-?text prepared by)\b.*?(?:\n\n|$)`)
	spaceRuns = regexp.MustCompile(`[ \t\x{00a0}]+`)
)

// gutenbergBody removes the Project Gutenberg header (and footer, when the text is short enough
// to include it) and a leading transcriber credit from a plain-text ebook and normalizes its
// line breaks. A text without a
// recognizable header is returned whole.
func gutenbergBody(text string) string {
	text = strings.ToValidUTF8(text, "") // a ranged read may cut a character in two
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if loc := pgStart.FindStringIndex(text); loc != nil {
		text = text[loc[1]:]
	} else if loc := pgSmallPrint.FindStringIndex(text); loc != nil {
		text = text[loc[1]:]
	}
	if loc := pgEnd.FindStringIndex(text); loc != nil {
		text = text[:loc[0]]
	}
	text = tidyText(text)
	return strings.TrimSpace(pgCredits.ReplaceAllString(text, ""))
}

// tidyText trims every line's trailing spaces, collapses runs of blank lines into one and trims
// the whole.
func tidyText(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	text = strings.Join(lines, "\n")
	text = blankLines.ReplaceAllString(text, "\n\n")
	return strings.TrimSpace(text)
}

// dropPartialWord ends a text that was cut short by a ranged read at its last whole word and
// marks the cut.
func dropPartialWord(text string) string {
	if i := strings.LastIndexFunc(text, unicode.IsSpace); i > 0 {
		text = text[:i]
	}
	return ellipsize(text)
}

func ellipsize(text string) string {
	return strings.TrimRight(text, " \t\n,;:.") + "…"
}

// skippedClasses mark parts of a rendered Wikisource page that are not the work's text: the
// header and navigation (ws-noexport, noprint), edit links and footnote markers.
var skippedClasses = []string{"ws-noexport", "noprint", "mw-editsection", "reference", "mw-references-wrap", "noexcerpt"}

// blockTags start a new line in the plain text of an HTML fragment.
var blockTags = map[string]bool{
	"p": true, "div": true, "br": true, "li": true, "tr": true, "table": true, "blockquote": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "dd": true, "dt": true,
	"pre": true, "hr": true, "ul": true, "ol": true, "dl": true, "section": true, "center": true,
}

// voidTags never have an end tag.
var voidTags = map[string]bool{
	"br": true, "img": true, "hr": true, "meta": true, "link": true, "input": true, "wbr": true,
	"source": true, "area": true, "col": true, "embed": true, "track": true, "base": true,
}

// htmlText turns a rendered page (MediaWiki action=parse output) into plain text: scripts,
// styles and the page furniture of skippedClasses are dropped, block elements become line
// breaks and entities are decoded.
func htmlText(fragment string) string {
	z := html.NewTokenizer(strings.NewReader(fragment))
	var b strings.Builder
	skip := 0 // depth inside a skipped element
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return tidyText(spaceRuns.ReplaceAllString(b.String(), " "))
		case html.TextToken:
			if skip == 0 {
				b.WriteString(strings.NewReplacer("\n", " ", "\r", " ").Replace(string(z.Text())))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			void := voidTags[tag] || tt == html.SelfClosingTagToken
			if skip > 0 {
				if !void {
					skip++
				}
				continue
			}
			if !void && (tag == "script" || tag == "style" || tag == "noscript" || hasSkippedClass(z, hasAttr)) {
				skip = 1
				continue
			}
			if blockTags[tag] {
				b.WriteByte('\n')
			}
		case html.EndTagToken:
			if skip > 0 {
				name, _ := z.TagName()
				if !voidTags[string(name)] {
					skip--
				}
				continue
			}
			name, _ := z.TagName()
			if blockTags[string(name)] {
				b.WriteByte('\n')
			}
		}
	}
}

func hasSkippedClass(z *html.Tokenizer, hasAttr bool) bool {
	for hasAttr {
		var key, val []byte
		key, val, hasAttr = z.TagAttr()
		if string(key) != "class" {
			continue
		}
		for _, c := range strings.Fields(string(val)) {
			for _, s := range skippedClasses {
				if c == s {
					return true
				}
			}
		}
	}
	return false
}

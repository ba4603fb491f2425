package classics

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

func TestGutenbergBody(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"current header and footer",
			"\ufeffThe Project Gutenberg eBook of X\r\n\r\nTitle: X\r\n\r\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\r\n\r\n\r\n\r\nCHAPTER I.\r\n\r\nText.   \r\n\r\n*** END OF THE PROJECT GUTENBERG EBOOK X ***\r\nLicence...",
			"CHAPTER I.\n\nText."},
		{"older header and credits", "The Project Gutenberg EBook of Y\n*** START OF THIS PROJECT GUTENBERG EBOOK Y ***\n\nProduced by Z and the Online\nDistributed Proofreading Team\n\n\n\nBody",
			"Body"},
		{"1990s small print", "**The Project Gutenberg Etext of W**\n*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.04.29.93*END*\n\nOpening line.",
			"Opening line."},
		{"hyphenated e-book marker", "Header\n***START OF THE PROJECT GUTENBERG E-BOOK V***\nBody", "Body"},
		{"no header", "Just text\n\n\n\nMore text", "Just text\n\nMore text"},
		{"cut character", "*** START OF THE PROJECT GUTENBERG EBOOK X ***\nOpening \xe2\x80", "Opening"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := gutenbergBody(tc.in); got != tc.want {
				t.Errorf("gutenbergBody = %q, want %q", got, tc.want)
			}
		})
	}
}

// The clipping rule's cases are in providers (Clip); here, an excerpt of this package's length.
func TestTruncate(t *testing.T) {
	long := strings.Repeat("word ", 1000)
	if got := providers.Clip(long, excerptChars); utf8.RuneCountInString(got) > excerptChars || !strings.HasSuffix(got, "word…") {
		t.Errorf("long truncate gave %d characters ending %q", utf8.RuneCountInString(got), got[len(got)-10:])
	}
}

func TestHTMLText(t *testing.T) {
	in := `<div class="mw-parser-output"><div class="ws-noexport header"><div>Back <a href="/x">link</a></div><br/><div>nested</div></div>` +
		`<style>.x{color:red}</style><h2>Chapter&nbsp;I<span class="mw-editsection">[edit]</span></h2>` +
		`<p>It was <i>the</i> best&#8212;of times.<sup class="reference"><a>[1]</a></sup><br>Next line<img src="x.png"> here.</p>` +
		`<table class="noprint"><tr><td>nav</td></tr></table><p>Last &amp; least</p><script>var x = "<p>";</script></div>`
	want := "Chapter I\n\nIt was the best—of times.\nNext line here.\n\nLast & least"
	if got := htmlText(in); got != want {
		t.Errorf("htmlText =\n%q\nwant\n%q", got, want)
	}
	if got := htmlText(""); got != "" {
		t.Errorf("htmlText of nothing = %q", got)
	}
	if got := htmlText(`<p>unclosed <b>bold`); got != "unclosed bold" {
		t.Errorf("htmlText of broken HTML = %q", got)
	}
}

func TestPickFormat(t *testing.T) {
	formats := strMap{
		"text/html; charset=utf-8":     "https://www.gutenberg.org/files/1400/1400-h.zip",
		"text/html":                    "https://www.gutenberg.org/ebooks/1400.html.images",
		"text/plain; charset=utf-8":    "https://www.gutenberg.org/files/1400/1400-0.txt",
		"text/plain; charset=us-ascii": "https://www.gutenberg.org/ebooks/1400.txt.utf-8",
		"application/epub+zip":         "https://www.gutenberg.org/ebooks/1400.epub3.images",
	}
	for mediaType, want := range map[string]string{
		"text/plain":           "https://www.gutenberg.org/files/1400/1400-0.txt",
		"text/html":            "https://www.gutenberg.org/ebooks/1400.html.images",
		"application/epub+zip": "https://www.gutenberg.org/ebooks/1400.epub3.images",
		"audio/mpeg":           "",
	} {
		if got := pickFormat(formats, mediaType); got != want {
			t.Errorf("pickFormat(%s) = %q, want %q", mediaType, got, want)
		}
	}
	if got := pickFormat(strMap{"text/html; charset=utf-8": "https://x/1-h.zip"}, "text/html"); got != "" {
		t.Errorf("a zip archive was taken for HTML: %q", got)
	}
	if got := pickFormat(strMap{"TEXT/PLAIN; charset=iso-8859-1": "https://x/1-8.txt"}, "text/plain"); got != "https://x/1-8.txt" {
		t.Errorf("any charset should do: %q", got)
	}
}

func TestLinks(t *testing.T) {
	for title, want := range map[string]string{
		"A Tale of Two Cities/Book 1/Chapter 1": "https://en.wikisource.org/wiki/A_Tale_of_Two_Cities/Book_1/Chapter_1",
		"A Christmas Carol (Dickens)":           "https://en.wikisource.org/wiki/A_Christmas_Carol_(Dickens)",
		"Ozymandias (Shelley)":                  "https://en.wikisource.org/wiki/Ozymandias_(Shelley)",
		"Les Misérables/Fantine?":               "https://en.wikisource.org/wiki/Les_Mis%C3%A9rables/Fantine%3F",
		"Q&A #1: \"100%\"":                      "https://en.wikisource.org/wiki/Q%26A_%231:_%22100%25%22",
	} {
		if got := wikiPage(title); got != want {
			t.Errorf("wikiPage(%q) = %q, want %q", title, got, want)
		}
	}
	if got := wsExport("A Christmas Carol (Dickens)", "epub"); got != "https://ws-export.wmcloud.org/?lang=en&page=A+Christmas+Carol+%28Dickens%29&format=epub" {
		t.Errorf("wsExport = %q", got)
	}
}

func TestLenientDecoding(t *testing.T) {
	var v struct {
		A, B, C, D, E lenient.Int
		S, T, U       lenient.Str
		X, Y          optBool
		L             lenient.List[lenient.Str]
		M             strMap
		N             strMap
		O             lenient.Obj[mwContinue]
		P             lenient.Obj[mwContinue]
	}
	in := `{"A":12,"B":"34","C":null,"D":{"x":1},"E":1.5,"S":"  hi ","T":7,"U":"","X":true,"Y":"yes",` +
		`"L":["a",2,null,"b"],"M":{"text/plain":"u","bad":3,"blank":" "},"N":["x"],"O":{"sroffset":"20"},"P":"nope"}`
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%v %v %v %v %v|%q %q %q|%v %v|%q|%v %v|%v %v", v.A, v.B, v.C, v.D, v.E, v.S, v.T, v.U, v.X, v.Y, v.L, v.M, v.N, v.O.V, v.P.V)
	want := `{12 true} {34 true} {0 false} {0 false} {0 false}|"hi" "" ""|true false|["a" "" "b"]|map[text/plain:u] map[]|&{{20 true}} <nil>`
	if got != want {
		t.Errorf("decoded\n got %s\nwant %s", got, want)
	}
	var books gutendexList
	if err := json.Unmarshal([]byte(`{"count":"12","next":7,"results":[null,"junk",42,{"id":"5","title":["x"],"authors":"Dickens","languages":[null,"en"],"formats":null,"download_count":-1}]}`), &books); err != nil {
		t.Fatal(err)
	}
	if len(books.Results) != 1 || books.Next != "" || books.Count.V != 12 {
		t.Fatalf("books = %+v", books)
	}
	rec, ok := ebookRecord(books.Results[0])
	if !ok || rec.Title != "Project Gutenberg ebook #5" || rec.Data.(*BookRecord).Downloads != nil || fmt.Sprint(rec.Data.(*BookRecord).Languages) != "[en]" || rec.Data.(*BookRecord).Authors != nil {
		t.Errorf("record = %+v", rec)
	}
}

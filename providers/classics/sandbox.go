package classics

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/capgate/capgate/providers"
)

// The sandbox's searches answer any title words and author (issue 36): Gutendex's list is a
// synthetic catalog of works whose titles hold the asked title words and whose author is the
// asked author, in the asked language, most downloaded first, 32 per page as Gutendex pages; the
// Project Gutenberg text of a generated work opens with its title and author. The recorded
// searches (dickens, verne) keep their recorded answers; Wikisource's search carries the asked
// words (issue 18).
func init() {
	providers.RegisterGenerators(gutendexID, providers.GeneratedRoute{Path: gutendexBooksPath, Generate: generateCatalog})
	providers.RegisterGenerators(gutenbergID, providers.GeneratedRoute{Path: "/cache/epub/*", Generate: generateText,
		Type: "text/plain; charset=utf-8"})
	providers.RegisterGenerators(wikisourceID, providers.GeneratedRoute{Path: "/w" + wikisourceAPIPath,
		Generate: providers.TopicSearch("srsearch", "dickens")})
}

// gutendexPage is Gutendex's page size.
const gutendexPage = 32

// nameParticles may stand lower-case inside an author's name.
var nameParticles = map[string]bool{"de": true, "van": true, "von": true, "der": true, "da": true, "du": true, "le": true, "la": true, "di": true}

// splitTerms reads the search the adapter sends (the query's words, then the author's) back as
// title words and author: the author is the trailing run of capitalised words (initials and
// particles included); a search of capitalised words only is an author when it has two to four
// words, else title words.
func splitTerms(terms string) (title, author string) {
	words := strings.Fields(terms)
	i := len(words)
	for i > 0 {
		w := words[i-1]
		r := []rune(w)
		if unicode.IsUpper(r[0]) || (nameParticles[w] && i < len(words)) {
			i--
			continue
		}
		break
	}
	for i < len(words) && nameParticles[words[i]] {
		i++
	}
	if i == 0 && (len(words) < 2 || len(words) > 4) {
		i = len(words)
	}
	return strings.Join(words[:i], " "), strings.Join(words[i:], " ")
}

// catalogName is an author as Gutendex catalogues it: "Austen, Jane".
func catalogName(author string) string {
	w := strings.Fields(author)
	if len(w) < 2 {
		return author
	}
	return w[len(w)-1] + ", " + strings.Join(w[:len(w)-1], " ")
}

var workForms = []string{"%s", "The %s", "%s and Other Stories", "Tales of %s", "%s: A Novel", "%s, Volume II", "A Study of %s",
	"%s in Three Acts", "Letters on %s", "%s: Poems", "The Book of %s", "%s Revisited"}

var authorWorks = []string{"Collected Stories", "The Winter Journey", "Letters from the Coast", "A Season in the Country",
	"Poems", "The Lighthouse Keeper", "Essays", "The Long Road Home", "Sketches of Town Life", "The Inheritance",
	"Travels in the North", "A Tale of the Harbour", "The Orchard", "Selected Plays", "The Silent House", "Short Fiction"}

// work is a generated catalog entry, remembered so that its text opens with its title.
type work struct{ title, author, language string }

var (
	worksMu sync.Mutex
	works   = map[int]work{}
)

func remember(id int, w work) {
	worksMu.Lock()
	defer worksMu.Unlock()
	if len(works) > 20000 {
		clear(works)
	}
	works[id] = w
}

// generateCatalog answers a Gutendex search with a synthetic catalog of the asked words and author.
func generateCatalog(r *http.Request, fixture []byte, status int) ([]byte, int) {
	q := r.URL.Query()
	terms := strings.TrimSpace(q.Get("search"))
	if terms == "" || (status != http.StatusOK && status != http.StatusNotFound) {
		return fixture, status
	}
	lower := strings.ToLower(terms)
	if providers.IsSandboxMiss(terms) {
		return []byte(`{"count":0,"next":null,"previous":null,"results":[]}`), http.StatusOK
	}
	if lower == "dickens" || lower == "charles dickens" || strings.Contains(lower, "verne") {
		return fixture, status // the recorded searches
	}
	tmpl := providers.FromTemplate(providers.Templates(providers.JSONObject(mustRead("gutendex_books_dickens.json"))["results"]), 0)
	if tmpl == nil {
		return fixture, status
	}
	titleWords, author := splitTerms(terms)
	langs := strings.Split(q.Get("languages"), ",")
	if q.Get("languages") == "" {
		langs = []string{"en"}
	}
	total := 24 + int(providers.Rand("catalog", lower).IntN(30))
	var all []map[string]any
	for i := range total {
		rr := providers.Rand("work", lower, strconv.Itoa(i))
		var title string
		if titleWords != "" {
			title = fmt.Sprintf(workForms[i%len(workForms)], providers.TitleCase(titleWords))
			if i >= len(workForms) {
				title += fmt.Sprintf(" (%d)", i/len(workForms)+1)
			}
		} else {
			title = authorWorks[i%len(authorWorks)]
			if i >= len(authorWorks) {
				title += fmt.Sprintf(", Part %d", i/len(authorWorks)+1)
			}
		}
		name := author
		if name == "" {
			name = providers.SynthPerson(lower, i%5)
		}
		born := 1700 + rr.IntN(180)
		id := 90000 + int(providers.Rand("ebook", lower, strconv.Itoa(i)).IntN(9000000))
		lang := strings.TrimSpace(langs[i%len(langs)])
		rec := providers.Clone(tmpl).(map[string]any)
		rec["id"] = id
		rec["title"] = title
		rec["authors"] = []any{map[string]any{"name": catalogName(name), "birth_year": born, "death_year": born + 40 + rr.IntN(45)}}
		rec["summaries"] = []any{fmt.Sprintf("%q by %s is a public-domain work in the capgate sandbox catalog. (A synthetic test-mode summary.)", title, name)}
		rec["editors"], rec["translators"] = []any{}, []any{}
		rec["subjects"] = []any{providers.TitleCase(strings.Fields(title)[0]) + " -- Fiction"}
		rec["bookshelves"] = []any{"Category: Classics of Literature"}
		rec["languages"] = []any{lang}
		rec["download_count"] = 200 + rr.IntN(40000)
		base := fmt.Sprintf("%s/ebooks/%d", gutenbergSite, id)
		rec["formats"] = map[string]any{
			"text/html":                    base + ".html.images",
			"application/epub+zip":         base + ".epub3.images",
			"text/plain; charset=us-ascii": fmt.Sprintf("%s/cache/epub/%d/pg%d.txt", gutenbergSite, id, id),
		}
		remember(id, work{title: title, author: name, language: lang})
		all = append(all, rec)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i]["download_count"].(int) > all[j]["download_count"].(int) })
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	from := (page - 1) * gutendexPage
	if from >= len(all) && page > 1 {
		return []byte(`{"detail":"Invalid page."}`), http.StatusNotFound
	}
	var results []any
	for i := from; i < min(from+gutendexPage, len(all)); i++ {
		results = append(results, all[i])
	}
	link := func(p int) any {
		if p < 1 || (p-1)*gutendexPage >= len(all) {
			return nil
		}
		v := url.Values{"search": {terms}, "page": {strconv.Itoa(p)}}
		if l := q.Get("languages"); l != "" {
			v.Set("languages", l)
		}
		return "https://gutendex.com/books/?" + v.Encode()
	}
	return providers.JSONBytes(map[string]any{"count": len(all), "next": link(page + 1), "previous": link(page - 1), "results": results}), http.StatusOK
}

func mustRead(name string) []byte {
	b, _ := sandboxFiles.ReadFile("sandbox/" + name)
	return b
}

var textPath = regexp.MustCompile(`^/cache/epub/(\d+)/pg(\d+)\.txt$`)

// generateText answers the plain text of a generated work: Project Gutenberg's header with its
// title and author, then a synthetic opening.
func generateText(r *http.Request, fixture []byte, status int) ([]byte, int) {
	m := textPath.FindStringSubmatch(r.URL.Path)
	if status == http.StatusOK || m == nil || m[1] != m[2] {
		return fixture, status
	}
	id, _ := strconv.Atoi(m[1])
	worksMu.Lock()
	w, ok := works[id]
	worksMu.Unlock()
	if !ok {
		return fixture, status
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\ufeffThe Project Gutenberg eBook of %s\n\nThis ebook is a synthetic test-mode text of the capgate sandbox.\n\n", w.title)
	fmt.Fprintf(&b, "Title: %s\n\nAuthor: %s\n\nLanguage: %s\n\n", w.title, w.author, w.language)
	fmt.Fprintf(&b, "*** START OF THE PROJECT GUTENBERG EBOOK %s ***\n\n", strings.ToUpper(w.title))
	fmt.Fprintf(&b, "%s\n\nby %s\n\n\nCHAPTER I.\n\n", w.title, w.author)
	for i := range 12 {
		fmt.Fprintf(&b, "%s The sandbox holds no real text of %s; this paragraph stands in for it.\n\n", providers.TopicSnippet(w.title, i), w.title)
	}
	return []byte(b.String()), http.StatusOK
}

package openlibrary

import (
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/capgate/capgate/providers"
)

// The sandbox's searches answer any query, author and subject with a synthetic set of works
// about them (issue 36): every work's title carries the query's words, its author is the author
// asked for, its subjects the subject asked for; pages advance through the set and end. The
// recorded queries (the title query, the Roald Dahl author query) get the recorded answers. A
// generated work's details (work and editions) describe the same work.
func init() {
	providers.RegisterGenerators(ProviderID,
		providers.GeneratedRoute{Path: "/search.json", Generate: generateSearch},
		providers.GeneratedRoute{Path: "/works/*", Generate: generateWork})
}

// synthWork is what a generated work's details repeat about it.
type synthWork struct {
	Title, Author, Subject string
	Year                   int
}

// synthWorks remembers the generated works by key for their details lookups (bounded: the set
// is forgotten when full; a forgotten work's details are a synthetic work of that key).
var synthWorks = struct {
	sync.Mutex
	m map[string]synthWork
}{m: map[string]synthWork{}}

const maxSynthWorks = 20000

func rememberWork(key string, w synthWork) {
	synthWorks.Lock()
	defer synthWorks.Unlock()
	if len(synthWorks.m) >= maxSynthWorks {
		synthWorks.m = map[string]synthWork{}
	}
	synthWorks.m[key] = w
}

func recalledWork(key string) (synthWork, bool) {
	synthWorks.Lock()
	defer synthWorks.Unlock()
	w, ok := synthWorks.m[key]
	return w, ok
}

var titlePatterns = []string{"%s", "The %s Chronicles", "%s: A Novel", "Return to %s", "The Last %s", "%s and Other Stories",
	"A History of %s", "Beyond %s", "The Book of %s", "%s Rising", "Letters on %s", "The %s Years"}

func recordedSearch(q, author, subject string) bool {
	return (author == "" && subject == "" && strings.EqualFold(strings.TrimSpace(q), "the lord of the rings")) ||
		strings.Contains(strings.ToLower(author), "dahl")
}

func generateSearch(r *http.Request, fixture []byte, status int) ([]byte, int) {
	v := r.URL.Query()
	q, author, subject := strings.TrimSpace(v.Get("q")), strings.TrimSpace(v.Get("author")), strings.TrimSpace(v.Get("subject"))
	if status != http.StatusOK {
		return fixture, status
	}
	if providers.IsSandboxMiss(q) || providers.IsSandboxMiss(author) || providers.IsSandboxMiss(subject) {
		return providers.EmptyAnswer(fixture), status
	}
	if recordedSearch(q, author, subject) {
		return providers.LimitResults("limit", providers.TopicSearch("q", "the lord of the rings"))(r, fixture, status)
	}
	doc := providers.JSONObject(fixture)
	tmpls := providers.Templates(doc["docs"])
	if len(tmpls) == 0 {
		return fixture, status
	}
	topic := q
	if topic == "" {
		topic = subject
	}
	if topic == "" {
		topic = author
	}
	seed := strings.ToLower(q + "\x00" + author + "\x00" + subject)
	rnd := providers.Rand("books", seed)
	total := 18 + rnd.IntN(30)
	page, _ := strconv.Atoi(v.Get("page"))
	page = max(page, 1)
	limit, err := strconv.Atoi(v.Get("limit"))
	if err != nil || limit < 1 {
		limit = 100
	}
	base := 900000000 + int(rnd.Uint32()%9000000)*10
	docs := []any{}
	for i := (page - 1) * limit; i < min(page*limit, total); i++ {
		rec := providers.FromTemplate(tmpls, i)
		wr := providers.Rand("work", seed, strconv.Itoa(i))
		w := synthWork{Title: fmt.Sprintf(titlePatterns[i%len(titlePatterns)], providers.TitleCase(topic)), Year: 1900 + wr.IntN(125)}
		if i >= len(titlePatterns) {
			w.Title += fmt.Sprintf(" (Volume %d)", i/len(titlePatterns)+1)
		}
		w.Author = providers.TitleCase(author)
		if author == "" {
			w.Author = providers.SynthPerson(seed, i%4)
		}
		w.Subject = providers.TitleCase(subject)
		if subject == "" {
			w.Subject = "Fiction"
		}
		key := fmt.Sprintf("/works/OL%dW", base+i)
		rememberWork(key, w)
		rec["key"] = key
		rec["title"] = w.Title
		rec["author_name"] = []any{w.Author}
		rec["first_publish_year"] = w.Year
		rec["subject"] = []any{w.Subject}
		rec["edition_count"] = 1 + wr.IntN(40)
		rec["ratings_average"] = providers.Num(2.5+2.5*wr.Float64(), 2)
		isbn := fmt.Sprintf("979%010d", wr.Int64N(1e10))
		rec["isbn"] = []any{isbn}
		docs = append(docs, rec)
	}
	doc["docs"] = docs
	for _, k := range []string{"numFound", "num_found"} {
		if _, ok := doc[k]; ok {
			doc[k] = total
		}
	}
	doc["start"] = (page - 1) * limit
	doc["q"] = q
	return providers.JSONBytes(doc), http.StatusOK
}

// generateWork answers the work and editions of a generated work (an unknown key is a 404, as
// Open Library answers).
func generateWork(r *http.Request, fixture []byte, status int) ([]byte, int) {
	p := strings.TrimPrefix(r.URL.Path, "/works/")
	olid, rest, _ := strings.Cut(p, "/")
	olid = strings.TrimSuffix(olid, ".json")
	key := "/works/" + olid
	w, ok := recalledWork(key)
	if status == http.StatusOK || !ok {
		return fixture, status
	}
	sub, err := fs.Sub(sandboxFiles, "sandbox")
	if err != nil {
		return fixture, status
	}
	if rest == "editions.json" {
		b, err := fs.ReadFile(sub, "editions_OL45804W.json")
		if err != nil {
			return fixture, status
		}
		doc := providers.JSONObject(b)
		tmpls := providers.Templates(doc["entries"])
		var entries []any
		for i := range 3 {
			e := providers.FromTemplate(tmpls, i)
			r := providers.Rand("edition", key, strconv.Itoa(i))
			e["works"] = []any{map[string]any{"key": key}}
			e["title"] = w.Title
			e["publishers"] = []any{"Sandbox Press"}
			e["publish_date"] = strconv.Itoa(w.Year + i*7)
			e["key"] = fmt.Sprintf("/books/OL%dM", 900000000+r.IntN(90000000))
			e["isbn_13"] = []any{fmt.Sprintf("979%010d", r.Int64N(1e10))}
			delete(e, "isbn_10")
			entries = append(entries, e)
		}
		doc["entries"] = entries
		doc["size"] = len(entries)
		delete(doc, "links")
		return providers.JSONBytes(doc), http.StatusOK
	}
	b, err := fs.ReadFile(sub, "work_OL45804W.json")
	if err != nil {
		return fixture, status
	}
	doc := providers.JSONObject(b)
	doc["title"] = w.Title
	doc["key"] = key
	doc["description"] = map[string]any{"type": "/type/text",
		"value": fmt.Sprintf("%s by %s: a synthetic test-mode work (not a real book).", w.Title, w.Author)}
	doc["subjects"] = []any{w.Subject}
	doc["first_publish_date"] = strconv.Itoa(w.Year)
	delete(doc, "subject_places")
	delete(doc, "subject_people")
	delete(doc, "links")
	return providers.JSONBytes(doc), http.StatusOK
}

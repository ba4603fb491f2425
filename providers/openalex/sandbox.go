package openalex

import (
	"fmt"
	"io/fs"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/capgate/capgate/providers"
)

// The sandbox's /works search answers any query with a synthetic set of works about it (issue
// 36): titles carry the query's words; the publication-year and open-access filters and the sort
// orders (relevance, citations, recency) are applied to the set; pages advance and end. The
// recorded queries without filters or another order get the recorded answers; a generated work's
// lookup describes the same work.
func init() {
	recorded := []string{"CRISPR genome editing", "large language models", "open access citation advantage"}
	topic := providers.LimitResults("per_page", providers.TopicSearch("search", recorded...))
	providers.RegisterGenerators(ProviderID,
		providers.GeneratedRoute{Path: "/works", Generate: func(r *http.Request, fixture []byte, status int) ([]byte, int) {
			v := r.URL.Query()
			plain := v.Get("filter") == "" && (v.Get("sort") == "" || v.Get("sort") == sortParam["relevance"])
			for _, rec := range recorded {
				if plain && strings.EqualFold(strings.TrimSpace(v.Get("search")), rec) {
					return topic(r, fixture, status)
				}
			}
			if status != http.StatusOK || providers.IsSandboxMiss(v.Get("search")) {
				return topic(r, fixture, status)
			}
			return generateWorks(r, fixture, status)
		}},
		providers.GeneratedRoute{Path: "/works/*", Generate: generateWork})
}

type synthWork struct {
	Title string
	Year  int
	Cited int
	OA    bool
}

var synthWorks = struct {
	sync.Mutex
	m map[string]synthWork
}{m: map[string]synthWork{}}

func remember(id string, w synthWork) {
	synthWorks.Lock()
	defer synthWorks.Unlock()
	if len(synthWorks.m) >= 20000 {
		synthWorks.m = map[string]synthWork{}
	}
	synthWorks.m[id] = w
}

var workTitles = []string{"%s: a review", "Advances in %s", "On the foundations of %s", "%s revisited", "A survey of %s",
	"Measuring %s at scale", "%s in practice", "Towards a theory of %s", "%s: open problems", "Rethinking %s"}

// yearFilter reads publication_year:A, A-B, >A or <B of OpenAlex's filter (0 for an open end).
func yearFilter(filter string) (lo, hi int, oa bool) {
	for _, f := range strings.Split(filter, ",") {
		k, v, _ := strings.Cut(f, ":")
		switch k {
		case "publication_year":
			switch {
			case strings.HasPrefix(v, ">"):
				n, _ := strconv.Atoi(v[1:])
				lo = n + 1
			case strings.HasPrefix(v, "<"):
				n, _ := strconv.Atoi(v[1:])
				hi = n - 1
			case strings.Contains(v, "-"):
				a, b, _ := strings.Cut(v, "-")
				lo, _ = strconv.Atoi(a)
				hi, _ = strconv.Atoi(b)
			default:
				lo, _ = strconv.Atoi(v)
				hi = lo
			}
		case "is_oa":
			oa = v == "true"
		}
	}
	return lo, hi, oa
}

func generateWorks(r *http.Request, fixture []byte, status int) ([]byte, int) {
	v := r.URL.Query()
	doc := providers.JSONObject(fixture)
	tmpls := providers.Templates(doc["results"])
	query := strings.TrimSpace(v.Get("search"))
	if len(tmpls) == 0 || query == "" {
		return fixture, status
	}
	lo, hi, oaOnly := yearFilter(v.Get("filter"))
	seed := strings.ToLower(query)
	var all []map[string]any
	for i := range 24 {
		rr := providers.Rand("openalex", seed, strconv.Itoa(i))
		// The years of the set span the requested range (1985 to 2026 without one).
		from, to := 1985, 2026
		if lo > 0 {
			from = min(lo, to)
		}
		if hi > 0 {
			to = max(hi, from)
		}
		w := synthWork{Title: fmt.Sprintf(workTitles[i%len(workTitles)], providers.TitleCase(query)), Year: from + rr.IntN(to-from+1),
			Cited: int(200 * rr.ExpFloat64() * rr.ExpFloat64()), OA: rr.IntN(2) == 0}
		if i >= len(workTitles) {
			w.Title += fmt.Sprintf(" (part %d)", i/len(workTitles)+1)
		}
		if (lo > 0 && w.Year < lo) || (hi > 0 && w.Year > hi) || (oaOnly && !w.OA) {
			continue
		}
		id := fmt.Sprintf("W9%09d", providers.Rand("openalex-id", seed, strconv.Itoa(i)).IntN(1e9))
		remember(id, w)
		rec := providers.FromTemplate(tmpls, i)
		fillWork(rec, id, w, rr.IntN(12)+1)
		rec["relevance_score"] = providers.Num(float64(24-i), 1)
		all = append(all, rec)
	}
	switch v.Get("sort") {
	case sortParam["cited"]:
		sort.SliceStable(all, func(i, j int) bool { return all[i]["cited_by_count"].(int) > all[j]["cited_by_count"].(int) })
	case sortParam["recent"]:
		sort.SliceStable(all, func(i, j int) bool { return all[i]["publication_date"].(string) > all[j]["publication_date"].(string) })
	}
	page, _ := strconv.Atoi(v.Get("page"))
	page = max(page, 1)
	per, err := strconv.Atoi(v.Get("per_page"))
	if err != nil || per < 1 {
		per = 25
	}
	out := []any{}
	for i := (page - 1) * per; i < min(page*per, len(all)); i++ {
		out = append(out, all[i])
	}
	doc["results"] = out
	if meta, ok := doc["meta"].(map[string]any); ok {
		meta["count"], meta["page"], meta["per_page"] = len(all), page, per
	}
	return providers.JSONBytes(doc), http.StatusOK
}

// fillWork sets a work record's identity, year, citations and access from a synthetic work.
func fillWork(rec map[string]any, id string, w synthWork, month int) {
	rec["id"] = "https://openalex.org/" + id
	rec["doi"] = "https://doi.org/10.5555/sandbox." + strings.ToLower(id)
	rec["title"], rec["display_name"] = w.Title, w.Title
	rec["publication_year"] = w.Year
	rec["publication_date"] = fmt.Sprintf("%d-%02d-15", w.Year, month)
	rec["cited_by_count"] = w.Cited
	abstract := strings.Fields("A synthetic test-mode abstract of " + w.Title + " (not a real publication).")
	inv := map[string]any{}
	for i, word := range abstract {
		if arr, ok := inv[word].([]any); ok {
			inv[word] = append(arr, i)
		} else {
			inv[word] = []any{i}
		}
	}
	rec["abstract_inverted_index"] = inv
	if oa, ok := rec["open_access"].(map[string]any); ok {
		oa["is_oa"] = w.OA
		if !w.OA {
			oa["oa_status"], oa["oa_url"] = "closed", nil
		}
	}
	if pl, ok := rec["primary_location"].(map[string]any); ok {
		pl["is_oa"] = w.OA
		pl["landing_page_url"] = "https://doi.org/10.5555/sandbox." + strings.ToLower(id)
		if !w.OA {
			pl["pdf_url"] = nil
		}
	}
	delete(rec, "counts_by_year")
	delete(rec, "best_oa_location")
}

// generateWork answers a generated work's lookup (an unknown id stays OpenAlex's 404).
func generateWork(r *http.Request, fixture []byte, status int) ([]byte, int) {
	id := strings.TrimPrefix(r.URL.Path, "/works/")
	synthWorks.Lock()
	w, ok := synthWorks.m[id]
	synthWorks.Unlock()
	if status == http.StatusOK || !ok {
		return fixture, status
	}
	b, err := fs.ReadFile(sandboxFiles, "sandbox/work_W4384561707.json")
	if err != nil {
		return fixture, status
	}
	doc := providers.JSONObject(b)
	fillWork(doc, id, w, 6)
	return providers.JSONBytes(doc), http.StatusOK
}

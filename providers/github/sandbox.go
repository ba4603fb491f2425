package github

import (
	"encoding/base64"
	"fmt"
	"io/fs"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// The sandbox's repository search answers any query with a synthetic set of repositories about
// it (issue 36): names and descriptions carry the query's words, a language: qualifier is every
// repository's language, sort=stars|forks|updated orders the set, and per_page/page walk through
// it (page 2 follows page 1, the last page ends). The recorded queries get the recorded answers;
// a generated repository's README is a synthetic one about it.
func init() {
	providers.RegisterGenerators(ProviderID,
		providers.GeneratedRoute{Path: "/search/repositories", Generate: generateSearch},
		providers.GeneratedRoute{Path: "/repos/*", Generate: generateReadme})
}

var recordedQueries = []string{"http router language:go", "static site generator"}

// sandboxOwnerPrefix marks the owners of generated repositories.
const sandboxOwnerPrefix = "sandbox-"

// generateSearch answers an unrecorded repository search with a synthetic set about its words.
func generateSearch(r *http.Request, fixture []byte, status int) ([]byte, int) {
	v := r.URL.Query()
	query := strings.TrimSpace(v.Get("q"))
	if status != http.StatusOK || query == "" {
		return fixture, status
	}
	for _, rq := range recordedQueries {
		if strings.EqualFold(query, rq) {
			return providers.LimitResults("per_page", providers.TopicSearch("q", recordedQueries...))(r, fixture, status)
		}
	}
	if providers.IsSandboxMiss(query) {
		return providers.EmptyAnswer(fixture), status
	}
	doc := providers.JSONObject(fixture)
	tmpls := providers.Templates(doc["items"])
	if len(tmpls) == 0 {
		return fixture, status
	}
	topic, language := searchTerms(query)
	rnd := providers.Rand("repos", strings.ToLower(query))
	total := 25 + rnd.IntN(40)
	var all []map[string]any
	for i := range total {
		all = append(all, synthRepo(providers.FromTemplate(tmpls, i), query, topic, language, i, total))
	}
	sortRepos(all, v.Get("sort"), v.Get("order"))
	per, err := strconv.Atoi(v.Get("per_page"))
	if err != nil || per < 1 {
		per = 30
	}
	page, err := strconv.Atoi(v.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	items := []any{}
	for i := (page - 1) * per; i < min(page*per, total); i++ {
		items = append(items, all[i])
	}
	doc["items"] = items
	doc["total_count"] = total
	doc["incomplete_results"] = false
	return providers.JSONBytes(doc), http.StatusOK
}

// searchTerms reads a search query: its plain words make the topic ("project" when there are
// none), a language: qualifier the language; other qualifiers and AND/OR/NOT are left out.
func searchTerms(query string) (topic, language string) {
	var words []string
	for _, w := range strings.Fields(query) {
		if k, val, ok := strings.Cut(w, ":"); ok {
			if strings.EqualFold(k, "language") {
				language = val
			}
			continue
		}
		if up := strings.ToUpper(w); up == "AND" || up == "OR" || up == "NOT" {
			continue
		}
		words = append(words, w)
	}
	topic = strings.Join(words, " ")
	if topic == "" {
		topic = "project"
	}
	return topic, language
}

// synthRepo fills rec, a repository template, as the i-th of total generated repositories about
// topic; language, when set, is its language.
func synthRepo(rec map[string]any, query, topic, language string, i, total int) map[string]any {
	slug := providers.Slug(topic)
	rr := providers.Rand("repo", strings.ToLower(query), strconv.Itoa(i))
	owner := sandboxOwnerPrefix + strings.ToLower(strings.ReplaceAll(providers.SynthPerson(query, i), " ", "-"))
	owner = providers.Slug(owner)
	name := slug
	if i > 0 {
		name = fmt.Sprintf("%s-%s", slug, []string{"kit", "lib", "cli", "core", "go", "rs", "js", "tools", "server", "lite"}[i%10])
		if i >= 10 {
			name += strconv.Itoa(i / 10)
		}
	}
	full := owner + "/" + name
	lang := language
	if lang == "" {
		lang = []string{"Go", "Rust", "Python", "TypeScript", "Java", "C++"}[rr.IntN(6)]
	}
	stars := int(1000 * rr.ExpFloat64() * rr.ExpFloat64())
	forks := stars/10 + rr.IntN(50)
	updated := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(rr.IntN(3*365*24)) * time.Hour)
	id := 900000000 + int(rr.Uint32()%90000000)
	setURLs(rec, full)
	rec["id"] = id
	rec["node_id"] = "R_sbx" + strconv.Itoa(id)
	rec["name"] = name
	rec["full_name"] = full
	rec["description"] = fmt.Sprintf("%s: a synthetic test-mode repository about %s (not a real project).", name, topic)
	rec["language"] = lang
	rec["stargazers_count"], rec["watchers_count"], rec["watchers"] = stars, stars, stars
	rec["forks_count"], rec["forks"] = forks, forks
	rec["updated_at"] = updated.Format(time.RFC3339)
	rec["pushed_at"] = updated.Add(-time.Hour).Format(time.RFC3339)
	rec["homepage"] = "https://" + name + ".example/"
	rec["topics"] = []any{slug, strings.ToLower(lang)}
	rec["fork"], rec["archived"] = false, false
	if o, ok := rec["owner"].(map[string]any); ok {
		o["login"] = owner
		o["id"] = 800000000 + int(rr.Uint32()%90000000)
		o["html_url"] = "https://github.com/" + owner
		o["url"] = "https://api.github.com/users/" + owner
	}
	rec["score"] = providers.Num(float64(total-i), 1)
	return rec
}

// sortRepos orders generated repositories by stars, forks or updated (descending unless order
// is asc); any other sort keeps their order.
func sortRepos(all []map[string]any, by, order string) {
	key := map[string]func(m map[string]any) string{
		"stars":   func(m map[string]any) string { return fmt.Sprintf("%012d", m["stargazers_count"]) },
		"forks":   func(m map[string]any) string { return fmt.Sprintf("%012d", m["forks_count"]) },
		"updated": func(m map[string]any) string { return m["updated_at"].(string) },
	}[by]
	if key == nil {
		return
	}
	sort.SliceStable(all, func(i, j int) bool {
		if order == "asc" {
			return key(all[i]) < key(all[j])
		}
		return key(all[i]) > key(all[j])
	})
}

// setURLs points every API and web URL of a repository template at full.
func setURLs(rec map[string]any, full string) {
	old, _ := rec["full_name"].(string)
	if old == "" {
		return
	}
	for k, v := range rec {
		if s, ok := v.(string); ok && strings.Contains(s, old) {
			rec[k] = strings.ReplaceAll(s, old, full)
		}
	}
}

// generateReadme answers the README of a generated repository (owner sandbox-…); other unknown
// repositories stay a 404, as GitHub answers them.
func generateReadme(r *http.Request, fixture []byte, status int) ([]byte, int) {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if status == http.StatusOK || len(segs) != 4 || segs[3] != "readme" || !strings.HasPrefix(segs[1], sandboxOwnerPrefix) {
		return fixture, status
	}
	owner, name := segs[1], segs[2]
	b, err := fs.ReadFile(sandboxFiles, "sandbox/readme_gorilla_mux.json")
	if err != nil {
		return fixture, status
	}
	doc := providers.JSONObject(b)
	full := owner + "/" + name
	text := fmt.Sprintf("# %s\n\nA synthetic test-mode repository (not a real project): `%s` exists only in capgate's sandbox.\n", name, full)
	for k, v := range doc {
		if s, ok := v.(string); ok {
			doc[k] = strings.ReplaceAll(s, "gorilla/mux", full)
		}
	}
	if l, ok := doc["_links"].(map[string]any); ok {
		for k, v := range l {
			if s, ok := v.(string); ok {
				l[k] = strings.ReplaceAll(s, "gorilla/mux", full)
			}
		}
	}
	doc["content"] = base64.StdEncoding.EncodeToString([]byte(text))
	doc["size"] = len(text)
	return providers.JSONBytes(doc), http.StatusOK
}

package npm

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// recordedSearch is the query of the recorded search pages: it gets them unchanged, so the
// golden files keep pinning the mapping of a real registry answer.
const recordedSearch = "argument parser"

// generateSearch answers any other search with a synthetic result set about it (issue 36): the
// packages are named from the query's words, carry them as keywords and description, honour the
// keywords:, scope: and maintainer: qualifiers, and are paged by from and size over a total
// drawn from the query, so more advances and ends. The records keep the recorded objects' shape.
func generateSearch(r *http.Request, fixture []byte, status int) ([]byte, int) {
	v := r.URL.Query()
	text := strings.TrimSpace(v.Get("text"))
	if status != http.StatusOK || text == "" || strings.EqualFold(text, recordedSearch) {
		return providers.LimitResults("size", providers.TopicSearch("text", recordedSearch))(r, fixture, status)
	}
	if providers.IsSandboxMiss(text) {
		return providers.EmptyAnswer(fixture), status
	}
	doc := providers.JSONObject(fixture)
	tmpls := providers.Templates(doc["objects"])
	if len(tmpls) == 0 {
		return fixture, status
	}
	key := strings.ToLower(strings.Join(strings.Fields(text), " "))
	total := 12 + providers.Rand("npm search", key).IntN(19)
	from, _ := strconv.Atoi(v.Get("from"))
	size, err := strconv.Atoi(v.Get("size"))
	if err != nil || size < 1 {
		size = 20
	}
	from = max(from, 0)
	names := providers.PackageNames(text, total)
	words := providers.QueryWords(text)
	keyword := providers.Qualifier(text, "keywords")
	scope := strings.TrimPrefix(providers.Qualifier(text, "scope"), "@")
	maintainer := providers.Qualifier(text, "maintainer")
	objects := []any{}
	for i := from; i < min(from+size, total); i++ {
		o := providers.FromTemplate(tmpls, i)
		rr := providers.Rand("npm search item", key, strconv.Itoa(i))
		name := names[i]
		if scope != "" {
			name = "@" + scope + "/" + name
		}
		user := maintainer
		if user == "" {
			user = strings.ToLower(strings.ReplaceAll(providers.SynthPerson(name, 0), " ", "-"))
		}
		date := time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rr.IntN(7*365*24)) * time.Hour).Format("2006-01-02T15:04:05.000Z")
		kws := append([]string{}, words...)
		if keyword != "" {
			kws = append(kws, keyword)
		}
		slug := strings.TrimPrefix(strings.ReplaceAll(name, "/", "-"), "@")
		person := searchUser{Username: user, Email: user + "@" + slug + ".example"}
		pkg := searchPackageDoc{Name: name, Scope: "unscoped", Version: providers.SynthVersion("npm", name),
			Description: fmt.Sprintf("%s: a synthetic test-mode package for %s.", name, strings.Join(words, " ")),
			Keywords:    kws, Date: date, SanitizedName: name, Publisher: person, Maintainers: []searchUser{person},
			Links: searchLinks{
				NPM:        "https://www.registry.example/package/" + name,
				Homepage:   "https://" + slug + ".example/",
				Repository: "https://git.example/" + user + "/" + slug,
				Bugs:       "https://git.example/" + user + "/" + slug + "/issues",
			}}
		if scope != "" {
			pkg.Scope = scope
		}
		recorded, _ := o["package"].(map[string]any)
		if l, ok := recorded["license"].(string); ok {
			pkg.License = &l
		}
		o["package"] = pkg
		o["updated"] = date
		o["searchScore"] = providers.Num(2000/float64(i+2)+rr.Float64(), 4)
		weekly := 100 + rr.IntN(5_000_000/(i+1))
		o["downloads"] = searchDownloads{Weekly: weekly, Monthly: weekly * 4}
		o["dependents"] = strconv.Itoa(rr.IntN(5000))
		objects = append(objects, o)
	}
	doc["objects"] = objects
	doc["total"] = total
	return providers.JSONBytes(doc), http.StatusOK
}

// searchPackageDoc is the package of a search object (objects[].package), as the sandbox writes
// it: the recorded package's license, the rest made up.
type searchPackageDoc struct {
	Name          string       `json:"name"`
	Scope         string       `json:"scope"`
	Version       string       `json:"version"`
	Description   string       `json:"description"`
	Keywords      []string     `json:"keywords"`
	Date          string       `json:"date"`
	Links         searchLinks  `json:"links"`
	Publisher     searchUser   `json:"publisher"`
	Maintainers   []searchUser `json:"maintainers"`
	License       *string      `json:"license,omitempty"`
	SanitizedName string       `json:"sanitized_name"`
}

// searchUser is a package's publisher or one of its maintainers.
type searchUser struct {
	Username string `json:"username"`
	Email    string `json:"email"`
}

// searchLinks are a package's links: its registry page, homepage, repository and issue tracker.
type searchLinks struct {
	NPM        string `json:"npm"`
	Homepage   string `json:"homepage"`
	Repository string `json:"repository"`
	Bugs       string `json:"bugs"`
}

// searchDownloads is a search object's download counts over the last week and month.
type searchDownloads struct {
	Weekly  int `json:"weekly"`
	Monthly int `json:"monthly"`
}

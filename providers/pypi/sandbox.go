package pypi

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// The sandbox knows every project and release (issue 18) but the reserved miss sandbox-not-found
// (as a project or a version): a project or release it has no recording of is a recorded one of
// requests renamed (JSON API, its releases, Simple API), with download counts scaled by a factor
// drawn from the name.
func init() {
	providers.RegisterGenerators(indexID,
		providers.GeneratedRoute{Path: "/pypi/*", Generate: generateIndex},
		providers.GeneratedRoute{Path: "/simple/*", Generate: generateIndex, Type: simpleJSON})
	providers.RegisterGenerators(statsID, providers.GeneratedRoute{Path: "/api/packages/*", Generate: generateStats})
}

// baseProject is the recorded project every generated one is made from: it has the Simple API
// file list and a recording of each release.
const baseProject = "requests"

func generateIndex(r *http.Request, fixture []byte, status int) ([]byte, int) {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if status == http.StatusOK || len(segs) < 2 {
		return fixture, status
	}
	name, _ := url.PathUnescape(segs[1])
	if providers.IsSandboxMiss(name) || (segs[0] == "simple" && strings.EqualFold(name, baseProject)) {
		return fixture, status
	}
	var file, version string
	switch {
	case segs[0] == "simple":
		file = "simple_requests.json"
	case len(segs) == 3 && segs[2] == "json":
		file = "index_requests.json"
	case len(segs) == 4 && segs[3] == "json":
		version, _ = url.PathUnescape(segs[2])
		if providers.IsSandboxMiss(version) {
			return fixture, status
		}
		file = "index_requests_" + providers.PickName(name+"@"+version, sandboxRequestsReleases) + ".json"
	default:
		return fixture, status
	}
	b, err := fs.ReadFile(sandboxFS(), file)
	if err != nil {
		return fixture, status
	}
	out := b
	if !strings.EqualFold(name, baseProject) {
		out = providers.RenameFixture(b, baseProject, name)
		if segs[0] == "pypi" {
			out = providers.SyntheticIdentity(out, name)
		}
	}
	if version != "" {
		var doc struct {
			Info struct {
				Version string `json:"version"`
			} `json:"info"`
		}
		if json.Unmarshal(out, &doc) == nil && doc.Info.Version != "" {
			out = providers.RenameFixture(out, doc.Info.Version, version)
		}
	}
	return out, http.StatusOK
}

func generateStats(r *http.Request, fixture []byte, status int) ([]byte, int) {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if status == http.StatusOK || len(segs) != 4 {
		return fixture, status
	}
	name, _ := url.PathUnescape(segs[2])
	if providers.IsSandboxMiss(name) {
		return fixture, status
	}
	file := map[string]string{"recent": "stats_requests_recent.json", "overall": "stats_requests_overall.json"}[segs[3]]
	b, err := fs.ReadFile(sandboxFS(), file)
	if file == "" || err != nil {
		return fixture, status
	}
	doc := providers.JSONObject(providers.RenameFixture(b, baseProject, name))
	factor := 0.0001 + providers.SeedOf("pypistats", name).Float64()*0.2
	scale := func(v any) any {
		n, ok := v.(json.Number)
		if !ok {
			return v
		}
		i, err := n.Int64()
		if err != nil {
			return v
		}
		return int64(float64(i) * factor)
	}
	switch d := doc["data"].(type) {
	case map[string]any:
		for k, v := range d {
			d[k] = scale(v)
		}
	case []any:
		// The daily history ends yesterday (UTC), as the statistics service's does (issue 36).
		shift := 0
		if len(d) > 0 {
			last, _ := d[len(d)-1].(map[string]any)
			if t, err := time.Parse(time.DateOnly, fmt.Sprint(last["date"])); err == nil {
				shift = int(time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -1).Sub(t).Hours() / 24)
			}
		}
		for _, row := range d {
			if m, ok := row.(map[string]any); ok {
				m["downloads"] = scale(m["downloads"])
				if t, err := time.Parse(time.DateOnly, fmt.Sprint(m["date"])); err == nil {
					m["date"] = t.AddDate(0, 0, shift).Format(time.DateOnly)
				}
			}
		}
	}
	return providers.JSONBytes(doc), http.StatusOK
}

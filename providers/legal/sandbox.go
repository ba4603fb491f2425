package legal

import (
	"net/http"
	"regexp"
	"strconv"

	"github.com/capgate/capgate/providers"
)

// The sandbox's CELLAR result set ends (issue 18): a later page past sandboxEUTotal rows is empty,
// as CELLAR answers an OFFSET beyond the last match, so more stops with has_more false; a search
// for sandbox-not-found finds nothing.
func init() {
	providers.RegisterGenerators(cellarID, providers.GeneratedRoute{Path: sparqlPath, Generate: generateCellar})
}

const sandboxEUTotal = 8

var sparqlOffset = regexp.MustCompile(`(?m)^OFFSET ([0-9]+)`)

func generateCellar(r *http.Request, fixture []byte, status int) ([]byte, int) {
	if providers.IsSandboxMiss(r.URL.Query().Get("query")) {
		return providers.EmptyAnswer(fixture), status // the reserved miss finds nothing
	}
	m := sparqlOffset.FindStringSubmatch(r.URL.Query().Get("query"))
	if m == nil || status != http.StatusOK {
		return fixture, status
	}
	if out, ok := generateCellarSearch(r.URL.Query().Get("query"), fixture); ok {
		return out, http.StatusOK
	}
	offset, _ := strconv.Atoi(m[1])
	if offset < sandboxEUTotal {
		return fixture, status
	}
	doc := providers.JSONObject(fixture)
	if res, ok := doc["results"].(map[string]any); ok {
		res["bindings"] = []any{}
	}
	return providers.JSONBytes(doc), http.StatusOK
}

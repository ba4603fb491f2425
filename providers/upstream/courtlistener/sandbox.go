package courtlistener

import (
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/capgate/capgate/providers"
)

// The sandbox knows every opinion and cluster (issue 18): an id without a recording is a recorded
// one under the requested id; the reserved miss is an id of six or more nines (999999), and a
// search for sandbox-not-found finds nothing.
func init() {
	providers.RegisterGenerators(ProviderID,
		providers.GeneratedRoute{Path: APIPrefix + "search/", Match: generatedSearch, Generate: generateSearch},
		providers.GeneratedRoute{Path: APIPrefix + "*", Generate: generateRecord})
}

// recordedIDs are the recorded records of each kind.
var recordedIDs = map[string][]string{
	"clusters": {"101320", "107564"},
	"opinions": {"101320", "107564", "9422117"},
}

func generateRecord(r *http.Request, fixture []byte, status int) ([]byte, int) {
	if providers.IsSandboxMiss(r.URL.Query().Get("q")) {
		// The reserved miss answers as a search without hits.
		if b, err := fs.ReadFile(sandboxFS, "sandbox/search_empty.json"); err == nil {
			return b, http.StatusOK
		}
	}
	if status != http.StatusNotFound {
		return fixture, status
	}
	segs := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, APIPrefix), "/"), "/")
	if len(segs) != 2 || providers.IsSandboxMiss(segs[1]) {
		return fixture, status
	}
	kind, id := segs[0], segs[1]
	base := providers.PickName(id, recordedIDs[kind])
	if base == "" {
		return fixture, status
	}
	b, err := fs.ReadFile(sandboxFS, path.Join("sandbox", kind+"_"+base+".json"))
	if err != nil {
		return fixture, status
	}
	return providers.RenameFixture(b, base, id), http.StatusOK
}

package realestate

import (
	"io/fs"
	"net/http"

	"github.com/capgate/capgate/providers"
)

// The sandbox's searches carry the asked place (issue 18) and every listing has details: a zpid
// without a recording is a recorded property under that zpid. The reserved miss is a zpid of six
// or more nines.
func init() {
	providers.RegisterGenerators(ProviderID,
		providers.GeneratedRoute{Path: searchPath, Generate: providers.TopicSearch("location", "Austin, TX", "Seattle, WA", "Denver, CO 80206")},
		providers.GeneratedRoute{Path: propertyPath, Generate: generateProperty})
}

var recordedProperties = []string{"29382740", "2057431936", "13278346"}

func generateProperty(r *http.Request, fixture []byte, status int) ([]byte, int) {
	zpid := r.URL.Query().Get("zpid")
	if status == http.StatusOK || zpid == "" || providers.IsSandboxMiss(zpid) {
		return fixture, status
	}
	base := providers.PickName(zpid, recordedProperties)
	b, err := fs.ReadFile(sandboxFS, "sandbox/property_"+base+".json")
	if err != nil {
		return fixture, status
	}
	return providers.RenameFixture(b, base, zpid), http.StatusOK
}

package patents

import (
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// Providers lists the upstream providers of this package: the shared SerpApi provider, whose
// sandbox serves the google_patents and google_patents_details fixtures.
func Providers() []*providers.Provider {
	return []*providers.Provider{serpapi.Provider()}
}

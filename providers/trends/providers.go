package trends

import (
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// Providers lists the upstream providers of this package: the shared SerpApi provider, whose
// sandbox serves the google_trends fixtures (one per data_type).
func Providers() []*providers.Provider {
	return []*providers.Provider{serpapi.Provider()}
}

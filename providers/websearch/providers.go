package websearch

import (
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// SerpApi engines this package reads.
const (
	webEngine  = "google"
	newsEngine = "google_news"
)

// Providers lists the upstream providers of this package: the shared SerpApi provider (the same
// value every SerpApi family returns), whose sandbox serves the google and google_news fixtures
// from providers/upstream/serpapi/sandbox/<engine>/. The reader behind the record action read is not listed
// here: it belongs to web.read, whose Read the action calls (see read.go).
func Providers() []*providers.Provider {
	return []*providers.Provider{serpapi.Provider()}
}

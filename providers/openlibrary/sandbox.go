package openlibrary

import "github.com/capgate/capgate/providers"

// The sandbox's search answers carry the asked query's words and page size (issue 18); the recorded
// query gets the recorded answer.
func init() {
	providers.RegisterGenerators(ProviderID, providers.GeneratedRoute{Path: "/search.json",
		Generate: providers.LimitResults("limit", providers.TopicSearch("q", "the lord of the rings"))})
}

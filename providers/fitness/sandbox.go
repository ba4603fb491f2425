package fitness

import "github.com/capgate/capgate/providers"

// The sandbox's exercise search carries the asked words and page size (issue 18); the recorded
// query gets the recorded answer.
func init() {
	providers.RegisterGenerators(VideoProviderID, providers.GeneratedRoute{Path: "/api/v2/exercises",
		Generate: providers.LimitResults("pageSize", providers.TopicSearch("search", "bench press"))})
}

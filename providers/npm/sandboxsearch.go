package npm

import "github.com/capgate/capgate/providers"

// The sandbox's search answers carry the asked query's words (issue 18); the recorded query gets
// the recorded answer.
func init() {
	providers.RegisterGenerators(RegistryID, providers.GeneratedRoute{Path: "/-/v1/search",
		Generate: providers.TopicSearch("text", "argument parser")})
}

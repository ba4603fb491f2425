package classics

import "github.com/capgate/capgate/providers"

// The sandbox's search answers carry the asked query's words (issue 18); the recorded queries get
// the recorded answers.
func init() {
	providers.RegisterGenerators(gutendexID, providers.GeneratedRoute{Path: gutendexBooksPath,
		Generate: providers.TopicSearch("search", "dickens", "verne")})
	providers.RegisterGenerators(wikisourceID, providers.GeneratedRoute{Path: "/w" + wikisourceAPIPath,
		Generate: providers.TopicSearch("srsearch", "dickens")})
}

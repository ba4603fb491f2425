package github

import "github.com/capgate/capgate/providers"

// The sandbox's search answers carry the asked query's words and page size (issue 18); the recorded
// queries get the recorded answers.
func init() {
	providers.RegisterGenerators(ProviderID, providers.GeneratedRoute{Path: "/search/repositories",
		Generate: providers.LimitResults("per_page", providers.TopicSearch("q", "http router language:go", "static site generator"))})
}

package openalex

import "github.com/capgate/capgate/providers"

// The sandbox's search answers carry the asked query's words and page size (issue 18); the recorded
// queries get the recorded answers.
func init() {
	providers.RegisterGenerators(ProviderID, providers.GeneratedRoute{Path: "/works",
		Generate: providers.LimitResults("per_page", providers.TopicSearch("search", "CRISPR genome editing", "large language models", "open access citation advantage"))})
}

package mealdb

import "github.com/capgate/capgate/providers"

// The sandbox's name search carries the asked words (issue 18); the recorded query gets the
// recorded answer.
func init() {
	providers.RegisterGenerators(ProviderID, providers.GeneratedRoute{Path: "/api/json/v1/*",
		Generate: providers.TopicSearch("s", "stew")})
}

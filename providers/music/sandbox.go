package music

import "github.com/capgate/capgate/providers"

// The sandbox's search answers carry the asked query's words and page size (issue 18); the recorded
// queries get the recorded answers.
func init() {
	recorded := []string{"daft punk harder better faster stronger", "Daft Punk", "Discovery"}
	providers.RegisterGenerators(deezerID, providers.GeneratedRoute{Path: "/search*", Generate: providers.LimitResults("limit", providers.TopicSearch("q", recorded...))})
	providers.RegisterGenerators(musicbrainzID, providers.GeneratedRoute{Path: "/ws/2/*", Generate: providers.LimitResults("limit", providers.TopicSearch("query", recorded...))})
}

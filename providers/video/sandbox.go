package video

import (
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"github.com/capgate/capgate/providers"
)

// The sandbox's searches carry the asked query's words and page size, and every video has a
// transcript (issue 18): a video without a recorded transcript gets one of the recorded transcripts
// (chosen by its id), so the transcript action answers on every sandbox record.
func init() {
	providers.RegisterGenerators(youtubeID, providers.GeneratedRoute{Path: "/youtube/v3/search",
		Generate: providers.LimitResults("maxResults", providers.TopicSearch("q", "how to surf", "go concurrency patterns"))})
	providers.RegisterGenerators(transcriptsID, providers.GeneratedRoute{Path: "/v1/transcript", Generate: generateTranscript})
}

func generateTranscript(r *http.Request, fixture []byte, status int) ([]byte, int) {
	u, err := url.Parse(r.URL.Query().Get("url"))
	if status == http.StatusOK || err != nil {
		return fixture, status
	}
	id := u.Query().Get("v")
	if id == "" || providers.IsSandboxMiss(id) || !strings.HasPrefix(r.URL.Query().Get("url"), watchURL) {
		return fixture, status
	}
	b, err := fs.ReadFile(sandboxSub(), "transcript_"+providers.PickName(id, sandboxTranscripts)+".json")
	if err != nil {
		return fixture, status
	}
	return b, http.StatusOK
}

package social

import (
	"testing"

	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/internal/lenient/lenienttest"
)

// redditSearchShape is a Reddit search listing with its children's data typed as posts: the shape
// of the plain decode the benchmark compares with.
type redditSearchShape struct {
	Data lenient.Obj[struct {
		After    lenient.Str `json:"after"`
		Children lenient.List[struct {
			Kind lenient.Str             `json:"kind"`
			Data lenient.Obj[redditPost] `json:"data"`
		}] `json:"children"`
	}] `json:"data"`
}

// BenchmarkDecode decodes and maps the largest recorded Reddit search answer the way search does
// (the listing, then each post from its raw object), next to a plain encoding/json decode.
func BenchmarkDecode(b *testing.B) {
	lenienttest.Compare[redditSearchShape](b, lenienttest.Answer(b, "sandbox/reddit_search_link.json"), func(answer []byte) error {
		var l redditListing
		if err := lenient.Unmarshal(answer, &l); err != nil {
			return err
		}
		for _, child := range l.Data.V.Children {
			var p redditPost
			if lenient.Unmarshal(child.Data, &p) == nil {
				_ = redditPostRecord(p)
			}
		}
		return nil
	})
}

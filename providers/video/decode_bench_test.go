package video

import (
	"testing"

	"github.com/capgate/capgate/providers/internal/lenient/lenienttest"
)

// BenchmarkDecode decodes and maps the largest recorded YouTube search answer, next to a plain
// encoding/json decode.
func BenchmarkDecode(b *testing.B) {
	lenienttest.Compare[searchListResponse](b, lenienttest.Answer(b, "testdata/search_page1.json"),
		lenienttest.DecodeAndMap(func(r *searchListResponse) {
			for _, it := range r.Items {
				_, _ = searchRecord(it)
			}
		}))
}

package pypi

import (
	"testing"

	"github.com/capgate/capgate/providers/internal/lenient/lenienttest"
)

// BenchmarkDecode decodes and maps the largest recorded answers of the index's JSON API (a
// release, mapped to its details) and of its Simple API (a project's files, grouped into
// releases), next to a plain encoding/json decode.
func BenchmarkDecode(b *testing.B) {
	b.Run("json_api_release", func(b *testing.B) {
		lenienttest.Compare[indexRelease](b, lenienttest.Answer(b, "sandbox/index_requests.json"),
			lenienttest.DecodeAndMap(func(r *indexRelease) { _ = releaseDetail(r, "requests") }))
	})
	b.Run("simple_api_project", func(b *testing.B) {
		lenienttest.Compare[simpleProject](b, lenienttest.Answer(b, "sandbox/simple_requests.json"),
			lenienttest.DecodeAndMap(func(p *simpleProject) { _, _ = groupReleases("requests", *p) }))
	})
}

package music

import (
	"testing"

	"github.com/capgate/capgate/providers/internal/lenient/lenienttest"
)

// BenchmarkDecode decodes and maps the largest recorded answers (Deezer's track search, the
// busiest path, and MusicBrainz's release lookup), next to a plain encoding/json decode.
func BenchmarkDecode(b *testing.B) {
	b.Run("deezer_search_track", func(b *testing.B) {
		lenienttest.Compare[dzList[dzTrack]](b, lenienttest.Answer(b, "sandbox/deezer_search_track.json"),
			lenienttest.DecodeAndMap(func(l *dzList[dzTrack]) {
				for _, t := range l.Data {
					_, _ = deezerTrackRecord(t)
				}
			}))
	})
	b.Run("musicbrainz_release", func(b *testing.B) {
		lenienttest.Compare[mbRelease](b, lenienttest.Answer(b, "sandbox/musicbrainz_release.json"),
			lenienttest.DecodeAndMap(func(r *mbRelease) { _ = mbReleaseDetail(*r) }))
	})
}

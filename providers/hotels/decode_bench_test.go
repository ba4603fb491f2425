package hotels

import (
	"testing"
	"time"

	"github.com/capgate/capgate/providers/internal/lenient/lenienttest"
)

// BenchmarkDecode decodes and maps the largest recorded SerpApi google_hotels answer (the
// SerpApi-backed family), next to a plain encoding/json decode.
func BenchmarkDecode(b *testing.B) {
	in := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	s := stay{Destination: "Lisbon", CheckIn: in, CheckOut: in.AddDate(0, 0, 3), Adults: 2, Currency: "USD"}
	lenienttest.Compare[searchAnswer](b, lenienttest.Answer(b, "testdata/search.json"),
		lenienttest.DecodeAndMap(func(a *searchAnswer) {
			for _, p := range a.Properties {
				_, _ = propertyRecord(p, s)
			}
		}))
}

package openalex

import (
	"encoding/json"
	"testing"

	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/internal/lenient/lenienttest"
)

// BenchmarkDecode decodes and maps the largest recorded /works answer the way search does (the
// page, then each work from its raw bytes), next to a plain encoding/json decode of the works.
func BenchmarkDecode(b *testing.B) {
	lenienttest.Compare[struct {
		Results lenient.List[work] `json:"results"`
	}](b, lenienttest.Answer(b, "sandbox/search_oa_page1.json"), func(answer []byte) error {
		var body struct {
			Results lenient.Opt[[]json.RawMessage] `json:"results"`
		}
		if err := lenient.Unmarshal(answer, &body); err != nil {
			return err
		}
		for _, raw := range body.Results.V {
			_, _ = workRecord(raw)
		}
		return nil
	})
}

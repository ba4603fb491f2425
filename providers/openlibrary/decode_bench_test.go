package openlibrary

import (
	"encoding/json"
	"testing"

	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/internal/lenient/lenienttest"
)

// searchShape is search.json with the fields the adapter asks for (searchFields): the shape of the
// plain decode the benchmark compares with.
type searchShape struct {
	NumFound lenient.Int `json:"numFound"`
	Docs     lenient.List[struct {
		Key              lenient.Str               `json:"key"`
		Title            lenient.Str               `json:"title"`
		AuthorName       lenient.List[lenient.Str] `json:"author_name"`
		FirstPublishYear lenient.Int               `json:"first_publish_year"`
		EditionCount     lenient.Int               `json:"edition_count"`
		RatingsAverage   lenient.Float             `json:"ratings_average"`
		Subject          lenient.List[lenient.Str] `json:"subject"`
		ISBN             lenient.List[lenient.Str] `json:"isbn"`
		CoverI           lenient.Int               `json:"cover_i"`
	}] `json:"docs"`
}

// BenchmarkDecode decodes and maps the largest recorded search answer the way search does (the
// answer as raw members, then each doc field by field with encoding/json), next to a plain
// encoding/json decode.
func BenchmarkDecode(b *testing.B) {
	lenienttest.Compare[searchShape](b, lenienttest.Answer(b, "sandbox/search_lotr_page1.json"), func(answer []byte) error {
		var body map[string]json.RawMessage
		if err := lenient.Unmarshal(answer, &body); err != nil {
			return err
		}
		var docs []json.RawMessage
		_ = json.Unmarshal(body["docs"], &docs)
		for _, raw := range docs {
			_, _ = bookRecord(raw)
		}
		return nil
	})
}

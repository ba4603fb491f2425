package classics

import (
	"testing"

	"github.com/capgate/capgate/providers/internal/lenient/lenienttest"
)

// BenchmarkDecode decodes and maps the largest recorded Gutendex book list, next to a plain
// encoding/json decode.
func BenchmarkDecode(b *testing.B) {
	lenienttest.Compare[gutendexList](b, lenienttest.Answer(b, "sandbox/gutendex_books_dickens.json"),
		lenienttest.DecodeAndMap(func(l *gutendexList) {
			for _, book := range l.Results {
				_, _ = ebookRecord(book)
			}
		}))
}

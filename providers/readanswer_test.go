package providers

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestReadAnswer: a declared length is a hint only; the body read is always the real one, cut at
// limit+1 bytes.
func TestReadAnswer(t *testing.T) {
	body := strings.Repeat("x", 1000)
	cases := []struct {
		name     string
		declared int64
		limit    int64
		want     int
	}{
		{"exact", 1000, 4096, 1000},
		{"declared shorter", 10, 4096, 1000},
		{"declared longer", 5000, 8192, 1000},
		{"unknown", -1, 4096, 1000},
		{"over the limit, declared", 1000, 100, 101},
		{"over the limit, declared short", 50, 100, 101},
		{"over the limit, unknown", -1, 100, 101},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := &http.Response{Body: io.NopCloser(strings.NewReader(body)), ContentLength: c.declared}
			got, err := readAnswer(res, c.limit)
			if err != nil || len(got) != c.want || strings.Trim(string(got), "x") != "" {
				t.Fatalf("got %d bytes, %v; want %d", len(got), err, c.want)
			}
		})
	}
}

package console

import (
	"strings"
	"testing"
)

// Declarations' Markdown is rendered, and whatever it holds can never add script to a page.
func TestRenderMarkdown(t *testing.T) {
	for _, tc := range []struct {
		name, in     string
		want, forbid []string
	}{
		{"code spans", "`destination` is a city", []string{"<code>destination</code> is a city"}, []string{"`"}},
		{"script", "hi <script>alert(1)</script>", []string{"hi"}, []string{"<script"}},
		{"event handler", `<img src="x" onerror="alert(1)">`, nil, []string{"onerror"}},
		{"javascript link", "[click](javascript:alert(1))", nil, []string{"javascript:"}},
		{"raw iframe", `<iframe src="https://evil.example"></iframe>`, nil, []string{"<iframe"}},
		{"link", "see [the docs](https://example.com/x)", []string{`href="https://example.com/x"`, `rel="nofollow noreferrer noopener"`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := renderMarkdown(tc.in)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q → %q, want %q in it", tc.in, got, w)
				}
			}
			for _, f := range tc.forbid {
				if strings.Contains(got, f) {
					t.Errorf("%q → %q holds %q", tc.in, got, f)
				}
			}
		})
	}
	if got := renderInline("`num` items"); got != "<code>num</code> items" {
		t.Errorf("inline: %q", got)
	}
}

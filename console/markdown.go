package console

import (
	"bytes"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// Capability descriptions and field descriptions are Markdown (backticks around names, the
// odd list or link). They are rendered by goldmark and sanitised by bluemonday's UGC policy, so
// text from a capability declaration can never add script or an event handler to a page.
var (
	markdown  = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Linkify))
	sanitizer = func() *bluemonday.Policy {
		p := bluemonday.UGCPolicy()
		p.RequireNoReferrerOnLinks(true)
		p.AddTargetBlankToFullyQualifiedLinks(true)
		return p
	}()
)

// renderMarkdown turns Markdown into sanitised HTML; a text that fails to render is escaped.
func renderMarkdown(src string) string {
	var b bytes.Buffer
	if err := markdown.Convert([]byte(src), &b); err != nil {
		return sanitizer.Sanitize("<p>" + strings.ReplaceAll(src, "<", "&lt;") + "</p>")
	}
	return sanitizer.Sanitize(b.String())
}

// renderInline renders a one-paragraph Markdown text without its paragraph element (for table cells).
func renderInline(src string) string {
	h := strings.TrimSpace(renderMarkdown(src))
	if strings.HasPrefix(h, "<p>") && strings.HasSuffix(h, "</p>") && strings.Count(h, "<p>") == 1 {
		h = h[len("<p>") : len(h)-len("</p>")]
	}
	return h
}

package webread

import (
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/pageread"
)

// WebRead is web.read: one web page as Markdown through the reader, behind the SSRF guard.
var WebRead = &providers.Capability{
	ID:      "web.read",
	Fresh:   time.Hour,
	Title:   "Read a web page",
	Summary: "Fetch one public web page and return it as Markdown, with its title and final URL.",
	Description: "Reads one public web page (http or https) and returns it as Markdown. Body: `url` (string, " +
		"required, an absolute http or https URL of 1 to 2,048 characters) and `max_chars` (integer, 1,000 to " +
		"200,000, default 50,000). The answer is a single record: `title` (the page title, or the URL when the " +
		"page has none), `url` (the final URL after redirects) and the keys `markdown` (string, the page as " +
		"Markdown, cut to `max_chars` characters on a character boundary; left out when the page has no text), " +
		"`truncated` (boolean, always: true when `markdown` was cut), `fetched_at` (RFC 3339 UTC time of the " +
		"read, always) and `source` (always \"reader\"). Records carry no snippet. Only public pages can be read: " +
		"a URL whose host is, or resolves to, a loopback, private, link-local, shared (CGNAT), multicast, " +
		"reserved or cloud metadata address is refused with invalid_request at /url before anything is fetched, " +
		"as are URLs with a user name or password and local names such as localhost; the host is mapped with IDNA " +
		"(UTS 46) before these checks, and an IPv4 host must be four decimal numbers (legacy forms such as 127.1, " +
		"0x7f.0.0.1 or 2130706433 are refused). Redirects (at most 5) are " +
		"followed and checked hop by hop; a redirect to a non-public address is a provider_error and nothing is " +
		"returned. `notes` tell when the URL redirected and pass on the reader's warnings (for example when the " +
		"page answered an HTTP error). Single result: no `more`, no `update`, no record actions. Cost: 5 credits " +
		"($0.005) per page read.",
	Topic:    "Web and news",
	Request:  readRequestSchema,
	Rules:    readRules,
	Paging:   providers.PagingSingle,
	NoUpdate: true,
	Cost: providers.Cost{
		Typical: 5,
		Basis:   "$0.005 per page read: 5 credits for each web.read call.",
	},
	Deadline:  15 * time.Second,
	Providers: []string{pageread.ProviderID},
	Examples: []providers.Example{
		{Title: "Read a page as Markdown", Body: providers.ExampleBody(`{"url": "https://example.com/"}`)},
		{Title: "Read a long article, keeping the first 2,000 characters", Body: providers.ExampleBody(`{"url": "https://en.wikipedia.org/wiki/Web_scraping", "max_chars": 2000}`)},
		{Title: "Read an encyclopedia article", Body: providers.ExampleBody(`{"url": "https://en.wikipedia.org/wiki/Markdown", "max_chars": 20000}`)},
	},
	Execute: pageread.Execute,
	Record:  pageread.PageRecord{},
}

const readRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "web.read request",
  "description": "Read one public web page and return it as Markdown.",
  "type": "object",
  "additionalProperties": false,
  "required": ["url"],
  "properties": {
    "url": {
      "type": "string",
      "minLength": 1,
      "maxLength": 2048,
      "format": "uri",
      "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://",
      "description": "The page to read: an absolute http or https URL (1 to 2,048 characters), for example \"https://example.com/\". The host must be a public web address: loopback, private, link-local, shared, multicast, reserved and cloud metadata addresses (literal or after DNS resolution), local names such as localhost, and URLs with a user name or password are refused. Any port is allowed. A #fragment is ignored."
    },
    "max_chars": {
      "type": "integer",
      "minimum": 1000,
      "maximum": 200000,
      "default": 50000,
      "description": "The most characters of Markdown to return (1,000 to 200,000, default 50,000); a longer page is cut on a character boundary and the record says truncated: true."
    }
  }
}`

// readRules applies the URL checks that need no network (scheme, user info, port, host syntax,
// local names, literal non-public addresses), so such a URL is refused at validation.
func readRules(req providers.Request, _ *providers.Update) []providers.Violation {
	if msg := pageread.Check(req.Str("url")); msg != "" {
		return []providers.Violation{{Path: "/url", Message: msg}}
	}
	return nil
}

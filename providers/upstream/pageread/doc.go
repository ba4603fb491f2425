// Package pageread reads one public web page as Markdown through a Jina-style reader (provider
// id "reader", default base https://r.jina.ai, keyless, optional Authorization: Bearer <key>),
// behind an SSRF guard. It is the reading shared by web.read (providers/webread: Execute, Check,
// Page.Record) and by web.search's and news.search's record action `read` (Read), so neither
// capability package imports the other.
//
// # Upstream
//
//   - GET {base}/{url} with Accept: application/json and X-Timeout: <seconds> (jina-ai/reader,
//     README "JSON mode" and the request headers of src/dto/crawler-options.ts). The JSON answer
//     is {code: 200, status: 20000, data: {title, description, url, content, publishedTime?,
//     metadata?, external?, warning?, usage: {tokens}}, meta: {usage: {tokens}}}
//     (src/services/snapshot-formatter.ts FormattedPage and the civkit envelope, as recorded in
//     public client tests). The adapter reads data.title, data.url, data.content and data.warning.
//   - The text answer ("Title: …", "URL Source: …", optional "Published Time: …" and "Warning: …",
//     "Markdown Content:" then the Markdown; FormattedPageDto.textRepresentation) is parsed as well,
//     for Jina-style readers that ignore Accept; an answer without that header is Markdown as a whole.
//   - Errors are civkit bodies {data: null, code, name, status, message, readableMessage}
//     (retryAfter and retryAfterDate on 429; errors from src/services/errors.ts). Mapping:
//     400 ParamValidationError → invalid_request at /url (the reader refused the URL);
//     401 → provider_error (bad key), not retryable; 402 InsufficientBalanceError →
//     provider_allowance; 422 AssertionFailureError → provider_error, retryable only when the
//     message names a timeout ("Failed to goto …: Navigation timeout"), not for "No content
//     available"; 403/451 (SecurityCompromiseError, blocked domain) → provider_error, not
//     retryable; 429 → rate_limited with the Retry-After header or the body's retryAfter
//     (provider_allowance when the wait is over a minute); 5xx → provider_error, retryable;
//     a 200 body whose code is not 200 is mapped the same way; malformed JSON or a missing data
//     object is provider_error.
//
// # SSRF guard (guard.go)
//
// The reader fetches the page itself, and a deployment may point PROVIDER_READER_URL at a
// self-hosted reader inside its own network, so the gateway vouches for every address involved:
//
//  1. Static checks (also the capability's Rules, so they fail validation): http/https only, no
//     user info, port 1..65535 (any port is allowed: the address is what matters), no zone, host
//     a valid IDNA name or address. Literal addresses are refused when loopback, private
//     (RFC 1918, fc00::/7), link-local (169.254/16, fe80::/10), unspecified, shared/CGNAT
//     (100.64/10), multicast, cloud metadata (169.254.169.254, fd00:ec2::254, 100.100.100.200) —
//     providers.IsPublicAddr — and also 0/8, 192.0.0/24, the TEST-NETs, 198.18/15, 240/4 and
//     broadcast, ::/96 (IPv4-compatible), 100::/64, Teredo, 2001:db8::/32, fec0::/10, local-use
//     NAT64, and NAT64/6to4 addresses whose embedded IPv4 address is not public. The host is
//     mapped with IDNA (UTS 46, golang.org/x/net/idna) before any of these checks, so full-width
//     digits and ideographic full stops (１２７。１) are checked as what they map to. An IPv4 host
//     must be the standard dotted quad: the legacy forms browsers and resolvers still accept
//     (2130706433, 0x7f.1, 127.1, 012.0.0.1, mixtures) are refused, public or not, before any
//     lookup (the message names the address they would reach). Names refused outright: localhost
//     and *.localhost, metadata, metadata.google.internal, metadata.goog, instance-data(.ec2.internal),
//     and single-label names (they resolve through search domains to internal hosts).
//  2. Resolution: the host is resolved and refused (invalid_request at /url) when any address is
//     not public or when it does not resolve. The resolver is injectable (guard.resolver).
//  3. Pre-flight (live mode): the adapter follows the redirect chain itself with HEAD (GET when the
//     server answers 405 or 501) and at most 5 redirects, through an http.Client without proxy
//     whose DialContext resolves the host again and dials only checked addresses (the address
//     checked is the address dialled, which defeats DNS rebinding), with a net.Dialer Control hook
//     re-checking the socket's address, and whose CheckRedirect applies the static checks to every
//     hop. A refused address of the requested host is invalid_request at /url; a redirect to a
//     non-public address, a non-http(s) URL or beyond 5 hops is provider_error, not retryable.
//     The pre-flight body is never read; any final status (404 included) is handed on. A page that
//     cannot be reached is provider_error (retryable), an unverifiable TLS certificate
//     provider_error (not retryable), a timeout provider_timeout. The final URL goes to the reader.
//  4. The final URL the reader reports (data.url / URL Source) is checked the same way (static
//     checks, and resolution when its host differs); a non-public one is provider_error and
//     nothing is returned.
//
// allowLoopbackForTests is a guard field only the tests set, so the pre-flight can reach
// httptest servers on 127.0.0.1; production never sets it, and it relaxes loopback only.
//
// In test mode (cap_test_ keys) nothing touches the network: the static checks run unchanged, host
// names resolve through a fixed sandbox map (example.com, en.wikipedia.org, with their public
// addresses) that still goes through the address checks, the pre-flight is skipped, and the
// reader is the embedded sandbox (recorded-shape answers for https://example.com/,
// https://example.com/missing, and two Wikipedia articles). Other hosts are invalid_request at
// /url with a hint; other pages of the known hosts are invalid_request with a hint.
//
// # Decisions where the spec is silent
//
//   - The record: title is the reader's title with white space collapsed, or the URL when it has
//     none; url is the final URL after redirects (the reader's reported URL when it differs and
//     passes the checks, otherwise the pre-flight's final URL); markdown is the content trimmed,
//     made valid UTF-8 and cut to max_chars runes (characters), left out (with a note) when the
//     page has no text; truncated, fetched_at (RFC 3339, UTC, second precision, taken when the
//     reader answered) and source "reader" are always present. No snippet. The fragment of a URL
//     is dropped (it never reaches a server); the host is lower-cased and IDNA-encoded.
//   - No X-Return-Format is sent: the reader's default output is the page's main content
//     (Readability) as Markdown, which suits a character budget better than "markdown" (the whole
//     page, navigation included). X-Timeout is what is left of the deadline minus 3 s, between 1
//     and 10 s; the pre-flight gets a third of the remaining deadline, at most 4 s.
//   - Notes: one when the URL redirected, one per reader warning line ("Target URL returned error
//     404: Not Found", cache or loading warnings). Read's detail carries no notes; its body is
//     {title, url, markdown, truncated, fetched_at} and its one link is {label: "page", url}.
//   - No RequestsPerSecond bound: the reader's own limits (about 20 requests a minute without a
//     key, more with one) come back as 429 and are answered rate_limited with their Retry-After.
//
// # Checks
//
// providers.md marks nothing "check" for web.read. Confirmed from jina-ai/reader's source: the
// GET {base}/{url} form, the Accept-driven JSON and text outputs, the X-Timeout header (seconds,
// at most 180), the FormattedPage fields (data.url is the requested URL, not the post-redirect
// one, which is one more reason for the pre-flight), the error classes and their status numbers
// (SecurityCompromiseError 45102, InsufficientBalanceError 40203, RateLimitTriggeredError 42903).
// Confirmed from recorded answers in public client tests: the {code: 200, status: 20000, data}
// envelope, the 422 AssertionFailureError body (status 42206), the 451 and 429 bodies, and the
// text answer. Not confirmed: the exact civkit status numbers of ParamValidationError (40001)
// and AuthenticationFailedError (40102) and the 503 body's wording (the adapter maps by HTTP
// status and name only, never by those numbers). The reader does not document a way to stop it
// from following redirects itself: a page that redirects differently for the reader than for the
// pre-flight is caught only if the reader reports the new URL. Sandbox page texts, token counts
// and publishedTime values are realistic but illustrative, not recordings of today's pages.
package pageread

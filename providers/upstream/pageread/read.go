package pageread

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// Limits of max_chars (web.read's request and Read's).
const (
	DefaultMaxChars = 50000
	MinMaxChars     = 1000
	MaxMaxChars     = 200000
)

// Check applies every check of a URL that needs no network (scheme, user info, port, host
// syntax after IDNA mapping, local names, literal non-public addresses) and says why the URL may
// not be read, or "" (web.read's request rules).
func Check(rawURL string) string {
	_, msg := defaultGuard.check(rawURL)
	return msg
}

// Execute reads the page of the request's url (max_chars characters at most, default
// DefaultMaxChars) as one record: web.read's execution.
func Execute(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	maxChars, ok := call.Request.Int("max_chars")
	if !ok {
		maxChars = DefaultMaxChars
	}
	p, err := ReadPage(ctx, call, call.Request.Str("url"), maxChars)
	if err != nil {
		return nil, err
	}
	return &providers.Page{Records: []providers.Record{p.Record()}, Notes: p.Notes}, nil
}

// Read runs the guarded read for a record action (web.search and news.search `read`): the same
// URL checks, redirect pre-flight, reader call and final-URL check as web.read.
// maxChars 0 means the default 50,000; other values are clamped to 1,000..200,000. The call must
// be able to reach the provider "reader" (list ProviderID among the capability's providers or
// make sure the registry builds it). The detail is {title, url, markdown, truncated, fetched_at}
// (markdown left out when the page has no text) with one link labelled "page".
func Read(ctx context.Context, call *providers.Call, url string, maxChars int) (*providers.Detail, error) {
	switch {
	case maxChars == 0:
		maxChars = DefaultMaxChars
	case maxChars < MinMaxChars:
		maxChars = MinMaxChars
	case maxChars > MaxMaxChars:
		maxChars = MaxMaxChars
	}
	p, err := ReadPage(ctx, call, url, maxChars)
	if err != nil {
		return nil, err
	}
	body := &ReadDetail{FetchedAt: p.FetchedAt, Markdown: p.Markdown, Title: p.Title, Truncated: p.Truncated, URL: p.URL}
	return &providers.Detail{Body: body, Links: []providers.Link{{Label: "page", URL: p.URL}}}, nil
}

// sourceName is the record's source key.
const sourceName = "reader"

// Record is web.read's record of a page: title, url and the keys markdown (left out when the page
// has no text), truncated, fetched_at and source.
func (p *Page) Record() providers.Record {
	return providers.Record{Title: p.Title, URL: p.URL, Data: &PageRecord{
		Markdown: p.Markdown, Truncated: p.Truncated, FetchedAt: p.FetchedAt, Source: sourceName,
	}}
}

// PageRecord is a web.read record (besides title and url).
type PageRecord struct {
	Markdown  string `json:"markdown,omitempty" doc:"the page as Markdown, cut to max_chars; left out when the page has no text"`
	Truncated bool   `json:"truncated" doc:"true when markdown was cut"`
	FetchedAt string `json:"fetched_at" doc:"RFC 3339 UTC time of the read"`
	Source    string `json:"source" doc:"always \"reader\""`
}

// ReadDetail is the detail of a read record action. json.Marshal keeps declared order, so the
// fields are declared in sorted key order.
type ReadDetail struct {
	FetchedAt string `json:"fetched_at"`
	Markdown  string `json:"markdown,omitempty"`
	Title     string `json:"title"`
	Truncated bool   `json:"truncated"`
	URL       string `json:"url"`
}

// now is the clock of fetched_at (tests pin it).
var now = time.Now

// Page is one read page; Notes tell of redirects and the reader's warnings.
type Page struct {
	Title     string
	URL       string
	Markdown  string
	Truncated bool
	FetchedAt string
	Notes     []string
}

// ReadPage is the guarded read of rawURL, its Markdown cut to maxChars characters: static URL checks, resolution checks, the redirect pre-flight
// (live mode only: the sandbox performs no network access), the reader call, and the check of the
// final URL the reader reports.
func ReadPage(ctx context.Context, call *providers.Call, raw string, maxChars int) (*Page, error) {
	g := defaultGuard
	t, msg := g.check(raw)
	if msg != "" {
		return nil, providers.InvalidField("/url", msg)
	}
	if !t.Addr.IsValid() {
		if _, err := g.resolve(ctx, call.Mode, t.Host); err != nil {
			return nil, resolveError(ctx, t.Host, err, call.Mode)
		}
	}
	var notes []string
	final := t
	if call.Mode != providers.ModeTest {
		pctx, cancel := context.WithTimeout(ctx, preflightBudget(ctx))
		res, err := g.follow(pctx, t)
		cancel()
		if err != nil {
			return nil, err
		}
		final = res.Final
		if res.Redirects > 0 && final.URL.String() != t.URL.String() {
			notes = append(notes, fmt.Sprintf("%s redirected to %s; the page read is the final one.", t.URL, final.URL))
		}
	}

	rp, err := callReader(ctx, call, final)
	if err != nil {
		return nil, err
	}

	pageURL := final
	if rep := strings.TrimSpace(rp.URL); rep != "" && rep != final.URL.String() {
		reported, msg := g.check(rep)
		if msg != "" {
			return nil, providers.Errorf(providers.CodeProviderError, "the reader reports a final URL that may not be read (%s); the page is not returned", msg).WithRetryable(false)
		}
		if reported.Host != final.Host && !reported.Addr.IsValid() {
			if _, err := g.resolve(ctx, call.Mode, reported.Host); err != nil {
				return nil, reportedError(ctx, reported.Host, err)
			}
		}
		pageURL = reported
	}

	out := &Page{URL: pageURL.URL.String(), FetchedAt: now().UTC().Format(time.RFC3339), Notes: notes}
	out.Title = cleanTitle(rp.Title)
	if out.Title == "" {
		out.Title = out.URL
	}
	out.Markdown, out.Truncated = providers.Truncate(strings.TrimSpace(strings.ToValidUTF8(rp.Content, "\uFFFD")), maxChars)
	if out.Markdown == "" {
		out.Notes = append(out.Notes, "The reader found no text on this page, so the record has no markdown.")
	}
	for _, w := range rp.Warnings {
		out.Notes = append(out.Notes, "The reader reported: "+w)
	}
	return out, nil
}

// reportedError maps a failed check of the reader's reported final URL: never the caller's URL at
// fault, always provider_error.
func reportedError(ctx context.Context, host string, err error) error {
	if e, ok := resolveError(ctx, host, err, providers.ModeLive).(*providers.Error); ok && e.Code == providers.CodeInvalidRequest {
		return providers.Errorf(providers.CodeProviderError, "the reader reports a final URL on %s, which is not a public address or does not resolve; the page is not returned", host).WithRetryable(false)
	}
	return resolveError(ctx, host, err, providers.ModeLive)
}

// preflightBudget is the share of the deadline the redirect pre-flight may use: a third of what
// is left, at most 4 s, so the reader keeps most of the time.
func preflightBudget(ctx context.Context) time.Duration {
	budget := 4 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		if third := time.Until(dl) / 3; third < budget {
			budget = third
		}
	}
	if budget < 100*time.Millisecond {
		budget = 100 * time.Millisecond
	}
	return budget
}

// readerTimeout is the X-Timeout (seconds) asked of the reader: what is left of the deadline
// minus 3 s for the answer to travel and be mapped, between 1 and 10.
func readerTimeout(ctx context.Context) int {
	secs := 10
	if dl, ok := ctx.Deadline(); ok {
		left := int(math.Floor((time.Until(dl) - 3*time.Second).Seconds()))
		if left < secs {
			secs = left
		}
	}
	if secs < 1 {
		secs = 1
	}
	return secs
}

// cleanTitle collapses white space in a page title.
func cleanTitle(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}

// callReader asks the reader for the page: GET {base}/{url} with Accept: application/json (the
// structured JSON mode) and X-Timeout. No X-Return-Format is sent: the reader's default format is
// the page's main content (Readability) as Markdown, while "markdown" would convert the whole page
// with its navigation, which would use up max_chars on menus.
func callReader(ctx context.Context, call *providers.Call, t *target) (*readerPage, error) {
	u := call.Upstream(ProviderID)
	header := http.Header{
		"Accept":    {"application/json"},
		"X-Timeout": {strconv.Itoa(readerTimeout(ctx))},
	}
	resp, err := u.Get(ctx, "/"+t.URL.String(), nil, header)
	if err != nil {
		return nil, readerError(err, call.Mode)
	}
	return parseReaderAnswer(resp.Header.Get("Content-Type"), resp.Body)
}

// readerJSON is the envelope of the reader's JSON mode.
type readerJSON struct {
	Code json.RawMessage `json:"code"`
	Data json.RawMessage `json:"data"`
}

func parseReaderAnswer(contentType string, body []byte) (*readerPage, error) {
	trimmed := strings.TrimSpace(string(body))
	if strings.Contains(strings.ToLower(contentType), "json") || strings.HasPrefix(trimmed, "{") {
		var env readerJSON
		if err := json.Unmarshal(body, &env); err != nil {
			return nil, providers.Errorf(providers.CodeProviderError, "the reader answered malformed JSON")
		}
		if code, ok := intOf(env.Code); ok && code != http.StatusOK {
			return nil, bodyError(code, body, nil)
		}
		var data map[string]json.RawMessage
		if json.Unmarshal(env.Data, &data) != nil || data == nil {
			return nil, providers.Errorf(providers.CodeProviderError, "the reader answered without a page")
		}
		p := &readerPage{
			Title:   stringOf(data["title"]),
			URL:     stringOf(data["url"]),
			Content: stringOf(data["content"]),
		}
		p.Warnings = warningLines(stringOf(data["warning"]))
		return p, nil
	}
	return parseTextPage(string(body)), nil
}

// readerPage is the part of the reader's answer the record uses.
type readerPage struct {
	Title    string
	URL      string
	Content  string
	Warnings []string
}

// parseTextPage reads the reader's text answer: "Title: …", "URL Source: …", optional
// "Published Time: …" and "Warning: …" lines, then "Markdown Content:" and the Markdown. An answer
// without that header is taken as Markdown as a whole.
func parseTextPage(s string) *readerPage {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	const marker = "Markdown Content:\n"
	idx := -1
	if strings.HasPrefix(s, marker) {
		idx = 0
	} else if i := strings.Index(s, "\n"+marker); i >= 0 {
		idx = i + 1
	}
	if idx < 0 {
		return &readerPage{Content: s}
	}
	p := &readerPage{Content: s[idx+len(marker):]}
	for _, line := range strings.Split(s[:idx], "\n") {
		switch {
		case strings.HasPrefix(line, "Title:"):
			p.Title = strings.TrimSpace(strings.TrimPrefix(line, "Title:"))
		case strings.HasPrefix(line, "URL Source:"):
			p.URL = strings.TrimSpace(strings.TrimPrefix(line, "URL Source:"))
		case strings.HasPrefix(line, "Warning:"):
			if w := strings.TrimSpace(strings.TrimPrefix(line, "Warning:")); w != "" {
				p.Warnings = append(p.Warnings, w)
			}
		}
	}
	return p
}

func warningLines(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// readerErrorBody is the reader's error body: {data: null, code, name, status, message,
// readableMessage} (and retryAfter on 429).
type readerErrorBody struct {
	Code            json.RawMessage `json:"code"`
	Name            json.RawMessage `json:"name"`
	Message         json.RawMessage `json:"message"`
	ReadableMessage json.RawMessage `json:"readableMessage"`
	RetryAfter      json.RawMessage `json:"retryAfter"`
}

// readerError maps a refused reader call (the client has already mapped the status).
func readerError(err error, mode providers.Mode) error {
	e, ok := providers.AsError(err)
	if !ok || e.UpstreamStatus == 0 {
		return err
	}
	if mode == providers.ModeTest && e.UpstreamStatus == http.StatusNotFound {
		return providers.Errorf(providers.CodeInvalidRequest, "the sandbox has no recorded page for this URL").
			WithHint("In test mode web.read answers only the URLs of its examples, such as https://example.com/.")
	}
	return bodyError(e.UpstreamStatus, e.Body, e)
}

// bodyError maps the reader's error body by HTTP status (or the body's code).
func bodyError(status int, body []byte, orig *providers.Error) error {
	var b readerErrorBody
	_ = json.Unmarshal(body, &b)
	name := stringOf(b.Name)
	msg := providers.ClipLine(stringOf(b.Message), 300)
	if msg == "" {
		msg = providers.ClipLine(strings.TrimPrefix(stringOf(b.ReadableMessage), name+": "), 300)
	}
	detail := ""
	if msg != "" {
		detail = ": " + msg
	}
	mk := func(code providers.Code, retry bool, format string, args ...any) *providers.Error {
		out := &providers.Error{Code: code, Message: fmt.Sprintf(format, args...), Retryable: boolPtr(retry), UpstreamStatus: status, Body: body}
		if orig != nil {
			out.Cause = orig
			out.RetryAfter = orig.RetryAfter
		}
		return out
	}
	switch {
	case status == http.StatusBadRequest && name == "ParamValidationError":
		return providers.InvalidField("/url", "the reader refused the URL"+detail)
	case status == http.StatusUnauthorized:
		return mk(providers.CodeProviderError, false, "the reader refused this gateway's API key%s", detail)
	case status == http.StatusPaymentRequired:
		return mk(providers.CodeProviderAllowance, false, "the reader's balance for this gateway is used up%s", detail)
	case status == http.StatusTooManyRequests:
		out := mk(providers.CodeRateLimited, true, "the reader is rate limiting this gateway; retry shortly%s", detail)
		if out.RetryAfter == 0 {
			if n, ok := intOf(b.RetryAfter); ok && n > 0 {
				out.RetryAfter = time.Duration(n) * time.Second
			}
		}
		if out.RetryAfter > time.Minute {
			out.Code, out.Retryable = providers.CodeProviderAllowance, boolPtr(false)
			out.Message = "the reader's allowance for this gateway is used up" + detail
		}
		return out
	case status == http.StatusUnprocessableEntity:
		retry := strings.Contains(strings.ToLower(msg), "timeout")
		return mk(providers.CodeProviderError, retry, "the reader could not read the page%s", detail)
	case status == http.StatusForbidden || status == http.StatusUnavailableForLegalReasons:
		return mk(providers.CodeProviderError, false, "the reader refused to read this page%s", detail)
	case status >= 500:
		return mk(providers.CodeProviderError, true, "the reader failed (HTTP %d)%s", status, detail)
	default:
		return mk(providers.CodeProviderError, false, "the reader refused the request (HTTP %d)%s", status, detail)
	}
}

func stringOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func intOf(raw json.RawMessage) (int, bool) {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	i, err := n.Int64()
	if err != nil {
		f, err := n.Float64()
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
			return 0, false
		}
		return int(f), true
	}
	return int(i), true
}

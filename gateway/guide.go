package gateway

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
)

// Guide renders the Markdown guide for applications and AI agents from the registry.
func Guide(caps []*providers.Capability) string {
	var b strings.Builder
	b.WriteString(`# capgate API guide

capgate gives your application one typed, metered JSON API over search and lookup capabilities,
plus sharpen (a second-opinion review of a draft answer by another model vendor).

## The flow
1. ` + "`GET /v1/catalog`" + ` lists every capability with ` + "`enabled`" + ` (on your plan) and ` + "`available`" + ` (in this deployment).
2. ` + "`GET /v1/capabilities/{id}`" + ` shows the typed body (JSON Schema), follow-ups, examples and cost.
3. ` + "`POST /v1/capabilities/{id}/execute`" + ` runs it. Unknown fields are refused; omitted optional fields take their defaults.
4. ` + "`POST /v1/follow-up`" + `:
   - ` + "`{\"search_id\": \"srch_…\", \"action\": \"more\"}`" + ` while ` + "`has_more`" + ` is true. A page may be empty while has_more stays true: stop after a bounded number of pages.
   - ` + "`{\"search_id\": \"srch_…\", \"action\": \"update\", \"params\": {…}}`" + ` merges params into the stored query (null removes a field), resets paging, keeps the search_id.
   - ` + "`{\"record_id\": \"rec_…\", \"action\": \"details\"}`" + ` runs a record action listed in ` + "`record_actions`" + `.
   ` + "`next.example`" + ` in every execute response is a follow-up body that is valid right now.

Authenticate every call with ` + "`Authorization: Bearer cap_live_…`" + `. A ` + "`cap_test_…`" + ` key runs the same API against a
sandbox of provider answers and counts against a separate test balance (see Test mode below).

## Credits
Every execute and follow-up response carries ` + "`charged_credits`" + ` and ` + "`balance {used, cap, period_end}`" + `.
1 credit = USD 0.001 of upstream cost; your plan's multiplier applies. Local paging (` + "`more`" + ` on a held result set) and
stored details are free; provider lookups are billed once and cached for the session. When the cap is used up calls answer
` + "`402 credits_exhausted`" + ` until ` + "`period_end`" + `.

## Shared cache
Identical searches by any caller are answered once: a page may come from the shared upstream cache, free unless your plan
sets a share. ` + "`Capgate-Cache: hit | miss | coalesced | bypass`" + ` says what happened (` + "`Age`" + ` gives a hit's age in seconds,
and its ` + "`notes`" + ` say so); a cached answer is still your own search (own ` + "`search_id`" + ` and record ids). Send
` + "`Cache-Control: max-age=N`" + ` to accept at most N seconds old, ` + "`no-cache`" + ` for a fresh answer, ` + "`no-store`" + ` to keep the cache out.

## Errors
` + "`{\"error\": {\"code\", \"message\", \"retryable\", \"hint\", \"violations\": [{\"path\", \"message\"}], \"requestId\"}}`" + `.
Retry only when ` + "`retryable`" + ` is true, after ` + "`Retry-After`" + ` seconds when it is sent. Quote ` + "`requestId`" + ` when asking for help.

| code | HTTP | meaning |
|---|---|---|
`)
	for _, c := range providers.Codes() {
		fmt.Fprintf(&b, "| %s | %d | %s |\n", c, c.Status(), codeMeaning[c])
	}
	writeTestMode(&b)
	b.WriteString("\n## Capabilities\n")
	topic := ""
	for _, cp := range caps {
		if cp.Topic != topic {
			topic = cp.Topic
			fmt.Fprintf(&b, "\n### %s\n", topic)
		}
		fmt.Fprintf(&b, "\n#### `%s`: %s\n%s\n\n", cp.ID, cp.Title, cp.Summary)
		fmt.Fprintf(&b, "- Paging: %s; typical credits: %d (%s); deadline %s\n", cp.Paging.Label(), cp.Cost.Typical, cp.Cost.Basis, cp.Deadline)
		var fu []string
		for _, a := range cp.SearchActions() {
			fu = append(fu, a)
		}
		fu = append(fu, cp.ActionNames()...)
		if len(fu) > 0 {
			fmt.Fprintf(&b, "- Follow-ups: %s\n", strings.Join(fu, ", "))
		}
		if len(cp.Examples) > 0 {
			ex, _ := json.Marshal(cp.Examples[0].Body)
			fmt.Fprintf(&b, "\n```sh\ncurl -s -X POST \"$CAPGATE/v1/capabilities/%s/execute\" \\\n  -H \"Authorization: Bearer $CAPGATE_KEY\" -H 'Content-Type: application/json' \\\n  -d '%s'\n```\n", cp.ID, strings.ReplaceAll(string(ex), "'", `'\''`))
		}
	}
	b.WriteString(mcpGuide)
	return b.String()
}

var codeMeaning = map[providers.Code]string{
	providers.CodeInvalidRequest:        "the body or follow-up is invalid; see violations",
	providers.CodeUnauthorized:          "missing, malformed, unknown or revoked key, or a suspended account",
	providers.CodeCreditsExhausted:      "the period's credit cap is used up",
	providers.CodeCapabilityDisabled:    "the capability (or sharpen stage) is not on your plan",
	providers.CodeCapabilityUnknown:     "no capability has that id",
	providers.CodeRecordUnknown:         "no record has that id",
	providers.CodeSessionExpired:        "the stored detail or search is no longer held; run the search again",
	providers.CodeRateLimited:           "too many requests; wait Retry-After seconds",
	providers.CodeProviderError:         "the upstream source failed or refused",
	providers.CodeSharpenNoReviewer:     "no reviewer is available for sharpen",
	providers.CodeCapabilityUnavailable: "the capability's provider is not configured in this deployment",
	providers.CodeProviderTimeout:       "the upstream did not answer within the deadline",
	providers.CodeServiceUnavailable:    "the service or a provider is temporarily unavailable",
	providers.CodeMediaStale:            "the media reference is stale; renew it, then retry",
	providers.CodeWorkoutUnavailable:    "the workout has no demonstration",
	providers.CodeProviderAllowance:     "the upstream allowance of this deployment is used up",
	providers.CodeNotFound:              "no such route or resource",
	providers.CodeInternal:              "an internal failure; it was logged with the request id",
}

// writeTestMode is the guide's section on test keys: what is synthetic, the reserved misses and
// the fault header.
func writeTestMode(b *strings.Builder) {
	b.WriteString(`
## Test mode
A ` + "`cap_test_…`" + ` key runs every capability against a sandbox at the upstream transport: the same validation,
rules, adapters, paging, sessions, follow-ups and error envelope as live, with a separate test balance (test calls
never touch the live balance). Any body that passes the schema and the rules answers 200 with records consistent
with your request: places resolve through a gazetteer of real cities and airports and results lie around them,
routes and flights follow real distances and connect the requested places and airports, a requested package,
ticker, repository or author appears as itself, filters and sort orders are applied, more advances, weather
follows latitude and season, and past flight dates are refused as live refuses them. The same body always gives
the same answer, and every test answer's notes say it is synthetic. Recorded provider answers are the base
material and fix the shapes (the examples answer them as recorded); names, prices, ratings, schedules and texts
are made up: do not read real-world facts from test mode. Every follow-up a
test answer offers works: ` + "`more`" + ` until has_more is false, ` + "`update`" + `, and every record action (the read
action of a search result reads any public-looking URL).

Reserved values answer exactly as live mode answers a miss:

| capabilities | value | answer |
|---|---|---|
`)
	for _, m := range providers.SandboxMisses {
		fmt.Fprintf(b, "| %s | %s | %s |\n", m.Capabilities, m.Value, m.Answer)
	}
	b.WriteString(`
Rehearse failures with the header ` + "`" + SandboxFaultHeader + `: <code>` + "`" + ` on an execute or follow-up with a test
key: the sandbox upstream fails that way and the gateway answers exactly what live mode answers to it (status,
code, Retry-After, the reservation refunded, so the test balance does not move). The header is refused with a
live key (` + "`400 invalid_request`" + `), as is an unknown code. Each tenant has its own sandbox breakers: after repeated
failures (provider_error, provider_timeout) the provider's sandbox breaker opens and your test calls to it answer
` + "`503 service_unavailable`" + ` with Retry-After until it closes; live breakers and other tenants are never affected.

| code | what the upstream does, and what you get |
|---|---|
`)
	for _, c := range providers.SandboxFaultCodes() {
		fmt.Fprintf(b, "| %s | %s |\n", c, providers.SandboxFaults[providers.SandboxFault(c)])
	}
}

// guide answers GET /v1/guide.
func (s *Server) guide(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, "text/markdown; charset=utf-8")
	return c.SendString(Guide(s.order))
}

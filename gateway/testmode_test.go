package gateway_test

// Test mode answers any valid request (issue 18): bodies generated from each capability's own
// request schema execute with a test key, and every follow-up the answer offers works.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/registry"
)

// bodiesPerCapability is how many distinct valid bodies each capability must answer.
const bodiesPerCapability = 50

// thoroughBodies is how many of them are walked in full (every record action of every record of
// the first page, every page with more); the others run their first record's actions and one
// more. The full walk of all 50 made 90,000 calls and took 183 s of the race-detector run, with
// each further body repeating code paths the first ones had taken.
const thoroughBodies = 3

// maxPages bounds more: a local result set of a few hundred records paged one by one ends within it.
const maxPages = 400

// unlimited admits every call: the property test makes thousands of calls in a minute.
type unlimited = gatewaytest.Unlimited

// textPool is free text of every kind a caller may send: queries, places, names, packages.
var textPool = []string{
	"dune", "Paris", "express", "left-pad", "climate change", "Lisbon", "Porto", "quantum computing",
	"coffee", "jazz", "marathon training", "Tokyo", "rust", "solar panels", "Bach", "machine learning",
	"New York", "garlic", "privacy", "apple", "bicycle", "Berlin", "hamlet", "Kyoto", "chicken",
	"renewable energy", "Madrid", "love", "Seattle", "typescript", "a", "Zürich café", "São Paulo",
}

// codePool are short structured values; a schema pattern picks those it accepts.
var codePool = []string{
	"us", "US", "de", "fr", "GB", "en", "en-US", "pt-BR", "eng", "fra", "USD", "EUR", "GBP", "JPY",
	"AAPL", "MSFT", "GOOGL", "AAPL:NASDAQ", "0000320193", "320193", "12345", "7", "usrep277438", "usrep347483",
	"20200101", "priority:20190101", "publication:20231231", "express", "left-pad", "@babel/parser",
	"requests", "numpy", "django", "flask-login", "last-day", "last-week", "last-month", "last-year",
	"0000320193-24-000123", "32016R0679", "62014CJ0362", "golang", "CDG", "JFK", "LIS", "OPO", "LAX",
}

func datePool(now time.Time) []string {
	var out []string
	for _, d := range []int{-3650, -400, -30, -7, -1, 0, 1, 2, 7, 14, 30, 60, 90} {
		out = append(out, now.AddDate(0, 0, d).Format("2006-01-02"))
	}
	out = append(out, now.AddDate(-1, 0, 0).Format("2006-01-02")+":"+now.AddDate(0, 0, -1).Format("2006-01-02"))
	return out
}

// bodyGen draws request bodies from a JSON schema, seeded; every enum value and the boundary
// numbers come up, optional fields are on and off.
type bodyGen struct {
	r        *rand.Rand
	cap      string
	i        int // the body's index: body 0 has only required fields, body 1 every field
	k        int // enum values drawn so far
	examples map[string][]any
	dates    []string
	patterns map[string]*regexp.Regexp
}

func (g *bodyGen) pattern(p string) *regexp.Regexp {
	if re, ok := g.patterns[p]; ok {
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	g.patterns[p] = re
	return re
}

// recordedTickers are the tickers of EDGAR's recorded ticker map: the map is one document that
// the sandbox cannot tailor to the ticker asked for, so only its tickers resolve in test mode
// (any CIK does).
var recordedTickers = []any{"AAPL", "NVDA", "MSFT", "AMZN", "GOOGL", "META", "GOOG", "BRK-B", "TSLA", "BRK-A"}

func (g *bodyGen) value(s map[string]any, key string) any {
	if ex := g.examples[key]; len(ex) > 0 && g.r.IntN(3) == 0 {
		return ex[g.r.IntN(len(ex))]
	}
	if key == "ticker" && g.cap == "companies.financials" {
		return recordedTickers[g.r.IntN(len(recordedTickers))]
	}
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		// Cycle through the values across bodies and across the items of one array.
		g.k++
		return e[(g.i+g.k+g.r.IntN(2))%len(e)]
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if bs, ok := s[k].([]any); ok && len(bs) > 0 {
			b, _ := bs[g.r.IntN(len(bs))].(map[string]any)
			merged := map[string]any{}
			for k2, v := range s {
				if k2 != k {
					merged[k2] = v
				}
			}
			for k2, v := range b {
				merged[k2] = v
			}
			return g.value(merged, key)
		}
	}
	typ := s["type"]
	if ts, ok := typ.([]any); ok {
		var nonNull []any
		for _, t := range ts {
			if t != "null" {
				nonNull = append(nonNull, t)
			}
		}
		typ = nonNull[g.r.IntN(len(nonNull))]
	}
	if typ == nil {
		if _, ok := s["properties"]; ok {
			typ = "object"
		}
	}
	switch typ {
	case "object":
		return g.object(s)
	case "array":
		items, _ := s["items"].(map[string]any)
		lo, hi := intOf(s["minItems"], 0), intOf(s["maxItems"], 4)
		hi = min(hi, lo+3)
		n := lo + g.r.IntN(hi-lo+1)
		var out []any
		for tries := 0; len(out) < n && tries < 10*n+10; tries++ {
			v := g.value(items, key)
			if s["uniqueItems"] == true && slices.ContainsFunc(out, func(x any) bool { return fmt.Sprint(x) == fmt.Sprint(v) }) {
				continue
			}
			out = append(out, v)
		}
		if out == nil {
			out = []any{}
		}
		return out
	case "integer", "number":
		lo, hasLo := numOf(s["minimum"])
		hi, hasHi := numOf(s["maximum"])
		if strings.HasSuffix(key, "offset") {
			// An offset past the data is refused by live mode too (it depends on the data, not
			// the schema): offsets stay within the first results.
			hi, hasHi = lo+20, true
		}
		if !hasLo {
			lo = 0
		}
		if !hasHi {
			hi = lo + 50
		}
		if em, ok := numOf(s["exclusiveMinimum"]); ok {
			lo = em + 1
		}
		if em, ok := numOf(s["exclusiveMaximum"]); ok {
			hi = em - 1
		}
		var v float64
		switch g.r.IntN(4) {
		case 0:
			v = lo
		case 1:
			v = hi
		default:
			v = lo + float64(g.r.IntN(int(min(hi-lo, 1e6))+1))
			if typ == "number" && g.r.IntN(2) == 0 {
				v = lo + (hi-lo)*g.r.Float64()
			}
		}
		if typ == "integer" {
			return json.Number(fmt.Sprint(int64(v)))
		}
		return json.Number(fmt.Sprintf("%g", v))
	case "boolean":
		return g.r.IntN(2) == 0
	default:
		return g.str(s)
	}
}

func (g *bodyGen) str(s map[string]any) string {
	lo, hi := intOf(s["minLength"], 0), intOf(s["maxLength"], 1<<20)
	var pool []string
	switch s["format"] {
	case "date-time":
		return time.Now().UTC().Add(time.Duration(g.r.IntN(72)) * time.Hour).Truncate(time.Hour).Format(time.RFC3339)
	case "date":
		pool = g.dates
	case "uri":
		pool = []string{"https://go.dev/doc/effective_go", "https://www.example.org/a/b", "https://en.wikipedia.org/wiki/Dune_(novel)"}
	}
	if p, ok := s["pattern"].(string); ok && p != `\S` {
		re := g.pattern(p)
		for _, c := range append(append(append([]string{}, codePool...), g.dates...), textPool...) {
			if re != nil && re.MatchString(c) {
				pool = append(pool, c)
			}
		}
		if p == `^[Hh][Tt][Tt][Pp][Ss]?://` {
			pool = []string{"https://go.dev/doc/effective_go", "https://www.example.org/a/b", "http://news.example.com/story/1"}
		}
	}
	if pool == nil {
		pool = textPool
	}
	var fit []string
	for _, c := range pool {
		if n := len([]rune(c)); n >= lo && n <= hi {
			fit = append(fit, c)
		}
	}
	if len(fit) == 0 {
		return strings.Repeat("a", max(lo, 1))
	}
	return fit[g.r.IntN(len(fit))]
}

func (g *bodyGen) object(s map[string]any) map[string]any {
	props, _ := s["properties"].(map[string]any)
	req := map[string]bool{}
	if rs, ok := s["required"].([]any); ok {
		for _, r := range rs {
			req[r.(string)] = true
		}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]any{}
	for _, k := range keys {
		on := req[k] || g.i == 1 || (g.i > 1 && g.r.IntN(2) == 0)
		if !on {
			continue
		}
		ps, _ := props[k].(map[string]any)
		out[k] = g.value(ps, k)
	}
	// allOf branches of the form if {k: const v} then {shape}: the shape of the chosen v applies.
	all, _ := s["allOf"].([]any)
	for _, b := range all {
		br, _ := b.(map[string]any)
		cond, _ := br["if"].(map[string]any)
		then, _ := br["then"].(map[string]any)
		if cond == nil || then == nil || !g.holds(cond, out) {
			continue
		}
		shape := g.object(then)
		if then["additionalProperties"] == false {
			tp, _ := then["properties"].(map[string]any)
			for k := range out {
				if _, ok := tp[k]; !ok {
					delete(out, k)
				}
			}
		}
		for k, v := range shape {
			if _, set := out[k]; !set || k != firstKey(cond) {
				out[k] = v
			}
		}
	}
	return out
}

// holds tells whether an if-schema made of consts holds for obj.
func (g *bodyGen) holds(cond, obj map[string]any) bool {
	props, _ := cond["properties"].(map[string]any)
	for k, v := range props {
		c, _ := v.(map[string]any)
		if want, ok := c["const"]; ok && fmt.Sprint(obj[k]) != fmt.Sprint(want) {
			return false
		}
	}
	return len(props) > 0
}

func firstKey(cond map[string]any) string {
	props, _ := cond["properties"].(map[string]any)
	for k := range props {
		return k
	}
	return ""
}

func intOf(v any, def int) int {
	if f, ok := numOf(v); ok {
		return int(f)
	}
	return def
}

func numOf(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// validBodies draws n distinct bodies that pass the capability's schema and rules.
func validBodies(tb testing.TB, cp *providers.Capability, n int) []map[string]any {
	tb.Helper()
	examples := map[string][]any{}
	for _, ex := range cp.Examples {
		for k, v := range ex.Body.Request() {
			examples[k] = append(examples[k], v)
		}
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(cp.Request), &doc); err != nil {
		tb.Fatal(err)
	}
	// Every enum value must come up: drawing goes on past n while values are missing, keeping
	// only the bodies that bring a missing one.
	missing := map[string]bool{}
	for path, values := range schemaEnums(doc) {
		for _, v := range values {
			missing[path+"="+fmt.Sprint(v)] = true
		}
	}
	seen := map[string]bool{}
	var out []map[string]any
	for i := 0; (len(out) < n || (n >= bodiesPerCapability && len(missing) > 0)) && i < 400*n; i++ {
		g := &bodyGen{r: rand.New(rand.NewPCG(uint64(i), 18)), cap: cp.ID, i: i, examples: examples, dates: datePool(time.Now().UTC()), patterns: map[string]*regexp.Regexp{}}
		body := g.object(doc)
		enc, _ := json.Marshal(body)
		if seen[string(enc)] {
			continue
		}
		req, err := providers.DecodeBody(enc)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := cp.Prepare(req, nil); err != nil || refusedUpstream(cp, body) {
			continue
		}
		brings := false
		for _, pv := range bodyValues(body) {
			if missing[pv] {
				brings = true
				delete(missing, pv)
			}
		}
		if len(out) >= n && !brings {
			continue
		}
		seen[string(enc)] = true
		out = append(out, body)
	}
	if len(out) < n {
		tb.Fatalf("only %d valid bodies of %s could be drawn from its schema", len(out), cp.ID)
	}
	if n >= bodiesPerCapability {
		for pv := range missing {
			tb.Errorf("%s: no valid body could be drawn with %s", cp.ID, pv)
		}
	}
	return out
}

// refusedUpstream tells whether live mode's upstream refuses a body the schema accepts, so test
// mode refuses it too (issue 36): a flight departing or returning before yesterday.
func refusedUpstream(cp *providers.Capability, body map[string]any) bool {
	if cp.ID != "flights.search" {
		return false
	}
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	for _, k := range []string{"departure_date", "return_date"} {
		if d, ok := body[k].(string); ok && d < yesterday {
			return true
		}
	}
	return false
}

// schemaEnums lists the enums of a schema's properties (nested objects and array items included)
// by path.
func schemaEnums(doc map[string]any) map[string][]any {
	enums := map[string][]any{}
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		if e, ok := s["enum"].([]any); ok {
			enums[path] = e
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(path+"[]", items)
		}
		props, _ := s["properties"].(map[string]any)
		for k, v := range props {
			if ps, ok := v.(map[string]any); ok {
				walk(path+"/"+k, ps)
			}
		}
	}
	walk("", doc)
	return enums
}

// bodyValues lists the path=value pairs of a body's leaves.
func bodyValues(body map[string]any) []string {
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(path+"/"+k, c)
			}
		case []any:
			for _, c := range x {
				walk(path+"[]", c)
			}
		default:
			out = append(out, path+"="+fmt.Sprint(x))
		}
	}
	walk("", body)
	return out
}

// answersAnyValidBody is the property test of issue 18: every capability answers n generated
// valid bodies (the capabilities at once, on one Env), each paged, its records' actions run and
// the search updated; the first thorough bodies are walked in full. The full sweep
// (bodiesPerCapability) runs in the plain build (sweeps_test.go); a race build runs the same
// shape with a few bodies (race_test.go).
func answersAnyValidBody(t *testing.T, n, thorough int) {
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}})
	for _, cp := range registry.Capabilities() {
		t.Run(cp.ID, func(t *testing.T) {
			t.Parallel() // the capabilities share the Env, not a tenant
			_, _, key := e.NewTenant("pro")
			bodies := validBodies(t, cp, n)
			for i, body := range bodies {
				checkTestModeBody(t, e, key, cp, body, bodies[(i+1)%len(bodies)], i < thorough)
				if t.Failed() {
					return
				}
			}
		})
	}
}

// checkTestModeBody executes body, pages with more until has_more is false, runs every record
// action of every record of the first page, and updates the search to other. Unless thorough,
// only the first record's actions run and only one more page is read.
func checkTestModeBody(t *testing.T, e *gatewaytest.Env, key string, cp *providers.Capability, body, other map[string]any, thorough bool) {
	t.Helper()
	enc, _ := json.Marshal(body)
	r := e.Do(http.MethodPost, "/v1/capabilities/"+cp.ID+"/execute", key, body)
	if r.Status != http.StatusOK {
		t.Errorf("%s: %d %s", enc, r.Status, r.Body)
		return
	}
	sid, _ := r.JSON["search_id"].(string)
	actions := anyStrings(r.JSON["record_actions"])
	results := r.JSON["results"].([]any)
	if !thorough && len(results) > 1 {
		results = results[:1]
	}
	for _, x := range results {
		rec := x.(map[string]any)
		for _, a := range actions {
			f := e.Do(http.MethodPost, "/v1/follow-up", key, map[string]any{"record_id": rec["record_id"], "action": a})
			if f.Status == http.StatusBadRequest && strings.Contains(string(f.Body), "is not an action of this record") {
				continue
			}
			if f.Status != http.StatusOK {
				t.Errorf("%s: record action %s on %q: %d %s", enc, a, rec["title"], f.Status, f.Body)
			}
		}
	}
	next := anyStrings(nextOf(r)["actions"])
	if slices.Contains(next, "more") {
		more := r
		for page := 0; more.JSON["has_more"] == true; page++ {
			if page == maxPages {
				t.Errorf("%s: has_more still true after %d pages", enc, maxPages)
				break
			}
			if !thorough && page == 1 {
				break
			}
			more = e.Do(http.MethodPost, "/v1/follow-up", key, map[string]any{"search_id": sid, "action": "more"})
			if more.Status != http.StatusOK {
				t.Errorf("%s: more (page %d): %d %s", enc, page+2, more.Status, more.Body)
				break
			}
		}
	}
	if slices.Contains(next, "update") {
		params := map[string]any{}
		for k := range body {
			params[k] = nil
		}
		for k, v := range other {
			params[k] = v
		}
		u := e.Do(http.MethodPost, "/v1/follow-up", key, map[string]any{"search_id": sid, "action": "update", "params": params})
		if u.Status != http.StatusOK {
			t.Errorf("%s: update to %v: %d %s", enc, other, u.Status, u.Body)
		}
	}
}

// faultUpstream answers every live call with the fault currently set, exactly as the sandbox
// makes it, so a test-key call with the header can be compared with a live call meeting the same
// upstream behaviour.
type faultUpstream struct{ fault atomic.Value }

func (f *faultUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fault, _ := f.fault.Load().(providers.SandboxFault)
	if !providers.WriteSandboxFault(w, fault) {
		http.Error(w, `{"error":"no fault set"}`, http.StatusInternalServerError)
	}
}

// liveComparable tells whether a capability's live path can run against the fake upstream here:
// web.read's live pre-flight resolves and connects to the page's own host, which this machine
// cannot reach.
func liveComparable(cp *providers.Capability) bool { return cp.ID != "web.read" }

// faultCapabilities picks one capability per provider family (its first provider), with its
// first example.
func faultCapabilities() []*providers.Capability {
	seen := map[string]bool{}
	var out []*providers.Capability
	for _, cp := range registry.Capabilities() {
		if len(cp.Providers) == 0 || seen[cp.Providers[0]] || len(cp.Examples) == 0 {
			continue
		}
		seen[cp.Providers[0]] = true
		out = append(out, cp)
	}
	return out
}

// TestSandboxBreakerOpensPerTenant: repeated provider_error faults open the tenant's sandbox
// breaker (calls without the header then fail fast too), while another tenant's test calls and
// the live breaker are untouched.
func TestSandboxBreakerOpensPerTenant(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}, BreakerTimeout: time.Minute})
	const path = "/v1/capabilities/books.search/execute"
	body := map[string]any{"query": "dune"}
	fault := map[string]string{gateway.SandboxFaultHeader: string(providers.FaultError)}
	_, _, a := e.NewTenant("pro")
	_, _, b := e.NewTenant("pro")
	for i := range 3 { // gatewaytest's BreakerFailures
		if r := e.DoHeaders(http.MethodPost, path, a, body, fault); r.ErrorCode() != "provider_error" {
			t.Fatalf("fault %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := e.Do(http.MethodPost, path, a, body)
	if r.Status != http.StatusServiceUnavailable || r.ErrorCode() != "service_unavailable" || r.Header.Get("Retry-After") != "60" {
		t.Fatalf("after repeated faults: %d %s (Retry-After %q), want the open breaker", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	if r := e.Do(http.MethodPost, path, b, body); r.Status != http.StatusOK {
		t.Fatalf("another tenant's test call: %d %s", r.Status, r.Body)
	}
	if s := e.Client.BreakerState("openlibrary"); s != "closed" {
		t.Fatalf("the live breaker is %s", s)
	}
}

// TestSandboxFaultHeaderRefusals: the header is refused with a live key and with an unknown code.
func TestSandboxFaultHeaderRefusals(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	const path = "/v1/capabilities/books.search/execute"
	body := map[string]any{"query": "dune"}
	r := e.DoHeaders(http.MethodPost, path, e.LiveKey, body, map[string]string{gateway.SandboxFaultHeader: "provider_error"})
	wantError(t, r, http.StatusBadRequest, "invalid_request")
	r = e.DoHeaders(http.MethodPost, path, e.TestKey, body, map[string]string{gateway.SandboxFaultHeader: "meteor_strike"})
	wantError(t, r, http.StatusBadRequest, "invalid_request")
	r = e.DoHeaders(http.MethodPost, "/v1/follow-up", e.LiveKey, map[string]any{"search_id": "srch_0000000000000000", "action": "more"},
		map[string]string{gateway.SandboxFaultHeader: "garbage"})
	wantError(t, r, http.StatusBadRequest, "invalid_request")
	if u := used(t, e, e.Tenant, "live"); u != 0 {
		t.Fatalf("a refused header charged %d", u)
	}
}

// TestSandboxReservedMisses: the reserved miss of each family answers as live mode answers a
// miss: a search finds nothing (200, no results, has_more false), a lookup is refused with the
// code and field live mode uses.
func TestSandboxReservedMisses(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}})
	const miss = providers.SandboxMiss
	searches := []struct {
		id   string
		body map[string]any
	}{
		{"web.search", map[string]any{"query": miss}},
		{"news.search", map[string]any{"query": miss}},
		{"academic.search", map[string]any{"query": miss}},
		{"books.search", map[string]any{"query": miss}},
		{"classics.search", map[string]any{"query": miss}},
		{"repo.search", map[string]any{"query": miss}},
		{"jspkg.search", map[string]any{"text": miss}},
		{"pypkg.search", map[string]any{"query": miss}},
		{"music.search", map[string]any{"query": miss}},
		{"social.search", map[string]any{"query": miss, "platform": "platform_a"}},
		{"social.search", map[string]any{"query": miss, "platform": "platform_b"}},
		{"video.search", map[string]any{"query": miss}},
		{"recipes.search", map[string]any{"query": miss}},
		{"fitness.exercises", map[string]any{"query": miss}},
		{"realestate.search", map[string]any{"query": miss}},
		{"shopping.search", map[string]any{"query": miss}},
		{"jobs.search", map[string]any{"query": miss}},
		{"places.search", map[string]any{"query": miss}},
		{"patents.search", map[string]any{"query": miss}},
		{"legal.search", map[string]any{"search": map[string]any{"jurisdiction": "us", "query": miss}}},
		{"legal.search", map[string]any{"search": map[string]any{"jurisdiction": "eu", "query": miss}}},
		{"scripture.search", map[string]any{"text": "bible", "query": miss}},
		{"scripture.search", map[string]any{"text": "quran", "query": miss}},
	}
	for _, c := range searches {
		r := e.Do(http.MethodPost, "/v1/capabilities/"+c.id+"/execute", e.TestKey, c.body)
		if res, _ := r.JSON["results"].([]any); r.Status != http.StatusOK || len(res) != 0 || r.JSON["has_more"] != false {
			t.Errorf("%s %v: %d %s, want 200 without results", c.id, c.body, r.Status, r.Body)
		}
	}
	lookups := []struct {
		id     string
		body   map[string]any
		status int
		code   string
		path   string
	}{
		{"weather.forecast", map[string]any{"location": providers.SandboxMissPlace}, 400, "invalid_request", "/location"},
		{"navigation.route", map[string]any{"origin": "Berlin", "destination": providers.SandboxMissPlace}, 400, "invalid_request", "/destination"},
		{"navigation.matrix", map[string]any{"origins": []any{providers.SandboxMissPlace}, "destinations": []any{"Berlin"}}, 400, "invalid_request", "/origins/0"},
		{"jspkg.package", map[string]any{"package": miss}, 400, "invalid_request", "/package"},
		{"jspkg.package", map[string]any{"package": "express", "version": miss}, 400, "invalid_request", "/version"},
		{"jspkg.downloads", map[string]any{"package": miss}, 400, "invalid_request", "/package"},
		{"pypkg.details", map[string]any{"package": miss}, 400, "invalid_request", "/package"},
		{"pypkg.versions", map[string]any{"package": miss}, 400, "invalid_request", "/package"},
		{"pypkg.downloads", map[string]any{"package": miss}, 404, "not_found", ""},
		{"web.read", map[string]any{"url": "https://" + miss + ".com/"}, 400, "invalid_request", "/url"},
		{"companies.financials", map[string]any{"company": map[string]any{"cik": "9999999999"}}, 400, "invalid_request", "/company/cik"},
		{"legal.read", map[string]any{"document": map[string]any{"source": "us_reports", "item_id": "usrep999999"}}, 404, "not_found", ""},
		{"legal.read", map[string]any{"document": map[string]any{"source": "eurlex", "celex": "0SANDBOX-NOT-FOUND"}}, 404, "not_found", ""},
		{"legal.read", map[string]any{"document": map[string]any{"source": "scholar", "caselaw_id": "999999"}}, 404, "not_found", ""},
	}
	for _, c := range lookups {
		r := e.Do(http.MethodPost, "/v1/capabilities/"+c.id+"/execute", e.TestKey, c.body)
		if r.Status != c.status || r.ErrorCode() != c.code || (c.path != "" && !slices.Contains(r.Violations(), c.path)) {
			t.Errorf("%s %v: %d %s, want %d %s at %q", c.id, c.body, r.Status, r.Body, c.status, c.code, c.path)
		}
		if hint, _ := r.JSON["error"].(map[string]any)["hint"].(string); strings.Contains(strings.ToLower(hint), "sandbox") {
			t.Errorf("%s: the miss answers with a sandbox hint, not as live: %q", c.id, hint)
		}
	}
}

// TestGuideExplainsTestMode: the guide names the fault header, every fault code and every
// reserved miss.
func TestGuideExplainsTestMode(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	r := e.Do(http.MethodGet, "/v1/guide", e.TestKey, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("guide: %d", r.Status)
	}
	g := string(r.Body)
	want := []string{"## Test mode", gateway.SandboxFaultHeader, "separate test balance", "Nowhere", "sandbox-not-found", "9999999999"}
	want = append(want, providers.SandboxFaultCodes()...)
	for _, w := range want {
		if !strings.Contains(g, w) {
			t.Errorf("the guide does not mention %q", w)
		}
	}
}

// volatile are record keys that carry the time of the call or the cache state, not the answer.
var volatile = []string{"record_id", "fetched_at", "cache_hit"}

func stableResults(r *gatewaytest.Response) string {
	res, _ := r.JSON["results"].([]any)
	for _, x := range res {
		if m, ok := x.(map[string]any); ok {
			for _, k := range volatile {
				delete(m, k)
			}
		}
	}
	b, _ := json.Marshal(res)
	return string(b)
}

// TestSandboxFaultOnFollowUps: the header works on follow-ups too (a record lookup, more), the
// failed follow-up is refunded, and the same follow-up without the header then answers.
func TestSandboxFaultOnFollowUps(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}})
	tn, _, key := e.NewTenant("pro")
	r := e.Do(http.MethodPost, "/v1/capabilities/books.search/execute", key, map[string]any{"query": "dune", "num": 2})
	wantOK(t, r)
	rec := r.JSON["results"].([]any)[0].(map[string]any)
	before := used(t, e, tn, "test")
	fault := map[string]string{gateway.SandboxFaultHeader: string(providers.FaultTimeout)}
	d := e.DoHeaders(http.MethodPost, "/v1/follow-up", key, map[string]any{"record_id": rec["record_id"], "action": "details"}, fault)
	wantError(t, d, http.StatusGatewayTimeout, "provider_timeout")
	m := e.DoHeaders(http.MethodPost, "/v1/follow-up", key, map[string]any{"search_id": r.JSON["search_id"], "action": "more"},
		map[string]string{gateway.SandboxFaultHeader: string(providers.FaultRateLimited)})
	wantError(t, m, http.StatusTooManyRequests, "rate_limited")
	if m.Header.Get("Retry-After") != "7" {
		t.Errorf("more: Retry-After %q", m.Header.Get("Retry-After"))
	}
	if u := used(t, e, tn, "test"); u != before {
		t.Fatalf("failed follow-ups moved the test balance from %d to %d", before, u)
	}
	wantOK(t, e.Do(http.MethodPost, "/v1/follow-up", key, map[string]any{"record_id": rec["record_id"], "action": "details"}))
	wantOK(t, e.Do(http.MethodPost, "/v1/follow-up", key, map[string]any{"search_id": r.JSON["search_id"], "action": "more"}))
}

package gateway_test

// Benchmarks of the gateway's own cost (DESIGN: "Go benchmarks and a load run of execute against a
// zero-latency fake upstream, local more, cached details, and the same fake upstream called
// directly"). The gateway is driven in process through App().Test; the upstream is a real
// loopback httptest server that answers at once. Each benchmark runs on every database backend
// (SQLite always, PostgreSQL when CAPGATE_TEST_POSTGRES_URL is set) and reports req/s, p50 and
// p99 besides ns/op. The end-to-end load run of the real binary is e2e/load (scripts/load.sh).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

const (
	benchProvider = "benchfake"
	benchPageSize = 10
	benchTotal    = 1_000_000 // search results the fake claims: more never runs out
	benchHeld     = 500       // records of a local-paging search
	benchLocalNum = 5         // local page size: benchHeld/benchLocalNum-1 mores per session
)

const benchRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 300},
    "num": {"type": "integer", "minimum": 1, "maximum": 25, "default": 10}
  }
}`

// benchUpstream answers at once: GET /search (one page of benchPageSize items, or every held
// item with all=1) and GET /items/{id}.
func benchUpstream() http.Handler {
	item := func(i int) map[string]any {
		return map[string]any{"id": "item-" + strconv.Itoa(i), "title": "Benchmark item " + strconv.Itoa(i),
			"url": "https://example.com/items/" + strconv.Itoa(i), "summary": "A record shaped like a search hit, with a short summary."}
	}
	page := make([]map[string]any, benchPageSize)
	for i := range page {
		page[i] = item(i)
	}
	held := make([]map[string]any, benchHeld)
	for i := range held {
		held[i] = item(i)
	}
	pageBody, _ := json.Marshal(map[string]any{"total": benchTotal, "results": page})
	heldBody, _ := json.Marshal(map[string]any{"total": benchHeld, "results": held})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("all") == "1" {
			_, _ = w.Write(heldBody)
			return
		}
		_, _ = w.Write(pageBody)
	})
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": r.PathValue("id"), "description": "The full record.", "pages": 320})
	})
	return mux
}

type benchHit struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	URL     string `json:"url"`
	Summary string `json:"summary"`
}

func benchRecords(hits []benchHit) []providers.Record {
	out := make([]providers.Record, 0, len(hits))
	for _, h := range hits {
		ref, _ := json.Marshal(map[string]string{"id": h.ID})
		out = append(out, providers.Record{Title: h.Title, URL: h.URL, Snippet: h.Summary, Ref: ref,
			Fields: map[string]any{"source": "benchfake"}})
	}
	return out
}

// benchCapabilities are a page-paged search with a provider-lookup details action and a
// local-paged search, both against the fake.
func benchCapabilities() []*providers.Capability {
	details := providers.Action{Name: "details", Description: "The item's full record.", Kind: providers.ActionLookup, Credits: 1,
		Run: func(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
			var ref struct{ ID string }
			if err := json.Unmarshal(rec.Ref, &ref); err != nil {
				return nil, err
			}
			var body map[string]any
			if err := call.Upstream(benchProvider).GetJSON(ctx, "/items/"+url.PathEscape(ref.ID), nil, &body); err != nil {
				return nil, err
			}
			return &providers.Detail{Body: body, Links: []providers.Link{{Label: "Item", URL: rec.URL}}}, nil
		}}
	search := &providers.Capability{
		ID: "bench.search", Title: "Benchmark search", Summary: "Page-paged search of the benchmark fake.",
		Description: "Benchmark capability.", Topic: "Research and reading", Request: benchRequestSchema,
		Paging: providers.PagingPage, Cost: providers.Cost{Typical: 1, Basis: "1 credit a page."}, Deadline: 15 * time.Second,
		Providers: []string{benchProvider}, Actions: []providers.Action{details},
		Execute: func(ctx context.Context, call *providers.Call) (*providers.Page, error) {
			page := 1
			if len(call.State) > 0 {
				if err := json.Unmarshal(call.State, &page); err != nil {
					return nil, err
				}
			}
			num, _ := call.Request.Int("num")
			var body struct {
				Total   int        `json:"total"`
				Results []benchHit `json:"results"`
			}
			q := url.Values{"q": {call.Request.Str("query")}, "page": {strconv.Itoa(page)}, "limit": {strconv.Itoa(num)}}
			if err := call.Upstream(benchProvider).GetJSON(ctx, "/search", q, &body); err != nil {
				return nil, err
			}
			out := &providers.Page{Records: benchRecords(body.Results), HasMore: page*num < body.Total}
			out.Next, _ = json.Marshal(page + 1)
			return out, nil
		},
	}
	local := &providers.Capability{
		ID: "bench.local", Title: "Benchmark local search", Summary: "Local-paged search of the benchmark fake.",
		Description: "Benchmark capability.", Topic: "Research and reading", Request: benchRequestSchema,
		Paging: providers.PagingLocal, Cost: providers.Cost{Typical: 1, Basis: "1 credit a search; more is free."}, Deadline: 15 * time.Second,
		Providers: []string{benchProvider}, Actions: []providers.Action{details},
		Execute: func(ctx context.Context, call *providers.Call) (*providers.Page, error) {
			var body struct {
				Results []benchHit `json:"results"`
			}
			q := url.Values{"q": {call.Request.Str("query")}, "all": {"1"}}
			if err := call.Upstream(benchProvider).GetJSON(ctx, "/search", q, &body); err != nil {
				return nil, err
			}
			return &providers.Page{Records: benchRecords(body.Results)}, nil
		},
	}
	return []*providers.Capability{search, local}
}

// benchEnv is a gateway on one backend with a tenant on a plan whose cap and rate never bind.
type benchEnv struct {
	*gatewaytest.Env
	key      string
	upstream string // the fake's base URL
}

func newBenchEnv(b *testing.B, db *tenants.DB) *benchEnv {
	b.Helper()
	e := gatewaytest.New(b, gatewaytest.Options{DB: db, Capabilities: benchCapabilities(),
		Providers: []*providers.Provider{{ID: benchProvider, Title: "Benchmark fake"}},
		Fakes:     map[string]http.Handler{benchProvider: benchUpstream()}})
	plan := &tenants.Plan{ID: "bench", CreditCap: 1e12, RatePerMinute: 10_000_000, CreditMultiplier: 1,
		Capabilities: "all", SharpenMax: "stock", ProjectLimit: 1, ItemLimit: 1}
	if err := e.Store.CreatePlan(context.Background(), plan); err != nil {
		b.Fatal(err)
	}
	_, live, _ := e.NewTenant("bench")
	return &benchEnv{Env: e, key: live, upstream: e.Client.Setting(benchProvider).URL}
}

// benchOp is the measured operation; prepare, when set, runs before each operation outside its
// latency (and stops the timer itself when it has work to do).
type benchOp struct {
	prepare func(b *testing.B)
	run     func(b *testing.B)
}

// forEachBackend builds one gateway per database backend, lets setup prepare it (once, checked
// against the contract) and runs the operation it returns as a sub-benchmark.
func forEachBackend(b *testing.B, setup func(b *testing.B, e *benchEnv) benchOp) {
	for _, backend := range tenantstest.Backends(b) {
		e := newBenchEnv(b, backend.Open(b))
		op := setup(b, e)
		b.Run(backend.Name, func(b *testing.B) { timed(b, op) })
	}
}

// post sends one request in process and fails the benchmark unless it answers 200.
func (e *benchEnv) post(b *testing.B, path string, body []byte) []byte {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+e.key)
	res, err := e.Server.App().Test(req, -1)
	if err != nil {
		b.Fatal(err)
	}
	out, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b.Fatalf("POST %s: %d %s", path, res.StatusCode, out)
	}
	return out
}

// checked sends a request through the contract-checking client (setup only, outside the timer).
func (e *benchEnv) checked(b *testing.B, path string, body any) *gatewaytest.Response {
	b.Helper()
	r := e.Do(http.MethodPost, path, e.key, body)
	if r.Status != http.StatusOK {
		b.Fatalf("POST %s: %d %s", path, r.Status, r.Body)
	}
	return r
}

// latencies records one duration per operation and reports req/s, p50 and p99.
type latencies []time.Duration

func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	var total time.Duration
	for _, d := range l {
		total += d
	}
	sorted := slices.Clone(l)
	slices.Sort(sorted)
	pct := func(p float64) float64 {
		i := int(float64(len(sorted))*p+0.5) - 1
		i = max(0, min(i, len(sorted)-1))
		return float64(sorted[i].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(l))/total.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// timed runs op b.N times, measuring each call.
func timed(b *testing.B, op benchOp) {
	b.ReportAllocs()
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if op.prepare != nil {
			op.prepare(b)
		}
		start := time.Now()
		op.run(b)
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	lat.report(b)
}

var executeBody = []byte(`{"query": "benchmark", "num": 10}`)

// BenchmarkExecute: one page-paged execute (auth, rate limit, validation, reservation, upstream
// call, session write, settlement, balance) against the zero-latency fake.
func BenchmarkExecute(b *testing.B) {
	forEachBackend(b, func(b *testing.B, e *benchEnv) benchOp {
		r := e.checked(b, "/v1/capabilities/bench.search/execute", json.RawMessage(executeBody))
		if n := len(r.JSON["results"].([]any)); n != benchPageSize || r.JSON["charged_credits"] != 1.0 {
			b.Fatalf("execute answered %d results, charged %v", n, r.JSON["charged_credits"])
		}
		return benchOp{run: func(b *testing.B) { e.post(b, "/v1/capabilities/bench.search/execute", executeBody) }}
	})
}

// BenchmarkLocalMore: more on a local-paged search, served from the held set without an upstream
// call. A session lasts benchHeld/benchLocalNum-1 mores; a new one is made outside the timer.
func BenchmarkLocalMore(b *testing.B) {
	forEachBackend(b, func(b *testing.B, e *benchEnv) benchOp {
		body := []byte(fmt.Sprintf(`{"query": "benchmark", "num": %d}`, benchLocalNum))
		newSession := func(b *testing.B) []byte {
			var r struct {
				SearchID string `json:"search_id"`
			}
			_ = json.Unmarshal(e.post(b, "/v1/capabilities/bench.local/execute", body), &r)
			return []byte(`{"search_id": "` + r.SearchID + `", "action": "more"}`)
		}
		first := e.checked(b, "/v1/capabilities/bench.local/execute", json.RawMessage(body))
		more := e.checked(b, "/v1/follow-up", map[string]any{"search_id": first.JSON["search_id"], "action": "more"})
		if more.JSON["charged_credits"] != 0.0 || more.JSON["has_more"] != true || len(more.JSON["results"].([]any)) != benchLocalNum {
			b.Fatalf("local more: %s", more.Body)
		}
		perSession := benchHeld/benchLocalNum - 1
		req, left := newSession(b), perSession
		return benchOp{
			prepare: func(b *testing.B) {
				if left == 0 {
					b.StopTimer()
					req, left = newSession(b), perSession
					b.StartTimer()
				}
			},
			run: func(b *testing.B) {
				e.post(b, "/v1/follow-up", req)
				left--
			},
		}
	})
}

// BenchmarkCachedDetails: a repeated details lookup served from the session's detail cache.
func BenchmarkCachedDetails(b *testing.B) {
	forEachBackend(b, func(b *testing.B, e *benchEnv) benchOp {
		r := e.checked(b, "/v1/capabilities/bench.search/execute", json.RawMessage(executeBody))
		recID := r.JSON["results"].([]any)[0].(map[string]any)["record_id"].(string)
		body := []byte(`{"record_id": "` + recID + `", "action": "details"}`)
		if d := e.checked(b, "/v1/follow-up", json.RawMessage(body)); d.JSON["cached"] != false || d.JSON["charged_credits"] != 1.0 {
			b.Fatalf("first details: %s", d.Body)
		}
		if d := e.checked(b, "/v1/follow-up", json.RawMessage(body)); d.JSON["cached"] != true || d.JSON["charged_credits"] != 0.0 {
			b.Fatalf("repeated details: %s", d.Body)
		}
		return benchOp{run: func(b *testing.B) { e.post(b, "/v1/follow-up", body) }}
	})
}

// BenchmarkDirectUpstream: the same fake called directly over loopback with a plain http.Client,
// the floor the gateway's numbers compare with.
func BenchmarkDirectUpstream(b *testing.B) {
	e := newBenchEnv(b, tenantstest.SQLite(b))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	b.Cleanup(client.CloseIdleConnections)
	target := e.upstream + "/search?" + url.Values{"q": {"benchmark"}, "page": {"1"}, "limit": {"10"}}.Encode()
	get := func(b *testing.B) {
		res, err := client.Get(target)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `"results"`) {
			b.Fatalf("direct: %d %s", res.StatusCode, body)
		}
	}
	get(b)
	b.Run("loopback", func(b *testing.B) { timed(b, benchOp{run: get}) })
}

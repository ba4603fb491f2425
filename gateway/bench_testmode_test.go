package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// BenchmarkTestModeExecute: a test-key execute of real capabilities whose sandbox generates the
// answer from the request (issue 36), in the shared bench's terms (req/s, p50, p99) beside
// BenchmarkExecute's live execute against the zero-latency fake: the gazetteer lookup, the
// generator and the real adapter all run in process, the rest of the pipeline is the same.
func BenchmarkTestModeExecute(b *testing.B) {
	in := func(d int) string { return time.Now().UTC().AddDate(0, 0, d).Format(time.DateOnly) }
	cases := []testModeCase{
		{"hotels.search", map[string]any{"destination": "Rome", "check_in": in(30), "check_out": in(33), "sort": "lowest_price", "max_price": 300}},
		{"weather.forecast", map[string]any{"location": "Reykjavik", "days": 7}},
		{"books.search", map[string]any{"query": "the lord of the rings", "author": "Tolkien", "num": 10}},
		{"flights.search", map[string]any{"origin": "JFK", "destination": "LHR", "departure_date": in(40)}},
	}
	benchTestModeExecute(b, cases)
}

// BenchmarkTestModeExecuteB: BenchmarkTestModeExecute's measure (req/s, p50, p99 of a test-key
// execute, in process) for the generators of this part of issue 36, beside BenchmarkExecute's
// live execute against the zero-latency fake.
func BenchmarkTestModeExecuteB(b *testing.B) {
	cases := []testModeCase{
		{"jspkg.search", map[string]any{"text": "state management keywords:react", "size": 10}},
		{"pypkg.search", map[string]any{"query": "csv parser", "num": 10}},
		{"legal.search", map[string]any{"search": map[string]any{"jurisdiction": "us", "query": "qualified immunity", "courts": "federal", "from_year": 1990}, "num": 5}},
		{"legal.read", map[string]any{"document": map[string]any{"source": "us_reports", "item_id": "usrep410113"}, "num": 3}},
		{"companies.financials", map[string]any{"company": map[string]any{"ticker": "MSFT"}, "forms": []any{"10-K"}}},
	}
	benchTestModeExecute(b, cases)
}

// BenchmarkTestModeExecuteTopics: a test-key execute of the topic searches whose sandbox
// generates the answer (issue 36), in the shared bench's terms beside BenchmarkTestModeExecute.
func BenchmarkTestModeExecuteTopics(b *testing.B) {
	cases := []testModeCase{
		{"web.search", map[string]any{"query": "site:example.org heat pump", "time_range": "month"}},
		{"patents.search", map[string]any{"query": "heat pump", "assignee": "Acme Robotics", "after": "filing:20180101", "sort": "new"}},
		{"trends.search", map[string]any{"queries": []any{"tea", "coffee"}, "geo": "GB"}},
		{"classics.search", map[string]any{"query": "winter", "author": "Leo Tolstoy"}},
		{"fitness.exercises", map[string]any{"muscle": "biceps", "equipment": "cable"}},
	}
	benchTestModeExecute(b, cases)
}

// testModeCase is one capability's execute body of a test-mode benchmark.
type testModeCase struct {
	id   string
	body map[string]any
}

// benchTestModeExecute times a test-key execute of each case on each backend, after checking
// that the case answers records.
func benchTestModeExecute(b *testing.B, cases []testModeCase) {
	for _, backend := range tenantstest.Backends(b) {
		e := gatewaytest.New(b, gatewaytest.Options{DB: backend.Open(b), Limiter: unlimited{}})
		plan := &tenants.Plan{ID: "bench", CreditCap: 1e12, RatePerMinute: 10_000_000, CreditMultiplier: 1,
			Capabilities: "all", SharpenMax: "stock", ProjectLimit: 1, ItemLimit: 1}
		if err := e.Store.CreatePlan(context.Background(), plan); err != nil {
			b.Fatal(err)
		}
		_, _, test := e.NewTenant("bench")
		env := &benchEnv{Env: e, key: test}
		for _, c := range cases {
			body, _ := json.Marshal(c.body)
			path := "/v1/capabilities/" + c.id + "/execute"
			if r := env.checked(b, path, json.RawMessage(body)); len(r.JSON["results"].([]any)) == 0 {
				b.Fatalf("%s: no results", c.id)
			}
			b.Run(fmt.Sprintf("%s/%s", backend.Name, c.id), func(b *testing.B) {
				timed(b, benchOp{run: func(b *testing.B) { env.post(b, path, body) }})
			})
		}
	}
}

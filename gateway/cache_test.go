package gateway_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/gateway/sharedcache"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

const cacheProvider = "cachefake"

// cacheUpstream is a fake upstream in a plain search API's shape (GET /search?q&page&limit, GET
// /items/{id}) that counts the calls it serves; gate, when set, holds every search until closed.
type cacheUpstream struct {
	searches atomic.Int64
	items    atomic.Int64
	gate     chan struct{}
}

func (u *cacheUpstream) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /search", func(w http.ResponseWriter, r *http.Request) {
		u.searches.Add(1)
		if u.gate != nil {
			<-u.gate
		}
		q, page := r.URL.Query().Get("q"), r.URL.Query().Get("page")
		n, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		var results []map[string]any
		for i := range n {
			id := fmt.Sprintf("%s-%s-%d", q, page, i)
			// Who asked shows through only when the adapter sends it (the personal capability).
			results = append(results, map[string]any{"id": id, "title": q + " " + page + "." + strconv.Itoa(i) + r.URL.Query().Get("who"),
				"url": "https://example.org/" + url.PathEscape(id)})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"total": 100, "results": results})
	})
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		u.items.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": r.PathValue("id"), "description": "The full record."})
	})
	return mux
}

func cacheCapabilities() []*providers.Capability {
	search := func(personal bool) func(ctx context.Context, call *providers.Call) (*providers.Page, error) {
		return func(ctx context.Context, call *providers.Call) (*providers.Page, error) {
			page := 1
			if len(call.State) > 0 {
				if err := json.Unmarshal(call.State, &page); err != nil {
					return nil, err
				}
			}
			num, _ := call.Request.Int("num")
			q := url.Values{"q": {call.Request.Str("query")}, "page": {strconv.Itoa(page)}, "limit": {strconv.Itoa(num)}}
			if personal {
				q.Set("who", " for "+call.Tenant)
			}
			var body struct {
				Results []struct{ ID, Title, URL string } `json:"results"`
			}
			if err := call.Upstream(cacheProvider).GetJSON(ctx, "/search", q, &body); err != nil {
				return nil, err
			}
			out := &providers.Page{HasMore: page < 5, Notes: []string{"fake upstream"}}
			out.Next, _ = json.Marshal(page + 1)
			for _, h := range body.Results {
				ref, _ := json.Marshal(map[string]string{"id": h.ID})
				out.Records = append(out.Records, providers.Record{Title: h.Title, URL: h.URL, Ref: ref,
					Fields: map[string]any{"source": "cachefake", "rank": len(out.Records)}})
			}
			return out, nil
		}
	}
	details := providers.Action{Name: "details", Description: "The item's full record.", Kind: providers.ActionLookup, Credits: 2,
		Run: func(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
			var ref struct{ ID string }
			if err := json.Unmarshal(rec.Ref, &ref); err != nil {
				return nil, err
			}
			var body map[string]any
			if err := call.Upstream(cacheProvider).GetJSON(ctx, "/items/"+url.PathEscape(ref.ID), nil, &body); err != nil {
				return nil, err
			}
			return &providers.Detail{Body: body}, nil
		}}
	base := func(id string, personal bool) *providers.Capability {
		return &providers.Capability{ID: id, Title: "Cache test search", Summary: "A page-paged search of the cache fake.",
			Description: "Cache test capability.", Topic: "Research and reading", Request: benchRequestSchema,
			Paging: providers.PagingPage, Cost: providers.Cost{Typical: 4, Basis: "4 credits a page."}, Deadline: 15 * time.Second,
			Providers: []string{cacheProvider}, Actions: []providers.Action{details}, Fresh: time.Hour, Personal: personal,
			Execute: search(personal)}
	}
	return []*providers.Capability{base("cachetest.search", false), base("cachetest.personal", true)}
}

// cacheEnv is a gateway with the shared cache in front of the counting fake, for live keys and
// (through the same handler as the provider's sandbox) test keys.
type cacheEnv struct {
	*gatewaytest.Env
	up    *cacheUpstream
	cache *sharedcache.Cache
}

type cacheEnvOptions struct {
	db    *tenants.DB
	redis redis.UniversalClient
	now   func() time.Time
	gate  chan struct{}
	log   *slog.Logger
}

func newCacheEnv(t *testing.T, o cacheEnvOptions) *cacheEnv {
	t.Helper()
	up := &cacheUpstream{gate: o.gate}
	cache, err := sharedcache.New(sharedcache.Options{MemoryMB: 4, Redis: o.redis, Now: o.now, Logger: o.log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cache.Close() })
	prov := &providers.Provider{ID: cacheProvider, Title: "Cache fake", Sandbox: up.handler(),
		Cache: providers.CacheRule{MaxAge: time.Hour, Rule: "test", Source: "test"}}
	e := gatewaytest.New(t, gatewaytest.Options{DB: o.db, Capabilities: cacheCapabilities(), Providers: []*providers.Provider{prov},
		Fakes: map[string]http.Handler{cacheProvider: up.handler()}, Keys: map[string]string{cacheProvider: "deployment-key"},
		UpstreamCache: cache})
	return &cacheEnv{Env: e, up: up, cache: cache}
}

func (e *cacheEnv) exec(t *testing.T, key, query string, header map[string]string) *gatewaytest.Response {
	t.Helper()
	r := e.DoHeaders(http.MethodPost, "/v1/capabilities/cachetest.search/execute", key, map[string]any{"query": query, "num": 3}, header)
	if r.Status != http.StatusOK {
		t.Fatalf("execute %q: %d %s", query, r.Status, r.Body)
	}
	return r
}

func cachedResults(t *testing.T, r *gatewaytest.Response) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, x := range r.JSON["results"].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

func hasNote(r *gatewaytest.Response, sub string) bool {
	notes, _ := r.JSON["notes"].([]any)
	for _, n := range notes {
		if strings.Contains(n.(string), sub) {
			return true
		}
	}
	return false
}

// A second tenant asking the same thing gets the first one's answer from the cache, in its own
// session: its own search_id and record ids, and more, update and a record action work on it as
// after a miss.
func TestSharedCacheHitOpensOwnSession(t *testing.T) {
	e := newCacheEnv(t, cacheEnvOptions{})
	_, otherLive, _ := e.NewTenant("pro")

	first := e.exec(t, e.LiveKey, "rust", nil)
	if got := first.Header.Get(gateway.CacheHeader); got != "miss" {
		t.Fatalf("first call: Capgate-Cache %q, want miss", got)
	}
	second := e.exec(t, otherLive, "rust", nil)
	if got := second.Header.Get(gateway.CacheHeader); got != "hit" || second.Header.Get("Age") == "" {
		t.Fatalf("second call: Capgate-Cache %q Age %q, want hit with an Age", got, second.Header.Get("Age"))
	}
	if n := e.up.searches.Load(); n != 1 {
		t.Fatalf("upstream searches = %d, want 1", n)
	}
	if !hasNote(second, "served from the shared cache") || hasNote(first, "served from the shared cache") {
		t.Errorf("only the hit carries the cache note: first %v, second %v", first.JSON["notes"], second.JSON["notes"])
	}
	if first.JSON["search_id"] == second.JSON["search_id"] {
		t.Fatal("a hit must open the caller's own search session")
	}
	a, b := cachedResults(t, first), cachedResults(t, second)
	if len(a) != 3 || len(b) != 3 {
		t.Fatalf("results: %d and %d, want 3", len(a), len(b))
	}
	for i := range a {
		if a[i]["record_id"] == b[i]["record_id"] {
			t.Errorf("record %d: the hit kept the first caller's record id %v", i, a[i]["record_id"])
		}
		ra, rb := a[i]["record_id"], b[i]["record_id"]
		delete(a[i], "record_id")
		delete(b[i], "record_id")
		if fmt.Sprint(a[i]) != fmt.Sprint(b[i]) {
			t.Errorf("record %d differs beyond its id: %v vs %v", i, a[i], b[i])
		}
		a[i]["record_id"], b[i]["record_id"] = ra, rb
	}
	sid := second.JSON["search_id"].(string)

	// more: the next provider page, through the cache too (a miss now, a hit for the first caller).
	more := e.DoHeaders(http.MethodPost, "/v1/follow-up", otherLive, map[string]any{"search_id": sid, "action": "more"}, nil)
	if more.Status != 200 || more.Header.Get(gateway.CacheHeader) != "miss" || more.JSON["search_id"] != sid {
		t.Fatalf("more after a hit: %d %q %s", more.Status, more.Header.Get(gateway.CacheHeader), more.Body)
	}
	firstMore := e.DoHeaders(http.MethodPost, "/v1/follow-up", e.LiveKey, map[string]any{"search_id": first.JSON["search_id"], "action": "more"}, nil)
	if firstMore.Header.Get(gateway.CacheHeader) != "hit" {
		t.Errorf("the same page for the other session: Capgate-Cache %q, want hit", firstMore.Header.Get(gateway.CacheHeader))
	}
	ids := map[any]bool{}
	for _, r := range append(cachedResults(t, second), cachedResults(t, more)...) {
		if ids[r["record_id"]] {
			t.Errorf("record id %v shown twice in one session", r["record_id"])
		}
		ids[r["record_id"]] = true
	}

	// A record action on a record that came from the cache reaches the upstream with its reference.
	rid := b[1]["record_id"].(string)
	det := e.DoHeaders(http.MethodPost, "/v1/follow-up", otherLive, map[string]any{"record_id": rid, "action": "details"}, nil)
	if det.Status != 200 || det.Header.Get(gateway.CacheHeader) != "bypass" {
		t.Fatalf("details on a cached record: %d %q %s", det.Status, det.Header.Get(gateway.CacheHeader), det.Body)
	}
	if d, _ := det.JSON["detail"].(map[string]any); d["id"] != "rust-1-1" {
		t.Errorf("details answered for %v, want the record's own reference rust-1-1", d["id"])
	}

	// update: a changed query under the same search_id.
	upd := e.DoHeaders(http.MethodPost, "/v1/follow-up", otherLive, map[string]any{"search_id": sid, "action": "update", "params": map[string]any{"query": "go"}}, nil)
	if upd.Status != 200 || upd.JSON["search_id"] != sid || upd.Header.Get(gateway.CacheHeader) != "miss" {
		t.Fatalf("update after a hit: %d %q %s", upd.Status, upd.Header.Get(gateway.CacheHeader), upd.Body)
	}
	if title := cachedResults(t, upd)[0]["title"]; title != "go 1.0" {
		t.Errorf("update answered %v, want the new query's first page", title)
	}
	// ... and an execute of that query by the first tenant is now a hit.
	if r := e.exec(t, e.LiveKey, "go", nil); r.Header.Get(gateway.CacheHeader) != "hit" {
		t.Errorf("execute of an updated query: Capgate-Cache %q, want hit", r.Header.Get(gateway.CacheHeader))
	}
}

// Answers are shared only where the answer does not depend on who asks: never across test and
// live, never under another provider key, never for a personal capability.
func TestSharedCacheIsolation(t *testing.T) {
	e := newCacheEnv(t, cacheEnvOptions{})
	_, otherLive, otherTest := e.NewTenant("pro")

	e.exec(t, e.LiveKey, "isolated", nil)
	if r := e.exec(t, otherTest, "isolated", nil); r.Header.Get(gateway.CacheHeader) != "miss" {
		t.Errorf("a test key after a live answer: Capgate-Cache %q, want miss (test and live never share)", r.Header.Get(gateway.CacheHeader))
	}
	if r := e.exec(t, e.TestKey, "isolated", nil); r.Header.Get(gateway.CacheHeader) != "hit" {
		t.Errorf("test keys share among themselves: got %q", r.Header.Get(gateway.CacheHeader))
	}

	// Another provider key (or host) for the same upstream: the earlier answer is not served.
	s := e.Client.Setting(cacheProvider)
	if err := e.Client.Configure(cacheProvider, providers.Setting{URL: s.URL, Key: "another-key"}); err != nil {
		t.Fatal(err)
	}
	if r := e.exec(t, otherLive, "isolated", nil); r.Header.Get(gateway.CacheHeader) != "miss" {
		t.Errorf("after a provider key change: Capgate-Cache %q, want miss", r.Header.Get(gateway.CacheHeader))
	}
	if err := e.Client.Configure(cacheProvider, s); err != nil {
		t.Fatal(err)
	}
	if r := e.exec(t, otherLive, "isolated", nil); r.Header.Get(gateway.CacheHeader) != "hit" {
		t.Errorf("back on the first key: Capgate-Cache %q, want hit", r.Header.Get(gateway.CacheHeader))
	}

	// A personal capability: each tenant gets its own answer, never the other's.
	before := e.up.searches.Load()
	var titles []string
	for _, key := range []string{e.LiveKey, otherLive, e.LiveKey} {
		r := e.DoHeaders(http.MethodPost, "/v1/capabilities/cachetest.personal/execute", key, map[string]any{"query": "mine", "num": 1}, nil)
		if r.Status != 200 || r.Header.Get(gateway.CacheHeader) != "bypass" {
			t.Fatalf("personal: %d %q %s", r.Status, r.Header.Get(gateway.CacheHeader), r.Body)
		}
		titles = append(titles, cachedResults(t, r)[0]["title"].(string))
	}
	if n := e.up.searches.Load() - before; n != 3 {
		t.Errorf("personal capability: %d upstream calls for 3 executes, want 3", n)
	}
	if titles[0] == titles[1] || !strings.Contains(titles[0], e.Tenant.ID) {
		t.Errorf("personal answers must be the caller's own: %q", titles)
	}
}

// Cache-Control: max-age=N bounds the age of a served answer, no-cache fetches fresh and refreshes
// the cache, no-store neither reads nor writes it; a malformed max-age is refused.
func TestSharedCacheControl(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	e := newCacheEnv(t, cacheEnvOptions{now: clock})
	status := func(r *gatewaytest.Response) string { return r.Header.Get(gateway.CacheHeader) }

	e.exec(t, e.LiveKey, "fresh", nil)
	advance(120 * time.Second)
	if r := e.exec(t, e.LiveKey, "fresh", nil); status(r) != "hit" || r.Header.Get("Age") != "120" {
		t.Fatalf("plain repeat: %q Age %q, want hit Age 120", status(r), r.Header.Get("Age"))
	}
	for _, tc := range []struct {
		header     string
		want       string
		wantCalls  int64
		wantAgeHdr string
	}{
		{"max-age=600", "hit", 0, "120"},
		{"max-age=60", "miss", 1, ""},         // too old: fetched again, and stored again
		{"max-age=60", "hit", 0, "0"},         // the refreshed copy
		{"no-cache", "miss", 1, ""},           // always fresh
		{"no-store", "bypass", 1, ""},         // neither read nor written
		{"max-age=0", "miss", 1, ""},          // nothing cached is fresh enough
		{"public, max-age=5", "hit", 0, "0"},  // other directives are ignored
		{"NO-CACHE , private", "miss", 1, ""}, // directives are case-insensitive
	} {
		t.Run(tc.header, func(t *testing.T) {
			before := e.up.searches.Load()
			r := e.exec(t, e.LiveKey, "fresh", map[string]string{"Cache-Control": tc.header})
			if status(r) != tc.want || e.up.searches.Load()-before != tc.wantCalls || r.Header.Get("Age") != tc.wantAgeHdr {
				t.Errorf("Capgate-Cache %q (want %q), upstream calls %d (want %d), Age %q (want %q)",
					status(r), tc.want, e.up.searches.Load()-before, tc.wantCalls, r.Header.Get("Age"), tc.wantAgeHdr)
			}
		})
	}
	// no-store on a fresh query leaves nothing behind.
	e.exec(t, e.LiveKey, "unstored", map[string]string{"Cache-Control": "no-store"})
	if r := e.exec(t, e.LiveKey, "unstored", nil); status(r) != "miss" {
		t.Errorf("after no-store: %q, want miss", status(r))
	}
	// no-cache refreshed the stored copy: its age starts again.
	advance(30 * time.Second)
	e.exec(t, e.LiveKey, "fresh", map[string]string{"Cache-Control": "no-cache"})
	if r := e.exec(t, e.LiveKey, "fresh", nil); r.Header.Get("Age") != "0" {
		t.Errorf("after no-cache the stored copy is the new one: Age %q, want 0", r.Header.Get("Age"))
	}
	// An answer past the capability's freshness is not served.
	advance(2 * time.Hour)
	if r := e.exec(t, e.LiveKey, "fresh", nil); status(r) != "miss" {
		t.Errorf("after the freshness window: %q, want miss", status(r))
	}
	r := e.DoHeaders(http.MethodPost, "/v1/capabilities/cachetest.search/execute", e.LiveKey, map[string]any{"query": "x"}, map[string]string{"Cache-Control": "max-age=soon"})
	if r.Status != 400 || r.ErrorCode() != "invalid_request" || r.Header.Get(gateway.CacheHeader) != "" {
		t.Errorf("malformed max-age: %d %s %q", r.Status, r.Body, r.Header.Get(gateway.CacheHeader))
	}
}

// Concurrent identical misses make one upstream call; every caller gets the answer, each in its
// own session.
func TestSharedCacheCoalescesMisses(t *testing.T) {
	gate := make(chan struct{})
	e := newCacheEnv(t, cacheEnvOptions{gate: gate})
	const n = 12
	var wg sync.WaitGroup
	statuses := make([]string, n)
	sids := make([]string, n)
	bodies := make([][]byte, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.exec(t, e.LiveKey, "together", nil)
			statuses[i], sids[i], bodies[i] = r.Header.Get(gateway.CacheHeader), r.JSON["search_id"].(string), r.Body
		}()
	}
	// Wait for the event: every caller waiting on the one upstream call.
	for deadline := time.Now().Add(30 * time.Second); e.cache.Waiting() < n && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	close(gate)
	wg.Wait()
	if got := e.up.searches.Load(); got != 1 {
		t.Fatalf("%d concurrent identical misses made %d upstream calls, want 1", n, got)
	}
	count := map[string]int{}
	seen := map[string]bool{}
	for i := range n {
		count[statuses[i]]++
		if seen[sids[i]] {
			t.Errorf("search_id %s answered twice", sids[i])
		}
		seen[sids[i]] = true
	}
	// Each answer's records carry its own session's ids (a shared buffer written by every caller
	// would show another caller's ids).
	for i := range n {
		var resp struct {
			SearchID string `json:"search_id"`
			Results  []struct {
				RecordID string `json:"record_id"`
			} `json:"results"`
		}
		if err := json.Unmarshal(bodies[i], &resp); err != nil || len(resp.Results) != 3 {
			t.Fatalf("answer %d: %v %s", i, err, bodies[i])
		}
		for _, r := range resp.Results {
			if r.RecordID[4:16] != resp.SearchID[5:17] {
				t.Errorf("answer %d: record %s is not of its session %s", i, r.RecordID, resp.SearchID)
			}
		}
	}
	if count["miss"] != 1 || count["coalesced"] != n-1 {
		t.Errorf("Capgate-Cache values %v, want one miss and %d coalesced", count, n-1)
	}
}

// The ledger marks answers the cache gave and what they saved; a plan sets what a hit costs
// (free by default); usage sums hits, calls saved and credits saved per capability.
func TestSharedCacheLedgerAndUsage(t *testing.T) {
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			e := newCacheEnv(t, cacheEnvOptions{db: b.Open(t)})
			ctx := context.Background()
			half := &tenants.Plan{ID: "halfhit", CreditCap: 1000, RatePerMinute: 600, CreditMultiplier: 1, Capabilities: "all",
				SharpenMax: "stock", ProjectLimit: 1, ItemLimit: 1, CacheHitPercent: 50}
			if err := e.Store.CreatePlan(ctx, half); err != nil {
				t.Fatal(err)
			}
			if err := (&tenants.Plan{ID: "bad", CreditCap: 1, RatePerMinute: 1, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stock", CacheHitPercent: 101}).Validate(); err == nil {
				t.Error("a hit share over 100 % must be refused")
			}
			halfTenant, halfKey, _ := e.NewTenant("halfhit")

			miss := e.exec(t, e.LiveKey, "ledger", nil)
			hit := e.exec(t, halfKey, "ledger", nil)
			freeHit := e.exec(t, e.LiveKey, "ledger", nil)
			for _, c := range []struct {
				r      *gatewaytest.Response
				status string
				want   float64
			}{{miss, "miss", 4}, {hit, "hit", 2}, {freeHit, "hit", 0}} {
				if c.r.Header.Get(gateway.CacheHeader) != c.status || c.r.JSON["charged_credits"] != c.want {
					t.Errorf("%s: Capgate-Cache %q charged %v, want %s charged %v", c.status, c.r.Header.Get(gateway.CacheHeader), c.r.JSON["charged_credits"], c.status, c.want)
				}
			}
			rows, err := e.Store.Usage(ctx, tenants.UsageFilter{TenantID: e.Tenant.ID, Mode: "live"})
			if err != nil {
				t.Fatal(err)
			}
			marks := map[string]int64{}
			for _, r := range rows {
				marks[r.Cache] += r.CreditsSaved
				if r.Cache == "hit" && (r.Credits != 0 || r.CreditsSaved != 4) {
					t.Errorf("free hit ledger row: credits %d saved %d, want 0 and 4", r.Credits, r.CreditsSaved)
				}
			}
			if len(rows) != 2 || marks["hit"] != 4 || marks[""] != 0 {
				t.Errorf("ledger rows %+v", rows)
			}
			halfRows, _ := e.Store.Usage(ctx, tenants.UsageFilter{TenantID: halfTenant.ID, Mode: "live"})
			if len(halfRows) != 1 || halfRows[0].Cache != "hit" || halfRows[0].Credits != 2 || halfRows[0].CreditsSaved != 2 {
				t.Errorf("half-price hit ledger row: %+v", halfRows)
			}
			usage, err := e.Store.CacheUsageSince(ctx, e.Tenant.ID, "live", time.Now().Add(-time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if len(usage) != 1 || usage[0].Capability != "cachetest.search" || usage[0].Calls != 2 || usage[0].Hits != 1 ||
				usage[0].CallsSaved() != 1 || usage[0].CreditsSaved != 4 {
				t.Errorf("cache usage: %+v", usage)
			}
		})
	}
}

// testRedis is a client of the test harness's Redis (the test is skipped without one).
func testRedis(t *testing.T) *redis.Client {
	t.Helper()
	u := tenantstest.RedisURL(t)
	if u == "" {
		t.Skip("CAPGATE_TEST_REDIS_URL not set")
	}
	ropts, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(ropts)
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// Two gateways on one Redis: what one fetched is a hit on the other; a corrupt or foreign entry
// in Redis is a miss, never an error.
func TestSharedCacheRedisTier(t *testing.T) {
	rdb := testRedis(t)
	db := tenantstest.SQLite(t)
	a := newCacheEnv(t, cacheEnvOptions{db: db, redis: rdb})
	b := newCacheEnv(t, cacheEnvOptions{db: db, redis: rdb})
	// b's fake is another server: point b's provider at a's so both have one upstream (and one
	// settings fingerprint), as two instances of one deployment do.
	if err := b.Client.Configure(cacheProvider, a.Client.Setting(cacheProvider)); err != nil {
		t.Fatal(err)
	}
	query := "fleet-" + tenants.RandomString(6)
	a.exec(t, a.LiveKey, query, nil)
	r := b.exec(t, b.LiveKey, query, nil)
	if r.Header.Get(gateway.CacheHeader) != "hit" || a.up.searches.Load() != 1 {
		t.Fatalf("instance B after instance A: %q, upstream calls %d; want a hit and 1 call", r.Header.Get(gateway.CacheHeader), a.up.searches.Load())
	}

	// Corrupt every entry of this test's queries in Redis, then ask a third instance (empty memory).
	corrupt := "corrupt-" + tenants.RandomString(6)
	a.exec(t, a.LiveKey, corrupt, nil)
	keys, err := rdb.Keys(context.Background(), "capgate:upcache:*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("no entries in Redis: %v", err)
	}
	for _, k := range keys {
		raw, _ := rdb.Get(context.Background(), k).Bytes()
		if len(raw) > 60 {
			raw[len(raw)-1] ^= 0xff // damage the payload (the CRC no longer matches)
			rdb.Set(context.Background(), k, raw, time.Hour)
		}
	}
	c := newCacheEnv(t, cacheEnvOptions{db: db, redis: rdb})
	if err := c.Client.Configure(cacheProvider, a.Client.Setting(cacheProvider)); err != nil {
		t.Fatal(err)
	}
	before := a.up.searches.Load()
	r = c.exec(t, c.LiveKey, corrupt, nil)
	if r.Header.Get(gateway.CacheHeader) != "miss" || a.up.searches.Load() != before+1 {
		t.Errorf("a corrupt Redis entry: %q, upstream +%d; want a miss and a fresh call", r.Header.Get(gateway.CacheHeader), a.up.searches.Load()-before)
	}
	// A foreign entry (another key's value under this key's name) is a miss too.
	foreign := "foreign-" + tenants.RandomString(6)
	a.exec(t, a.LiveKey, foreign, nil)
	keys, _ = rdb.Keys(context.Background(), "capgate:upcache:*").Result()
	var donor []byte
	for _, k := range keys {
		if v, err := rdb.Get(context.Background(), k).Bytes(); err == nil && donor == nil {
			donor = v
		}
	}
	for _, k := range keys {
		rdb.Set(context.Background(), k, donor, time.Hour)
	}
	d := newCacheEnv(t, cacheEnvOptions{db: db, redis: rdb})
	if err := d.Client.Configure(cacheProvider, a.Client.Setting(cacheProvider)); err != nil {
		t.Fatal(err)
	}
	hits := 0
	for _, q := range []string{query, corrupt, foreign} {
		if d.exec(t, d.LiveKey, q, nil).Header.Get(gateway.CacheHeader) == "hit" {
			hits++
		}
	}
	if hits > 1 {
		t.Errorf("%d of 3 queries were served another key's entry; at most the donor's own may hit", hits)
	}
}

// A Redis that does not answer: every call is served (the in-process tier answers alone) and the
// outage is logged once.
func TestSharedCacheRedisDown(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 50 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	var logs bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e := newCacheEnv(t, cacheEnvOptions{redis: rdb, log: log})
	want := []string{"miss", "hit", "hit", "hit"}
	for i, w := range want {
		r := e.exec(t, e.LiveKey, "no-redis", nil)
		if got := r.Header.Get(gateway.CacheHeader); got != w {
			t.Errorf("call %d: Capgate-Cache %q, want %q", i, got, w)
		}
	}
	e.exec(t, e.LiveKey, "no-redis-2", nil)
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logs.String(), "Redis is unavailable"); n != 1 {
		t.Errorf("the outage was logged %d times, want once:\n%s", n, logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// MCP tool results carry what the cache did in _meta, as the HTTP headers say it.
func TestSharedCacheMCPMeta(t *testing.T) {
	e := newCacheEnv(t, cacheEnvOptions{})
	cs, err := mcpSession(t, e.Env, e.LiveKey)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"miss", "hit"}
	for i, w := range want {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: gateway.ToolName("cachetest.search"), Arguments: map[string]any{"query": "agents", "num": 2}})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %v", i, err, res)
		}
		if res.Meta["cache"] != w {
			t.Errorf("call %d: _meta.cache %v, want %s", i, res.Meta["cache"], w)
		}
		if _, ok := res.Meta["age"]; ok != (w == "hit") {
			t.Errorf("call %d: _meta.age present %v, want %v", i, ok, w == "hit")
		}
	}
}

// During a rolling deploy an instance may wait on another's fetch whose answer is in a form it
// does not read (another snapshot version): it fetches the page itself and answers a miss,
// never an error.
func TestSharedCacheCoalescedForeignVersion(t *testing.T) {
	rdb := testRedis(t)
	db := tenantstest.SQLite(t)
	gate := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	a := newCacheEnv(t, cacheEnvOptions{db: db, redis: rdb, gate: gate})
	b := newCacheEnv(t, cacheEnvOptions{db: db, redis: rdb})
	if err := b.Client.Configure(cacheProvider, a.Client.Setting(cacheProvider)); err != nil {
		t.Fatal(err)
	}
	query := "version-" + tenants.RandomString(6)
	var wg sync.WaitGroup
	var ra, rb *gatewaytest.Response
	wg.Add(2)
	go func() {
		defer wg.Done()
		ra = a.DoHeaders(http.MethodPost, "/v1/capabilities/cachetest.search/execute", a.LiveKey, map[string]any{"query": query, "num": 3}, nil)
	}()
	wait := func(what string, done func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !done(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				release()
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	wait("A's upstream call", func() bool { return a.up.searches.Load() == 1 })
	go func() {
		defer wg.Done()
		rb = b.DoHeaders(http.MethodPost, "/v1/capabilities/cachetest.search/execute", b.LiveKey, map[string]any{"query": query, "num": 3}, nil)
	}()
	wait("B waiting on A's fetch", func() bool { return b.cache.FleetWaiting() == 1 })
	// An answer of another version under the key A is fetching (its fleet lock names the key).
	locks, err := rdb.Keys(context.Background(), "capgate:upcache:lock:*").Result()
	if err != nil || len(locks) == 0 {
		release()
		t.Fatalf("no fleet lock in Redis: %v", err)
	}
	for _, l := range locks {
		raw, err := hex.DecodeString(strings.TrimPrefix(l, "capgate:upcache:lock:"))
		if err != nil || len(raw) != len(sharedcache.Key{}) {
			continue
		}
		var k sharedcache.Key
		copy(k[:], raw)
		b.cache.Put(context.Background(), k, []byte{99, 1, 2, 3}, time.Hour)
	}
	// B takes it, cannot read it and calls the upstream itself (held by the gate too).
	wait("B's own upstream call", func() bool { return a.up.searches.Load() == 2 })
	release()
	wg.Wait()
	if ra.Status != http.StatusOK || rb.Status != http.StatusOK {
		t.Fatalf("answers %d %s / %d %s, want 200s", ra.Status, ra.Body, rb.Status, rb.Body)
	}
	if got := rb.Header.Get(gateway.CacheHeader); got != "miss" {
		t.Errorf("B's Capgate-Cache %q, want miss (it fetched the page itself)", got)
	}
	if n := len(cachedResults(t, rb)); n != 3 {
		t.Errorf("B answered %d results, want 3", n)
	}
}

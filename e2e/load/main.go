// Command load is the load run of `make bench` (scripts/load.sh): it starts the real gateway
// binary on a free loopback port with a temporary SQLite data dir, points every upstream provider
// at an in-process zero-latency fake (Open Library and Deezer answer recorded bodies; nothing
// leaves 127.0.0.1), creates a tenant on a plan whose cap and rate never bind, then drives each
// scenario with concurrent workers for a bounded time and prints a Markdown table of requests,
// req/s, p50 and p99, with the ratio of the gateway to the fake called directly.
//
//	go build -o /tmp/gateway ./cmd/gateway && go run ./e2e/load -gateway /tmp/gateway
//
// Everything it starts (the gateway process, the fake, the temp dir) is stopped and removed
// before it exits, also on Ctrl-C.
package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/capgate/capgate/providers/registry"
)

//go:embed testdata/*.json
var fixtures embed.FS

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "load: "+err.Error())
		os.Exit(1)
	}
}

type config struct {
	gateway  string
	workers  int
	duration time.Duration
	warmup   time.Duration
	logLevel string
}

func run(ctx context.Context, args []string, out io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.StringVar(&cfg.gateway, "gateway", "", "path of the built gateway binary (required)")
	fs.IntVar(&cfg.workers, "workers", 16, "concurrent workers per scenario")
	fs.DurationVar(&cfg.duration, "duration", 5*time.Second, "measured time per scenario")
	fs.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "unmeasured warm-up per scenario")
	fs.StringVar(&cfg.logLevel, "log-level", "info", "the gateway's LOG_LEVEL (its log goes to a temp file)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case cfg.gateway == "":
		return errors.New("-gateway is required (scripts/load.sh builds it)")
	case cfg.workers < 1 || cfg.workers > 256:
		return errors.New("-workers must be 1..256")
	case cfg.duration <= 0 || cfg.duration > 5*time.Minute:
		return errors.New("-duration must be positive and at most 5m")
	case cfg.warmup < 0 || cfg.warmup > time.Minute:
		return errors.New("-warmup must be 0..1m")
	}

	tmp, err := os.MkdirTemp("", "capgate-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	fake := httptest.NewServer(fakeUpstream())
	defer fake.Close()

	gw, err := startGateway(ctx, cfg, tmp, fake.URL)
	if err != nil {
		return err
	}
	defer gw.stop()

	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * cfg.workers, MaxIdleConnsPerHost: 2 * cfg.workers,
		DisableCompression: true, Proxy: nil}, Timeout: 60 * time.Second}
	defer client.CloseIdleConnections()
	d := &driver{cfg: cfg, client: client, base: gw.base, key: gw.key}

	var results []result
	var notes []string
	for _, sc := range scenarios(fake.URL) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(os.Stderr, "load: %s …\n", sc.name)
		req, note, err := sc.setup(ctx, d)
		if err != nil {
			return fmt.Errorf("%s: %w (gateway log: %s)", sc.name, err, gw.logTail())
		}
		if note != "" {
			notes = append(notes, sc.name+": "+note)
		}
		if req == nil {
			continue
		}
		r := d.measure(ctx, sc, req)
		results = append(results, r)
		if r.errors > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d of %d answers were not 200 (first: %s)", sc.name, r.errors, r.requests, r.firstError))
		}
	}
	report(out, cfg, results, notes)
	return nil
}

// --- the fake upstream ----------------------------------------------------------------------

func fixture(name string) []byte {
	b, err := fixtures.ReadFile("testdata/" + name)
	if err != nil {
		panic(err)
	}
	return b
}

// mealsHeld is how many meals the fake's TheMealDB search answers: a local-paging session with
// num 1 then holds mealsHeld-1 pages for more.
const mealsHeld = 25

// fakeUpstream answers Open Library's search, work and editions paths, Deezer's track search and
// TheMealDB's name search with recorded bodies at once; any other path (any other provider) is
// a 404.
func fakeUpstream() http.Handler {
	search, work, editions := fixture("openlibrary_search.json"), fixture("openlibrary_work.json"), fixture("openlibrary_editions.json")
	deezer := fixture("deezer_search_track.json")
	meals := manyMeals(fixture("mealdb_search.json"), mealsHeld)
	answer := func(body []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case r.Method != http.MethodGet:
		case p == "/search.json":
			answer(search)(w, r)
			return
		case strings.HasPrefix(p, "/works/") && strings.HasSuffix(p, "/editions.json"):
			answer(editions)(w, r)
			return
		case strings.HasPrefix(p, "/works/") && strings.HasSuffix(p, ".json"):
			answer(work)(w, r)
			return
		case p == "/search":
			answer(deezer)(w, r)
			return
		case strings.HasSuffix(p, "/search.php"):
			answer(meals)(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"not served by the load fake"}`))
	})
}

// manyMeals repeats the recorded meals of a TheMealDB search answer, each copy with its own id,
// until the answer holds n meals (a common search such as "chicken" answers about that many).
func manyMeals(recorded []byte, n int) []byte {
	var body struct {
		Meals []map[string]any `json:"meals"`
	}
	if err := json.Unmarshal(recorded, &body); err != nil || len(body.Meals) == 0 {
		panic("mealdb_search.json: no meals")
	}
	out := make([]map[string]any, 0, n)
	for i := 0; i < n; i++ {
		m := maps.Clone(body.Meals[i%len(body.Meals)])
		m["idMeal"] = strconv.Itoa(60000 + i)
		out = append(out, m)
	}
	b, _ := json.Marshal(map[string]any{"meals": out})
	return b
}

// --- the gateway process --------------------------------------------------------------------

type gateway struct {
	cmd     *exec.Cmd
	done    chan error
	base    string
	key     string
	logPath string
}

// startGateway creates the plan, tenant and key with the binary's admin commands, then serves.
func startGateway(ctx context.Context, cfg config, tmp, fakeURL string) (*gateway, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(),
		"GATEWAY_ADDR="+addr,
		"GATEWAY_DATA_DIR="+filepath.Join(tmp, "data"),
		"DATABASE_URL=", "DATABASE_URL_FILE=", "REDIS_URL=", "REDIS_URL_FILE=",
		"LOG_LEVEL="+cfg.logLevel,
		"GATEWAY_CONTACT=load@capgate.local",
		// TheMealDB's public test key, set explicitly as a development deployment does.
		"PROVIDER_MEALDB_KEY=1",
	)
	// Every provider goes to the fake: a scenario can never reach the internet.
	for _, id := range registry.ProviderIDs() {
		env = append(env, "PROVIDER_"+strings.ToUpper(id)+"_URL="+fakeURL)
	}
	admin := func(args ...string) (map[string]any, error) {
		var stdout, stderr bytes.Buffer
		c := exec.CommandContext(ctx, cfg.gateway, append([]string{"admin"}, args...)...)
		c.Env, c.Stdout, c.Stderr = env, &stdout, &stderr
		if err := c.Run(); err != nil {
			return nil, fmt.Errorf("gateway admin %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		var m map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("gateway admin %s printed %q: %v", strings.Join(args, " "), stdout.String(), err)
		}
		return m, nil
	}
	if _, err := admin("plan", "create", "--name", "load", "--cap", "1000000000000", "--rate", "10000000", "--capabilities", "all"); err != nil {
		return nil, err
	}
	t, err := admin("tenant", "create", "--name", "Load run", "--plan", "load")
	if err != nil {
		return nil, err
	}
	tenantID, _ := t["id"].(string)
	k, err := admin("key", "create", "--tenant", tenantID, "--label", "load")
	if err != nil {
		return nil, err
	}
	key, _ := k["key"].(string)
	if tenantID == "" || key == "" {
		return nil, fmt.Errorf("admin commands returned tenant %v and key %v", t, k)
	}

	logPath := filepath.Join(tmp, "gateway.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(cfg.gateway, "serve")
	cmd.Env, cmd.Stdout, cmd.Stderr = env, logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	gw := &gateway{cmd: cmd, done: make(chan error, 1), base: "http://" + addr, key: key, logPath: logPath}
	go func() { gw.done <- cmd.Wait(); logFile.Close() }()
	if err := gw.waitReady(ctx, 30*time.Second); err != nil {
		gw.stop()
		return nil, fmt.Errorf("%w (gateway log: %s)", err, gw.logTail())
	}
	return gw, nil
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func (g *gateway) waitReady(ctx context.Context, within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		select {
		case err := <-g.done:
			g.done <- err
			return fmt.Errorf("the gateway exited before it was ready: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		res, err := http.Get(g.base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("the gateway was not ready within %s", within)
}

// stop asks the gateway to shut down and kills it if it has not within 10 s.
func (g *gateway) stop() {
	select {
	case err := <-g.done:
		g.done <- err
		return
	default:
	}
	_ = g.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-g.done:
		g.done <- err
	case <-time.After(10 * time.Second):
		_ = g.cmd.Process.Kill()
		g.done <- <-g.done
	}
}

// logTail is the end of the gateway's log, for error messages.
func (g *gateway) logTail() string {
	b, _ := os.ReadFile(g.logPath)
	s := strings.TrimSpace(string(b))
	if len(s) > 1500 {
		s = "…" + s[len(s)-1500:]
	}
	return s
}

// --- scenarios ------------------------------------------------------------------------------

// request makes the i-th request of a scenario (fresh each time: bodies are read once).
type request func(i int) *http.Request

type scenario struct {
	name string
	// gateway is false for the direct baseline.
	gateway bool
	// bounded marks a gateway scenario limited by a provider's configured request rate: its
	// ratio to the direct baseline measures that bound, so none is printed.
	bounded bool
	// setup prepares the scenario and returns its request, or nil and a note when it is skipped.
	setup func(ctx context.Context, d *driver) (request, string, error)
}

type driver struct {
	cfg    config
	client *http.Client
	base   string
	key    string
}

func (d *driver) post(path string, body []byte) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, d.base+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+d.key)
	return req
}

// call sends one request and decodes a 200 JSON answer.
func (d *driver) call(ctx context.Context, req *http.Request, out any) error {
	res, err := d.client.Do(req.WithContext(ctx))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, b)
	}
	return json.Unmarshal(b, out)
}

type executeAnswer struct {
	SearchID string `json:"search_id"`
	HasMore  bool   `json:"has_more"`
	Results  []struct {
		RecordID string `json:"record_id"`
	} `json:"results"`
	RecordActions []string `json:"record_actions"`
}

func (d *driver) execute(ctx context.Context, capability string, body []byte) (*executeAnswer, error) {
	var a executeAnswer
	if err := d.call(ctx, d.post("/v1/capabilities/"+capability+"/execute", body), &a); err != nil {
		return nil, err
	}
	return &a, nil
}

var (
	booksBody  = []byte(`{"query": "dune", "num": 10}`)
	musicBody  = []byte(`{"query": "dave brubeck", "num": 10}`)
	recipeBody = []byte(`{"query": "chicken", "num": 1}`)
)

func scenarios(fakeURL string) []scenario {
	return []scenario{
		{name: "execute books.search", gateway: true, bounded: true, setup: func(ctx context.Context, d *driver) (request, string, error) {
			if _, err := d.execute(ctx, "books.search", booksBody); err != nil {
				return nil, "", err
			}
			return func(int) *http.Request { return d.post("/v1/capabilities/books.search/execute", booksBody) },
				"Open Library's provider config bounds calls to 3 a second per process (RequestsPerSecond), so this row measures that bound, not the gateway", nil
		}},
		{name: "execute music.search", gateway: true, setup: func(ctx context.Context, d *driver) (request, string, error) {
			if _, err := d.execute(ctx, "music.search", musicBody); err != nil {
				return nil, "", err
			}
			return func(int) *http.Request { return d.post("/v1/capabilities/music.search/execute", musicBody) },
				"Deezer has no per-process bound: this is the gateway's execute path (page paging) at full speed", nil
		}},
		{name: "local more recipes.search", gateway: true, setup: setupLocalMore},
		{name: "cached details books.search", gateway: true, setup: setupCachedDetails},
		{name: "direct fake (Open Library search)", setup: func(ctx context.Context, d *driver) (request, string, error) {
			target := fakeURL + "/search.json?" + url.Values{"q": {"dune"}, "page": {"1"}, "limit": {"10"},
				"fields": {"key,title,author_name,first_publish_year,edition_count,ratings_average,subject,isbn,cover_i"}}.Encode()
			return func(int) *http.Request {
				req, _ := http.NewRequest(http.MethodGet, target, nil)
				req.Header.Set("Accept", "application/json")
				return req
			}, "", nil
		}},
	}
}

// setupLocalMore needs a local-paging capability with a faked upstream: recipes.search when the
// gateway registers it and the fake can answer it; otherwise the row is skipped with a note.
func setupLocalMore(ctx context.Context, d *driver) (request, string, error) {
	type entry struct {
		ID        string `json:"id"`
		Available bool   `json:"available"`
	}
	var cat struct {
		Capabilities []entry `json:"capabilities"`
	}
	req, _ := http.NewRequest(http.MethodGet, d.base+"/v1/catalog", nil)
	req.Header.Set("Authorization", "Bearer "+d.key)
	if err := d.call(ctx, req, &cat); err != nil {
		return nil, "", err
	}
	if !slices.ContainsFunc(cat.Capabilities, func(c entry) bool { return c.ID == "recipes.search" && c.Available }) {
		return nil, "skipped: recipes.search is not registered in this gateway (the Go benchmark BenchmarkLocalMore measures local more)", nil
	}
	// num 1 makes each session hold the most pages; a worker starts a new session when one runs out.
	first, err := d.execute(ctx, "recipes.search", recipeBody)
	if err != nil {
		return nil, "", err
	}
	if !first.HasMore {
		return nil, "", errors.New("recipes.search answered a single page from the fake: nothing to page locally")
	}
	sessions := newSessionPool(ctx, d)
	return func(i int) *http.Request {
			id := sessions.next(i % d.cfg.workers)
			return d.post("/v1/follow-up", []byte(`{"search_id": "`+id+`", "action": "more"}`))
		}, fmt.Sprintf("TheMealDB's recorded search answer repeated to %d meals with distinct ids, num 1; each worker pages its own session "+
			"and starts a new one (an unmeasured execute) every %d mores", mealsHeld, moresPerSession), nil
}

// moresPerSession stays below the mealsHeld-1 pages a session holds, so every more has a page.
const moresPerSession = mealsHeld - 2

// sessionPool gives each worker its own recipes.search session (concurrent mores on one session
// would conflict) and replaces it after moresPerSession mores, before has_more turns false. The
// replacement execute runs while the request is built, outside the measured latency.
type sessionPool struct {
	ctx context.Context
	d   *driver
	mu  sync.Mutex
	ids map[int]string
	n   map[int]int
}

func newSessionPool(ctx context.Context, d *driver) *sessionPool {
	return &sessionPool{ctx: ctx, d: d, ids: map[int]string{}, n: map[int]int{}}
}

func (p *sessionPool) next(worker int) string {
	p.mu.Lock()
	id, used := p.ids[worker], p.n[worker]
	p.mu.Unlock()
	if id == "" || used >= moresPerSession {
		if a, err := p.d.execute(p.ctx, "recipes.search", recipeBody); err == nil {
			id, used = a.SearchID, 0
		}
	}
	p.mu.Lock()
	p.ids[worker], p.n[worker] = id, used+1
	p.mu.Unlock()
	return id
}

// setupCachedDetails runs one search and the first (billed, fetched) details of a few records;
// the scenario then repeats details on them, served from the session's cache.
func setupCachedDetails(ctx context.Context, d *driver) (request, string, error) {
	a, err := d.execute(ctx, "books.search", booksBody)
	if err != nil {
		return nil, "", err
	}
	var warm []string
	for _, r := range a.Results {
		if len(warm) == 3 {
			break
		}
		var det struct {
			Cached *bool `json:"cached"`
		}
		body := []byte(`{"record_id": "` + r.RecordID + `", "action": "details"}`)
		if err := d.call(ctx, d.post("/v1/follow-up", body), &det); err != nil {
			continue // a record without a work id has no details
		}
		warm = append(warm, r.RecordID)
	}
	if len(warm) == 0 {
		return nil, "", errors.New("no record of the search answered details")
	}
	return func(i int) *http.Request {
		return d.post("/v1/follow-up", []byte(`{"record_id": "`+warm[i%len(warm)]+`", "action": "details"}`))
	}, "", nil
}

// --- measurement ----------------------------------------------------------------------------

type result struct {
	name       string
	gateway    bool
	bounded    bool
	requests   int
	errors     int
	firstError string
	elapsed    time.Duration
	latencies  []time.Duration
}

func (r result) rate() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func (r result) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	i := int(float64(len(r.latencies))*p+0.5) - 1
	return r.latencies[max(0, min(i, len(r.latencies)-1))]
}

// measure runs the workers through a warm-up, then for the configured duration; a request is
// started only before the deadline and every started request is counted when it completes.
func (d *driver) measure(ctx context.Context, sc scenario, req request) result {
	if d.cfg.warmup > 0 {
		d.drive(ctx, req, d.cfg.warmup)
	}
	r := d.drive(ctx, req, d.cfg.duration)
	r.name, r.gateway, r.bounded = sc.name, sc.gateway, sc.bounded
	return r
}

func (d *driver) drive(ctx context.Context, req request, dur time.Duration) result {
	var mu sync.Mutex
	var out result
	start := time.Now()
	end := start.Add(dur)
	var wg sync.WaitGroup
	for w := 0; w < d.cfg.workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			lat := make([]time.Duration, 0, 1024)
			errs, first := 0, ""
			for i := w; time.Now().Before(end) && ctx.Err() == nil; i += d.cfg.workers {
				r := req(i).WithContext(ctx)
				t0 := time.Now()
				res, err := d.client.Do(r)
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != http.StatusOK {
						err = fmt.Errorf("HTTP %d", res.StatusCode)
					}
				}
				lat = append(lat, time.Since(t0))
				if err != nil {
					if errs == 0 {
						first = err.Error()
					}
					errs++
				}
			}
			mu.Lock()
			out.latencies = append(out.latencies, lat...)
			out.errors += errs
			if out.firstError == "" {
				out.firstError = first
			}
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	out.elapsed = time.Since(start)
	out.requests = len(out.latencies)
	slices.Sort(out.latencies)
	return out
}

// --- report ---------------------------------------------------------------------------------

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64)
}

func report(w io.Writer, cfg config, results []result, notes []string) {
	fmt.Fprintf(w, "\nLoad run: real gateway binary (SQLite, in-memory rate limiter, LOG_LEVEL=%s) and a zero-latency fake upstream, "+
		"both on 127.0.0.1; %d workers, %s per scenario after %s warm-up; nproc %d, GOMAXPROCS %d, %s %s/%s. "+
		"The load generator, the fake and the gateway share the machine's cores.\n\n",
		cfg.logLevel, cfg.workers, cfg.duration, cfg.warmup, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintln(w, "| scenario | requests | req/s | p50 ms | p99 ms | errors |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	var direct *result
	for i, r := range results {
		fmt.Fprintf(w, "| %s | %d | %.0f | %s | %s | %d |\n", r.name, r.requests, r.rate(), ms(r.percentile(0.50)), ms(r.percentile(0.99)), r.errors)
		if !r.gateway {
			direct = &results[i]
		}
	}
	if direct != nil && direct.requests > 0 {
		fmt.Fprintln(w)
		for _, r := range results {
			if r.gateway && !r.bounded && r.requests > 0 {
				fmt.Fprintf(w, "- gateway/direct, %s: %.2f%% of the direct req/s (direct is %.1fx faster); p50 %.1fx the direct p50\n",
					r.name, 100*r.rate()/direct.rate(), direct.rate()/r.rate(), ratio(r.percentile(0.5), direct.percentile(0.5)))
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, "- "+n)
		}
	}
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

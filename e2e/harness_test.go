// Package e2e drives the real gateway binary as a user would: it builds cmd/gateway once, starts
// `gateway serve` on free loopback ports over SQLite or PostgreSQL (and Redis), calls the HTTP API
// and runs `gateway admin …` as separate processes. Nothing of the product is linked in; only the
// test database helpers are.
package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants/tenantstest"
)

// binary is the gateway built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(gomod)) == "" || strings.TrimSpace(string(gomod)) == os.DevNull {
		fmt.Fprintf(os.Stderr, "e2e: cannot find the module root (go env GOMOD: %q, %v)\n", gomod, err)
		return 1
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	dir, err := os.MkdirTemp("", "capgate-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "gateway")
	build := exec.Command("go", "build", "-o", binary, "./cmd/gateway")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build ./cmd/gateway failed: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// deployment is one database (and its configuration) that servers and admin commands share.
type deployment struct {
	Backend     string // sqlite or postgres
	DataDir     string // the first instance's data dir; SQLite lives here
	DatabaseURL string // "" for the embedded SQLite file
	MasterKey   string // shared by every instance on an external database
	RedisURL    string
}

// newDeployment makes an empty database on the backend: a fresh data dir (SQLite) or a fresh
// PostgreSQL database.
func newDeployment(t *testing.T, backend string) *deployment {
	t.Helper()
	d := &deployment{Backend: backend, DataDir: t.TempDir()}
	if backend == "postgres" {
		d.DatabaseURL = tenantstest.FreshPostgres(t)
		k := make([]byte, 32)
		if _, err := rand.Read(k); err != nil {
			t.Fatal(err)
		}
		d.MasterKey = base64.StdEncoding.EncodeToString(k)
	}
	return d
}

// withRedis returns the deployment with the test Redis as REDIS_URL.
func (d *deployment) withRedis(t *testing.T) *deployment {
	t.Helper()
	u := tenantstest.RedisURL(t)
	if u == "" {
		t.Skip("no Redis test server (set CAPGATE_TEST_REDIS_URL)")
	}
	c := *d
	c.RedisURL = u
	return &c
}

// forEachBackend runs fn on SQLite and on PostgreSQL (PostgreSQL is skipped, or failed with
// CAPGATE_REQUIRE_SERVERS=1, when no test server is configured), the two side by side: each has
// its own deployment, and most of an e2e test's time is waiting (a process starting, a key's
// expiry, a cache's TTL), which the other backend's half can use. Load tests, whose figures two
// loads at once on two cores would skew, use forEachBackendInTurn.
func forEachBackend(t *testing.T, fn func(t *testing.T, backend string)) {
	t.Helper()
	eachBackend(t, true, fn)
}

// forEachBackendInTurn is forEachBackend one backend after the other.
func forEachBackendInTurn(t *testing.T, fn func(t *testing.T, backend string)) {
	t.Helper()
	eachBackend(t, false, fn)
}

func eachBackend(t *testing.T, parallel bool, fn func(t *testing.T, backend string)) {
	t.Helper()
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			if b == "postgres" && tenantstest.PostgresURL(t) == "" {
				t.Skip("no PostgreSQL test server (set CAPGATE_TEST_POSTGRES_URL)")
			}
			if parallel {
				t.Parallel()
			}
			fn(t, b)
		})
	}
}

// environ is the whole environment of a gateway process: nothing is inherited but PATH and HOME,
// so a developer's DATABASE_URL or REDIS_URL never leaks into a test.
func (d *deployment) environ(dataDir string, extra ...string) []string {
	// The shared upstream cache is off unless a test turns it on (GATEWAY_SHARED_CACHE=on in
	// extra, which comes later and wins): most tests here count paid upstream calls and charges,
	// which repeats of one body would otherwise turn into free hits.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "GATEWAY_DATA_DIR=" + dataDir, "LOG_LEVEL=info",
		"GATEWAY_SHARED_CACHE=off"}
	if d.DatabaseURL != "" {
		env = append(env, "DATABASE_URL="+d.DatabaseURL)
	}
	if d.MasterKey != "" {
		env = append(env, "GATEWAY_MASTER_KEY="+d.MasterKey)
	}
	if d.RedisURL != "" {
		env = append(env, "REDIS_URL="+d.RedisURL)
	}
	return append(env, extra...)
}

// cmdResult is a finished command.
type cmdResult struct {
	Code   int
	Stdout string
	Stderr string
}

// run runs the binary with args against the deployment and waits for it.
func (d *deployment) run(t *testing.T, args ...string) cmdResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = d.environ(d.DataDir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := cmdResult{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
	default:
		t.Fatalf("gateway %s: %v", strings.Join(args, " "), err)
	}
	return res
}

// admin runs `gateway admin args…`, requires exit 0 and exactly one JSON object on stdout, and
// returns it.
func (d *deployment) admin(t *testing.T, args ...string) map[string]any {
	t.Helper()
	return d.jsonCommand(t, append([]string{"admin"}, args...)...)
}

// jsonCommand runs any command that must succeed with exactly one JSON object on stdout.
func (d *deployment) jsonCommand(t *testing.T, args ...string) map[string]any {
	t.Helper()
	res := d.run(t, args...)
	if res.Code != 0 {
		t.Fatalf("gateway %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), res.Code, res.Stdout, res.Stderr)
	}
	return oneJSONObject(t, strings.Join(args, " "), res.Stdout)
}

// oneJSONObject decodes stdout, which must hold exactly one JSON object and nothing else.
func oneJSONObject(t *testing.T, what, stdout string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("gateway %s: stdout is not a JSON object: %v\n%s", what, err, stdout)
	}
	if obj == nil {
		t.Fatalf("gateway %s: stdout is JSON null, want an object", what)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Fatalf("gateway %s: stdout holds more than one JSON value:\n%s", what, stdout)
	}
	return obj
}

// instance is one running `gateway serve`.
type instance struct {
	t       *testing.T
	Base    string // http://127.0.0.1:port
	DataDir string
	cmd     *exec.Cmd
	stdout  *syncBuffer
	stderr  *syncBuffer
	done    chan struct{}
	waitErr error
	stopped bool
}

// syncBuffer is a bytes.Buffer the process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serve starts an instance on the deployment's first data dir (the one admin commands use).
func (d *deployment) serve(t *testing.T, extra ...string) *instance {
	t.Helper()
	return d.serveIn(t, d.DataDir, extra...)
}

// serveOther starts another instance of the same database with its own data dir.
func (d *deployment) serveOther(t *testing.T, extra ...string) *instance {
	t.Helper()
	return d.serveIn(t, t.TempDir(), extra...)
}

// serveIn starts `gateway serve` on a free loopback port, waits for /healthz and stops the
// process (SIGTERM, wait) when the test ends.
func (d *deployment) serveIn(t *testing.T, dataDir string, extra ...string) *instance {
	t.Helper()
	in := d.start(t, dataDir, extra...)
	if err := in.waitHealthy(20 * time.Second); err != nil {
		t.Fatalf("gateway serve did not become healthy: %v\nstdout:\n%s\nstderr:\n%s", err, in.stdout.String(), in.stderr.String())
	}
	return in
}

// start starts `gateway serve` on a free loopback port without waiting for it; the process is
// stopped when the test ends. The gateway binds port 0 itself and logs the port it took
// (waitHealthy reads it into Base): a port picked here and bound there could be taken in
// between by another test process, whose server would then answer this one's requests.
func (d *deployment) start(t *testing.T, dataDir string, extra ...string) *instance {
	t.Helper()
	in := &instance{t: t, DataDir: dataDir, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	in.cmd = exec.Command(binary, "serve")
	in.cmd.Env = d.environ(dataDir, append([]string{"GATEWAY_ADDR=127.0.0.1:0"}, extra...)...)
	in.cmd.Stdout, in.cmd.Stderr = in.stdout, in.stderr
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { in.waitErr = in.cmd.Wait(); close(in.done) }()
	t.Cleanup(func() { in.cleanup() })
	return in
}

// servingAddr finds the address in the gateway's "serving" log line (text or JSON).
var servingAddr = regexp.MustCompile(`(?:msg=serving |"msg":"serving").*?addr"?[=:]"?(127\.0\.0\.1:[0-9]+)`)

func (in *instance) waitHealthy(limit time.Duration) error {
	c := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-in.done:
			return fmt.Errorf("the process exited: %v", in.waitErr)
		default:
		}
		if in.Base == "" {
			if m := servingAddr.FindStringSubmatch(in.stderr.String()); m != nil {
				in.Base = "http://" + m[1]
			} else if time.Now().After(deadline) {
				return fmt.Errorf("no serving line within %s", limit)
			} else {
				time.Sleep(20 * time.Millisecond)
				continue
			}
		}
		res, err := c.Get(in.Base + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no 200 from /healthz within %s (last error %v)", limit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends SIGTERM and waits up to limit; it returns the exit code (-1 on a signal death) and
// how long the process took to exit.
func (in *instance) stop(limit time.Duration) (code int, took time.Duration, err error) {
	in.stopped = true
	start := time.Now()
	select {
	case <-in.done:
	default:
		if err := in.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return 0, 0, err
		}
	}
	select {
	case <-in.done:
	case <-time.After(limit):
		// A goroutine dump (SIGQUIT) says where it hung.
		_ = in.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-in.done:
		case <-time.After(3 * time.Second):
			_ = in.cmd.Process.Kill()
			<-in.done
		}
		return -1, time.Since(start), fmt.Errorf("did not exit within %s of SIGTERM (goroutine dump in its stderr):\n%s", limit, tail(in.stderr.String(), 400))
	}
	return in.cmd.ProcessState.ExitCode(), time.Since(start), nil
}

// cleanup stops a still running instance; an unclean exit is a test failure.
func (in *instance) cleanup() {
	if in.stopped {
		return
	}
	select {
	case <-in.done:
		// It exited on its own: a test that waited for it has reported that already.
		if !in.t.Failed() {
			in.t.Errorf("gateway %s exited on its own: %v\nstderr tail:\n%s", in.Base, in.waitErr, tail(in.stderr.String(), 20))
		}
		return
	default:
	}
	code, _, err := in.stop(10 * time.Second)
	if err != nil || code != 0 {
		in.t.Errorf("stopping gateway %s: exit %d, %v\nstderr tail:\n%s", in.Base, code, err, tail(in.stderr.String(), 20))
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// response is an HTTP answer with its JSON body decoded when it has one.
type response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// httpClient waits for 100 Continue when a request asks for it: the server refuses a body over
// its 1 MiB read limit after the headers and closes, and a client still writing would see a reset.
var httpClient = &http.Client{Timeout: 30 * time.Second, Transport: expectContinue()}

func expectContinue() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ExpectContinueTimeout = 5 * time.Second
	return tr
}

// call sends a request to the instance. body is nil, a string or []byte sent as is, or a value
// encoded as JSON; key "" sends no Authorization header.
func (in *instance) call(t *testing.T, method, path, key string, body any, header ...string) *response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, in.Base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	out := &response{Status: res.StatusCode, Header: res.Header, Body: b}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(b, &out.JSON); err != nil {
			t.Fatalf("%s %s: Content-Type is JSON but the body is not a JSON object: %v\n%s", method, path, err, b)
		}
	}
	in.checkContract(t, req, out.Status, out.Header, out.Body)
	return out
}

// get is call with GET and no body.
func (in *instance) get(t *testing.T, path, key string) *response {
	t.Helper()
	return in.call(t, http.MethodGet, path, key, nil)
}

// mustOK requires a 200.
func (r *response) mustOK(t *testing.T, what string) *response {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("%s: status %d, want 200\n%s", what, r.Status, r.Body)
	}
	return r
}

// requireEnvelope checks the spec's error envelope: status, code, message, retryable, and a
// requestId equal to the X-Request-Id header.
func requireEnvelope(t *testing.T, r *response, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Errorf("status %d, want %d\n%s", r.Status, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want application/json\n%s", ct, r.Body)
	}
	e, ok := r.JSON["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error envelope: %s", r.Body)
	}
	if e["code"] != code {
		t.Errorf("error.code %v, want %s\n%s", e["code"], code, r.Body)
	}
	if msg, _ := e["message"].(string); strings.TrimSpace(msg) == "" {
		t.Errorf("error.message is empty: %s", r.Body)
	}
	if _, ok := e["retryable"].(bool); !ok {
		t.Errorf("error.retryable is not a boolean: %s", r.Body)
	}
	rid := r.Header.Get("X-Request-Id")
	if rid == "" {
		t.Errorf("no X-Request-Id header")
	}
	if e["requestId"] != rid {
		t.Errorf("error.requestId %v, want the X-Request-Id header %q", e["requestId"], rid)
	}
	for k := range e {
		switch k {
		case "code", "message", "retryable", "hint", "violations", "requestId":
		default:
			t.Errorf("error envelope has an unknown key %q: %s", k, r.Body)
		}
	}
}

// str digs a string out of nested JSON objects.
func str(m map[string]any, path ...string) string {
	v, _ := dig(m, path...).(string)
	return v
}

// num digs a number out of nested JSON objects; ok is false when it is absent or not a number.
func num(m map[string]any, path ...string) (float64, bool) {
	v, ok := dig(m, path...).(float64)
	return v, ok
}

func dig(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = obj[p]
	}
	return cur
}

// eventually polls cond every 250 ms until it holds or limit passes; it returns how long it took
// and whether it held.
func eventually(limit time.Duration, cond func() bool) (time.Duration, bool) {
	start := time.Now()
	for {
		if cond() {
			return time.Since(start), true
		}
		if time.Since(start) > limit {
			return time.Since(start), false
		}
		time.Sleep(250 * time.Millisecond)
	}
}

package fitness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const (
	wantUA  = "capgate/test (+tests@example.com)"
	testKey = "ym_test_key"
)

// fake is an httptest stand-in for YMove and wger: it records every request, checks the
// User-Agent and (for YMove) the X-API-Key header, and answers by path.
type fake struct {
	providertest.Upstream
	t      *testing.T
	key    bool // requests must carry X-API-Key: testKey
	mu     sync.Mutex
	routes map[string]func(w http.ResponseWriter, r *http.Request)
}

func newFake(t *testing.T, key bool) *fake {
	f := &fake{t: t, key: key, routes: map[string]func(http.ResponseWriter, *http.Request){}}
	f.Upstream = providertest.Upstream{TB: t, UserAgent: wantUA, Answer: f.route}
	return f
}

// route checks and answers a request the Upstream recorded.
func (f *fake) route(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	h, ok := f.routes[r.URL.Path]
	f.mu.Unlock()
	if r.Method != http.MethodGet {
		f.t.Errorf("method %s, want GET", r.Method)
	}
	if f.key && r.Header.Get("X-API-Key") != testKey {
		f.t.Errorf("X-API-Key = %q, want %q", r.Header.Get("X-API-Key"), testKey)
	}
	if !f.key && r.Header.Get("X-API-Key") != "" {
		f.t.Errorf("keyless provider got X-API-Key %q", r.Header.Get("X-API-Key"))
	}
	if r.URL.Query().Get("api_key") != "" {
		f.t.Errorf("the key leaked into the query: %s", r.URL.RawQuery)
	}
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"code":"NOT_FOUND","message":"Not found"}}`))
		return
	}
	h(w, r)
}

// serve answers a path with a status and a body: a testdata fixture name, or literal JSON.
func (f *fake) serve(path string, status int, body string) {
	f.t.Helper()
	b := []byte(body)
	if !strings.HasPrefix(body, "{") {
		b = providertest.Fixture(f.t, body)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[path] = func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write(b)
	}
}

// clients binds a client to fakes of both providers (nil leaves a provider at its default).
func clients(t *testing.T, video, wger *fake) *providers.Client {
	t.Helper()
	fakes := map[string]http.Handler{}
	if video != nil {
		fakes[VideoProviderID] = video
	}
	if wger != nil {
		fakes[WgerProviderID] = wger
	}
	return providertest.Client(t, Providers(), fakes, map[string]string{VideoProviderID: testKey})
}

// workouts is an in-memory Workouts with the store's contract: one workout per
// tenant and (provider, exercise ref), the same id when saved again.
type workouts struct {
	mu    sync.Mutex
	ids   map[string]string
	saved map[string]Workout // by id
	fail  error
}

func newWorkouts() *workouts {
	return &workouts{ids: map[string]string{}, saved: map[string]Workout{}}
}

func (w *workouts) SaveWorkout(_ context.Context, tenant string, in Workout) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fail != nil {
		return "", w.fail
	}
	k := tenant + "|" + in.Provider + "|" + in.ExerciseRef
	if id, ok := w.ids[k]; ok {
		return id, nil
	}
	id := fmt.Sprintf("wkt_%016d", len(w.ids)+1)
	w.ids[k] = id
	w.saved[id] = in
	return id, nil
}

var errDatabase = errors.New("database is gone")

const publicURL = "https://gateway.example.com"

// run validates a body and runs one page as the gateway does (workouts store and public URL set).
func run(t *testing.T, client *providers.Client, mode providers.Mode, tenant string, ws WorkoutSaver, body string, state json.RawMessage) (*providers.Page, error) {
	t.Helper()
	req, err := providertest.Prepare(t, Exercises, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return runReq(t, client, mode, tenant, ws, req, state)
}

func runReq(t *testing.T, client *providers.Client, mode providers.Mode, tenant string, ws WorkoutSaver, req providers.Request, state json.RawMessage) (*providers.Page, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Exercises.Deadline)
	defer cancel()
	cp := Exercises
	if ws != nil {
		cp = NewExercises(ws)
	}
	call := providers.NewCall(cp, req, state, mode, tenant, client)
	call.PublicURL = publicURL + "/"
	return cp.Execute(ctx, call)
}

// clock is an injectable time.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

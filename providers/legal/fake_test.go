package legal

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/courtlistener"
)

const (
	clToken   = "cl-test-token"
	userAgent = "capgate/test (+tests@example.com)"
)

// seen is one request as a fake upstream received it.
type seen struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
}

// fake stands in for one upstream: it records every request and answers with the i-th answer
// (the last one repeats).
type fake struct {
	providertest.Upstream
	mu      sync.Mutex
	n       int // requests answered
	answers []answer
}

type answer struct {
	status int
	body   string // a JSON or text body, or the name of a testdata/ or sandbox file
	header map[string]string
}

func newFake(t *testing.T, answers ...answer) *fake {
	t.Helper()
	for i, a := range answers {
		if strings.HasSuffix(a.body, ".json") && !strings.ContainsAny(a.body, "{[") {
			b, err := os.ReadFile(a.body)
			if err != nil {
				t.Fatal(err)
			}
			answers[i].body = string(b)
		}
	}
	f := &fake{answers: answers}
	f.Upstream = providertest.Upstream{TB: t, UserAgent: userAgent, Answer: f.answer}
	return f
}

// answer writes the next answer to a request the Upstream recorded.
func (f *fake) answer(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.n++
	a := f.answers[min(f.n, len(f.answers))-1]
	f.mu.Unlock()
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	status := a.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(a.body))
}

// requests is what f received, as seen values.
func (f *fake) requests() []seen {
	var out []seen
	for _, r := range f.Requests() {
		out = append(out, seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header})
	}
	return out
}

// clients builds a live client with fakes for CourtListener and CELLAR (nil: a fake that fails
// the test when called).
func clients(t *testing.T, cl, eu *fake) *providers.Client {
	t.Helper()
	if cl == nil {
		cl = refuse(t, "CourtListener")
	}
	if eu == nil {
		eu = refuse(t, "CELLAR")
	}
	return providertest.Client(t, Providers(), map[string]http.Handler{courtlistener.ProviderID: cl, cellarID: eu},
		map[string]string{courtlistener.ProviderID: clToken})
}

func refuse(t *testing.T, name string) *fake {
	f := newFake(t, answer{status: http.StatusTeapot, body: `{}`})
	t.Cleanup(func() {
		if n := len(f.requests()); n > 0 {
			t.Errorf("%s was called %d times, want none", name, n)
		}
	})
	return f
}

func prepare(t *testing.T, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, Search, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

func run(t *testing.T, client *providers.Client, mode providers.Mode, body string, state json.RawMessage) (*providers.Page, error) {
	t.Helper()
	return providertest.ExecuteState(t, client, Search, mode, prepare(t, body), state)
}

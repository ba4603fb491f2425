package providertest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/capgate/capgate/providers"
)

// Upstream is the recording httptest stand-in of an upstream that the capability tests share: it
// keeps a clone of every request it receives and answers with Answer. The clones' bodies stay
// readable, and so does the body Answer sees. With UserAgent set, a request carrying any other
// User-Agent fails TB. Packages whose upstream routes or checks more build on it: Answer is theirs.
type Upstream struct {
	TB        testing.TB // reports a wrong User-Agent; needed when UserAgent is set
	UserAgent string     // when set, every request must carry it
	Answer    func(w http.ResponseWriter, r *http.Request)

	mu   sync.Mutex
	reqs []recorded
}

// recorded is a received request and its body.
type recorded struct {
	req  *http.Request
	body []byte
}

// ServeHTTP records the request, checks its User-Agent and answers it.
func (u *Upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(r.Body)
		if err != nil && u.TB != nil {
			u.TB.Errorf("reading the body of %s %s: %v", r.Method, r.URL, err)
		}
		body = b
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	u.mu.Lock()
	u.reqs = append(u.reqs, recorded{r.Clone(context.Background()), body})
	answer := u.Answer
	u.mu.Unlock()
	if u.UserAgent != "" {
		if u.TB == nil {
			panic("providertest.Upstream: UserAgent is set but TB is not")
		}
		if got := r.Header.Get("User-Agent"); got != u.UserAgent {
			u.TB.Errorf("User-Agent = %q, want %q", got, u.UserAgent)
		}
	}
	answer(w, r)
}

// Requests returns clones of the requests received so far, in order; each call gives every clone
// a fresh reader of the request's body.
func (u *Upstream) Requests() []*http.Request {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([]*http.Request, len(u.reqs))
	for i, rec := range u.reqs {
		c := rec.req.Clone(context.Background())
		if rec.body != nil {
			c.Body = io.NopCloser(bytes.NewReader(rec.body))
		}
		out[i] = c
	}
	return out
}

// SetAnswer replaces the answer; safe while requests are served.
func (u *Upstream) SetAnswer(answer func(w http.ResponseWriter, r *http.Request)) {
	u.mu.Lock()
	u.Answer = answer
	u.mu.Unlock()
}

// JSONType is the Content-Type ServeFile and ServeBody answer with when given none.
const JSONType = "application/json; charset=utf-8"

// ServeFile answers every request with a file of the package (testdata/... or sandbox/...), a
// status and a Content-Type (JSONType when none is given).
func ServeFile(tb testing.TB, status int, file string, contentType ...string) *Upstream {
	tb.Helper()
	body, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	return ServeBody(status, string(body), contentType...)
}

// ServeBody answers every request with a literal body, a status and a Content-Type (JSONType when
// none is given).
func ServeBody(status int, body string, contentType ...string) *Upstream {
	ct := JSONType
	if len(contentType) > 0 {
		ct = contentType[0]
	}
	return &Upstream{Answer: func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}}
}

// Refuse fails the test if the upstream (called name in the message) is called at all.
func Refuse(tb testing.TB, name string) *Upstream {
	return &Upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
		tb.Errorf("%s must not be called (got %s)", name, r.URL)
		w.WriteHeader(http.StatusTeapot)
	}}
}

// SandboxUpstream serves the sandbox fixtures of provider id (one of provs) from a live fake.
func SandboxUpstream(provs []*providers.Provider, id string) *Upstream {
	return &Upstream{Answer: provider(provs, id).Sandbox.ServeHTTP}
}

// SandboxUpstreamAtBase is SandboxUpstream for a sandbox that routes by the full path of the
// provider's default base URL: a fake's base URL has no path, so that path (/api/v4, /youtube/v3)
// is put back before the sandbox sees the request.
func SandboxUpstreamAtBase(provs []*providers.Provider, id string) *Upstream {
	p := provider(provs, id)
	prefix := ""
	if u, err := url.Parse(p.BaseURL); err == nil {
		prefix = strings.TrimRight(u.Path, "/")
	}
	return &Upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
		r2 := r.Clone(r.Context())
		r2.URL.Path = prefix + r.URL.Path
		p.Sandbox.ServeHTTP(w, r2)
	}}
}

func provider(provs []*providers.Provider, id string) *providers.Provider {
	for _, p := range provs {
		if p.ID == id {
			return p
		}
	}
	panic("no provider " + id)
}

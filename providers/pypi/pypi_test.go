package pypi

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

const (
	wantUA  = "capgate/test (+tests@example.com)"
	serpKey = "serp-test-key"
)

// fake is an httptest stand-in for one upstream: it records every request, checks the
// User-Agent, and answers by exact path (anything else: 404 {"message": "Not Found"}).
type fake struct {
	providertest.Upstream
	t      *testing.T
	mu     sync.Mutex
	routes map[string]http.HandlerFunc
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{t: t, routes: map[string]http.HandlerFunc{}}
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
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message": "Not Found"}`))
		return
	}
	h(w, r)
}

// handle sets the handler of a path.
func (f *fake) handle(path string, h http.HandlerFunc) {
	f.mu.Lock()
	f.routes[path] = h
	f.mu.Unlock()
}

// serve answers path with a status and a body: a testdata fixture name, or literal JSON.
func (f *fake) serve(path string, status int, body string) {
	f.t.Helper()
	b := []byte(body)
	if !strings.HasPrefix(body, "{") && !strings.HasPrefix(body, "[") {
		b = providertest.Fixture(f.t, body)
	}
	f.handle(path, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(b)
	})
}

// upstreams are the three fakes of this package behind one client.
type upstreams struct {
	index, stats, serp *fake
	client             *providers.Client
}

func newUpstreams(t *testing.T) *upstreams {
	t.Helper()
	u := &upstreams{index: newFake(t), stats: newFake(t), serp: newFake(t)}
	u.client = providertest.Client(t, Providers(),
		map[string]http.Handler{indexID: u.index, statsID: u.stats, serpapi.ProviderID: u.serp},
		map[string]string{serpapi.ProviderID: serpKey})
	return u
}

// indexURL is the fake index's base URL (http://127.0.0.1:port).
func (u *upstreams) indexURL() string { return u.client.Setting(indexID).URL }

func prepare(t *testing.T, c *providers.Capability, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, c, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

func execute(t *testing.T, client *providers.Client, c *providers.Capability, mode providers.Mode, body string) (*providers.Page, error) {
	t.Helper()
	return providertest.ExecuteState(t, client, c, mode, prepare(t, c, body), nil)
}

// golden compares the page's records with testdata/<name>.golden.json after replacing each
// old/new pair in the rendering (a fake's dynamic address becomes a fixed host).
func golden(t *testing.T, name string, page *providers.Page, oldnew ...string) {
	t.Helper()
	b, err := json.Marshal(providertest.RecordsJSON(page))
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.NewReplacer(oldnew...).Replace(string(b)))
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, name, v)
}

// useClock gives pypkg.downloads a fresh, empty process cache on a test clock for this test.
func useClock(t *testing.T, c *testClock) {
	t.Helper()
	prev := processCaches.Load()
	processCaches.Store(newDownloadCaches(c.Now))
	t.Cleanup(func() { processCaches.Store(prev) })
}

type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *testClock {
	return &testClock{now: time.Date(2026, 11, 21, 6, 30, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestCapabilityDeclarations(t *testing.T) {
	cases := []struct {
		c         *providers.Capability
		id        string
		paging    providers.Paging
		noUpdate  bool
		typical   int
		providers []string
		actions   []string
		kind      providers.ActionKind
	}{
		{Details, "pypkg.details", providers.PagingSingle, true, 0, []string{"pypi"}, []string{"details"}, providers.ActionStored},
		{Versions, "pypkg.versions", providers.PagingLocal, false, 0, []string{"pypi"}, []string{"details"}, providers.ActionLookup},
		{Downloads, "pypkg.downloads", providers.PagingSingle, true, 0, []string{"pypistats"}, nil, 0},
		{Search, "pypkg.search", providers.PagingPage, false, 1, []string{"serpapi", "pypi"}, []string{"details"}, providers.ActionLookup},
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			c := tc.c
			if c.ID != tc.id || c.Topic != "Dev" || c.Title == "" || c.Summary == "" || c.Description == "" || c.Execute == nil {
				t.Errorf("id %q topic %q or texts missing", c.ID, c.Topic)
			}
			if c.Paging != tc.paging || c.NoUpdate != tc.noUpdate || c.Deadline != 15*time.Second {
				t.Errorf("paging %v noupdate %v deadline %v", c.Paging, c.NoUpdate, c.Deadline)
			}
			if c.Cost.Typical != tc.typical || c.Cost.Basis == "" || strings.Contains(c.Cost.Basis, "\n") {
				t.Errorf("cost %+v", c.Cost)
			}
			if !reflect.DeepEqual(c.Providers, tc.providers) {
				t.Errorf("providers %v, want %v", c.Providers, tc.providers)
			}
			if names := c.ActionNames(); !reflect.DeepEqual(names, tc.actions) && !(len(names) == 0 && len(tc.actions) == 0) {
				t.Errorf("actions %v, want %v", names, tc.actions)
			}
			for _, a := range c.Actions {
				if a.Kind != tc.kind || a.Credits != 0 || a.Description == "" || (a.Kind == providers.ActionLookup) != (a.Run != nil) {
					t.Errorf("action %+v", a)
				}
			}
			checkSchema(t, c)
			if len(c.Examples) < 2 {
				t.Errorf("%d examples, want at least 2", len(c.Examples))
			}
			for _, ex := range c.Examples {
				body, _ := json.Marshal(ex.Body)
				if _, err := providertest.Prepare(t, c, string(body)); err != nil {
					t.Errorf("example %q does not validate: %v", ex.Title, err)
				}
			}
		})
	}
	if got := Capabilities(); !reflect.DeepEqual(got, []*providers.Capability{Details, Versions, Downloads, Search}) {
		t.Errorf("Capabilities() = %v", got)
	}
	if c := Versions; c.PageSizeField != "num" || c.PageSize(prepare(t, c, `{"package":"x"}`)) != 20 {
		t.Errorf("versions page size field %q", c.PageSizeField)
	}
}

// checkSchema: draft 2020-12, additionalProperties false, and a description on every property.
func checkSchema(t *testing.T, c *providers.Capability) {
	t.Helper()
	doc := c.Schema().Doc
	if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" || doc["additionalProperties"] != false || doc["type"] != "object" {
		t.Errorf("schema header %v %v %v", doc["$schema"], doc["additionalProperties"], doc["type"])
	}
	props, _ := doc["properties"].(map[string]any)
	if len(props) == 0 {
		t.Fatal("no properties")
	}
	for name, raw := range props {
		p := raw.(map[string]any)
		if d, _ := p["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
}

func TestProviders(t *testing.T) {
	ps := Providers()
	if len(ps) != 3 {
		t.Fatalf("%d providers", len(ps))
	}
	idx, stats, serp := ps[0], ps[1], ps[2]
	if idx.ID != "pypi" || idx.BaseURL != "" || idx.KeyRequired || idx.Sandbox == nil {
		t.Errorf("index provider %+v: it must have no default base URL", idx)
	}
	if stats.ID != "pypistats" || stats.BaseURL != "https://pypistats.org" || stats.KeyRequired || stats.Sandbox == nil {
		t.Errorf("pypistats provider %+v", stats)
	}
	if serp != serpapi.Provider() {
		t.Error("the SerpApi provider must be the shared value")
	}
	t.Run("live index unavailable without a URL", func(t *testing.T) {
		client := providertest.Client(t, Providers(), nil, map[string]string{serpapi.ProviderID: serpKey})
		if ok, why := client.Configured(indexID); ok || !strings.Contains(why, "PROVIDER_PYPI_URL") {
			t.Errorf("configured %v (%s)", ok, why)
		}
		_, err := execute(t, client, Details, providers.ModeLive, `{"package":"requests"}`)
		if providertest.ErrorCode(err) != providers.CodeCapabilityUnavailable {
			t.Errorf("error = %v, want capability_unavailable", err)
		}
	})
}

func TestNormalizeName(t *testing.T) {
	cases := map[string]string{
		"requests": "requests", "Django": "django", "Flask_SQLAlchemy": "flask-sqlalchemy",
		"zope.interface": "zope-interface", "a-_.-b": "a-b", "A__B..C--D": "a-b-c-d", "ruamel.yaml": "ruamel-yaml", "X": "x",
	}
	for in, want := range cases {
		if got := normalizeName(in); got != want {
			t.Errorf("normalizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestExamples runs every example of every capability in the sandbox (with its follow-ups) and
// live against the fakes.
func TestExamples(t *testing.T) {
	for _, c := range Capabilities() {
		for _, ex := range c.Examples {
			body, err := json.Marshal(ex.Body)
			if err != nil {
				t.Fatal(err)
			}
			t.Run("sandbox: "+c.ID+": "+ex.Title, func(t *testing.T) {
				useClock(t, newClock())
				client := providertest.Client(t, Providers(), nil, nil)
				req := prepare(t, c, string(body))
				page, err := providertest.ExecuteState(t, client, c, providers.ModeTest, req, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(page.Records) == 0 {
					t.Fatal("no records")
				}
				pages := []*providers.Page{page}
				for p := page; p.HasMore && len(pages) < 3; { // the discovery fixture answers every page: stop after a few
					if p, err = providertest.ExecuteState(t, client, c, providers.ModeTest, req, p.Next); err != nil {
						t.Fatal(err)
					}
					pages = append(pages, p)
				}
				for _, p := range pages {
					for i := range p.Records {
						rec := &p.Records[i]
						if rec.Title == "" {
							t.Errorf("record without a title: %+v", rec)
						}
						for _, a := range c.ActionNames() {
							d, err := providertest.Action(t, client, c, providers.ModeTest, req, a, rec)
							if err != nil {
								t.Fatalf("%s of %q: %v", a, rec.Title, err)
							}
							if d.Body == nil || len(d.Links) == 0 {
								t.Errorf("%s of %q: body %v links %v", a, rec.Title, d.Body, d.Links)
							}
						}
					}
				}
			})
			t.Run("live: "+c.ID+": "+ex.Title, func(t *testing.T) {
				useClock(t, newClock())
				u := newUpstreams(t)
				u.index.serve("/pypi/requests/json", 200, "project_sampleproject.json")
				u.index.serve("/pypi/django/4.2.11/json", 200, "release_django.json")
				u.index.handle("/simple/requests/", func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", simpleJSON)
					_, _ = w.Write(providertest.Fixture(t, "simple_example.json"))
				})
				u.stats.serve("/api/packages/requests/recent", 200, "stats_recent.json")
				u.stats.serve("/api/packages/requests/overall", 200, "stats_overall.json")
				host := strings.TrimPrefix(u.indexURL(), "http://")
				site := strings.ReplaceAll(string(providertest.Fixture(t, "serpapi_site.json")), "index.example", host)
				u.serp.handle("/search.json", func(w http.ResponseWriter, _ *http.Request) {
					_, _ = w.Write([]byte(site))
				})
				page, err := execute(t, u.client, c, providers.ModeLive, string(body))
				if err != nil {
					t.Fatal(err)
				}
				if len(page.Records) == 0 {
					t.Fatal("no records")
				}
				if n := len(u.index.Requests()) + len(u.stats.Requests()) + len(u.serp.Requests()); n == 0 {
					t.Error("no upstream was called")
				}
			})
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// violationPaths lists the distinct violation paths of an error, in order (a value can break
// several keywords of one property).
func violationPaths(err error) []string {
	var out []string
	for _, p := range providertest.ViolationPaths(err) {
		if len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	return out
}

// TestSandboxGolden pins what test keys see for the first example of each capability.
func TestSandboxGolden(t *testing.T) {
	cases := []struct {
		name string
		c    *providers.Capability
		body string
	}{
		{"sandbox_details", Details, `{"package":"Django","version":"4.2.11"}`},
		{"sandbox_versions", Versions, `{"package":"requests","include_yanked":true}`},
		{"sandbox_downloads", Downloads, `{"package":"requests"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			useClock(t, newClock())
			client := providertest.Client(t, Providers(), nil, nil)
			page, err := execute(t, client, tc.c, providers.ModeTest, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, page)
		})
	}
	t.Run("unknown project", func(t *testing.T) {
		client := providertest.Client(t, Providers(), nil, nil)
		for _, c := range []*providers.Capability{Details, Versions} {
			_, err := execute(t, client, c, providers.ModeTest, `{"package":"sandbox-not-found"}`)
			if !reflect.DeepEqual(violationPaths(err), []string{"/package"}) {
				t.Errorf("%s: error = %v", c.ID, err)
			}
		}
		_, err := execute(t, client, Downloads, providers.ModeTest, `{"package":"sandbox-not-found"}`)
		if providertest.ErrorCode(err) != providers.CodeNotFound {
			t.Errorf("downloads: error = %v", err)
		}
	})
}

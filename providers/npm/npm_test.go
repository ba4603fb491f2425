package npm

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const wantUserAgent = "capgate/test (+tests@example.com)"

// upstream is the shared recording stand-in for the registry or its download counts API.
type upstream = providertest.Upstream

// only returns the one request the upstream received.
func only(tb testing.TB, u *upstream) *http.Request {
	tb.Helper()
	reqs := u.Requests()
	if len(reqs) != 1 {
		tb.Fatalf("%d upstream requests, want 1", len(reqs))
	}
	return reqs[0]
}

// serveFile answers every request with a file of the package (testdata/... or sandbox/...).
func serveFile(tb testing.TB, status int, file string) *upstream {
	tb.Helper()
	return providertest.ServeFile(tb, status, filepath.FromSlash(file), "application/json")
}

func serveBody(status int, body string) *upstream {
	return providertest.ServeBody(status, body, "application/json")
}

// refuse fails the test when the upstream is called at all.
func refuse(tb testing.TB) *upstream { return providertest.Refuse(tb, "the upstream") }

// sandboxFake serves a provider's own sandbox through a live fake, recording the requests.
func sandboxFake(id string) *upstream { return providertest.SandboxUpstream(Providers(), id) }

// streamBig answers 200 with a JSON document of about n bytes, written in chunks.
func streamBig(n int) *upstream {
	return &upstream{Answer: func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"_id":"huge","name":"huge","dist-tags":{"latest":"1.0.0"},"readme":"`))
		chunk := []byte(strings.Repeat("a", 64<<10))
		for written := 0; written < n; written += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the client stopped reading at its limit
			}
		}
		_, _ = w.Write([]byte(`"}`))
	}}
}

func newClient(tb testing.TB, registry, downloads http.Handler) *providers.Client {
	tb.Helper()
	if registry == nil {
		registry = refuse(tb)
	}
	if downloads == nil {
		downloads = refuse(tb)
	}
	return providertest.Client(tb, Providers(), map[string]http.Handler{RegistryID: registry, DownloadsID: downloads}, nil)
}

func prepare(tb testing.TB, c *providers.Capability, body string) providers.Request {
	tb.Helper()
	req, err := providertest.Prepare(tb, c, body)
	if err != nil {
		tb.Fatalf("body %s does not validate: %v", body, err)
	}
	return req
}

// checkRequest asserts the raw request URI (path with its escapes, and query), the User-Agent
// and that no credentials are sent to these keyless upstreams.
func checkRequest(tb testing.TB, r *http.Request, wantURI string) {
	tb.Helper()
	if r.Method != http.MethodGet {
		tb.Errorf("method %s, want GET", r.Method)
	}
	if r.RequestURI != wantURI {
		tb.Errorf("request URI %q, want %q", r.RequestURI, wantURI)
	}
	if ua := r.Header.Get("User-Agent"); ua != wantUserAgent {
		tb.Errorf("User-Agent %q, want %q", ua, wantUserAgent)
	}
	if a := r.Header.Get("Authorization"); a != "" {
		tb.Errorf("Authorization %q sent to a keyless upstream", a)
	}
}

// withoutStored renders a page for a golden file without the stored documents (they are the
// fixtures themselves, checked byte for byte separately).
func withoutStored(page *providers.Page) *providers.Page {
	out := *page
	out.Records = slices.Clone(page.Records)
	for i := range out.Records {
		out.Records[i].Stored = nil
	}
	return &out
}

func wantCode(tb testing.TB, err error, code providers.Code) *providers.Error {
	tb.Helper()
	if got := providertest.ErrorCode(err); got != code {
		tb.Fatalf("error = %v, want %s", err, code)
	}
	e, _ := providers.AsError(err)
	return e
}

func wantViolation(tb testing.TB, err error, path string) {
	tb.Helper()
	wantCode(tb, err, providers.CodeInvalidRequest)
	if got := providertest.ViolationPaths(err); !reflect.DeepEqual(got, []string{path}) {
		tb.Errorf("violation paths %v, want [%s] (%v)", got, path, err)
	}
}

// uniquePaths lists the distinct violation paths of an invalid_request error, in order (the
// schema may report one field twice, for example minLength and pattern of an empty string).
func uniquePaths(err error) []string {
	var out []string
	for _, p := range providertest.ViolationPaths(err) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func TestDeclarations(t *testing.T) {
	cases := []struct {
		c         *providers.Capability
		id        string
		paging    providers.Paging
		noUpdate  bool
		providers []string
		search    []string
		actions   []string
	}{
		{Package, "jspkg.package", providers.PagingSingle, true, []string{RegistryID}, nil, []string{"details"}},
		{Search, "jspkg.search", providers.PagingOffset, false, []string{RegistryID}, []string{"more", "update"}, []string{"details"}},
		{Downloads, "jspkg.downloads", providers.PagingSingle, true, []string{DownloadsID}, nil, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			c := tc.c
			if c.ID != tc.id || c.Topic != "Dev" || c.Paging != tc.paging || c.NoUpdate != tc.noUpdate {
				t.Errorf("id/topic/paging/noUpdate = %q/%q/%q/%v", c.ID, c.Topic, c.Paging, c.NoUpdate)
			}
			if c.Deadline != 15*time.Second || c.Cost.Typical != 0 || c.Cost.Basis == "" || strings.Contains(c.Cost.Basis, "\n") {
				t.Errorf("deadline/cost = %v/%d/%q", c.Deadline, c.Cost.Typical, c.Cost.Basis)
			}
			if c.Title == "" || c.Summary == "" || c.Description == "" || c.Execute == nil {
				t.Error("title, summary, description and Execute are required")
			}
			if !reflect.DeepEqual(c.Providers, tc.providers) {
				t.Errorf("providers = %v", c.Providers)
			}
			if got := c.SearchActions(); !reflect.DeepEqual(got, tc.search) {
				t.Errorf("search actions = %v, want %v", got, tc.search)
			}
			if got := c.ActionNames(); !reflect.DeepEqual(got, tc.actions) {
				t.Errorf("record actions = %v, want %v", got, tc.actions)
			}
			if len(c.Examples) < 2 {
				t.Errorf("%d examples, want at least 2", len(c.Examples))
			}
			for _, ex := range c.Examples {
				body, _ := json.Marshal(ex.Body)
				if _, err := providertest.Prepare(t, c, string(body)); err != nil {
					t.Errorf("example %q does not validate: %v", ex.Title, err)
				}
			}
			checkSchema(t, "", c.Schema().Doc)
		})
	}
	t.Run("actions", func(t *testing.T) {
		a, _ := Package.Action("details")
		if a.Kind != providers.ActionStored || a.Run != nil || a.Description == "" {
			t.Errorf("jspkg.package details = %+v, want a stored action", a)
		}
		a, _ = Search.Action("details")
		if a.Kind != providers.ActionLookup || a.Credits != 0 || a.Run == nil || a.Description == "" {
			t.Errorf("jspkg.search details = %+v, want a free lookup", a)
		}
		if Search.PageSizeField != "size" {
			t.Errorf("jspkg.search PageSizeField = %q", Search.PageSizeField)
		}
	})
	t.Run("providers", func(t *testing.T) {
		ps := Providers()
		if len(ps) != 2 || ps[0].ID != RegistryID || ps[1].ID != DownloadsID {
			t.Fatalf("providers = %v", ps)
		}
		for _, p := range ps {
			if p.BaseURL != "" || p.KeyRequired || p.Authorize != nil || p.Sandbox == nil || p.Title == "" {
				t.Errorf("%s: base URL %q, key required %v: want no default URL, keyless, with a sandbox", p.ID, p.BaseURL, p.KeyRequired)
			}
		}
		if ps[0].MaxBody != providers.DefaultMaxBody || providers.DefaultMaxBody != 8<<20 {
			t.Errorf("registry MaxBody = %d, want 8 MiB", ps[0].MaxBody)
		}
		c := providers.NewClient(ps, providers.ClientOptions{})
		for _, p := range ps {
			if ok, why := c.Configured(p.ID); ok || !strings.Contains(why, "PROVIDER_"+strings.ToUpper(p.ID)+"_URL") {
				t.Errorf("%s without a URL: configured %v (%s)", p.ID, ok, why)
			}
		}
	})
	if got := Capabilities(); len(got) != 3 {
		t.Errorf("Capabilities() = %d, want 3", len(got))
	}
}

// checkSchema asserts additionalProperties false on every object and a description on every
// property, recursively.
func checkSchema(t *testing.T, at string, s map[string]any) {
	t.Helper()
	if s["type"] == "object" {
		if s["additionalProperties"] != false {
			t.Errorf("%s: object without additionalProperties false", at)
		}
	}
	props, _ := s["properties"].(map[string]any)
	for name, raw := range props {
		ps, _ := raw.(map[string]any)
		if d, _ := ps["description"].(string); d == "" {
			t.Errorf("%s/%s: no description", at, name)
		}
		checkSchema(t, at+"/"+name, ps)
	}
	if s["$schema"] != nil && s["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %v", s["$schema"])
	}
}

func TestHelpers(t *testing.T) {
	t.Run("documentPath", func(t *testing.T) {
		cases := map[string]string{
			"yargs": "/yargs", "@babel/parser": "/@babel%2Fparser", "@types/node": "/@types%2Fnode",
			"lodash.merge": "/lodash.merge", "JSONStream": "/JSONStream", "~tilde_pkg-1": "/~tilde_pkg-1",
		}
		for in, want := range cases {
			if got := documentPath(in); got != want {
				t.Errorf("documentPath(%q) = %q, want %q", in, got, want)
			}
		}
		if got := manifestPath("@babel/parser", "7.26.3+build.1"); got != "/@babel%2Fparser/7.26.3+build.1" {
			t.Errorf("manifestPath = %q", got)
		}
	})
	t.Run("registryError", func(t *testing.T) {
		cases := map[string]string{
			`{"error":"Not found"}`: "Not found", `"version not found: 9.9.9"`: "version not found: 9.9.9",
			`{"error":"version not found: 1.0.0"}`: "version not found: 1.0.0", `{"code":"E400","message":"bad text"}`: "bad text",
			`<html>oops</html>`: "", ``: "", `null`: "", `{"error":42}`: "",
		}
		for in, want := range cases {
			if got := registryError([]byte(in)); got != want {
				t.Errorf("registryError(%s) = %q, want %q", in, got, want)
			}
		}
	})
	t.Run("repositoryURL", func(t *testing.T) {
		cases := []struct {
			in   any
			want string
		}{
			{map[string]any{"type": "git", "url": "git+https://github.com/yargs/yargs.git"}, "https://github.com/yargs/yargs"},
			{map[string]any{"type": "git", "url": "git://github.com/substack/minimist.git"}, "https://github.com/substack/minimist"},
			{map[string]any{"url": "git+ssh://git@github.com/a/b.git"}, "https://github.com/a/b"},
			{"sindresorhus/meow", "https://github.com/sindresorhus/meow"},
			{"github:tj/commander.js", "https://github.com/tj/commander.js"},
			{"gitlab:group/proj", "https://gitlab.com/group/proj"},
			{"git@github.com:babel/babel.git", "https://github.com/babel/babel"},
			{"ssh://git@example.org/x/y.git", "https://example.org/x/y"},
			{"https://github.com/DefinitelyTyped/DefinitelyTyped.git", "https://github.com/DefinitelyTyped/DefinitelyTyped"},
			{map[string]any{"type": "git"}, ""}, {42, ""}, {"", ""}, {"not a url", ""},
		}
		for _, tc := range cases {
			if got := repositoryURL(tc.in); got != tc.want {
				t.Errorf("repositoryURL(%v) = %q, want %q", tc.in, got, tc.want)
			}
		}
	})
	t.Run("thousands", func(t *testing.T) {
		cases := map[int64]string{0: "0", 999: "999", 1000: "1,000", 31623: "31,623", 1234567: "1,234,567", -45000: "-45,000"}
		for in, want := range cases {
			if got := thousands(in); got != want {
				t.Errorf("thousands(%d) = %q, want %q", in, got, want)
			}
		}
	})
	t.Run("shorten", func(t *testing.T) {
		if got := providers.ClipLine("  a  b\n c ", 10); got != "a b c" {
			t.Errorf("shorten = %q", got)
		}
		if got := providers.ClipLine(strings.Repeat("é", 20), 5); got != "éééé…" {
			t.Errorf("shorten = %q", got)
		}
	})
	t.Run("validPackageName", func(t *testing.T) {
		for _, ok := range []string{"a", "@a/b", "lodash.merge", "JSONStream", strings.Repeat("a", 214)} {
			if !validPackageName(ok) {
				t.Errorf("%q refused", ok)
			}
		}
		for _, bad := range []string{"", ".a", "@a", "@/b", "a b", "a/b", "@a/b/c", "@a/.b", strings.Repeat("a", 215)} {
			if validPackageName(bad) {
				t.Errorf("%q accepted", bad)
			}
		}
	})
}

// mustJSON is v encoded: a typed record (its fields declared in key order) and the map of the
// keys it must hold encode alike.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

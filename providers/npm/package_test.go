package npm

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func runPackage(tb testing.TB, registry http.Handler, body string) (*providers.Page, error) {
	tb.Helper()
	return providertest.ExecuteState(tb, newClient(tb, registry, nil), Package, providers.ModeLive, prepare(tb, Package, body), nil)
}

func TestPackageGolden(t *testing.T) {
	cases := []struct {
		name    string
		fixture string
		body    string
		wantURI string
	}{
		{"package_full", "testdata/packument.json", `{"package":"commander"}`, "/commander"},
		{"package_old", "testdata/packument_old.json", `{"package":"minimist"}`, "/minimist"},
		{"package_manifest_old", "testdata/manifest_old.json", `{"package":"minimist","version":"0.0.8"}`, "/minimist/0.0.8"},
		{"package_manifest_scoped", "testdata/manifest_scoped.json", `{"package":"@babel/parser","version":"latest"}`, "/@babel%2Fparser/latest"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := serveFile(t, http.StatusOK, tc.fixture)
			page, err := runPackage(t, fake, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			r := only(t, fake)
			checkRequest(t, r, tc.wantURI)
			if a := r.Header.Get("Accept"); a != "application/json" {
				t.Errorf("Accept %q, want application/json (the full document, not the abbreviated install form)", a)
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(withoutStored(page)))
			if len(page.Records) != 1 || page.HasMore || page.Next != nil {
				t.Fatalf("%d records, has_more %v: want one single result", len(page.Records), page.HasMore)
			}
			d := page.Records[0].Stored["details"]
			if d == nil {
				t.Fatal("no stored details")
			}
			raw, ok := d.Body.(json.RawMessage)
			if want, _ := os.ReadFile(tc.fixture); !ok || !bytes.Equal(raw, want) {
				t.Error("the stored details are not the complete registry document")
			}
			if d.Links == nil {
				t.Error("stored detail links must be an array")
			}
		})
	}
}

func TestPackageDetailLinks(t *testing.T) {
	page, err := runPackage(t, serveFile(t, http.StatusOK, "testdata/packument.json"), `{"package":"commander"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []providers.Link{
		{Label: "Homepage", URL: "https://github.com/tj/commander.js#readme"},
		{Label: "Repository", URL: "https://github.com/tj/commander.js"},
		{Label: "Tarball of commander@12.1.0", URL: "https://registry.example/commander/-/commander-12.1.0.tgz"},
	}
	if got := page.Records[0].Stored["details"].Links; !reflect.DeepEqual(got, want) {
		t.Errorf("links = %v\nwant %v", got, want)
	}
}

func TestPackageScopedEncoding(t *testing.T) {
	cases := []struct{ body, wantURI string }{
		{`{"package":"@types/yargs"}`, "/@types%2Fyargs"},
		{`{"package":"@types/yargs","version":"17.0.33"}`, "/@types%2Fyargs/17.0.33"},
		{`{"package":"@babel/parser","version":"next"}`, "/@babel%2Fparser/next"},
		{`{"package":"yargs","version":"18.0.0-candidate.1"}`, "/yargs/18.0.0-candidate.1"},
		{`{"package":"lodash.merge","version":"4.6.2"}`, "/lodash.merge/4.6.2"},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			fake := serveFile(t, http.StatusOK, "testdata/manifest_scoped.json")
			if _, err := runPackage(t, fake, tc.body); err != nil {
				t.Fatal(err)
			}
			checkRequest(t, only(t, fake), tc.wantURI)
		})
	}
}

func TestPackageNotFound(t *testing.T) {
	cases := []struct {
		name, body, answer, wantPath string
	}{
		{"unknown package", `{"package":"no-such-pkg-xyz"}`, `{"error":"Not found"}`, "/package"},
		{"unknown scoped package with a version", `{"package":"@nope/x","version":"1.0.0"}`, `{"error":"Not found"}`, "/package"},
		{"unknown version (bare string)", `{"package":"yargs","version":"99.0.0"}`, `"version not found: 99.0.0"`, "/version"},
		{"unknown dist-tag (older object form)", `{"package":"yargs","version":"beta"}`, `{"error":"version not found: beta"}`, "/version"},
		{"404 without a body", `{"package":"yargs","version":"1.0.0"}`, ``, "/package"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runPackage(t, serveBody(http.StatusNotFound, tc.answer), tc.body)
			wantViolation(t, err, tc.wantPath)
			e, _ := providers.AsError(err)
			if tc.wantPath == "/package" && !strings.Contains(e.Message, "no such package") {
				t.Errorf("message %q", e.Message)
			}
		})
	}
}

func TestPackageOversize(t *testing.T) {
	t.Run("9 MiB document", func(t *testing.T) {
		_, err := runPackage(t, streamBig(9<<20), `{"package":"huge"}`)
		e := wantCode(t, err, providers.CodeProviderError)
		if !strings.Contains(e.Hint, "request a specific version") {
			t.Errorf("hint %q does not say to request a specific version", e.Hint)
		}
		if e.IsRetryable() {
			t.Error("an oversize document is not retryable")
		}
		if !strings.Contains(e.Message, "8 MiB") {
			t.Errorf("message %q", e.Message)
		}
	})
	t.Run("just under 8 MiB is stored whole", func(t *testing.T) {
		page, err := runPackage(t, streamBig(8<<20-(128<<10)), `{"package":"huge"}`)
		if err != nil {
			t.Fatal(err)
		}
		raw := page.Records[0].Stored["details"].Body.(json.RawMessage)
		if len(raw) < 7<<20 || !json.Valid(raw) {
			t.Errorf("stored document of %d bytes", len(raw))
		}
	})
}

func TestPackageUpstreamErrors(t *testing.T) {
	cases := []struct {
		name      string
		fake      *upstream
		code      providers.Code
		retryable bool
	}{
		{"server error", serveBody(http.StatusServiceUnavailable, `{"error":"Service Unavailable"}`), providers.CodeProviderError, true},
		{"malformed JSON", serveBody(http.StatusOK, `{"_id":"yargs",`), providers.CodeProviderError, true},
		{"not an object", serveBody(http.StatusOK, `null`), providers.CodeProviderError, false},
		{"array", serveBody(http.StatusOK, `["yargs"]`), providers.CodeProviderError, true},
		{"throttled briefly", &upstream{Answer: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
		}}, providers.CodeRateLimited, true},
		{"forbidden", serveBody(http.StatusForbidden, `{"error":"Forbidden"}`), providers.CodeProviderError, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runPackage(t, tc.fake, `{"package":"yargs"}`)
			e := wantCode(t, err, tc.code)
			if e.IsRetryable() != tc.retryable {
				t.Errorf("retryable = %v, want %v (%v)", e.IsRetryable(), tc.retryable, err)
			}
		})
	}
}

func TestPackageOddDocuments(t *testing.T) {
	cases := []struct {
		name   string
		doc    string
		title  string
		fields map[string]any
		notes  int
	}{
		{
			name: "no latest tag: newest by publish time",
			doc: `{"_id":"p","name":"p","dist-tags":{},"versions":{"1.0.0":{"name":"p","version":"1.0.0","license":"ISC"},
				"0.9.0":{"name":"p","version":"0.9.0"}},"time":{"1.0.0":"2020-01-02T00:00:00.000Z","0.9.0":"2021-01-01T00:00:00.000Z"}}`,
			title:  "p@0.9.0",
			fields: map[string]any{"package": "p", "version": "0.9.0", "version_count": 2},
		},
		{
			name: "unpublished package",
			doc: `{"_id":"gone","name":"gone","time":{"created":"2019-01-01T00:00:00.000Z","modified":"2022-03-04T05:06:07.000Z",
				"unpublished":{"time":"2022-03-04T05:06:07.000Z","versions":["1.0.0"]}}}`,
			title:  "gone",
			fields: map[string]any{"package": "gone"},
			notes:  1,
		},
		{
			name: "wrong types everywhere",
			doc: `{"name":7,"_id":"odd","dist-tags":{"latest":"1.0.0","beta":3},"maintainers":[null,"x",{"name":"a"}],
				"license":["MIT"],"repository":12,"versions":{"1.0.0":{"license":{"type":"MIT"},"repository":"","dependencies":["a"],
				"dist":{"tarball":5,"fileCount":"12","unpackedSize":1.5},"description":42,"homepage":"javascript:alert(1)","deprecated":"use odd2"}}}`,
			title: "odd@1.0.0",
			fields: map[string]any{"package": "odd", "version": "1.0.0", "version_count": 1, "license": map[string]any{"type": "MIT"},
				"maintainers": []map[string]any{{"name": "a"}}, "dist_tags": map[string]string{"latest": "1.0.0"},
				"dist": map[string]any{"fileCount": int64(12)}},
			notes: 1,
		},
		{
			name:   "latest tag naming a missing version",
			doc:    `{"name":"q","dist-tags":{"latest":"2.0.0"},"versions":{"1.0.0":{"version":"1.0.0","dependencies":{}}}}`,
			title:  "q@1.0.0",
			fields: map[string]any{"package": "q", "version": "1.0.0", "version_count": 1, "dependencies": map[string]string{}, "dist_tags": map[string]string{"latest": "2.0.0"}},
		},
		{
			name:   "empty document",
			doc:    `{}`,
			title:  "asked",
			fields: map[string]any{"package": "asked"},
			notes:  1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page, err := runPackage(t, serveBody(http.StatusOK, tc.doc), `{"package":"asked"}`)
			if err != nil {
				t.Fatal(err)
			}
			rec := page.Records[0]
			if got, want := mustJSON(t, rec.Data), mustJSON(t, tc.fields); rec.Title != tc.title || got != want {
				t.Errorf("record %q %s\nwant %q %s", rec.Title, got, tc.title, want)
			}
			if rec.URL != "" && !strings.HasPrefix(rec.URL, "http") {
				t.Errorf("url %q", rec.URL)
			}
			if len(page.Notes) != tc.notes {
				t.Errorf("notes %q, want %d", page.Notes, tc.notes)
			}
		})
	}
	t.Run("manifest with odd types", func(t *testing.T) {
		page, err := runPackage(t, serveBody(http.StatusOK, `{"name":null,"version":["x"],"maintainers":{},"deprecated":"old"}`),
			`{"package":"@a/b","version":"latest"}`)
		if err != nil {
			t.Fatal(err)
		}
		rec := page.Records[0]
		want := map[string]any{"package": "@a/b", "version": "latest"}
		if rec.Title != "@a/b@latest" || mustJSON(t, rec.Data) != mustJSON(t, want) || len(page.Notes) != 1 {
			t.Errorf("record %q %s notes %q", rec.Title, mustJSON(t, rec.Data), page.Notes)
		}
	})
}

func TestPackageSchema(t *testing.T) {
	long := strings.Repeat("a", 215)
	cases := []struct {
		body string
		want []string // violation paths; nil means valid
	}{
		{`{"package":"express"}`, nil},
		{`{"package":"@babel/core","version":"latest"}`, nil},
		{`{"package":"JSONStream","version":"1.3.5"}`, nil},
		{`{"package":"` + strings.Repeat("a", 214) + `"}`, nil},
		{`{"package":"a","version":"1.0.0-rc.1+build.5"}`, nil},
		{`{"package":"a","version":"` + strings.Repeat("1", 256) + `"}`, nil},
		{`{}`, []string{"/package"}},
		{`{"package":""}`, []string{"/package"}},
		{`{"package":"` + long + `"}`, []string{"/package"}},
		{`{"package":"has space"}`, []string{"/package"}},
		{`{"package":"a/b"}`, []string{"/package"}},
		{`{"package":"@scope"}`, []string{"/package"}},
		{`{"package":"@scope/"}`, []string{"/package"}},
		{`{"package":".hidden"}`, []string{"/package"}},
		{`{"package":"@a/b/c"}`, []string{"/package"}},
		{`{"package":7}`, []string{"/package"}},
		{`{"package":"a","version":""}`, []string{"/version"}},
		{`{"package":"a","version":"^1.0.0"}`, []string{"/version"}},
		{`{"package":"a","version":">=1 <2"}`, []string{"/version"}},
		{`{"package":"a","version":"` + strings.Repeat("1", 257) + `"}`, []string{"/version"}},
		{`{"package":"a","versions":"1"}`, []string{"/versions"}},
	}
	for _, tc := range cases {
		t.Run(tc.body[:min(len(tc.body), 60)], func(t *testing.T) {
			_, err := providertest.Prepare(t, Package, tc.body)
			if tc.want == nil {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if got := uniquePaths(err); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("violations %v, want %v (%v)", got, tc.want, err)
			}
		})
	}
}

func TestPackageExamples(t *testing.T) {
	for _, ex := range Package.Examples {
		body, _ := json.Marshal(ex.Body)
		name, _ := ex.Body.Request()["package"].(string)
		version, _ := ex.Body.Request()["version"].(string)
		wantURI := documentPath(name)
		if version != "" {
			wantURI = manifestPath(name, version)
		}
		check := func(t *testing.T, page *providers.Page) {
			t.Helper()
			if len(page.Records) != 1 {
				t.Fatalf("%d records", len(page.Records))
			}
			rec := page.Records[0]
			if providertest.Native(&rec)["package"] != name || rec.Stored["details"] == nil || rec.Title == "" {
				t.Errorf("record %q %v", rec.Title, providertest.Native(&rec))
			}
			if version == "" && providertest.Native(&rec)["version_count"] == nil {
				t.Error("full document without version_count")
			}
			d, err := providertest.Action(t, nil, Package, providers.ModeTest, nil, "details", &rec)
			if err != nil || d.Body == nil {
				t.Errorf("details: %v", err)
			}
		}
		t.Run("sandbox: "+ex.Title, func(t *testing.T) {
			page, err := providertest.Execute(t, newClient(t, nil, nil), Package, providers.ModeTest, string(body))
			if err != nil {
				t.Fatal(err)
			}
			check(t, page)
		})
		t.Run("live: "+ex.Title, func(t *testing.T) {
			fake := sandboxFake(RegistryID)
			page, err := runPackage(t, fake, string(body))
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, only(t, fake), wantURI)
			check(t, page)
		})
	}
	t.Run("sandbox refusals", func(t *testing.T) {
		client := newClient(t, nil, nil)
		_, err := providertest.Execute(t, client, Package, providers.ModeTest, `{"package":"yargs","version":"sandbox-not-found"}`)
		wantViolation(t, err, "/version")
		_, err = providertest.Execute(t, client, Package, providers.ModeTest, `{"package":"sandbox-not-found"}`)
		wantViolation(t, err, "/package")
	})
	t.Run("sandbox golden", func(t *testing.T) {
		page, err := providertest.Execute(t, newClient(t, nil, nil), Package, providers.ModeTest, `{"package":"yargs"}`)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "sandbox_package_yargs", providertest.RecordsJSON(withoutStored(page)))
	})
}

package pypi

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// serveSimple answers the Simple API page of a project with a fixture and a content type.
func serveSimple(t *testing.T, f *fake, path, fixture, contentType string) {
	t.Helper()
	b := providertest.Fixture(t, fixture)
	f.handle(path, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(b)
	})
}

func TestVersionsGolden(t *testing.T) {
	cases := []struct {
		name, body string
		versions   []string
		notes      int
	}{
		{"versions_example_all", `{"package":"Example.Lib","include_yanked":true}`,
			[]string{"10.0", "3.0", "2.0", "1.1", "1.0.post1", "1.0", "1.0rc1", "1.0b2", "1.0a1", "1.0.dev1", "2004d", "0.9", "0.5"}, 1},
		{"versions_example", `{"package":"example_lib"}`,
			[]string{"10.0", "3.0", "2.0", "1.0.post1", "1.0", "1.0rc1", "1.0b2", "1.0a1", "1.0.dev1", "2004d", "0.9", "0.5"}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstreams(t)
			serveSimple(t, u.index, "/simple/example-lib/", "simple_example.json", simpleJSON)
			page, err := execute(t, u.client, Versions, providers.ModeLive, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, page, u.indexURL(), "https://index.example")
			var got []string
			for _, r := range page.Records {
				got = append(got, providertest.Native(&r)["version"].(string))
			}
			if !reflect.DeepEqual(got, tc.versions) {
				t.Errorf("versions %v\nwant     %v", got, tc.versions)
			}
			if page.HasMore || page.Next != nil || len(page.Notes) != tc.notes {
				t.Errorf("has_more %v next %s notes %q", page.HasMore, page.Next, page.Notes)
			}
			reqs := u.index.Requests()
			if len(reqs) != 1 || reqs[0].URL.Path != "/simple/example-lib/" || reqs[0].URL.RawQuery != "" ||
				reqs[0].Header.Get("Accept") != "application/vnd.pypi.simple.v1+json" {
				t.Errorf("requests %v Accept %q", reqs, reqs[0].Header.Get("Accept"))
			}
		})
	}
}

func TestVersionsFields(t *testing.T) {
	u := newUpstreams(t)
	serveSimple(t, u.index, "/simple/example-lib/", "simple_example.json", simpleJSON+"; charset=utf-8")
	page, err := execute(t, u.client, Versions, providers.ModeLive, `{"package":"example-lib","include_yanked":true}`)
	if err != nil {
		t.Fatal(err)
	}
	byVersion := map[string]map[string]any{}
	for _, r := range page.Records {
		byVersion[providertest.Native(&r)["version"].(string)] = providertest.Native(&r)
	}
	cases := []struct {
		version string
		want    map[string]any
	}{
		// the earliest file's upload time and Requires-Python; the egg and both 1.0 files count
		{"1.0", map[string]any{"version": "1.0", "yanked": false, "file_count": 3, "upload_time": "2013-05-01T09:00:00.000000Z", "requires_python": ">=3.6"}},
		{"1.1", map[string]any{"version": "1.1", "yanked": true, "yanked_reason": "broken metadata", "file_count": 2, "upload_time": "2015-01-01T00:00:00.000000Z", "requires_python": ">=3.7"}},
		// one of two files yanked: the release is not
		{"2.0", map[string]any{"version": "2.0", "yanked": false, "file_count": 2, "upload_time": "2016-01-01T00:00:00.000000Z", "requires_python": ">=3.8"}},
		// a version missing from versions[] is added from its file
		{"3.0", map[string]any{"version": "3.0", "yanked": false, "file_count": 1, "upload_time": "2019-01-01T00:00:00.000000Z", "requires_python": ">=3.8"}},
		// an installer with a platform suffix joins its version
		{"0.9", map[string]any{"version": "0.9", "yanked": false, "file_count": 2, "upload_time": "2011-03-01T10:00:00.000000Z"}},
		// a wheel with a build tag joins its version
		{"10.0", map[string]any{"version": "10.0", "yanked": false, "file_count": 2, "upload_time": "2020-01-01T00:00:00.000000Z", "requires_python": ">=3.9"}},
		// a version without files
		{"0.5", map[string]any{"version": "0.5", "yanked": false, "file_count": 0}},
		{"1.0.dev1", map[string]any{"version": "1.0.dev1", "yanked": false, "file_count": 1, "upload_time": "2012-12-01T09:00:00.123456Z"}},
	}
	for _, tc := range cases {
		if got := byVersion[tc.version]; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v\nwant %v", tc.version, got, tc.want)
		}
	}
	if len(page.Notes) != 1 {
		t.Errorf("notes %q, want the unmatched file note", page.Notes)
	}
	rec := page.Records[0]
	if rec.Title != "example-lib 10.0" || rec.URL != u.indexURL()+"/project/example-lib/10.0/" {
		t.Errorf("title %q url %q", rec.Title, rec.URL)
	}
	var ref versionRef
	if err := json.Unmarshal(rec.Ref, &ref); err != nil || ref != (versionRef{Package: "example-lib", Version: "10.0"}) {
		t.Errorf("ref %s", rec.Ref)
	}
}

func TestVersionsUpstream(t *testing.T) {
	cases := []struct {
		name        string
		status      int
		contentType string
		body        string
		code        providers.Code
		path        string
	}{
		{"unknown project", 404, "text/html", `<html><title>404 Not Found</title></html>`, providers.CodeInvalidRequest, "/package"},
		{"HTML form only", 200, "text/html; charset=utf-8", `<!DOCTYPE html><html><body><a href="x-1.0.tar.gz">x-1.0.tar.gz</a></body></html>`, providers.CodeProviderError, ""},
		{"unsupported major version", 200, simpleJSON, `{"meta":{"api-version":"2.0"},"name":"x","files":[]}`, providers.CodeProviderError, ""},
		{"malformed JSON", 200, simpleJSON, `{"meta":`, providers.CodeProviderError, ""},
		{"server error", 500, "text/plain", `oops`, providers.CodeProviderError, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstreams(t)
			u.index.handle("/simple/x/", func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			})
			_, err := execute(t, u.client, Versions, providers.ModeLive, `{"package":"X"}`)
			if providertest.ErrorCode(err) != tc.code {
				t.Fatalf("error = %v, want %s", err, tc.code)
			}
			if tc.path != "" && !reflect.DeepEqual(violationPaths(err), []string{tc.path}) {
				t.Errorf("violations %v", violationPaths(err))
			}
		})
	}

	t.Run("odd shapes", func(t *testing.T) {
		u := newUpstreams(t)
		u.index.handle("/simple/x/", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", simpleJSON)
			_, _ = w.Write([]byte(`{"meta":{"api-version":"1.0"},"name":null,"versions":"1.0","files":[null,"junk",
				{"filename":"x-1.0.tar.gz","yanked":"","upload-time":"yesterday","requires-python":7},
				{"filename":"x-2.0-py3-none-any.whl","yanked":{"why":1},"upload-time":null}]}`))
		})
		page, err := execute(t, u.client, Versions, providers.ModeLive, `{"package":"x","include_yanked":true}`)
		if err != nil {
			t.Fatal(err)
		}
		got := []map[string]any{}
		for _, r := range page.Records {
			got = append(got, providertest.Native(&r))
		}
		want := []map[string]any{
			{"version": "2.0", "yanked": false, "file_count": 1},
			{"version": "1.0", "yanked": true, "file_count": 1, "upload_time": "yesterday"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("records %v\nwant %v", got, want)
		}
	})
}

func TestVersionsDetails(t *testing.T) {
	rec := func(t *testing.T, ref string) *providers.Record {
		t.Helper()
		return &providers.Record{Title: "x", Ref: json.RawMessage(ref)}
	}
	req := prepare(t, Versions, `{"package":"django"}`)
	t.Run("lookup", func(t *testing.T) {
		u := newUpstreams(t)
		u.index.serve("/pypi/Django/2.2.17/json", http.StatusOK, "release_django.json")
		d, err := providertest.Action(t, u.client, Versions, providers.ModeLive, req, "details", rec(t, `{"package":"Django","version":"2.2.17"}`))
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body.(*ReleaseDetail)
		if body.Version != "2.2.17" || len(body.Files) != 2 || len(d.Links) == 0 {
			t.Errorf("detail %v links %v", body, d.Links)
		}
		if d.Credits != nil {
			t.Errorf("credits %d, want the action's 0", *d.Credits)
		}
	})
	t.Run("release gone", func(t *testing.T) {
		u := newUpstreams(t)
		_, err := providertest.Action(t, u.client, Versions, providers.ModeLive, req, "details", rec(t, `{"package":"x","version":"1.0"}`))
		if providertest.ErrorCode(err) != providers.CodeNotFound {
			t.Errorf("error = %v, want not_found", err)
		}
	})
	for _, ref := range []string{``, `{}`, `{"package":"x"}`, `{"package":"-x","version":"1"}`, `nope`} {
		t.Run("unusable ref "+ref, func(t *testing.T) {
			u := newUpstreams(t)
			_, err := providertest.Action(t, u.client, Versions, providers.ModeLive, req, "details", rec(t, ref))
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest || len(u.index.Requests()) != 0 {
				t.Errorf("error = %v, %d requests", err, len(u.index.Requests()))
			}
		})
	}
}

func TestVersionsSchema(t *testing.T) {
	cases := []struct {
		body  string
		paths []string
	}{
		{`{"package":"requests"}`, nil},
		{`{"package":"requests","include_yanked":true,"num":100}`, nil},
		{`{"package":"requests","num":1}`, nil},
		{`{"package":"requests","num":0}`, []string{"/num"}},
		{`{"package":"requests","num":101}`, []string{"/num"}},
		{`{"package":"requests","num":2.5}`, []string{"/num"}},
		{`{"package":"requests","include_yanked":"yes"}`, []string{"/include_yanked"}},
		{`{"package":"requests","version":"1.0"}`, []string{"/version"}},
		{`{"num":5}`, []string{"/package"}},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			req, err := providertest.Prepare(t, Versions, tc.body)
			if got := violationPaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violations %v, want %v (%v)", got, tc.paths, err)
			}
			if err == nil && (!req.Has("include_yanked") || !req.Has("num")) {
				t.Errorf("defaults not applied: %v", req)
			}
		})
	}
}

func TestFileVersionText(t *testing.T) {
	cases := []struct {
		file, project, text string
		exact               bool
	}{
		{"requests-2.32.3-py3-none-any.whl", "requests", "2.32.3", true},
		{"example_lib-10.0-1-py3-none-any.whl", "example-lib", "10.0", true},
		{"example_lib-1.0-py2.7.egg", "example-lib", "1.0", true},
		{"example_lib-1.0.tar.gz", "example-lib", "1.0", false},
		{"Example-Lib-0.9.win32.exe", "example-lib", "0.9.win32", false},
		{"zope.interface-6.0.zip", "zope-interface", "6.0", false},
		{"python-dateutil-2.9.0.post0.tar.gz", "python-dateutil", "2.9.0.post0", false},
		{"foo-bar-1.0.tar.bz2", "foo-bar", "1.0", false},
		{"other-1.0.tar.gz", "example-lib", "", false},
		{"broken.whl", "broken", "", false},
	}
	for _, tc := range cases {
		text, exact := fileVersionText(tc.file, tc.project)
		if text != tc.text || exact != tc.exact {
			t.Errorf("fileVersionText(%q, %q) = %q, %v; want %q, %v", tc.file, tc.project, text, exact, tc.text, tc.exact)
		}
	}
}

package pypi

import (
	"bytes"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func TestDetailsGolden(t *testing.T) {
	cases := []struct {
		name, body, path, fixture string
	}{
		{"details_sampleproject", `{"package":"SampleProject"}`, "/pypi/sampleproject/json", "project_sampleproject.json"},
		{"details_django_release", `{"package":"Django","version":"2.2.17"}`, "/pypi/django/2.2.17/json", "release_django.json"},
		{"details_odd", `{"package":"odd_project","version":"0.1"}`, "/pypi/odd-project/0.1/json", "release_odd.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstreams(t)
			u.index.serve(tc.path, http.StatusOK, tc.fixture)
			page, err := execute(t, u.client, Details, providers.ModeLive, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, page)
			reqs := u.index.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.URL.Path != tc.path || r.URL.RawQuery != "" || r.Header.Get("Accept") != "application/json" || r.Header.Get("Authorization") != "" {
				t.Errorf("request %s?%s Accept %q Authorization %q", r.URL.Path, r.URL.RawQuery, r.Header.Get("Accept"), r.Header.Get("Authorization"))
			}
			if page.HasMore || page.Next != nil || len(page.Records) != 1 {
				t.Errorf("has_more %v next %s records %d", page.HasMore, page.Next, len(page.Records))
			}
			rec := page.Records[0]
			if _, ok := rec.Stored["details"]; !ok {
				t.Fatal("no stored details")
			}
			for _, k := range []string{"package", "version", "file_count"} {
				if _, ok := providertest.Native(&rec)[k]; !ok {
					t.Errorf("always key %s missing", k)
				}
			}
			for _, deprecated := range []string{"releases", "downloads", "has_sig", "bugtrack_url"} {
				if strings.Contains(string(mustJSON(t, providertest.RecordsJSON(page))), `"`+deprecated+`"`) {
					t.Errorf("deprecated key %s relayed", deprecated)
				}
			}
		})
	}
}

func TestDetailsStoredDetail(t *testing.T) {
	u := newUpstreams(t)
	u.index.serve("/pypi/django/2.2.17/json", http.StatusOK, "release_django.json")
	page, err := execute(t, u.client, Details, providers.ModeLive, `{"package":"django","version":"2.2.17"}`)
	if err != nil {
		t.Fatal(err)
	}
	d, err := providertest.Action(t, u.client, Details, providers.ModeLive, nil, "details", &page.Records[0])
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "details_django_stored", d)
	body := d.Body.(*ReleaseDetail)
	vulns := body.Vulnerabilities
	if len(vulns) != 2 || vulns[0].Details == "" || vulns[1].Withdrawn != "2022-06-28T16:39:06Z" {
		t.Errorf("vulnerabilities = %v", vulns)
	}
	files := body.Files
	if len(files) != 2 || files[0].Digests == nil || files[0].Digests.SHA256 == "" || files[0].Yanked == nil || !*files[0].Yanked {
		t.Errorf("files = %v", files)
	}
	if len(u.index.Requests()) != 1 {
		t.Error("a stored detail must not call the index")
	}

	t.Run("empty lists stay present", func(t *testing.T) {
		u := newUpstreams(t)
		u.index.serve("/pypi/sampleproject/json", http.StatusOK, "project_sampleproject.json")
		page, err := execute(t, u.client, Details, providers.ModeLive, `{"package":"sampleproject"}`)
		if err != nil {
			t.Fatal(err)
		}
		body := page.Records[0].Stored["details"].Body.(*ReleaseDetail)
		if v := body.Vulnerabilities; v == nil || len(v) != 0 {
			t.Errorf("vulnerabilities = %#v, want an empty list", body.Vulnerabilities)
		}
		if _, ok := providertest.Native(&page.Records[0])["vulnerabilities"]; ok {
			t.Error("the record carries vulnerabilities although none are known")
		}
	})
}

func TestDetailsNames(t *testing.T) {
	cases := []struct{ body, path string }{
		{`{"package":"Flask_SQLAlchemy"}`, "/pypi/flask-sqlalchemy/json"},
		{`{"package":"zope.interface","version":"6.0"}`, "/pypi/zope-interface/6.0/json"},
		{`{"package":"x","version":"1.0+local.7"}`, "/pypi/x/1.0+local.7/json"},
		{`{"package":"x","version":"1!2.0.post1"}`, "/pypi/x/1%212.0.post1/json"},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			u := newUpstreams(t)
			_, _ = execute(t, u.client, Details, providers.ModeLive, tc.body)
			reqs := u.index.Requests()
			if len(reqs) == 0 || reqs[0].URL.EscapedPath() != tc.path {
				t.Errorf("requests %v, want first %s", reqs, tc.path)
			}
		})
	}
}

func TestDetailsRedirectIsFollowed(t *testing.T) {
	u := newUpstreams(t)
	u.index.handle("/pypi/django/json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/pypi/Django/json", http.StatusMovedPermanently)
	})
	u.index.serve("/pypi/Django/json", http.StatusOK, "release_django.json")
	page, err := execute(t, u.client, Details, providers.ModeLive, `{"package":"Django"}`)
	if err != nil {
		t.Fatal(err)
	}
	if providertest.Native(&page.Records[0])["package"] != "Django" {
		t.Errorf("package = %v", providertest.Native(&page.Records[0])["package"])
	}
}

func TestDetailsUnknown(t *testing.T) {
	notFound := `{"message": "Not Found"}`
	cases := []struct {
		name         string
		body         string
		project      int // status of /pypi/x/json (299: an answer over the size limit)
		wantCode     providers.Code
		wantPath     string
		wantRequests int
	}{
		{"unknown project", `{"package":"x"}`, 404, providers.CodeInvalidRequest, "/package", 1},
		{"unknown release of a known project", `{"package":"x","version":"9.9"}`, 200, providers.CodeInvalidRequest, "/version", 2},
		{"unknown project with a version", `{"package":"x","version":"9.9"}`, 404, providers.CodeInvalidRequest, "/package", 2},
		{"project check fails", `{"package":"x","version":"9.9"}`, 503, providers.CodeProviderError, "", 2},
		{"project too large to check", `{"package":"x","version":"9.9"}`, 299, providers.CodeInvalidRequest, "/version", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstreams(t)
			u.index.serve("/pypi/x/9.9/json", 404, notFound)
			switch tc.project {
			case 200:
				u.index.serve("/pypi/x/json", 200, "project_sampleproject.json")
			case 299: // over the size limit
				u.index.handle("/pypi/x/json", func(w http.ResponseWriter, _ *http.Request) {
					_, _ = w.Write(bytes.Repeat([]byte(" "), providers.DefaultMaxBody+1))
				})
			default:
				u.index.serve("/pypi/x/json", tc.project, notFound)
			}
			_, err := execute(t, u.client, Details, providers.ModeLive, tc.body)
			if providertest.ErrorCode(err) != tc.wantCode {
				t.Fatalf("error = %v, want %s", err, tc.wantCode)
			}
			if tc.wantPath != "" && !reflect.DeepEqual(providertest.ViolationPaths(err), []string{tc.wantPath}) {
				t.Errorf("violations %v, want %s", providertest.ViolationPaths(err), tc.wantPath)
			}
			if n := len(u.index.Requests()); n != tc.wantRequests {
				t.Errorf("%d requests, want %d", n, tc.wantRequests)
			}
		})
	}
}

func TestDetailsUpstreamErrors(t *testing.T) {
	big := append([]byte(`{"info":{"name":"big","version":"1","description":"`), bytes.Repeat([]byte("x"), providers.DefaultMaxBody)...)
	big = append(big, []byte(`"}}`)...)
	cases := []struct {
		name      string
		status    int
		header    map[string]string
		body      []byte
		code      providers.Code
		retryable bool
		hint      bool
	}{
		{"over 8 MiB", 200, nil, big, providers.CodeProviderError, false, true},
		{"malformed JSON", 200, nil, []byte(`{"info": {`), providers.CodeProviderError, true, false},
		{"no info", 200, nil, []byte(`{"last_serial": 1, "urls": []}`), providers.CodeProviderError, true, false},
		{"info without a version", 200, nil, []byte(`{"info": {"name": "x"}, "urls": []}`), providers.CodeProviderError, true, false},
		{"server error", 503, nil, []byte(`<html>Service Unavailable</html>`), providers.CodeProviderError, true, false},
		{"throttled briefly", 429, map[string]string{"Retry-After": "5"}, []byte(`{"message":"Too Many Requests"}`), providers.CodeRateLimited, true, false},
		{"throttled", 429, nil, []byte(`{"message":"Too Many Requests"}`), providers.CodeProviderAllowance, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstreams(t)
			u.index.handle("/pypi/x/json", func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write(tc.body)
			})
			_, err := execute(t, u.client, Details, providers.ModeLive, `{"package":"x"}`)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code || e.IsRetryable() != tc.retryable || (e.Hint != "") != tc.hint {
				t.Fatalf("error = %v (retryable %v, hint %q), want %s retryable %v hint %v", err, ok && e.IsRetryable(), e.Hint, tc.code, tc.retryable, tc.hint)
			}
		})
	}
}

func TestDetailsSchema(t *testing.T) {
	long := strings.Repeat("a", 215)
	cases := []struct {
		body  string
		paths []string
	}{
		{`{"package":"requests"}`, nil},
		{`{"package":"a"}`, nil},
		{`{"package":"A1._-b","version":"1!2.0rc1+local_7"}`, nil},
		{`{"package":"` + strings.Repeat("a", 214) + `"}`, nil},
		{`{"package":"x","version":"` + strings.Repeat("1", 128) + `"}`, nil},
		{`{}`, []string{"/package"}},
		{`{"package":""}`, []string{"/package"}},
		{`{"package":"-requests"}`, []string{"/package"}},
		{`{"package":"requests."}`, []string{"/package"}},
		{`{"package":"req uests"}`, []string{"/package"}},
		{`{"package":"` + long + `"}`, []string{"/package"}},
		{`{"package":42}`, []string{"/package"}},
		{`{"package":"x","version":""}`, []string{"/version"}},
		{`{"package":"x","version":".1"}`, []string{"/version"}},
		{`{"package":"x","version":"1.0 beta"}`, []string{"/version"}},
		{`{"package":"x","version":"` + strings.Repeat("1", 129) + `"}`, []string{"/version"}},
		{`{"package":"x","num":3}`, []string{"/num"}},
	}
	for _, tc := range cases {
		t.Run(tc.body[:min(len(tc.body), 60)], func(t *testing.T) {
			_, err := providertest.Prepare(t, Details, tc.body)
			if got := violationPaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violations %v, want %v (%v)", got, tc.paths, err)
			}
		})
	}
}

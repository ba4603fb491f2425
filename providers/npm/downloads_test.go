package npm

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// pinNow fixes the rules' clock for a test.
func pinNow(t *testing.T, day string) {
	t.Helper()
	at, err := time.Parse(dateLayout, day)
	if err != nil {
		t.Fatal(err)
	}
	prev := now
	now = func() time.Time { return at.Add(15 * time.Hour) }
	t.Cleanup(func() { now = prev })
}

func runDownloads(tb testing.TB, dl http.Handler, body string) (*providers.Page, error) {
	tb.Helper()
	return providertest.ExecuteState(tb, newClient(tb, nil, dl), Downloads, providers.ModeLive, prepare(tb, Downloads, body), nil)
}

func TestDownloadsGolden(t *testing.T) {
	cases := []struct {
		name, fixture, body, wantURI string
	}{
		{"downloads_point", "testdata/downloads_point.json", `{"package":"jquery","period":"2024-01-01:2024-01-31"}`, "/downloads/point/2024-01-01:2024-01-31/jquery"},
		{"downloads_range", "testdata/downloads_range.json", `{"package":"@slack/client","kind":"range","period":"2024-02-26:2024-03-03"}`, "/downloads/range/2024-02-26:2024-03-03/@slack/client"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := serveFile(t, http.StatusOK, tc.fixture)
			page, err := runDownloads(t, fake, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, only(t, fake), tc.wantURI)
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
			if len(page.Records) != 1 || page.HasMore || page.Next != nil {
				t.Errorf("want one single result, got %d records has_more %v", len(page.Records), page.HasMore)
			}
			for _, k := range []string{"package", "kind", "start", "end", "downloads"} {
				if _, ok := providertest.Native(&page.Records[0])[k]; !ok {
					t.Errorf("record lacks %s (always present)", k)
				}
			}
		})
	}
}

func TestDownloadsPeriodForms(t *testing.T) {
	pinNow(t, "2025-06-15")
	point := `{"downloads":5,"start":"2025-06-14","end":"2025-06-14","package":"p"}`
	rng := `{"downloads":[{"day":"2025-06-14","downloads":5}],"start":"2025-06-14","end":"2025-06-14","package":"p"}`
	cases := []struct {
		body, wantURI string
	}{
		{`{"package":"p"}`, "/downloads/point/last-month/p"},
		{`{"package":"p","period":"last-day"}`, "/downloads/point/last-day/p"},
		{`{"package":"p","period":"last-week"}`, "/downloads/point/last-week/p"},
		{`{"package":"p","period":"last-month"}`, "/downloads/point/last-month/p"},
		{`{"package":"p","period":"last-year"}`, "/downloads/point/last-year/p"},
		{`{"package":"p","period":"2024-02-29"}`, "/downloads/point/2024-02-29/p"},
		{`{"package":"p","period":"2024-01-01:2024-01-31"}`, "/downloads/point/2024-01-01:2024-01-31/p"},
		{`{"package":"p","period":"2023-01-01:2024-06-30"}`, "/downloads/point/2023-01-01:2024-06-30/p"},
		{`{"package":"p","period":"2015-01-10"}`, "/downloads/point/2015-01-10/p"},
		{`{"package":"p","period":"2025-06-15"}`, "/downloads/point/2025-06-15/p"},
		{`{"package":"p","kind":"point","period":"last-week"}`, "/downloads/point/last-week/p"},
		{`{"package":"p","kind":"range"}`, "/downloads/range/last-month/p"},
		{`{"package":"p","kind":"range","period":"last-day"}`, "/downloads/range/last-day/p"},
		{`{"package":"p","kind":"range","period":"last-year"}`, "/downloads/range/last-year/p"},
		{`{"package":"p","kind":"range","period":"2024-12-01"}`, "/downloads/range/2024-12-01/p"},
		{`{"package":"@scope/p","kind":"range","period":"2024-12-01:2024-12-31"}`, "/downloads/range/2024-12-01:2024-12-31/@scope/p"},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			answer := point
			if strings.Contains(tc.body, `"range"`) {
				answer = rng
			}
			fake := serveBody(http.StatusOK, answer)
			page, err := runDownloads(t, fake, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, only(t, fake), tc.wantURI)
			wantKind := "point"
			if strings.Contains(tc.body, `"range"`) {
				wantKind = "range"
			}
			if providertest.Native(&page.Records[0])["kind"] != wantKind {
				t.Errorf("kind %v", providertest.Native(&page.Records[0])["kind"])
			}
		})
	}
}

func TestDownloadsRules(t *testing.T) {
	pinNow(t, "2025-06-15")
	cases := []struct {
		period string
		ok     bool
		why    string
	}{
		{"2024-02-29", true, "leap day"},
		{"2023-02-29", false, "not a leap year"},
		{"2024-02-30", false, "no such day"},
		{"2024-13-01", false, "no such month"},
		{"2024-00-10", false, "month zero"},
		{"2024-01-01:2024-04-31", false, "end is not a calendar date"},
		{"2024-03-01:2024-02-01", false, "end precedes start"},
		{"2024-03-01:2024-03-01", true, "one-day range"},
		{"2023-01-01:2024-06-30", true, "exactly 18 months"},
		{"2023-01-01:2024-07-01", false, "over 18 months"},
		{"2015-01-10:2025-01-01", false, "ten years"},
		{"2014-01-01:2014-12-31", false, "entirely before the data starts"},
		{"2015-01-09", false, "the day before the data starts"},
		{"2015-01-10", true, "the first day with data"},
		{"2014-12-01:2015-01-31", true, "partly before the data starts"},
		{"2025-06-15", true, "today"},
		{"2025-06-16", false, "tomorrow"},
		{"2025-06-01:2025-07-01", true, "ends in the future, starts in the past"},
		{"2026-01-01:2026-01-31", false, "entirely in the future"},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			_, err := providertest.Prepare(t, Downloads, `{"package":"p","period":"`+tc.period+`"}`)
			if tc.ok {
				if err != nil {
					t.Errorf("%s refused: %v", tc.period, err)
				}
				return
			}
			wantViolation(t, err, "/period")
		})
	}
	t.Run("refused before any call", func(t *testing.T) {
		fake := refuse(t)
		_ = newClient(t, nil, fake)
		_, err := providertest.Prepare(t, Downloads, `{"package":"p","period":"2023-01-01:2024-07-01"}`)
		wantViolation(t, err, "/period")
		if n := len(fake.Requests()); n != 0 {
			t.Errorf("%d upstream calls", n)
		}
	})
	t.Run("note for days before the data", func(t *testing.T) {
		page, err := runDownloads(t, serveBody(http.StatusOK, `{"downloads":7,"start":"2014-12-01","end":"2015-01-31","package":"p"}`),
			`{"package":"p","period":"2014-12-01:2015-01-31"}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "2015-01-10") {
			t.Errorf("notes %q", page.Notes)
		}
	})
}

func TestDownloadsSchema(t *testing.T) {
	pinNow(t, "2025-06-15")
	cases := []struct {
		body string
		want []string
	}{
		{`{"package":"express"}`, nil},
		{`{"package":"@babel/core","period":"last-year","kind":"range"}`, nil},
		{`{}`, []string{"/package"}},
		{`{"package":"a b"}`, []string{"/package"}},
		{`{"package":"` + strings.Repeat("a", 215) + `"}`, []string{"/package"}},
		{`{"package":"p","period":"last-decade"}`, []string{"/period"}},
		{`{"package":"p","period":"yesterday"}`, []string{"/period"}},
		{`{"package":"p","period":"2024-1-1"}`, []string{"/period"}},
		{`{"package":"p","period":"2024-01-01:"}`, []string{"/period"}},
		{`{"package":"p","period":"2024-01-01..2024-01-31"}`, []string{"/period"}},
		{`{"package":"p","period":"2024-01-01:2024-01-31:2024-02-01"}`, []string{"/period"}},
		{`{"package":"p","period":""}`, []string{"/period"}},
		{`{"package":"p","kind":"total"}`, []string{"/kind"}},
		{`{"package":"p","kind":null}`, []string{"/kind"}},
		{`{"package":"p","version":"1.0.0"}`, []string{"/version"}},
	}
	for _, tc := range cases {
		t.Run(tc.body[:min(len(tc.body), 60)], func(t *testing.T) {
			_, err := providertest.Prepare(t, Downloads, tc.body)
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
	t.Run("defaults applied", func(t *testing.T) {
		req := prepare(t, Downloads, `{"package":"p"}`)
		if req.Str("period") != "last-month" || req.Str("kind") != "point" {
			t.Errorf("period %q kind %q", req.Str("period"), req.Str("kind"))
		}
	})
}

func TestDownloadsUpstreamAnswers(t *testing.T) {
	pinNow(t, "2025-06-15")
	errorCases := []struct {
		name, body string
		fake       *upstream
		code       providers.Code
		path       string
		retryable  bool
	}{
		{"unknown package", `{"package":"no-such-pkg"}`, serveBody(http.StatusNotFound, `{"error":"package no-such-pkg not found"}`), providers.CodeInvalidRequest, "/package", false},
		{"refused period", `{"package":"p","period":"2024-01-01:2024-02-01"}`, serveBody(http.StatusBadRequest, `{"error":"end date > start date"}`), providers.CodeInvalidRequest, "/period", false},
		{"range too large (upstream's own check)", `{"package":"p","period":"2023-01-01:2024-06-30"}`, serveBody(http.StatusBadRequest, `{"error":"Date range requested is too large"}`), providers.CodeInvalidRequest, "/period", false},
		{"error in a 200 answer", `{"package":"p","period":"2016-01-01"}`, serveBody(http.StatusOK, `{"error":"no stats for this package for this period (0002)"}`), providers.CodeInvalidRequest, "/period", false},
		{"other 400", `{"package":"p"}`, serveBody(http.StatusBadRequest, `{"error":"bad request"}`), providers.CodeProviderError, "", false},
		{"other error in a 200 answer", `{"package":"p"}`, serveBody(http.StatusOK, `{"error":"query failed (0001)"}`), providers.CodeProviderError, "", false},
		{"server error", `{"package":"p"}`, serveBody(http.StatusBadGateway, `<html>bad gateway</html>`), providers.CodeProviderError, "", true},
		{"malformed JSON", `{"package":"p"}`, serveBody(http.StatusOK, `{"downloads":`), providers.CodeProviderError, "", true},
		{"point without a count", `{"package":"p"}`, serveBody(http.StatusOK, `{"start":"2025-05-15","end":"2025-06-13","package":"p"}`), providers.CodeProviderError, "", true},
		{"range without days", `{"package":"p","kind":"range"}`, serveBody(http.StatusOK, `{"start":"2025-05-15","end":"2025-06-13","package":"p","downloads":12}`), providers.CodeProviderError, "", true},
		{"last-month without dates", `{"package":"p"}`, serveBody(http.StatusOK, `{"downloads":12,"package":"p"}`), providers.CodeProviderError, "", true},
		{"throttled briefly", `{"package":"p"}`, &upstream{Answer: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "5")
			w.WriteHeader(http.StatusTooManyRequests)
		}}, providers.CodeRateLimited, "", true},
	}
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runDownloads(t, tc.fake, tc.body)
			e := wantCode(t, err, tc.code)
			if tc.path != "" {
				wantViolation(t, err, tc.path)
			}
			if e.IsRetryable() != tc.retryable {
				t.Errorf("retryable %v, want %v", e.IsRetryable(), tc.retryable)
			}
		})
	}

	t.Run("explicit dates fill a missing start and end", func(t *testing.T) {
		page, err := runDownloads(t, serveBody(http.StatusOK, `{"downloads":[{"day":"2024-01-01","downloads":3}]}`),
			`{"package":"p","kind":"range","period":"2024-01-01"}`)
		if err != nil {
			t.Fatal(err)
		}
		f := providertest.Native(&page.Records[0])
		if f["start"] != "2024-01-01" || f["end"] != "2024-01-01" || f["package"] != "p" {
			t.Errorf("fields %v", f)
		}
	})
	t.Run("odd day entries are skipped", func(t *testing.T) {
		page, err := runDownloads(t, serveBody(http.StatusOK, `{"start":"2024-01-01","end":"2024-01-04","package":"p","downloads":[
			{"day":"2024-01-01","downloads":10},null,{"day":"2024-01-02"},{"downloads":4},{"day":"2024-01-04","downloads":"7"},"x"]}`),
			`{"package":"p","kind":"range","period":"2024-01-01:2024-01-04"}`)
		if err != nil {
			t.Fatal(err)
		}
		rec := page.Records[0]
		want := []dayCount{{Day: "2024-01-01", Downloads: 10}, {Day: "2024-01-04", Downloads: 7}}
		if got := providertest.Native(&rec)["downloads"]; !reflect.DeepEqual(got, want) {
			t.Errorf("downloads %#v", got)
		}
		if rec.Snippet != "17 downloads in total over 2 days." {
			t.Errorf("snippet %q", rec.Snippet)
		}
	})
	t.Run("empty range is an empty array", func(t *testing.T) {
		page, err := runDownloads(t, serveBody(http.StatusOK, `{"start":"2024-01-01","end":"2024-01-02","package":"p","downloads":[]}`),
			`{"package":"p","kind":"range","period":"2024-01-01:2024-01-02"}`)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(providertest.Native(&page.Records[0])["downloads"])
		if string(b) != "[]" {
			t.Errorf("downloads %s", b)
		}
	})
	t.Run("zero downloads", func(t *testing.T) {
		page, err := runDownloads(t, serveBody(http.StatusOK, `{"downloads":0,"start":"2025-05-15","end":"2025-06-13","package":"p"}`), `{"package":"p"}`)
		if err != nil {
			t.Fatal(err)
		}
		if providertest.Native(&page.Records[0])["downloads"] != int64(0) || page.Records[0].Title != "p: 0 downloads, 2025-05-15 to 2025-06-13" {
			t.Errorf("record %q %v", page.Records[0].Title, providertest.Native(&page.Records[0]))
		}
	})
}

func TestDownloadsExamples(t *testing.T) {
	for _, ex := range Downloads.Examples {
		body, _ := json.Marshal(ex.Body)
		name, _ := ex.Body.Request()["package"].(string)
		kind, _ := ex.Body.Request()["kind"].(string)
		if kind == "" {
			kind = "point"
		}
		period, _ := ex.Body.Request()["period"].(string)
		if period == "" {
			period = "last-month"
		}
		check := func(t *testing.T, page *providers.Page) {
			t.Helper()
			if len(page.Records) != 1 {
				t.Fatalf("%d records", len(page.Records))
			}
			f := providertest.Native(&page.Records[0])
			if f["package"] != name || f["kind"] != kind || f["start"] == "" || f["end"] == "" {
				t.Errorf("fields %v", f)
			}
			switch kind {
			case "point":
				if _, ok := f["downloads"].(int64); !ok {
					t.Errorf("point downloads %T", f["downloads"])
				}
			case "range":
				if d, ok := f["downloads"].([]dayCount); !ok || len(d) == 0 {
					t.Errorf("range downloads %v", f["downloads"])
				}
			}
		}
		t.Run("sandbox: "+ex.Title, func(t *testing.T) {
			page, err := providertest.Execute(t, newClient(t, nil, nil), Downloads, providers.ModeTest, string(body))
			if err != nil {
				t.Fatal(err)
			}
			check(t, page)
		})
		t.Run("live: "+ex.Title, func(t *testing.T) {
			fake := sandboxFake(DownloadsID)
			page, err := runDownloads(t, fake, string(body))
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, only(t, fake), "/downloads/"+kind+"/"+period+"/"+name)
			check(t, page)
		})
	}
	t.Run("sandbox unknown package", func(t *testing.T) {
		_, err := providertest.Execute(t, newClient(t, nil, nil), Downloads, providers.ModeTest, `{"package":"sandbox-not-found"}`)
		wantViolation(t, err, "/package")
	})
	t.Run("sandbox golden", func(t *testing.T) {
		page, err := providertest.Execute(t, newClient(t, nil, nil), Downloads, providers.ModeTest,
			`{"package":"@babel/parser","kind":"range","period":"2024-01-01:2024-01-07"}`)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "sandbox_downloads_range", providertest.RecordsJSON(page))
	})
}

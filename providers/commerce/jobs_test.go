package commerce

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const page2Token = "eyJmYyI6IkVvd0JDc3dBUVVSUVVVRjBkM1pUY2t3dGFqSm9lVzlhY21STWVWZzRhREJpT1ZORVRFVlJVMHRHV0VWcVpXSkNNV1poYWpCcmIxSk1ka3ByIiwiZmN2IjoiMyIsInN0YXJ0IjoxMH0="

func TestJobsGolden(t *testing.T) {
	f := newFake(t)
	f.serve("google_jobs", http.StatusOK, "jobs.json")
	page, err := providertest.Execute(t, f.client(t), JobsSearch, providers.ModeLive, `{"query":"barista","num":25}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "jobs", providertest.RecordsJSON(page))
	if len(page.Records) != 5 || !page.HasMore || string(page.Next) != `{"token":"`+page2Token+`"}` || len(page.Notes) != 1 {
		t.Errorf("records %d has_more %v next %s notes %q", len(page.Records), page.HasMore, page.Next, page.Notes)
	}
	for _, r := range page.Records {
		if r.Title == "" || r.Data.(*JobRecord).Source == "" || r.Stored["details"] == nil {
			t.Errorf("record %+v", r)
		}
	}
}

func TestJobsRequestAndPaging(t *testing.T) {
	f := newFake(t)
	f.serveBy("google_jobs", func(q url.Values) string {
		if q.Get("next_page_token") != "" {
			return "jobs_page2.json"
		}
		return "jobs.json"
	})
	client := f.client(t)
	req := prepare(t, JobsSearch, `{"query":" barista ","country":"US","language":"en","location":"New York, NY, United States","num":4}`)
	var titles []string
	var state json.RawMessage
	wantNext := []string{`{"offset":4}`, `{"token":"` + page2Token + `"}`, ``}
	for i := 0; i < 3; i++ {
		page, err := providertest.ExecuteState(t, client, JobsSearch, providers.ModeLive, req, state)
		if err != nil {
			t.Fatal(err)
		}
		if string(page.Next) != wantNext[i] || page.HasMore != (wantNext[i] != "") {
			t.Fatalf("page %d: next %s has_more %v", i+1, page.Next, page.HasMore)
		}
		for _, r := range page.Records {
			titles = append(titles, r.Title)
		}
		state = page.Next
	}
	want := []string{"Barista", "Barista - Part Time", "Lead Barista", "Coffee Bar Attendant", "Job at Cafe Grumpy", "Barista Trainer", "Weekend Barista"}
	if !reflect.DeepEqual(titles, want) {
		t.Errorf("titles = %q", titles)
	}
	base := url.Values{"engine": {"google_jobs"}, "q": {"barista"}, "gl": {"us"}, "hl": {"en"}, "location": {"New York, NY, United States"}}
	reqs := f.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	wantQuery(t, reqs[0], base)
	wantQuery(t, reqs[1], base)
	withToken := url.Values{"next_page_token": {page2Token}}
	for k, v := range base {
		withToken[k] = v
	}
	wantQuery(t, reqs[2], withToken)

	t.Run("bad state", func(t *testing.T) {
		_, err := providertest.ExecuteState(t, client, JobsSearch, providers.ModeLive, req, json.RawMessage(`[`))
		if providertest.ErrorCode(err) != providers.CodeInternal {
			t.Errorf("error = %v", err)
		}
	})
}

func TestJobsRules(t *testing.T) {
	cases := []struct {
		name, body string
		paths      []string
	}{
		{"minimal", `{"query":"nurse"}`, nil},
		{"every field", `{"query":"nurse","country":"gb","language":"en-GB","location":"Leeds","num":25}`, nil},
		{"missing query", `{"num":5}`, []string{"/query"}},
		{"blank query", `{"query":" "}`, []string{"/query"}},
		{"long query", `{"query":"` + longString(501) + `"}`, []string{"/query"}},
		{"bad country", `{"query":"nurse","country":"GBR"}`, []string{"/country"}},
		{"short language", `{"query":"nurse","language":"e"}`, []string{"/language"}},
		{"long location", `{"query":"nurse","location":"` + longString(201) + `"}`, []string{"/location"}},
		{"num 26", `{"query":"nurse","num":26}`, []string{"/num"}},
		{"num 0", `{"query":"nurse","num":0}`, []string{"/num"}},
		{"unknown key", `{"query":"nurse","remote":true}`, []string{"/remote"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := providertest.Prepare(t, JobsSearch, tc.body)
			if got := sortedPaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violations %v, want %v (err %v)", got, tc.paths, err)
			}
			if err == nil {
				if n, _ := req.Int("num"); n < 1 {
					t.Errorf("num default not applied: %v", req)
				}
			}
		})
	}
}

func TestJobsErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		code   providers.Code
	}{
		{"invalid key", 401, `{"error":"Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}`, providers.CodeProviderError},
		{"run out of searches", 429, `{"error":"Your account has run out of searches."}`, providers.CodeProviderAllowance},
		{"status Error", 200, `{"search_metadata":{"status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`, providers.CodeProviderError},
		{"expired token", 400, `{"error":"Invalid next_page_token."}`, providers.CodeProviderError},
		{"malformed JSON", 200, `{"jobs_results":`, providers.CodeProviderError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("google_jobs", tc.status, tc.body)
			_, err := providertest.Execute(t, f.client(t), JobsSearch, providers.ModeLive, `{"query":"nurse"}`)
			if got := providertest.ErrorCode(err); got != tc.code {
				t.Errorf("code %q, want %q (%v)", got, tc.code, err)
			}
		})
	}
	t.Run("no results", func(t *testing.T) {
		f := newFake(t)
		f.serve("google_jobs", 200, `{"search_metadata":{"status":"Success"},"error":"Google hasn't returned any results for this query."}`)
		page, err := providertest.Execute(t, f.client(t), JobsSearch, providers.ModeLive, `{"query":"xyzzy"}`)
		if err != nil || len(page.Records) != 0 || page.HasMore {
			t.Errorf("page %+v err %v", page, err)
		}
	})
}

func TestJobsSandbox(t *testing.T) {
	client := sandboxClient(t)
	for _, ex := range JobsSearch.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			page, err := providertest.Execute(t, client, JobsSearch, providers.ModeTest, mustJSON(t, ex.Body))
			if err != nil || len(page.Records) == 0 {
				t.Fatalf("page %+v err %v", page, err)
			}
			f := newFake(t)
			f.serve("google_jobs", http.StatusOK, "jobs.json")
			if page, err := providertest.Execute(t, f.client(t), JobsSearch, providers.ModeLive, mustJSON(t, ex.Body)); err != nil || len(page.Records) == 0 {
				t.Fatalf("live: page %+v err %v", page, err)
			}
		})
	}
	t.Run("pages and stored details", func(t *testing.T) {
		req := prepare(t, JobsSearch, `{"query":"barista"}`)
		p1, err := providertest.ExecuteState(t, client, JobsSearch, providers.ModeTest, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := providertest.ExecuteState(t, client, JobsSearch, providers.ModeTest, req, p1.Next)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "sandbox_jobs", map[string]any{"page1": providertest.RecordsJSON(p1), "page2": providertest.RecordsJSON(p2)})
		if len(p1.Records) != 4 || !p1.HasMore || len(p2.Records) != 2 || p2.HasMore {
			t.Errorf("pages %d/%v %d/%v", len(p1.Records), p1.HasMore, len(p2.Records), p2.HasMore)
		}
		d, err := providertest.Action(t, client, JobsSearch, providers.ModeTest, req, "details", &p1.Records[0])
		if err != nil || len(d.Links) != 3 {
			t.Fatalf("detail %+v err %v", d, err)
		}
		body := d.Body.(*JobDetail)
		if len(body.ApplyOptions) != 2 || len(body.Highlights) != 2 {
			t.Errorf("detail body %+v", body)
		}
		empty, err := providertest.Execute(t, client, JobsSearch, providers.ModeTest, `{"query":"noresults"}`)
		if err != nil || len(empty.Records) != 0 {
			t.Errorf("empty %+v err %v", empty, err)
		}
	})
}

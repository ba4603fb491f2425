package trends

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/serpapi/serpapitest"
)

const (
	testKey = serpapitest.Key
	sandbox = "../../upstream/serpapi/sandbox/google_trends/" // relative to testdata
)

// fake is an httptest stand-in for SerpApi's search.json: it checks what every call carries and
// answers with a fixed status and body (a testdata file name or literal JSON).
type fake struct {
	providertest.Upstream
	t      *testing.T
	status int
	body   string
}

func serve(t *testing.T, status int, body string) *fake {
	f := &fake{t: t, status: status, body: string(providertest.Body(t, body))}
	f.Upstream = providertest.Upstream{TB: t, Answer: f.route}
	return f
}

// query is the query of a call without the parameters every call carries.
func query(r *http.Request) url.Values {
	q := r.URL.Query()
	q.Del("api_key")
	q.Del("output")
	q.Del("engine")
	return q
}

// route checks and answers a request the Upstream recorded.
func (f *fake) route(w http.ResponseWriter, r *http.Request) {
	serpapitest.CheckRequest(f.t, r, "google_trends")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_, _ = w.Write([]byte(f.body))
}

// requests are the queries f received, without the parameters every call carries.
func (f *fake) requests() []url.Values {
	var out []url.Values
	for _, r := range f.Requests() {
		out = append(out, query(r))
	}
	return out
}

func (f *fake) client(t *testing.T) *providers.Client {
	return serpapitest.Client(t, Providers(), f)
}

func run(t *testing.T, f *fake, body string) (*providers.Page, error) {
	t.Helper()
	return providertest.Execute(t, f.client(t), Search, providers.ModeLive, body)
}

func mustRun(t *testing.T, f *fake, body string) *providers.Page {
	t.Helper()
	page, err := run(t, f, body)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

func TestParams(t *testing.T) {
	cases := []struct {
		name, body string
		want       url.Values
	}{
		{"defaults", `{"queries":["coffee"]}`, url.Values{"q": {"coffee"}, "data_type": {"TIMESERIES"}, "date": {"today 12-m"}}},
		{"several terms trimmed, region upper-cased", `{"queries":[" coffee ","green tea"],"geo":"us-ca","time_range":"past_7_days"}`,
			url.Values{"q": {"coffee,green tea"}, "data_type": {"TIMESERIES"}, "date": {"now 7-d"}, "geo": {"US-CA"}}},
		{"one query by region", `{"queries":["coffee"],"data":"interest_by_region","time_range":"all"}`,
			url.Values{"q": {"coffee"}, "data_type": {"GEO_MAP_0"}, "date": {"all"}}},
		{"several queries by region", `{"queries":["coffee","tea"],"data":"interest_by_region","time_range":"past_hour"}`,
			url.Values{"q": {"coffee,tea"}, "data_type": {"GEO_MAP"}, "date": {"now 1-H"}}},
		{"related queries", `{"queries":["coffee"],"data":"related_queries","geo":"FR","time_range":"past_90_days"}`,
			url.Values{"q": {"coffee"}, "data_type": {"RELATED_QUERIES"}, "date": {"today 3-m"}, "geo": {"FR"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := serve(t, 200, sandbox+"timeseries.json")
			_, _ = run(t, f, tc.body)
			if got := f.requests()[0]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("query = %v, want %v", got, tc.want)
			}
		})
	}
	for tr, date := range dates {
		f := serve(t, 200, sandbox+"timeseries.json")
		_, _ = run(t, f, `{"queries":["coffee"],"time_range":"`+tr+`"}`)
		if got := f.requests()[0].Get("date"); got != date {
			t.Errorf("%s: date = %q, want %q", tr, got, date)
		}
	}
}

func TestRules(t *testing.T) {
	cases := []struct {
		name, body string
		paths      []string
	}{
		{"valid", `{"queries":["coffee","tea","matcha","cocoa","mate"],"geo":"GB-SCT","time_range":"all","data":"interest_by_region"}`, nil},
		{"related with one query", `{"queries":["coffee"],"data":"related_queries"}`, nil},
		{"related with two queries", `{"queries":["coffee","tea"],"data":"related_queries"}`, []string{"/queries"}},
		{"comma in a query", `{"queries":["coffee","milk, bread"]}`, []string{"/queries/1"}},
		{"duplicates ignoring case and spaces", `{"queries":["Coffee","tea"," coffee"]}`, []string{"/queries/2"}},
		{"exact duplicates", `{"queries":["tea","tea"]}`, []string{"/queries"}},
		{"no queries", `{"queries":[]}`, []string{"/queries"}},
		{"six queries", `{"queries":["a","b","c","d","e","f"]}`, []string{"/queries"}},
		{"blank query", `{"queries":["  "]}`, []string{"/queries/0"}},
		{"query too long", `{"queries":["` + strings.Repeat("x", 101) + `"]}`, []string{"/queries/0"}},
		{"missing queries", `{"geo":"US"}`, []string{"/queries"}},
		{"bad geo", `{"queries":["x"],"geo":"USA"}`, []string{"/geo"}},
		{"unknown time range", `{"queries":["x"],"time_range":"past_week"}`, []string{"/time_range"}},
		{"unknown data", `{"queries":["x"],"data":"related_topics"}`, []string{"/data"}},
		{"unknown key", `{"queries":["x"],"hl":"en"}`, []string{"/hl"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, Search, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			if got := providertest.ViolationPaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("paths = %v, want %v", got, tc.paths)
			}
		})
	}
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name, fixture, body string
		records             int
	}{
		{"timeseries_doc", "timeseries_doc.json", `{"queries":["coffee","milk","bread"]}`, 3},
		{"timeseries", sandbox + "timeseries.json", `{"queries":["coffee","tea"],"geo":"US"}`, 2},
		{"geo_map_0", sandbox + "geo_map_0.json", `{"queries":["coffee"],"geo":"US","data":"interest_by_region"}`, 1},
		{"geo_map", sandbox + "geo_map.json", `{"queries":["coffee","tea"],"geo":"US","data":"interest_by_region"}`, 2},
		{"related_queries", sandbox + "related_queries.json", `{"queries":["coffee"],"data":"related_queries"}`, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := mustRun(t, serve(t, 200, tc.fixture), tc.body)
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
			if len(page.Records) != tc.records || page.HasMore || page.Next != nil || page.Credits != nil {
				t.Errorf("%d records, has_more %v, next %s, credits %v", len(page.Records), page.HasMore, page.Next, page.Credits)
			}
		})
	}
}

func TestOddTimeseries(t *testing.T) {
	// query_index decides: Espresso is index 0 (its "<1" counts as 0), /m/07xyn1 index 1 (named
	// Cappuccino by Google), latte index 2 (its unreadable value is skipped).
	page := mustRun(t, serve(t, 200, "timeseries_odd.json"), `{"queries":["Espresso","/m/07xyn1","latte"],"time_range":"past_day"}`)
	providertest.Golden(t, "timeseries_odd", providertest.RecordsJSON(page))
	got := map[string]int{}
	for _, r := range page.Records {
		rec := r.Data.(*TrendRecord)
		got[r.Title] = len(rec.Points)
		if rec.Average != nil {
			t.Errorf("%s: average %v from an unreadable averages", r.Title, *rec.Average)
		}
	}
	if want := map[string]int{"Espresso": 2, "/m/07xyn1": 2, "latte": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("points = %v, want %v", got, want)
	}
}

func TestValueFor(t *testing.T) {
	v := func(q string, n float64) trendValue {
		return trendValue{Query: lenientStr(q), Value: json.RawMessage(`"x"`), Extracted: lenientFloat(n)}
	}
	cases := []struct {
		name   string
		values []trendValue
		i      int
		all    []string
		want   float64
		ok     bool
	}{
		{"by name, reordered", []trendValue{v("tea", 1), v("coffee", 2)}, 0, []string{"Coffee", "tea"}, 2, true},
		{"by position when unnamed", []trendValue{v("", 5), v("", 6)}, 1, []string{"a", "b"}, 6, true},
		{"by position for a topic id", []trendValue{v("Coffee", 5), v("Tea", 6)}, 1, []string{"coffee", "/m/07xyn1"}, 6, true},
		{"not another query's value", []trendValue{v("coffee", 5)}, 0, []string{"tea", "coffee"}, 0, false},
		{"missing", []trendValue{v("coffee", 5)}, 1, []string{"coffee", "tea"}, 0, false},
	}
	for _, tc := range cases {
		got, ok := valueFor(tc.values, tc.i, tc.all)
		n, _ := got.number()
		if ok != tc.ok || (ok && n != tc.want) {
			t.Errorf("%s: %v %v, want %v %v", tc.name, n, ok, tc.want, tc.ok)
		}
	}
}

func TestNoData(t *testing.T) {
	t.Run("no results answer", func(t *testing.T) {
		page := mustRun(t, serve(t, 200, sandbox+"empty.json"), `{"queries":["noresults xyzzy"],"geo":"US"}`)
		if len(page.Records) != 0 || len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "in US over the past 12 months") {
			t.Errorf("records %d notes %v", len(page.Records), page.Notes)
		}
	})
	t.Run("one query without data", func(t *testing.T) {
		page := mustRun(t, serve(t, 200, `{"search_metadata":{"status":"Success"},"interest_over_time":{"timeline_data":[
			{"date":"d","timestamp":"1","values":[{"query":"coffee","value":"5","extracted_value":5}]}]}}`), `{"queries":["coffee","tea"]}`)
		if len(page.Records) != 1 || len(page.Notes) != 1 || !strings.Contains(page.Notes[0], `"tea"`) {
			t.Errorf("records %d notes %v", len(page.Records), page.Notes)
		}
	})
	t.Run("wrong block", func(t *testing.T) {
		page := mustRun(t, serve(t, 200, sandbox+"timeseries.json"), `{"queries":["coffee"],"data":"related_queries"}`)
		if len(page.Records) != 0 || len(page.Notes) != 1 {
			t.Errorf("records %d notes %v", len(page.Records), page.Notes)
		}
	})
	t.Run("error without data", func(t *testing.T) {
		_, err := run(t, serve(t, 200, `{"search_metadata":{"status":"Success"},"error":"Unsupported geo parameter."}`), `{"queries":["coffee"],"geo":"ZZ"}`)
		if e, ok := providers.AsError(err); !ok || e.Code != providers.CodeProviderError || !strings.Contains(e.Message, "Unsupported geo") {
			t.Errorf("error = %v", err)
		}
	})
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		code   providers.Code
	}{
		{"invalid key", 401, `{"error":"Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}`, providers.CodeProviderError},
		{"out of searches", 429, `{"error":"Your account has run out of searches."}`, providers.CodeProviderAllowance},
		{"search failed", 200, `{"search_metadata":{"status":"Error"},"error":"We couldn't get valid results for this search. Please try again later."}`, providers.CodeProviderError},
		{"server error", 500, `{"error":"Internal error."}`, providers.CodeProviderError},
		{"malformed", 200, `{"interest_over_time":`, providers.CodeProviderError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, serve(t, tc.status, tc.body), `{"queries":["coffee"]}`)
			if e, ok := providers.AsError(err); !ok || e.Code != tc.code || strings.Contains(e.Message, testKey) {
				t.Errorf("error = %v, want %s", err, tc.code)
			}
		})
	}
}

// TestExamples runs every inspect example in the sandbox, as the gateway does: single result, no
// record actions, so nothing follows.
func TestExamples(t *testing.T) {
	if len(Search.Examples) < 2 || Search.Paging != providers.PagingSingle || len(Search.Actions) != 0 || !Search.NoUpdate {
		t.Fatalf("examples %d paging %s actions %d", len(Search.Examples), Search.Paging, len(Search.Actions))
	}
	client := providertest.Client(t, Providers(), nil, nil)
	for _, ex := range Search.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			body, _ := json.Marshal(ex.Body)
			page, err := providertest.Execute(t, client, Search, providers.ModeTest, string(body))
			if err != nil {
				t.Fatal(err)
			}
			want := len(ex.Body.Request()["queries"].([]any))
			if len(page.Records) != want || page.HasMore || len(page.Notes) != 0 {
				t.Fatalf("%d records (want %d), has_more %v, notes %v", len(page.Records), want, page.HasMore, page.Notes)
			}
			for i, r := range page.Records {
				if r.Title != ex.Body.Request()["queries"].([]any)[i] || r.URL == "" || r.Snippet == "" {
					t.Errorf("record %d = %+v", i, r)
				}
			}
		})
	}
}

func lenientStr(s string) lenient.Str { return lenient.Str(s) }

func lenientFloat(f float64) lenient.Float { return lenient.Float{V: f, OK: true} }

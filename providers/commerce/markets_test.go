package commerce

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func TestMarketsGolden(t *testing.T) {
	f := newFake(t)
	f.serveBy("google_finance", func(q url.Values) string {
		switch q.Get("q") {
		case "GOOGL:NASDAQ":
			return "finance.json"
		case "AAPL:NASDAQ":
			return "finance_window.json"
		}
		return `{"search_metadata":{"status":"Success"},"error":"Google Finance hasn't returned any results for this query."}`
	})
	client := f.client(t)
	page, err := providertest.Execute(t, client, MarketsQuote, providers.ModeLive, `{"symbols":["googl:nasdaq","NOPE:XX","AAPL:NASDAQ"]}`)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "finance", providertest.RecordsJSON(page))
	if len(page.Records) != 2 || page.HasMore || page.Next != nil || len(page.Notes) != 1 || page.Credits != nil {
		t.Errorf("records %d has_more %v notes %q", len(page.Records), page.HasMore, page.Notes)
	}
	var qs []string
	for _, r := range f.Requests() {
		q := query(r)
		if q.Get("engine") != "google_finance" || q.Has("window") || len(q) != 2 {
			t.Errorf("query %v", q)
		}
		qs = append(qs, q.Get("q"))
	}
	sort.Strings(qs)
	if !reflect.DeepEqual(qs, []string{"AAPL:NASDAQ", "GOOGL:NASDAQ", "NOPE:XX"}) {
		t.Errorf("q = %v", qs)
	}

	t.Run("window is sent except 1D", func(t *testing.T) {
		f := newFake(t)
		f.serve("google_finance", http.StatusOK, "finance_window.json")
		page, err := providertest.Execute(t, f.client(t), MarketsQuote, providers.ModeLive, `{"symbols":["AAPL:NASDAQ"],"window":"1M"}`)
		if err != nil {
			t.Fatal(err)
		}
		wantQuery(t, f.Requests()[0], url.Values{"engine": {"google_finance"}, "q": {"AAPL:NASDAQ"}, "window": {"1M"}})
		providertest.Golden(t, "finance_window", providertest.RecordsJSON(page))
		d := page.Records[0].Stored["details"].Body.(*QuoteDetail)
		if d.Window != "1M" || len(d.Series) != 3 || d.KeyStats != nil {
			t.Errorf("detail %+v", d)
		}
	})
}

func TestMarketsRules(t *testing.T) {
	cases := []struct {
		name, body string
		paths      []string
	}{
		{"one", `{"symbols":["GOOGL:NASDAQ"]}`, nil},
		{"ticker alone and window", `{"symbols":["EUR-USD",".INX:INDEXSP","BRK.B:NYSE"],"window":"MAX"}`, nil},
		{"ten", `{"symbols":["A","B","C","D","E","F","G","H","I","J"]}`, nil},
		{"eleven", `{"symbols":["A","B","C","D","E","F","G","H","I","J","K"]}`, []string{"/symbols"}},
		{"none", `{"symbols":[]}`, []string{"/symbols"}},
		{"missing", `{}`, []string{"/symbols"}},
		{"exact duplicate", `{"symbols":["AAPL","AAPL"]}`, []string{"/symbols"}},
		{"case duplicate", `{"symbols":["AAPL:NASDAQ","msft","aapl:nasdaq"]}`, []string{"/symbols/2"}},
		{"bad characters", `{"symbols":["GOO GL"]}`, []string{"/symbols/0"}},
		{"two colons", `{"symbols":["A:B:C"]}`, []string{"/symbols/0"}},
		{"long ticker", `{"symbols":["ABCDEFGHIJKLMNOP"]}`, []string{"/symbols/0"}},
		{"bad window", `{"symbols":["A"],"window":"2D"}`, []string{"/window"}},
		{"unknown key", `{"symbols":["A"],"num":3}`, []string{"/num"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := providertest.Prepare(t, MarketsQuote, tc.body)
			if got := sortedPaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violations %v, want %v (err %v)", got, tc.paths, err)
			}
			if err == nil && req.Str("window") == "" {
				t.Errorf("window default not applied: %v", req)
			}
		})
	}
}

func TestMarketsErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		code   providers.Code
	}{
		{"run out of searches", 429, `{"error":"Your account has run out of searches."}`, providers.CodeProviderAllowance},
		{"invalid key", 401, `{"error":"Invalid API key."}`, providers.CodeProviderError},
		{"status Error", 200, `{"search_metadata":{"status":"Error"},"error":"We couldn't get valid results for this search."}`, providers.CodeProviderError},
		{"malformed JSON", 200, `{"summary":`, providers.CodeProviderError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.serve("google_finance", tc.status, tc.body)
			_, err := providertest.Execute(t, f.client(t), MarketsQuote, providers.ModeLive, `{"symbols":["A","B","C","D","E","F"]}`)
			if got := providertest.ErrorCode(err); got != tc.code {
				t.Errorf("code %q, want %q (%v)", got, tc.code, err)
			}
		})
	}
	t.Run("summary of an odd shape", func(t *testing.T) {
		f := newFake(t)
		f.serve("google_finance", 200, `{"search_metadata":{"status":"Success"},"summary":{"title":7,"price":"n/a","price_movement":"up"},"graph":"none"}`)
		page, err := providertest.Execute(t, f.client(t), MarketsQuote, providers.ModeLive, `{"symbols":["ODD"]}`)
		if err != nil || len(page.Records) != 1 || page.Records[0].Title != "ODD" || len(providertest.Native(&page.Records[0])) != 2 {
			t.Errorf("page %+v err %v", page, err)
		}
	})
}

func TestMarketsSandbox(t *testing.T) {
	client := sandboxClient(t)
	for _, ex := range MarketsQuote.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			page, err := providertest.Execute(t, client, MarketsQuote, providers.ModeTest, mustJSON(t, ex.Body))
			if err != nil || len(page.Records) != len(ex.Body.Request()["symbols"].([]any)) {
				t.Fatalf("page %+v err %v", page, err)
			}
			f := newFake(t)
			f.serve("google_finance", http.StatusOK, "finance.json")
			if page, err := providertest.Execute(t, f.client(t), MarketsQuote, providers.ModeLive, mustJSON(t, ex.Body)); err != nil || len(page.Records) == 0 {
				t.Fatalf("live: page %+v err %v", page, err)
			}
		})
	}
	t.Run("details and unknown symbol", func(t *testing.T) {
		req := prepare(t, MarketsQuote, `{"symbols":["GOOGL:NASDAQ","NORESULTS:NASDAQ"]}`)
		page, err := providertest.ExecuteState(t, client, MarketsQuote, providers.ModeTest, req, nil)
		if err != nil || len(page.Records) != 1 || len(page.Notes) != 1 {
			t.Fatalf("page %+v err %v", page, err)
		}
		providertest.Golden(t, "sandbox_finance", providertest.RecordsJSON(page))
		d, err := providertest.Action(t, client, MarketsQuote, providers.ModeTest, req, "details", &page.Records[0])
		if err != nil || len(d.Body.(*QuoteDetail).Series) != 8 {
			t.Fatalf("detail %+v err %v", d, err)
		}
	})
}

// A panic in one lookup goroutine of a quote is the call's internal_error, not the end of the
// process (the pipeline's recover does not reach goroutines the call starts).
func TestMarketsLookupPanicIsTheCallsError(t *testing.T) {
	orig := quoteLookup
	t.Cleanup(func() { quoteLookup = orig })
	quoteLookup = func(ctx context.Context, call *providers.Call, symbol, window string) (*providers.Record, string, error) {
		if symbol == "C" {
			panic("lookup bug")
		}
		return orig(ctx, call, symbol, window)
	}
	f := newFake(t)
	f.serve("google_finance", http.StatusOK, "finance.json")
	_, err := providertest.Execute(t, f.client(t), MarketsQuote, providers.ModeLive, `{"symbols":["A","B","C"]}`)
	if got := providertest.ErrorCode(err); got != providers.CodeInternal || !strings.Contains(err.Error(), "lookup bug") {
		t.Fatalf("code %q (%v), want internal_error carrying the panic", got, err)
	}
}

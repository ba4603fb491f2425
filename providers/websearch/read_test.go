package websearch

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/pageread"
)

// stubReader replaces ReadPage for one test and records the URLs it was asked for.
func stubReader(t *testing.T, fn func(url string) (*providers.Detail, error)) *[]string {
	t.Helper()
	var asked []string
	prev := ReadPage
	ReadPage = func(ctx context.Context, call *providers.Call, url string) (*providers.Detail, error) {
		if ctx == nil || call == nil {
			t.Error("read called without a context or call")
		}
		asked = append(asked, url)
		return fn(url)
	}
	t.Cleanup(func() { ReadPage = prev })
	return &asked
}

func TestReadAction(t *testing.T) {
	for _, c := range []*providers.Capability{WebSearch, NewsSearch} {
		fixture := map[*providers.Capability]string{WebSearch: "google.json", NewsSearch: "google_news.json"}[c]
		t.Run(c.ID, func(t *testing.T) {
			f := newFake(t)
			f.serve(fixture)
			client := f.client(t)
			req := prepare(t, c, `{"query":"apple"}`)
			page, err := providertest.ExecuteState(t, client, c, providers.ModeLive, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			rec := page.Records[0]
			asked := stubReader(t, func(url string) (*providers.Detail, error) {
				return &providers.Detail{Body: map[string]any{"url": url, "markdown": "# Page"}, Links: []providers.Link{{Label: "page", URL: url}}}, nil
			})
			d, err := providertest.Action(t, client, c, providers.ModeLive, req, "read", &rec)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*asked, []string{rec.URL}) || d.Body.(map[string]any)["url"] != rec.URL {
				t.Errorf("read asked for %q, record url %q, detail %v", *asked, rec.URL, d.Body)
			}
			if n := len(f.Requests()); n != 1 {
				t.Errorf("read called SerpApi: %d requests", n)
			}
		})
	}

	t.Run("reader errors pass through", func(t *testing.T) {
		stubReader(t, func(string) (*providers.Detail, error) {
			return nil, providers.Errorf(providers.CodeProviderTimeout, "reader did not answer in time")
		})
		rec := providers.Record{Title: "x", URL: "https://example.com/", Ref: refOf("https://example.com/")}
		_, err := providertest.Action(t, sandboxClient(t), WebSearch, providers.ModeTest, prepare(t, WebSearch, `{"query":"x"}`), "read", &rec)
		if providertest.ErrorCode(err) != providers.CodeProviderTimeout {
			t.Errorf("error = %v", err)
		}
	})

	t.Run("through web.read's reader", func(t *testing.T) {
		client := providertest.Client(t, append(Providers(), pageread.Providers()...), nil, nil)
		rec := providers.Record{Title: "x", URL: "https://example.com/", Ref: refOf("https://example.com/")}
		d, err := providertest.Action(t, client, WebSearch, providers.ModeTest, prepare(t, WebSearch, `{"query":"x"}`), "read", &rec)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(d.Body)
		if !strings.Contains(string(body), "Example Domain") {
			t.Errorf("read body %s", body)
		}
	})

	for _, ref := range []string{"", `{}`, `{"url":"ftp://example.com/x"}`, `{"url":"/relative"}`, `not json`} {
		t.Run("unusable ref "+ref, func(t *testing.T) {
			asked := stubReader(t, func(string) (*providers.Detail, error) { return &providers.Detail{}, nil })
			rec := providers.Record{Title: "x", Ref: json.RawMessage(ref)}
			_, err := providertest.Action(t, sandboxClient(t), NewsSearch, providers.ModeTest, prepare(t, NewsSearch, `{"query":"x"}`), "read", &rec)
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Errorf("error = %v, want invalid_request", err)
			}
			if len(*asked) != 0 {
				t.Error("the reader was called without a url")
			}
		})
	}
}

// TestRecordsWithoutURLOfferNoRead: an answer box without a link carries no url and an empty
// action list, so the gateway refuses read for it; every other record keeps all actions.
func TestRecordsWithoutURLOfferNoRead(t *testing.T) {
	f := newFake(t)
	f.serve("google_answer_array.json")
	page, err := providertest.Execute(t, f.client(t), WebSearch, providers.ModeLive, `{"query":"pi"}`)
	if err != nil {
		t.Fatal(err)
	}
	var without int
	for _, rec := range page.Records {
		switch {
		case rec.URL == "":
			without++
			if rec.Actions == nil || len(rec.Actions) != 0 || len(rec.Ref) != 0 {
				t.Errorf("%q has no url but actions %v ref %s", rec.Title, rec.Actions, rec.Ref)
			}
		case rec.Actions != nil || len(rec.Ref) == 0:
			t.Errorf("%q has a url but actions %v ref %s", rec.Title, rec.Actions, rec.Ref)
		}
	}
	if without != 2 {
		t.Errorf("%d records without a url, want the two answer boxes", without)
	}
}

func TestIsWebURL(t *testing.T) {
	cases := map[string]bool{
		"https://example.com/a?b=c": true, "http://example.com": true, "HTTPS://EXAMPLE.COM/": true,
		"": false, "example.com": false, "ftp://example.com": false, "javascript:alert(1)": false,
		"https://": false, "https://exa mple.com": false, "/path": false,
	}
	for in, want := range cases {
		if got := isWebURL(in); got != want {
			t.Errorf("isWebURL(%q) = %v, want %v", in, got, want)
		}
	}
}

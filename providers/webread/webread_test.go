package webread

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/pageread"
)

func prepare(t *testing.T, body string) providers.Request {
	t.Helper()
	req, err := providertest.Prepare(t, WebRead, body)
	if err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return req
}

// recent tells whether v is an RFC 3339 time within the last minute (fetched_at).
func recent(s string) bool {
	at, err := time.Parse(time.RFC3339, s)
	return err == nil && time.Since(at) < time.Minute && time.Since(at) > -time.Second
}

func wantError(t *testing.T, err error, code providers.Code, paths ...string) *providers.Error {
	t.Helper()
	e, ok := providers.AsError(err)
	if !ok || e.Code != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
	if got := providertest.ViolationPaths(err); len(paths) > 0 && !reflect.DeepEqual(got, paths) {
		t.Errorf("violation paths = %v, want %v", got, paths)
	}
	return e
}

func TestCapabilityDeclaration(t *testing.T) {
	c := WebRead
	if c.ID != "web.read" || c.Topic != "Web and news" || c.Paging != providers.PagingSingle || !c.NoUpdate {
		t.Errorf("id/topic/paging/noupdate = %q/%q/%q/%v", c.ID, c.Topic, c.Paging, c.NoUpdate)
	}
	if c.Deadline != 15*time.Second || c.Cost.Typical != 5 || c.Cost.Basis == "" {
		t.Errorf("deadline/cost = %v/%d/%q", c.Deadline, c.Cost.Typical, c.Cost.Basis)
	}
	if len(c.Actions) != 0 || len(c.SearchActions()) != 0 {
		t.Errorf("actions = %v, search actions = %v; want none", c.ActionNames(), c.SearchActions())
	}
	if !reflect.DeepEqual(c.Providers, []string{"reader"}) {
		t.Errorf("providers = %v", c.Providers)
	}
	if len(c.Examples) < 2 || c.Execute == nil || c.Rules == nil {
		t.Errorf("examples %d, execute %v, rules %v", len(c.Examples), c.Execute != nil, c.Rules != nil)
	}
	for _, key := range []string{"markdown", "truncated", "fetched_at", "source", "max_chars", "2,048", "invalid_request", "provider_error"} {
		if !strings.Contains(c.Description, key) {
			t.Errorf("description does not mention %s", key)
		}
	}
	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Error("the body schema must be draft 2020-12 with additionalProperties false")
	}
	props := doc["properties"].(map[string]any)
	for name, p := range props {
		if d, _ := p.(map[string]any)["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	u := props["url"].(map[string]any)
	if u["minLength"] != 1.0 || u["maxLength"] != 2048.0 || u["format"] != "uri" {
		t.Errorf("url schema = %v", u)
	}
	m := props["max_chars"].(map[string]any)
	if m["minimum"] != 1000.0 || m["maximum"] != 200000.0 || m["default"] != 50000.0 || m["type"] != "integer" {
		t.Errorf("max_chars schema = %v", m)
	}
	provs := Providers()
	if len(provs) != 1 {
		t.Fatalf("providers = %d", len(provs))
	}
	p := provs[0]
	if p.ID != "reader" || p.BaseURL != "https://r.jina.ai" || p.KeyRequired || p.Sandbox == nil || p.Authorize == nil {
		t.Errorf("provider = %+v", p)
	}
	r, _ := http.NewRequest(http.MethodGet, "https://r.jina.ai/https://example.com/", nil)
	p.Authorize(r, "jina_abc")
	if got := r.Header.Get("Authorization"); got != "Bearer jina_abc" {
		t.Errorf("Authorization = %q", got)
	}
	if got := Capabilities(); len(got) != 1 || got[0] != WebRead {
		t.Errorf("Capabilities() = %v", got)
	}
}

func TestRequestSchemaAndRules(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", 2048-len("https://example.com/"))
	cases := []struct {
		name  string
		body  string
		paths []string
	}{
		{"minimal", `{"url":"https://example.com/"}`, nil},
		{"http and max_chars", `{"url":"http://example.com/a?b=c#frag","max_chars":1000}`, nil},
		{"upper-case scheme", `{"url":"HTTPS://EXAMPLE.COM/"}`, nil},
		{"max_chars 200000", `{"url":"https://example.com/","max_chars":200000}`, nil},
		{"2048 characters", `{"url":"` + long + `"}`, nil},
		{"any port", `{"url":"https://example.com:8443/"}`, nil},
		{"public IPv4 literal", `{"url":"http://93.184.215.14/"}`, nil},
		{"public IPv6 literal", `{"url":"http://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/"}`, nil},
		{"missing url", `{}`, []string{"/url"}},
		{"empty url", `{"url":""}`, []string{"/url"}},
		{"2049 characters", `{"url":"` + long + `a"}`, []string{"/url"}},
		{"url not a string", `{"url":42}`, []string{"/url"}},
		{"relative", `{"url":"/wiki/Markdown"}`, []string{"/url"}},
		{"no scheme", `{"url":"example.com"}`, []string{"/url"}},
		{"ftp", `{"url":"ftp://example.com/file"}`, []string{"/url"}},
		{"file", `{"url":"file:///etc/passwd"}`, []string{"/url"}},
		{"javascript", `{"url":"javascript:alert(1)"}`, []string{"/url"}},
		{"gopher", `{"url":"gopher://example.com/"}`, []string{"/url"}},
		{"userinfo", `{"url":"https://user:pw@example.com/"}`, []string{"/url"}},
		{"user only", `{"url":"https://user@example.com/"}`, []string{"/url"}},
		{"no host", `{"url":"http:///path"}`, []string{"/url"}},
		{"port zero", `{"url":"http://example.com:0/"}`, []string{"/url"}},
		{"port too big", `{"url":"http://example.com:70000/"}`, []string{"/url"}},
		{"loopback", `{"url":"http://127.0.0.1/"}`, []string{"/url"}},
		{"loopback with port", `{"url":"http://127.0.0.1:8080/admin"}`, []string{"/url"}},
		{"private 10/8", `{"url":"http://10.0.0.1/"}`, []string{"/url"}},
		{"private 172.16/12", `{"url":"http://172.16.5.4/"}`, []string{"/url"}},
		{"private 192.168/16", `{"url":"http://192.168.1.1/"}`, []string{"/url"}},
		{"metadata", `{"url":"http://169.254.169.254/latest/meta-data/"}`, []string{"/url"}},
		{"link-local", `{"url":"http://169.254.10.10/"}`, []string{"/url"}},
		{"CGNAT", `{"url":"http://100.64.0.1/"}`, []string{"/url"}},
		{"alibaba metadata", `{"url":"http://100.100.100.200/"}`, []string{"/url"}},
		{"multicast", `{"url":"http://224.0.0.1/"}`, []string{"/url"}},
		{"unspecified", `{"url":"http://0.0.0.0/"}`, []string{"/url"}},
		{"this network", `{"url":"http://0.1.2.3/"}`, []string{"/url"}},
		{"broadcast", `{"url":"http://255.255.255.255/"}`, []string{"/url"}},
		{"IPv6 loopback", `{"url":"http://[::1]/"}`, []string{"/url"}},
		{"IPv6 unspecified", `{"url":"http://[::]/"}`, []string{"/url"}},
		{"IPv6 ULA", `{"url":"http://[fd12:3456::1]/"}`, []string{"/url"}},
		{"IPv6 metadata", `{"url":"http://[fd00:ec2::254]/"}`, []string{"/url"}},
		{"IPv6 link-local", `{"url":"http://[fe80::1]/"}`, []string{"/url"}},
		{"IPv4-mapped loopback", `{"url":"http://[::ffff:127.0.0.1]/"}`, []string{"/url"}},
		{"IPv4-compatible loopback", `{"url":"http://[::127.0.0.1]/"}`, []string{"/url"}},
		{"NAT64 of a private address", `{"url":"http://[64:ff9b::a00:1]/"}`, []string{"/url"}},
		{"6to4 of a private address", `{"url":"http://[2002:a00:1::1]/"}`, []string{"/url"}},
		{"decimal loopback", `{"url":"http://2130706433/"}`, []string{"/url"}},
		{"hex loopback", `{"url":"http://0x7f.1/"}`, []string{"/url"}},
		{"short loopback", `{"url":"http://127.1/"}`, []string{"/url"}},
		{"octal private", `{"url":"http://012.0.0.1/"}`, []string{"/url"}},
		{"bad numeric host", `{"url":"http://1.2.3.999/"}`, []string{"/url"}},
		{"localhost", `{"url":"http://localhost:8080/"}`, []string{"/url"}},
		{"localhost trailing dot", `{"url":"http://LOCALHOST./"}`, []string{"/url"}},
		{"subdomain of localhost", `{"url":"http://app.localhost/"}`, []string{"/url"}},
		{"GCP metadata name", `{"url":"http://metadata.google.internal/computeMetadata/v1/"}`, []string{"/url"}},
		{"single-label name", `{"url":"http://intranet/"}`, []string{"/url"}},
		{"max_chars 999", `{"url":"https://example.com/","max_chars":999}`, []string{"/max_chars"}},
		{"max_chars 200001", `{"url":"https://example.com/","max_chars":200001}`, []string{"/max_chars"}},
		{"max_chars fractional", `{"url":"https://example.com/","max_chars":1500.5}`, []string{"/max_chars"}},
		{"max_chars string", `{"url":"https://example.com/","max_chars":"5000"}`, []string{"/max_chars"}},
		{"unknown key", `{"url":"https://example.com/","format":"html"}`, []string{"/format"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, WebRead, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			got := providertest.ViolationPaths(err)
			slices.Sort(got)
			got = slices.Compact(got)
			if !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violation paths = %v, want %v (%v)", got, tc.paths, err)
			}
		})
	}
	t.Run("default max_chars", func(t *testing.T) {
		req := prepare(t, `{"url":"https://example.com/"}`)
		if n, _ := req.Int("max_chars"); n != 50000 {
			t.Errorf("max_chars = %v, want 50000", req["max_chars"])
		}
	})
}

func TestExamples(t *testing.T) {
	for _, ex := range WebRead.Examples {
		body, err := json.Marshal(ex.Body)
		if err != nil {
			t.Fatal(err)
		}
		wantMax := 50000
		if n, ok := ex.Body.Request().Int("max_chars"); ok {
			wantMax = n
		}
		check := func(t *testing.T, page *providers.Page) {
			t.Helper()
			if len(page.Records) != 1 || page.HasMore {
				t.Fatalf("page = %+v", page)
			}
			rec := page.Records[0]
			data := rec.Data.(*pageread.PageRecord)
			if rec.Title == "" || rec.URL != ex.Body.Request()["url"] || data.Source != "reader" || !recent(data.FetchedAt) {
				t.Errorf("record = %+v", rec)
			}
			md := data.Markdown
			n := utf8.RuneCountInString(md)
			if md == "" || n > wantMax || data.Truncated != (n == wantMax) {
				t.Errorf("markdown %d characters (max %d), truncated %v", n, wantMax, data.Truncated)
			}
		}
		t.Run("sandbox: "+ex.Title, func(t *testing.T) {
			page, err := providertest.Execute(t, providertest.Client(t, Providers(), nil, nil), WebRead, providers.ModeTest, string(body))
			if err != nil {
				t.Fatal(err)
			}
			check(t, page)
		})
	}
}

func TestSandbox(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	t.Run("golden", func(t *testing.T) {
		page, err := providertest.Execute(t, client, WebRead, providers.ModeTest, `{"url":"https://en.wikipedia.org/wiki/Web_scraping","max_chars":1000}`)
		if err != nil {
			t.Fatal(err)
		}
		data := page.Records[0].Data.(*pageread.PageRecord)
		if !recent(data.FetchedAt) {
			t.Fatalf("fetched_at %v", data.FetchedAt)
		}
		data.FetchedAt = "2025-05-05T10:00:00Z" // the golden's pinned clock
		providertest.Golden(t, "sandbox_web_scraping", providertest.RecordsJSON(page))
	})
	t.Run("warning becomes a note", func(t *testing.T) {
		page, err := providertest.Execute(t, client, WebRead, providers.ModeTest, `{"url":"https://example.com/missing"}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Notes) != 1 || !strings.Contains(page.Notes[0], "404") {
			t.Errorf("notes = %v", page.Notes)
		}
	})
	t.Run("reserved miss", func(t *testing.T) {
		_, err := providertest.Execute(t, client, WebRead, providers.ModeTest, `{"url":"https://sandbox-not-found.com/"}`)
		e := wantError(t, err, providers.CodeInvalidRequest, "/url")
		if e.Hint != "" || e.Message != "the URL's host sandbox-not-found.com does not resolve" {
			t.Errorf("the reserved miss answers %q (hint %q), not as live", e.Message, e.Hint)
		}
	})
	t.Run("any public page", func(t *testing.T) {
		for _, u := range []string{"https://go.dev/doc/effective_go", "https://example.com/other", "https://www.reuters.com/markets/a-story-2024-10-01/?x=1"} {
			body := `{"url":"` + u + `"}`
			page, err := providertest.Execute(t, client, WebRead, providers.ModeTest, body)
			if err != nil {
				t.Fatalf("%s: %v", u, err)
			}
			again, _ := providertest.Execute(t, client, WebRead, providers.ModeTest, body)
			if len(page.Records) != 1 || page.Records[0].URL != u || page.Records[0].Title == "" ||
				!reflect.DeepEqual(providertest.RecordsJSON(page), providertest.RecordsJSON(again)) {
				t.Errorf("%s: %+v", u, page.Records)
			}
		}
	})
}

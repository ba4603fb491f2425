package music

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/providertest"
)

// upstream is the shared recording stand-in for Deezer or MusicBrainz.
type upstream = providertest.Upstream

// sandboxFake serves the provider's own sandbox fixtures from a live fake.
func sandboxFake(id string) *upstream { return providertest.SandboxUpstream(Providers(), id) }

func client(tb testing.TB, deezer, mb http.Handler) *providers.Client {
	tb.Helper()
	return providertest.Client(tb, Providers(), map[string]http.Handler{deezerID: deezer, musicbrainzID: mb}, nil)
}

func prepare(tb testing.TB, body string) providers.Request {
	tb.Helper()
	req, err := providertest.Prepare(tb, Search, body)
	if err != nil {
		tb.Fatalf("body %s: %v", body, err)
	}
	return req
}

func run(tb testing.TB, c *providers.Client, body string, state string) (*providers.Page, error) {
	tb.Helper()
	var st json.RawMessage
	if state != "" {
		st = json.RawMessage(state)
	}
	return providertest.ExecuteState(tb, c, Search, providers.ModeLive, prepare(tb, body), st)
}

func TestCapabilityDeclaration(t *testing.T) {
	c := Search
	if c.ID != "music.search" || c.Topic != "Media and social" || c.Paging != providers.PagingOffset {
		t.Errorf("id/topic/paging = %q/%q/%q", c.ID, c.Topic, c.Paging)
	}
	if c.Deadline != 15*time.Second || c.Cost.Typical != 0 || c.Cost.Basis == "" {
		t.Errorf("deadline/cost = %v/%d/%q", c.Deadline, c.Cost.Typical, c.Cost.Basis)
	}
	if !reflect.DeepEqual(c.Providers, []string{"deezer"}) {
		t.Errorf("providers = %v", c.Providers)
	}
	a, ok := c.Action("details")
	if !ok || a.Kind != providers.ActionLookup || a.Credits != 0 || a.Run == nil {
		t.Errorf("details action = %+v", a)
	}
	if got := c.SearchActions(); !reflect.DeepEqual(got, []string{"more", "update"}) {
		t.Errorf("search actions = %v", got)
	}
	if len(c.Examples) < 2 {
		t.Errorf("%d examples, want at least 2", len(c.Examples))
	}
	// Every property of the schema is described, and every object is closed.
	props := c.Schema().Doc["properties"].(map[string]any)
	for name, p := range props {
		if d, _ := p.(map[string]any)["description"].(string); d == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	if c.Schema().Doc["additionalProperties"] != false {
		t.Error("the body schema must set additionalProperties false")
	}
	ids := map[string]bool{}
	for _, p := range Providers() {
		ids[p.ID] = true
		if p.KeyRequired || p.Sandbox == nil {
			t.Errorf("provider %s: keyless with a sandbox expected", p.ID)
		}
	}
	if !ids[deezerID] || !ids[musicbrainzID] {
		t.Errorf("providers = %v", ids)
	}
	if Providers()[1].RequestsPerSecond != 1 {
		t.Error("MusicBrainz asks for at most one request a second")
	}
	if got := Capabilities(); len(got) != 1 || got[0] != Search {
		t.Errorf("Capabilities() = %v", got)
	}
}

func TestRequestSchema(t *testing.T) {
	long := strings.Repeat("é", 300)
	cases := []struct {
		name  string
		body  string
		paths []string
	}{
		{"minimal", `{"query":"daft punk"}`, nil},
		{"all fields", `{"query":"daft punk","kind":"album","num":25}`, nil},
		{"300 characters", `{"query":"` + long + `"}`, nil},
		{"missing query", `{}`, []string{"/query"}},
		{"empty query", `{"query":""}`, []string{"/query"}},
		{"blank query", `{"query":" \t "}`, []string{"/query"}},
		{"301 characters", `{"query":"` + long + `x"}`, []string{"/query"}},
		{"query not a string", `{"query":42}`, []string{"/query"}},
		{"unknown kind", `{"query":"x","kind":"playlist"}`, []string{"/kind"}},
		{"num zero", `{"query":"x","num":0}`, []string{"/num"}},
		{"num 26", `{"query":"x","num":26}`, []string{"/num"}},
		{"num fractional", `{"query":"x","num":2.5}`, []string{"/num"}},
		{"num as string", `{"query":"x","num":"5"}`, []string{"/num"}},
		{"unknown key", `{"query":"x","genre":"house"}`, []string{"/genre"}},
		{"two problems", `{"kind":"video","num":100}`, []string{"/kind", "/num", "/query"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, Search, tc.body)
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
			got = slices.Compact(got) // "" breaks both minLength and the non-blank pattern
			if !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violation paths = %v, want %v", got, tc.paths)
			}
		})
	}
	t.Run("defaults", func(t *testing.T) {
		req := prepare(t, `{"query":"x"}`)
		if req.Str("kind") != "track" {
			t.Errorf("kind = %v, want track", req["kind"])
		}
		if n, _ := req.Int("num"); n != 10 {
			t.Errorf("num = %v, want 10", req["num"])
		}
	})
}

func TestExamples(t *testing.T) {
	for _, ex := range Search.Examples {
		body, err := json.Marshal(ex.Body)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("sandbox/"+ex.Title, func(t *testing.T) {
			c := providertest.Client(t, Providers(), nil, nil)
			page, err := providertest.Execute(t, c, Search, providers.ModeTest, string(body))
			if err != nil {
				t.Fatal(err)
			}
			checkExamplePage(t, page, ex.Body.Request())
		})
		t.Run("live/"+ex.Title, func(t *testing.T) {
			dz := sandboxFake(deezerID)
			c := client(t, dz, providertest.Refuse(t, "MusicBrainz"))
			page, err := providertest.Execute(t, c, Search, providers.ModeLive, string(body))
			if err != nil {
				t.Fatal(err)
			}
			checkExamplePage(t, page, ex.Body.Request())
			for _, r := range dz.Requests() {
				if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "capgate/test") {
					t.Errorf("User-Agent = %q", ua)
				}
			}
		})
	}
}

func checkExamplePage(t *testing.T, page *providers.Page, body map[string]any) {
	t.Helper()
	if len(page.Records) == 0 {
		t.Fatal("no records")
	}
	kind, _ := body["kind"].(string)
	if kind == "" {
		kind = "track"
	}
	for _, r := range page.Records {
		if r.Title == "" || r.Data.(*MusicRecord).Kind != kind || len(r.Ref) == 0 {
			t.Errorf("record %+v", r)
		}
	}
	if len(page.Notes) != 0 {
		t.Errorf("notes = %v, want none from the primary source", page.Notes)
	}
}

// TestMappingGolden maps recorded-shape upstream answers (testdata/) to records.
func TestMappingGolden(t *testing.T) {
	cases := []struct {
		name, body, state, deezer, mb string
	}{
		{"deezer_search_track", `{"query":"Soliloquy","num":6}`, "", "deezer_search_track.json", ""},
		{"deezer_search_artist", `{"query":"Daft Punk","kind":"artist"}`, "", "deezer_search_artist.json", ""},
		{"deezer_search_album", `{"query":"Daft Punk","kind":"album"}`, "", "deezer_search_album.json", ""},
		{"musicbrainz_recording_search", `{"query":"love","num":4}`, `{"source":"musicbrainz","offset":0}`, "", "musicbrainz_recording_search.json"},
		{"musicbrainz_artist_search", `{"query":"manowar","kind":"artist","num":3}`, `{"source":"musicbrainz","offset":0}`, "", "musicbrainz_artist_search.json"},
		{"musicbrainz_release_search", `{"query":"rumours","kind":"album","num":3}`, `{"source":"musicbrainz","offset":0}`, "", "musicbrainz_release_search.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var dz, mb http.Handler = providertest.Refuse(t, "Deezer"), providertest.Refuse(t, "MusicBrainz")
			if tc.deezer != "" {
				dz = providertest.ServeFile(t, 200, filepath.Join("testdata", tc.deezer))
			}
			if tc.mb != "" {
				mb = providertest.ServeFile(t, 200, filepath.Join("testdata", tc.mb))
			}
			page, err := run(t, client(t, dz, mb), tc.body, tc.state)
			if err != nil {
				t.Fatal(err)
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
		})
	}
}

// TestSandboxGolden pins what a test key sees: the sandbox pages and details.
func TestSandboxGolden(t *testing.T) {
	c := providertest.Client(t, Providers(), nil, nil)
	for _, tc := range []struct{ name, body, state string }{
		{"sandbox_deezer_track", `{"query":"harder better faster stronger","num":5}`, ""},
		{"sandbox_deezer_artist", `{"query":"Daft Punk","kind":"artist"}`, ""},
		{"sandbox_deezer_album", `{"query":"Discovery","kind":"album","num":5}`, ""},
		{"sandbox_musicbrainz_recording", `{"query":"harder better faster stronger","num":5}`, `{"source":"musicbrainz","offset":0}`},
		{"sandbox_musicbrainz_artist", `{"query":"Daft Punk","kind":"artist"}`, `{"source":"musicbrainz","offset":0}`},
		{"sandbox_musicbrainz_release", `{"query":"Discovery","kind":"album"}`, `{"source":"musicbrainz","offset":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st json.RawMessage
			if tc.state != "" {
				st = json.RawMessage(tc.state)
			}
			req := prepare(t, tc.body)
			page, err := providertest.ExecuteState(t, c, Search, providers.ModeTest, req, st)
			if err != nil {
				t.Fatal(err)
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
			d, err := providertest.Action(t, c, Search, providers.ModeTest, req, "details", &page.Records[0])
			if err != nil {
				t.Fatal(err)
			}
			providertest.Golden(t, tc.name+"_details", d)
		})
	}
}

func TestUpstreamRequests(t *testing.T) {
	t.Run("deezer search", func(t *testing.T) {
		for _, tc := range []struct{ kind, path string }{{"track", "/search"}, {"artist", "/search/artist"}, {"album", "/search/album"}} {
			t.Run(tc.kind, func(t *testing.T) {
				dz := providertest.ServeBody(200, `{"data":[],"total":0}`)
				page, err := run(t, client(t, dz, providertest.Refuse(t, "MusicBrainz")), `{"query":" AC/DC & friends ","kind":"`+tc.kind+`","num":7}`, "")
				if err != nil {
					t.Fatal(err)
				}
				if len(page.Records) != 0 || page.HasMore || page.Next != nil {
					t.Errorf("empty answer gave %+v", page)
				}
				reqs := dz.Requests()
				if len(reqs) != 1 {
					t.Fatalf("%d requests", len(reqs))
				}
				r := reqs[0]
				if r.Method != http.MethodGet || r.URL.Path != tc.path {
					t.Errorf("request %s %s, want GET %s", r.Method, r.URL.Path, tc.path)
				}
				want := map[string][]string{"q": {"AC/DC & friends"}, "index": {"0"}, "limit": {"7"}}
				if got := map[string][]string(r.URL.Query()); !reflect.DeepEqual(got, want) {
					t.Errorf("query = %v, want %v", got, want)
				}
				if ua := r.Header.Get("User-Agent"); ua != "capgate/test (+tests@example.com)" {
					t.Errorf("User-Agent = %q", ua)
				}
				if r.Header.Get("Authorization") != "" {
					t.Error("Deezer is keyless: no Authorization header")
				}
			})
		}
	})
	t.Run("musicbrainz search", func(t *testing.T) {
		for _, tc := range []struct{ kind, path, list string }{{"track", "/ws/2/recording", "recordings"}, {"artist", "/ws/2/artist", "artists"}, {"album", "/ws/2/release", "releases"}} {
			t.Run(tc.kind, func(t *testing.T) {
				mb := providertest.ServeBody(200, `{"created":"2026-01-01T00:00:00.000Z","count":0,"offset":40,"`+tc.list+`":[]}`)
				page, err := run(t, client(t, providertest.Refuse(t, "Deezer"), mb), `{"query":"artist:\"daft punk\"","kind":"`+tc.kind+`","num":20}`, `{"source":"musicbrainz","offset":40}`)
				if err != nil {
					t.Fatal(err)
				}
				if len(page.Records) != 0 || page.HasMore {
					t.Errorf("page = %+v", page)
				}
				r := mb.Requests()[0]
				if r.URL.Path != tc.path {
					t.Errorf("path = %s, want %s", r.URL.Path, tc.path)
				}
				want := map[string][]string{"query": {`artist:"daft punk"`}, "fmt": {"json"}, "limit": {"20"}, "offset": {"40"}}
				if got := map[string][]string(r.URL.Query()); !reflect.DeepEqual(got, want) {
					t.Errorf("query = %v, want %v", got, want)
				}
				if ua := r.Header.Get("User-Agent"); ua != "capgate/test (+tests@example.com)" {
					t.Errorf("MusicBrainz needs an identifying User-Agent, got %q", ua)
				}
				if r.Header.Get("Accept") != "application/json" {
					t.Errorf("Accept = %q", r.Header.Get("Accept"))
				}
				if r.Header.Get("Authorization") != "" {
					t.Error("MusicBrainz is keyless: no Authorization header")
				}
			})
		}
	})
	t.Run("details lookups", func(t *testing.T) {
		for _, tc := range []struct {
			name, ref, path, inc, file string
		}{
			{"deezer track", `{"source":"deezer","kind":"track","id":"3135556"}`, "/track/3135556", "", "sandbox/deezer_track.json"},
			{"deezer artist", `{"source":"deezer","kind":"artist","id":"27"}`, "/artist/27", "", "sandbox/deezer_artist.json"},
			{"deezer album", `{"source":"deezer","kind":"album","id":"302127"}`, "/album/302127", "", "sandbox/deezer_album.json"},
			{"musicbrainz recording", `{"source":"musicbrainz","kind":"track","id":"20ca1a56-852b-5779-b7a4-bea6ca8c74c1"}`,
				"/ws/2/recording/20ca1a56-852b-5779-b7a4-bea6ca8c74c1", "artist-credits+releases+isrcs+genres", "sandbox/musicbrainz_recording.json"},
			{"musicbrainz artist", `{"source":"musicbrainz","kind":"artist","id":"056e4f3e-d505-4dad-8ec1-d04f521cbb56"}`,
				"/ws/2/artist/056e4f3e-d505-4dad-8ec1-d04f521cbb56", "genres", "sandbox/musicbrainz_artist.json"},
			{"musicbrainz release", `{"source":"musicbrainz","kind":"album","id":"7492b4b2-a0e1-56c0-ae1a-f420024e29b1"}`,
				"/ws/2/release/7492b4b2-a0e1-56c0-ae1a-f420024e29b1", "artist-credits+labels+recordings+release-groups+genres", "sandbox/musicbrainz_release.json"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				up := providertest.ServeFile(t, 200, tc.file)
				var dz, mb http.Handler = up, providertest.Refuse(t, "MusicBrainz")
				if tc.inc != "" {
					dz, mb = providertest.Refuse(t, "Deezer"), up
				}
				c := client(t, dz, mb)
				rec := &providers.Record{Title: "x", Ref: json.RawMessage(tc.ref)}
				d, err := providertest.Action(t, c, Search, providers.ModeLive, prepare(t, `{"query":"x"}`), "details", rec)
				if err != nil {
					t.Fatal(err)
				}
				if d.Links == nil || d.Body == nil {
					t.Errorf("detail = %+v", d)
				}
				r := up.Requests()[0]
				if r.URL.Path != tc.path {
					t.Errorf("path = %s, want %s", r.URL.Path, tc.path)
				}
				if tc.inc == "" && r.URL.RawQuery != "" {
					t.Errorf("Deezer lookup query = %q, want none", r.URL.RawQuery)
				}
				if tc.inc != "" && r.URL.RawQuery != "fmt=json&inc="+tc.inc {
					t.Errorf("MusicBrainz lookup query = %q, want fmt=json&inc=%s", r.URL.RawQuery, tc.inc)
				}
			})
		}
	})
}

func TestPaging(t *testing.T) {
	t.Run("deezer offset round trip", func(t *testing.T) {
		dz := sandboxFake(deezerID)
		c := client(t, dz, providertest.Refuse(t, "MusicBrainz"))
		body := `{"query":"harder better faster stronger","num":5}`
		p1, err := run(t, c, body, "")
		if err != nil {
			t.Fatal(err)
		}
		if !p1.HasMore || string(p1.Next) != `{"source":"deezer","offset":5}` || len(p1.Records) != 5 {
			t.Fatalf("page 1: has_more=%v next=%s records=%d", p1.HasMore, p1.Next, len(p1.Records))
		}
		p2, err := run(t, c, body, string(p1.Next))
		if err != nil {
			t.Fatal(err)
		}
		if p2.HasMore || p2.Next != nil || len(p2.Records) != 2 {
			t.Errorf("page 2: has_more=%v next=%s records=%d", p2.HasMore, p2.Next, len(p2.Records))
		}
		if q := dz.Requests()[1].URL.Query(); q.Get("index") != "5" || q.Get("limit") != "5" {
			t.Errorf("page 2 query = %v", q)
		}
		if p1.Records[0].Title == p2.Records[0].Title {
			t.Error("page 2 repeats page 1")
		}
	})
	t.Run("deezer next without index falls back to offset plus count", func(t *testing.T) {
		dz := providertest.ServeBody(200, `{"data":[{"id":1,"title":"A"},{"id":2,"title":"B"}],"total":50}`)
		p, err := run(t, client(t, dz, providertest.Refuse(t, "MusicBrainz")), `{"query":"x","num":2}`, `{"source":"deezer","offset":10}`)
		if err != nil {
			t.Fatal(err)
		}
		if !p.HasMore || string(p.Next) != `{"source":"deezer","offset":12}` {
			t.Errorf("has_more=%v next=%s", p.HasMore, p.Next)
		}
	})
	t.Run("musicbrainz continues on the fallback", func(t *testing.T) {
		mb := sandboxFake(musicbrainzID)
		c := client(t, providertest.Refuse(t, "Deezer"), mb)
		body := `{"query":"harder better faster stronger","num":5}`
		p1, err := run(t, c, body, `{"source":"musicbrainz","offset":0}`)
		if err != nil {
			t.Fatal(err)
		}
		if !p1.HasMore || string(p1.Next) != `{"source":"musicbrainz","offset":5}` {
			t.Fatalf("page 1: has_more=%v next=%s", p1.HasMore, p1.Next)
		}
		p2, err := run(t, c, body, string(p1.Next))
		if err != nil {
			t.Fatal(err)
		}
		if p2.HasMore || len(p2.Records) != 2 {
			t.Errorf("page 2: has_more=%v records=%d", p2.HasMore, len(p2.Records))
		}
		for _, p := range []*providers.Page{p1, p2} {
			if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "MusicBrainz") || !strings.Contains(p.Notes[0], "explicit, preview_url") {
				t.Errorf("notes = %v", p.Notes)
			}
		}
		if q := mb.Requests()[1].URL.Query(); q.Get("offset") != "5" {
			t.Errorf("page 2 offset = %s", q.Get("offset"))
		}
	})
	t.Run("sandbox pages", func(t *testing.T) {
		c := providertest.Client(t, Providers(), nil, nil)
		req := prepare(t, `{"query":"x","num":5}`)
		p1, err := providertest.ExecuteState(t, c, Search, providers.ModeTest, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := providertest.ExecuteState(t, c, Search, providers.ModeTest, req, p1.Next)
		if err != nil || p2.HasMore {
			t.Fatalf("sandbox page 2: %v, has_more %v", err, p2 != nil && p2.HasMore)
		}
	})
	t.Run("unreadable state", func(t *testing.T) {
		for _, st := range []string{`{"source":"spotify","offset":5}`, `{"source":"deezer","offset":-1}`, `[1]`, `"x"`} {
			_, err := run(t, client(t, providertest.Refuse(t, "Deezer"), providertest.Refuse(t, "MusicBrainz")), `{"query":"x"}`, st)
			if providertest.ErrorCode(err) != providers.CodeInternal {
				t.Errorf("state %s: error %v, want internal_error", st, err)
			}
		}
	})
}

func TestFallback(t *testing.T) {
	mbSandbox := func() *upstream { return sandboxFake(musicbrainzID) }
	checkFallback := func(t *testing.T, page *providers.Page, why string) {
		t.Helper()
		if len(page.Records) == 0 {
			t.Fatal("no fallback records")
		}
		for _, r := range page.Records {
			if r.Data.(*MusicRecord).MusicBrainzID == "" {
				t.Errorf("record %q is not from MusicBrainz", r.Title)
			}
			for _, k := range []string{"explicit", "preview_url"} {
				if _, ok := providertest.Native(&r)[k]; ok {
					t.Errorf("fallback record has %s", k)
				}
			}
		}
		if len(page.Notes) != 1 || !strings.Contains(page.Notes[0], why) || !strings.Contains(page.Notes[0], "lack these keys: explicit, preview_url;") {
			t.Errorf("notes = %v, want the fallback and %q", page.Notes, why)
		}
		if !page.HasMore || string(page.Next) != `{"source":"musicbrainz","offset":5}` {
			t.Errorf("fallback paging: has_more=%v next=%s", page.HasMore, page.Next)
		}
	}
	body := `{"query":"harder better faster stronger","num":5}`

	for _, tc := range []struct {
		name   string
		status int
		answer string
		why    string
	}{
		{"HTTP 500", 500, `<html>Internal Server Error</html>`, "Deezer failed: deezer failed (HTTP 500)"},
		{"HTTP 403", 403, `{"error":"forbidden"}`, "Deezer failed: deezer refused the request (HTTP 403)"},
		{"malformed JSON", 200, `{"data":[{"id":1,`, "Deezer failed: deezer answered malformed JSON"},
		{"service busy", 200, `{"error":{"type":"Exception","message":"Service busy","code":700}}`, "Deezer is busy (Exception: Service busy)"},
		{"allowance used up", 429, `{}`, "allowance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := run(t, client(t, providertest.ServeBody(tc.status, tc.answer), mbSandbox()), body, "")
			if err != nil {
				t.Fatal(err)
			}
			checkFallback(t, page, tc.why)
		})
	}

	t.Run("deezer not configured", func(t *testing.T) {
		provs := Providers()
		provs[0].BaseURL = ""
		c := providertest.Client(t, provs, map[string]http.Handler{musicbrainzID: mbSandbox()}, nil)
		page, err := providertest.ExecuteState(t, c, Search, providers.ModeLive, prepare(t, body), nil)
		if err != nil {
			t.Fatal(err)
		}
		checkFallback(t, page, "Deezer is not configured in this deployment")
	})

	t.Run("deezer breaker open", func(t *testing.T) {
		dz := providertest.ServeBody(502, `bad gateway`)
		c := client(t, dz, mbSandbox())
		// Five failing Deezer pages (a Deezer search never switches source mid-search) open the breaker.
		for range 5 {
			if _, err := run(t, c, body, `{"source":"deezer","offset":5}`); providertest.ErrorCode(err) != providers.CodeProviderError {
				t.Fatalf("error = %v, want provider_error", err)
			}
		}
		page, err := run(t, c, body, "")
		if err != nil {
			t.Fatal(err)
		}
		checkFallback(t, page, "Deezer is failing and calls to it are paused")
		if n := len(dz.Requests()); n != 5 {
			t.Errorf("Deezer called %d times, want 5 (the open breaker fails fast)", n)
		}
		// While the breaker is open a Deezer-paged search answers service_unavailable.
		if _, err := run(t, c, body, `{"source":"deezer","offset":5}`); providertest.ErrorCode(err) != providers.CodeServiceUnavailable {
			t.Errorf("more while open: %v, want service_unavailable", err)
		}
	})

	t.Run("deezer timeout leaves time for the fallback", func(t *testing.T) {
		dz := &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}}
		c := client(t, dz, mbSandbox())
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		page, err := Search.Execute(ctx, providers.NewCall(Search, prepare(t, body), nil, providers.ModeLive, "tnt_test", c))
		if err != nil {
			t.Fatal(err)
		}
		checkFallback(t, page, "Deezer failed: deezer did not answer in time")
	})

	t.Run("no fallback when MusicBrainz is not configured", func(t *testing.T) {
		provs := Providers()
		provs[1].BaseURL = ""
		c := providertest.Client(t, provs, map[string]http.Handler{deezerID: providertest.ServeBody(500, `oops`)}, nil)
		_, err := providertest.ExecuteState(t, c, Search, providers.ModeLive, prepare(t, body), nil)
		if providertest.ErrorCode(err) != providers.CodeProviderError {
			t.Errorf("error = %v, want Deezer's provider_error", err)
		}
	})

	t.Run("fallback failure is reported", func(t *testing.T) {
		_, err := run(t, client(t, providertest.ServeBody(500, `oops`), providertest.ServeBody(500, `{"error":"Internal Server Error"}`)), body, "")
		if providertest.ErrorCode(err) != providers.CodeProviderError || !strings.Contains(err.Error(), "musicbrainz") {
			t.Errorf("error = %v, want MusicBrainz's provider_error", err)
		}
	})

	t.Run("a deezer search does not switch source on more", func(t *testing.T) {
		_, err := run(t, client(t, providertest.ServeBody(500, `oops`), providertest.Refuse(t, "MusicBrainz")), body, `{"source":"deezer","offset":5}`)
		if providertest.ErrorCode(err) != providers.CodeProviderError {
			t.Errorf("error = %v, want provider_error", err)
		}
	})
}

func TestUpstreamErrors(t *testing.T) {
	cases := []struct {
		name       string
		deezer     *upstream
		mb         *upstream
		state      string
		code       providers.Code
		paths      []string
		retryAfter time.Duration
		retryable  bool
	}{
		{name: "deezer quota (HTTP 200, code 4)", deezer: providertest.ServeBody(200, `{"error":{"type":"Exception","message":"Quota limit exceeded","code":4}}`),
			code: providers.CodeRateLimited, retryAfter: 5 * time.Second, retryable: true},
		{name: "deezer invalid query (600)", deezer: providertest.ServeBody(200, `{"error":{"type":"InvalidQueryException","message":"Invalid query","code":600}}`),
			code: providers.CodeInvalidRequest, paths: []string{"/query"}},
		{name: "deezer HTTP 429 with a short Retry-After", deezer: &upstream{Answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(429)
		}}, code: providers.CodeRateLimited, retryAfter: 3 * time.Second, retryable: true},
		{name: "deezer parameter error on more", deezer: providertest.ServeBody(200, `{"error":{"type":"ParameterException","message":"Wrong parameter type: index","code":500}}`),
			state: `{"source":"deezer","offset":5}`, code: providers.CodeProviderError},
		{name: "deezer malformed on more", deezer: providertest.ServeBody(200, `[`), state: `{"source":"deezer","offset":5}`, code: providers.CodeProviderError, retryable: true},
		{name: "deezer answer without data on more", deezer: providertest.ServeBody(200, `{"total":3}`), state: `{"source":"deezer","offset":5}`,
			code: providers.CodeProviderError, retryable: true},
		{name: "deezer error as a string on more", deezer: providertest.ServeBody(200, `{"error":"oops"}`), state: `{"source":"deezer","offset":5}`,
			code: providers.CodeProviderError, retryable: true},
		{name: "musicbrainz throttling (HTTP 503)", mb: providertest.ServeBody(503, `{"error":"Your requests are exceeding the allowable rate limit. Please see https://wiki.musicbrainz.org/XMLWebService for more information."}`),
			state: `{"source":"musicbrainz","offset":0}`, code: providers.CodeRateLimited, retryAfter: 2 * time.Second, retryable: true},
		{name: "musicbrainz refuses the query (HTTP 400)", mb: providertest.ServeBody(400, `{"error":"Cannot parse query","help":"For usage, please see: https://musicbrainz.org/development/mmd"}`),
			state: `{"source":"musicbrainz","offset":0}`, code: providers.CodeInvalidRequest, paths: []string{"/query"}},
		{name: "musicbrainz without a list", mb: providertest.ServeBody(200, `{"created":"2026-01-01T00:00:00.000Z","count":3,"offset":0}`),
			state: `{"source":"musicbrainz","offset":0}`, code: providers.CodeProviderError, retryable: true},
		{name: "musicbrainz malformed", mb: providertest.ServeBody(200, `{"recordings":`), state: `{"source":"musicbrainz","offset":0}`, code: providers.CodeProviderError, retryable: true},
		{name: "musicbrainz not an object", mb: providertest.ServeBody(200, `[]`), state: `{"source":"musicbrainz","offset":0}`, code: providers.CodeProviderError, retryable: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dz, mb := tc.deezer, tc.mb
			if dz == nil {
				dz = providertest.Refuse(t, "Deezer")
			}
			if mb == nil {
				mb = providertest.Refuse(t, "MusicBrainz")
			}
			_, err := run(t, client(t, dz, mb), `{"query":"x"}`, tc.state)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code {
				t.Fatalf("error = %v, want %s", err, tc.code)
			}
			if got := providertest.ViolationPaths(err); !reflect.DeepEqual(got, tc.paths) && !(len(got) == 0 && tc.paths == nil) {
				t.Errorf("violation paths = %v, want %v", got, tc.paths)
			}
			if e.RetryAfter != tc.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tc.retryAfter)
			}
			if e.IsRetryable() != tc.retryable {
				t.Errorf("retryable = %v, want %v", e.IsRetryable(), tc.retryable)
			}
		})
	}
	t.Run("deezer no data on a search is an empty last page", func(t *testing.T) {
		page, err := run(t, client(t, providertest.ServeBody(200, `{"error":{"type":"DataException","message":"no data","code":800}}`), providertest.Refuse(t, "MusicBrainz")), `{"query":"x"}`, "")
		if err != nil || len(page.Records) != 0 || page.HasMore {
			t.Errorf("page = %+v, err = %v", page, err)
		}
	})
}

func TestDetails(t *testing.T) {
	req := prepare(t, `{"query":"x"}`)
	detail := func(t *testing.T, c *providers.Client, ref string) (*providers.Detail, error) {
		t.Helper()
		return providertest.Action(t, c, Search, providers.ModeLive, req, "details", &providers.Record{Title: "x", Ref: json.RawMessage(ref)})
	}
	t.Run("artist details carry title and name, equal", func(t *testing.T) {
		c := providertest.Client(t, Providers(), nil, nil)
		for _, ref := range []string{`{"source":"deezer","kind":"artist","id":"27"}`, `{"source":"musicbrainz","kind":"artist","id":"056e4f3e-d505-4dad-8ec1-d04f521cbb56"}`} {
			d, err := providertest.Action(t, c, Search, providers.ModeTest, req, "details", &providers.Record{Title: "x", Ref: json.RawMessage(ref)})
			if err != nil {
				t.Fatal(err)
			}
			b := d.Body.(*MusicDetail)
			if b.Title == "" || b.Title != b.Name {
				t.Errorf("%s: title %q, name %q", ref, b.Title, b.Name)
			}
		}
	})
	for _, tc := range []struct {
		name   string
		ref    string
		deezer *upstream
		mb     *upstream
		code   providers.Code
	}{
		{"deezer no data", `{"source":"deezer","kind":"track","id":"1"}`, providertest.ServeBody(200, `{"error":{"type":"DataException","message":"no data","code":800}}`), nil, providers.CodeNotFound},
		{"deezer quota", `{"source":"deezer","kind":"album","id":"1"}`, providertest.ServeBody(200, `{"error":{"type":"Exception","message":"Quota limit exceeded","code":4}}`), nil, providers.CodeRateLimited},
		{"deezer malformed", `{"source":"deezer","kind":"artist","id":"1"}`, providertest.ServeBody(200, `{"id":`), nil, providers.CodeProviderError},
		{"deezer HTTP 500", `{"source":"deezer","kind":"artist","id":"1"}`, providertest.ServeBody(500, ``), nil, providers.CodeProviderError},
		{"musicbrainz not found", `{"source":"musicbrainz","kind":"track","id":"0cf3008f-e246-428f-abc1-35f87d584d60"}`, nil,
			providertest.ServeBody(404, `{"error":"Not Found","help":"For usage, please see: https://musicbrainz.org/development/mmd"}`), providers.CodeNotFound},
		{"musicbrainz throttled", `{"source":"musicbrainz","kind":"album","id":"0cf3008f-e246-428f-abc1-35f87d584d60"}`, nil,
			providertest.ServeBody(503, `{"error":"Your requests are exceeding the allowable rate limit."}`), providers.CodeRateLimited},
		{"musicbrainz invalid mbid", `{"source":"musicbrainz","kind":"artist","id":"0cf3008f-e246-428f-abc1-35f87d584d60"}`, nil,
			providertest.ServeBody(400, `{"error":"Invalid mbid.","help":"For usage, please see: https://musicbrainz.org/development/mmd"}`), providers.CodeProviderError},
		{"corrupt reference", `{"source":"deezer","kind":"track","id":"../admin"}`, nil, nil, providers.CodeInternal},
		{"unknown source", `{"source":"spotify","kind":"track","id":"1"}`, nil, nil, providers.CodeInternal},
		{"no reference", ``, nil, nil, providers.CodeInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dz, mb := tc.deezer, tc.mb
			if dz == nil {
				dz = providertest.Refuse(t, "Deezer")
			}
			if mb == nil {
				mb = providertest.Refuse(t, "MusicBrainz")
			}
			_, err := detail(t, client(t, dz, mb), tc.ref)
			if providertest.ErrorCode(err) != tc.code {
				t.Errorf("error = %v, want %s", err, tc.code)
			}
		})
	}
	t.Run("records without a usable id offer no details", func(t *testing.T) {
		dz := providertest.ServeBody(200, `{"data":[{"id":"abc","name":"No id"},{"id":5,"name":"Has id"}],"total":2}`)
		page, err := run(t, client(t, dz, providertest.Refuse(t, "MusicBrainz")), `{"query":"x","kind":"artist"}`, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) != 2 {
			t.Fatalf("%d records", len(page.Records))
		}
		if a := page.Records[0].Actions; a == nil || len(a) != 0 || page.Records[0].Ref != nil {
			t.Errorf("record without id: actions %v, ref %s", a, page.Records[0].Ref)
		}
		if page.Records[1].Actions != nil || string(page.Records[1].Ref) != `{"source":"deezer","kind":"artist","id":"5"}` {
			t.Errorf("record with id: actions %v, ref %s", page.Records[1].Actions, page.Records[1].Ref)
		}
	})
}

func TestLenientDecoding(t *testing.T) {
	var v struct {
		A, B, C, D, E lenient.Int
		S, T, U       lenient.Str
		X, Y          lenient.Bool
		I, J, K       lenient.ID
		L             lenient.List[lenient.Str]
		O             lenient.Obj[mbArea]
	}
	in := `{"A":12,"B":"34","C":null,"D":{"x":1},"E":1.5,"S":"  hi ","T":7,"U":"","X":true,"Y":"yes",` +
		`"I":2238153377,"J":"056e4f3e-d505-4dad-8ec1-d04f521cbb56","K":[1],"L":["a",2,"b"],"O":"nope"}`
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%v %v %v %v %v|%q %q %q|%v %v|%q %q %q|%v|%v", v.A, v.B, v.C, v.D, v.E, v.S, v.T, v.U, v.X, v.Y, v.I, v.J, v.K, v.L, v.O.V)
	want := `{12 true} {34 true} {0 false} {0 false} {0 false}|"hi" "" ""|{true true} {false false}|"2238153377" "056e4f3e-d505-4dad-8ec1-d04f521cbb56" ""|[a  b]|<nil>`
	if got != want {
		t.Errorf("decoded\n got %s\nwant %s", got, want)
	}
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct {
		in   int64
		want string
	}{{0, "0:00"}, {59, "0:59"}, {224, "3:44"}, {600, "10:00"}, {3660, "61:00"}} {
		if got := clock(tc.in); got != tc.want {
			t.Errorf("clock(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {4117751, "4,117,751"}, {-1234, "-1,234"}} {
		if got := formatCount(tc.in); got != tc.want {
			t.Errorf("formatCount(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := plural(1, "album"); got != "1 album" {
		t.Errorf("plural = %q", got)
	}
	if got := deezerImage("api", "", "", "https://e-cdns-images.dzcdn.net/images/artist//500x500-000000-80-0-0.jpg", ""); got != "" {
		t.Errorf("placeholder image kept: %q", got)
	}
	if got := deezerImage("https://api.deezer.com/artist/1/image", "", "", "", ""); got != "https://api.deezer.com/artist/1/image" {
		t.Errorf("API image dropped: %q", got)
	}
}

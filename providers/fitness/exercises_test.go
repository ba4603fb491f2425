package fitness

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func TestCapabilityDeclaration(t *testing.T) {
	c := Exercises
	if c.ID != "fitness.exercises" || c.Topic != "Food and fitness" || c.Title == "" || c.Summary == "" || c.Description == "" {
		t.Errorf("id/topic/texts = %q/%q", c.ID, c.Topic)
	}
	if c.Paging != providers.PagingPage || c.Deadline != 45*time.Second || c.NoUpdate {
		t.Errorf("paging %v deadline %v noupdate %v", c.Paging, c.Deadline, c.NoUpdate)
	}
	if c.Cost.Typical != 10 || !c.Cost.NoMultiplier || c.Cost.Basis == "" {
		t.Errorf("cost = %+v, want 10 credits with no multiplier", c.Cost)
	}
	if !reflect.DeepEqual(c.Providers, []string{"exercisevideo", "wger"}) {
		t.Errorf("providers = %v", c.Providers)
	}
	if len(c.Actions) != 1 || c.Actions[0].Name != "details" || c.Actions[0].Kind != providers.ActionStored || c.Actions[0].Description == "" {
		t.Errorf("actions = %+v", c.Actions)
	}
	if len(c.Examples) < 2 {
		t.Errorf("%d examples", len(c.Examples))
	}
	if got := Capabilities(); len(got) != 1 || got[0] != Exercises {
		t.Errorf("Capabilities() = %v", got)
	}
	ps := Providers()
	if len(ps) != 2 || ps[0].ID != VideoProviderID || !ps[0].KeyRequired || ps[0].BaseURL != "https://exercise-api.ymove.app/api/v2" ||
		ps[1].ID != WgerProviderID || ps[1].KeyRequired || ps[1].BaseURL != "https://wger.de" || ps[0].Sandbox == nil || ps[1].Sandbox == nil {
		t.Errorf("Providers() = %+v %+v", ps[0], ps[1])
	}
	doc := c.Schema().Doc
	if doc["additionalProperties"] != false || doc["type"] != "object" || doc["required"] != nil {
		t.Errorf("schema top level: %v", doc)
	}
	props := doc["properties"].(map[string]any)
	if len(props) != 4 {
		t.Errorf("properties: %v", props)
	}
	for _, name := range []string{"query", "muscle", "equipment"} {
		p := props[name].(map[string]any)
		if p["type"] != "string" || p["minLength"] != 1.0 || p["maxLength"] != 120.0 || p["pattern"] != `\S` || p["description"] == "" {
			t.Errorf("%s schema = %v", name, p)
		}
	}
	if p := props["num"].(map[string]any); p["type"] != "integer" || p["minimum"] != 1.0 || p["maximum"] != 20.0 || p["default"] != 10.0 {
		t.Errorf("num schema = %v", p)
	}
}

func TestValidation(t *testing.T) {
	long := strings.Repeat("a", 120)
	cases := []struct {
		name  string
		body  string
		paths []string // nil: valid
	}{
		{"query only", `{"query":"bench press"}`, nil},
		{"muscle only", `{"muscle":"chest"}`, nil},
		{"equipment only", `{"equipment":"dumbbell"}`, nil},
		{"all three", `{"query":"press","muscle":"Chest","equipment":"Dumbbells","num":20}`, nil},
		{"synonyms", `{"muscle":"Full-Body","equipment":"body weight"}`, nil},
		{"query at 120", `{"query":"` + long + `"}`, nil},
		{"num 1", `{"query":"x","num":1}`, nil},

		{"nothing to search", `{}`, []string{""}},
		{"num only", `{"num":5}`, []string{""}},
		{"blank query", `{"query":"   "}`, []string{"/query"}},
		{"empty muscle", `{"muscle":""}`, []string{"/muscle"}},
		{"blank equipment", `{"query":"x","equipment":"\t"}`, []string{"/equipment"}},
		{"query too long", `{"query":"` + long + `a"}`, []string{"/query"}},
		{"muscle too long", `{"muscle":"` + long + `a"}`, []string{"/muscle"}},
		{"query not a string", `{"query":5}`, []string{"/query"}},
		{"num 0", `{"query":"x","num":0}`, []string{"/num"}},
		{"num 21", `{"query":"x","num":21}`, []string{"/num"}},
		{"num fraction", `{"query":"x","num":2.5}`, []string{"/num"}},
		{"unknown key", `{"query":"x","page":2}`, []string{"/page"}},
		// rules beyond the schema
		{"unknown muscle", `{"muscle":"earlobes"}`, []string{"/muscle"}},
		{"unknown equipment", `{"query":"x","equipment":"rowing boat"}`, []string{"/equipment"}},
		{"both unknown", `{"muscle":"earlobes","equipment":"rowing boat"}`, []string{"/muscle", "/equipment"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := providertest.Prepare(t, Exercises, tc.body)
			if tc.paths == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if n, _ := req.Int("num"); n < 1 {
					t.Errorf("num default missing: %v", req)
				}
				return
			}
			if providertest.ErrorCode(err) != providers.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			if got := uniquePaths(err); !reflect.DeepEqual(got, tc.paths) {
				t.Errorf("violation paths = %q, want %q", got, tc.paths)
			}
		})
	}
	t.Run("messages", func(t *testing.T) {
		vs := rules(providers.Request{"muscle": "earlobes"}, nil)
		if len(vs) != 1 || !strings.Contains(vs[0].Message, "earlobes") || !strings.Contains(vs[0].Message, "full_body") {
			t.Errorf("violations = %+v", vs)
		}
	})
	t.Run("update removing every selector", func(t *testing.T) {
		up := &providers.Update{Params: providers.Request{"query": nil}}
		if vs := Exercises.Rules(providers.Request{"num": 10}, up); len(vs) != 1 || vs[0].Path != "" {
			t.Errorf("violations = %+v", vs)
		}
	})
}

func uniquePaths(err error) []string {
	var out []string
	for _, p := range providertest.ViolationPaths(err) {
		if len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	return out
}

func TestSearchParams(t *testing.T) {
	cases := []struct {
		body string
		want url.Values
	}{
		{`{"query":"  bench press "}`, url.Values{"search": {"bench press"}, "page": {"1"}, "pageSize": {"10"}, "excludeVideos": {"true"}}},
		{`{"muscle":"Quadriceps","equipment":"Kettlebells","num":5}`,
			url.Values{"muscleGroup": {"quads"}, "equipment": {"kettlebell"}, "page": {"1"}, "pageSize": {"5"}, "excludeVideos": {"true"}}},
		{`{"muscle":"abs","equipment":"none","num":20}`,
			url.Values{"muscleGroup": {"core"}, "equipment": {"bodyweight"}, "page": {"1"}, "pageSize": {"20"}, "excludeVideos": {"true"}}},
		{`{"query":"row","muscle":"upper_back","equipment":"CABLE MACHINE"}`,
			url.Values{"search": {"row"}, "muscleGroup": {"back"}, "equipment": {"cable"}, "page": {"1"}, "pageSize": {"10"}, "excludeVideos": {"true"}}},
		{`{"muscle":"full body"}`, url.Values{"muscleGroup": {"full_body"}, "page": {"1"}, "pageSize": {"10"}, "excludeVideos": {"true"}}},
	}
	for _, tc := range cases {
		f := newFake(t, true)
		f.serve("/exercises", 200, "search_empty.json")
		if _, err := run(t, clients(t, f, nil), providers.ModeLive, "tnt_a", newWorkouts(), tc.body, nil); err != nil {
			t.Fatal(err)
		}
		if got := f.Requests()[0].URL.Query(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: query = %v, want %v", tc.body, got, tc.want)
		}
	}
}

func TestSearchMappingGolden(t *testing.T) {
	for _, tc := range []struct{ name, fixture, body string }{
		{"search", "search.json", `{"muscle":"chest","num":5}`},
		{"search_odd", "search_odd.json", `{"query":"press"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, true)
			f.serve("/exercises", 200, tc.fixture)
			ws := newWorkouts()
			page, err := run(t, clients(t, f, nil), providers.ModeLive, "tnt_a", ws, tc.body, nil)
			if err != nil {
				t.Fatal(err)
			}
			providertest.Golden(t, tc.name, providertest.RecordsJSON(page))
			if reqs := f.Requests(); len(reqs) != 1 || reqs[0].URL.Path != "/exercises" {
				t.Fatalf("requests: %v", reqs)
			}
			videos := 0
			for _, rec := range page.Records {
				data := rec.Data.(*ExerciseRecord)
				if rec.Title == "" || data.Attribution != videoAttribution {
					t.Errorf("%q misses an always key", rec.Title)
				}
				has := data.VideoAvailable
				wr, hasWorkout := data.WorkoutResource, data.WorkoutResource != nil
				hasReason := data.VideoUnavailableReason != ""
				if has != hasWorkout || has == hasReason {
					t.Errorf("%q: video_available %v, workout_resource %v, reason %v", rec.Title, has, hasWorkout, hasReason)
				}
				if hasWorkout {
					videos++
					id := wr.ID
					if wr.URL != publicURL+"/console/workouts/"+id || wr.Title != rec.Title || !wr.VideoAvailable {
						t.Errorf("workout_resource = %v", wr)
					}
					w, saved := ws.saved[id]
					if !saved || w.Provider != VideoProviderID || w.Title != rec.Title || !w.VideoAvailable || w.ExerciseRef == "" ||
						strings.HasPrefix(w.ExerciseRef, "test:") || !reflect.DeepEqual(w.Muscles, data.Muscles) {
						t.Errorf("saved workout %s = %+v", id, w)
					}
				}
				for k, v := range providertest.Native(&rec) {
					if v == "" || v == nil {
						t.Errorf("%q: empty %s", rec.Title, k)
					}
				}
				d := rec.Stored["details"]
				if d == nil || d.Links == nil {
					t.Fatalf("%q has no stored details", rec.Title)
				}
			}
			if videos != len(ws.saved) || videos == 0 {
				t.Errorf("%d records with video, %d workouts saved", videos, len(ws.saved))
			}
		})
	}
}

func TestPaging(t *testing.T) {
	f := newFake(t, true)
	f.routes["/exercises"] = func(w http.ResponseWriter, r *http.Request) {
		name := map[string]string{"1": "search.json", "2": "search_page2.json", "3": "search_empty.json"}[r.URL.Query().Get("page")]
		_, _ = w.Write(providertest.Fixture(t, name))
	}
	client := clients(t, f, nil)
	ws := newWorkouts()
	req, err := providertest.Prepare(t, Exercises, `{"muscle":"chest","num":5}`)
	if err != nil {
		t.Fatal(err)
	}
	p1, err := runReq(t, client, providers.ModeLive, "tnt_a", ws, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p1.HasMore || string(p1.Next) != `{"page":2}` || len(p1.Records) != 5 {
		t.Fatalf("page 1: more %v next %s records %d", p1.HasMore, p1.Next, len(p1.Records))
	}
	p2, err := runReq(t, client, providers.ModeLive, "tnt_a", ws, req, p1.Next)
	if err != nil {
		t.Fatal(err)
	}
	if p2.HasMore || p2.Next != nil || len(p2.Records) != 3 || p2.Records[0].Title != "Goblet Squat" {
		t.Fatalf("page 2 (last of totalPages 2): more %v next %s records %d", p2.HasMore, p2.Next, len(p2.Records))
	}
	if got := f.Requests()[1].URL.Query().Get("page"); got != "2" {
		t.Errorf("second request page = %q", got)
	}
	// A page past the end comes back empty and ends the search.
	p3, err := runReq(t, client, providers.ModeLive, "tnt_a", ws, req, json.RawMessage(`{"page":3}`))
	if err != nil || p3.HasMore || len(p3.Records) != 0 {
		t.Fatalf("page 3: %v %+v", err, p3)
	}
	for _, bad := range []string{`{"page":0}`, `{"source":"elsewhere","page":2}`, `[1]`} {
		if _, err := runReq(t, client, providers.ModeLive, "tnt_a", ws, req, json.RawMessage(bad)); providertest.ErrorCode(err) != providers.CodeInternal {
			t.Errorf("state %s: %v", bad, err)
		}
	}
}

// TestEmptyPageCharge: an empty answer is a successful search billed the typical 10 credits
// (Page.Credits nil), exempt from the plan multiplier.
func TestEmptyPageCharge(t *testing.T) {
	f := newFake(t, true)
	f.serve("/exercises", 200, "search_empty.json")
	page, err := run(t, clients(t, f, nil), providers.ModeLive, "tnt_a", newWorkouts(), `{"query":"zzz"}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 0 || page.HasMore || page.Records == nil {
		t.Fatalf("page = %+v", page)
	}
	charged := Exercises.Cost.Typical
	if page.Credits != nil {
		charged = *page.Credits
	}
	if charged != 10 || !Exercises.Cost.NoMultiplier {
		t.Errorf("empty page charges %d (no multiplier %v), want 10 with no multiplier", charged, Exercises.Cost.NoMultiplier)
	}
}

func TestWorkoutsPerTenant(t *testing.T) {
	f := newFake(t, true)
	f.serve("/exercises", 200, "search.json")
	client := clients(t, f, nil)
	ws := newWorkouts()
	ids := func(tenant string, mode providers.Mode) []string {
		page, err := run(t, client, mode, tenant, ws, `{"muscle":"chest"}`, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range page.Records {
			if wr := r.Data.(*ExerciseRecord).WorkoutResource; wr != nil {
				out = append(out, wr.ID)
			}
		}
		return out
	}
	a1, a2, b := ids("tnt_a", providers.ModeLive), ids("tnt_a", providers.ModeLive), ids("tnt_b", providers.ModeLive)
	if len(a1) != 3 || !reflect.DeepEqual(a1, a2) {
		t.Errorf("same tenant twice: %v then %v", a1, a2)
	}
	for i := range a1 {
		if a1[i] == b[i] {
			t.Errorf("tenants share workout %s", a1[i])
		}
	}
	if len(ws.saved) != 6 {
		t.Errorf("%d workouts saved, want 3 per tenant", len(ws.saved))
	}
	if w := ws.saved[a1[0]]; w.ExerciseRef != "5f1c2a3b-8d4e-4f6a-9b7c-1e2d3c4b5a61" ||
		!reflect.DeepEqual(w.Muscles, []string{"chest", "shoulders", "triceps"}) || !reflect.DeepEqual(w.Equipment, []string{"barbell"}) {
		t.Errorf("saved = %+v", w)
	}
	// A test key's workouts are marked to be renewed from the sandbox.
	test := ids("tnt_a", providers.ModeTest)
	if w := ws.saved[test[0]]; !strings.HasPrefix(w.ExerciseRef, "test:") || len(w.Muscles) == 0 || w.Muscles[0] != "chest" || test[0] == a1[0] {
		t.Errorf("test-mode workout %s = %+v", test[0], w)
	}

	t.Run("save failure fails the search", func(t *testing.T) {
		bad := newWorkouts()
		bad.fail = errDatabase
		if _, err := run(t, client, providers.ModeLive, "tnt_a", bad, `{"muscle":"chest"}`, nil); providertest.ErrorCode(err) != providers.CodeInternal {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("no workouts store", func(t *testing.T) {
		if _, err := run(t, client, providers.ModeLive, "tnt_a", nil, `{"muscle":"chest"}`, nil); providertest.ErrorCode(err) != providers.CodeInternal {
			t.Errorf("err = %v", err)
		}
	})
}

func TestUpstreamErrors(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		body      string
		retry     string
		code      providers.Code
		retryable bool
	}{
		{"invalid key", 401, "invalid_key.json", "", providers.CodeProviderError, false},
		{"invalid parameter", 400, "invalid_parameter.json", "", providers.CodeInvalidRequest, false},
		{"rate limited", 429, "rate_limited.json", "30", providers.CodeRateLimited, true},
		{"allowance", 429, "rate_limited.json", "", providers.CodeProviderAllowance, false},
		{"server error", 500, `{"error":{"code":"INTERNAL_ERROR","message":"Database unavailable"}}`, "", providers.CodeProviderError, true},
		{"malformed", 200, `{"data":`, "", providers.CodeProviderError, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, true)
			b := []byte(tc.body)
			if !strings.HasPrefix(tc.body, "{") {
				b = providertest.Fixture(t, tc.body)
			}
			f.routes["/exercises"] = func(w http.ResponseWriter, _ *http.Request) {
				if tc.retry != "" {
					w.Header().Set("Retry-After", tc.retry)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write(b)
			}
			_, err := run(t, clients(t, f, nil), providers.ModeLive, "tnt_a", newWorkouts(), `{"query":"press"}`, nil)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code || e.IsRetryable() != tc.retryable {
				t.Fatalf("err = %v (retryable %v), want %s retryable %v", err, ok && e.IsRetryable(), tc.code, tc.retryable)
			}
			if tc.name == "invalid parameter" && !strings.Contains(e.Message, "pageSize must be between 1 and 50") {
				t.Errorf("message %q misses the provider's reason", e.Message)
			}
			if tc.name == "server error" && !strings.Contains(e.Message, "Database unavailable") {
				t.Errorf("message %q misses the provider's reason", e.Message)
			}
		})
	}
}

func TestLegacyWgerSession(t *testing.T) {
	v := newFake(t, true)
	w := newFake(t, false)
	w.routes["/api/v2/exerciseinfo/"] = func(rw http.ResponseWriter, r *http.Request) {
		name := "wger_exerciseinfo.json"
		if r.URL.Query().Get("offset") == "13" {
			name = "wger_last.json"
		}
		_, _ = rw.Write(providertest.Fixture(t, name))
	}
	client := clients(t, v, w)
	req, err := providertest.Prepare(t, Exercises, `{"query":"press","num":3}`)
	if err != nil {
		t.Fatal(err)
	}
	state := json.RawMessage(`{"source":"wger","offset":10,"params":{"name__search":"press","muscles":"4","host":"evil.example"}}`)
	page, err := runReq(t, client, providers.ModeLive, "tnt_a", newWorkouts(), req, state)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, "wger_legacy", providertest.RecordsJSON(page))
	want := url.Values{"name__search": {"press"}, "muscles": {"4"}, "language__code": {"en"}, "limit": {"3"}, "offset": {"10"}}
	if reqs := w.Requests(); len(reqs) != 1 || reqs[0].URL.Path != "/api/v2/exerciseinfo/" || !reflect.DeepEqual(reqs[0].URL.Query(), want) {
		t.Fatalf("wger requests: %v", reqs)
	}
	if len(v.Requests()) != 0 {
		t.Errorf("a legacy session called the video provider")
	}
	if len(page.Records) != 2 || !page.HasMore || len(page.Notes) != 1 {
		t.Fatalf("records %d more %v notes %v", len(page.Records), page.HasMore, page.Notes)
	}
	var next pagingState
	if err := json.Unmarshal(page.Next, &next); err != nil || next.Source != "wger" || next.Offset != 13 || next.Params["name__search"] != "press" || next.Params["host"] != "" {
		t.Fatalf("next = %s", page.Next)
	}
	for _, r := range page.Records {
		if d := r.Data.(*ExerciseRecord); d.VideoAvailable || d.VideoUnavailableReason != legacyReason || d.Attribution == "" ||
			d.Licence == nil || d.WorkoutResource != nil {
			t.Errorf("legacy record %q: %+v", r.Title, d)
		}
	}
	last, err := runReq(t, client, providers.ModeLive, "tnt_a", newWorkouts(), req, page.Next)
	if err != nil || last.HasMore || len(last.Records) != 1 {
		t.Fatalf("last legacy page: %v %+v", err, last)
	}
}

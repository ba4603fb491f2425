package navigation

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/providertest"
)

func lenientStr(s string) lenient.Str { return lenient.Str(s) }

func TestProviders(t *testing.T) {
	byID := map[string]*providers.Provider{}
	for _, p := range Providers() {
		byID[p.ID] = p
		if p.Sandbox == nil {
			t.Errorf("provider %s has no sandbox", p.ID)
		}
	}
	ors, osrm, nom := byID[orsID], byID[osrmID], byID[nominatimID]
	if ors == nil || osrm == nil || nom == nil || len(byID) != 3 {
		t.Fatalf("providers = %v", byID)
	}
	if ors.BaseURL != "https://api.openrouteservice.org" || !ors.KeyRequired || ors.Authorize == nil {
		t.Errorf("ors = %+v", ors)
	}
	r, _ := http.NewRequest(http.MethodPost, "https://api.openrouteservice.org/v2/directions/driving-car/json", nil)
	ors.Authorize(r, "k123")
	if r.Header.Get("Authorization") != "k123" || r.URL.RawQuery != "" {
		t.Errorf("ORS key must go in the Authorization header: %v %q", r.Header, r.URL.RawQuery)
	}
	if osrm.BaseURL != "https://router.project-osrm.org" || osrm.KeyRequired || osrm.Authorize != nil || osrm.RequestsPerSecond != 1 {
		t.Errorf("osrm = %+v (the public demo server allows one request a second)", osrm)
	}
	if nom.BaseURL != "https://nominatim.openstreetmap.org" || nom.KeyRequired || nom.RequestsPerSecond != 1 {
		t.Errorf("nominatim = %+v (the public geocoder allows one request a second)", nom)
	}
	if got := Capabilities(); len(got) != 2 || got[0] != Route || got[1] != Matrix {
		t.Errorf("Capabilities() = %v", got)
	}
}

// checkDeclaration checks what both capabilities share.
func checkDeclaration(t *testing.T, c *providers.Capability) {
	t.Helper()
	if c.Topic != "Travel and places" || c.Paging != providers.PagingSingle || !c.NoUpdate {
		t.Errorf("topic/paging/update = %q/%q/%v", c.Topic, c.Paging, c.NoUpdate)
	}
	if c.Deadline != 15*time.Second || c.Cost.Typical != 0 || c.Cost.Basis == "" {
		t.Errorf("deadline/cost = %v/%d/%q", c.Deadline, c.Cost.Typical, c.Cost.Basis)
	}
	if !reflect.DeepEqual(c.Providers, []string{"osrm", "nominatim"}) {
		t.Errorf("providers = %v (the capability must be available with the keyless fallback alone)", c.Providers)
	}
	if got := c.SearchActions(); len(got) != 0 {
		t.Errorf("search actions = %v, want none (single result, no update)", got)
	}
	if len(c.Examples) < 2 {
		t.Errorf("%d examples, want at least 2", len(c.Examples))
	}
	if c.Rules != nil {
		t.Error("geocoding is checked at execute time; no static rules are declared")
	}
	walkSchema(t, "", c.Schema().Doc)
}

// walkSchema checks that every object is closed and every property described.
func walkSchema(t *testing.T, at string, node any) {
	t.Helper()
	switch n := node.(type) {
	case map[string]any:
		if n["type"] == "object" && n["additionalProperties"] != false {
			t.Errorf("%s: object without additionalProperties false", at)
		}
		if props, ok := n["properties"].(map[string]any); ok {
			for name, p := range props {
				if d, _ := p.(map[string]any)["description"].(string); d == "" {
					t.Errorf("%s/%s: no description", at, name)
				}
			}
		}
		for k, v := range n {
			walkSchema(t, at+"/"+k, v)
		}
	case []any:
		for i, v := range n {
			walkSchema(t, fmt.Sprintf("%s/%d", at, i), v)
		}
	}
}

func TestRouteDeclaration(t *testing.T) {
	checkDeclaration(t, Route)
	if Route.ID != "navigation.route" {
		t.Errorf("id = %q", Route.ID)
	}
	a, ok := Route.Action("details")
	if !ok || a.Kind != providers.ActionStored || a.Credits != 0 || len(Route.Actions) != 1 {
		t.Errorf("details action = %+v", a)
	}
}

func TestRouteSchema(t *testing.T) {
	long := strings.Repeat("é", 200)
	ten := strings.TrimSuffix(strings.Repeat(`"Potsdam",`, 10), ",")
	cases := []struct {
		name  string
		body  string
		paths []string
	}{
		{"names", `{"origin":"Berlin","destination":"Potsdam"}`, nil},
		{"coordinates", `{"origin":{"lat":52.5,"lon":13.4},"destination":{"lat":-90,"lon":180}}`, nil},
		{"lat, lon text", `{"origin":"52.5163, 13.3777","destination":"Potsdam"}`, nil},
		{"200 characters", `{"origin":"` + long + `","destination":"Potsdam"}`, nil},
		{"all fields", `{"origin":"Berlin","destination":"Potsdam","waypoints":[` + ten + `],"mode":"cycling","alternatives":false}`, nil},
		{"missing origin", `{"destination":"Potsdam"}`, []string{"/origin"}},
		{"missing both", `{}`, []string{"/destination", "/origin"}},
		{"empty origin", `{"origin":"","destination":"Potsdam"}`, []string{"/origin"}},
		{"blank origin", `{"origin":"  \t","destination":"Potsdam"}`, []string{"/origin"}},
		{"201 characters", `{"origin":"` + long + `x","destination":"Potsdam"}`, []string{"/origin"}},
		{"latitude over 90", `{"origin":{"lat":90.5,"lon":13},"destination":"Potsdam"}`, []string{"/origin", "/origin/lat"}},
		{"longitude under -180", `{"origin":"Berlin","destination":{"lat":0,"lon":-180.1}}`, []string{"/destination", "/destination/lon"}},
		{"coordinates missing lon", `{"origin":{"lat":52},"destination":"Potsdam"}`, []string{"/origin", "/origin/lon"}},
		{"coordinates extra key", `{"origin":{"lat":52,"lon":13,"alt":30},"destination":"Potsdam"}`, []string{"/origin", "/origin/alt"}},
		{"coordinates as strings", `{"origin":{"lat":"52","lon":"13"},"destination":"Potsdam"}`, []string{"/origin", "/origin/lat", "/origin/lon"}},
		{"place is a number", `{"origin":52.5,"destination":"Potsdam"}`, []string{"/origin"}},
		{"11 waypoints", `{"origin":"Berlin","destination":"Potsdam","waypoints":[` + ten + `,"Leipzig"]}`, []string{"/waypoints"}},
		{"blank waypoint", `{"origin":"Berlin","destination":"Potsdam","waypoints":["Leipzig"," "]}`, []string{"/waypoints/1"}},
		{"waypoints not an array", `{"origin":"Berlin","destination":"Potsdam","waypoints":"Leipzig"}`, []string{"/waypoints"}},
		{"unknown mode", `{"origin":"Berlin","destination":"Potsdam","mode":"flying"}`, []string{"/mode"}},
		{"alternatives as text", `{"origin":"Berlin","destination":"Potsdam","alternatives":"yes"}`, []string{"/alternatives"}},
		{"unknown key", `{"origin":"Berlin","destination":"Potsdam","avoid":"tolls"}`, []string{"/avoid"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, Route, tc.body)
			checkPaths(t, err, tc.paths)
		})
	}
	t.Run("defaults", func(t *testing.T) {
		req := prepare(t, Route, `{"origin":"Berlin","destination":"Potsdam"}`)
		if req.Str("mode") != "driving" || req["alternatives"] != false {
			t.Errorf("defaults: mode %v alternatives %v", req["mode"], req["alternatives"])
		}
	})
}

// checkPaths expects no error (paths nil) or invalid_request with exactly these violation paths.
func checkPaths(t *testing.T, err error, paths []string) {
	t.Helper()
	if paths == nil {
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
	if !reflect.DeepEqual(got, paths) {
		t.Errorf("violation paths = %v, want %v", got, paths)
	}
}

func exampleBody(t *testing.T, ex providers.Example) string {
	t.Helper()
	b, err := json.Marshal(ex.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRouteExamplesSandbox(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	for i, ex := range Route.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			page, err := providertest.Execute(t, client, Route, providers.ModeTest, exampleBody(t, ex))
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 {
				t.Fatal("no records")
			}
			for _, r := range page.Records {
				if providertest.Native(&r)["engine"] != engineORS || providertest.Native(&r)["license"] != orsLicense || r.Stored["details"] == nil {
					t.Errorf("record %q: %v", r.Title, providertest.Native(&r))
				}
			}
			if page.HasMore || page.Next != nil {
				t.Errorf("single result: has_more %v next %s", page.HasMore, page.Next)
			}
			providertest.Golden(t, fmt.Sprintf("route_example_%d_sandbox", i+1), providertest.RecordsJSON(page))
		})
	}
	t.Run("unknown place", func(t *testing.T) {
		// The reserved miss answers as live mode answers a place that does not exist.
		_, err := providertest.Execute(t, client, Route, providers.ModeTest, `{"origin":"Berlin","destination":"Nowhere"}`)
		checkPaths(t, err, []string{"/destination"})
		if e, _ := providers.AsError(err); e == nil || e.Hint != "" {
			t.Errorf("a sandbox miss should carry no sandbox hint: %v", err)
		}
	})
}

func TestRouteExamplesLive(t *testing.T) {
	for _, ex := range Route.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			u := upstreams{ors: sandboxFake(orsID), osrm: providertest.Refuse(t, "osrm"), nominatim: sandboxFake(nominatimID)}
			page, err := run(t, Route, u, exampleBody(t, ex))
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 || providertest.Native(&page.Records[0])["engine"] != engineORS {
				t.Fatalf("records = %+v", page.Records)
			}
			checkHeaders(t, "ors", u.ors, orsKey)
			checkHeaders(t, "nominatim", u.nominatim, "")
		})
		t.Run(ex.Title+" on the fallback engine", func(t *testing.T) {
			u := upstreams{osrm: sandboxFake(osrmID), nominatim: sandboxFake(nominatimID)}
			page, err := run(t, Route, u, exampleBody(t, ex))
			mode, _ := ex.Body.Request()["mode"].(string)
			if mode != "" && mode != "driving" {
				if providertest.ErrorCode(err) != providers.CodeCapabilityUnavailable {
					t.Fatalf("%s without the primary engine: %v, want capability_unavailable", mode, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 || providertest.Native(&page.Records[0])["engine"] != engineOSRM {
				t.Fatalf("records = %+v", page.Records)
			}
			checkHeaders(t, "osrm", u.osrm, "")
		})
	}
}

// orsBody is what the adapter must send for origin, waypoints and destination.
func TestRouteORSRequestAndMapping(t *testing.T) {
	u := upstreams{ors: providertest.ServeFile(t, 200, td("ors_directions_waypoints.json")), osrm: providertest.Refuse(t, "osrm"), nominatim: providertest.Refuse(t, "nominatim")}
	page, err := run(t, Route, u, `{"origin":{"lat":49.41461,"lon":8.681495},"waypoints":["49.41943, 8.686507"],
		"destination":{"lat":49.420318,"lon":8.687872}}`)
	if err != nil {
		t.Fatal(err)
	}
	reqs := requests(u.ors)
	if len(reqs) != 1 {
		t.Fatalf("%d ORS calls", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/v2/directions/driving-car/json" || r.Query != "" {
		t.Errorf("ORS request %s %s?%s", r.Method, r.Path, r.Query)
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || r.Header.Get("Accept") != "application/json" {
		t.Errorf("ORS headers %v", r.Header)
	}
	want := `{"coordinates":[[8.681495,49.41461],[8.686507,49.41943],[8.687872,49.420318]],"instructions":true}`
	if !jsonEqual(t, r.Body, want) {
		t.Errorf("ORS body %s, want %s", r.Body, want)
	}
	checkHeaders(t, "ors", u.ors, orsKey)
	providertest.Golden(t, "route_ors_waypoints", providertest.RecordsJSON(page))
}

func TestRouteORSAlternatives(t *testing.T) {
	u := upstreams{ors: providertest.ServeFile(t, 200, td("ors_directions_alternatives.json")), osrm: providertest.Refuse(t, "osrm"), nominatim: sandboxFake(nominatimID)}
	page, err := run(t, Route, u, `{"origin":"Berlin","destination":"Potsdam","alternatives":true}`)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"coordinates":[[13.3888599,52.5170365],[13.0591397,52.4009309]],"instructions":true,
		"alternative_routes":{"target_count":3,"share_factor":0.6,"weight_factor":1.4}}`
	if body := requests(u.ors)[0].Body; !jsonEqual(t, body, want) {
		t.Errorf("ORS body %s, want %s", body, want)
	}
	if len(page.Records) != 2 || !strings.HasPrefix(page.Records[1].Title, "Alternative 1: Berlin → Potsdam") {
		t.Errorf("records = %+v", page.Records)
	}
	providertest.Golden(t, "route_ors_alternatives", providertest.RecordsJSON(page))

	t.Run("only the best route without alternatives", func(t *testing.T) {
		u := upstreams{ors: providertest.ServeFile(t, 200, td("ors_directions_alternatives.json")), nominatim: sandboxFake(nominatimID)}
		page, err := run(t, Route, u, `{"origin":"Berlin","destination":"Potsdam"}`)
		if err != nil || len(page.Records) != 1 {
			t.Fatalf("records %v, err %v", page, err)
		}
		if strings.Contains(requests(u.ors)[0].Body, "alternative_routes") {
			t.Error("alternative_routes sent although alternatives is false")
		}
	})
	t.Run("no alternatives with waypoints", func(t *testing.T) {
		u := upstreams{ors: sandboxFake(orsID), nominatim: sandboxFake(nominatimID)}
		page, err := run(t, Route, u, `{"origin":"Berlin","destination":"Leipzig","waypoints":["Potsdam"],"alternatives":true}`)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(requests(u.ors)[0].Body, "alternative_routes") {
			t.Error("OpenRouteService refuses alternative_routes with more than two points (error 2011)")
		}
		if !hasNote(page, "Alternatives are computed only for routes without waypoints") || len(page.Records) != 1 {
			t.Errorf("notes %v records %d", page.Notes, len(page.Records))
		}
	})
	t.Run("alternatives over the distance limit", func(t *testing.T) {
		u := upstreams{ors: sequence(t, answer{400, td("ors_error_2004_alternatives.json")}, answer{200, sb("ors_directions_driving.json")}),
			osrm: providertest.Refuse(t, "osrm"), nominatim: sandboxFake(nominatimID)}
		page, err := run(t, Route, u, `{"origin":"Berlin","destination":"Potsdam","alternatives":true}`)
		if err != nil {
			t.Fatal(err)
		}
		reqs := requests(u.ors)
		if len(reqs) != 2 || !strings.Contains(reqs[0].Body, "alternative_routes") || strings.Contains(reqs[1].Body, "alternative_routes") {
			t.Fatalf("ORS calls %+v", reqs)
		}
		if len(page.Records) != 1 || !hasNote(page, "alternatives only for shorter routes") {
			t.Errorf("records %d notes %v", len(page.Records), page.Notes)
		}
	})
	t.Run("no alternative found", func(t *testing.T) {
		u := upstreams{ors: providertest.ServeFile(t, 200, sb("ors_directions_driving.json")), nominatim: sandboxFake(nominatimID)}
		page, err := run(t, Route, u, `{"origin":"Berlin","destination":"Potsdam","alternatives":true}`)
		if err != nil || len(page.Records) != 1 || !hasNote(page, "No alternative route was found") {
			t.Errorf("page %+v err %v", page, err)
		}
	})
}

func hasNote(page *providers.Page, fragment string) bool {
	for _, n := range page.Notes {
		if strings.Contains(n, fragment) {
			return true
		}
	}
	return false
}

func TestRouteOSRMFallback(t *testing.T) {
	u := upstreams{osrm: providertest.ServeFile(t, 200, td("osrm_route.json")), nominatim: providertest.Refuse(t, "nominatim")}
	page, err := run(t, Route, u, `{"origin":{"lat":52.517037,"lon":13.38886},"destination":{"lat":52.496891,"lon":13.385983}}`)
	if err != nil {
		t.Fatal(err)
	}
	r := requests(u.osrm)
	if len(r) != 1 || r[0].Method != http.MethodGet || r[0].Path != "/route/v1/driving/13.38886,52.517037;13.385983,52.496891" ||
		r[0].Query != "overview=false&steps=true&alternatives=false" {
		t.Fatalf("OSRM request %+v", r)
	}
	checkHeaders(t, "osrm", u.osrm, "")
	if !hasNote(page, "fallback demo engine OSRM (car profile only, no service level)") || !hasNote(page, "not configured") {
		t.Errorf("notes %v", page.Notes)
	}
	for _, rec := range page.Records {
		for _, k := range []string{"attribution", "license", "license_url"} {
			if _, ok := providertest.Native(&rec)[k]; ok {
				t.Errorf("fallback record carries %s", k)
			}
		}
	}
	providertest.Golden(t, "route_osrm", providertest.RecordsJSON(page))

	t.Run("waypoints and alternatives", func(t *testing.T) {
		u := upstreams{osrm: sandboxFake(osrmID), nominatim: sandboxFake(nominatimID)}
		page, err := run(t, Route, u, `{"origin":"Berlin","destination":"Leipzig","waypoints":["Potsdam"]}`)
		if err != nil {
			t.Fatal(err)
		}
		if got := requests(u.osrm)[0]; got.Path != "/route/v1/driving/13.38886,52.517037;13.05914,52.400931;12.374733,51.340632" {
			t.Errorf("OSRM path %s", got.Path)
		}
		providertest.Golden(t, "route_osrm_waypoints", providertest.RecordsJSON(page))
		u = upstreams{osrm: sandboxFake(osrmID), nominatim: sandboxFake(nominatimID)}
		page, err = run(t, Route, u, `{"origin":"Berlin","destination":"Potsdam","alternatives":true}`)
		if err != nil || len(page.Records) != 2 || !strings.Contains(requests(u.osrm)[0].Query, "alternatives=true") {
			t.Fatalf("records %v err %v", page, err)
		}
	})
}

func TestRouteEngineFailures(t *testing.T) {
	driving := `{"origin":{"lat":52.52,"lon":13.40},"destination":{"lat":52.40,"lon":13.06}}`
	walking := `{"origin":{"lat":52.52,"lon":13.40},"destination":{"lat":52.40,"lon":13.06},"mode":"walking"}`
	cases := []struct {
		name      string
		ors, osrm *fake
		noKey     bool
		body      string
		code      providers.Code // "" for a page
		paths     []string
		engine    string // engine of the records; "" for none
		note      string
		retryable *bool
	}{
		{name: "point off the road network", ors: providertest.ServeFile(t, 404, td("ors_error_2010.json")), body: driving,
			code: providers.CodeInvalidRequest, paths: []string{"/destination", "/origin"}},
		{name: "no route", ors: providertest.ServeFile(t, 404, td("ors_error_2009.json")), body: driving,
			note: "No driving route was found: OpenRouteService found no route between these places: Route could not be found"},
		{name: "refused request falls back", ors: providertest.ServeFile(t, 400, td("ors_error_2011_alternatives.json")), osrm: providertest.ServeFile(t, 200, sb("osrm_route.json")),
			body: driving, engine: engineOSRM, note: "OpenRouteService failed: OpenRouteService refused the request (error 2011)"},
		{name: "internal error falls back", ors: providertest.ServeFile(t, 500, td("ors_error_2099.json")), osrm: providertest.ServeFile(t, 200, sb("osrm_route.json")),
			body: driving, engine: engineOSRM, note: "error 2099"},
		{name: "refused key falls back", ors: providertest.ServeFile(t, 403, td("ors_gateway_403_disallowed.json")), osrm: providertest.ServeFile(t, 200, sb("osrm_route.json")),
			body: driving, engine: engineOSRM, note: "refused this gateway's API key: Access to this API has been disallowed"},
		{name: "quota falls back", ors: providertest.ServeFile(t, 403, td("ors_gateway_403_quota.json")), osrm: providertest.ServeFile(t, 200, sb("osrm_route.json")),
			body: driving, engine: engineOSRM, note: "allowance for this gateway is used up"},
		{name: "malformed answer falls back", ors: providertest.ServeFile(t, 200, td("malformed.txt")), osrm: providertest.ServeFile(t, 200, sb("osrm_route.json")),
			body: driving, engine: engineOSRM, note: "malformed JSON"},
		{name: "answer without routes falls back", ors: providertest.ServeBody(200, `{"metadata":{}}`), osrm: providertest.ServeFile(t, 200, sb("osrm_route.json")),
			body: driving, engine: engineOSRM, note: "without a routes list"},
		{name: "not configured", noKey: true, ors: providertest.Refuse(t, "ors"), osrm: providertest.ServeFile(t, 200, sb("osrm_route.json")),
			body: driving, engine: engineOSRM, note: "OpenRouteService is not configured in this deployment"},
		{name: "short rate limit is the caller's", ors: &fake{Answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error":"Rate limit exceeded"}`))
		}}, body: driving, code: providers.CodeRateLimited},
		{name: "per-minute limit without Retry-After is the caller's", ors: providertest.ServeFile(t, 429, td("ors_gateway_429_rate.json")), body: driving,
			code: providers.CodeRateLimited, retryable: ptrBool(true)},
		{name: "walking without the primary engine", noKey: true, ors: providertest.Refuse(t, "ors"), body: walking,
			code: providers.CodeCapabilityUnavailable, retryable: ptrBool(false)},
		{name: "walking while the primary engine fails", ors: providertest.ServeBody(503, `<html>busy</html>`), body: walking,
			code: providers.CodeCapabilityUnavailable, retryable: ptrBool(true)},
		{name: "fallback point off the road network", noKey: true, ors: providertest.Refuse(t, "ors"), osrm: providertest.ServeFile(t, 400, td("osrm_error_nosegment.json")),
			body: driving, code: providers.CodeInvalidRequest, paths: []string{"/destination"}},
		{name: "fallback no route", noKey: true, ors: providertest.Refuse(t, "ors"), osrm: providertest.ServeFile(t, 400, td("osrm_error_noroute.json")),
			body: driving, note: "No driving route was found: the OSRM demo server found no route between these places: Impossible route between points"},
		{name: "fallback no route in a 200", noKey: true, ors: providertest.Refuse(t, "ors"), osrm: providertest.ServeBody(200, `{"code":"NoRoute","routes":[]}`),
			body: driving, note: "No driving route was found"},
		{name: "fallback refuses the query", noKey: true, ors: providertest.Refuse(t, "ors"), osrm: providertest.ServeFile(t, 400, td("osrm_error_invalidquery.json")),
			body: driving, code: providers.CodeProviderError, retryable: ptrBool(false)},
		{name: "fallback over its limits", noKey: true, ors: providertest.Refuse(t, "ors"), osrm: providertest.ServeFile(t, 400, td("osrm_error_toobig.json")),
			body: driving, code: providers.CodeInvalidRequest},
		{name: "fallback malformed", noKey: true, ors: providertest.Refuse(t, "ors"), osrm: providertest.ServeFile(t, 200, td("malformed.txt")),
			body: driving, code: providers.CodeProviderError},
		{name: "fallback failing", noKey: true, ors: providertest.Refuse(t, "ors"), osrm: providertest.ServeBody(502, `bad gateway`),
			body: driving, code: providers.CodeProviderError, retryable: ptrBool(true)},
		{name: "fallback routes without numbers", noKey: true, ors: providertest.Refuse(t, "ors"), osrm: providertest.ServeBody(200, `{"code":"Ok","routes":[{"legs":null}]}`),
			body: driving, code: providers.CodeProviderError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			osrm := tc.osrm
			if osrm == nil {
				osrm = providertest.Refuse(t, "osrm")
			}
			page, err := run(t, Route, upstreams{ors: tc.ors, osrm: osrm, noORSKey: tc.noKey}, tc.body)
			if tc.code != "" {
				if got := providertest.ErrorCode(err); got != tc.code {
					t.Fatalf("error %v, want %s", err, tc.code)
				}
				if tc.paths != nil {
					checkPaths(t, err, tc.paths)
				}
				if tc.retryable != nil {
					if e, _ := providers.AsError(err); e.IsRetryable() != *tc.retryable {
						t.Errorf("retryable = %v, want %v (%v)", e.IsRetryable(), *tc.retryable, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.engine == "" && len(page.Records) != 0 {
				t.Errorf("records %+v, want none", page.Records)
			}
			if tc.engine != "" && (len(page.Records) == 0 || providertest.Native(&page.Records[0])["engine"] != tc.engine) {
				t.Errorf("records %+v, want engine %s", page.Records, tc.engine)
			}
			if tc.note != "" && !hasNote(page, tc.note) {
				t.Errorf("notes %q lack %q", page.Notes, tc.note)
			}
		})
	}
}

func TestRouteBreakerOpen(t *testing.T) {
	u := upstreams{ors: providertest.ServeBody(503, `busy`), osrm: providertest.ServeFile(t, 200, sb("osrm_route.json"))}
	client := u.client(t)
	req := prepare(t, Route, `{"origin":{"lat":52.52,"lon":13.40},"destination":{"lat":52.40,"lon":13.06}}`)
	for i := 0; i < 5; i++ { // five failures open the breaker
		page, err := providertest.ExecuteState(t, client, Route, providers.ModeLive, req, nil)
		if err != nil || providertest.Native(&page.Records[0])["engine"] != engineOSRM {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	calls := len(requests(u.ors))
	page, err := providertest.ExecuteState(t, client, Route, providers.ModeLive, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(requests(u.ors)) != calls {
		t.Error("an open breaker must not call the primary engine")
	}
	if !hasNote(page, "OpenRouteService is failing and calls to it are paused") {
		t.Errorf("notes %v", page.Notes)
	}
}

// nominatimFake answers the sandbox's places by name and counts the calls per name.
func TestRouteGeocoding(t *testing.T) {
	t.Run("each distinct name once", func(t *testing.T) {
		u := upstreams{ors: sandboxFake(orsID), nominatim: sandboxFake(nominatimID)}
		page, err := run(t, Route, u, `{"origin":"Berlin","destination":"  berlin ","waypoints":["BERLIN","Potsdam","52.4, 13.1"]}`)
		if err != nil {
			t.Fatal(err)
		}
		reqs := requests(u.nominatim)
		if len(reqs) != 2 {
			t.Fatalf("%d geocoding calls, want 2 (Berlin, Potsdam): %+v", len(reqs), reqs)
		}
		q, _ := url.ParseQuery(reqs[0].Query)
		if reqs[0].Method != http.MethodGet || reqs[0].Path != "/search" ||
			!reflect.DeepEqual(q, url.Values{"q": {"Berlin"}, "format": {"jsonv2"}, "limit": {"1"}}) {
			t.Errorf("geocoding request %+v", reqs[0])
		}
		checkHeaders(t, "nominatim", u.nominatim, "")
		if !hasNote(page, `"Berlin" → Berlin, Deutschland (52.51704, 13.38886)`) || !hasNote(page, `"Potsdam" → Potsdam, Brandenburg, Deutschland`) {
			t.Errorf("notes %v", page.Notes)
		}
		var body struct{ Coordinates [][2]float64 }
		_ = json.Unmarshal([]byte(requests(u.ors)[0].Body), &body)
		want := [][2]float64{{13.3888599, 52.5170365}, {13.3888599, 52.5170365}, {13.0591397, 52.4009309}, {13.1, 52.4}, {13.3888599, 52.5170365}}
		if !reflect.DeepEqual(body.Coordinates, want) {
			t.Errorf("coordinates %v, want %v", body.Coordinates, want)
		}
	})
	t.Run("cached across calls", func(t *testing.T) {
		u := upstreams{ors: sandboxFake(orsID), nominatim: sandboxFake(nominatimID)}
		client := u.client(t)
		req := prepare(t, Route, `{"origin":"Berlin","destination":"Atlantis"}`)
		for i := 0; i < 2; i++ {
			_, err := providertest.ExecuteState(t, client, Route, providers.ModeLive, req, nil)
			checkPaths(t, err, []string{"/destination"})
		}
		if n := len(requests(u.nominatim)); n != 2 {
			t.Errorf("%d geocoding calls for two identical requests, want 2 (a match and a miss, both cached)", n)
		}
	})
	t.Run("unresolvable places", func(t *testing.T) {
		u := upstreams{ors: providertest.Refuse(t, "ors"), nominatim: sandboxFake(nominatimID)}
		_, err := run(t, Route, u, `{"origin":"Berlin","destination":"Nowhere Town","waypoints":["Potsdam","Atlantis","atlantis"]}`)
		checkPaths(t, err, []string{"/destination", "/waypoints/1", "/waypoints/2"})
		if e, _ := providers.AsError(err); e == nil || e.Hint != "" {
			t.Errorf("live errors carry no sandbox hint: %+v", e)
		}
	})
	t.Run("geocoder errors", func(t *testing.T) {
		cases := []struct {
			name string
			f    *fake
			code providers.Code
			msg  string
		}{
			{"refused search", providertest.ServeFile(t, 400, td("nominatim_error_400.json")), providers.CodeProviderError, "Parameter 'limit' must be a number."},
			{"error object in a 200", providertest.ServeFile(t, 200, td("nominatim_error_400.json")), providers.CodeProviderError, "Nominatim refused the search"},
			{"malformed", providertest.ServeFile(t, 200, td("malformed.txt")), providers.CodeProviderError, "malformed JSON"},
			{"blocked", providertest.ServeBody(403, `<html>Access blocked</html>`), providers.CodeProviderError, "HTTP 403"},
			{"throttled", &fake{Answer: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
			}}, providers.CodeRateLimited, ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := run(t, Route, upstreams{ors: providertest.Refuse(t, "ors"), nominatim: tc.f}, `{"origin":"Berlin","destination":{"lat":52.4,"lon":13.06}}`)
				if providertest.ErrorCode(err) != tc.code || !strings.Contains(providers.MessageOf(err), tc.msg) {
					t.Errorf("error %v, want %s with %q", err, tc.code, tc.msg)
				}
			})
		}
	})
	t.Run("odd geocoder entries", func(t *testing.T) {
		f := providertest.ServeBody(200, `[{"place_id":1,"lat":null,"lon":"13.4","display_name":"Broken"},{"lat":"91","lon":"0"}]`)
		_, err := run(t, Route, upstreams{ors: providertest.Refuse(t, "ors"), nominatim: f}, `{"origin":"Somewhere","destination":{"lat":52.4,"lon":13.06}}`)
		checkPaths(t, err, []string{"/origin"})
		f = providertest.ServeBody(200, `[{"lat":52.1,"lon":"13.2"}]`) // numbers instead of strings, no names
		page, err := run(t, Route, upstreams{ors: sandboxFake(orsID), nominatim: f}, `{"origin":"Somewhere","destination":{"lat":52.4,"lon":13.06}}`)
		if err != nil || !hasNote(page, `"Somewhere" → 52.1, 13.2 (52.1, 13.2)`) {
			t.Errorf("page %+v err %v", page, err)
		}
	})
}

func TestGeocodingQueueOverDeadline(t *testing.T) {
	// With the real one-request-a-second bound, 12 unknown names cannot be geocoded in 3 s.
	geocodeCache = newPlaceCache(2048, time.Hour, time.Hour)
	client := providertest.Client(t, Providers(), map[string]http.Handler{nominatimID: sandboxFake(nominatimID), osrmID: providertest.Refuse(t, "osrm")}, nil)
	var names []string
	for i := 0; i < 10; i++ {
		names = append(names, fmt.Sprintf(`"Town %d"`, i))
	}
	req := prepare(t, Route, `{"origin":"A-town","destination":"B-town","waypoints":[`+strings.Join(names, ",")+`]}`)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	_, err := Route.Execute(ctx, providers.NewCall(Route, req, nil, providers.ModeLive, "tnt_test", client))
	if providertest.ErrorCode(err) != providers.CodeProviderTimeout {
		t.Fatalf("error %v, want provider_timeout", err)
	}
	e, _ := providers.AsError(err)
	if !strings.Contains(e.Message, "12 place names") || !strings.Contains(e.Message, "cached") || e.Hint == "" || !e.IsRetryable() {
		t.Errorf("error %+v", e)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("took %v: the geocoding queue should give up before the deadline", time.Since(start))
	}
}

func TestRouteDetails(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	page, err := providertest.Execute(t, client, Route, providers.ModeTest, exampleBody(t, Route.Examples[0]))
	if err != nil {
		t.Fatal(err)
	}
	d := detailJSON(t, Route, &page.Records[0])
	body := d["detail"].(map[string]any)
	steps := body["steps"].([]any)
	if body["distance_km"] != 35.52 || body["duration_min"] != 39.0 || len(steps) != 10 || body["license"] != orsLicense ||
		body["license_url"] != orsLicenseURL || body["attribution"] != "openrouteservice.org | OpenStreetMap contributors" {
		t.Errorf("detail %v", body)
	}
	first, last := steps[0].(map[string]any), steps[9].(map[string]any)
	if first["instruction"] != "Head west on Unter den Linden" || first["name"] != "Unter den Linden" || first["distance_m"] != 412.6 || first["duration_s"] != 74.3 {
		t.Errorf("first step %v", first)
	}
	if _, ok := last["name"]; ok {
		t.Errorf("a way without a name (\"-\") has no name key: %v", last)
	}
	if links := d["links"].([]any); len(links) != 1 {
		t.Errorf("links %v", links)
	}

	u := upstreams{osrm: providertest.ServeFile(t, 200, td("osrm_route.json"))}
	page, err = run(t, Route, u, `{"origin":{"lat":52.517037,"lon":13.38886},"destination":{"lat":52.496891,"lon":13.385983}}`)
	if err != nil {
		t.Fatal(err)
	}
	d = detailJSON(t, Route, &page.Records[0])
	body = d["detail"].(map[string]any)
	for _, k := range []string{"attribution", "license", "license_url"} {
		if _, ok := body[k]; ok {
			t.Errorf("fallback details carry %s", k)
		}
	}
	if links := d["links"].([]any); len(links) != 0 {
		t.Errorf("links %v", links)
	}
}

func TestOSRMInstructions(t *testing.T) {
	m := func(typ, modifier string, exit int64) osrmManeuver {
		o := osrmManeuver{}
		_ = json.Unmarshal([]byte(fmt.Sprintf(`{"type":%q,"modifier":%q,"exit":%d}`, typ, modifier, exit)), &o)
		return o
	}
	cases := []struct {
		man       osrmManeuver
		name      string
		leg, legs int
		want      string
	}{
		{m("depart", "", 0), "Friedrichstraße", 0, 1, "Head out on Friedrichstraße"},
		{m("depart", "", 0), "", 0, 1, "Depart"},
		{m("turn", "right", 0), "Behrenstraße", 0, 1, "Turn right onto Behrenstraße"},
		{m("turn", "sharp left", 0), "", 0, 1, "Turn sharp left"},
		{m("turn", "uturn", 0), "", 0, 1, "Make a U-turn"},
		{m("new name", "straight", 0), "Mehringdamm", 0, 1, "Continue onto Mehringdamm"},
		{m("continue", "slight right", 0), "Bismarckstraße", 0, 1, "Continue slight right onto Bismarckstraße"},
		{m("merge", "slight left", 0), "A 100", 0, 1, "Merge slight left onto A 100"},
		{m("on ramp", "slight right", 0), "A 100", 0, 1, "Take the ramp on the right onto A 100"},
		{m("off ramp", "slight right", 0), "B 1", 0, 1, "Take the exit on the right onto B 1"},
		{m("fork", "slight left", 0), "A 115", 0, 1, "Keep left at the fork onto A 115"},
		{m("end of road", "left", 0), "Tröndlinring", 0, 1, "At the end of the road turn left onto Tröndlinring"},
		{m("roundabout", "right", 2), "Berliner Straße", 0, 1, "At the roundabout take exit 2 onto Berliner Straße"},
		{m("rotary", "", 0), "", 0, 1, "Enter the roundabout"},
		{m("roundabout turn", "left", 0), "", 0, 1, "At the roundabout turn left"},
		{m("exit roundabout", "slight right", 0), "Berliner Straße", 0, 1, "Exit the roundabout onto Berliner Straße"},
		{m("use lane", "", 0), "", 0, 1, "Use the lane to continue straight"},
		{m("notification", "straight", 0), "Hauptstraße", 0, 1, "Continue straight onto Hauptstraße"},
		{m("some future type", "left", 0), "X", 0, 1, "Turn left onto X"},
		{m("arrive", "left", 0), "", 0, 2, "Arrive at waypoint 1, on the left"},
		{m("arrive", "right", 0), "", 1, 2, "Arrive at your destination, on the right"},
		{m("arrive", "", 0), "", 0, 1, "Arrive at your destination"},
		{osrmManeuver{Type: "turn", Instruction: "Turn right onto Mysore Road (NH275)"}, "Mysore Road", 0, 1, "Turn right onto Mysore Road (NH275)"},
	}
	for _, tc := range cases {
		if got := osrmInstruction(tc.man, tc.name, tc.leg, tc.legs); got != tc.want {
			t.Errorf("%+v %q: %q, want %q", tc.man, tc.name, got, tc.want)
		}
	}
}

func TestORSOddRoutes(t *testing.T) {
	cases := []struct {
		name string
		body string
		want func(t *testing.T, page *providers.Page, err error)
	}{
		{"route without summary sums its segments", `{"routes":[{"segments":[{"distance":1000,"duration":60,"steps":[{"distance":1000,"duration":60,"type":11,"name":"A"}]},{"distance":500.5,"duration":30}]}]}`,
			func(t *testing.T, page *providers.Page, err error) {
				if err != nil || providertest.Native(&page.Records[0])["distance_km"] != 1.5 || providertest.Native(&page.Records[0])["duration_min"] != 1.5 || providertest.Native(&page.Records[0])["steps"] != 1 {
					t.Errorf("page %+v err %v", page, err)
				}
				d := page.Records[0].Stored["details"].Body.(routeDetail)
				if d.Steps[0].Instruction != "Head onto A" {
					t.Errorf("a step without instruction is worded from its type: %+v", d.Steps[0])
				}
			}},
		{"empty summary means zero", `{"routes":[{"summary":{},"segments":[]}]}`,
			func(t *testing.T, page *providers.Page, err error) {
				if err != nil || providertest.Native(&page.Records[0])["distance_km"] != 0.0 || providertest.Native(&page.Records[0])["steps"] != 0 {
					t.Errorf("page %+v err %v", page, err)
				}
			}},
		{"odd types are skipped", `{"routes":[{"summary":{"distance":"1200","duration":null},"segments":[{"steps":[null,{"distance":"x","instruction":7,"name":null}]}]}],"metadata":{"attribution":5}}`,
			func(t *testing.T, page *providers.Page, err error) {
				if err != nil || providertest.Native(&page.Records[0])["distance_km"] != 1.2 || providertest.Native(&page.Records[0])["attribution"] != orsAttribution {
					t.Errorf("page %+v err %v", page, err)
				}
			}},
		{"empty routes", `{"routes":[]}`,
			func(t *testing.T, page *providers.Page, err error) {
				if err != nil || len(page.Records) != 0 || !hasNote(page, "OpenRouteService found no route") {
					t.Errorf("page %+v err %v", page, err)
				}
			}},
		{"routes without anything", `{"routes":[{"bbox":[]}]}`,
			func(t *testing.T, page *providers.Page, err error) {
				// A provider_error of the primary falls back; the fallback here is refused too.
				if providertest.ErrorCode(err) != providers.CodeProviderError {
					t.Errorf("page %+v err %v", page, err)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page, err := run(t, Route, upstreams{ors: providertest.ServeBody(200, tc.body), osrm: providertest.ServeBody(502, "down")},
				`{"origin":{"lat":52.52,"lon":13.40},"destination":{"lat":52.40,"lon":13.06}}`)
			tc.want(t, page, err)
		})
	}
}

func TestMainRoads(t *testing.T) {
	steps := []step{{Name: "A", DistanceM: 100}, {Name: "B", DistanceM: 5000}, {Name: "", DistanceM: 9000}, {Name: "C", DistanceM: 300},
		{Name: "A", DistanceM: 400}, {Name: "D", DistanceM: 200}, {Name: "E", DistanceM: 0}}
	if got := mainRoads(steps, 3); !reflect.DeepEqual(got, []string{"A", "B", "C"}) {
		t.Errorf("main roads %v", got)
	}
	if got := mainRoads(nil, 3); len(got) != 0 {
		t.Errorf("main roads %v", got)
	}
}

func TestFormatting(t *testing.T) {
	for s, want := range map[float64]string{10: "under a minute", 59: "1 min", 2340: "39 min", 3600: "1 h", 7500: "2 h 5 min"} {
		if got := humanDuration(s); got != want {
			t.Errorf("humanDuration(%v) = %q, want %q", s, got, want)
		}
	}
	if got := short(strings.Repeat("x", 80)); len([]rune(got)) != 60 || !strings.HasSuffix(got, "…") {
		t.Errorf("short = %q", got)
	}
}

func TestOSRMWayName(t *testing.T) {
	cases := []struct{ name, ref, want string }{
		{"Stadtring", "A 100", "Stadtring (A 100)"},
		{"", "A 9", "A 9"},
		{"Mysore Road (NH275)", "NH275", "Mysore Road (NH275)"},
		{"Behrenstraße", "", "Behrenstraße"},
		{"", "", ""},
	}
	for _, tc := range cases {
		if got := osrmWayName(lenientStr(tc.name), lenientStr(tc.ref)); got != tc.want {
			t.Errorf("osrmWayName(%q, %q) = %q, want %q", tc.name, tc.ref, got, tc.want)
		}
	}
}

// TestORSQuotaAnswers maps OpenRouteService's documented quota answers: the daily quota is an
// HTTP 403 (provider_allowance, so driving falls back), the per-minute limit an HTTP 429
// (rate_limited with Retry-After, the upstream's own when it sends one, else the minute window).
func TestORSQuotaAnswers(t *testing.T) {
	walking := `{"origin":{"lat":52.52,"lon":13.40},"destination":{"lat":52.40,"lon":13.06},"mode":"walking"}`
	cases := []struct {
		name   string
		ors    *fake
		code   providers.Code
		wait   time.Duration
		inText string
	}{
		{"daily quota", providertest.ServeFile(t, 403, td("ors_gateway_403_quota.json")), providers.CodeCapabilityUnavailable, 0, "allowance for this gateway is used up"},
		{"per-minute limit", providertest.ServeFile(t, 429, td("ors_gateway_429_rate.json")), providers.CodeRateLimited, time.Minute, "per-minute request limit"},
		{"per-minute limit with Retry-After", &fake{Answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error": "Rate limit exceeded"}`))
		}}, providers.CodeRateLimited, 7 * time.Second, "per-minute request limit"},
		{"a 429 asking for an hour is an allowance used up", &fake{Answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error": "Quota exceeded"}`))
		}}, providers.CodeCapabilityUnavailable, 0, "allowance for this gateway is used up"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, Route, upstreams{ors: tc.ors, osrm: providertest.Refuse(t, "osrm")}, walking)
			e, ok := providers.AsError(err)
			if !ok || e.Code != tc.code || e.RetryAfter != tc.wait || !strings.Contains(e.Message, tc.inText) {
				t.Fatalf("error %v (retry after %v), want %s after %v saying %q", err, e.RetryAfter, tc.code, tc.wait, tc.inText)
			}
			r := requests(tc.ors)
			if len(r) != 1 || r[0].Method != http.MethodPost || r[0].Path != "/v2/directions/foot-walking/json" || r[0].Header.Get("Authorization") != orsKey {
				t.Errorf("ORS requests %+v", r)
			}
		})
	}
}

package navigation

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

func TestMatrixDeclaration(t *testing.T) {
	checkDeclaration(t, Matrix)
	if Matrix.ID != "navigation.matrix" || len(Matrix.Actions) != 0 {
		t.Errorf("id %q actions %v", Matrix.ID, Matrix.Actions)
	}
	for _, key := range []string{"origin_index", "destination_index", "duration_min", "distance_km", "status", "engine", "license_url", "unroutable"} {
		if !strings.Contains(Matrix.Description, key) {
			t.Errorf("the description must name the record shape: %s missing", key)
		}
	}
}

func places(n int) string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf(`{"lat":52.%d,"lon":13.%d}`, i, i))
	}
	return "[" + strings.Join(out, ",") + "]"
}

func TestMatrixSchema(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		paths []string
	}{
		{"minimal", `{"origins":["Berlin"],"destinations":["Potsdam"]}`, nil},
		{"25 by 25", `{"origins":` + places(25) + `,"destinations":` + places(25) + `}`, nil},
		{"all fields", `{"origins":["Berlin"],"destinations":["52.4, 13.06"],"mode":"walking","metrics":["distance","duration"]}`, nil},
		{"26 origins", `{"origins":` + places(26) + `,"destinations":["Potsdam"]}`, []string{"/origins"}},
		{"26 destinations", `{"origins":["Berlin"],"destinations":` + places(26) + `}`, []string{"/destinations"}},
		{"no origins", `{"origins":[],"destinations":["Potsdam"]}`, []string{"/origins"}},
		{"missing destinations", `{"origins":["Berlin"]}`, []string{"/destinations"}},
		{"blank origin", `{"origins":["Berlin"," "],"destinations":["Potsdam"]}`, []string{"/origins/1"}},
		{"bad coordinates", `{"origins":["Berlin"],"destinations":[{"lat":52,"lon":200}]}`, []string{"/destinations/0", "/destinations/0/lon"}},
		{"no metrics", `{"origins":["Berlin"],"destinations":["Potsdam"],"metrics":[]}`, []string{"/metrics"}},
		{"repeated metric", `{"origins":["Berlin"],"destinations":["Potsdam"],"metrics":["duration","duration"]}`, []string{"/metrics"}},
		{"unknown metric", `{"origins":["Berlin"],"destinations":["Potsdam"],"metrics":["time"]}`, []string{"/metrics/0"}},
		{"unknown mode", `{"origins":["Berlin"],"destinations":["Potsdam"],"mode":"transit"}`, []string{"/mode"}},
		{"unknown key", `{"origins":["Berlin"],"destinations":["Potsdam"],"units":"mi"}`, []string{"/units"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := providertest.Prepare(t, Matrix, tc.body)
			checkPaths(t, err, tc.paths)
		})
	}
	t.Run("defaults", func(t *testing.T) {
		req := prepare(t, Matrix, `{"origins":["Berlin"],"destinations":["Potsdam"]}`)
		if req.Str("mode") != "driving" || !reflect.DeepEqual(req.Strings("metrics"), []string{"duration", "distance"}) {
			t.Errorf("defaults: mode %v metrics %v", req["mode"], req["metrics"])
		}
	})
}

func TestMatrixExamplesSandbox(t *testing.T) {
	client := providertest.Client(t, Providers(), nil, nil)
	for i, ex := range Matrix.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			page, err := providertest.Execute(t, client, Matrix, providers.ModeTest, exampleBody(t, ex))
			if err != nil {
				t.Fatal(err)
			}
			o, _ := ex.Body.Request()["origins"].([]any)
			d, _ := ex.Body.Request()["destinations"].([]any)
			if len(page.Records) != len(o)*len(d) {
				t.Fatalf("%d records for %d×%d", len(page.Records), len(o), len(d))
			}
			providertest.Golden(t, fmt.Sprintf("matrix_example_%d_sandbox", i+1), providertest.RecordsJSON(page))
		})
	}
}

func TestMatrixExamplesLive(t *testing.T) {
	for _, ex := range Matrix.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			u := upstreams{ors: sandboxFake(orsID), osrm: providertest.Refuse(t, "osrm"), nominatim: sandboxFake(nominatimID)}
			page, err := run(t, Matrix, u, exampleBody(t, ex))
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 || providertest.Native(&page.Records[0])["engine"] != engineORS {
				t.Fatalf("records %+v", page.Records)
			}
			checkHeaders(t, "ors", u.ors, orsKey)
		})
		t.Run(ex.Title+" on the fallback engine", func(t *testing.T) {
			u := upstreams{osrm: sandboxFake(osrmID), nominatim: sandboxFake(nominatimID)}
			page, err := run(t, Matrix, u, exampleBody(t, ex))
			if mode, _ := ex.Body.Request()["mode"].(string); mode != "" && mode != "driving" {
				if providertest.ErrorCode(err) != providers.CodeCapabilityUnavailable {
					t.Fatalf("%s without the primary engine: %v", mode, err)
				}
				return
			}
			if err != nil || len(page.Records) == 0 || providertest.Native(&page.Records[0])["engine"] != engineOSRM {
				t.Fatalf("page %+v err %v", page, err)
			}
			checkHeaders(t, "osrm", u.osrm, "")
		})
	}
}

// The testdata answer is a recorded foot-walking matrix of 9 sources and 2 destinations, durations
// only.
const unc = `{"origins":[{"lat":35.909526,"lon":-79.053187},{"lat":35.909809,"lon":-79.052961},{"lat":35.910059,"lon":-79.053554},
	{"lat":35.9102,"lon":-79.05317},{"lat":35.909694,"lon":-79.05331},{"lat":35.909613,"lon":-79.052948},{"lat":35.909907,"lon":-79.052999},
	{"lat":35.909896,"lon":-79.053447},{"lat":35.91003,"lon":-79.05309}],
	"destinations":[{"lat":35.912506,"lon":-79.055098},{"lat":35.91312,"lon":-79.050822}],"mode":"walking","metrics":["duration"]}`

func TestMatrixORSRequestAndMapping(t *testing.T) {
	u := upstreams{ors: providertest.ServeFile(t, 200, td("ors_matrix_walking.json")), osrm: providertest.Refuse(t, "osrm"), nominatim: providertest.Refuse(t, "nominatim")}
	page, err := run(t, Matrix, u, unc)
	if err != nil {
		t.Fatal(err)
	}
	r := requests(u.ors)
	if len(r) != 1 || r[0].Method != http.MethodPost || r[0].Path != "/v2/matrix/foot-walking" || r[0].Query != "" {
		t.Fatalf("ORS requests %+v", r)
	}
	want := `{"locations":[[-79.053187,35.909526],[-79.052961,35.909809],[-79.053554,35.910059],[-79.05317,35.9102],[-79.05331,35.909694],
		[-79.052948,35.909613],[-79.052999,35.909907],[-79.053447,35.909896],[-79.05309,35.91003],[-79.055098,35.912506],[-79.050822,35.91312]],
		"sources":[0,1,2,3,4,5,6,7,8],"destinations":[9,10],"metrics":["duration"]}`
	if !jsonEqual(t, r[0].Body, want) {
		t.Errorf("ORS body %s", r[0].Body)
	}
	checkHeaders(t, "ors", u.ors, orsKey)
	if len(page.Records) != 18 {
		t.Fatalf("%d records", len(page.Records))
	}
	for _, rec := range page.Records {
		if _, ok := providertest.Native(&rec)["distance_km"]; ok {
			t.Errorf("distance not requested: %v", providertest.Native(&rec))
		}
	}
	providertest.Golden(t, "matrix_ors_walking", providertest.RecordsJSON(page))
}

func TestMatrixGrid(t *testing.T) {
	a := &place{Path: "/origins/0", Lat: 52.5, Lon: 13.4}
	b := &place{Path: "/origins/1", Lat: 52.4, Lon: 13.1}
	a2 := &place{Path: "/origins/2", Lat: 52.5, Lon: 13.4}
	b2 := &place{Path: "/destinations/0", Lat: 52.4, Lon: 13.1}
	c := &place{Path: "/destinations/1", Lat: 51.3, Lon: 12.4}
	g := newGrid([]*place{a, b, a2}, []*place{b2, c})
	if !reflect.DeepEqual(g.locations, [][2]float64{{13.4, 52.5}, {13.1, 52.4}, {12.4, 51.3}}) ||
		!reflect.DeepEqual(g.sources, []int{0, 1}) || !reflect.DeepEqual(g.destinations, []int{1, 2}) ||
		!reflect.DeepEqual(g.rowOf, []int{0, 1, 0}) || !reflect.DeepEqual(g.colOf, []int{0, 1}) {
		t.Errorf("grid %+v", g)
	}
	if !reflect.DeepEqual(g.paths(1), []string{"/origins/1", "/destinations/0"}) || g.paths(7) != nil {
		t.Errorf("paths %v", g.paths(1))
	}
}

const cities = `{"origins":[{"lat":52.517037,"lon":13.38886},{"lat":52.400931,"lon":13.05914},{"lat":53.550341,"lon":10.000654}],
	"destinations":[{"lat":51.340632,"lon":12.374733},{"lat":53.550341,"lon":10.000654},{"lat":54.180813,"lon":7.88934}]}`

func TestMatrixOSRMFallback(t *testing.T) {
	u := upstreams{osrm: providertest.ServeFile(t, 200, td("osrm_table.json")), nominatim: providertest.Refuse(t, "nominatim")}
	page, err := run(t, Matrix, u, cities)
	if err != nil {
		t.Fatal(err)
	}
	r := requests(u.osrm)
	if len(r) != 1 || r[0].Path != "/table/v1/driving/13.38886,52.517037;13.05914,52.400931;10.000654,53.550341;12.374733,51.340632;7.88934,54.180813" ||
		r[0].Query != "sources=0;1;2&destinations=3;2;4&annotations=duration,distance" {
		t.Fatalf("OSRM requests %+v", r)
	}
	checkHeaders(t, "osrm", u.osrm, "")
	if !hasNote(page, "Computed by the fallback demo engine OSRM") || !hasNote(page, "No driving route was found for 3 of 9 pairs: 52.51704, 13.38886 → 54.18081, 7.88934") {
		t.Errorf("notes %q", page.Notes)
	}
	providertest.Golden(t, "matrix_osrm", providertest.RecordsJSON(page))

	t.Run("one metric", func(t *testing.T) {
		u := upstreams{osrm: providertest.ServeFile(t, 200, td("osrm_table.json"))}
		page, err := run(t, Matrix, u, strings.Replace(cities, `}]}`, `}],"metrics":["distance"]}`, 1))
		if err != nil {
			t.Fatal(err)
		}
		if q := requests(u.osrm)[0].Query; !strings.HasSuffix(q, "&annotations=distance") {
			t.Errorf("query %s", q)
		}
		f := providertest.Native(&page.Records[0])
		if _, ok := f["duration_min"]; ok || f["distance_km"] != 191.2 || f["status"] != "ok" {
			t.Errorf("fields %v", f)
		}
	})
}

func TestMatrixEngineAnswers(t *testing.T) {
	twoByTwo := `{"origins":[{"lat":52.52,"lon":13.40},{"lat":52.40,"lon":13.06}],"destinations":[{"lat":51.34,"lon":12.37},{"lat":52.40,"lon":13.06}]}`
	cases := []struct {
		name      string
		ors, osrm *fake
		noKey     bool
		body      string
		code      providers.Code
		paths     []string
		check     func(t *testing.T, page *providers.Page)
	}{
		{name: "point off the road network", body: twoByTwo, ors: providertest.ServeBody(404,
			`{"error":{"code":6010,"message":"Could not find routable point within a radius of 350.0 meters of specified coordinate 1: 13.0600000 52.4000000."},"info":{"engine":{"version":"9.3.0","build_date":"2025-06-25T09:01:03Z"},"timestamp":1758627512000}}`),
			code: providers.CodeInvalidRequest, paths: []string{"/destinations/1", "/origins/1"}},
		{name: "over the limits", body: twoByTwo, ors: providertest.ServeBody(400,
			`{"error":{"code":6004,"message":"Request parameters exceed the server configuration limits. Only a total of 3500 routes are allowed."},"info":{}}`),
			code: providers.CodeInvalidRequest},
		{name: "half-answered and odd cells", body: twoByTwo, ors: providertest.ServeBody(200,
			`{"durations":[[600.5,null],["120",0]],"distances":[[null,1000],[2000,"x"]],"metadata":{"attribution":"openrouteservice.org | OpenStreetMap contributors"}}`),
			check: func(t *testing.T, page *providers.Page) {
				got := []any{}
				for _, r := range page.Records {
					got = append(got, providertest.Native(&r)["status"], providertest.Native(&r)["duration_min"], providertest.Native(&r)["distance_km"])
				}
				want := []any{"unroutable", nil, nil, "unroutable", nil, nil, "ok", 2.0, 2.0, "unroutable", nil, nil}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("status, minutes, km = %v, want %v", got, want)
				}
				if !hasNote(page, "No driving route was found for 3 of 4 pairs") {
					t.Errorf("notes %v", page.Notes)
				}
			}},
		{name: "matrix smaller than asked falls back", body: twoByTwo, ors: providertest.ServeBody(200, `{"durations":[[1,2]],"distances":[[1,2]]}`),
			osrm: providertest.ServeFile(t, 200, sb("osrm_table.json")),
			check: func(t *testing.T, page *providers.Page) {
				if providertest.Native(&page.Records[0])["engine"] != engineOSRM || !hasNote(page, "answered no 2×2 duration matrix") {
					t.Errorf("page %+v", page)
				}
			}},
		{name: "walking without the primary engine", noKey: true, ors: providertest.Refuse(t, "ors"),
			body: `{"origins":["52.5, 13.4"],"destinations":["52.4, 13.1"],"mode":"walking"}`,
			code: providers.CodeCapabilityUnavailable},
		{name: "fallback finds no route at all", noKey: true, ors: providertest.Refuse(t, "ors"), body: twoByTwo,
			osrm: providertest.ServeBody(400, `{"code":"NoTable","message":"No table found"}`),
			check: func(t *testing.T, page *providers.Page) {
				for _, r := range page.Records {
					if providertest.Native(&r)["status"] != "unroutable" {
						t.Errorf("fields %v", providertest.Native(&r))
					}
				}
				if !hasNote(page, "No driving route was found for 4 of 4 pairs") || !hasNote(page, "No table found") {
					t.Errorf("notes %v", page.Notes)
				}
			}},
		{name: "fallback point off the road network", noKey: true, ors: providertest.Refuse(t, "ors"), body: twoByTwo,
			osrm: providertest.ServeFile(t, 400, td("osrm_error_nosegment.json")), code: providers.CodeInvalidRequest, paths: []string{"/destinations/1", "/origins/1"}},
		{name: "fallback over its limits", noKey: true, ors: providertest.Refuse(t, "ors"), body: twoByTwo,
			osrm: providertest.ServeFile(t, 400, td("osrm_error_toobig.json")), code: providers.CodeInvalidRequest},
		{name: "fallback answers without its matrix", noKey: true, ors: providertest.Refuse(t, "ors"), body: twoByTwo,
			osrm: providertest.ServeBody(200, `{"code":"Ok","durations":[[1,2],[3,4]]}`), code: providers.CodeProviderError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			osrm := tc.osrm
			if osrm == nil {
				osrm = providertest.Refuse(t, "osrm")
			}
			page, err := run(t, Matrix, upstreams{ors: tc.ors, osrm: osrm, noORSKey: tc.noKey}, tc.body)
			if tc.code != "" {
				if providertest.ErrorCode(err) != tc.code {
					t.Fatalf("error %v, want %s", err, tc.code)
				}
				if tc.paths != nil {
					checkPaths(t, err, tc.paths)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, page)
		})
	}
}

func TestMatrixGeocodesEachNameOnce(t *testing.T) {
	u := upstreams{ors: sandboxFake(orsID), nominatim: sandboxFake(nominatimID)}
	page, err := run(t, Matrix, u, `{"origins":["Berlin","Potsdam","berlin"],"destinations":["Potsdam","Hamburg"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(requests(u.nominatim)); n != 3 {
		t.Errorf("%d geocoding calls, want 3", n)
	}
	if len(page.Records) != 6 || page.Records[4].Title != "berlin → Potsdam" || providertest.Native(&page.Records[4])["origin_index"] != 2 {
		t.Errorf("records %+v", page.Records)
	}
	_, err = run(t, Matrix, upstreams{ors: providertest.Refuse(t, "ors"), nominatim: sandboxFake(nominatimID)},
		`{"origins":["Berlin","Gotham"],"destinations":["Gotham","Potsdam"]}`)
	checkPaths(t, err, []string{"/destinations/0", "/origins/1"})
}

// TestMatrixNeverAsksTheDemoServer: the public OSRM demo server forbids distance tables, so
// without OpenRouteService a matrix is refused before any call when the fallback is the demo.
func TestMatrixNeverAsksTheDemoServer(t *testing.T) {
	client := providertest.Client(t, testProviders(), nil, nil) // OSRM at its default URL: the demo server
	_, err := providertest.ExecuteState(t, client, Matrix, providers.ModeLive, prepare(t, Matrix, cities), nil)
	e, ok := providers.AsError(err)
	if !ok || e.Code != providers.CodeCapabilityUnavailable || !strings.Contains(e.Message, "forbids distance tables") ||
		!strings.Contains(e.Hint, "PROVIDER_ORS_KEY") {
		t.Fatalf("error %v", err)
	}
}

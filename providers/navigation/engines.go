package navigation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Engine names as the records carry them.
const (
	engineORS  = "openrouteservice"
	engineOSRM = "osrm-demo"
)

// Attribution and license of the primary engine's answers. The attribution is the one
// OpenRouteService puts in its answers' metadata; this text stands in when an answer lacks it.
const (
	orsAttribution = "openrouteservice.org | OpenStreetMap contributors"
	orsLicense     = "ODbL 1.0"
	orsLicenseURL  = "https://www.openstreetmap.org/copyright"
)

// orsProfiles maps the request's mode to OpenRouteService's profile.
var orsProfiles = map[string]string{"driving": "driving-car", "walking": "foot-walking", "cycling": "cycling-regular"}

// Alternative routes as OpenRouteService documents its defaults (share 0.6, weight 1.4); 3 is
// the most alternatives its public API computes.
const (
	alternativeCount  = 3
	alternativeShare  = 0.6
	alternativeWeight = 1.4
)

// route is one computed route in engine-neutral form.
type route struct {
	DistanceM float64
	DurationS float64
	Steps     []step
}

// step is one turn-by-turn instruction.
type step struct {
	Instruction string
	DistanceM   float64
	DurationS   float64
	Name        string // "" when the way has no name
}

// routeAnswer is what an engine answered for a route request.
type routeAnswer struct {
	Engine      string
	Attribution string // primary engine only
	Routes      []route
	// NoRoute is the engine's explanation when it found no route between the places.
	NoRoute string
}

// pointPaths maps an engine's coordinate index to the request fields that gave that point.
type pointPaths func(index int) []string

// --- OpenRouteService ---------------------------------------------------------------------------

// orsDirectionsResponse is POST /v2/directions/{profile}/json: routes[] with summary {distance (m),
// duration (s)}, segments[] (one per leg) of steps[] {distance, duration, type, instruction, name
// ("-" when the way has none), way_points}, bbox, geometry (encoded polyline) and way_points; and
// metadata {attribution, service, timestamp, query, engine}. Zero values may be left out of a
// summary.
type orsDirectionsResponse struct {
	Routes   lenient.List[orsRoute]   `json:"routes"`
	Metadata lenient.Obj[orsMetadata] `json:"metadata"`
}

type orsRoute struct {
	Summary  lenient.Obj[orsSummary]  `json:"summary"`
	Segments lenient.List[orsSegment] `json:"segments"`
}

type orsSummary struct {
	Distance lenient.Float `json:"distance"`
	Duration lenient.Float `json:"duration"`
}

type orsSegment struct {
	Distance lenient.Float         `json:"distance"`
	Duration lenient.Float         `json:"duration"`
	Steps    lenient.List[orsStep] `json:"steps"`
}

type orsStep struct {
	Distance    lenient.Float `json:"distance"`
	Duration    lenient.Float `json:"duration"`
	Type        lenient.Int   `json:"type"`
	Instruction lenient.Str   `json:"instruction"`
	Name        lenient.Str   `json:"name"`
}

type orsMetadata struct {
	Attribution lenient.Str `json:"attribution"`
}

// orsMinuteWindow is the sliding window of OpenRouteService's per-minute limit: the longest a
// 429 asks a caller to wait.
const orsMinuteWindow = time.Minute

// orsErrorBody is OpenRouteService's error answer: {"error":{"code","message"},"info":{...}} from
// the engine, or {"error":"..."} (a bare string) from its API gateway (missing or refused key,
// quota).
type orsErrorBody struct {
	Error json.RawMessage `json:"error"`
}

type orsEngineError struct {
	Code    lenient.Int `json:"code"`
	Message lenient.Str `json:"message"`
}

// orsDirectionsRequest is the directions body this adapter sends.
type orsDirectionsRequest struct {
	Coordinates       [][2]float64          `json:"coordinates"`
	Instructions      bool                  `json:"instructions"`
	AlternativeRoutes *orsAlternativeRoutes `json:"alternative_routes,omitempty"`
}

type orsAlternativeRoutes struct {
	TargetCount  int     `json:"target_count"`
	ShareFactor  float64 `json:"share_factor"`
	WeightFactor float64 `json:"weight_factor"`
}

// orsPost sends a JSON body to OpenRouteService.
func orsPost(ctx context.Context, u *providers.Upstream, path string, body any) (*providers.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, &providers.Error{Code: providers.CodeInternal, Message: "could not encode the routing request", Cause: err}
	}
	req, err := u.NewRequest(ctx, http.MethodPost, path, nil, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Accept", "application/json")
	return u.Do(req)
}

// orsDirections asks OpenRouteService for a route (and alternatives) through the points.
func orsDirections(ctx context.Context, u *providers.Upstream, mode string, points []*place, alternatives bool, paths pointPaths) (*routeAnswer, error) {
	body := orsDirectionsRequest{Instructions: true}
	for _, p := range points {
		body.Coordinates = append(body.Coordinates, [2]float64{p.Lon, p.Lat})
	}
	if alternatives {
		body.AlternativeRoutes = &orsAlternativeRoutes{TargetCount: alternativeCount, ShareFactor: alternativeShare, WeightFactor: alternativeWeight}
	}
	resp, err := orsPost(ctx, u, "/v2/directions/"+orsProfiles[mode]+"/json", body)
	if err != nil {
		noRoute, err := orsFailure(err, paths)
		if err != nil {
			return nil, err
		}
		return &routeAnswer{Engine: engineORS, Attribution: orsAttribution, NoRoute: noRoute}, nil
	}
	var out orsDirectionsResponse
	if err := u.Decode(resp, &out); err != nil {
		return nil, err
	}
	if out.Routes == nil {
		return nil, providers.Errorf(providers.CodeProviderError, "OpenRouteService answered without a routes list")
	}
	ans := &routeAnswer{Engine: engineORS, Attribution: orsAttribution}
	if out.Metadata.V != nil && out.Metadata.V.Attribution != "" {
		ans.Attribution = string(out.Metadata.V.Attribution)
	}
	for _, r := range out.Routes {
		if rt, ok := orsRouteOf(r); ok {
			ans.Routes = append(ans.Routes, rt)
		}
	}
	if len(ans.Routes) == 0 {
		if len(out.Routes) > 0 {
			return nil, providers.Errorf(providers.CodeProviderError, "OpenRouteService answered routes without a distance or duration")
		}
		ans.NoRoute = "OpenRouteService found no route between these places"
	}
	return ans, nil
}

// orsRouteOf maps one route; a route with neither a summary nor segments is unusable. A present
// summary without distance or duration means zero (OpenRouteService leaves zeros out).
func orsRouteOf(r orsRoute) (route, bool) {
	var rt route
	for _, seg := range r.Segments {
		for _, s := range seg.Steps {
			st := step{Instruction: string(s.Instruction), DistanceM: s.Distance.V, DurationS: s.Duration.V, Name: orsName(s.Name)}
			if st.Instruction == "" {
				st.Instruction = orsTypeInstruction(s.Type, st.Name)
			}
			rt.Steps = append(rt.Steps, st)
		}
	}
	switch {
	case r.Summary.V != nil:
		rt.DistanceM, rt.DurationS = r.Summary.V.Distance.V, r.Summary.V.Duration.V
	case len(r.Segments) > 0:
		for _, seg := range r.Segments {
			rt.DistanceM += seg.Distance.V
			rt.DurationS += seg.Duration.V
		}
	default:
		return rt, false
	}
	return rt, true
}

// orsName drops OpenRouteService's "-" placeholder for a way without a name.
func orsName(s lenient.Str) string {
	if s == "-" {
		return ""
	}
	return string(s)
}

// orsTypeInstruction words a step that came without its instruction text, from its documented
// instruction type (0 left, 1 right, 2 sharp left, 3 sharp right, 4 slight left, 5 slight right,
// 6 straight, 7 enter roundabout, 8 exit roundabout, 9 u-turn, 10 goal, 11 depart, 12 keep left,
// 13 keep right).
func orsTypeInstruction(t lenient.Int, name string) string {
	verbs := map[int64]string{0: "Turn left", 1: "Turn right", 2: "Turn sharp left", 3: "Turn sharp right",
		4: "Turn slight left", 5: "Turn slight right", 6: "Continue straight", 7: "Enter the roundabout",
		8: "Exit the roundabout", 9: "Make a U-turn", 10: "Arrive", 11: "Head", 12: "Keep left", 13: "Keep right"}
	v, ok := verbs[t.V]
	if !t.OK || !ok {
		v = "Continue"
	}
	if name != "" && t.V != 10 {
		return v + " onto " + name
	}
	if name != "" {
		return v + " at " + name
	}
	return v
}

// coordinateIndex finds the point index an engine's message names ("coordinate 1", "point 2").
var coordinateIndex = regexp.MustCompile(`(?i)(?:coordinate|point)\s+(\d+)`)

// orsFailure reads OpenRouteService's error body. It returns the engine's explanation when no
// route exists (not an error: the answer has no records), or the error the caller sees.
func orsFailure(err error, paths pointPaths) (string, error) {
	e, ok := providers.AsError(err)
	if !ok || e.UpstreamStatus == 0 {
		return "", err
	}
	if e.UpstreamStatus == http.StatusTooManyRequests && e.RetryAfter > orsMinuteWindow {
		// A 429 that asks for more than the per-minute window is an allowance used up, whatever
		// the status says: the client's provider_allowance mapping (with its Retry-After) stands.
		return "", err
	}
	if e.UpstreamStatus == http.StatusTooManyRequests {
		// ORS answers its per-minute limit (40 directions a minute on the standard plan, a sliding
		// window) with 429 and its daily quota with 403; a 429 is over within the window.
		out := *e
		out.Code, out.Retryable = providers.CodeRateLimited, nil
		out.Message = "OpenRouteService's per-minute request limit for this gateway is reached; retry shortly"
		if out.RetryAfter <= 0 || out.RetryAfter > orsMinuteWindow {
			out.RetryAfter = orsMinuteWindow
		}
		return "", &out
	}
	if len(e.Body) == 0 {
		return "", err
	}
	var body orsErrorBody
	if json.Unmarshal(e.Body, &body) != nil || len(body.Error) == 0 {
		return "", err
	}
	var gatewayMessage string
	if json.Unmarshal(body.Error, &gatewayMessage) == nil {
		out := *e
		switch {
		case strings.Contains(strings.ToLower(gatewayMessage), "quota"): // the daily quota: HTTP 403
			out.Code = providers.CodeProviderAllowance
			out.Message = "OpenRouteService's allowance for this gateway is used up: " + gatewayMessage
			out.Retryable = nil
		case e.UpstreamStatus == http.StatusUnauthorized || e.UpstreamStatus == http.StatusForbidden:
			out.Message = "OpenRouteService refused this gateway's API key: " + gatewayMessage
		default:
			out.Message = fmt.Sprintf("OpenRouteService refused the request (HTTP %d): %s", e.UpstreamStatus, gatewayMessage)
		}
		return "", &out
	}
	var engine orsEngineError
	if json.Unmarshal(body.Error, &engine) != nil || !engine.Code.OK {
		return "", err
	}
	msg := string(engine.Message)
	switch engine.Code.V {
	case 2009:
		return "OpenRouteService found no route between these places: " + msg, nil
	case 2010, 6010:
		return "", unroutablePoints("OpenRouteService", msg, paths)
	case 2004, 2017, 6004, 6020:
		out := providers.Invalid("the request exceeds OpenRouteService's limits: " + msg)
		out.UpstreamStatus, out.Body, out.Cause = e.UpstreamStatus, e.Body, errORSLimit
		return "", out
	}
	out := *e
	out.Message = fmt.Sprintf("OpenRouteService refused the request (error %d): %s", engine.Code.V, msg)
	// 2099 and 6099 are the engine's unknown internal error; the others refuse the request itself.
	out.Retryable = ptrBool(engine.Code.V%1000 == 99)
	return "", &out
}

// unroutablePoints refuses points the engine could not snap to its road network, with a
// violation at each request field the message names (or the whole body when it names none).
func unroutablePoints(engine, msg string, paths pointPaths) error {
	var violations []providers.Violation
	seen := map[string]bool{}
	for _, m := range coordinateIndex.FindAllStringSubmatch(msg, -1) {
		i, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		for _, p := range paths(i) {
			if !seen[p] {
				seen[p] = true
				violations = append(violations, providers.Violation{Path: p,
					Message: "no road or path the mode can use was found near this place; move it closer to a street or pick another place"})
			}
		}
	}
	if len(violations) == 0 {
		violations = []providers.Violation{{Path: "", Message: msg}}
	}
	return providers.Invalid(engine+" could not place a point on its road network: "+msg, violations...)
}

func ptrBool(b bool) *bool { return &b }

// --- OSRM -------------------------------------------------------------------------------------

// osrmRouteResponse is GET /route/v1/driving/{coordinates}: code ("Ok" or an error code), message,
// routes[] {distance (m), duration (s), weight, weight_name, legs[] {distance, duration, summary,
// steps[] {distance, duration, name, ref, mode, maneuver {type, modifier, exit, location, ...}}}}
// and waypoints[].
type osrmRouteResponse struct {
	Code    lenient.Str             `json:"code"`
	Message lenient.Str             `json:"message"`
	Routes  lenient.List[osrmRoute] `json:"routes"`
}

type osrmRoute struct {
	Distance lenient.Float         `json:"distance"`
	Duration lenient.Float         `json:"duration"`
	Legs     lenient.List[osrmLeg] `json:"legs"`
}

type osrmLeg struct {
	Steps lenient.List[osrmStep] `json:"steps"`
}

type osrmStep struct {
	Distance lenient.Float             `json:"distance"`
	Duration lenient.Float             `json:"duration"`
	Name     lenient.Str               `json:"name"`
	Ref      lenient.Str               `json:"ref"`
	Maneuver lenient.Obj[osrmManeuver] `json:"maneuver"`
}

type osrmManeuver struct {
	Type     lenient.Str `json:"type"`
	Modifier lenient.Str `json:"modifier"`
	Exit     lenient.Int `json:"exit"`
	// Instruction is not part of OSRM's documented answer (it words no instructions); some
	// OSRM-compatible servers add one, and it is used when present.
	Instruction lenient.Str `json:"instruction"`
}

// osrmStatus is the code and message every OSRM answer (and error body) carries.
type osrmStatus struct {
	Code    lenient.Str `json:"code"`
	Message lenient.Str `json:"message"`
}

// osrmCoordinates writes the points as OSRM's path segment "lon,lat;lon,lat".
func osrmCoordinates(points [][2]float64) string {
	parts := make([]string, len(points))
	for i, p := range points {
		parts[i] = formatDegrees(p[0], 6) + "," + formatDegrees(p[1], 6)
	}
	return strings.Join(parts, ";")
}

// osrmGet calls OSRM with a path that already carries its query: OSRM's list options are
// ";"-separated and are written as documented rather than percent-encoded.
func osrmGet(ctx context.Context, u *providers.Upstream, path string) (*providers.Response, error) {
	return u.Get(ctx, path, nil, acceptJSON())
}

// osrmDirections asks the OSRM demo server for a car route (and alternatives) through the points.
func osrmDirections(ctx context.Context, u *providers.Upstream, points []*place, alternatives bool, paths pointPaths) (*routeAnswer, error) {
	pts := make([][2]float64, len(points))
	for i, p := range points {
		pts[i] = [2]float64{p.Lon, p.Lat}
	}
	path := "/route/v1/driving/" + osrmCoordinates(pts) + "?overview=false&steps=true&alternatives=" + strconv.FormatBool(alternatives)
	ans := &routeAnswer{Engine: engineOSRM}
	resp, err := osrmGet(ctx, u, path)
	if err != nil {
		st, ok := osrmErrorStatus(err)
		if !ok {
			return nil, err
		}
		noRoute, err := osrmFailure(st, paths, err)
		ans.NoRoute = noRoute
		return ans, err
	}
	var out osrmRouteResponse
	if err := u.Decode(resp, &out); err != nil {
		return nil, err
	}
	if out.Code != "Ok" {
		noRoute, err := osrmFailure(osrmStatus{Code: out.Code, Message: out.Message}, paths, nil)
		ans.NoRoute = noRoute
		return ans, err
	}
	if out.Routes == nil {
		return nil, providers.Errorf(providers.CodeProviderError, "the OSRM demo server answered without a routes list")
	}
	for _, r := range out.Routes {
		if !r.Distance.OK || !r.Duration.OK {
			continue
		}
		rt := route{DistanceM: r.Distance.V, DurationS: r.Duration.V}
		for li, leg := range r.Legs {
			for _, s := range leg.Steps {
				name := osrmWayName(s.Name, s.Ref)
				var m osrmManeuver
				if s.Maneuver.V != nil {
					m = *s.Maneuver.V
				}
				rt.Steps = append(rt.Steps, step{Instruction: osrmInstruction(m, name, li, len(r.Legs)),
					DistanceM: s.Distance.V, DurationS: s.Duration.V, Name: name})
			}
		}
		ans.Routes = append(ans.Routes, rt)
	}
	if len(ans.Routes) == 0 {
		if len(out.Routes) > 0 {
			return nil, providers.Errorf(providers.CodeProviderError, "the OSRM demo server answered routes without a distance or duration")
		}
		ans.NoRoute = "the OSRM demo server found no route between these places"
	}
	return ans, nil
}

// osrmWayName joins a way's name and its reference ("Stadtring (A 100)"), or gives either alone.
func osrmWayName(name, ref lenient.Str) string {
	switch {
	case name == "":
		return string(ref)
	case ref == "" || strings.Contains(string(name), string(ref)):
		return string(name)
	}
	return string(name) + " (" + string(ref) + ")"
}

// osrmErrorStatus reads the {code, message} body of an OSRM refusal (HTTP 400).
func osrmErrorStatus(err error) (osrmStatus, bool) {
	e, ok := providers.AsError(err)
	if !ok || len(e.Body) == 0 || e.UpstreamStatus == 0 || e.UpstreamStatus >= 500 || e.UpstreamStatus == http.StatusTooManyRequests {
		return osrmStatus{}, false
	}
	var st osrmStatus
	if json.Unmarshal(e.Body, &st) != nil || st.Code == "" {
		return osrmStatus{}, false
	}
	return st, true
}

// osrmFailure maps OSRM's status codes: NoRoute and NoTable are answers without a route;
// NoSegment names a point off the road network; TooBig is a request over the server's limits;
// the others (InvalidUrl, InvalidQuery, InvalidValue, InvalidOptions, ...) are refusals of a
// request this adapter built.
func osrmFailure(st osrmStatus, paths pointPaths, cause error) (string, error) {
	msg := firstNonEmpty(string(st.Message), string(st.Code))
	switch st.Code {
	case "NoRoute", "NoTable":
		return "the OSRM demo server found no route between these places: " + msg, nil
	case "NoSegment":
		return "", unroutablePoints("The OSRM demo server", msg, paths)
	case "TooBig":
		return "", providers.Invalid("the request exceeds the OSRM demo server's limits: " + msg)
	}
	return "", &providers.Error{Code: providers.CodeProviderError, Retryable: ptrBool(false), Cause: cause,
		Message: fmt.Sprintf("the OSRM demo server refused the request (%s): %s", st.Code, msg)}
}

// osrmInstruction words an OSRM maneuver in English (OSRM returns none, only the maneuver's
// documented type, modifier and roundabout exit).
func osrmInstruction(m osrmManeuver, name string, leg, legs int) string {
	if m.Instruction != "" {
		return string(m.Instruction)
	}
	modifier := string(m.Modifier)
	onto := ""
	if name != "" {
		onto = " onto " + name
	}
	side := ""
	if strings.Contains(modifier, "left") {
		side = ", on the left"
	} else if strings.Contains(modifier, "right") {
		side = ", on the right"
	}
	switch m.Type {
	case "depart":
		if name != "" {
			return "Head out on " + name
		}
		return "Depart"
	case "arrive":
		if leg < legs-1 {
			return fmt.Sprintf("Arrive at waypoint %d%s", leg+1, side)
		}
		return "Arrive at your destination" + side
	case "new name":
		if name != "" {
			return "Continue onto " + name
		}
		return "Continue"
	case "continue":
		if modifier == "" || modifier == "straight" {
			return "Continue straight" + onto
		}
		if modifier == "uturn" {
			return "Make a U-turn" + onto
		}
		return "Continue " + modifier + onto
	case "merge":
		return strings.TrimSpace("Merge "+modifier) + onto
	case "on ramp", "ramp":
		return "Take the ramp" + sideOf(modifier) + onto
	case "off ramp":
		return "Take the exit" + sideOf(modifier) + onto
	case "fork":
		if modifier == "" || modifier == "straight" {
			return "Continue at the fork" + onto
		}
		return "Keep " + strings.TrimPrefix(strings.TrimPrefix(modifier, "slight "), "sharp ") + " at the fork" + onto
	case "end of road":
		return "At the end of the road turn " + orDefault(modifier, "") + onto
	case "roundabout", "rotary":
		if m.Exit.OK && m.Exit.V > 0 {
			return fmt.Sprintf("At the roundabout take exit %d%s", m.Exit.V, onto)
		}
		return "Enter the roundabout" + onto
	case "roundabout turn":
		return "At the roundabout turn " + orDefault(modifier, "straight") + onto
	case "exit roundabout", "exit rotary":
		return "Exit the roundabout" + onto
	case "use lane":
		return "Use the lane to continue " + orDefault(modifier, "straight") + onto
	}
	// turn, notification and types unknown to this adapter are worded like a turn, as OSRM asks.
	switch modifier {
	case "", "straight":
		return "Continue straight" + onto
	case "uturn":
		return "Make a U-turn" + onto
	}
	return "Turn " + modifier + onto
}

func sideOf(modifier string) string {
	switch {
	case strings.Contains(modifier, "left"):
		return " on the left"
	case strings.Contains(modifier, "right"):
		return " on the right"
	}
	return ""
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// --- Matrices ---------------------------------------------------------------------------------

// matrixAnswer is what an engine answered for a matrix: one row per requested source, one column
// per requested destination; a nil matrix was not requested; an absent cell means no route.
type matrixAnswer struct {
	Engine      string
	Attribution string
	Durations   [][]lenient.Float // seconds
	Distances   [][]lenient.Float // metres
}

// orsMatrixRequest is the matrix body this adapter sends.
type orsMatrixRequest struct {
	Locations    [][2]float64 `json:"locations"`
	Sources      []int        `json:"sources"`
	Destinations []int        `json:"destinations"`
	Metrics      []string     `json:"metrics"`
}

// orsMatrixResponse is POST /v2/matrix/{profile}: durations (s) and distances (m) as rows per
// source with null where no route exists, destinations[] and sources[] ({location,
// snapped_distance}, null for a point that could not be snapped), and metadata.
type orsMatrixResponse struct {
	Durations json.RawMessage          `json:"durations"`
	Distances json.RawMessage          `json:"distances"`
	Metadata  lenient.Obj[orsMetadata] `json:"metadata"`
}

// orsMatrix asks OpenRouteService for the durations and/or distances between sources and
// destinations (indices into locations).
func orsMatrix(ctx context.Context, u *providers.Upstream, mode string, locations [][2]float64, sources, destinations []int, metrics []string, paths pointPaths) (*matrixAnswer, error) {
	body := orsMatrixRequest{Locations: locations, Sources: sources, Destinations: destinations, Metrics: metrics}
	resp, err := orsPost(ctx, u, "/v2/matrix/"+orsProfiles[mode], body)
	if err != nil {
		noRoute, err := orsFailure(err, paths)
		if err != nil {
			return nil, err
		}
		// A matrix reports unroutable pairs as nulls; a "no route" error means none is routable.
		return &matrixAnswer{Engine: engineORS, Attribution: orsAttribution, Durations: emptyMatrix(metrics, "duration", sources, destinations),
			Distances: emptyMatrix(metrics, "distance", sources, destinations)}, errNoneRoutable(noRoute)
	}
	var out orsMatrixResponse
	if err := u.Decode(resp, &out); err != nil {
		return nil, err
	}
	ans := &matrixAnswer{Engine: engineORS, Attribution: orsAttribution}
	if out.Metadata.V != nil && out.Metadata.V.Attribution != "" {
		ans.Attribution = string(out.Metadata.V.Attribution)
	}
	if err := fillMatrix(ans, "OpenRouteService", metrics, out.Durations, out.Distances, len(sources), len(destinations)); err != nil {
		return nil, err
	}
	return ans, nil
}

// osrmTableResponse is GET /table/v1/driving/{coordinates}: code, durations (s) and distances (m)
// as rows per source with null where no route exists, sources[] and destinations[] (waypoints).
type osrmTableResponse struct {
	Code      lenient.Str     `json:"code"`
	Message   lenient.Str     `json:"message"`
	Durations json.RawMessage `json:"durations"`
	Distances json.RawMessage `json:"distances"`
}

// osrmTable asks the OSRM demo server for car durations and/or distances.
func osrmTable(ctx context.Context, u *providers.Upstream, locations [][2]float64, sources, destinations []int, metrics []string, paths pointPaths) (*matrixAnswer, error) {
	path := "/table/v1/driving/" + osrmCoordinates(locations) + "?sources=" + joinInts(sources) +
		"&destinations=" + joinInts(destinations) + "&annotations=" + strings.Join(metrics, ",")
	ans := &matrixAnswer{Engine: engineOSRM}
	none := func(msg string) (*matrixAnswer, error) {
		ans.Durations = emptyMatrix(metrics, "duration", sources, destinations)
		ans.Distances = emptyMatrix(metrics, "distance", sources, destinations)
		return ans, errNoneRoutable(msg)
	}
	resp, err := osrmGet(ctx, u, path)
	if err != nil {
		st, ok := osrmErrorStatus(err)
		if !ok {
			return nil, err
		}
		noRoute, err := osrmFailure(st, paths, err)
		if err != nil {
			return nil, err
		}
		return none(noRoute)
	}
	var out osrmTableResponse
	if err := u.Decode(resp, &out); err != nil {
		return nil, err
	}
	if out.Code != "Ok" {
		noRoute, err := osrmFailure(osrmStatus{Code: out.Code, Message: out.Message}, paths, nil)
		if err != nil {
			return nil, err
		}
		return none(noRoute)
	}
	if err := fillMatrix(ans, "The OSRM demo server", metrics, out.Durations, out.Distances, len(sources), len(destinations)); err != nil {
		return nil, err
	}
	return ans, nil
}

// noneRoutable is the "no route at all" answer of a matrix: every pair is unroutable.
type noneRoutable struct{ msg string }

func (n *noneRoutable) Error() string { return n.msg }

func errNoneRoutable(msg string) error { return &noneRoutable{msg: msg} }

func emptyMatrix(metrics []string, metric string, sources, destinations []int) [][]lenient.Float {
	if !hasMetric(metrics, metric) {
		return nil
	}
	out := make([][]lenient.Float, len(sources))
	for i := range out {
		out[i] = make([]lenient.Float, len(destinations))
	}
	return out
}

func hasMetric(metrics []string, m string) bool {
	for _, x := range metrics {
		if x == m {
			return true
		}
	}
	return false
}

// fillMatrix decodes the requested matrices; one that is missing or smaller than asked is a
// provider_error (extra rows or columns are ignored).
func fillMatrix(ans *matrixAnswer, engine string, metrics []string, durations, distances json.RawMessage, rows, cols int) error {
	for _, m := range []struct {
		name string
		raw  json.RawMessage
		dst  *[][]lenient.Float
	}{{"duration", durations, &ans.Durations}, {"distance", distances, &ans.Distances}} {
		if !hasMetric(metrics, m.name) {
			continue
		}
		mx, ok := decodeMatrix(m.raw, rows, cols)
		if !ok {
			return providers.Errorf(providers.CodeProviderError, "%s answered no %d×%d %s matrix", engine, rows, cols, m.name)
		}
		*m.dst = mx
	}
	return nil
}

// decodeMatrix reads rows×cols numbers where null (or anything not a number) means no route.
func decodeMatrix(raw json.RawMessage, rows, cols int) ([][]lenient.Float, bool) {
	var rs []json.RawMessage
	if json.Unmarshal(raw, &rs) != nil || len(rs) < rows {
		return nil, false
	}
	out := make([][]lenient.Float, rows)
	for i := 0; i < rows; i++ {
		var cells []lenient.Float
		if json.Unmarshal(rs[i], &cells) != nil || len(cells) < cols {
			return nil, false
		}
		out[i] = cells[:cols]
	}
	return out, true
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ";")
}

// acceptJSON is the Accept header of every GET (fresh each time: the client keeps it).
func acceptJSON() http.Header { return http.Header{"Accept": {"application/json"}} }

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

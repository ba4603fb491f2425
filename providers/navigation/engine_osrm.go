package navigation

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

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

package navigation

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
)

// The sandbox routes between any places (issue 18): Nominatim places any name but the reserved
// miss Nowhere; OpenRouteService and OSRM answer the recorded routes and matrices when asked for
// the recorded coordinates, and otherwise a route of the same shape between the requested points
// whose distances follow the great-circle distance (times a road factor) and whose durations
// keep the recorded speed of the profile.
func init() {
	providers.RegisterGenerators(nominatimID, providers.GeneratedRoute{Path: "/search", Generate: generateNominatim})
	providers.RegisterGenerators(orsID,
		providers.GeneratedRoute{Method: http.MethodPost, Path: "/v2/directions/*", Generate: generateORSDirections},
		providers.GeneratedRoute{Method: http.MethodPost, Path: "/v2/matrix/*", Generate: generateORSMatrix})
	providers.RegisterGenerators(osrmID,
		providers.GeneratedRoute{Path: "/route/v1/driving/*", Generate: generateOSRMRoute},
		providers.GeneratedRoute{Path: "/table/v1/driving/*", Generate: generateOSRMTable})
}

// roadFactor turns a great-circle distance into a plausible road distance.
const roadFactor = 1.3

func generateNominatim(r *http.Request, fixture []byte, status int) ([]byte, int) {
	var recorded []map[string]any
	name := r.URL.Query().Get("q")
	if json.Unmarshal(fixture, &recorded) == nil && len(recorded) > 0 {
		return fixture, status // a recorded place
	}
	p, ok := providers.PlaceNamed(name)
	if !ok {
		return []byte("[]"), http.StatusOK
	}
	rnd := providers.SeedOf("nominatim", p.Name)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 7, 64) }
	place := nominatimResult{
		PlaceID: 100000000 + rnd.IntN(90000000), Licence: "Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright",
		OSMType: "relation", OSMID: 10000 + rnd.IntN(900000), Lat: f(p.Lat), Lon: f(p.Lon),
		Category: "boundary", Type: "administrative", PlaceRank: 16, Importance: 0.5 + rnd.Float64()/3,
		AddressType: "city", Name: p.Name, DisplayName: p.Name + ", " + p.Country,
		BoundingBox: []string{f(p.Lat - 0.1), f(p.Lat + 0.1), f(p.Lon - 0.1), f(p.Lon + 0.1)},
	}
	return providers.JSONBytes([]nominatimResult{place}), http.StatusOK
}

// haversine is the great-circle distance in metres between two lon/lat points.
func haversine(a, b [2]float64) float64 {
	const earth = 6371008.8
	rad := math.Pi / 180
	dLat, dLon := (b[1]-a[1])*rad, (b[0]-a[0])*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a[1]*rad)*math.Cos(b[1]*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earth * math.Asin(math.Min(1, math.Sqrt(h)))
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// number reads a decoded JSON number.
func number(v any) float64 {
	switch n := v.(type) {
	case json.Number:
		f, _ := n.Float64()
		return f
	case float64:
		return n
	}
	return 0
}

// speedOf is the recorded distance / duration of an answer (metres per second).
func speedOf(distance, duration any, def float64) float64 {
	d, t := number(distance), number(duration)
	if d > 0 && t > 0 {
		return d / t
	}
	return def
}

// recordedCopy is a shallow copy of a recorded object for a generator to edit (empty when v is not
// an object).
func recordedCopy(v any) map[string]any {
	// A recorded object holds whatever keys the upstream sent, so its copy stays a generic map.
	c := map[string]any{}
	if m, ok := v.(map[string]any); ok {
		maps.Copy(c, m)
	}
	return c
}

// scaleSteps rescales a recorded list of steps to a leg's distance and duration.
func scaleSteps(steps []any, distance, duration float64) []any {
	var total float64
	for _, s := range steps {
		if m, ok := s.(map[string]any); ok {
			total += number(m["distance"])
		}
	}
	out := make([]any, 0, len(steps))
	for _, s := range steps {
		m, ok := s.(map[string]any)
		if !ok {
			continue
		}
		c := recordedCopy(m)
		share := 1 / float64(len(steps))
		if total > 0 {
			share = number(m["distance"]) / total
		}
		c["distance"], c["duration"] = round1(distance*share), round1(duration*share)
		out = append(out, c)
	}
	return out
}

// orsBody is the part of an OpenRouteService request the generators read.
type orsBody struct {
	Coordinates  [][2]float64 `json:"coordinates"`
	Locations    [][2]float64 `json:"locations"`
	Sources      []int        `json:"sources"`
	Destinations []int        `json:"destinations"`
	Alternatives any          `json:"alternative_routes"`
}

func readORS(r *http.Request) (orsBody, bool) {
	var b orsBody
	if r.Body == nil {
		return b, false
	}
	return b, json.NewDecoder(r.Body).Decode(&b) == nil
}

// sameCoordinates tells whether the recorded query holds exactly the requested coordinates.
func sameCoordinates(recorded any, want [][2]float64) bool {
	arr, _ := recorded.([]any)
	if len(arr) != len(want) {
		return false
	}
	for i, c := range arr {
		pt, _ := c.([]any)
		if len(pt) != 2 || math.Abs(number(pt[0])-want[i][0]) > 0.01 || math.Abs(number(pt[1])-want[i][1]) > 0.01 {
			return false
		}
	}
	return true
}

func generateORSDirections(r *http.Request, fixture []byte, status int) ([]byte, int) {
	body, ok := readORS(r)
	doc := providers.JSONObject(fixture)
	if !ok || doc == nil || status != http.StatusOK || len(body.Coordinates) < 2 {
		return fixture, status
	}
	meta, _ := doc["metadata"].(map[string]any)
	query, _ := meta["query"].(map[string]any)
	if sameCoordinates(query["coordinates"], body.Coordinates) {
		return fixture, status
	}
	routes, _ := doc["routes"].([]any)
	if len(routes) == 0 {
		return fixture, status
	}
	first := routes[0].(map[string]any)
	sum, _ := first["summary"].(map[string]any)
	speed := speedOf(sum["distance"], sum["duration"], 10)
	if v, ok := profileSpeed(strings.TrimPrefix(r.URL.Path, "/v2/directions/"), pathKm(body.Coordinates)); ok {
		speed = v
	}
	segs, _ := first["segments"].([]any)
	var recordedSteps []any
	if len(segs) > 0 {
		recordedSteps, _ = segs[0].(map[string]any)["steps"].([]any)
	}
	n := len(routes)
	if body.Alternatives == nil {
		n = 1
	}
	var out []any
	for k := 0; k < n; k++ {
		detour := 1 + 0.08*float64(k)
		var total, totalT float64
		var segments []orsRouteSegment
		for i := 1; i < len(body.Coordinates); i++ {
			d := math.Max(haversine(body.Coordinates[i-1], body.Coordinates[i])*roadFactor*detour, 1)
			t := d / speed
			total, totalT = total+d, totalT+t
			segments = append(segments, orsRouteSegment{Distance: round1(d), Duration: round1(t),
				Steps: renameSteps(scaleSteps(recordedSteps, d, t), body.Coordinates[i-1], body.Coordinates[i])})
		}
		rt := recordedCopy(routes[k%len(routes)].(map[string]any))
		rt["summary"] = orsRouteSummary{Distance: round1(total), Duration: round1(totalT)}
		rt["segments"] = segments
		rt["bbox"] = bbox(body.Coordinates)
		out = append(out, rt)
	}
	doc["routes"], doc["bbox"] = out, bbox(body.Coordinates)
	if query != nil {
		query["coordinates"] = body.Coordinates
	}
	return providers.JSONBytes(doc), http.StatusOK
}

func bbox(pts [][2]float64) []float64 {
	b := []float64{pts[0][0], pts[0][1], pts[0][0], pts[0][1]}
	for _, p := range pts {
		b[0], b[1] = math.Min(b[0], p[0]), math.Min(b[1], p[1])
		b[2], b[3] = math.Max(b[2], p[0]), math.Max(b[3], p[1])
	}
	return b
}

// matrixOf computes distance and duration rows between sources and destinations.
func matrixOf(locs [][2]float64, sources, destinations []int, speed float64) (dist, dur [][]float64) {
	for _, s := range sources {
		var dr, tr []float64
		for _, d := range destinations {
			m := 0.0
			if s >= 0 && d >= 0 && s < len(locs) && d < len(locs) {
				m = haversine(locs[s], locs[d]) * roadFactor
			}
			dr, tr = append(dr, round1(m)), append(tr, round1(m/speed))
		}
		dist, dur = append(dist, dr), append(dur, tr)
	}
	return dist, dur
}

func allIndices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func generateORSMatrix(r *http.Request, fixture []byte, status int) ([]byte, int) {
	body, ok := readORS(r)
	doc := providers.JSONObject(fixture)
	if !ok || doc == nil || status != http.StatusOK || len(body.Locations) == 0 {
		return fixture, status
	}
	meta, _ := doc["metadata"].(map[string]any)
	query, _ := meta["query"].(map[string]any)
	src, dst := body.Sources, body.Destinations
	if src == nil {
		src = allIndices(len(body.Locations))
	}
	if dst == nil {
		dst = allIndices(len(body.Locations))
	}
	srcs, _ := doc["sources"].([]any)
	dsts, _ := doc["destinations"].([]any)
	if recordedWaypoints(srcs, pick(body.Locations, src)) && recordedWaypoints(dsts, pick(body.Locations, dst)) {
		return fixture, status
	}
	speed, _ := profileSpeed(strings.TrimPrefix(r.URL.Path, "/v2/matrix/"), pathKm(body.Locations))
	dist, dur := matrixOf(body.Locations, src, dst, speed)
	doc["distances"], doc["durations"] = dist, dur
	snap := func(idx []int) []orsSnappedLocation {
		var out []orsSnappedLocation
		for _, i := range idx {
			out = append(out, orsSnappedLocation{Location: body.Locations[i], SnappedDistance: 3.5})
		}
		return out
	}
	doc["sources"], doc["destinations"] = snap(src), snap(dst)
	if query != nil {
		query["locations"] = body.Locations
	}
	return providers.JSONBytes(doc), http.StatusOK
}

// osrmPoints reads the lon,lat;lon,lat list of an OSRM path after its prefix.
func osrmPoints(path, prefix string) ([][2]float64, bool) {
	var out [][2]float64
	for _, c := range strings.Split(strings.TrimPrefix(path, prefix), ";") {
		lon, lat, ok := strings.Cut(c, ",")
		if !ok {
			return nil, false
		}
		x, err1 := strconv.ParseFloat(lon, 64)
		y, err2 := strconv.ParseFloat(lat, 64)
		if err1 != nil || err2 != nil {
			return nil, false
		}
		out = append(out, [2]float64{x, y})
	}
	return out, len(out) > 0
}

func osrmIndices(v string, n int) []int {
	if v == "" || v == "all" {
		return allIndices(n)
	}
	var out []int
	for _, s := range strings.Split(v, ";") {
		if i, err := strconv.Atoi(s); err == nil {
			out = append(out, i)
		}
	}
	return out
}

// recordedWaypoints tells whether the recorded waypoints begin with the requested points (the
// recorded matrices hold more rows than their examples ask for).
func recordedWaypoints(wps []any, pts [][2]float64) bool {
	var locs []any
	for _, w := range wps {
		if m, ok := w.(map[string]any); ok {
			locs = append(locs, m["location"])
		}
	}
	if len(locs) < len(pts) || len(pts) == 0 {
		return false
	}
	for i, want := range pts {
		pt, _ := locs[i].([]any)
		if len(pt) != 2 || math.Abs(number(pt[0])-want[0]) > 0.05 || math.Abs(number(pt[1])-want[1]) > 0.05 {
			return false
		}
	}
	return true
}

// pick lists the points at the indices (indices out of range are skipped).
func pick(pts [][2]float64, idx []int) [][2]float64 {
	var out [][2]float64
	for _, i := range idx {
		if i >= 0 && i < len(pts) {
			out = append(out, pts[i])
		}
	}
	return out
}

func osrmWaypoint(tmpl any, pt [2]float64, i int) map[string]any {
	w := recordedCopy(tmpl)
	w["location"] = []float64{pt[0], pt[1]}
	w["name"] = fmt.Sprintf("Sandbox Street %d", i+1)
	w["distance"] = 2.5
	return w
}

func generateOSRMRoute(r *http.Request, fixture []byte, status int) ([]byte, int) {
	pts, ok := osrmPoints(r.URL.Path, "/route/v1/driving/")
	doc := providers.JSONObject(fixture)
	if !ok || doc == nil || status != http.StatusOK || len(pts) < 2 {
		return fixture, status
	}
	wps, _ := doc["waypoints"].([]any)
	routes, _ := doc["routes"].([]any)
	if recordedWaypoints(wps, pts) || len(routes) == 0 || len(wps) == 0 {
		return fixture, status
	}
	first := routes[0].(map[string]any)
	speed, _ := profileSpeed("driving-car", pathKm(pts))
	legs, _ := first["legs"].([]any)
	var recordedSteps []any
	if len(legs) > 0 {
		recordedSteps, _ = legs[0].(map[string]any)["steps"].([]any)
	}
	var out []any
	for k := range routes {
		detour := 1 + 0.08*float64(k)
		var total, totalT float64
		var newLegs []osrmRouteLeg
		for i := 1; i < len(pts); i++ {
			d := math.Max(haversine(pts[i-1], pts[i])*roadFactor*detour, 1)
			t := d / speed
			total, totalT = total+d, totalT+t
			newLegs = append(newLegs, osrmRouteLeg{Summary: fmt.Sprintf("Sandbox Road %d", i), Weight: round1(t), Duration: round1(t),
				Distance: round1(d), Steps: renameSteps(scaleSteps(recordedSteps, d, t), pts[i-1], pts[i])})
		}
		rt := recordedCopy(routes[k].(map[string]any))
		rt["legs"], rt["distance"], rt["duration"], rt["weight"] = newLegs, round1(total), round1(totalT), round1(totalT)
		out = append(out, rt)
	}
	doc["routes"] = out
	var newWps []any
	for i, p := range pts {
		newWps = append(newWps, osrmWaypoint(wps[0], p, i))
	}
	doc["waypoints"] = newWps
	return providers.JSONBytes(doc), http.StatusOK
}

func generateOSRMTable(r *http.Request, fixture []byte, status int) ([]byte, int) {
	pts, ok := osrmPoints(r.URL.Path, "/table/v1/driving/")
	doc := providers.JSONObject(fixture)
	if !ok || doc == nil || status != http.StatusOK {
		return fixture, status
	}
	q := r.URL.Query()
	src, dst := osrmIndices(q.Get("sources"), len(pts)), osrmIndices(q.Get("destinations"), len(pts))
	srcs, _ := doc["sources"].([]any)
	dsts, _ := doc["destinations"].([]any)
	srcPts, dstPts := pick(pts, src), pick(pts, dst)
	if (recordedWaypoints(srcs, srcPts) && recordedWaypoints(dsts, dstPts)) || len(srcs) == 0 || len(dsts) == 0 {
		return fixture, status
	}
	speed, _ := profileSpeed("driving-car", pathKm(pts))
	dist, dur := matrixOf(pts, src, dst, speed)
	doc["distances"], doc["durations"] = dist, dur
	var ns, nd []any
	for i, p := range srcPts {
		ns = append(ns, osrmWaypoint(srcs[0], p, i))
	}
	for i, p := range dstPts {
		nd = append(nd, osrmWaypoint(dsts[0], p, i))
	}
	doc["sources"], doc["destinations"] = ns, nd
	return providers.JSONBytes(doc), http.StatusOK
}

// pathKm is the great-circle length of a lon/lat path in km.
func pathKm(pts [][2]float64) float64 {
	total := 0.0
	for i := 1; i < len(pts); i++ {
		total += haversine(pts[i-1], pts[i]) / 1000
	}
	return total
}

// profileSpeed is the sandbox's average speed (m/s) of a routing profile over a trip of km:
// walking 5 km/h, cycling 16 km/h, driving 35 km/h in town rising to 85 km/h on long trips
// (motorways); ok false for an unknown profile.
func profileSpeed(profile string, km float64) (float64, bool) {
	switch {
	case strings.HasPrefix(profile, "foot"):
		return 5 / 3.6, true
	case strings.HasPrefix(profile, "cycling"):
		return 16 / 3.6, true
	case strings.HasPrefix(profile, "driving"):
		kmh := 35 + 50*math.Min(km/150, 1)
		return kmh / 3.6, true
	}
	return 0, false
}

var streetKinds = []string{"Street", "Avenue", "Road", "Boulevard", "Lane", "Way"}

// renameSteps gives the steps of a leg made-up street names (the recorded ones are the recorded
// city's), replacing each recorded name in its instruction too.
func renameSteps(steps []any, from, to [2]float64) []any {
	seed := fmt.Sprintf("%.4f,%.4f;%.4f,%.4f", from[0], from[1], to[0], to[1])
	for i, s := range steps {
		m, ok := s.(map[string]any)
		if !ok {
			continue
		}
		old, _ := m["name"].(string)
		if old == "" || old == "-" {
			continue
		}
		r := providers.SeedOf("street", seed, strconv.Itoa(i))
		name := providers.SynthName(seed, i, streetKinds[r.IntN(len(streetKinds))])
		m["name"] = name
		if ins, ok := m["instruction"].(string); ok {
			m["instruction"] = providers.ReplaceFold(ins, old, name)
		}
	}
	return steps
}

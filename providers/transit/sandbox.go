package transit

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// The sandbox routes between any places (issue 36): origin and destination resolve through the
// gazetteer (an address resolves to the city it names; a name it lacks is a synthetic place),
// and the recorded itineraries are redrawn between them: distances follow the great-circle
// distance, walks run at 5 km/h and rides at a city bus's or an intercity train's speed, stops lie
// along the way with made-up names, times start at the requested time (or now) in the place's
// zone, and fares grow with the distance. The recorded trips (Vancouver to Burnaby by name, the
// New York coordinates) get the recorded answers.
func init() {
	providers.RegisterGenerators(ProviderID, providers.GeneratedRoute{Method: http.MethodPost, Path: computeRoutesPath, Generate: generateRoutes})
}

// recordedTowns are the towns of the recorded named-place trip, origin then destination.
var recordedTowns = [2]string{"Vancouver", "Burnaby"}

// townOf is the last part of an address ("SFU Burnaby Campus, Burnaby" → "Burnaby").
func townOf(address string) string {
	parts := strings.Split(address, ",")
	return strings.TrimSpace(parts[len(parts)-1])
}

// resolve is a requested waypoint's place and point: an address within a few km of its city's centre
// (distinct addresses of one city lie apart), or the coordinates given.
func resolve(w waypoint) (providers.SandboxPlace, float64, float64, bool) {
	if w.Location != nil {
		lat, lon := w.Location.LatLng.Latitude, w.Location.LatLng.Longitude
		return providers.PlaceAt("", lat, lon), lat, lon, true
	}
	p, ok := providers.PlaceNamed(w.Address)
	if !ok {
		return p, 0, 0, false
	}
	if strings.EqualFold(strings.TrimSpace(w.Address), p.Name) {
		return p, p.Lat, p.Lon, true
	}
	lat, lon := providers.Scatter(strings.ToLower(w.Address), 0, p.Lat, p.Lon, 3)
	return p, lat, lon, true
}

func generateRoutes(r *http.Request, fixture []byte, status int) ([]byte, int) {
	var body struct {
		Origin        waypoint `json:"origin"`
		Destination   waypoint `json:"destination"`
		DepartureTime string   `json:"departureTime"`
	}
	if status != http.StatusOK || r.Body == nil || json.NewDecoder(r.Body).Decode(&body) != nil {
		return fixture, status
	}
	if body.Origin.Location != nil || body.Destination.Location != nil {
		// The recorded coordinates trip (New York) stays recorded.
		if body.Origin.Location != nil && math.Abs(body.Origin.Location.LatLng.Latitude-40.75) < 0.1 &&
			math.Abs(body.Origin.Location.LatLng.Longitude+73.99) < 0.1 {
			return fixture, status
		}
	} else {
		towns := [2]string{townOf(body.Origin.Address), townOf(body.Destination.Address)}
		if strings.EqualFold(towns[0], recordedTowns[0]) && strings.EqualFold(towns[1], recordedTowns[1]) {
			return fixture, status
		}
	}
	from, oLat, oLon, ok1 := resolve(body.Origin)
	to, dLat, dLon, ok2 := resolve(body.Destination)
	doc := providers.JSONObject(fixture)
	routes := providers.Templates(doc["routes"])
	if !ok1 || !ok2 || doc == nil || len(routes) == 0 {
		return fixture, status
	}
	km := math.Max(providers.DistanceKm(oLat, oLon, dLat, dLon), 0.3)
	start := time.Now().UTC().Truncate(time.Minute).Add(5 * time.Minute)
	if t, err := time.Parse(time.RFC3339Nano, body.DepartureTime); err == nil {
		start = t
	}
	// arrive_by requests get trips leaving now (the adapter reports the requested time's status).
	zone := time.FixedZone(from.Timezone, from.UTCOffset)
	rideKmh := 18.0
	if km > 40 {
		rideKmh = 90 // an intercity train or coach
	}
	var out []any
	for k, rt := range routes {
		steps := redraw(rt, k, km, rideKmh, start, zone, [2]float64{oLat, oLon}, [2]float64{dLat, dLon}, from, to)
		if steps < 0 {
			continue
		}
		out = append(out, rt)
	}
	doc["routes"] = out
	return providers.JSONBytes(doc), http.StatusOK
}

func distText(m float64) string {
	if m < 1000 {
		return fmt.Sprintf("%d m", int(math.Round(m)))
	}
	return fmt.Sprintf("%.1f km", m/1000)
}

func durText(s float64) string {
	mins := int(math.Max(1, math.Round(s/60)))
	if mins < 60 {
		return fmt.Sprintf("%d mins", mins)
	}
	return fmt.Sprintf("%d hours %d mins", mins/60, mins%60)
}

// redraw rewrites one recorded route between the requested points; it returns the number of
// steps (-1 when the route has none).
func redraw(rt map[string]any, k int, km, rideKmh float64, start time.Time, zone *time.Location, o, d [2]float64,
	from, to providers.SandboxPlace) int {
	legs := providers.Templates(rt["legs"])
	if len(legs) == 0 {
		return -1
	}
	leg := legs[0]
	steps := providers.Templates(leg["steps"])
	var recorded float64
	for _, s := range steps {
		f, _ := providers.NumOf(s["distanceMeters"])
		recorded += f
	}
	if recorded <= 0 {
		return -1
	}
	total := km * 1000 * (1.25 + 0.07*float64(k))
	rd := routeDraw{seed: fmt.Sprintf("%.4f,%.4f;%.4f,%.4f;%d", o[0], o[1], d[0], d[1], k), o: o, d: d, from: from, to: to,
		zone: zone, rideKmh: rideKmh, total: total, scale: total / recorded}
	t := start.Add(time.Duration(k*7) * time.Minute)
	done, totalSecs := 0.0, 0.0
	var newSteps []any
	for i, s := range steps {
		dist, secs := rd.step(s, i, t, done)
		t = t.Add(time.Duration(secs) * time.Second)
		done += dist
		totalSecs += secs
		newSteps = append(newSteps, s)
	}
	leg["steps"] = newSteps
	if ov, ok := leg["stepsOverview"].(map[string]any); ok {
		for _, seg := range providers.Templates(ov["multiModalSegments"]) {
			if ni, ok := seg["navigationInstruction"].(map[string]any); ok {
				if seg["travelMode"] == "WALK" {
					ni["instructions"] = "Walk"
				} else {
					ni["instructions"] = "Ride towards " + to.Name
				}
			}
		}
	}
	rt["legs"] = []any{leg}
	rt["distanceMeters"] = int(done)
	rt["duration"] = fmt.Sprintf("%ds", int(totalSecs))
	setTotals(rt, km, done, totalSecs, from.CountryCode)
	return len(newSteps)
}

// routeDraw is what the steps of one redrawn route share: the seed of its made-up names, its
// ends, their zone, the ride speed, the route's length in metres and its scale to the recorded one.
type routeDraw struct {
	seed         string
	o, d         [2]float64
	from, to     providers.SandboxPlace
	zone         *time.Location
	rideKmh      float64
	total, scale float64
}

// stopName is the made-up name of the route's i-th stop.
func (rd routeDraw) stopName(i int) string { return providers.SynthName(rd.seed, i, "Station") }

// step rewrites the route's i-th step, which starts at time t after done metres; it returns the
// step's metres and seconds.
func (rd routeDraw) step(s map[string]any, i int, t time.Time, done float64) (dist, secs float64) {
	dist, _ = providers.NumOf(s["distanceMeters"])
	dist = math.Round(dist * rd.scale)
	walk := s["travelMode"] == "WALK"
	if walk {
		dist = math.Min(dist, 1200) // walks stay walks
	}
	kmh := rd.rideKmh
	if walk {
		kmh = 5
	}
	secs = math.Round(dist / 1000 / kmh * 3600)
	s["distanceMeters"] = int(dist)
	s["staticDuration"] = fmt.Sprintf("%ds", int(secs))
	s["localizedValues"] = stepLocalizedValues{Distance: localizedText{distText(dist)}, StaticDuration: localizedText{durText(secs)}}
	if ni, ok := s["navigationInstruction"].(map[string]any); ok {
		switch {
		case walk && i == 0:
			ni["instructions"] = "Head out on " + providers.SynthName(rd.seed, i, "Street")
		case walk:
			ni["instructions"] = "Walk to " + rd.stopName(i+1)
		default:
			ni["instructions"] = "Ride towards " + rd.to.Name
		}
	}
	if td, ok := s["transitDetails"].(map[string]any); ok {
		rd.transit(td, i, t, t.Add(time.Duration(secs)*time.Second), done/rd.total, math.Min((done+dist)/rd.total, 1))
	}
	return dist, secs
}

// transit rewrites the transit details of the i-th step, a ride from dep to arr between the
// fractions frac0 and frac1 of the way: its stops, times, headsign, line and agency.
func (rd routeDraw) transit(td map[string]any, i int, dep, arr time.Time, frac0, frac1 float64) {
	o, d := rd.o, rd.d
	pt := func(f float64) location {
		return location{LatLng: latLng{Latitude: math.Round((o[0]+(d[0]-o[0])*f)*1e6) / 1e6,
			Longitude: math.Round((o[1]+(d[1]-o[1])*f)*1e6) / 1e6}}
	}
	td["stopDetails"] = stopDetails{
		DepartureStop: transitStop{Name: rd.stopName(i), Location: pt(frac0)},
		ArrivalStop:   transitStop{Name: rd.stopName(i + 1), Location: pt(frac1)},
		DepartureTime: dep.UTC().Format(time.RFC3339), ArrivalTime: arr.UTC().Format(time.RFC3339)}
	td["localizedValues"] = transitLocalizedValues{
		DepartureTime: localizedClock{Time: localizedText{dep.In(rd.zone).Format("3:04 PM")}, TimeZone: rd.from.Timezone},
		ArrivalTime:   localizedClock{Time: localizedText{arr.In(rd.zone).Format("3:04 PM")}, TimeZone: rd.from.Timezone}}
	td["headsign"] = rd.to.Name
	if line, ok := td["transitLine"].(map[string]any); ok {
		if ags := providers.Templates(line["agencies"]); len(ags) > 0 {
			ags[0]["name"] = "Sandbox Transit " + rd.from.Name
			delete(ags[0], "phoneNumber")
			ags[0]["uri"] = "https://transit.example/"
			line["agencies"] = []any{ags[0]}
		}
		n := 1 + providers.Rand("line", rd.seed, strconv.Itoa(i)).IntN(99)
		line["name"], line["nameShort"] = fmt.Sprintf("Line %d %s", n, rd.to.Name), strconv.Itoa(n)
		delete(line, "uri")
	}
	if stops, ok := providers.NumOf(td["stopCount"]); ok {
		td["stopCount"] = int(math.Max(1, math.Round(stops*math.Sqrt(rd.scale))))
	}
}

// setTotals sets a route's localized length and duration (metres, secs) and its fare, which grows with km,
// in euros in the euro countries and in dollars elsewhere.
func setTotals(rt map[string]any, km, metres, secs float64, country string) {
	fare := 1.5 + 0.12*km
	cur := "USD"
	if eur := map[string]bool{"DE": true, "FR": true, "ES": true, "IT": true, "PT": true, "NL": true, "AT": true, "BE": true, "IE": true, "FI": true}; eur[country] {
		cur = "EUR"
	}
	units, nanos := math.Modf(fare)
	rt["localizedValues"] = routeLocalizedValues{Distance: localizedText{distText(metres)}, Duration: localizedText{durText(secs)},
		TransitFare: localizedText{fmt.Sprintf("%s %.2f", cur, fare)}}
	rt["travelAdvisory"] = travelAdvisory{TransitFare: money{CurrencyCode: cur, Units: strconv.Itoa(int(units)), Nanos: int(math.Round(nanos*100)) * 10000000}}
}

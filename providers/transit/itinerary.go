package transit

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// --- mapping

// segment is one part of the itinerary in the details: a walk (consecutive non-transit steps)
// or one ride.
type segment struct {
	Mode            string `json:"mode"` // walk (or Google's other non-transit mode, lower case) or transit
	Instruction     string `json:"instruction,omitempty"`
	Line            string `json:"line,omitempty"`
	LineName        string `json:"line_name,omitempty"`
	LineShortName   string `json:"line_short_name,omitempty"`
	Vehicle         string `json:"vehicle,omitempty"`
	VehicleType     string `json:"vehicle_type,omitempty"`
	Agency          string `json:"agency,omitempty"`
	Headsign        string `json:"headsign,omitempty"`
	Trip            string `json:"trip,omitempty"`
	DepartureStop   string `json:"departure_stop,omitempty"`
	DepartureTime   string `json:"departure_time,omitempty"`
	DepartureLabel  string `json:"departure_label,omitempty"`
	ArrivalStop     string `json:"arrival_stop,omitempty"`
	ArrivalTime     string `json:"arrival_time,omitempty"`
	ArrivalLabel    string `json:"arrival_label,omitempty"`
	TimeZone        string `json:"time_zone,omitempty"`
	StopCount       *int64 `json:"stop_count,omitempty"`
	HeadwaySeconds  *int64 `json:"headway_seconds,omitempty"`
	DistanceM       *int64 `json:"distance_m,omitempty"`
	DurationSeconds *int64 `json:"duration_seconds,omitempty"`
	DistanceLabel   string `json:"distance_label,omitempty"`
	DurationLabel   string `json:"duration_label,omitempty"`
}

// fare is the trip's fare as Google reports it.
type fare struct {
	Currency string   `json:"currency,omitempty"`
	Amount   *float64 `json:"amount,omitempty"`
	Label    string   `json:"label,omitempty"`
}

// itinerary is the stored details body.
type itinerary struct {
	DurationSeconds     *int64      `json:"duration_seconds,omitempty"`
	DistanceM           *int64      `json:"distance_m,omitempty"`
	DurationLabel       string      `json:"duration_label,omitempty"`
	DistanceLabel       string      `json:"distance_label,omitempty"`
	TimeWindow          *TimeWindow `json:"time_window,omitempty"`
	RequestedTime       string      `json:"requested_time,omitempty"`
	RequestedTimeStatus string      `json:"requested_time_status"`
	RealtimeStatus      string      `json:"realtime_status"`
	Transfers           *int        `json:"transfers,omitempty"`
	Lines               []string    `json:"lines,omitempty"`
	Fare                *fare       `json:"fare,omitempty"`
	Segments            []segment   `json:"segments"`
	Warnings            []string    `json:"warnings,omitempty"`
}

// itineraryRecord maps route i.
func itineraryRecord(q *query, i int, r route, fetched time.Time) providers.Record {
	var steps []step
	var overviews = map[int]string{} // step index → Google's instruction for the segment starting there
	for _, l := range r.Legs {
		base := len(steps)
		if ov := l.StepsOverview.V; ov != nil {
			for _, s := range ov.MultiModalSegments {
				// An absent stepStartIndex is 0 (proto3 JSON may leave zero out).
				at := base + int(s.StepStartIndex.V)
				if _, taken := overviews[at]; !taken && s.NavigationInstruction.V != nil && s.NavigationInstruction.V.Instructions != "" {
					overviews[at] = string(s.NavigationInstruction.V.Instructions)
				}
			}
		}
		steps = append(steps, l.Steps...)
	}
	segments := buildSegments(steps, overviews)

	it := itinerary{Segments: segments, RealtimeStatus: realtimeUnknown}
	if r.DistanceMeters.OK {
		v := r.DistanceMeters.V
		it.DistanceM = &v
	}
	if secs, ok := seconds(string(r.Duration)); ok {
		it.DurationSeconds = &secs
	}
	if lv := r.LocalizedValues.V; lv != nil {
		if t := lv.Duration.V; t != nil {
			it.DurationLabel = string(t.Text)
		}
		if t := lv.Distance.V; t != nil {
			it.DistanceLabel = string(t.Text)
		}
	}
	it.Fare = fareOf(r)

	var lines []string
	rides := 0
	for _, s := range segments {
		if s.Mode == "transit" {
			rides++
			if s.Line != "" {
				lines = append(lines, s.Line)
			}
		}
	}
	it.Lines = lines
	if rides > 0 {
		n := rides - 1
		it.Transfers = &n
	}
	window, dep, arr, hasWindow := timeWindow(steps)
	it.TimeWindow = window
	it.RequestedTimeStatus = requestedTimeStatus(q, dep, arr, hasWindow)
	it.RequestedTime = q.atText
	for _, w := range r.Warnings {
		if w != "" {
			it.Warnings = append(it.Warnings, string(w))
		}
	}

	mapsURL := googleMapsURL(q)
	links := []providers.Link{{Label: "Trip on Google Maps", URL: mapsURL}}
	seen := map[string]bool{}
	for _, s := range steps {
		td := s.TransitDetails.V
		if td == nil || td.TransitLine.V == nil {
			continue
		}
		for _, a := range td.TransitLine.V.Agencies {
			uri := string(a.URI)
			if isWebURL(uri) && !seen[uri] {
				seen[uri] = true
				label := "Agency website"
				if a.Name != "" {
					label = string(a.Name)
				}
				links = append(links, providers.Link{Label: label, URL: uri})
			}
		}
	}
	return providers.Record{
		Title:   title(i, lines, it),
		URL:     mapsURL,
		Snippet: snippet(segments, it),
		Data: &RouteRecord{Source: sourceName, FetchedAt: fetched.Format(time.RFC3339), RealtimeStatus: it.RealtimeStatus,
			DistanceM: it.DistanceM, DurationSeconds: it.DurationSeconds, DurationLabel: it.DurationLabel,
			DistanceLabel: it.DistanceLabel, Lines: it.Lines, TimeWindow: it.TimeWindow,
			RequestedTimeStatus: it.RequestedTimeStatus, RequestedTime: it.RequestedTime},
		Stored: map[string]*providers.Detail{"details": {Body: it, Links: links}},
	}
}

// buildSegments merges consecutive non-transit steps into one segment and keeps each ride apart.
func buildSegments(steps []step, overviews map[int]string) []segment {
	out := []segment{}
	for i := 0; i < len(steps); {
		s := steps[i]
		if strings.EqualFold(string(s.TravelMode), "TRANSIT") || s.TransitDetails.V != nil {
			out = append(out, ride(s))
			i++
			continue
		}
		mode := strings.ToLower(string(s.TravelMode))
		if mode == "" {
			mode = "walk"
		}
		seg := segment{Mode: mode, Instruction: overviews[i]}
		var dist, dur int64
		hasDist, hasDur := false, false
		j := i
		for ; j < len(steps); j++ {
			t := steps[j]
			if strings.EqualFold(string(t.TravelMode), "TRANSIT") || t.TransitDetails.V != nil ||
				strings.ToLower(string(t.TravelMode)) != strings.ToLower(string(s.TravelMode)) {
				break
			}
			if seg.Instruction == "" && t.NavigationInstruction.V != nil {
				seg.Instruction = string(t.NavigationInstruction.V.Instructions)
			}
			if t.DistanceMeters.OK {
				dist, hasDist = dist+t.DistanceMeters.V, true
			}
			if d, ok := seconds(string(t.StaticDuration)); ok {
				dur, hasDur = dur+d, true
			}
		}
		if j == i { // a step of an unknown shape: consume it alone
			j = i + 1
		}
		if hasDist {
			seg.DistanceM = &dist
		}
		if hasDur {
			seg.DurationSeconds = &dur
		}
		if j == i+1 && s.LocalizedValues.V != nil { // one step: Google's labels apply as they are
			if t := s.LocalizedValues.V.Distance.V; t != nil {
				seg.DistanceLabel = string(t.Text)
			}
			if t := s.LocalizedValues.V.StaticDuration.V; t != nil {
				seg.DurationLabel = string(t.Text)
			}
		}
		out = append(out, seg)
		i = j
	}
	return out
}

// ride maps one transit step.
func ride(s step) segment {
	seg := segment{Mode: "transit"}
	if s.DistanceMeters.OK {
		v := s.DistanceMeters.V
		seg.DistanceM = &v
	}
	if d, ok := seconds(string(s.StaticDuration)); ok {
		seg.DurationSeconds = &d
	}
	if s.LocalizedValues.V != nil {
		if t := s.LocalizedValues.V.Distance.V; t != nil {
			seg.DistanceLabel = string(t.Text)
		}
		if t := s.LocalizedValues.V.StaticDuration.V; t != nil {
			seg.DurationLabel = string(t.Text)
		}
	}
	if s.NavigationInstruction.V != nil {
		seg.Instruction = string(s.NavigationInstruction.V.Instructions)
	}
	td := s.TransitDetails.V
	if td == nil {
		return seg
	}
	seg.Headsign, seg.Trip = string(td.Headsign), string(td.TripShortText)
	if td.StopCount.OK {
		v := td.StopCount.V
		seg.StopCount = &v
	}
	if h, ok := seconds(string(td.Headway)); ok {
		seg.HeadwaySeconds = &h
	}
	if sd := td.StopDetails.V; sd != nil {
		if sd.DepartureStop.V != nil {
			seg.DepartureStop = string(sd.DepartureStop.V.Name)
		}
		if sd.ArrivalStop.V != nil {
			seg.ArrivalStop = string(sd.ArrivalStop.V.Name)
		}
		seg.DepartureTime, seg.ArrivalTime = rfc3339(string(sd.DepartureTime)), rfc3339(string(sd.ArrivalTime))
	}
	if lv := td.LocalizedValues.V; lv != nil {
		if d := lv.DepartureTime.V; d != nil {
			if d.Time.V != nil {
				seg.DepartureLabel = string(d.Time.V.Text)
			}
			seg.TimeZone = string(d.TimeZone)
		}
		if a := lv.ArrivalTime.V; a != nil {
			if a.Time.V != nil {
				seg.ArrivalLabel = string(a.Time.V.Text)
			}
			if seg.TimeZone == "" {
				seg.TimeZone = string(a.TimeZone)
			}
		}
	}
	if l := td.TransitLine.V; l != nil {
		seg.LineName, seg.LineShortName = string(l.Name), string(l.NameShort)
		if v := l.Vehicle.V; v != nil {
			seg.VehicleType = string(v.Type)
			if v.Name.V != nil {
				seg.Vehicle = string(v.Name.V.Text)
			}
		}
		var agencies []string
		for _, a := range l.Agencies {
			if a.Name != "" {
				agencies = append(agencies, string(a.Name))
			}
		}
		seg.Agency = strings.Join(agencies, ", ")
		seg.Line = lineLabel(seg)
	}
	return seg
}

// lineLabel names a ride's line: "Bus 14", "Subway A", or the line's name when it has no short name.
func lineLabel(s segment) string {
	name := s.LineShortName
	if name == "" {
		name = s.LineName
	}
	if name == "" {
		return s.Vehicle
	}
	if s.Vehicle != "" && !strings.Contains(strings.ToLower(name), strings.ToLower(s.Vehicle)) {
		return s.Vehicle + " " + name
	}
	return name
}

// timeWindow is when the trip leaves the origin and reaches the destination: the first ride's
// departure less the walking before it, and the last ride's arrival plus the walking after it.
// ok is false without a timed ride.
func timeWindow(steps []step) (*TimeWindow, time.Time, time.Time, bool) {
	first, last := -1, -1
	for i, s := range steps {
		if td := s.TransitDetails.V; td != nil && td.StopDetails.V != nil {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil, time.Time{}, time.Time{}, false
	}
	dep, errD := time.Parse(time.RFC3339Nano, string(steps[first].TransitDetails.V.StopDetails.V.DepartureTime))
	arr, errA := time.Parse(time.RFC3339Nano, string(steps[last].TransitDetails.V.StopDetails.V.ArrivalTime))
	if errD != nil || errA != nil {
		return nil, time.Time{}, time.Time{}, false
	}
	for _, s := range steps[:first] {
		if d, ok := seconds(string(s.StaticDuration)); ok {
			dep = dep.Add(-time.Duration(d) * time.Second)
		}
	}
	for _, s := range steps[last+1:] {
		if d, ok := seconds(string(s.StaticDuration)); ok {
			arr = arr.Add(time.Duration(d) * time.Second)
		}
	}
	w := &TimeWindow{Departure: dep.UTC().Format(time.RFC3339), Arrival: arr.UTC().Format(time.RFC3339)}
	if lv := steps[first].TransitDetails.V.LocalizedValues.V; lv != nil && lv.DepartureTime.V != nil {
		w.TimeZone = string(lv.DepartureTime.V.TimeZone)
	}
	return w, dep, arr, true
}

// requestedTimeStatus says how the itinerary relates to the time asked for.
func requestedTimeStatus(q *query, dep, arr time.Time, hasWindow bool) string {
	switch q.timeMode {
	case "depart_at":
		if hasWindow && dep.Before(q.at.Add(-timeTolerance)) {
			return statusNotMet
		}
		return statusHonored
	case "arrive_by":
		if hasWindow && arr.After(q.at.Add(timeTolerance)) {
			return statusNotMet
		}
		return statusHonored
	case "last_available":
		return statusNotSupported
	}
	return statusNow
}

// fareOf reads the fare: travelAdvisory.transitFare (google.type.Money) and its localized text.
func fareOf(r route) *fare {
	f := &fare{}
	if ta := r.TravelAdvisory.V; ta != nil && ta.TransitFare.V != nil {
		m := ta.TransitFare.V
		if m.CurrencyCode != "" && (m.Units.OK || m.Nanos.OK) {
			amount := math.Round((float64(m.Units.V)+float64(m.Nanos.V)/1e9)*100) / 100
			f.Currency, f.Amount = string(m.CurrencyCode), &amount
		}
	}
	if lv := r.LocalizedValues.V; lv != nil && lv.TransitFare.V != nil {
		f.Label = string(lv.TransitFare.V.Text)
	}
	if f.Amount == nil && f.Label == "" {
		return nil
	}
	return f
}

func title(i int, lines []string, it itinerary) string {
	t := "Walk"
	if len(lines) > 0 {
		t = strings.Join(lines, " → ")
	}
	if it.DurationLabel != "" {
		t += " · " + it.DurationLabel
	} else if it.DurationSeconds != nil {
		t += fmt.Sprintf(" · %d min", (*it.DurationSeconds+30)/60)
	}
	return fmt.Sprintf("Option %d: %s", i+1, t)
}

// snippet tells the rides in order: line, where and when to board, direction.
func snippet(segments []segment, it itinerary) string {
	var parts []string
	for _, s := range segments {
		if s.Mode != "transit" {
			continue
		}
		p := s.Line
		if p == "" {
			p = "Ride"
		}
		if s.DepartureStop != "" {
			p += " from " + s.DepartureStop
		}
		if s.DepartureLabel != "" {
			p += " at " + s.DepartureLabel
		}
		if s.Headsign != "" {
			p += " towards " + s.Headsign
		}
		parts = append(parts, p)
	}
	out := strings.Join(parts, "; ")
	if out == "" {
		out = "Walk the whole way"
	}
	var extra []string
	if it.Transfers != nil {
		switch *it.Transfers {
		case 0:
			extra = append(extra, "no transfer")
		case 1:
			extra = append(extra, "1 transfer")
		default:
			extra = append(extra, fmt.Sprintf("%d transfers", *it.Transfers))
		}
	}
	if it.DistanceLabel != "" {
		extra = append(extra, it.DistanceLabel)
	}
	if it.Fare != nil && it.Fare.Label != "" {
		extra = append(extra, "fare "+it.Fare.Label)
	}
	if len(extra) > 0 {
		out += " (" + strings.Join(extra, ", ") + ")"
	}
	return out + "."
}

// googleMapsURL opens the same trip in Google Maps (Maps URLs, travelmode=transit).
func googleMapsURL(q *query) string {
	v := url.Values{"api": {"1"}, "origin": {q.origin}, "destination": {q.destination}, "travelmode": {"transit"}}
	return "https://www.google.com/maps/dir/?" + v.Encode()
}

// seconds reads a protobuf Duration in JSON ("1234s", "12.5s") as whole seconds.
func seconds(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, "s") {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return int64(math.Round(f)), true
}

// rfc3339 normalizes a Timestamp to RFC 3339 UTC with seconds; "" when unreadable.
func rfc3339(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

package places

import (
	"encoding/json"
	"math"
	"net/url"
	"regexp"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// place is a Google Maps result as SerpApi answers it, in local_results[] of a search and in
// place_results of a place lookup. Fields of an unexpected type count as absent.
type place struct {
	Title       lenient.Str               `json:"title"`
	PlaceID     lenient.Str               `json:"place_id"`
	DataCID     lenient.ID                `json:"data_cid"`
	GPS         lenient.Obj[coordinates]  `json:"gps_coordinates"`
	Rating      lenient.Float             `json:"rating"`
	Reviews     lenient.Int               `json:"reviews"`
	Price       lenient.Str               `json:"price"`
	Type        json.RawMessage           `json:"type"` // a string in local results, a string[] in place results
	Types       lenient.List[lenient.Str] `json:"types"`
	Address     lenient.Str               `json:"address"`
	Phone       lenient.Str               `json:"phone"`
	Website     lenient.Str               `json:"website"`
	Description lenient.Str               `json:"description"`
	OpenState   lenient.Str               `json:"open_state"`
	// Hours is the open state text in local results, and [{day: hours}] in place results.
	Hours          json.RawMessage `json:"hours"`
	OperatingHours json.RawMessage `json:"operating_hours"` // {day: hours} in local results
	PlusCode       lenient.Str     `json:"plus_code"`
	ServiceOptions json.RawMessage `json:"service_options"` // {option: bool}
	Extensions     json.RawMessage `json:"extensions"`      // [{category: [values]}] in place results
}

type coordinates struct {
	Latitude  lenient.Float `json:"latitude"`
	Longitude lenient.Float `json:"longitude"`
}

// placeRef is a record's Ref: what the details lookup sends (place_id, else data_cid).
type placeRef struct {
	PlaceID string `json:"place_id,omitempty"`
	DataCID string `json:"data_cid,omitempty"`
}

var (
	placeIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{10,300}$`)
	cidPattern     = regexp.MustCompile(`^[0-9]{1,20}$`)
)

func (r placeRef) valid() bool {
	return placeIDPattern.MatchString(r.PlaceID) || cidPattern.MatchString(r.DataCID)
}

func decodePlace(raw json.RawMessage) (place, bool) {
	var p place
	if err := json.Unmarshal(raw, &p); err != nil {
		return place{}, false // not an object
	}
	return p, true
}

func (p place) ref() placeRef {
	r := placeRef{}
	if id := string(p.PlaceID); placeIDPattern.MatchString(id) {
		r.PlaceID = id
	}
	if cid := string(p.DataCID); cidPattern.MatchString(cid) {
		r.DataCID = cid
	}
	return r
}

// coords returns the result's position when both coordinates are present and in range.
func (p place) coords() (point, bool) {
	g := p.GPS.V
	if g == nil || !g.Latitude.OK || !g.Longitude.OK || math.Abs(g.Latitude.V) > 90 || math.Abs(g.Longitude.V) > 180 {
		return point{}, false
	}
	return point{g.Latitude.V, g.Longitude.V}, true
}

// rating returns the rating when it is a number out of 5.
func (p place) rating() (float64, bool) {
	return p.Rating.V, p.Rating.OK && p.Rating.V >= 0 && p.Rating.V <= 5
}

// kinds returns the main type and all types: type is a string (local results) or a list (place
// results, whose first entry is the main type); types, when present, is the full list.
func (p place) kinds() (string, []string) {
	var all []string
	var one string
	if json.Unmarshal(p.Type, &one) == nil {
		one = strings.TrimSpace(one)
	} else {
		var list lenient.List[lenient.Str]
		_ = json.Unmarshal(p.Type, &list)
		all = nonBlank(list)
	}
	if t := nonBlank(p.Types); len(t) > 0 {
		all = t
	}
	if one == "" && len(all) > 0 {
		one = all[0]
	}
	if len(all) == 0 && one != "" {
		all = []string{one}
	}
	return one, all
}

func nonBlank(in []lenient.Str) []string {
	var out []string
	for _, s := range in {
		if s != "" {
			out = append(out, string(s))
		}
	}
	return out
}

// openState is the open state text: open_state, else hours when it is a string (local results
// repeat the state there).
func (p place) openState() string {
	if p.OpenState != "" {
		return string(p.OpenState)
	}
	var s string
	if json.Unmarshal(p.Hours, &s) == nil {
		return strings.TrimSpace(s)
	}
	return ""
}

// isOpen reads Google Maps' English open state ("Open ⋅ Closes 11 PM", "Closes soon ⋅ 11 PM",
// "Open 24 hours", "Closed ⋅ Opens 7 AM Thu", "Opens soon ⋅ 9 AM", "Temporarily closed",
// "Permanently closed"); known is false for anything else.
func isOpen(state string) (open, known bool) {
	head := state
	if i := strings.IndexAny(state, "⋅·"); i >= 0 {
		head = state[:i]
	}
	head = strings.ToLower(strings.TrimSpace(head))
	switch {
	case strings.HasPrefix(head, "opens"), strings.HasPrefix(head, "closed"),
		strings.HasPrefix(head, "temporarily closed"), strings.HasPrefix(head, "permanently closed"):
		return false, true
	case strings.HasPrefix(head, "open"), strings.HasPrefix(head, "closes soon"), strings.HasPrefix(head, "closing soon"):
		return true, true
	}
	return false, false
}

var weekdays = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// weekly reads the opening hours, Monday first: operating_hours {day: hours} (local results) or
// hours [{day: hours}] / {day: hours} (place results). Unknown day names are ignored.
func (p place) weekly() []map[string]string {
	byDay := map[string]string{}
	for _, raw := range []json.RawMessage{p.OperatingHours, p.Hours} {
		var obj map[string]lenient.Str
		if json.Unmarshal(raw, &obj) == nil {
			for d, h := range obj {
				byDay[strings.ToLower(d)] = string(h)
			}
			continue
		}
		var list []map[string]lenient.Str
		if json.Unmarshal(raw, &list) == nil {
			for _, e := range list {
				for d, h := range e {
					byDay[strings.ToLower(d)] = string(h)
				}
			}
		}
	}
	var out []map[string]string
	for _, d := range weekdays {
		if h := byDay[d]; h != "" {
			out = append(out, map[string]string{"day": d, "hours": h})
		}
	}
	return out
}

// hoursText renders the weekly hours as one line: "Monday 7 AM–5 PM; Tuesday …".
func hoursText(week []map[string]string) string {
	parts := make([]string, 0, len(week))
	for _, e := range week {
		parts = append(parts, strings.ToUpper(e["day"][:1])+e["day"][1:]+" "+e["hours"])
	}
	return strings.Join(parts, "; ")
}

// mapsURL is the place's Google Maps page: the Maps URLs form with the place id, else the CID form.
func mapsURL(title string, r placeRef) string {
	switch {
	case r.PlaceID != "":
		return "https://www.google.com/maps/search/?api=1&query=" + url.QueryEscape(title) + "&query_place_id=" + r.PlaceID
	case r.DataCID != "":
		return "https://maps.google.com/?cid=" + r.DataCID
	}
	return ""
}

// webURL keeps an absolute http(s) URL, else "".
func webURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// placeRecord maps one Google Maps result; ok is false for a result without a title or one the
// request's filters drop (radius, min_rating, open_now).
func placeRecord(raw json.RawMessage, c criteria, fetched string) (providers.Record, bool) {
	p, ok := decodePlace(raw)
	if !ok || p.Title == "" {
		return providers.Record{}, false
	}
	pos, hasPos := p.coords()
	var dist float64
	if c.center != nil && hasPos {
		dist = distance(*c.center, pos)
	}
	if c.radius > 0 && (!hasPos || dist > c.radius) {
		return providers.Record{}, false // strict distance: farther, or not placed on the map
	}
	if r, ok := p.rating(); c.minRating > 0 && (!ok || r < c.minRating) {
		return providers.Record{}, false
	}
	state := p.openState()
	open, known := false, false
	if state != "" {
		open, known = isOpen(state)
	}
	if c.openNow != nil && (!known || open != *c.openNow) {
		return providers.Record{}, false
	}

	ref := p.ref()
	rec := providers.Record{
		Title:   string(p.Title),
		URL:     mapsURL(string(p.Title), ref),
		Snippet: string(p.Description),
	}
	typ, types := p.kinds()
	f := &PlaceRecord{Source: sourceName, FetchedAt: fetched, Address: string(p.Address), Phone: string(p.Phone),
		Website: webURL(string(p.Website)), PriceLevelLabel: string(p.Price), OpenState: state, Type: typ, Types: types}
	if week := p.weekly(); len(week) > 0 {
		f.Hours = hoursText(week)
	}
	if r, ok := p.rating(); ok {
		f.Rating = &r
	}
	if p.Reviews.OK && p.Reviews.V >= 0 {
		f.Reviews = &p.Reviews.V
	}
	if hasPos {
		f.Coordinates = &Coordinates{Lat: pos.lat, Lon: pos.lon}
		if c.center != nil {
			d := math.Round(dist*10) / 10
			f.DistanceM = &d
		}
	}
	if known {
		f.OpenNow = &open
	}
	rec.Data = f
	if ref.valid() {
		rec.Ref, _ = json.Marshal(ref)
	} else {
		rec.Actions = []string{} // nothing the place lookup could find it by
	}
	return rec, true
}

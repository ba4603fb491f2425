package places

import (
	"context"
	"encoding/json"
	"net/url"
	"sort"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// details is the record action: SerpApi's google_maps place answer (type=place) for the record's
// place_id, else its data_cid, localized like the search.
func details(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref placeRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil || !ref.valid() {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this record has no Google Maps place id, so it has no details")
	}
	q := url.Values{"type": {"place"}}
	if placeIDPattern.MatchString(ref.PlaceID) {
		q.Set("place_id", ref.PlaceID) // SerpApi refuses place_id and data_cid together
	} else {
		q.Set("data_cid", ref.DataCID)
	}
	localize(q, call.Request)
	var body struct {
		PlaceResults json.RawMessage `json:"place_results"`
	}
	meta, err := serpapi.Search(ctx, call, mapsEngine, q, &body)
	if err != nil {
		return nil, err
	}
	if meta.NoResults() {
		return nil, providers.Errorf(providers.CodeNotFound, "Google Maps has no place page for %s", rec.Title)
	}
	p, ok := decodePlace(body.PlaceResults)
	if !ok || p.Title == "" {
		return nil, providers.Errorf(providers.CodeNotFound, "Google Maps has no place page for %s", rec.Title)
	}
	d := placeDetail(p)
	page := mapsURL(string(p.Title), p.ref())
	if page == "" {
		page = rec.URL
	}
	var links []providers.Link
	if page != "" {
		links = append(links, providers.Link{Label: "Google Maps", URL: page})
	}
	if w := webURL(string(p.Website)); w != "" {
		links = append(links, providers.Link{Label: "Website", URL: w})
	}
	return &providers.Detail{Body: d, Links: links}, nil
}

// placeDetail builds the detail body: identity, contacts, hours, location and amenities; keys are
// left out when Google Maps does not supply them.
func placeDetail(p place) *PlaceDetail {
	r := p.ref()
	typ, types := p.kinds()
	d := &PlaceDetail{Title: string(p.Title), PlaceID: r.PlaceID, DataCID: r.DataCID, Type: typ, Types: types,
		Description: string(p.Description), PriceLevelLabel: string(p.Price), Amenities: amenities(p)}
	if r, ok := p.rating(); ok {
		d.Rating = &r
	}
	if p.Reviews.OK && p.Reviews.V >= 0 {
		d.Reviews = &p.Reviews.V
	}
	if c := (PlaceContacts{Phone: string(p.Phone), Website: webURL(string(p.Website))}); c != (PlaceContacts{}) {
		d.Contacts = &c
	}
	hours := PlaceHours{OpenState: p.openState(), Weekly: p.weekly()}
	if hours.OpenState != "" {
		if open, known := isOpen(hours.OpenState); known {
			hours.OpenNow = &open
		}
	}
	if hours.OpenState != "" || len(hours.Weekly) > 0 {
		d.Hours = &hours
	}
	location := PlaceLocation{Address: string(p.Address), PlusCode: string(p.PlusCode)}
	if pos, ok := p.coords(); ok {
		location.Coordinates = &Coordinates{Lat: pos.lat, Lon: pos.lon}
	}
	if location != (PlaceLocation{}) {
		d.Location = &location
	}
	return d
}

// PlaceDetail is the details body of a place; keys are left out when Google Maps does not supply
// them. Fields are declared in key order (a detail is written by encoding/json, which keeps the
// declared order).
type PlaceDetail struct {
	// Amenities is keyed by Google's own extension categories (free-form), plus service_options.
	Amenities       map[string][]string `json:"amenities,omitempty"`
	Contacts        *PlaceContacts      `json:"contacts,omitempty"`
	DataCID         string              `json:"data_cid,omitempty"`
	Description     string              `json:"description,omitempty"`
	Hours           *PlaceHours         `json:"hours,omitempty"`
	Location        *PlaceLocation      `json:"location,omitempty"`
	PlaceID         string              `json:"place_id,omitempty"`
	PriceLevelLabel string              `json:"price_level_label,omitempty"`
	Rating          *float64            `json:"rating,omitempty"`
	Reviews         *int64              `json:"reviews,omitempty"`
	Title           string              `json:"title"`
	Type            string              `json:"type,omitempty"`
	Types           []string            `json:"types,omitempty"`
}

// PlaceContacts are a place's phone and website.
type PlaceContacts struct {
	Phone   string `json:"phone,omitempty"`
	Website string `json:"website,omitempty"`
}

// PlaceHours are a place's opening state and weekly hours.
type PlaceHours struct {
	OpenNow   *bool               `json:"open_now,omitempty"`
	OpenState string              `json:"open_state,omitempty"`
	Weekly    []map[string]string `json:"weekly,omitempty"`
}

// PlaceLocation is where a place is.
type PlaceLocation struct {
	Address     string       `json:"address,omitempty"`
	Coordinates *Coordinates `json:"coordinates,omitempty"`
	PlusCode    string       `json:"plus_code,omitempty"`
}

// amenities reads extensions ([{category: [values]}], or {category: [values]}) and adds the
// service options marked true ({dine_in: true, delivery: false} → service_options: [dine_in]) when
// extensions do not list them already.
func amenities(p place) map[string][]string {
	out := map[string][]string{}
	add := func(cat string, vals []lenient.Str) {
		cat = strings.ToLower(strings.TrimSpace(cat))
		if v := nonBlank(vals); cat != "" && len(v) > 0 {
			out[cat] = append(out[cat], v...)
		}
	}
	var list []map[string]lenient.List[lenient.Str]
	var obj map[string]lenient.List[lenient.Str]
	if json.Unmarshal(p.Extensions, &list) == nil {
		for _, e := range list {
			for cat, vals := range e {
				add(cat, vals)
			}
		}
	} else if json.Unmarshal(p.Extensions, &obj) == nil {
		for cat, vals := range obj {
			add(cat, vals)
		}
	}
	if _, listed := out["service_options"]; !listed {
		var opts map[string]lenient.Bool
		if json.Unmarshal(p.ServiceOptions, &opts) == nil {
			var on []string
			for k, v := range opts {
				if v.OK && v.V {
					on = append(on, k)
				}
			}
			sort.Strings(on)
			if len(on) > 0 {
				out["service_options"] = on
			}
		}
	}
	return out
}

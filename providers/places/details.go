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
func placeDetail(p place) map[string]any {
	d := map[string]any{"title": string(p.Title)}
	r := p.ref()
	lenient.SetStr(d, "place_id", r.PlaceID)
	lenient.SetStr(d, "data_cid", r.DataCID)
	typ, types := p.kinds()
	lenient.SetStr(d, "type", typ)
	if len(types) > 0 {
		d["types"] = types
	}
	lenient.SetStr(d, "description", string(p.Description))
	lenient.SetStr(d, "price_level_label", string(p.Price))
	if r, ok := p.rating(); ok {
		d["rating"] = r
	}
	if p.Reviews.OK && p.Reviews.V >= 0 {
		d["reviews"] = p.Reviews.V
	}

	contacts := map[string]any{}
	lenient.SetStr(contacts, "phone", string(p.Phone))
	lenient.SetStr(contacts, "website", webURL(string(p.Website)))
	if len(contacts) > 0 {
		d["contacts"] = contacts
	}

	hours := map[string]any{}
	if state := p.openState(); state != "" {
		hours["open_state"] = state
		if open, known := isOpen(state); known {
			hours["open_now"] = open
		}
	}
	if week := p.weekly(); len(week) > 0 {
		hours["weekly"] = week
	}
	if len(hours) > 0 {
		d["hours"] = hours
	}

	location := map[string]any{}
	lenient.SetStr(location, "address", string(p.Address))
	lenient.SetStr(location, "plus_code", string(p.PlusCode))
	if pos, ok := p.coords(); ok {
		location["coordinates"] = map[string]any{"lat": pos.lat, "lon": pos.lon}
	}
	if len(location) > 0 {
		d["location"] = location
	}

	if a := amenities(p); len(a) > 0 {
		d["amenities"] = a
	}
	return d
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

package providers

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"
)

// SandboxNote is the note every test-mode answer carries: what comes back is synthetic.
const SandboxNote = "Test mode: a synthetic answer in the upstream's shape, consistent with the request " +
	"(places, names, filters, order, paging, dates) but not real-world data."

// Clone is a deep copy of a decoded JSON value (a record template to fill).
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, c := range x {
			m[k] = Clone(c)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, c := range x {
			a[i] = Clone(c)
		}
		return a
	}
	return v
}

// Templates are the objects of a recorded list (the records a generator copies the shape of).
func Templates(v any) []map[string]any {
	arr, _ := v.([]any)
	var out []map[string]any
	for _, x := range arr {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// FromTemplate is a deep copy of the i-th template (cycling), nil when there is none.
func FromTemplate(ts []map[string]any, i int) map[string]any {
	if len(ts) == 0 {
		return nil
	}
	return Clone(ts[i%len(ts)]).(map[string]any)
}

// Num is a JSON number of a float, rounded to decimals.
func Num(f float64, decimals int) json.Number {
	p := math.Pow(10, float64(decimals))
	return json.Number(fmt.Sprint(math.Round(f*p) / p))
}

// NumOf reads a decoded JSON number (json.Number, float64 or int); ok false otherwise.
func NumOf(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

var (
	nameAdjectives = []string{"Grand", "Royal", "Central", "Old Town", "Riverside", "Garden", "Harbour", "Park", "Golden",
		"Blue", "Silver", "Green", "Sunset", "North", "Market", "Station", "Cathedral", "Boulevard", "Hillside", "Lantern"}
	nameNouns = []string{"Palace", "House", "Lodge", "Inn", "Suites", "Residence", "Court", "Gardens", "Tower", "Terrace",
		"Corner", "Square", "Quarter", "View", "Hall", "Yard", "Works", "Studio", "Collective", "Table"}
	firstNames = []string{"Ana", "Ben", "Chloé", "Dmitri", "Elif", "Farah", "Goran", "Hana", "Ines", "Jonas", "Kofi",
		"Lena", "Mateo", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tomás", "Uma", "Viktor", "Wen", "Yara"}
	lastNames = []string{"Almeida", "Berg", "Costa", "Dubois", "Eriksen", "Fischer", "García", "Hoffmann", "Ito", "Jensen",
		"Kowalski", "Larsen", "Moreau", "Novak", "Okafor", "Petrov", "Quinn", "Rossi", "Schmidt", "Tanaka", "Ueda", "Varga"}
)

// SynthName is a made-up but plausible name: "<Adjective> <Noun>" optionally with a suffix (the
// kind: Hotel, Café…), the same for the same seed and index, and different for the indices
// 0 to 399 of one seed.
func SynthName(seed string, i int, suffix string) string {
	h := int(SeedOf("name", seed).Uint32() % 400)
	na, nn := len(nameAdjectives), len(nameNouns)
	n := nameAdjectives[(h+i)%na] + " " + nameNouns[(h/na+7*i+i/na)%nn]
	if suffix != "" {
		n += " " + suffix
	}
	return n
}

// SynthPerson is a made-up person's name, the same for the same seed and index.
func SynthPerson(seed string, i int) string {
	r := SeedOf("person", seed, fmt.Sprint(i))
	return firstNames[r.IntN(len(firstNames))] + " " + lastNames[r.IntN(len(lastNames))]
}

// Slug is a lower-case, dash-separated form of a name, for made-up URLs and ids.
func Slug(s string) string {
	f := foldName(s)
	return strings.ReplaceAll(f, " ", "-")
}

// Rand is a seeded source for a generator's values (SeedOf with the parts).
func Rand(parts ...string) *rand.Rand { return SeedOf(parts...) }

// NearestAirport is the gazetteer's airport nearest to a point, with its distance in km.
func NearestAirport(lat, lon float64) (SandboxPlace, float64) {
	g := loadGazetteer()
	best, bestD := SandboxPlace{}, math.Inf(1)
	for _, p := range g.places {
		if p.IATA == "" {
			continue
		}
		if d := DistanceKm(lat, lon, p.Lat, p.Lon); d < bestD {
			best, bestD = p, d
		}
	}
	return best, bestD
}

// Hubs are large airports between two others (for connecting flights): the airports of the
// gazetteer's largest cities whose detour is at most 35% of the direct distance, best first.
func Hubs(from, to SandboxPlace, n int) []SandboxPlace {
	g := loadGazetteer()
	direct := DistanceKm(from.Lat, from.Lon, to.Lat, to.Lon)
	type hub struct {
		p      SandboxPlace
		detour float64
	}
	var hs []hub
	for _, p := range g.places {
		if p.IATA == "" || p.IATA == from.IATA || p.IATA == to.IATA || !strings.Contains(p.Name, "International") {
			continue
		}
		d1, d2 := DistanceKm(from.Lat, from.Lon, p.Lat, p.Lon), DistanceKm(p.Lat, p.Lon, to.Lat, to.Lon)
		if d1 < 150 || d2 < 150 {
			continue
		}
		if det := d1 + d2 - direct; det <= 0.35*direct+200 {
			hs = append(hs, hub{p, det})
		}
	}
	// The least detour first; ties by code.
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].detour != hs[j].detour {
			return hs[i].detour < hs[j].detour
		}
		return hs[i].p.IATA < hs[j].p.IATA
	})
	var out []SandboxPlace
	for _, h := range hs {
		if len(out) == n {
			break
		}
		out = append(out, h.p)
	}
	return out
}

// climateTable is the yearly mean temperature (°C) and half the yearly swing by latitude, every
// 10 degrees from the equator (rounded zonal means; coasts and mountains differ).
var climateTable = [][2]float64{{27, 1}, {26, 2.5}, {25, 4}, {20, 7}, {15, 9}, {10, 10}, {5, 10}, {-5, 12}, {-15, 15}, {-25, 16}}

// Climate is the sandbox's plausible weather for a place and day: a daily mean temperature in
// °C from latitude and the day of the year (warmest mid-July in the north, mid-January in the
// south; the yearly swing grows with latitude), and the day's range between low and high.
func Climate(lat float64, day time.Time) (mean, daily float64) {
	a := math.Min(math.Abs(lat), 89.99) / 10
	i, f := int(a), a-math.Floor(a)
	annual := climateTable[i][0]*(1-f) + climateTable[i+1][0]*f
	amp := climateTable[i][1]*(1-f) + climateTable[i+1][1]*f
	season := math.Cos(2 * math.Pi * float64(day.YearDay()-196) / 365.25) // 1 on 15 July
	if lat < 0 {
		season = -season
	}
	return annual + amp*season, 6 + 0.05*math.Abs(lat)
}

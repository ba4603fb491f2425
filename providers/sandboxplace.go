package providers

import (
	"fmt"
	"math"
	"strings"
)

// SandboxPlace is a place as the sandbox's geocoders answer it: a few well-known places at their
// real coordinates, any other name at a position derived from the name (deterministic).
type SandboxPlace struct {
	Name        string
	Country     string
	CountryCode string
	Lat, Lon    float64
	Timezone    string
	// UTCOffset is the offset of Timezone in seconds.
	UTCOffset int
}

var knownPlaces = map[string]SandboxPlace{
	"paris":     {"Paris", "France", "FR", 48.85341, 2.3488, "Europe/Paris", 3600},
	"lisbon":    {"Lisbon", "Portugal", "PT", 38.72509, -9.1498, "Europe/Lisbon", 0},
	"porto":     {"Porto", "Portugal", "PT", 41.14961, -8.61099, "Europe/Lisbon", 0},
	"berlin":    {"Berlin", "Germany", "DE", 52.52437, 13.41053, "Europe/Berlin", 3600},
	"madrid":    {"Madrid", "Spain", "ES", 40.4165, -3.70256, "Europe/Madrid", 3600},
	"london":    {"London", "United Kingdom", "GB", 51.50853, -0.12574, "Europe/London", 0},
	"tokyo":     {"Tokyo", "Japan", "JP", 35.6895, 139.69171, "Asia/Tokyo", 32400},
	"kyoto":     {"Kyoto", "Japan", "JP", 35.02107, 135.75385, "Asia/Tokyo", 32400},
	"new york":  {"New York", "United States", "US", 40.71427, -74.00597, "America/New_York", -18000},
	"seattle":   {"Seattle", "United States", "US", 47.60621, -122.33207, "America/Los_Angeles", -28800},
	"zürich":    {"Zürich", "Switzerland", "CH", 47.36667, 8.55, "Europe/Zurich", 3600},
	"são paulo": {"São Paulo", "Brazil", "BR", -23.5475, -46.63611, "America/Sao_Paulo", -10800},
	"hamburg":   {"Hamburg", "Germany", "DE", 53.55073, 9.99302, "Europe/Berlin", 3600},
	"potsdam":   {"Potsdam", "Germany", "DE", 52.39886, 13.06566, "Europe/Berlin", 3600},
	"leipzig":   {"Leipzig", "Germany", "DE", 51.33962, 12.37129, "Europe/Berlin", 3600},
}

// PlaceNamed geocodes a name in the sandbox; ok is false for the reserved miss (Nowhere).
func PlaceNamed(name string) (SandboxPlace, bool) {
	name = strings.TrimSpace(name)
	if name == "" || IsSandboxMiss(name) {
		return SandboxPlace{}, false
	}
	key := strings.ToLower(name)
	if head, _, ok := strings.Cut(key, ","); ok {
		key = strings.TrimSpace(head)
	}
	if p, ok := knownPlaces[key]; ok {
		return p, true
	}
	r := SeedOf("place", key)
	lat := math.Round((r.Float64()*110-45)*1e5) / 1e5
	lon := math.Round((r.Float64()*340-170)*1e5) / 1e5
	return PlaceAt(TitleCase(strings.Split(name, ",")[0]), lat, lon), true
}

// PlaceAt is the sandbox's place at coordinates (reverse geocoding, coordinates given by a
// caller): a timezone of whole hours from the longitude.
func PlaceAt(name string, lat, lon float64) SandboxPlace {
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

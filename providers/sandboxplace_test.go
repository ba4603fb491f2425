package providers

import (
	"math"
	"testing"
	"time"
)

func TestGazetteerPlaces(t *testing.T) {
	cases := []struct {
		name, want, country string
		known               bool
	}{
		{"Reykjavik", "Reykjavík", "IS", true},
		{"Rome, Italy", "Rome", "IT", true},
		{"rome, it", "Rome", "IT", true},
		{"Paris", "Paris", "FR", true},
		{"Sao Paulo", "São Paulo", "BR", true},
		{"New York", "New York City", "US", true},
		{"JFK", "John F Kennedy International Airport, New York", "US", true},
		{"Rua Augusta, Lisbon", "Lisbon", "PT", true},
		{"nice hotels in Rome", "Rome", "IT", true},
		{"Quixote Springs", "Quixote Springs", "XX", false},
		{"ramen near Shibuya", "Ramen Near Shibuya", "XX", false},
	}
	for _, c := range cases {
		p, ok := PlaceNamed(c.name)
		if !ok || p.Name != c.want || p.CountryCode != c.country || p.Known != c.known {
			t.Errorf("PlaceNamed(%q) = %+v, want %s (%s, known %v)", c.name, p, c.want, c.country, c.known)
		}
	}
	if _, ok := PlaceNamed(SandboxMissPlace); ok {
		t.Error("Nowhere geocodes")
	}
	if p, ok := PlaceIn("ramen near Kyoto"); !ok || p.Name != "Kyoto" {
		t.Errorf("PlaceIn: %+v", p)
	}
	if got := PlacePhrase("ramen near Shibuya"); got != "Shibuya" {
		t.Errorf("PlacePhrase = %q", got)
	}
	paris, _ := PlaceNamed("Paris")
	marseille, _ := PlaceNamed("Marseille")
	if d := DistanceKm(paris.Lat, paris.Lon, marseille.Lat, marseille.Lon); math.Abs(d-661) > 10 {
		t.Errorf("Paris–Marseille %.0f km", d)
	}
	lat, lon := Destination(paris.Lat, paris.Lon, 100, 90)
	if d := DistanceKm(paris.Lat, paris.Lon, lat, lon); math.Abs(d-100) > 0.5 {
		t.Errorf("Destination: %.2f km", d)
	}
	for i := range 50 {
		lat, lon := Scatter("x", i, paris.Lat, paris.Lon, 5)
		if d := DistanceKm(paris.Lat, paris.Lon, lat, lon); d > 5.01 {
			t.Errorf("Scatter %d: %.2f km", i, d)
		}
	}
}

func TestClimate(t *testing.T) {
	nov := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	jan := time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC)
	jul := time.Date(2026, 7, 15, 0, 0, 0, 0, time.UTC)
	reykjavik, singapore, sydney := 64.1, 1.3, -33.9
	if r, _ := Climate(reykjavik, nov); r > 5 {
		t.Errorf("Reykjavik in November: %.1f °C", r)
	}
	if s, _ := Climate(singapore, nov); s < 24 {
		t.Errorf("Singapore in November: %.1f °C", s)
	}
	sj, _ := Climate(sydney, jan)
	sl, _ := Climate(sydney, jul)
	if sj <= sl+5 {
		t.Errorf("Sydney: January %.1f °C, July %.1f °C", sj, sl)
	}
}

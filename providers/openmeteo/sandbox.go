package openmeteo

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// The sandbox answers any place and any coordinates (issue 18): the geocoder places any name but
// the reserved miss Nowhere, and the forecast, air-quality and marine answers are the recorded
// ones moved to the requested point, days and units, with values drawn from the request's seed.
func init() {
	providers.RegisterGenerators(ProviderGeocoding, providers.GeneratedRoute{Path: "/v1/search", Generate: generateGeocoding})
	providers.RegisterGenerators(ProviderForecast, providers.GeneratedRoute{Path: "/v1/forecast", Generate: generateForecast})
	providers.RegisterGenerators(ProviderAirQuality, providers.GeneratedRoute{Path: "/v1/air-quality", Generate: generateAt})
	providers.RegisterGenerators(ProviderMarine, providers.GeneratedRoute{Path: "/v1/marine", Generate: generateForecast})
}

func generateGeocoding(r *http.Request, fixture []byte, status int) ([]byte, int) {
	name := r.URL.Query().Get("name")
	if placeKey(name) == "berlin" {
		return fixture, status // the recorded answer
	}
	p, ok := providers.PlaceNamed(name)
	if !ok {
		return []byte(`{"generationtime_ms":0.13756752}`), http.StatusOK
	}
	doc := providers.JSONObject(fixture)
	res, _ := doc["results"].([]any)
	if len(res) == 0 {
		b, _ := sandboxFS.ReadFile("sandbox/geocoding_berlin.json")
		doc = providers.JSONObject(b)
		res, _ = doc["results"].([]any)
	}
	g := res[0].(map[string]any)
	rnd := providers.SeedOf("geocoding", p.Name)
	g["id"] = 1000000 + rnd.IntN(8000000)
	g["name"], g["admin1"], g["admin3"], g["admin4"] = p.Name, p.Name, p.Name, p.Name
	g["latitude"], g["longitude"] = p.Lat, p.Lon
	g["country"], g["country_code"], g["timezone"] = p.Country, p.CountryCode, p.Timezone
	g["elevation"] = float64(rnd.IntN(900))
	g["population"] = 1000 + rnd.IntN(3000000)
	if p.Population > 0 {
		g["population"] = p.Population
	}
	doc["results"] = []any{g}
	return providers.JSONBytes(doc), http.StatusOK
}

// pointOf reads latitude and longitude of a request and the place the sandbox puts there.
func pointOf(r *http.Request) (providers.SandboxPlace, bool) {
	lat, err1 := strconv.ParseFloat(r.URL.Query().Get("latitude"), 64)
	lon, err2 := strconv.ParseFloat(r.URL.Query().Get("longitude"), 64)
	if err1 != nil || err2 != nil {
		return providers.SandboxPlace{}, false
	}
	return providers.PlaceAt("", lat, lon), true
}

// generateAt moves an answer to the requested point and its timezone, and draws its values.
func generateAt(r *http.Request, fixture []byte, status int) ([]byte, int) {
	doc := providers.JSONObject(fixture)
	p, ok := pointOf(r)
	if doc == nil || !ok || status != http.StatusOK || recordedAt(doc, p) {
		return fixture, status
	}
	doc["latitude"], doc["longitude"] = math.Round(p.Lat*1e4)/1e4, math.Round(p.Lon*1e4)/1e4
	doc["timezone"], doc["utc_offset_seconds"] = p.Timezone, p.UTCOffset
	doc["timezone_abbreviation"] = fmt.Sprintf("GMT%+d", p.UTCOffset/3600)
	rnd := providers.SandboxRand(r)
	now := time.Now().UTC().Add(time.Duration(p.UTCOffset) * time.Second)
	fahrenheit := r.URL.Query().Get("temperature_unit") == "fahrenheit"
	if cur, ok := doc["current"].(map[string]any); ok {
		cur["time"] = now.Truncate(15 * time.Minute).Format("2006-01-02T15:04")
		mean, swing := providers.Climate(p.Lat, now)
		// The day's cycle: coolest near 05:00, warmest near 15:00 local time.
		hour := float64(now.Hour()) + float64(now.Minute())/60
		t := mean + swing/2*math.Cos(2*math.Pi*(hour-15)/24) + (rnd.Float64()-0.5)*2
		for _, k := range slices.Sorted(maps.Keys(cur)) {
			switch {
			case k == "time" || k == "interval":
			case isTemperature(k):
				cur[k] = temperature(t+(rnd.Float64()-0.5)*2, fahrenheit)
			default:
				cur[k] = bounded(k, jitter(cur[k], rnd.Float64()))
			}
		}
		snowy(cur, t)
	}
	return providers.JSONBytes(doc), http.StatusOK
}

// generateForecast is generateAt plus a daily series that starts today at the place and holds
// forecast_days days (the recorded series, repeated and varied, gives the values).
func generateForecast(r *http.Request, fixture []byte, status int) ([]byte, int) {
	out, st := generateAt(r, fixture, status)
	doc := providers.JSONObject(out)
	p, ok := pointOf(r)
	daily, _ := doc["daily"].(map[string]any)
	if !ok || daily == nil || st != http.StatusOK || recordedAt(providers.JSONObject(fixture), p) {
		return out, st
	}
	days, err := strconv.Atoi(r.URL.Query().Get("forecast_days"))
	if err != nil || days < 1 {
		days = 7
	}
	rnd := providers.SandboxRand(r, 1)
	fahrenheit := r.URL.Query().Get("temperature_unit") == "fahrenheit"
	today := time.Now().UTC().Add(time.Duration(p.UTCOffset) * time.Second)
	for _, k := range slices.Sorted(maps.Keys(daily)) {
		arr, _ := daily[k].([]any)
		if len(arr) == 0 {
			continue
		}
		next := make([]any, days)
		for i := range next {
			day := today.AddDate(0, 0, i)
			d := day.Format("2006-01-02")
			src := arr[(i+rnd.IntN(3))%len(arr)]
			mean, swing := providers.Climate(p.Lat, day)
			mean += (providers.SeedOf("day", fmt.Sprint(p.Lat, p.Lon), d).Float64() - 0.5) * 4
			switch {
			case k == "time":
				next[i] = d
			case k == "sunrise" || k == "sunset":
				rise, set, ok := sunTimes(p, day)
				if s, isStr := src.(string); !ok || !isStr || len(s) < 10 {
					next[i] = src
				} else if k == "sunrise" {
					next[i] = d + "T" + rise
				} else {
					next[i] = d + "T" + set
				}
			case strings.HasSuffix(k, "_max") && isTemperature(k):
				next[i] = temperature(mean+swing/2, fahrenheit)
			case strings.HasSuffix(k, "_min") && isTemperature(k):
				next[i] = temperature(mean-swing/2, fahrenheit)
			case isTemperature(k):
				next[i] = temperature(mean, fahrenheit)
			case k == "weather_code":
				next[i] = snowCode(src, mean+swing/2)
			default:
				next[i] = bounded(k, jitter(src, rnd.Float64()))
			}
		}
		daily[k] = next
	}
	return providers.JSONBytes(doc), http.StatusOK
}

// recordedAt tells whether the recorded answer is for the requested point (then it is answered
// as recorded: the examples and their golden files).
func recordedAt(doc map[string]any, p providers.SandboxPlace) bool {
	lat, err1 := numberOf(doc["latitude"])
	lon, err2 := numberOf(doc["longitude"])
	return err1 == nil && err2 == nil && math.Abs(lat-p.Lat) < 0.1 && math.Abs(lon-p.Lon) < 0.1
}

func numberOf(v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("not a number")
	}
	return n.Float64()
}

// bounded keeps percentages (humidity, precipitation probability) at most 100.
func bounded(key string, v any) any {
	if n, ok := v.(int64); ok && n > 100 && (strings.Contains(key, "humidity") || strings.Contains(key, "probability")) {
		return int64(100)
	}
	return v
}

// jitter varies a recorded number by up to ±20 %, keeping integers integral and nulls null.
func jitter(v any, f float64) any {
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	x, err := n.Float64()
	if err != nil {
		return v
	}
	y := x * (0.8 + 0.4*f)
	if _, err := n.Int64(); err == nil {
		return int64(math.Round(y))
	}
	return math.Round(y*10) / 10
}

// isTemperature tells whether an Open-Meteo variable is a temperature (°C or °F by the request).
func isTemperature(k string) bool {
	return strings.Contains(k, "temperature") || strings.HasPrefix(k, "dew_point")
}

// temperature is a value in °C, converted to °F when asked, with one decimal as Open-Meteo gives.
func temperature(c float64, fahrenheit bool) json.Number {
	if fahrenheit {
		c = c*9/5 + 32
	}
	return providers.Num(c, 1)
}

// snowCode turns a rain weather code into the snow code of the same strength when the day's
// highest temperature is below freezing (WMO codes: 61/63/65 rain, 71/73/75 snow; 80–82 showers, 85/86 snow showers).
func snowCode(v any, maxC float64) any {
	n, ok := v.(json.Number)
	if !ok || maxC >= 0 {
		return v
	}
	c, err := n.Int64()
	if err != nil {
		return v
	}
	switch {
	case c >= 61 && c <= 65:
		return json.Number(strconv.FormatInt(c+10, 10))
	case c >= 80 && c <= 82:
		return json.Number("85")
	}
	return v
}

// snowy makes the current weather code snow when it rains below freezing.
func snowy(cur map[string]any, c float64) {
	if v, ok := cur["weather_code"]; ok {
		cur["weather_code"] = snowCode(v, c)
	}
}

// sunTimes are the local sunrise and sunset ("15:04") at a place on a day, from the solar
// declination (ok false in polar day or night: Open-Meteo then gives the recorded shape).
func sunTimes(p providers.SandboxPlace, day time.Time) (rise, set string, ok bool) {
	rad := math.Pi / 180
	decl := -23.44 * math.Cos(2*math.Pi*float64(day.YearDay()+10)/365) * rad
	x := -math.Tan(p.Lat*rad) * math.Tan(decl)
	if x <= -1 || x >= 1 {
		return "", "", false
	}
	half := math.Acos(x) / rad / 15 // hours from solar noon
	noon := 12 - p.Lon/15 + float64(p.UTCOffset)/3600
	clock := func(h float64) string {
		h = math.Mod(h+24, 24)
		m := int(math.Round(h * 60))
		return fmt.Sprintf("%02d:%02d", (m/60)%24, m%60)
	}
	return clock(noon - half), clock(noon + half), true
}

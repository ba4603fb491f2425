package openmeteo

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
)

const weatherForecastSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "weather.forecast request",
  "type": "object",
  "additionalProperties": false,
  "required": ["location"],
  "properties": {
    "location": {
      "description": "Where to forecast: a place name (geocoded to its best match; an unknown place is refused at /location) or WGS84 coordinates {lat, lon}.",
      "oneOf": [
        {
          "type": "string",
          "minLength": 1,
          "maxLength": 200,
          "pattern": "\\S",
          "description": "A place name or postal code, for example \"Berlin\" or \"10967\". The first geocoding match is used; give coordinates to pick another place of the same name."
        },
        {
          "type": "object",
          "description": "Coordinates in decimal degrees (WGS84).",
          "properties": {
            "lat": {"type": "number", "minimum": -90, "maximum": 90, "description": "Latitude in decimal degrees, -90 to 90."},
            "lon": {"type": "number", "minimum": -180, "maximum": 180, "description": "Longitude in decimal degrees, -180 to 180."}
          },
          "required": ["lat", "lon"],
          "additionalProperties": false
        }
      ]
    },
    "days": {
      "type": "integer",
      "minimum": 1,
      "maximum": 16,
      "default": 3,
      "description": "Number of forecast days, starting today (local time of the location): one daily[] entry per day."
    },
    "units": {
      "type": "string",
      "enum": ["metric", "imperial"],
      "default": "metric",
      "description": "metric: °C, km/h, mm. imperial: °F, mph, inch. The record's units object names the labels used."
    },
    "include": {
      "type": "array",
      "items": {"type": "string", "enum": ["air_quality", "marine"]},
      "maxItems": 2,
      "uniqueItems": true,
      "description": "Extras: air_quality adds a current air-quality snapshot; marine adds daily wave maxima near a coast. An extra without data for the location is left out with a note."
    }
  }
}`

// WeatherForecast is weather.forecast (spec 4.16).
var WeatherForecast = &providers.Capability{
	ID:      "weather.forecast",
	Fresh:   10 * time.Minute,
	Title:   "Weather forecast",
	Summary: "Current conditions and a daily forecast of 1 to 16 days for a place or coordinates, with optional air quality and ocean waves.",
	Description: "One record for the location: current conditions (time, conditions, temperature, feels_like, humidity, wind, precipitation), " +
		"daily[] with one entry per requested day (date, conditions, high, low, precipitation, precipitation_chance, wind_max, uv_index_max, sunrise, sunset), " +
		"location {name, lat, lon, timezone, elevation_m}, the unit labels in units {temperature, wind, precipitation}, and the attribution and CC BY 4.0 license of the data. " +
		"Times are local to the location. conditions are the WMO weather-code descriptions. " +
		"include air_quality adds air_quality, a current snapshot (European and US AQI, PM2.5, PM10, ozone), not a forecast; " +
		"include marine adds marine[], the daily maximum wave height (m), dominant wave direction (°) and maximum wave period (s), only near a coast. " +
		"Keys without a value are left out. Data by Open-Meteo.com (CC BY 4.0). Single result: no more, no update, no record actions. " +
		"Unless the deployment has an Open-Meteo commercial key, the free API is used, which Open-Meteo offers for non-commercial use only.",
	Topic:    "Travel and places",
	Request:  weatherForecastSchema,
	Paging:   providers.PagingSingle,
	NoUpdate: true,
	Cost: providers.Cost{Typical: 0,
		Basis: "Free: Open-Meteo's forecast, geocoding, air-quality and marine APIs cost nothing per call. Without " + KeySetting +
			" the gateway calls the free API (non-commercial use, at most 600 calls a minute, 5,000 an hour and 10,000 a day for the four APIs together); " +
			"with it, the commercial customer- hosts."},
	Deadline:  15 * time.Second,
	Providers: []string{ProviderForecast, ProviderGeocoding},
	Examples: []providers.Example{
		{Title: "Three-day forecast for a city with its current air quality",
			Body: map[string]any{"location": "Berlin", "include": []any{"air_quality"}}},
		{Title: "Five days in imperial units for coordinates on the coast, with waves",
			Body: map[string]any{"location": map[string]any{"lat": 38.6979, "lon": -9.4215}, "days": 5, "units": "imperial",
				"include": []any{"marine"}}},
		{Title: "A week inland; marine is left out with a note",
			Body: map[string]any{"location": "Berlin", "days": 7, "include": []any{"marine"}}},
	},
	Execute: executeForecast,
}

// Attribution Open-Meteo asks for next to its data (open-meteo.com/en/license).
const (
	attribution = "Weather data by Open-Meteo.com"
	sourceURL   = "https://open-meteo.com/"
	license     = "CC BY 4.0"
	licenseURL  = "https://creativecommons.org/licenses/by/4.0/"

	airQualityAttribution = "Air quality data by Open-Meteo.com (CC BY 4.0), generated using Copernicus Atmosphere Monitoring Service information; " +
		"neither the European Commission nor ECMWF is responsible for any use that may be made of the information it contains."
	airQualitySourceURL     = "https://open-meteo.com/en/docs/air-quality-api"
	airQualityDataSourceURL = "https://atmosphere.copernicus.eu/"
)

// The variables asked of each API.
const (
	currentVariables = "temperature_2m,relative_humidity_2m,apparent_temperature,precipitation,weather_code,wind_speed_10m"
	dailyVariables   = "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max," +
		"wind_speed_10m_max,uv_index_max,sunrise,sunset"
	airQualityVariables = "european_aqi,us_aqi,pm2_5,pm10,ozone"
	marineVariables     = "wave_height_max,wave_direction_dominant,wave_period_max"
)

// forecastQuery is a validated weather.forecast body.
type forecastQuery struct {
	place      string // "" when coordinates were given
	lat, lon   float64
	days       int
	imperial   bool
	airQuality bool
	marine     bool
}

func parseForecastQuery(req providers.Request) (forecastQuery, error) {
	q := forecastQuery{days: 3, imperial: req.Str("units") == "imperial"}
	if n, ok := req.Int("days"); ok {
		q.days = n
	}
	if s, ok := req.String("location"); ok {
		if q.place = strings.TrimSpace(s); q.place == "" {
			return q, providers.InvalidField("/location", "location must not be blank")
		}
	} else if obj, ok := req.Object("location"); ok {
		lat, okLat := obj.Float("lat")
		lon, okLon := obj.Float("lon")
		if !okLat || !okLon {
			return q, providers.InvalidField("/location", "location needs numeric lat and lon")
		}
		q.lat, q.lon = lat, lon
	} else {
		return q, providers.InvalidField("/location", "location must be a place name or {lat, lon}")
	}
	for _, inc := range req.Strings("include") {
		switch inc {
		case "air_quality":
			q.airQuality = true
		case "marine":
			q.marine = true
		}
	}
	return q, nil
}

// addOn is the outcome of an optional extra: its record value, or the note explaining its absence.
type addOn struct {
	value any
	note  string
}

func executeForecast(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	q, err := parseForecastQuery(call.Request)
	if err != nil {
		return nil, err
	}
	var notes []string
	loc := place{Name: coordinates(q.lat, q.lon), Lat: q.lat, Lon: q.lon}
	if q.place != "" {
		p, err := geocode(ctx, call, q.place)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, providers.InvalidField("/location", fmt.Sprintf(
				"no place named %q was found; try the place name alone (a city, town or postal code) or give {lat, lon}", q.place))
		}
		loc = *p
		notes = append(notes, fmt.Sprintf("%q was taken as %s (%s), the first match of Open-Meteo's geocoder (location data based on GeoNames); "+
			"give {lat, lon} for another place of that name.", q.place, loc.Name, coordinates(loc.Lat, loc.Lon)))
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var airQuality, marine addOn
	if q.airQuality {
		wg.Go(func() { airQuality = fetchAirQuality(ctx, call, loc) })
	}
	if q.marine {
		wg.Go(func() { marine = fetchMarine(ctx, call, loc, q.days) })
	}
	forecast, err := fetchForecast(ctx, call, loc, q)
	if err != nil {
		cancel() // the extras are moot without the forecast
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}

	rec, err := forecastRecord(forecast, loc, q)
	if err != nil {
		return nil, err
	}
	attach := func(asked bool, key string, extra addOn) {
		switch {
		case !asked:
		case extra.value != nil:
			rec.Fields[key] = extra.value
		default:
			notes = append(notes, extra.note)
		}
	}
	attach(q.airQuality, "air_quality", airQuality)
	attach(q.marine, "marine", marine)
	return &providers.Page{Records: []providers.Record{rec}, Notes: notes}, nil
}

// forecastResponse is GET /v1/forecast with current= and daily= (open-meteo.com/en/docs,
// "JSON Return Object"). Values are null where a model has none.
type forecastResponse struct {
	errorBody
	Elevation    *float64          `json:"elevation"`
	Timezone     string            `json:"timezone"`
	CurrentUnits map[string]string `json:"current_units"`
	Current      *struct {
		Time          string   `json:"time"`
		Temperature   *float64 `json:"temperature_2m"`
		Humidity      *float64 `json:"relative_humidity_2m"`
		FeelsLike     *float64 `json:"apparent_temperature"`
		Precipitation *float64 `json:"precipitation"`
		WeatherCode   *float64 `json:"weather_code"`
		Wind          *float64 `json:"wind_speed_10m"`
	} `json:"current"`
	DailyUnits map[string]string `json:"daily_units"`
	Daily      *struct {
		Time                []*string  `json:"time"`
		WeatherCode         []*float64 `json:"weather_code"`
		High                []*float64 `json:"temperature_2m_max"`
		Low                 []*float64 `json:"temperature_2m_min"`
		Precipitation       []*float64 `json:"precipitation_sum"`
		PrecipitationChance []*float64 `json:"precipitation_probability_max"`
		WindMax             []*float64 `json:"wind_speed_10m_max"`
		UVIndexMax          []*float64 `json:"uv_index_max"`
		Sunrise             []*string  `json:"sunrise"`
		Sunset              []*string  `json:"sunset"`
	} `json:"daily"`
}

func fetchForecast(ctx context.Context, call *providers.Call, loc place, q forecastQuery) (*forecastResponse, error) {
	params := url.Values{
		"latitude":      {formatNumber(loc.Lat)},
		"longitude":     {formatNumber(loc.Lon)},
		"current":       {currentVariables},
		"daily":         {dailyVariables},
		"timezone":      {"auto"},
		"forecast_days": {strconv.Itoa(q.days)},
	}
	if q.imperial {
		params.Set("temperature_unit", "fahrenheit")
		params.Set("wind_speed_unit", "mph")
		params.Set("precipitation_unit", "inch")
	}
	var resp forecastResponse
	if err := call.Upstream(ProviderForecast).GetJSON(ctx, "/v1/forecast", params, &resp); err != nil {
		return nil, upstreamError(ProviderForecast, err)
	}
	if err := refusedInBody(ProviderForecast, resp.errorBody); err != nil {
		return nil, err
	}
	if resp.Current == nil || resp.Daily == nil {
		return nil, providers.Errorf(providers.CodeProviderError,
			"%s answered without the current conditions or the daily forecast", ProviderForecast)
	}
	return &resp, nil
}

func forecastRecord(resp *forecastResponse, loc place, q forecastQuery) (providers.Record, error) {
	location := map[string]any{"name": loc.Name, "lat": loc.Lat, "lon": loc.Lon}
	if tz := firstNonEmpty(resp.Timezone, loc.Timezone); tz != "" {
		location["timezone"] = tz
	}
	if e := firstNonNil(resp.Elevation, loc.Elevation); e != nil {
		location["elevation_m"] = *e
	}

	units := unitLabels(resp, q.imperial)

	c := resp.Current
	current := map[string]any{}
	setString(current, "time", c.Time)
	if s, ok := conditions(c.WeatherCode); ok {
		current["conditions"] = s
	}
	setNumber(current, "temperature", c.Temperature)
	setNumber(current, "feels_like", c.FeelsLike)
	setNumber(current, "humidity", c.Humidity)
	setNumber(current, "wind", c.Wind)
	setNumber(current, "precipitation", c.Precipitation)

	d := resp.Daily
	daily := []any{}
	for i := 0; i < len(d.Time) && len(daily) < q.days; i++ {
		date := at(d.Time, i)
		if date == nil || *date == "" {
			continue
		}
		day := map[string]any{"date": *date}
		if s, ok := conditions(at(d.WeatherCode, i)); ok {
			day["conditions"] = s
		}
		setNumber(day, "high", at(d.High, i))
		setNumber(day, "low", at(d.Low, i))
		setNumber(day, "precipitation", at(d.Precipitation, i))
		setNumber(day, "precipitation_chance", at(d.PrecipitationChance, i))
		setNumber(day, "wind_max", at(d.WindMax, i))
		setNumber(day, "uv_index_max", at(d.UVIndexMax, i))
		if s := at(d.Sunrise, i); s != nil {
			setString(day, "sunrise", *s)
		}
		if s := at(d.Sunset, i); s != nil {
			setString(day, "sunset", *s)
		}
		daily = append(daily, day)
	}
	if len(daily) == 0 {
		return providers.Record{}, providers.Errorf(providers.CodeProviderError, "%s answered a forecast without days", ProviderForecast)
	}

	title := "Forecast for " + loc.Name
	if q.place != "" {
		title += " (" + coordinates(loc.Lat, loc.Lon) + ")"
	}
	return providers.Record{
		Title:   title,
		Snippet: forecastSnippet(current, daily[0].(map[string]any), units),
		Fields: map[string]any{
			"attribution": attribution,
			"source_url":  sourceURL,
			"license":     license,
			"license_url": licenseURL,
			"location":    location,
			"units":       units,
			"current":     current,
			"daily":       daily,
		},
	}, nil
}

// unitLabels names the units the answer's numbers are in, as Open-Meteo labels them (its "mp/h"
// written "mph"), falling back to the units the request asked for.
func unitLabels(resp *forecastResponse, imperial bool) map[string]any {
	temperature, wind, precipitation := "°C", "km/h", "mm"
	if imperial {
		temperature, wind, precipitation = "°F", "mph", "inch"
	}
	label := func(fallback string, candidates ...string) string {
		for _, c := range candidates {
			c = strings.TrimSpace(c)
			if c != "" && c != "undefined" {
				if c == "mp/h" {
					return "mph"
				}
				return c
			}
		}
		return fallback
	}
	return map[string]any{
		"temperature":   label(temperature, resp.CurrentUnits["temperature_2m"], resp.DailyUnits["temperature_2m_max"]),
		"wind":          label(wind, resp.CurrentUnits["wind_speed_10m"], resp.DailyUnits["wind_speed_10m_max"]),
		"precipitation": label(precipitation, resp.CurrentUnits["precipitation"], resp.DailyUnits["precipitation_sum"]),
	}
}

// forecastSnippet is one line for a reader: "Overcast, 17.2 °C (feels like 15.9 °C). Today 9.1 to 18.4 °C, precipitation chance 8%."
func forecastSnippet(current, today map[string]any, units map[string]any) string {
	tu := units["temperature"].(string)
	var now []string
	if s, ok := current["conditions"].(string); ok {
		now = append(now, s)
	}
	if t, ok := current["temperature"].(float64); ok {
		s := formatNumber(t) + " " + tu
		if f, ok := current["feels_like"].(float64); ok {
			s += " (feels like " + formatNumber(f) + " " + tu + ")"
		}
		now = append(now, s)
	}
	var sentences []string
	if len(now) > 0 {
		sentences = append(sentences, "Now: "+strings.Join(now, ", ")+".")
	}
	lo, okLo := today["low"].(float64)
	hi, okHi := today["high"].(float64)
	if okLo && okHi {
		s := "Today " + formatNumber(lo) + " to " + formatNumber(hi) + " " + tu
		if p, ok := today["precipitation_chance"].(float64); ok {
			s += ", precipitation chance " + formatNumber(p) + "%"
		}
		sentences = append(sentences, s+".")
	}
	return strings.Join(sentences, " ")
}

// airQualityResponse is GET /v1/air-quality with current= (open-meteo.com/en/docs/air-quality-api).
type airQualityResponse struct {
	errorBody
	Timezone         string            `json:"timezone"`
	UTCOffsetSeconds *float64          `json:"utc_offset_seconds"`
	CurrentUnits     map[string]string `json:"current_units"`
	Current          *struct {
		Time        string   `json:"time"`
		Interval    *float64 `json:"interval"`
		EuropeanAQI *float64 `json:"european_aqi"`
		USAQI       *float64 `json:"us_aqi"`
		PM25        *float64 `json:"pm2_5"`
		PM10        *float64 `json:"pm10"`
		Ozone       *float64 `json:"ozone"`
	} `json:"current"`
}

func fetchAirQuality(ctx context.Context, call *providers.Call, loc place) addOn {
	params := url.Values{
		"latitude":  {formatNumber(loc.Lat)},
		"longitude": {formatNumber(loc.Lon)},
		"current":   {airQualityVariables},
		"timezone":  {"auto"},
	}
	var resp airQualityResponse
	err := call.Upstream(ProviderAirQuality).GetJSON(ctx, "/v1/air-quality", params, &resp)
	if err == nil {
		err = refusedInBody(ProviderAirQuality, resp.errorBody)
	}
	if isNoData(err) {
		return addOn{note: "air_quality is left out: Open-Meteo has no air-quality data for this location."}
	}
	if err != nil {
		return addOn{note: "air_quality is left out: " + errorText(upstreamError(ProviderAirQuality, err))}
	}
	if v := airQualityFields(&resp); v != nil {
		return addOn{value: v}
	}
	return addOn{note: "air_quality is left out: Open-Meteo returned no current air-quality values for this location."}
}

// airQualityFields is the spec's air_quality object, or nil when the answer holds no value.
func airQualityFields(resp *airQualityResponse) map[string]any {
	c := resp.Current
	if c == nil {
		return nil
	}
	out := map[string]any{}
	units := map[string]any{}
	for _, v := range []struct {
		key   string
		value *float64
	}{{"european_aqi", c.EuropeanAQI}, {"us_aqi", c.USAQI}, {"pm2_5", c.PM25}, {"pm10", c.PM10}, {"ozone", c.Ozone}} {
		if v.value == nil {
			continue
		}
		out[v.key] = *v.value
		if u := strings.TrimSpace(resp.CurrentUnits[v.key]); u != "" && u != "undefined" {
			units[v.key] = u
		}
	}
	if len(out) == 0 {
		return nil
	}
	out["type"] = "current"
	out["attribution"] = airQualityAttribution
	out["source_url"] = airQualitySourceURL
	out["data_source_url"] = airQualityDataSourceURL
	setString(out, "time", c.Time)
	setString(out, "timezone", resp.Timezone)
	if resp.UTCOffsetSeconds != nil {
		out["utc_offset_seconds"] = int(*resp.UTCOffsetSeconds)
	}
	if c.Interval != nil {
		out["interval_seconds"] = int(*c.Interval)
	}
	if len(units) > 0 {
		out["units"] = units
	}
	return out
}

// marineResponse is GET /v1/marine with daily= (open-meteo.com/en/docs/marine-weather-api).
// Inland the API answers either HTTP 400 "No data is available for this location" or HTTP 200
// with every value null (open-meteo/open-meteo#1364).
type marineResponse struct {
	errorBody
	Daily *struct {
		Time          []*string  `json:"time"`
		WaveHeightMax []*float64 `json:"wave_height_max"`
		WaveDirection []*float64 `json:"wave_direction_dominant"`
		WavePeriodMax []*float64 `json:"wave_period_max"`
	} `json:"daily"`
}

const noMarineNote = "marine is left out: Open-Meteo's marine models have no wave data for this location (they cover the sea and coasts only)."

func fetchMarine(ctx context.Context, call *providers.Call, loc place, days int) addOn {
	params := url.Values{
		"latitude":      {formatNumber(loc.Lat)},
		"longitude":     {formatNumber(loc.Lon)},
		"daily":         {marineVariables},
		"timezone":      {"auto"},
		"forecast_days": {strconv.Itoa(days)},
	}
	var resp marineResponse
	err := call.Upstream(ProviderMarine).GetJSON(ctx, "/v1/marine", params, &resp)
	if err == nil {
		err = refusedInBody(ProviderMarine, resp.errorBody)
	}
	if isNoData(err) {
		return addOn{note: noMarineNote}
	}
	if err != nil {
		return addOn{note: "marine is left out: " + errorText(upstreamError(ProviderMarine, err))}
	}
	if v := marineDays(&resp, days); v != nil {
		return addOn{value: v}
	}
	return addOn{note: noMarineNote}
}

// marineDays lists the days with at least one wave value (heights in metres: length_unit is left
// at its metric default), or nil when there is none.
func marineDays(resp *marineResponse, days int) []any {
	d := resp.Daily
	if d == nil {
		return nil
	}
	var out []any
	for i := 0; i < len(d.Time) && i < days; i++ {
		date := at(d.Time, i)
		if date == nil || *date == "" {
			continue
		}
		day := map[string]any{}
		setNumber(day, "wave_height_max_m", at(d.WaveHeightMax, i))
		setNumber(day, "wave_direction", at(d.WaveDirection, i))
		setNumber(day, "wave_period_max_s", at(d.WavePeriodMax, i))
		if len(day) == 0 {
			continue
		}
		day["date"] = *date
		out = append(out, day)
	}
	return out
}

func errorText(err error) string {
	if e, ok := providers.AsError(err); ok {
		return e.Message
	}
	return err.Error()
}

// at is s[i], or nil past the end of a short array.
func at[T any](s []*T, i int) *T {
	if i < len(s) {
		return s[i]
	}
	return nil
}

func setNumber(m map[string]any, key string, v *float64) {
	if v != nil {
		m[key] = *v
	}
}

func setString(m map[string]any, key, v string) {
	if v != "" {
		m[key] = v
	}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func firstNonNil(v ...*float64) *float64 {
	for _, x := range v {
		if x != nil {
			return x
		}
	}
	return nil
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

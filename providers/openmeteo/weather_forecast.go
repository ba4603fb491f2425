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
			Body: providers.ExampleBody(`{"location": "Berlin", "include": ["air_quality"]}`)},
		{Title: "Five days in imperial units for coordinates on the coast, with waves",
			Body: providers.ExampleBody(`{"location": {"lat": 38.6979, "lon": -9.4215}, "days": 5, "units": "imperial", "include": ["marine"]}`)},
		{Title: "A week inland; marine is left out with a note",
			Body: providers.ExampleBody(`{"location": "Berlin", "days": 7, "include": ["marine"]}`)},
	},
	Execute: executeForecast,
	Record:  ForecastRecord{},
}

// ForecastRecord is a weather.forecast record (besides title and snippet).
type ForecastRecord struct {
	Attribution string            `json:"attribution" doc:"credit Open-Meteo wherever the data is shown"`
	SourceURL   string            `json:"source_url"`
	License     string            `json:"license"`
	LicenseURL  string            `json:"license_url"`
	Location    ForecastLocation  `json:"location"`
	Units       UnitLabels        `json:"units" doc:"the units the numbers are in"`
	Current     CurrentConditions `json:"current"`
	Daily       []ForecastDay     `json:"daily" doc:"one entry per requested day, starting today"`
	AirQuality  *AirQuality       `json:"air_quality,omitempty" doc:"include air_quality: a current snapshot, not a forecast"`
	Marine      []MarineDay       `json:"marine,omitempty" doc:"include marine: daily wave maxima, only near a coast"`
}

// ForecastLocation is the place forecast.
type ForecastLocation struct {
	Name       string   `json:"name"`
	Lat        float64  `json:"lat"`
	Lon        float64  `json:"lon"`
	Timezone   string   `json:"timezone,omitempty"`
	ElevationM *float64 `json:"elevation_m,omitempty"`
}

// UnitLabels names the units of a forecast's numbers.
type UnitLabels struct {
	Temperature   string `json:"temperature" doc:"°C or °F"`
	Wind          string `json:"wind" doc:"km/h or mph"`
	Precipitation string `json:"precipitation" doc:"mm or inch"`
}

// CurrentConditions are the conditions now (local time of the location).
type CurrentConditions struct {
	Time          string   `json:"time,omitempty"`
	Conditions    string   `json:"conditions,omitempty" doc:"the WMO weather-code description"`
	Temperature   *float64 `json:"temperature,omitempty"`
	FeelsLike     *float64 `json:"feels_like,omitempty"`
	Humidity      *float64 `json:"humidity,omitempty" doc:"relative humidity, %"`
	Wind          *float64 `json:"wind,omitempty"`
	Precipitation *float64 `json:"precipitation,omitempty"`
}

// ForecastDay is one day of the forecast.
type ForecastDay struct {
	Date                string   `json:"date"`
	Conditions          string   `json:"conditions,omitempty"`
	High                *float64 `json:"high,omitempty"`
	Low                 *float64 `json:"low,omitempty"`
	Precipitation       *float64 `json:"precipitation,omitempty"`
	PrecipitationChance *float64 `json:"precipitation_chance,omitempty" doc:"%"`
	WindMax             *float64 `json:"wind_max,omitempty"`
	UVIndexMax          *float64 `json:"uv_index_max,omitempty"`
	Sunrise             string   `json:"sunrise,omitempty"`
	Sunset              string   `json:"sunset,omitempty"`
}

// AirQuality is the current air-quality snapshot.
type AirQuality struct {
	Type             string            `json:"type" doc:"always current"`
	Attribution      string            `json:"attribution"`
	SourceURL        string            `json:"source_url"`
	DataSourceURL    string            `json:"data_source_url"`
	Time             string            `json:"time,omitempty"`
	Timezone         string            `json:"timezone,omitempty"`
	UTCOffsetSeconds *int              `json:"utc_offset_seconds,omitempty"`
	IntervalSeconds  *int              `json:"interval_seconds,omitempty"`
	EuropeanAQI      *float64          `json:"european_aqi,omitempty"`
	USAQI            *float64          `json:"us_aqi,omitempty"`
	PM25             *float64          `json:"pm2_5,omitempty"`
	PM10             *float64          `json:"pm10,omitempty"`
	Ozone            *float64          `json:"ozone,omitempty"`
	Units            map[string]string `json:"units,omitempty" doc:"the unit of each value given, by key"`
}

// MarineDay is one day's wave maxima.
type MarineDay struct {
	Date           string   `json:"date"`
	WaveHeightMaxM *float64 `json:"wave_height_max_m,omitempty"`
	WaveDirection  *float64 `json:"wave_direction,omitempty" doc:"dominant direction, degrees"`
	WavePeriodMaxS *float64 `json:"wave_period_max_s,omitempty"`
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

// addOn is the outcome of an optional extra: its value (nil when absent), or the note
// explaining its absence.
type addOn[T any] struct {
	value T
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
	var airQuality addOn[*AirQuality]
	var marine addOn[[]MarineDay]
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
	data := rec.Data.(*ForecastRecord)
	if q.airQuality {
		if data.AirQuality = airQuality.value; data.AirQuality == nil {
			notes = append(notes, airQuality.note)
		}
	}
	if q.marine {
		if data.Marine = marine.value; data.Marine == nil {
			notes = append(notes, marine.note)
		}
	}
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
	location := ForecastLocation{Name: loc.Name, Lat: loc.Lat, Lon: loc.Lon,
		Timezone: firstNonEmpty(resp.Timezone, loc.Timezone), ElevationM: firstNonNil(resp.Elevation, loc.Elevation)}
	units := unitLabels(resp, q.imperial)

	c := resp.Current
	current := CurrentConditions{Time: c.Time, Conditions: conditionsText(c.WeatherCode), Temperature: c.Temperature,
		FeelsLike: c.FeelsLike, Humidity: c.Humidity, Wind: c.Wind, Precipitation: c.Precipitation}

	d := resp.Daily
	daily := []ForecastDay{}
	for i := 0; i < len(d.Time) && len(daily) < q.days; i++ {
		date := at(d.Time, i)
		if date == nil || *date == "" {
			continue
		}
		daily = append(daily, ForecastDay{Date: *date, Conditions: conditionsText(at(d.WeatherCode, i)),
			High: at(d.High, i), Low: at(d.Low, i), Precipitation: at(d.Precipitation, i),
			PrecipitationChance: at(d.PrecipitationChance, i), WindMax: at(d.WindMax, i), UVIndexMax: at(d.UVIndexMax, i),
			Sunrise: deref(at(d.Sunrise, i)), Sunset: deref(at(d.Sunset, i))})
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
		Snippet: forecastSnippet(&current, &daily[0], units),
		Data: &ForecastRecord{Attribution: attribution, SourceURL: sourceURL, License: license, LicenseURL: licenseURL,
			Location: location, Units: units, Current: current, Daily: daily},
	}, nil
}

// unitLabels names the units the answer's numbers are in, as Open-Meteo labels them (its "mp/h"
// written "mph"), falling back to the units the request asked for.
func unitLabels(resp *forecastResponse, imperial bool) UnitLabels {
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
	return UnitLabels{
		Temperature:   label(temperature, resp.CurrentUnits["temperature_2m"], resp.DailyUnits["temperature_2m_max"]),
		Wind:          label(wind, resp.CurrentUnits["wind_speed_10m"], resp.DailyUnits["wind_speed_10m_max"]),
		Precipitation: label(precipitation, resp.CurrentUnits["precipitation"], resp.DailyUnits["precipitation_sum"]),
	}
}

// forecastSnippet is one line for a reader: "Overcast, 17.2 °C (feels like 15.9 °C). Today 9.1 to 18.4 °C, precipitation chance 8%."
func forecastSnippet(current *CurrentConditions, today *ForecastDay, units UnitLabels) string {
	tu := units.Temperature
	var now []string
	if current.Conditions != "" {
		now = append(now, current.Conditions)
	}
	if t := current.Temperature; t != nil {
		s := formatNumber(*t) + " " + tu
		if f := current.FeelsLike; f != nil {
			s += " (feels like " + formatNumber(*f) + " " + tu + ")"
		}
		now = append(now, s)
	}
	var sentences []string
	if len(now) > 0 {
		sentences = append(sentences, "Now: "+strings.Join(now, ", ")+".")
	}
	if today.Low != nil && today.High != nil {
		s := "Today " + formatNumber(*today.Low) + " to " + formatNumber(*today.High) + " " + tu
		if p := today.PrecipitationChance; p != nil {
			s += ", precipitation chance " + formatNumber(*p) + "%"
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

func fetchAirQuality(ctx context.Context, call *providers.Call, loc place) addOn[*AirQuality] {
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
		return addOn[*AirQuality]{note: "air_quality is left out: Open-Meteo has no air-quality data for this location."}
	}
	if err != nil {
		return addOn[*AirQuality]{note: "air_quality is left out: " + errorText(upstreamError(ProviderAirQuality, err))}
	}
	if v := airQualityFields(&resp); v != nil {
		return addOn[*AirQuality]{value: v}
	}
	return addOn[*AirQuality]{note: "air_quality is left out: Open-Meteo returned no current air-quality values for this location."}
}

// airQualityFields is the spec's air_quality object, or nil when the answer holds no value.
func airQualityFields(resp *airQualityResponse) *AirQuality {
	c := resp.Current
	if c == nil || (c.EuropeanAQI == nil && c.USAQI == nil && c.PM25 == nil && c.PM10 == nil && c.Ozone == nil) {
		return nil
	}
	out := &AirQuality{Type: "current", Attribution: airQualityAttribution, SourceURL: airQualitySourceURL,
		DataSourceURL: airQualityDataSourceURL, Time: c.Time, Timezone: resp.Timezone,
		EuropeanAQI: c.EuropeanAQI, USAQI: c.USAQI, PM25: c.PM25, PM10: c.PM10, Ozone: c.Ozone,
		UTCOffsetSeconds: toInt(resp.UTCOffsetSeconds), IntervalSeconds: toInt(c.Interval)}
	units := map[string]string{}
	for key, value := range map[string]*float64{"european_aqi": c.EuropeanAQI, "us_aqi": c.USAQI, "pm2_5": c.PM25, "pm10": c.PM10, "ozone": c.Ozone} {
		if u := strings.TrimSpace(resp.CurrentUnits[key]); value != nil && u != "" && u != "undefined" {
			units[key] = u
		}
	}
	if len(units) > 0 {
		out.Units = units
	}
	return out
}

func toInt(f *float64) *int {
	if f == nil {
		return nil
	}
	n := int(*f)
	return &n
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

func fetchMarine(ctx context.Context, call *providers.Call, loc place, days int) addOn[[]MarineDay] {
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
		return addOn[[]MarineDay]{note: noMarineNote}
	}
	if err != nil {
		return addOn[[]MarineDay]{note: "marine is left out: " + errorText(upstreamError(ProviderMarine, err))}
	}
	if v := marineDays(&resp, days); v != nil {
		return addOn[[]MarineDay]{value: v}
	}
	return addOn[[]MarineDay]{note: noMarineNote}
}

// marineDays lists the days with at least one wave value (heights in metres: length_unit is left
// at its metric default), or nil when there is none.
func marineDays(resp *marineResponse, days int) []MarineDay {
	d := resp.Daily
	if d == nil {
		return nil
	}
	var out []MarineDay
	for i := 0; i < len(d.Time) && i < days; i++ {
		date := at(d.Time, i)
		if date == nil || *date == "" {
			continue
		}
		day := MarineDay{Date: *date, WaveHeightMaxM: at(d.WaveHeightMax, i), WaveDirection: at(d.WaveDirection, i),
			WavePeriodMaxS: at(d.WavePeriodMax, i)}
		if day.WaveHeightMaxM == nil && day.WaveDirection == nil && day.WavePeriodMaxS == nil {
			continue
		}
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

// conditionsText is the WMO description of a code, "" (left out) for an unknown one.
func conditionsText(code *float64) string {
	s, _ := conditions(code)
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
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

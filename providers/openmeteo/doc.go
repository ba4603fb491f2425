// Package openmeteo serves weather.forecast (spec 4.16) from Open-Meteo's keyless APIs, whose
// data is CC BY 4.0: every record carries the attribution Open-Meteo asks for ("Weather data by
// Open-Meteo.com", linking https://open-meteo.com/) and the license with its URL.
//
// Upstream endpoints (provider id, default base URL):
//   - openmeteo, https://api.open-meteo.com: GET /v1/forecast?latitude&longitude
//     &current=temperature_2m,relative_humidity_2m,apparent_temperature,precipitation,weather_code,wind_speed_10m
//     &daily=weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max,
//     wind_speed_10m_max,uv_index_max,sunrise,sunset&timezone=auto&forecast_days={days}, plus
//     temperature_unit=fahrenheit, wind_speed_unit=mph, precipitation_unit=inch for imperial.
//   - openmeteo_geocoding, https://geocoding-api.open-meteo.com: GET /v1/search?name&count=1&language=en&format=json.
//   - openmeteo_airquality, https://air-quality-api.open-meteo.com: GET /v1/air-quality
//     ?latitude&longitude&current=european_aqi,us_aqi,pm2_5,pm10,ozone&timezone=auto.
//   - openmeteo_marine, https://marine-api.open-meteo.com: GET /v1/marine
//     ?latitude&longitude&daily=wave_height_max,wave_direction_dominant,wave_period_max&timezone=auto&forecast_days={days}.
//
// All four are keyless (KeyRequired false): the free API, which Open-Meteo offers for
// non-commercial use only (open-meteo.com/en/terms); the capability's description and cost basis
// say so. A commercial key is one setting, PROVIDER_OPENMETEO_KEY, used by all four hosts (KeyOf):
// with it every call goes to the host's customer- twin (customer-api, customer-geocoding-api,
// customer-air-quality-api, customer-marine-api .open-meteo.com; KeyedURL) with the key as the
// apikey query parameter, as Open-Meteo's pricing and API pages document; a PROVIDER_<ID>_URL the
// deployment sets is kept. Without a key the four hosts share one allowance (LimitGroup
// "openmeteo") within the free tier's limits, counted per client over all APIs: 600 calls a
// minute, 5,000 an hour and 10,000 a day (terms page; the 429 reasons "Minutely/Hourly/Daily API
// request limit exceeded"), with bursts of 60, 500 and 1,000 and a pace that keeps every window
// within its limit; shared by the fleet through Redis. A commercial key lifts them.
// Response shapes follow the reference pages (open-meteo.com/en/docs, /en/docs/geocoding-api,
// /en/docs/air-quality-api, /en/docs/marine-weather-api, sources in open-meteo/open-meteo-website)
// and the recorded fixtures of frenck/python-open-meteo; errors are the documented
// {"error": true, "reason": "..."} object with HTTP 400, and with HTTP 429 for the free tier's
// limits ("Minutely API request limit exceeded. Please try again in one minute.").
//
// Decisions where the spec is silent:
//   - Capability.Providers is openmeteo and openmeteo_geocoding. Air quality and marine are
//     optional extras: when the caller includes one and it cannot be had (provider not configured,
//     upstream failure or throttling, HTTP 400 "No data is available for this location", or an
//     answer whose values are all null), its key is left out and Page.Notes says why; the forecast
//     is still answered, since the extras cost nothing and the forecast is the result asked for.
//     The forecast and the extras run concurrently after geocoding, within the 15 s deadline.
//   - A place string is geocoded to Open-Meteo's first match (count=1, English names); the notes
//     say which place was taken and where. No match is 400 invalid_request with a violation at
//     /location. Answers, matches and misses alike, are cached in process (1,024 entries, 24 h for
//     a match, 1 h for a miss), keyed by base URL and the case- and space-folded name. A place
//     string is limited to 200 characters and must not be blank.
//   - location.lat and location.lon are the point asked for (given or geocoded), not the model's
//     grid cell; location.timezone and location.elevation_m come from the forecast answer (its
//     90 m elevation model), else from the geocoder. location.name is the geocoded name
//     ("Berlin, Germany": name, first administrative area and country, repeats dropped) or, for
//     coordinates, "lat, lon". The title is "Forecast for <name> (<lat>, <lon>)" for a place and
//     "Forecast for <lat>, <lon>" for coordinates.
//   - units are the labels of the answer's own current_units/daily_units (Open-Meteo's "mp/h"
//     written "mph"), else the labels of the requested system: °C, km/h, mm or °F, mph, inch.
//   - current.wind and daily[].wind_max are the 10 m wind speed (no direction); precipitation is
//     the preceding-hour sum (current) and the daily sum (daily); precipitation_chance is the
//     daily maximum probability (%); sunrise and sunset are local ISO 8601 times as Open-Meteo
//     writes them; conditions come from the full WMO weather-code table Open-Meteo documents
//     (including 97, listed in its translated code table); an undocumented code leaves
//     conditions out.
//   - daily holds at most one entry per requested day, in the upstream's order; values Open-Meteo
//     returns as null are left out of each day. An answer without current conditions or without
//     days is a provider_error.
//   - air_quality is the current snapshot with the spec's keys: type "current", time, timezone,
//     utc_offset_seconds, interval_seconds (the answer's current.interval), an attribution naming
//     Open-Meteo and the Copernicus Atmosphere Monitoring Service (CAMS) with its disclaimer,
//     source_url (the air-quality API page), data_source_url (CAMS), units (the upstream labels
//     of the values present), european_aqi, us_aqi, pm2_5, pm10 and ozone (µg/m³). Null values
//     are left out; all null is treated as no data.
//   - marine lists the days (within the requested days) with at least one wave value; heights
//     are metres (length_unit stays at its metric default even for imperial), directions degrees,
//     periods seconds.
//   - Open-Meteo's reason is appended to upstream error messages; HTTP 429 "Minutely ..." is
//     rate_limited (retry after 60 s), other 429s (hourly, daily, monthly limits) stay
//     provider_allowance; an error object inside an HTTP 200 answer is a provider_error.
//   - The sandbox serves one recorded forecast per unit system (Berlin metric, the Cascais coast
//     imperial), answers "Berlin" from the geocoder and nothing else, serves one air-quality
//     snapshot, and marine data near the Lisbon coast only (elsewhere all values null, as inland).
//
// providers.md marks nothing "check" for Open-Meteo. Confirmed from the documentation: the
// endpoints and parameters above, the apikey parameter with customer- hosts, the error object,
// the WMO table, the CC BY 4.0 license and attribution text. Confirmed only from public issue
// threads and client code, not from a reference page: the marine API's inland behaviour (all-null
// 200 answers, open-meteo/open-meteo#1364, or the 400 "No data is available for this location"
// reason defined in the open-meteo server source) and the 429 body wording; both are handled.
// The air-quality attribution text follows the CAMS licence wording, not a page of Open-Meteo.
package openmeteo

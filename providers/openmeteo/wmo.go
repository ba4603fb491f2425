package openmeteo

// wmoConditions is the table of WMO weather interpretation codes (WW) Open-Meteo documents for
// weather_code, in its English wording (open-meteo.com/en/docs, "WMO Weather interpretation
// codes"). Hail (96, 99) is only forecast in Central Europe.
var wmoConditions = map[int]string{
	0:  "Clear sky",
	1:  "Mainly clear",
	2:  "Partly cloudy",
	3:  "Overcast",
	45: "Fog",
	48: "Depositing rime fog",
	51: "Light drizzle",
	53: "Moderate drizzle",
	55: "Dense drizzle",
	56: "Light freezing drizzle",
	57: "Dense freezing drizzle",
	61: "Slight rain",
	63: "Moderate rain",
	65: "Heavy rain",
	66: "Light freezing rain",
	67: "Heavy freezing rain",
	71: "Slight snowfall",
	73: "Moderate snowfall",
	75: "Heavy snowfall",
	77: "Snow grains",
	80: "Slight rain showers",
	81: "Moderate rain showers",
	82: "Violent rain showers",
	85: "Slight snow showers",
	86: "Heavy snow showers",
	95: "Thunderstorm",
	96: "Thunderstorm with slight hail",
	97: "Heavy thunderstorm",
	99: "Thunderstorm with heavy hail",
}

// conditions names a weather code; ok is false for a null or undocumented code.
func conditions(code *float64) (string, bool) {
	if code == nil || *code != float64(int(*code)) {
		return "", false
	}
	s, ok := wmoConditions[int(*code)]
	return s, ok
}

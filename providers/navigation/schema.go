package navigation

import "encoding/json"

// placeSchema is the JSON Schema of one place: a name geocoded to its best match, or WGS84
// coordinates. description says what the place is for.
func placeSchema(description string) string {
	return `{
      "description": ` + quote(description+" A place name or address (geocoded to its best match; one nothing matches is refused at this field), a \"lat, lon\" string, or coordinates {lat, lon}.") + `,
      "oneOf": [
        {
          "type": "string",
          "minLength": 1,
          "maxLength": 200,
          "pattern": "\\S",
          "description": "A place name, address or landmark, for example \"Potsdam\" or \"Alexanderplatz, Berlin\"; add the town or country to pick among places of the same name. \"52.5163, 13.3777\" (lat, lon in decimal degrees) is taken as coordinates. Must not be blank."
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
    }`
}

// modeSchema is the travel mode property.
const modeSchema = `{
      "type": "string",
      "enum": ["driving", "walking", "cycling"],
      "default": "driving",
      "description": "How to travel: driving (car), walking or cycling. Walking and cycling need the primary routing engine; when it is unavailable only driving is answered (by the fallback demo engine) and other modes are refused with capability_unavailable."
    }`

// quote writes s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

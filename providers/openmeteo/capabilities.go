package openmeteo

import "github.com/capgate/capgate/providers"

// Capabilities lists the capabilities this package serves.
func Capabilities() []*providers.Capability {
	return []*providers.Capability{WeatherForecast}
}

package legalread

import "github.com/capgate/capgate/providers"

// Capabilities lists the capabilities of this package.
func Capabilities() []*providers.Capability {
	return []*providers.Capability{Read}
}

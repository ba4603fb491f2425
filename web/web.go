// Package web holds the console's static assets, embedded in the binary.
package web

import "embed"

// Static is the static folder (CSS, a small script).
//
//go:embed static
var Static embed.FS

package music

import (
	"fmt"
	"strings"

	"github.com/capgate/capgate/providers/internal/lenient"
)

// The upstream shapes are decoded leniently: a field that is absent, null or of an unexpected
// type is "not there" (never a panic, never a failed page), because both upstreams are documented
// by example rather than by schema and MusicBrainz has changed field types before (search scores
// used to be strings).

// clock formats a duration in seconds as m:ss (minutes are not wrapped into hours).
func clock(seconds int64) string {
	return fmt.Sprintf("%d:%02d", seconds/60, seconds%60)
}

// firstOf returns the first non-empty string.
func firstOf(values ...lenient.Str) string {
	for _, v := range values {
		if v != "" {
			return string(v)
		}
	}
	return ""
}

// joinNonEmpty joins the non-empty parts with sep.
func joinNonEmpty(sep string, parts ...string) string {
	out := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// Package registry is the one explicit list of the capabilities that really work and the
// upstream providers they use. Adding a capability touches its own package and one line here.
package registry

import (
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/classics"
	"github.com/capgate/capgate/providers/commerce"
	"github.com/capgate/capgate/providers/edgar"
	"github.com/capgate/capgate/providers/fitness"
	"github.com/capgate/capgate/providers/flights"
	"github.com/capgate/capgate/providers/github"
	"github.com/capgate/capgate/providers/hotels"
	"github.com/capgate/capgate/providers/legal"
	"github.com/capgate/capgate/providers/legalread"
	"github.com/capgate/capgate/providers/mealdb"
	"github.com/capgate/capgate/providers/music"
	"github.com/capgate/capgate/providers/navigation"
	"github.com/capgate/capgate/providers/npm"
	"github.com/capgate/capgate/providers/openalex"
	"github.com/capgate/capgate/providers/openlibrary"
	"github.com/capgate/capgate/providers/openmeteo"
	"github.com/capgate/capgate/providers/patents"
	"github.com/capgate/capgate/providers/places"
	"github.com/capgate/capgate/providers/pypi"
	"github.com/capgate/capgate/providers/realestate"
	"github.com/capgate/capgate/providers/scripture"
	"github.com/capgate/capgate/providers/social"
	"github.com/capgate/capgate/providers/transit"
	"github.com/capgate/capgate/providers/trends"
	"github.com/capgate/capgate/providers/upstream/reviewers"
	"github.com/capgate/capgate/providers/video"
	"github.com/capgate/capgate/providers/webread"
	"github.com/capgate/capgate/providers/websearch"
)

// families are the provider packages, in catalog order.
var families = []struct {
	capabilities func() []*providers.Capability
	providers    func() []*providers.Provider
}{
	{websearch.Capabilities, websearch.Providers},
	{webread.Capabilities, webread.Providers},
	{openalex.Capabilities, openalex.Providers},
	{openlibrary.Capabilities, openlibrary.Providers},
	{classics.Capabilities, classics.Providers},
	{patents.Capabilities, patents.Providers},
	{edgar.Capabilities, edgar.Providers},
	{legal.Capabilities, legal.Providers},
	{legalread.Capabilities, legalread.Providers},
	{scripture.Capabilities, scripture.Providers},
	{github.Capabilities, github.Providers},
	{npm.Capabilities, npm.Providers},
	{pypi.Capabilities, pypi.Providers},
	{music.Capabilities, music.Providers},
	{social.Capabilities, social.Providers},
	{video.Capabilities, video.Providers},
	{commerce.Capabilities, commerce.Providers},
	{mealdb.Capabilities, mealdb.Providers},
	{fitness.Capabilities, fitness.Providers},
	{openmeteo.Capabilities, openmeteo.Providers},
	{navigation.Capabilities, navigation.Providers},
	{hotels.Capabilities, hotels.Providers},
	{flights.Capabilities, flights.Providers},
	{places.Capabilities, places.Providers},
	{transit.Capabilities, transit.Providers},
	{trends.Capabilities, trends.Providers},
	{realestate.Capabilities, realestate.Providers},
}

// Capabilities lists every registered capability, ordered by topic as in the spec's section 1,
// as the catalog describes them; CapabilitiesWith binds those that need something of the
// deployment.
func Capabilities() []*providers.Capability { return CapabilitiesWith() }

// CapabilitiesWith lists every capability, each with a Bind hook bound to deps (cmd passes the
// deployment's stores behind the interfaces capability packages declare, e.g. TenantWorkouts).
func CapabilitiesWith(deps ...any) []*providers.Capability {
	var out []*providers.Capability
	for _, f := range families {
		out = append(out, f.capabilities()...)
	}
	if len(deps) > 0 {
		for i, c := range out {
			if c.Bind == nil {
				continue
			}
			if bound := c.Bind(providers.Deps(deps)); bound != nil {
				out[i] = bound
			}
		}
	}
	sortByTopic(out)
	return out
}

// Providers lists every upstream provider: those of the capabilities and sharpen's reviewers.
func Providers() []*providers.Provider {
	var out []*providers.Provider
	seen := map[string]bool{}
	for _, p := range reviewers.Providers() {
		seen[p.ID] = true
		out = append(out, p)
	}
	for _, f := range families {
		for _, p := range f.providers() {
			if !seen[p.ID] {
				seen[p.ID] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// ProviderIDs lists the provider ids (for PROVIDER_<ID>_URL / _KEY).
func ProviderIDs() []string {
	var ids []string
	for _, p := range Providers() {
		ids = append(ids, p.ID)
	}
	return ids
}

// Topics in the order of the spec's section 1.
var Topics = []string{"Web and news", "Research and reading", "Dev", "Media and social", "Travel and places", "Commerce and markets", "Food and fitness"}

func sortByTopic(caps []*providers.Capability) {
	rank := map[string]int{}
	for i, t := range Topics {
		rank[t] = i
	}
	// Stable insertion sort: a few dozen entries.
	for i := 1; i < len(caps); i++ {
		for j := i; j > 0; j-- {
			a, b := caps[j-1], caps[j]
			if rank[a.Topic] > rank[b.Topic] || (rank[a.Topic] == rank[b.Topic] && a.ID > b.ID) {
				caps[j-1], caps[j] = b, a
				continue
			}
			break
		}
	}
}

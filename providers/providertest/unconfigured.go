package providertest

import (
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
)

// Unconfigured checks that the provider is unavailable to live calls in c, with a reason naming
// the setting that would make it available (PROVIDER_<ID>_KEY, GATEWAY_CONTACT).
func Unconfigured(tb testing.TB, c *providers.Client, id, setting string) {
	tb.Helper()
	if ok, why := c.Configured(id); ok || !strings.Contains(why, setting) {
		tb.Fatalf("%s: available %v, reason %q; want unavailable naming %s", id, ok, why, setting)
	}
}

// ContactRequired checks that the provider waits for GATEWAY_CONTACT: unavailable without it,
// available with it.
func ContactRequired(tb testing.TB, provs []*providers.Provider, id string) {
	tb.Helper()
	Unconfigured(tb, providers.NewClient(provs, providers.ClientOptions{}), id, providers.ContactSetting)
	named := providers.NewClient(provs, providers.ClientOptions{Contact: contact})
	if ok, why := named.Configured(id); !ok {
		tb.Fatalf("%s with a contact: unavailable (%s)", id, why)
	}
}

package openlibrary

import (
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
)

// The upstream asks for contact details in the User-Agent: without GATEWAY_CONTACT a live call
// is refused before it is sent, with a reason naming the setting.
func TestContactRequired(t *testing.T) {
	anon := providers.NewClient(Providers(), providers.ClientOptions{})
	ok, why := anon.Configured(ProviderID)
	if ok || !strings.Contains(why, "GATEWAY_CONTACT") {
		t.Fatalf("without a contact: available %v, %q; want unavailable naming GATEWAY_CONTACT", ok, why)
	}
	named := providers.NewClient(Providers(), providers.ClientOptions{Contact: "ops@example.com"})
	if ok, why := named.Configured(ProviderID); !ok {
		t.Fatalf("with a contact: unavailable (%s)", why)
	}
}

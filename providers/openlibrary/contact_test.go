package openlibrary

import (
	"testing"

	"github.com/capgate/capgate/providers/providertest"
)

// The upstream asks for contact details in the User-Agent: without GATEWAY_CONTACT a live call
// is refused before it is sent, with a reason naming the setting.
func TestContactRequired(t *testing.T) {
	providertest.ContactRequired(t, Providers(), ProviderID)
}

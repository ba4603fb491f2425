package gateway

import (
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
)

// SandboxFaultHeader asks, in test mode, for the upstream of the call to fail in a named way.
const SandboxFaultHeader = "Capgate-Sandbox-Fault"

// sandboxFault scopes a test-key request's upstream calls to the tenant's sandbox (its own
// breakers) and applies the Capgate-Sandbox-Fault header. The header is refused with live keys
// (a live call cannot be made to fail on purpose) and when its code is unknown.
func (s *Server) sandboxFault(c *fiber.Ctx) error {
	p := principalOf(c)
	raw := c.Get(SandboxFaultHeader)
	if p == nil {
		return c.Next()
	}
	if p.Mode() != providers.ModeTest {
		if raw != "" {
			return &Error{Code: providers.CodeInvalidRequest,
				Message: SandboxFaultHeader + " is only accepted with a test key (cap_test_…); live calls cannot be made to fail",
				Hint:    "remove the header, or send the request with a test key to rehearse the failure"}
		}
		return c.Next()
	}
	var fault providers.SandboxFault
	if raw != "" {
		f, ok := providers.ParseSandboxFault(raw)
		if !ok {
			return &Error{Code: providers.CodeInvalidRequest,
				Message: fmt.Sprintf("unknown %s %q", SandboxFaultHeader, raw),
				Hint:    "use one of " + strings.Join(providers.SandboxFaultCodes(), ", ")}
		}
		fault = f
	}
	c.SetUserContext(providers.WithSandbox(c.UserContext(), p.Tenant.ID, fault))
	return c.Next()
}

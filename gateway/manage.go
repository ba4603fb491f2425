package gateway

import (
	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
)

// requireManage admits only a key with the manage permission (after authenticate) to the
// management routes. A plain key is refused with 403 capability_disabled: the spec's code for a
// use the caller's credential does not include (it authenticated, so unauthorized would be
// wrong), with a hint naming the permission.
func (s *Server) requireManage(c *fiber.Ctx) error {
	p := principalOf(c)
	if p == nil || !p.Manage {
		return &Error{Code: providers.CodeCapabilityDisabled, Status: fiber.StatusForbidden,
			Message: "this API key does not have the manage permission",
			Hint:    "use a key created with manage: true (console, CLI --manage, or POST /v1/keys from a manage key)"}
	}
	return c.Next()
}

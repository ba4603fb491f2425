package gateway

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
)

// errNoManage answers a management route called with a key that lacks the manage permission.
var errNoManage = &Error{Code: providers.CodeUnauthorized, Status: http.StatusForbidden,
	Message: "this API key may not use the management API: it lacks the manage permission",
	Hint:    "use a key created with the manage permission (console, or gateway admin key create --manage)"}

// requireManage lets through (after authenticate) only a key with the manage permission; any
// other key is answered 403 before the handler runs.
func (s *Server) requireManage(c *fiber.Ctx) error {
	if p := principalOf(c); p == nil || !p.Manage {
		return errNoManage
	}
	return c.Next()
}

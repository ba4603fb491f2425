package console

import (
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/console/views"
)

// planCapabilities reads the plan form's capability picker (caps_mode all, typical or list,
// caps_typical, caps_id…) into the plan's grammar ("all", "typical<=N", "id,id"); a form
// without the picker (the CLI's grammar typed in) keeps its capabilities field.
func planCapabilities(c *fiber.Ctx) string {
	switch c.FormValue("caps_mode") {
	case "all":
		return "all"
	case "typical":
		return "typical<=" + strings.TrimSpace(c.FormValue("caps_typical"))
	case "list":
		var ids []string
		for _, v := range c.Request().PostArgs().PeekMulti("caps_id") {
			ids = append(ids, string(v))
		}
		sort.Strings(ids)
		return strings.Join(ids, ",")
	}
	return strings.TrimSpace(c.FormValue("capabilities"))
}

// pickable lists the capabilities a plan can name, for the picker.
func (cn *Console) pickable() []views.PlanCapability {
	out := make([]views.PlanCapability, 0, len(cn.opts.Capabilities))
	for _, cp := range cn.opts.Capabilities {
		out = append(out, views.PlanCapability{ID: cp.ID, Typical: cp.Cost.Typical})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

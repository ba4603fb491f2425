package console

import (
	"sort"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/console/views"
)

// mountDocs adds the public API reference (/docs) and the front door: GET / leads to it.
func (cn *Console) mountDocs(app *fiber.App) {
	app.Get("/", func(c *fiber.Ctx) error { return c.Redirect("/docs", fiber.StatusFound) })
	app.Get("/docs", cn.docsIndex)
	app.Get("/docs/:id", cn.docsCapability)
}

// docsIndex lists the capabilities by topic.
func (cn *Console) docsIndex(c *fiber.Ctx) error {
	securityHeaders(c)
	byTopic := map[string][]views.CatalogRow{}
	for _, cp := range cn.opts.Capabilities {
		byTopic[cp.Topic] = append(byTopic[cp.Topic], views.CatalogRow{ID: cp.ID, Title: cp.Title, Summary: cp.Summary, Topic: cp.Topic, TypicalCredits: cp.Cost.Typical})
	}
	d := views.DocsIndex{Total: len(cn.opts.Capabilities)}
	for _, t := range sortedKeys(byTopicSet(byTopic)) {
		rows := byTopic[t]
		sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
		d.Topics = append(d.Topics, views.DocsTopic{Name: t, Capabilities: rows})
	}
	return render(c, fiber.StatusOK, views.DocsFrame("Capabilities", views.DocsIndexPage(d)))
}

func byTopicSet(m map[string][]views.CatalogRow) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// docsCapability is one capability's reference page.
func (cn *Console) docsCapability(c *fiber.Ctx) error {
	securityHeaders(c)
	cp := cn.capabilityByID(c.Params("id"))
	if cp == nil {
		return render(c, fiber.StatusNotFound, views.DocsFrame("Not found", views.DocsNotFound(c.Params("id"))))
	}
	return render(c, fiber.StatusOK, views.DocsFrame(cp.ID, views.DocsCapabilityPage(cn.reference(c.UserContext(), cp))))
}

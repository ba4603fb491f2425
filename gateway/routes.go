package gateway

import (
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes lists every route of the API surface.
func (s *Server) routes() {
	app := s.app
	app.Use(s.withRequestID, s.observe, s.recoverPanics, s.limitBody)

	app.Get("/healthz", s.healthz)
	app.Get("/readyz", s.readyz)
	app.Get("/metrics", adaptor.HTTPHandler(promhttp.HandlerFor(s.opts.Registry, promhttp.HandlerOpts{})))

	v1 := app.Group("/v1")
	v1.Get("/openapi.json", s.openapi)

	// Authentication is attached per route so an unknown path answers not_found, not unauthorized.
	auth := s.authenticate
	// Test keys reach their own sandbox (and may rehearse failures): sandboxfault.go.
	sandbox := s.sandboxFault
	v1.Get("/account", auth, s.account)
	v1.Get("/catalog", auth, s.catalog)
	v1.Get("/guide", auth, s.guide)
	v1.Get("/capabilities/:id", auth, s.inspect)
	v1.Post("/capabilities/:id/execute", auth, sandbox, s.idempotent, s.execute)
	v1.Post("/follow-up", auth, sandbox, s.idempotent, s.followUp)
	v1.Post("/sharpen", auth, s.idempotent, s.sharpen)

	v1.Get("/projects/status", auth, s.projectsRead(s.projectsStatus))
	v1.Get("/projects", auth, s.projectsRead(s.listProjects))
	v1.Post("/projects", auth, s.projectsWrite(projectCreateSchema, s.createProject))
	v1.Get("/projects/:project_id", auth, s.projectsRead(s.getProject))
	v1.Delete("/projects/:project_id", auth, s.projectsWrite(nil, s.deleteProject))
	v1.Post("/projects/:project_id/items", auth, s.projectsWrite(itemCreateSchema, s.addItem))
	v1.Delete("/projects/:project_id/items/:item_id", auth, s.projectsWrite(nil, s.deleteItem))
}

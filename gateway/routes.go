package gateway

import (
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes lists every route of the API surface.
func (s *Server) routes() {
	app := s.app
	app.Use(s.withRequestID, s.observe, s.recoverPanics)

	app.Get("/healthz", s.healthz)
	app.Get("/readyz", s.readyz)
	app.Get("/metrics", adaptor.HTTPHandler(promhttp.HandlerFor(s.opts.Registry, promhttp.HandlerOpts{})))

	v1 := app.Group("/v1")
	v1.Get("/openapi.json", s.openapi)

	// Authentication is attached per route so an unknown path answers not_found, not unauthorized.
	auth := s.authenticate
	v1.Get("/account", auth, s.account)
	v1.Get("/catalog", auth, s.catalog)
	v1.Get("/guide", auth, s.guide)
	v1.Get("/capabilities/:id", auth, s.inspect)
	v1.Post("/capabilities/:id/execute", auth, s.execute)
	v1.Post("/follow-up", auth, s.followUp)
	v1.Post("/sharpen", auth, s.sharpen)
}

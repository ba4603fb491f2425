package gateway

import (
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes lists every route of the API surface.
func (s *Server) routes() {
	app := s.app
	app.Use(s.withRequestID, s.traceRequest, s.secureHeaders, s.observe, s.recoverPanics, s.checkFraming, s.limitBody)

	app.Get("/healthz", s.healthz)
	app.Get("/readyz", s.readyz)
	app.Get("/metrics", s.metricsAuth, adaptor.HTTPHandler(promhttp.HandlerFor(s.opts.Registry, promhttp.HandlerOpts{})))

	// OAuth 2.1 for MCP hosts: metadata, registration, token, revocation (oauth.go).
	s.oauthRoutes()
	app.All("/mcp", s.mcpOrigin, s.authenticate, s.mcpMessageRate, s.limitRate, s.newMCPEndpoint().serve) // MCP Streamable HTTP (mcp.go)

	// The operator's API, behind GATEWAY_ADMIN_TOKEN (admin.go).
	s.adminRoutes()
	v1 := app.Group("/v1")
	v1.Get("/openapi.json", s.openapi)

	// Authentication and the plan's rate limit are attached per route, so an unknown path
	// answers not_found, not unauthorized. Test keys reach their own sandbox and may rehearse
	// failures (sandboxfault.go).
	auth, limit, sandbox := s.authenticate, s.limitRate, s.sandboxFault
	v1.Get("/account", auth, limit, s.account)
	v1.Get("/catalog", auth, limit, s.catalog)
	v1.Get("/guide", auth, limit, s.guide)
	v1.Get("/capabilities/:id", auth, limit, s.inspect)
	v1.Post("/capabilities/:id/execute", auth, limit, sandbox, s.idempotent, s.execute)
	v1.Post("/capabilities/:id/quote", auth, limit, s.quote)
	v1.Post("/follow-up", auth, limit, sandbox, s.idempotent, s.followUp)
	v1.Post("/sharpen", auth, limit, s.idempotent, s.sharpen)

	// The management API (manage.go): a key with the manage permission, its own tenant only.
	manage := s.requireManage
	v1.Get("/requests", auth, limit, manage, s.listRequests)
	v1.Get("/requests/:request_id", auth, limit, manage, s.getRequest)
	v1.Get("/usage", auth, limit, manage, s.usage)
	v1.Get("/keys", auth, limit, manage, s.listKeys)
	v1.Post("/keys", auth, limit, manage, s.createKey)
	v1.Get("/keys/:id", auth, limit, manage, s.getKey)
	v1.Patch("/keys/:id", auth, limit, manage, s.updateKey)
	v1.Delete("/keys/:id", auth, limit, manage, s.revokeKey)
	v1.Post("/keys/:id/roll", auth, limit, manage, s.rollKey)

	v1.Get("/projects/status", auth, limit, s.projectsRead(s.projectsStatus))
	v1.Get("/projects", auth, limit, s.projectsRead(s.listProjects))
	v1.Post("/projects", auth, limit, s.projectsWrite(projectCreateSchema, s.createProject))
	v1.Get("/projects/:project_id", auth, limit, s.projectsRead(s.getProject))
	v1.Delete("/projects/:project_id", auth, limit, s.projectsWrite(nil, s.deleteProject))
	v1.Post("/projects/:project_id/items", auth, limit, s.projectsWrite(itemCreateSchema, s.addItem))
	v1.Delete("/projects/:project_id/items/:item_id", auth, limit, s.projectsWrite(nil, s.deleteItem))
}

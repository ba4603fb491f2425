package gateway

// The fixed operations of the OpenAPI document: every route but the capabilities' execute and
// quote, which capabilityOperations adds from the registry.

// fixedOperations are the document's operations other than the capabilities', by path and method.
func fixedOperations() map[string]map[string]operation {
	keyID := pathParam("id", "the key's id (id of create or list)")
	keyErrors := []int{401, 403, 404, 429, 500, 503}
	keyWriteErrors := []int{400, 401, 403, 404, 409, 429, 500, 503}

	projectID := pathParam("project_id", "the project's id (project_id of create or list)")
	ops := map[string]map[string]operation{
		"/v1/keys": {
			"get": {id: OpListKeys, summary: "List the account's API keys, newest first (manage permission)", tags: []string{"Keys"},
				ok: ref("APIKeyList"), errors: []int{401, 403, 429, 500, 503}},
			"post": {id: OpCreateKey, summary: "Create an API key; its secret is shown once (manage permission)", tags: []string{"Keys"},
				body: ref("KeyCreate"), okStatus: 201, ok: ref("APIKeyCreated"), errors: []int{400, 401, 403, 413, 429, 500, 503}},
		},
		"/v1/keys/{id}": {
			"get": {id: OpGetKey, summary: "One API key with its usage this period (manage permission)", tags: []string{"Keys"},
				params: []any{keyID}, ok: ref("APIKey"), errors: keyErrors},
			"patch": {id: OpUpdateKey, summary: "Change a key's name, scope, metadata, expiry, budget, rate or manage permission", tags: []string{"Keys"},
				params: []any{keyID}, body: ref("KeyUpdate"), ok: ref("APIKey"), errors: keyWriteErrors},
			"delete": {id: OpRevokeKey, summary: "Revoke a key (it is kept, listed as revoked)", tags: []string{"Keys"},
				params: []any{keyID}, ok: ref("APIKey"), errors: keyErrors},
		},
		"/v1/keys/{id}/roll": {"post": {id: OpRollKey, summary: "Issue a new secret; the old one stays valid for overlap_seconds", tags: []string{"Keys"},
			params: []any{keyID}, body: ref("KeyRoll"), ok: ref("APIKeyCreated"), errors: keyWriteErrors}},
		"/v1/catalog": {"get": {id: OpGetCatalog, summary: "List capabilities for the caller's plan and this deployment", tags: []string{"Discovery"},
			ok: ref("CatalogResponse"), errors: readErrors}},
		"/v1/capabilities/{id}": {"get": {id: OpInspectCapability, summary: "Inspect one capability: body schema, follow-ups, examples, cost", tags: []string{"Discovery"},
			params: []any{pathParam("id", "a capability id from the catalog")}, ok: ref("CapabilityInspectResponse"), errors: append([]int{404}, readErrors...)}},
		"/v1/follow-up": {"post": {id: OpFollowUp, summary: "Continue a search (more, update) or act on one record (details, …)", tags: []string{"Searches"},
			description: "Search scope (search_id with more or update) answers an ExecuteResponse; record scope (record_id with a record action) a RecordFollowUpResponse.",
			body:        ref("FollowUpRequest"), ok: map[string]any{"oneOf": []any{ref("ExecuteResponse"), ref("RecordFollowUpResponse")}},
			errors: append([]int{404, 410}, billedErrors...), idempotent: true, cached: true, ceiling: true}},
		"/v1/sharpen": {"post": {id: OpSharpen, summary: "Second-opinion review of a draft answer by another model vendor", tags: []string{"Sharpen"},
			body: ref("SharpenRequest"), ok: ref("SharpenResponse"), errors: billedErrors, idempotent: true, ceiling: true}},
		"/v1/account": {"get": {id: OpGetAccount, summary: "The caller's plan, status and credit balance", tags: []string{"Account"},
			ok: ref("AccountResponse"), errors: readErrors}},
		"/v1/guide": {"get": {id: OpGetGuide, summary: "Markdown guide for applications and AI agents", tags: []string{"Discovery"},
			ok: strSchema, okType: "text/markdown", errors: readErrors}},
		"/v1/openapi.json": {"get": {id: OpGetOpenAPI, summary: "This document (OpenAPI 3.1)", tags: []string{"Discovery"}, public: true,
			ok: map[string]any{"type": "object"}, errors: []int{500}}},
		"/healthz": {"get": {id: OpGetHealth, summary: "Liveness: the process answers", tags: []string{"Operations"}, public: true,
			ok: ref("HealthResponse"), errors: []int{500}}},
		"/readyz": {"get": {id: OpGetReady, summary: "Readiness: the database takes writes and its migrations are current (Redis is not required: this instance fails open without it)", tags: []string{"Operations"}, public: true,
			ok: ref("ReadyResponse"), errors: []int{500, 503}}},
		"/v1/projects/status": {"get": {id: OpGetProjectsStatus, summary: "Projects access and quota for the plan", tags: []string{"Projects"},
			ok: ref("ProjectsStatusEnvelope"), errors: readErrors, projects: true}},
		"/v1/projects": {
			"get": {id: OpListProjects, summary: "List projects, newest first", tags: []string{"Projects"}, params: pageParams3,
				ok: ref("ProjectListEnvelope"), errors: pagedReadErrors, projects: true},
			"post": {id: OpCreateProject, summary: "Create a project (durable request id required: Idempotency-Key or request_id)", tags: []string{"Projects"},
				body: ref("ProjectCreate"), okStatus: 201, ok: ref("ProjectEnvelope"), errors: createErrors, idempotent: true, projects: true},
		},
		"/v1/projects/{project_id}": {
			"get": {id: OpGetProject, summary: "A project with a page of its items", tags: []string{"Projects"}, params: append([]any{projectID}, pageParams3...),
				ok: ref("ProjectDetailEnvelope"), errors: projectErrors, projects: true},
			"delete": {id: OpDeleteProject, summary: "Delete a project and its items (durable request id required)", tags: []string{"Projects"}, params: []any{projectID},
				ok: ref("ProjectDeletedEnvelope"), errors: deleteErrors, idempotent: true, projects: true},
		},
		"/v1/projects/{project_id}/items": {"post": {id: OpAddProjectItem, summary: "Save a record snapshot or a note (durable request id required)", tags: []string{"Projects"},
			params: []any{projectID}, body: ref("ProjectItemCreate"), okStatus: 201, ok: ref("ProjectItemEnvelope"), errors: addItemErrors, idempotent: true, projects: true}},
		"/v1/projects/{project_id}/items/{item_id}": {"delete": {id: OpDeleteProjectItem, summary: "Delete an item (durable request id required)", tags: []string{"Projects"},
			params: []any{projectID, pathParam("item_id", "the item's id")}, ok: ref("ItemDeletedEnvelope"), errors: deleteErrors, idempotent: true, projects: true}},
	}
	ops["/v1/requests"] = map[string]operation{"get": {id: OpListRequests, summary: "The request log: this account's calls, errors included, newest first (manage key)", tags: []string{"Management"},
		description: "Every call to /v1 and /mcp whose key is known, with its status, error code, credits and latency. Entries are written within about a second of the answer and kept for the deployment's retention (30 days by default).",
		params: []any{
			queryParam("key", "only calls of this key id", strSchema),
			queryParam("capability", "only calls of this capability id", strSchema),
			queryParam("status", "an HTTP status (404) or a class (4xx, 5xx)", map[string]any{"type": "string", "pattern": "^([1-5][0-9][0-9]|[1-5][xX][xX])$"}),
			queryParam("error_code", "only calls answered with this error code", strSchema),
			queryParam("from", "calls at or after this time (RFC 3339)", map[string]any{"type": "string", "format": "date-time"}),
			queryParam("to", "calls before this time (RFC 3339)", map[string]any{"type": "string", "format": "date-time"}),
			queryParam("limit", "page size, 1..100 (default 50)", map[string]any{"type": "integer", "minimum": 1, "maximum": 100}),
			queryParam("cursor", "next_cursor of the previous page", strSchema),
		}, ok: ref("RequestList"), errors: manageErrors}}
	ops["/v1/requests/{request_id}"] = map[string]operation{"get": {id: OpGetRequest, summary: "Look a call up by the request id its answer carried (manage key)", tags: []string{"Management"},
		params: []any{pathParam("request_id", "the X-Request-Id (requestId of an error envelope)")}, ok: ref("RequestLookup"), errors: append([]int{404}, manageErrors...)}}
	ops["/v1/usage"] = map[string]operation{"get": {id: OpGetUsage, summary: "Calls, errors and credits grouped by day, capability or key, as JSON or CSV (manage key)", tags: []string{"Management"},
		description: "From the request log. CSV with format=csv or Accept: text/csv. The range defaults to the 30 days before to (default now) and may span at most 366 days.",
		params: []any{
			queryParam("group_by", "day (UTC, default), capability or key", map[string]any{"type": "string", "enum": []any{"day", "capability", "key"}}),
			queryParam("from", "start of the range (RFC 3339)", map[string]any{"type": "string", "format": "date-time"}),
			queryParam("to", "end of the range, exclusive (RFC 3339)", map[string]any{"type": "string", "format": "date-time"}),
			queryParam("format", "json (default) or csv", map[string]any{"type": "string", "enum": []any{"json", "csv"}}),
		}, ok: ref("UsageResponse"), errors: manageErrors}}
	return ops
}

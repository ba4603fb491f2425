package gateway

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
)

// API version and contract revision of the machine-readable description (spec section 9).
const (
	APIVersion       = "0.1.0"
	ContractRevision = "2026-09-24"
)

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

func obj(required []string, props map[string]any, extra bool) map[string]any {
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": extra}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

var (
	str       = map[string]any{"type": "string"}
	boolT     = map[string]any{"type": "boolean"}
	nonNegInt = map[string]any{"type": "integer", "minimum": 0}
)

func arr(items any) map[string]any { return map[string]any{"type": "array", "items": items} }

// responseSchemas are the response shapes of spec section 2 (records allow extra keys).
func responseSchemas() map[string]any {
	return map[string]any{
		"Violation": obj([]string{"path", "message"}, map[string]any{"path": str, "message": str}, false),
		"ErrorEnvelope": obj([]string{"error"}, map[string]any{"error": obj([]string{"code", "message", "retryable"}, map[string]any{
			"code":       map[string]any{"type": "string", "enum": codesEnum()},
			"message":    str,
			"retryable":  boolT,
			"hint":       str,
			"violations": arr(ref("Violation")),
			"requestId":  str,
		}, false)}, false),
		"Balance": obj([]string{"used", "cap", "period_end"}, map[string]any{
			"used": nonNegInt, "cap": nonNegInt,
			"period_end": map[string]any{"type": []any{"string", "null"}, "format": "date-time"},
		}, false),
		"NextStep": obj([]string{"url", "actions", "example"}, map[string]any{
			"url":     str,
			"actions": arr(map[string]any{"type": "string", "enum": []any{"more", "update"}}),
			"example": map[string]any{"type": []any{"object", "null"}},
		}, false),
		"WorkoutResource": obj([]string{"id", "url", "title", "video_available"}, map[string]any{
			"id": map[string]any{"type": "string", "pattern": "^wkt_[A-Za-z0-9]{16}$"}, "url": str, "title": str,
			"video_available": map[string]any{"const": true},
		}, true),
		"RecordSummary": obj([]string{"record_id", "title"}, map[string]any{
			"record_id":        map[string]any{"type": "string", "pattern": "^rec_[A-Za-z0-9]{16}$"},
			"title":            str,
			"url":              str,
			"snippet":          str,
			"workout_resource": ref("WorkoutResource"),
		}, true),
		"Filter": obj([]string{"id", "label", "group"}, map[string]any{"id": str, "label": str, "group": str}, false),
		"ExecuteResponse": obj([]string{"search_id", "capability", "results", "result_count", "has_more", "next", "record_actions", "charged_credits", "balance"}, map[string]any{
			"search_id":       map[string]any{"type": "string", "pattern": "^srch_[A-Za-z0-9]{16}$"},
			"capability":      str,
			"results":         arr(ref("RecordSummary")),
			"result_count":    nonNegInt,
			"has_more":        boolT,
			"filters":         arr(ref("Filter")),
			"next":            ref("NextStep"),
			"record_actions":  arr(str),
			"notes":           arr(str),
			"charged_credits": nonNegInt,
			"balance":         ref("Balance"),
		}, false),
		"Link": obj([]string{"label", "url"}, map[string]any{"label": str, "url": str}, false),
		"RecordFollowUpResponse": obj([]string{"record_id", "action", "detail", "links", "charged_credits", "balance"}, map[string]any{
			"record_id": str, "action": str, "detail": map[string]any{}, "links": arr(ref("Link")), "cached": boolT,
			"charged_credits": nonNegInt, "balance": ref("Balance"),
		}, false),
		"FollowUpRequest": followUpRequestSchema.Doc,
		"CatalogCapability": obj([]string{"id", "title", "summary", "topic", "enabled", "available", "typical_credits", "inspect_url"}, map[string]any{
			"id": str, "title": str, "summary": str, "topic": str, "enabled": boolT, "available": boolT,
			"unavailable_reason": str, "typical_credits": nonNegInt, "inspect_url": str,
		}, false),
		"CatalogSharpen": obj([]string{"tier", "url", "typical_credits", "enabled"}, map[string]any{
			"tier":   map[string]any{"type": "string", "enum": []any{"sharpen", "plus", "ultra", "ultra2x"}},
			"stage":  map[string]any{"type": "string", "enum": []any{"stock", "stage1", "stage2", "stage3", "stage3+"}},
			"stages": arr(obj([]string{"stage", "tier"}, map[string]any{"stage": str, "tier": str}, false)),
			"url":    str, "typical_credits": nonNegInt, "enabled": boolT,
		}, false),
		"CatalogResponse": obj([]string{"capabilities", "sharpen", "instructions"}, map[string]any{
			"capabilities": arr(ref("CatalogCapability")), "sharpen": ref("CatalogSharpen"), "instructions": str,
		}, false),
		"FollowUpDescriptor": obj([]string{"action", "scope", "description"}, map[string]any{
			"action": str, "scope": map[string]any{"type": "string", "enum": []any{"search", "record"}}, "description": str,
			"params_schema": map[string]any{"type": "object"},
		}, false),
		"CapabilityInspectResponse": obj([]string{"id", "title", "description", "available", "execute", "follow_ups", "examples", "cost"}, map[string]any{
			"id": str, "title": str, "description": str, "available": boolT, "unavailable_reason": str,
			"execute": obj([]string{"method", "url", "body_schema"}, map[string]any{
				"method": map[string]any{"const": "POST"}, "url": str, "body_schema": map[string]any{"type": "object"},
			}, false),
			"follow_ups": arr(ref("FollowUpDescriptor")),
			"examples":   arr(obj([]string{"title", "body"}, map[string]any{"title": str, "body": map[string]any{"type": "object"}}, false)),
			"cost":       obj([]string{"typical_credits", "basis"}, map[string]any{"typical_credits": nonNegInt, "basis": str}, false),
		}, false),
		"SharpenRequest": sharpenSchema.Doc,
		"SharpenResponse": obj([]string{"tier", "reviews", "partial", "instruction", "charged_credits", "balance"}, map[string]any{
			"tier":  map[string]any{"type": "string", "enum": []any{"sharpen", "plus", "ultra", "ultra2x"}},
			"stage": map[string]any{"type": "string", "enum": []any{"stage1", "stage2", "stage3", "stage3+"}},
			"reviews": arr(obj([]string{"reviewer", "review"}, map[string]any{
				"reviewer": obj([]string{"family", "model"}, map[string]any{"family": str, "model": str}, false),
				"review":   str,
			}, false)),
			"partial": boolT, "routing_note": str, "instruction": str,
			"charged_credits": nonNegInt, "balance": ref("Balance"),
		}, false),
		"ProjectsEnvelope": map[string]any{
			"type": "object", "additionalProperties": false, "required": []any{"status", "commit_status", "request_id"},
			"properties": map[string]any{
				"status":        map[string]any{"type": "string", "enum": []any{"ok", "error"}},
				"commit_status": map[string]any{"type": "string", "enum": []any{"committed", "replayed", "not_committed"}},
				"request_id":    str,
				"data":          map[string]any{"type": "object"},
				"error":         map[string]any{"$ref": "#/components/schemas/ErrorEnvelope/properties/error"},
			},
		},
		"ProjectCreate":     projectCreateSchema.Doc,
		"ProjectItemCreate": itemCreateSchema.Doc,
		"AccountResponse": obj([]string{"plan", "status", "cadence", "credits"}, map[string]any{
			"plan": str, "status": str, "cadence": str,
			"credits": obj([]string{"used", "cap", "remaining", "period_end"}, map[string]any{
				"used": nonNegInt, "cap": nonNegInt, "remaining": nonNegInt,
				"period_end": map[string]any{"type": "string", "format": "date-time"},
			}, true),
		}, true),
	}
}

func codesEnum() []any {
	out := []any{}
	for _, c := range providers.Codes() {
		out = append(out, string(c))
	}
	return out
}

func jsonResponse(desc, schema string) map[string]any {
	return map[string]any{"description": desc, "content": map[string]any{"application/json": map[string]any{"schema": ref(schema)}}}
}

var errorResponse = jsonResponse("error envelope (spec section 7)", "ErrorEnvelope")

func op(summary string, ok map[string]any, body map[string]any) map[string]any {
	o := map[string]any{"summary": summary, "responses": map[string]any{"200": ok, "default": errorResponse}}
	if body != nil {
		o["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": body}}}
	}
	return o
}

func projectsOp(summary string, body map[string]any) map[string]any {
	env := map[string]any{"description": "projects envelope", "content": map[string]any{"application/json": map[string]any{"schema": ref("ProjectsEnvelope")}}}
	o := map[string]any{"summary": summary, "tags": []any{"Projects"}, "responses": map[string]any{"200": env, "201": env, "default": env}}
	if body != nil {
		o["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": body}}}
	}
	return o
}

// OpenAPI builds the machine-readable description from the registry.
func OpenAPI(caps []*providers.Capability, extraPaths map[string]any, extraSchemas map[string]any) map[string]any {
	schemas := responseSchemas()
	for k, v := range extraSchemas {
		schemas[k] = v
	}
	paths := map[string]any{
		"/v1/catalog": map[string]any{"get": op("List capabilities for the caller's plan and this deployment", jsonResponse("catalog", "CatalogResponse"), nil)},
		"/v1/capabilities/{id}": map[string]any{"get": map[string]any{
			"summary":    "Inspect one capability: body schema, follow-ups, examples, cost",
			"parameters": []any{map[string]any{"name": "id", "in": "path", "required": true, "schema": str}},
			"responses":  map[string]any{"200": jsonResponse("inspection", "CapabilityInspectResponse"), "default": errorResponse},
		}},
		"/v1/follow-up": map[string]any{"post": op("Continue a search (more, update) or act on one record",
			map[string]any{"description": "search scope: ExecuteResponse; record scope: RecordFollowUpResponse",
				"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"oneOf": []any{ref("ExecuteResponse"), ref("RecordFollowUpResponse")}}}}},
			ref("FollowUpRequest"))},
		"/v1/sharpen": map[string]any{"post": op("Second-opinion review of a draft answer by another model vendor",
			jsonResponse("reviews", "SharpenResponse"), ref("SharpenRequest"))},
		"/v1/projects/status": map[string]any{"get": projectsOp("Projects access and quota for the plan", nil)},
		"/v1/projects": map[string]any{
			"get":  projectsOp("List projects (limit, offset)", nil),
			"post": projectsOp("Create a project (durable request id required)", ref("ProjectCreate")),
		},
		"/v1/projects/{project_id}": map[string]any{
			"get":    projectsOp("A project with its items (limit, offset)", nil),
			"delete": projectsOp("Delete a project and its items (durable request id required)", nil),
		},
		"/v1/projects/{project_id}/items":           map[string]any{"post": projectsOp("Save a record snapshot or a note (durable request id required)", ref("ProjectItemCreate"))},
		"/v1/projects/{project_id}/items/{item_id}": map[string]any{"delete": projectsOp("Delete an item (durable request id required)", nil)},
		"/v1/account": map[string]any{"get": op("The caller's plan, status and credit balance", jsonResponse("account", "AccountResponse"), nil)},
		"/v1/guide": map[string]any{"get": map[string]any{"summary": "Markdown guide for applications and AI agents",
			"responses": map[string]any{"200": map[string]any{"description": "guide", "content": map[string]any{"text/markdown": map[string]any{"schema": str}}}, "default": errorResponse}}},
		"/v1/openapi.json": map[string]any{"get": map[string]any{"summary": "This document", "security": []any{},
			"responses": map[string]any{"200": map[string]any{"description": "OpenAPI 3.1", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}}}}},
		"/healthz": map[string]any{"get": map[string]any{"summary": "Liveness", "security": []any{},
			"responses": map[string]any{"200": map[string]any{"description": "the process answers", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}}}}},
		"/readyz": map[string]any{"get": map[string]any{"summary": "Readiness: database reachable and migrations current", "security": []any{},
			"responses": map[string]any{"200": map[string]any{"description": "ready", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}}, "default": errorResponse}}},
	}
	for _, cp := range caps {
		name := "Request." + cp.ID
		doc := map[string]any{}
		for k, v := range cp.Schema().Doc {
			if k != "$schema" {
				doc[k] = v
			}
		}
		schemas[name] = doc
		paths["/v1/capabilities/"+cp.ID+"/execute"] = map[string]any{"post": map[string]any{
			"summary":     cp.Title + ": " + cp.Summary,
			"description": cp.Description,
			"operationId": "execute." + cp.ID,
			"tags":        []any{cp.Topic},
			"requestBody": map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": ref(name)}}},
			"responses":   map[string]any{"200": jsonResponse("results", "ExecuteResponse"), "default": errorResponse},
		}}
	}
	for k, v := range extraPaths {
		paths[k] = v
	}
	return map[string]any{
		"openapi":             "3.1.0",
		"jsonSchemaDialect":   "https://json-schema.org/draft/2020-12/schema",
		"x-contract-revision": ContractRevision,
		"info": map[string]any{"title": "capgate capability API", "version": APIVersion,
			"description": "Typed, metered search and lookup capabilities plus sharpen. All bodies are JSON."},
		"security":   []any{map[string]any{"bearer": []any{}}},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas, "securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "cap_live_… or cap_test_… key"}}},
	}
}

// openapiDoc renders the document once per server.
func (s *Server) openapiDoc() ([]byte, error) {
	s.openapiOnce.Do(func() {
		s.openapiJSON, s.openapiErr = json.Marshal(OpenAPI(s.order, s.extraPaths, s.extraSchemas))
	})
	return s.openapiJSON, s.openapiErr
}

// openapi answers GET /v1/openapi.json.
func (s *Server) openapi(c *fiber.Ctx) error {
	b, err := s.openapiDoc()
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(b)
}

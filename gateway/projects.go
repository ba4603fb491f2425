package gateway

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// Projects are durable research folders (DESIGN.md section 7). Their routes answer with their own
// envelope: {status: ok|error, commit_status: committed|replayed|not_committed, request_id, data|error}.

const (
	committed    = "committed"
	replayed     = "replayed"
	notCommitted = "not_committed"
)

var projectCreateSchema = providers.MustCompileSchema("project-create", `{
  "type": "object", "additionalProperties": false, "required": ["name"],
  "properties": {
    "name": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "\\S", "description": "project name"},
    "request_id": {"type": "string", "minLength": 1, "maxLength": 255, "description": "durable request id (or the Idempotency-Key header)"}
  }
}`)

var itemCreateSchema = providers.MustCompileSchema("project-item", `{
  "type": "object", "additionalProperties": false, "required": ["kind"],
  "properties": {
    "kind": {"type": "string", "enum": ["record", "note"], "description": "record: a snapshot of a search record; note: text"},
    "record_id": {"type": "string", "pattern": "^rec_[A-Za-z0-9]{16}$", "description": "the record to snapshot (kind record)"},
    "note": {"type": "string", "minLength": 1, "maxLength": 20000, "pattern": "\\S", "description": "the note (kind note)"},
    "request_id": {"type": "string", "minLength": 1, "maxLength": 255, "description": "durable request id (or the Idempotency-Key header)"}
  },
  "oneOf": [
    {"properties": {"kind": {"const": "record"}}, "required": ["record_id"], "not": {"required": ["note"]}},
    {"properties": {"kind": {"const": "note"}}, "required": ["note"], "not": {"required": ["record_id"]}}
  ]
}`)

// projectAction is a projects handler: it returns the HTTP status and the data of the answer.
type projectAction func(c *fiber.Ctx, p *Principal, body providers.Request) (int, any, error)

func (s *Server) writeProjects(c *fiber.Ctx, status int, env projectsEnvelope) error {
	c.Set(fiber.HeaderXRequestID, requestID(c))
	return c.Status(status).JSON(env)
}

func (s *Server) projectsError(c *fiber.Ctx, rid string, err error) error {
	e, internal := toError(err)
	c.Locals(logErrorLocal, e)
	if internal {
		s.log.Error("internal error", "request_id", requestID(c), "path", c.Path(), "err", err)
	}
	if e.RetryAfter > 0 {
		c.Set("Retry-After", strconv.Itoa(int(e.RetryAfter.Seconds()+0.999)))
	}
	body := errorBody{Code: e.Code, Message: e.Message, Retryable: e.IsRetryable(), Hint: e.Hint, Violations: e.Violations, RequestID: requestID(c)}
	return s.writeProjects(c, e.HTTPStatus(), projectsEnvelope{Status: "error", CommitStatus: notCommitted, RequestID: rid, Error: &body})
}

// projectsRead wraps a read: nothing is committed.
func (s *Server) projectsRead(fn projectAction) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p := principalOf(c)
		status, data, err := fn(c, p, nil)
		if err != nil {
			return s.projectsError(c, requestID(c), err)
		}
		b, err := json.Marshal(data)
		if err != nil {
			return s.projectsError(c, requestID(c), err)
		}
		return s.writeProjects(c, status, projectsEnvelope{Status: "ok", CommitStatus: notCommitted, RequestID: requestID(c), Data: b})
	}
}

// projectsWrite wraps a write with its durable request id: the first request commits; a repeat
// with the same id and body replays the stored answer; the same id with another body is refused.
func (s *Server) projectsWrite(schema *providers.Schema, fn projectAction) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p := principalOf(c)
		var body providers.Request
		if schema != nil {
			b, err := providers.DecodeBody(c.BodyRaw())
			if err != nil {
				return s.projectsError(c, requestID(c), err)
			}
			if vs := schema.Validate(map[string]any(b)); len(vs) > 0 {
				msg := "the body is invalid; see violations"
				if len(vs) == 1 {
					msg = vs[0].Path + ": " + vs[0].Message
				}
				return s.projectsError(c, requestID(c), providers.Invalid(msg, vs...))
			}
			body = b
		}
		rid := c.Get("Idempotency-Key")
		if rid == "" && body != nil {
			rid = body.Str("request_id")
		}
		if rid == "" {
			return s.projectsError(c, requestID(c), &Error{Code: providers.CodeInvalidRequest,
				Message:    "projects writes need a durable request id: an Idempotency-Key header or a request_id field",
				Violations: []providers.Violation{{Path: "/request_id", Message: "required (or send Idempotency-Key)"}}})
		}
		sc := idemScope(p, tenants.SpaceProjects)
		cl, err := s.claimRequestID(c.UserContext(), sc, rid, requestHash(c))
		if err != nil {
			return s.projectsError(c, rid, err)
		}
		if cl.replay != nil {
			return s.writeProjects(c, cl.replay.Status, projectsEnvelope{Status: "ok", CommitStatus: replayed, RequestID: rid, Data: json.RawMessage(cl.replay.Response)})
		}
		status, data, err := fn(c, p, body)
		if err != nil {
			s.finishRequestID(c, sc, rid, false)
			return s.projectsError(c, rid, err)
		}
		b, err := json.Marshal(data)
		if err != nil {
			s.finishRequestID(c, sc, rid, false)
			return s.projectsError(c, rid, err)
		}
		// The data is stored; replays rebuild the envelope around it with commit_status replayed.
		s.rememberAnswer(c, sc, rid, status, fiber.MIMEApplicationJSON, string(b))
		return s.writeProjects(c, status, projectsEnvelope{Status: "ok", CommitStatus: committed, RequestID: rid, Data: b})
	}
}

func projectStoreError(err error, what string) error {
	var inv *tenants.InvalidError
	switch {
	case errors.As(err, &inv):
		// A value the store refuses (a NUL byte, invalid UTF-8) is the client's to fix, not an outage.
		return &Error{Code: providers.CodeInvalidRequest, Message: inv.Message,
			Violations: []providers.Violation{{Path: "/" + inv.Field, Message: inv.Message}}}
	case errors.Is(err, tenants.ErrNotFound):
		return &Error{Code: providers.CodeNotFound, Message: "unknown " + what}
	case errors.Is(err, tenants.ErrQuota):
		return &Error{Code: providers.CodeCapabilityDisabled, Message: err.Error(), Hint: "delete projects or items, or move to a larger plan"}
	}
	return storeError(err)
}

func pageParams(c *fiber.Ctx) (int, int, error) {
	limit, offset := 20, 0
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return 0, 0, &Error{Code: providers.CodeInvalidRequest, Message: "limit must be an integer from 1 to 100", Violations: []providers.Violation{{Path: "", Message: "limit"}}}
		}
		limit = n
	}
	if v := c.Query("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, 0, &Error{Code: providers.CodeInvalidRequest, Message: "offset must be an integer >= 0", Violations: []providers.Violation{{Path: "", Message: "offset"}}}
		}
		offset = n
	}
	return limit, offset, nil
}

// projectOwner is whose projects a caller reaches: its tenant in its key's mode (a test key
// never sees live projects).
func projectOwner(p *Principal) tenants.ProjectOwner {
	return tenants.ProjectOwner{TenantID: p.Tenant.ID, Mode: p.Key.Mode}
}

func (s *Server) projectsStatus(c *fiber.Ctx, p *Principal, _ providers.Request) (int, any, error) {
	u, err := s.store.ProjectUsage(c.UserContext(), projectOwner(p))
	if err != nil {
		return 0, nil, storeError(err)
	}
	return 200, projectsStatus{Access: p.Plan.ProjectLimit > 0, Plan: p.Plan.ID,
		Projects: usageLimit{Used: u.Projects, Limit: p.Plan.ProjectLimit}, Items: usageLimit{Used: u.Items, Limit: p.Plan.ItemLimit}}, nil
}

func (s *Server) listProjects(c *fiber.Ctx, p *Principal, _ providers.Request) (int, any, error) {
	limit, offset, err := pageParams(c)
	if err != nil {
		return 0, nil, err
	}
	ps, err := s.store.Projects(c.UserContext(), projectOwner(p), limit+1, offset)
	if err != nil {
		return 0, nil, storeError(err)
	}
	out := projectList{Projects: orEmpty(ps)}
	if len(ps) > limit {
		next := offset + limit
		out.Projects, out.NextOffset = ps[:limit], &next
	}
	return 200, out, nil
}

func (s *Server) createProject(c *fiber.Ctx, p *Principal, body providers.Request) (int, any, error) {
	if p.Plan.ProjectLimit == 0 {
		return 0, nil, &Error{Code: providers.CodeCapabilityDisabled, Message: "projects are not included in the " + p.Plan.ID + " plan"}
	}
	pr, err := s.store.CreateProject(c.UserContext(), projectOwner(p), p.Plan, body.Str("name"))
	if err != nil {
		return 0, nil, projectStoreError(err, "project")
	}
	return 201, pr, nil
}

func itemsJSON(items []tenants.ProjectItem) []itemJSON {
	out := make([]itemJSON, 0, len(items))
	for _, it := range items {
		j := itemJSON{ProjectItem: it}
		if it.Snapshot != "" {
			j.Record = json.RawMessage(it.Snapshot)
		}
		out = append(out, j)
	}
	return out
}

func (s *Server) getProject(c *fiber.Ctx, p *Principal, _ providers.Request) (int, any, error) {
	limit, offset, err := pageParams(c)
	if err != nil {
		return 0, nil, err
	}
	ctx := c.UserContext()
	pr, err := s.store.Project(ctx, projectOwner(p), c.Params("project_id"))
	if err != nil {
		return 0, nil, projectStoreError(err, "project")
	}
	items, err := s.store.Items(ctx, projectOwner(p), pr.ID, limit+1, offset)
	if err != nil {
		return 0, nil, storeError(err)
	}
	out := projectDetail{Project: pr}
	if len(items) > limit {
		next := offset + limit
		items, out.NextOffset = items[:limit], &next
	}
	out.Items = itemsJSON(items)
	return 200, out, nil
}

func (s *Server) deleteProject(c *fiber.Ctx, p *Principal, _ providers.Request) (int, any, error) {
	id := c.Params("project_id")
	if err := s.store.DeleteProject(c.UserContext(), projectOwner(p), id); err != nil {
		return 0, nil, projectStoreError(err, "project")
	}
	return 200, projectDeleted{ProjectID: id, Deleted: true}, nil
}

func (s *Server) addItem(c *fiber.Ctx, p *Principal, body providers.Request) (int, any, error) {
	ctx := c.UserContext()
	item := &tenants.ProjectItem{ProjectID: c.Params("project_id"), TenantID: p.Tenant.ID, Mode: p.Key.Mode, Kind: body.Str("kind"), Note: body.Str("note")}
	if item.Kind == "record" {
		sess, rec, err := s.sessions.Record(ctx, p.Tenant.ID, p.Key.Mode, body.Str("record_id"))
		if err != nil {
			return 0, nil, sessionError(err, "record")
		}
		item.RecordID, item.Capability, item.Snapshot = rec.ID, sess.Capability, string(rec.Body)
	}
	if err := s.store.AddItem(ctx, p.Plan, item); err != nil {
		return 0, nil, projectStoreError(err, "project")
	}
	return 201, itemsJSON([]tenants.ProjectItem{*item})[0], nil
}

func (s *Server) deleteItem(c *fiber.Ctx, p *Principal, _ providers.Request) (int, any, error) {
	pid, iid := c.Params("project_id"), c.Params("item_id")
	if err := s.store.DeleteItem(c.UserContext(), projectOwner(p), pid, iid); err != nil {
		return 0, nil, projectStoreError(err, "item")
	}
	return 200, itemDeleted{ProjectID: pid, ItemID: iid, Deleted: true}, nil
}

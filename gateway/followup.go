package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/gateway/session"
	"github.com/capgate/capgate/providers"
)

// followUpSchema is the spec's FollowUpRequest (unknown keys rejected).
const followUpSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["action"],
  "properties": {
    "action": {"type": "string", "minLength": 1, "maxLength": 40, "description": "more, update, or a record action such as details"},
    "search_id": {"type": "string", "pattern": "^srch_[A-Za-z0-9]{16}$", "description": "the search to continue (more, update)"},
    "record_id": {"type": "string", "pattern": "^rec_[A-Za-z0-9]{16}$", "description": "the record to act on (record actions)"},
    "params": {"type": "object", "description": "for update: a subset of the capability's request fields"}
  }
}`

var followUpRequestSchema = providers.MustCompileSchema("follow-up", followUpSchema)

// DecodeFollowUp decodes and validates a follow-up body.
func DecodeFollowUp(body []byte) (providers.Request, error) {
	req, err := providers.DecodeBody(body)
	if err != nil {
		return nil, err
	}
	if vs := followUpRequestSchema.Validate(map[string]any(req)); len(vs) > 0 {
		msg := "the follow-up body is invalid"
		if len(vs) == 1 {
			msg = vs[0].Path + ": " + vs[0].Message
		}
		return nil, providers.Invalid(msg, vs...)
	}
	if req.Str("search_id") == "" && req.Str("record_id") == "" {
		return nil, providers.Invalid("send search_id (more, update) or record_id (record actions)",
			providers.Violation{Path: "", Message: "search_id or record_id is required"})
	}
	return req, nil
}

// followUp answers POST /v1/follow-up.
func (s *Server) followUp(c *fiber.Ctx) error {
	req, err := DecodeFollowUp(c.Body())
	if err != nil {
		return err
	}
	action := req.Str("action")
	if rid := req.Str("record_id"); rid != "" {
		if req.Has("params") {
			return providers.InvalidField("/params", "params are only accepted with update")
		}
		return s.recordAction(c, req.Str("search_id"), rid, action)
	}
	switch action {
	case "more":
		if req.Has("params") {
			return providers.InvalidField("/params", "params are only accepted with update")
		}
		return s.more(c, req.Str("search_id"))
	case "update":
		params, ok := req.Object("params")
		if !ok {
			params = providers.Request{}
		}
		return s.update(c, req.Str("search_id"), params)
	}
	return providers.InvalidField("/action", fmt.Sprintf("unknown search action %q: use more or update, or send record_id for a record action", action))
}

func (s *Server) loadSession(c *fiber.Ctx, p *Principal, id string) (*session.Session, *providers.Capability, error) {
	sess, err := s.sessions.Get(c.UserContext(), p.Tenant.ID, p.Key.Mode, id)
	if err != nil {
		return nil, nil, sessionError(err, "search")
	}
	cp, ok := s.caps[sess.Capability]
	if !ok {
		return nil, nil, &Error{Code: providers.CodeCapabilityUnavailable, Message: fmt.Sprintf("%s is no longer offered by this gateway", sess.Capability)}
	}
	c.Locals("capability", cp.ID)
	return sess, cp, nil
}

func sessionError(err error, what string) error {
	switch {
	case errors.Is(err, session.ErrNotFound):
		if what == "record" {
			return &Error{Code: providers.CodeRecordUnknown, Message: "unknown record_id", Violations: []providers.Violation{{Path: "/record_id", Message: "no such record"}}}
		}
		return &Error{Code: providers.CodeNotFound, Message: "unknown search_id", Violations: []providers.Violation{{Path: "/search_id", Message: "no such search"}}}
	case errors.Is(err, session.ErrExpired):
		if what == "record" {
			return &Error{Code: providers.CodeSessionExpired, Message: "the cached record detail is no longer available; run the search again"}
		}
		return &Error{Code: providers.CodeSessionExpired, Message: "the search session is no longer available; run the search again"}
	}
	return storeError(err)
}

// more serves the next page: from the held set for local paging (free, no upstream call), or
// from the provider with the stored paging state.
func (s *Server) more(c *fiber.Ctx, searchID string) error {
	p := principalOf(c)
	ctx := c.UserContext()
	for attempt := 0; ; attempt++ {
		sess, cp, err := s.loadSession(c, p, searchID)
		if err != nil {
			return err
		}
		if cp.Paging == providers.PagingSingle {
			return providers.InvalidField("/action", fmt.Sprintf("%s returns a single result; more is refused", cp.ID))
		}
		if !sess.HasMore {
			return providers.InvalidField("/action", "this search has no more results (has_more is false); use update to change it")
		}
		if cp.Paging == providers.PagingLocal {
			if err := s.admit(p, cp, false); err != nil {
				return err
			}
			n := s.localPageSize(cp, sess)
			shown, err := s.sessions.Held(ctx, sess, sess.LocalOffset, n)
			if err != nil {
				return storeError(err)
			}
			sess.LocalOffset += len(shown)
			sess.HasMore = sess.LocalOffset < sess.LocalTotal
			if err := s.sessions.Advance(ctx, sess, nil); errors.Is(err, session.ErrConflict) && attempt < 3 {
				continue
			} else if err != nil {
				return sessionWriteError(err)
			}
			// A local page is served from the held set and never charged; it is still one call
			// in the ledger so usage pages count it.
			ch, err := s.reserve(ctx, p, cp, "more", 0)
			if err != nil {
				return err
			}
			if _, err := ch.settle(ctx, requestID(c), 0); err != nil {
				return err
			}
			return s.respondPage(c, p, cp, sess, shown, decodeStrings(sess.Notes), decodeFilters(sess.Filters), 0)
		}
		if err := s.admit(p, cp, true); err != nil {
			return err
		}
		req, err := storedQuery(sess)
		if err != nil {
			return err
		}
		retry, err := s.pageFollowUp(c, p, cp, sess, req, json.RawMessage(sess.NextState), "more", false)
		if retry && attempt < 3 {
			continue
		}
		return err
	}
}

// pageFollowUp reserves, fetches one provider page into the session and answers it. restart
// begins the search again (update). retry is true when another follow-up changed the session
// first: nothing was charged and the caller may reload the session and try again.
func (s *Server) pageFollowUp(c *fiber.Ctx, p *Principal, cp *providers.Capability, sess *session.Session, req providers.Request, state json.RawMessage, action string, restart bool) (retry bool, err error) {
	ctx := c.UserContext()
	ch, err := s.reserve(ctx, p, cp, action, cp.Cost.Typical)
	if err != nil {
		return false, err
	}
	page, err := s.runPage(ctx, p, cp, req, state)
	if err != nil {
		ch.refund(ctx)
		return false, err
	}
	if restart {
		sess.Query, _ = json.Marshal(req)
		sess.Generation++
		sess.LocalTotal, sess.LocalOffset = 0, 0
	}
	shown, recs, err := s.fillSession(sess, cp, req, page)
	if err != nil {
		ch.refund(ctx)
		return false, err
	}
	if err := s.sessions.Advance(ctx, sess, recs); err != nil {
		ch.refund(ctx)
		return errors.Is(err, session.ErrConflict), sessionWriteError(err)
	}
	charged, err := ch.settle(ctx, requestID(c), pageCredits(cp, page))
	if err != nil {
		return false, err
	}
	return false, s.respondPage(c, p, cp, sess, shown, page.Notes, page.Filters, charged)
}

func sessionWriteError(err error) error {
	if errors.Is(err, session.ErrConflict) {
		return &Error{Code: providers.CodeServiceUnavailable, Message: "the search was changed by another request at the same time; retry"}
	}
	return storeError(err)
}

func (s *Server) localPageSize(cp *providers.Capability, sess *session.Session) int {
	q, _ := storedQuery(sess)
	return cp.PageSize(q)
}

func storedQuery(sess *session.Session) (providers.Request, error) {
	req, err := providers.DecodeBody(sess.Query)
	if err != nil {
		return nil, &Error{Code: providers.CodeSessionExpired, Message: "the search session is no longer available; run the search again"}
	}
	return req, nil
}

func decodeStrings(b json.RawMessage) []string {
	var out []string
	_ = json.Unmarshal(b, &out)
	return out
}

func decodeFilters(b json.RawMessage) []providers.Filter {
	var out []providers.Filter
	_ = json.Unmarshal(b, &out)
	return out
}

// mergeParams folds update params into the stored query: a shallow merge in which null removes a key.
func mergeParams(prev, params providers.Request) providers.Request {
	out := prev.Clone()
	for k, v := range params {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// update merges params into the stored query, validates the result, resets paging and runs the
// first page again under the same search_id.
func (s *Server) update(c *fiber.Ctx, searchID string, params providers.Request) error {
	p := principalOf(c)
	for attempt := 0; ; attempt++ {
		sess, cp, err := s.loadSession(c, p, searchID)
		if err != nil {
			return err
		}
		if cp.NoUpdate {
			return providers.InvalidField("/action", fmt.Sprintf("update is not offered by %s; execute a new search instead", cp.ID))
		}
		prev, err := storedQuery(sess)
		if err != nil {
			return err
		}
		// Params are a subset of the request fields: check their names against the schema first.
		if vs := unknownParams(cp, params); len(vs) > 0 {
			return providers.Invalid(vs[0].Path+": "+vs[0].Message, vs...)
		}
		merge := cp.Merge
		if merge == nil {
			merge = mergeParams
		}
		merged := merge(prev, params)
		req, err := cp.Prepare(merged, &providers.Update{Previous: prev, Params: params, Filters: decodeFilters(sess.Filters)})
		if err != nil {
			return underParams(err)
		}
		if err := s.admit(p, cp, true); err != nil {
			return err
		}
		retry, err := s.pageFollowUp(c, p, cp, sess, req, nil, "update", true)
		if retry && attempt < 3 {
			continue
		}
		return err
	}
}

// unknownParams refuses update params that are not request fields of the capability.
func unknownParams(cp *providers.Capability, params providers.Request) []providers.Violation {
	props, _ := cp.Schema().Doc["properties"].(map[string]any)
	var vs []providers.Violation
	for k := range params {
		if _, ok := props[k]; !ok {
			vs = append(vs, providers.Violation{Path: "/params/" + k, Message: fmt.Sprintf("%q is not a request field of %s", k, cp.ID)})
		}
	}
	return vs
}

// underParams moves violation paths of the merged request under /params.
func underParams(err error) error {
	e, ok := providers.AsError(err)
	if !ok || e.Code != providers.CodeInvalidRequest {
		return err
	}
	out := *e
	out.Violations = make([]providers.Violation, len(e.Violations))
	for i, v := range e.Violations {
		out.Violations[i] = providers.Violation{Path: "/params" + v.Path, Message: v.Message}
	}
	if len(out.Violations) == 1 {
		out.Message = out.Violations[0].Path + ": " + out.Violations[0].Message
	}
	return &out
}

// recordAction runs a record-scope follow-up.
func (s *Server) recordAction(c *fiber.Ctx, searchID, recordID, action string) error {
	p := principalOf(c)
	ctx := c.UserContext()
	rec, err := s.sessions.Record(ctx, p.Tenant.ID, p.Key.Mode, recordID)
	if err != nil {
		return sessionError(err, "record")
	}
	if searchID != "" && rec.SearchID != searchID {
		return &Error{Code: providers.CodeRecordUnknown, Message: "the record does not belong to that search",
			Violations: []providers.Violation{{Path: "/record_id", Message: "not a record of search_id"}}}
	}
	cp, ok := s.caps[rec.Capability]
	if !ok {
		return &Error{Code: providers.CodeCapabilityUnavailable, Message: fmt.Sprintf("%s is no longer offered by this gateway", rec.Capability)}
	}
	c.Locals("capability", cp.ID)
	valid := recordActions(cp, rec)
	act, ok := cp.Action(action)
	if !ok || !contains(valid, action) {
		msg := fmt.Sprintf("%q is not an action of this record", action)
		if len(valid) > 0 {
			msg += "; valid: " + strings.Join(valid, ", ")
		} else {
			msg += "; this record has no record actions"
		}
		if action == "more" || action == "update" {
			msg += " (more and update take search_id)"
		}
		return providers.InvalidField("/action", msg)
	}
	if act.Kind == providers.ActionStored {
		if err := s.admit(p, cp, false); err != nil {
			return err
		}
		var stored map[string]*providers.Detail
		if rec.Stored != "" {
			_ = unmarshalExact(rec.Stored, &stored)
		}
		d, ok := stored[action]
		if !ok || d == nil {
			return &Error{Code: providers.CodeSessionExpired, Message: "the cached record detail is no longer available; run the search again"}
		}
		return s.respondDetail(c, p, cp, rec, action, d, nil, 0)
	}
	return s.lookupAction(c, p, cp, act, rec)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// lookupAction bills the first provider lookup of a record action and serves repeats from the
// session's cache for free.
func (s *Server) lookupAction(c *fiber.Ctx, p *Principal, cp *providers.Capability, act *providers.Action, rec *session.Record) error {
	ctx := c.UserContext()
	if err := s.admit(p, cp, false); err != nil {
		return err
	}
	if body, ok, err := s.sessions.Detail(ctx, p.Tenant.ID, rec.ID, act.Name); err != nil {
		return storeError(err)
	} else if ok {
		var d providers.Detail
		if err := unmarshalExact(body, &d); err == nil {
			cached := true
			ch, err := s.reserve(ctx, p, cp, act.Name, 0)
			if err != nil {
				return err
			}
			if _, err := ch.settle(ctx, requestID(c), 0); err != nil {
				return err
			}
			return s.respondDetail(c, p, cp, rec, act.Name, &d, &cached, 0)
		}
	}
	if err := s.admit(p, cp, true); err != nil {
		return err
	}
	var q providers.Request
	if sess, err := s.sessions.Get(ctx, p.Tenant.ID, p.Key.Mode, rec.SearchID); err == nil {
		q, _ = storedQuery(sess)
	}
	ch, err := s.reserve(ctx, p, cp, act.Name, act.Credits)
	if err != nil {
		return err
	}
	d, err := s.runAction(ctx, p, cp, act, rec, q)
	if err != nil {
		ch.refund(ctx)
		return err
	}
	credits := act.Credits
	if d.Credits != nil {
		credits = *d.Credits
	}
	if b, err := json.Marshal(d); err == nil {
		if err := s.sessions.PutDetail(ctx, rec, act.Name, string(b)); err != nil {
			s.log.Warn("detail cache write failed", "record", rec.ID, "err", err)
		}
	}
	charged, err := ch.settle(ctx, requestID(c), credits)
	if err != nil {
		return err
	}
	cached := false
	return s.respondDetail(c, p, cp, rec, act.Name, d, &cached, charged)
}

func (s *Server) runAction(ctx context.Context, p *Principal, cp *providers.Capability, act *providers.Action, rec *session.Record, q providers.Request) (d *providers.Detail, err error) {
	ctx, cancel := context.WithTimeout(ctx, cp.Deadline)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("record action panic", "capability", cp.ID, "action", act.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			d, err = nil, &Error{Code: providers.CodeInternal, Message: "an internal error occurred; it has been logged"}
		}
	}()
	pr, err := providerRecord(rec)
	if err != nil {
		return nil, err
	}
	d, err = act.Run(ctx, s.newCall(cp, q, nil, p), pr)
	if err != nil {
		return nil, s.adapterError(ctx, cp, err)
	}
	if d == nil {
		return nil, &Error{Code: providers.CodeProviderError, Message: "the upstream returned no detail"}
	}
	return d, nil
}

// providerRecord rebuilds the adapter's view of a stored record.
func providerRecord(rec *session.Record) (*providers.Record, error) {
	var body map[string]any
	if err := unmarshalExact(rec.Body, &body); err != nil || body == nil {
		return nil, &Error{Code: providers.CodeSessionExpired, Message: "the cached record detail is no longer available; run the search again"}
	}
	r := &providers.Record{Fields: map[string]any{}}
	for k, v := range body {
		switch k {
		case "record_id":
		case "title":
			r.Title, _ = v.(string)
		case "url":
			r.URL, _ = v.(string)
		case "snippet":
			r.Snippet, _ = v.(string)
		default:
			r.Fields[k] = v
		}
	}
	if rec.Ref != "" {
		r.Ref = json.RawMessage(rec.Ref)
	}
	if rec.Stored != "" {
		_ = unmarshalExact(rec.Stored, &r.Stored)
	}
	return r, nil
}

func (s *Server) respondDetail(c *fiber.Ctx, p *Principal, cp *providers.Capability, rec *session.Record, action string, d *providers.Detail, cached *bool, charged int64) error {
	bal, err := s.balance(c.UserContext(), p)
	if err != nil {
		return err
	}
	body, err := json.Marshal(d.Body)
	if err != nil {
		return &Error{Code: providers.CodeInternal, Message: "the detail could not be encoded", Cause: err}
	}
	links := d.Links
	if links == nil {
		links = []providers.Link{}
	}
	return c.JSON(recordFollowUpResponse{RecordID: rec.ID, Action: action, Detail: body, Links: links, Cached: cached, ChargedCredits: charged, Balance: bal})
}

// unmarshalExact decodes stored JSON keeping numbers as json.Number, so a detail or record read
// back from the session answers exactly what the adapter stored (no float64 rounding).
func unmarshalExact(data string, v any) error {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

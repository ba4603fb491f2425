package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/searches"
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
	if !plainlyValid(req) {
		if vs := followUpRequestSchema.Validate(map[string]any(req)); len(vs) > 0 {
			msg := "the follow-up body is invalid"
			if len(vs) == 1 {
				msg = vs[0].Path + ": " + vs[0].Message
			}
			return nil, providers.Invalid(msg, vs...)
		}
	}
	if req.Str("search_id") == "" && req.Str("record_id") == "" {
		return nil, providers.Invalid("send search_id (more, update) or record_id (record actions)",
			providers.Violation{Path: "", Message: "search_id or record_id is required"})
	}
	return req, nil
}

// plainlyValid reports, without the schema validator, that a body without params certainly
// satisfies followUpSchema: only its string fields, each within its bounds. It is narrower than
// the schema (anything else goes through the validator, which words the errors), and it keeps
// the validator off the path of every record action.
func plainlyValid(req providers.Request) bool {
	for k, v := range req {
		s, ok := v.(string)
		if !ok {
			return false
		}
		switch k {
		case "action":
			if s == "" || len(s) > 40 && utf8.RuneCountInString(s) > 40 {
				return false
			}
		case "record_id":
			if !idOf(s, "rec_") {
				return false
			}
		case "search_id":
			if !idOf(s, "srch_") {
				return false
			}
		default:
			return false
		}
	}
	_, ok := req["action"]
	return ok
}

// idOf reports whether s is prefix followed by exactly 16 ASCII letters and digits.
func idOf(s, prefix string) bool {
	if len(s) != len(prefix)+16 || !strings.HasPrefix(s, prefix) {
		return false
	}
	for i := len(prefix); i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// followUp answers POST /v1/follow-up.
func (s *Server) followUp(c *fiber.Ctx) error {
	req, err := DecodeFollowUp(c.BodyRaw())
	if err != nil {
		return err
	}
	action := req.Str("action")
	// Record actions and local pages answer from the caller's own session; a provider page says
	// what the shared cache did instead.
	c.Set(CacheHeader, cacheBypass.String())
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

func (s *Server) loadSession(c *fiber.Ctx, p *Principal, id string) (*searches.Session, *providers.Capability, error) {
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
	case errors.Is(err, searches.ErrNotFound):
		if what == "record" {
			return &Error{Code: providers.CodeRecordUnknown, Message: "unknown record_id", Violations: []providers.Violation{{Path: "/record_id", Message: "no such record"}}}
		}
		return &Error{Code: providers.CodeNotFound, Message: "unknown search_id", Violations: []providers.Violation{{Path: "/search_id", Message: "no such search"}}}
	case errors.Is(err, searches.ErrExpired):
		if what == "record" {
			return &Error{Code: providers.CodeSessionExpired, Message: "the cached record detail is no longer available; run the search again"}
		}
		return &Error{Code: providers.CodeSessionExpired, Message: "the search session is no longer available; run the search again"}
	}
	return storeError(err)
}

// conflictRetries is how often a follow-up that lost a race on its session reloads it and runs
// again (nothing was charged for the attempt that lost).
const conflictRetries = 3

// retryOnConflict runs a follow-up again when another request changed its session first.
func retryOnConflict(run func() error) error {
	for attempt := 0; ; attempt++ {
		err := run()
		if !errors.Is(err, searches.ErrConflict) {
			return err
		}
		if attempt >= conflictRetries {
			return sessionWriteError(err)
		}
	}
}

// more serves the next page: from the held set for local paging (free, no upstream call), or
// from the provider with the stored paging state.
func (s *Server) more(c *fiber.Ctx, searchID string) error {
	p := principalOf(c)
	return retryOnConflict(func() error {
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
		req, err := storedQuery(sess)
		if err != nil {
			return err
		}
		if cp.Paging == providers.PagingLocal {
			if err := s.admit(p, cp, false); err != nil {
				return err
			}
			// A local page is served from the held set and never charged; it is still one call
			// in the ledger so usage pages count it.
			return s.bill(c, p, billedFor(cp, "more", 0), func(ctx context.Context) (*outcome, error) {
				shown := sess.Held(sess.LocalOffset, cp.PageSize(req))
				sess.LocalOffset += len(shown)
				sess.HasMore = sess.LocalOffset < sess.LocalTotal
				notes, filters := s.decodeStrings(sess.Notes), s.decodeFilters(sess.Filters)
				return &outcome{writes: []tenants.Write{s.sessions.Advance(sess)},
					render: func(c *fiber.Ctx, charged int64, bal balanceJSON) error {
						return respondPage(c, cp, sess, shown, notes, filters, charged, bal)
					}}, nil
			})
		}
		if err := s.admit(p, cp, true); err != nil {
			return err
		}
		return s.pageFollowUp(c, p, cp, sess, req, json.RawMessage(sess.NextState), "more", false)
	})
}

// pageFollowUp fetches one provider page into the session and answers it. restart begins the
// search again (update).
func (s *Server) pageFollowUp(c *fiber.Ctx, p *Principal, cp *providers.Capability, sess *searches.Session, req providers.Request, state json.RawMessage, action string, restart bool) error {
	cc, err := cacheControlOf(c)
	if err != nil {
		return err
	}
	return s.bill(c, p, billedFor(cp, action, cp.Cost.Typical), func(ctx context.Context) (*outcome, error) {
		// The session is this call's own copy: changed before the page is fetched, it is written
		// only with a page that arrived.
		var query []byte
		if restart {
			sess.Query, _ = json.Marshal(req)
			sess.Generation++
			sess.LocalTotal, sess.LocalOffset = 0, 0
			query = sess.Query
		}
		shown, meta, err := s.loadPage(ctx, p, cp, req, query, state, sess, cc)
		if err != nil {
			return nil, err
		}
		return s.pageOutcome(p, cp, sess, shown, meta, s.sessions.Advance(sess)), nil
	})
}

func sessionWriteError(err error) error {
	if errors.Is(err, searches.ErrConflict) {
		return &Error{Code: providers.CodeServiceUnavailable, Message: "the search was changed by another request at the same time; retry"}
	}
	return storeError(err)
}

func storedQuery(sess *searches.Session) (providers.Request, error) {
	req, err := providers.DecodeBody(sess.Query)
	if err != nil {
		return nil, &Error{Code: providers.CodeSessionExpired, Message: "the search session is no longer available; run the search again"}
	}
	return req, nil
}

// decodeStrings reads a session's stored notes; a value that no longer decodes reads as none
// and is counted.
func (s *Server) decodeStrings(b json.RawMessage) []string {
	var out []string
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			s.metrics.swallowed.WithLabelValues("session_notes").Inc()
			return nil
		}
	}
	return out
}

// decodeFilters reads a session's stored filters; a value that no longer decodes reads as none
// and is counted.
func (s *Server) decodeFilters(b json.RawMessage) []providers.Filter {
	var out []providers.Filter
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			s.metrics.swallowed.WithLabelValues("session_filters").Inc()
			return nil
		}
	}
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
	return retryOnConflict(func() error {
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
		req, err := cp.Prepare(merged, &providers.Update{Previous: prev, Params: params, Filters: s.decodeFilters(sess.Filters)})
		if err != nil {
			return underParams(err)
		}
		if err := s.admit(p, cp, true); err != nil {
			return err
		}
		return s.pageFollowUp(c, p, cp, sess, req, nil, "update", true)
	})
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
	sess, rec, err := s.sessions.Record(c.UserContext(), p.Tenant.ID, p.Key.Mode, recordID)
	if err != nil {
		return sessionError(err, "record")
	}
	if searchID != "" && sess.ID != searchID {
		return &Error{Code: providers.CodeRecordUnknown, Message: "the record does not belong to that search",
			Violations: []providers.Violation{{Path: "/record_id", Message: "not a record of search_id"}}}
	}
	cp, ok := s.caps[sess.Capability]
	if !ok {
		return &Error{Code: providers.CodeCapabilityUnavailable, Message: fmt.Sprintf("%s is no longer offered by this gateway", sess.Capability)}
	}
	c.Locals("capability", cp.ID)
	valid := recordActions(cp, rec)
	act, ok := cp.Action(action)
	if !ok || !slices.Contains(valid, action) {
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
		d, ok := rec.StoredDetail(action)
		if !ok {
			return &Error{Code: providers.CodeSessionExpired, Message: "the cached record detail is no longer available; run the search again"}
		}
		return s.bill(c, p, billedFor(cp, action, 0), func(context.Context) (*outcome, error) {
			return detailOutcome(rec, action, d.Detail, d.Links, nil, 0, nil), nil
		})
	}
	return s.lookupAction(c, p, cp, act, sess, rec)
}

// detailOutcome answers a record action with rendered detail and links.
func detailOutcome(rec *searches.Record, action string, detail, links json.RawMessage, cached *bool, credits int, writes []tenants.Write) *outcome {
	return &outcome{credits: credits, writes: writes, render: func(c *fiber.Ctx, charged int64, bal balanceJSON) error {
		out := recordFollowUpResponse{RecordID: rec.ID, Action: action, Detail: detail, linksJSON: links, Cached: cached, ChargedCredits: charged, Balance: bal}
		return writeJSON(c, out.appendJSON)
	}}
}

// lookupAction bills the first provider lookup of a record action and serves repeats from the
// session's cache for free.
func (s *Server) lookupAction(c *fiber.Ctx, p *Principal, cp *providers.Capability, act *providers.Action, sess *searches.Session, rec *searches.Record) error {
	ctx := c.UserContext()
	if err := s.admit(p, cp, false); err != nil {
		return err
	}
	if body, ok, err := s.sessions.Detail(ctx, p.Tenant.ID, rec.ID, act.Name); err != nil {
		return storeError(err)
	} else if ok {
		if detail, links, ok := searches.DecodeDetail(body); ok {
			cached := true
			return s.bill(c, p, billedFor(cp, act.Name, 0), func(context.Context) (*outcome, error) {
				return detailOutcome(rec, act.Name, detail, links, &cached, 0, nil), nil
			})
		}
	}
	if err := s.admit(p, cp, true); err != nil {
		return err
	}
	q, err := storedQuery(sess)
	if err != nil {
		return err
	}
	return s.bill(c, p, billedFor(cp, act.Name, act.Credits), func(ctx context.Context) (*outcome, error) {
		pr, err := s.providerRecord(rec)
		if err != nil {
			return nil, err
		}
		d, err := act.Run(ctx, s.newCall(cp, q, nil, p), pr)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return nil, &Error{Code: providers.CodeProviderError, Message: "the upstream returned no detail"}
		}
		credits := act.Credits
		if d.Credits != nil {
			credits = *d.Credits
		}
		sd, err := renderDetail(act.Name, d)
		if err != nil {
			return nil, err
		}
		cached := false
		return detailOutcome(rec, act.Name, sd.Detail, sd.Links, &cached, credits,
			[]tenants.Write{s.sessions.PutDetail(sess, rec, act.Name, searches.EncodeDetail(sd.Detail, sd.Links))}), nil
	})
}

// providerRecord rebuilds the adapter's view of a stored record (only record actions that call
// a provider need it).
func (s *Server) providerRecord(rec *searches.Record) (*providers.Record, error) {
	var body map[string]any
	if err := unmarshalExact(rec.Body, &body); err != nil || body == nil {
		return nil, &Error{Code: providers.CodeSessionExpired, Message: "the cached record detail is no longer available; run the search again"}
	}
	r := &providers.Record{Fields: map[string]any{}, Actions: rec.Actions}
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
	if len(rec.Ref) > 0 {
		r.Ref = rec.Ref
	}
	if len(rec.Stored) > 0 {
		r.Stored = map[string]*providers.Detail{}
		for _, sd := range rec.Stored {
			d := &providers.Detail{}
			if err := unmarshalExact(sd.Detail, &d.Body); err != nil {
				s.metrics.swallowed.WithLabelValues("stored_detail").Inc()
				continue
			}
			if len(sd.Links) > 0 {
				if err := json.Unmarshal(sd.Links, &d.Links); err != nil {
					s.metrics.swallowed.WithLabelValues("stored_detail_links").Inc()
				}
			}
			r.Stored[sd.Action] = d
		}
	}
	return r, nil
}

// unmarshalExact decodes stored JSON keeping numbers as json.Number, so a record read back from
// the session answers exactly what the adapter stored (no float64 rounding).
func unmarshalExact(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

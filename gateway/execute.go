package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/gateway/session"
	"github.com/capgate/capgate/providers"
)

const followUpPath = "/v1/follow-up"

// capabilityFor finds a capability by id or answers capability_unknown.
func (s *Server) capabilityFor(c *fiber.Ctx, id string) (*providers.Capability, error) {
	cp, ok := s.caps[id]
	if !ok {
		return nil, &Error{Code: providers.CodeCapabilityUnknown, Message: fmt.Sprintf("unknown capability %q", id),
			Hint: "GET /v1/catalog lists the capability ids"}
	}
	c.Locals("capability", cp.ID)
	return cp, nil
}

// available tells whether the capability can run for the caller's mode, and why not.
func (s *Server) available(cp *providers.Capability, mode providers.Mode) (bool, string) {
	for _, id := range cp.Providers {
		if mode == providers.ModeTest {
			if p, ok := s.opts.Client.Provider(id); !ok || p.Sandbox == nil {
				return false, fmt.Sprintf("provider %s has no sandbox", id)
			}
			continue
		}
		if ok, why := s.opts.Client.Configured(id); !ok {
			return false, why
		}
	}
	return true, ""
}

// admit applies the plan check and, when the call reaches a provider, the deployment check.
func (s *Server) admit(p *Principal, cp *providers.Capability, needsProvider bool) error {
	if !p.Plan.Enables(cp.ID, cp.Cost.Typical) {
		return &Error{Code: providers.CodeCapabilityDisabled, Message: fmt.Sprintf("%s is not enabled on the %s plan", cp.ID, p.Plan.ID),
			Hint: "the catalog's enabled flag shows what the plan includes"}
	}
	if needsProvider {
		if ok, why := s.available(cp, p.Mode()); !ok {
			return &Error{Code: providers.CodeCapabilityUnavailable, Message: fmt.Sprintf("%s is not available in this deployment: %s", cp.ID, why)}
		}
	}
	return nil
}

// execute answers POST /v1/capabilities/{id}/execute.
func (s *Server) execute(c *fiber.Ctx) error {
	cp, err := s.capabilityFor(c, c.Params("id"))
	if err != nil {
		return err
	}
	req, err := providers.DecodeBody(c.Body())
	if err != nil {
		return err
	}
	if req, err = cp.Prepare(req, nil); err != nil {
		return err
	}
	p := principalOf(c)
	if err := s.admit(p, cp, true); err != nil {
		return err
	}
	ctx := c.UserContext()
	ch, err := s.reserve(ctx, p, cp, "execute", cp.Cost.Typical)
	if err != nil {
		return err
	}
	page, err := s.runPage(ctx, p, cp, req, nil)
	if err != nil {
		ch.refund(ctx)
		return err
	}
	query, _ := json.Marshal(req)
	sess := &session.Session{ID: session.NewSessionID(), TenantID: p.Tenant.ID, Mode: p.Key.Mode, Capability: cp.ID, Query: query}
	shown, recs, err := s.fillSession(sess, cp, req, page)
	if err != nil {
		ch.refund(ctx)
		return err
	}
	if err := s.sessions.Create(ctx, sess, recs); err != nil {
		ch.refund(ctx)
		return storeError(err)
	}
	charged, err := ch.settle(ctx, requestID(c), pageCredits(cp, page))
	if err != nil {
		return err
	}
	return s.respondPage(c, p, cp, sess, shown, page.Notes, page.Filters, charged)
}

func pageCredits(cp *providers.Capability, page *providers.Page) int {
	if page.Credits != nil {
		return *page.Credits
	}
	return cp.Cost.Typical
}

// runPage calls the adapter under the capability's deadline; an adapter panic or a foreign
// error becomes a vocabulary error so the caller's reservation is refunded.
func (s *Server) runPage(ctx context.Context, p *Principal, cp *providers.Capability, req providers.Request, state json.RawMessage) (page *providers.Page, err error) {
	ctx, cancel := context.WithTimeout(ctx, cp.Deadline)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("adapter panic", "capability", cp.ID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			page, err = nil, &Error{Code: providers.CodeInternal, Message: "an internal error occurred; it has been logged"}
		}
	}()
	page, err = cp.Execute(ctx, s.newCall(cp, req, state, p))
	if err != nil {
		return nil, s.adapterError(ctx, cp, err)
	}
	if page == nil {
		page = &providers.Page{}
	}
	return page, nil
}

func (s *Server) adapterError(ctx context.Context, cp *providers.Capability, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		if e, ok := providers.AsError(err); ok && e.Code == providers.CodeProviderTimeout {
			return e
		}
		return &Error{Code: providers.CodeProviderTimeout, Message: fmt.Sprintf("%s did not finish within its %s deadline", cp.ID, cp.Deadline), Cause: err}
	}
	if _, ok := providers.AsError(err); ok {
		return err
	}
	s.log.Warn("adapter returned an unmapped error", "capability", cp.ID, "err", err)
	return &Error{Code: providers.CodeProviderError, Message: "the upstream answer could not be used", Cause: err}
}

// fillSession turns a page into stored records and sets the session's paging position; it
// returns the records shown now. Local paging holds the whole set and shows the first page.
func (s *Server) fillSession(sess *session.Session, cp *providers.Capability, req providers.Request, page *providers.Page) ([]*session.Record, []*session.Record, error) {
	start := 0
	if cp.Paging != providers.PagingLocal {
		start = sess.LocalTotal
	}
	recs := make([]*session.Record, 0, len(page.Records))
	for i := range page.Records {
		r, err := storedRecord(&page.Records[i], start+i)
		if err != nil {
			return nil, nil, err
		}
		recs = append(recs, r)
	}
	filters, _ := json.Marshal(orEmpty(page.Filters))
	notes, _ := json.Marshal(orEmpty(page.Notes))
	sess.Filters, sess.Notes = filters, notes
	if cp.Paging == providers.PagingLocal {
		n := cp.PageSize(req)
		shown := recs
		if len(shown) > n {
			shown = shown[:n]
		}
		sess.LocalTotal, sess.LocalOffset = len(recs), len(shown)
		sess.HasMore = len(recs) > len(shown)
		sess.NextState = ""
		return shown, recs, nil
	}
	sess.LocalTotal = start + len(recs)
	sess.HasMore = page.HasMore && cp.Paging != providers.PagingSingle
	sess.NextState = ""
	if sess.HasMore {
		sess.NextState = string(page.Next)
	}
	return recs, recs, nil
}

func orEmpty[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

// storedRecord renders a record as shown (with a new record_id) and keeps what its actions need.
func storedRecord(r *providers.Record, pos int) (*session.Record, error) {
	id := session.NewRecordID()
	body := make(map[string]any, len(r.Fields)+4)
	for k, v := range r.Fields {
		body[k] = v
	}
	body["record_id"] = id
	body["title"] = r.Title
	if r.URL != "" {
		body["url"] = r.URL
	} else {
		delete(body, "url")
	}
	if r.Snippet != "" {
		body["snippet"] = r.Snippet
	} else {
		delete(body, "snippet")
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, &Error{Code: providers.CodeInternal, Message: "a record could not be encoded", Cause: err}
	}
	out := &session.Record{ID: id, Position: pos, Body: string(b), Ref: string(r.Ref)}
	if len(r.Stored) > 0 {
		st, err := json.Marshal(r.Stored)
		if err != nil {
			return nil, &Error{Code: providers.CodeInternal, Message: "a record detail could not be encoded", Cause: err}
		}
		out.Stored = string(st)
	}
	if r.Actions != nil {
		a, _ := json.Marshal(r.Actions)
		out.Actions = string(a)
	}
	return out, nil
}

// recordActions lists the actions valid for a stored record.
func recordActions(cp *providers.Capability, r *session.Record) []string {
	if r.Actions == "" {
		return cp.ActionNames()
	}
	var names []string
	_ = json.Unmarshal([]byte(r.Actions), &names)
	return names
}

// respondPage writes the ExecuteResponse of a page of a session.
func (s *Server) respondPage(c *fiber.Ctx, p *Principal, cp *providers.Capability, sess *session.Session, shown []*session.Record, notes []string, filters []providers.Filter, charged int64) error {
	bal, err := s.balance(c.UserContext(), p)
	if err != nil {
		return err
	}
	out := executeResponse{SearchID: sess.ID, Capability: cp.ID, Results: make([]json.RawMessage, 0, len(shown)),
		ResultCount: len(shown), HasMore: sess.HasMore, Filters: filters, Notes: notes, ChargedCredits: charged, Balance: bal}
	union := map[string]bool{}
	for _, r := range shown {
		out.Results = append(out.Results, json.RawMessage(r.Body))
		for _, a := range recordActions(cp, r) {
			union[a] = true
		}
	}
	out.RecordActions = []string{}
	for _, a := range cp.ActionNames() {
		if union[a] {
			out.RecordActions = append(out.RecordActions, a)
		}
	}
	out.Next = nextFor(cp, sess, shown, out.RecordActions)
	return c.JSON(out)
}

// nextFor builds next: the follow-up url, the search actions valid now and an example body that
// is valid right now (null when no follow-up is admitted).
func nextFor(cp *providers.Capability, sess *session.Session, shown []*session.Record, actions []string) nextStep {
	n := nextStep{URL: followUpPath, Actions: []string{}}
	if sess.HasMore && cp.Paging != providers.PagingSingle {
		n.Actions = append(n.Actions, "more")
	}
	if !cp.NoUpdate {
		n.Actions = append(n.Actions, "update")
	}
	switch {
	case sess.HasMore && cp.Paging != providers.PagingSingle:
		n.Example = map[string]any{"search_id": sess.ID, "action": "more"}
	case len(actions) > 0:
		// The first shown record that offers an action (a record may offer none, e.g. no URL to read).
		for _, r := range shown {
			if a := recordActions(cp, r); len(a) > 0 {
				n.Example = map[string]any{"record_id": r.ID, "action": a[0]}
				break
			}
		}
	case !cp.NoUpdate:
		n.Example = map[string]any{"search_id": sess.ID, "action": "update", "params": updateExample(cp, sess)}
	}
	return n
}

// updateExample re-sends one field of the stored query (the page size when there is one): a
// valid update that refreshes the search.
func updateExample(cp *providers.Capability, sess *session.Session) map[string]any {
	var q map[string]any
	_ = json.Unmarshal(sess.Query, &q)
	field := cp.PageSizeField
	if field == "" {
		field = "num"
	}
	if v, ok := q[field]; ok {
		return map[string]any{field: v}
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 0 {
		return map[string]any{keys[0]: q[keys[0]]}
	}
	return map[string]any{}
}

package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/searches"
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
	if !p.InScope(cp) {
		return outOfScope(p, cp.ID)
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
	req, err := providers.DecodeBody(c.BodyRaw())
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
	cc, err := cacheControlOf(c)
	if err != nil {
		return err
	}
	return s.bill(c, p, billedFor(cp, "execute", cp.Cost.Typical), func(ctx context.Context) (*outcome, error) {
		query, _ := json.Marshal(req)
		sess := s.sessions.New(p.Tenant.ID, p.Key.Mode, cp.ID, query)
		shown, meta, err := s.loadPage(ctx, p, cp, req, query, nil, sess, cc)
		if err != nil {
			return nil, err
		}
		var save tenants.Write
		if meta.page != nil {
			save = s.sessions.CreateRef(sess, meta.page)
		} else {
			save = s.sessions.Create(sess)
		}
		return s.pageOutcome(p, cp, sess, shown, meta, save), nil
	})
}

// billedFor describes a billed operation of a capability.
func billedFor(cp *providers.Capability, action string, credits int) billed {
	return billed{capability: cp.ID, action: action, credits: credits, noMultiplier: cp.Cost.NoMultiplier, deadline: cp.Deadline}
}

func pageCredits(cp *providers.Capability, page *providers.Page) int {
	if page.Credits != nil {
		return *page.Credits
	}
	return cp.Cost.Typical
}

// fetchPage calls the adapter for one page (the pipeline applies the deadline and recovers).
func (s *Server) fetchPage(ctx context.Context, p *Principal, cp *providers.Capability, req providers.Request, state json.RawMessage) (*providers.Page, error) {
	page, err := cp.Execute(ctx, s.newCall(cp, req, state, p))
	if err != nil {
		return nil, err
	}
	if page == nil {
		page = &providers.Page{}
	}
	if p.Mode() == providers.ModeTest && !slices.Contains(page.Notes, providers.SandboxNote) {
		// Honest labelling (issue 36): every test-mode page says its records are synthetic.
		page.Notes = append([]string{providers.SandboxNote}, page.Notes...)
	}
	return page, nil
}

// pageOutcome charges a page (a share of it when the shared cache answered) and renders it once
// the charge is committed with the session, saying what the cache did.
func (s *Server) pageOutcome(p *Principal, cp *providers.Capability, sess *searches.Session, shown []*searches.Record, meta pageMeta, save tenants.Write) *outcome {
	out := &outcome{credits: pageCharge(p, meta), writes: []tenants.Write{save},
		render: func(c *fiber.Ctx, charged int64, bal balanceJSON) error {
			setCacheHeaders(c, &meta)
			return respondPage(c, cp, sess, shown, meta.notes, meta.filters, charged, bal)
		}}
	if meta.status.saved() {
		out.cache, out.fullCredits = meta.status.String(), meta.credits
	}
	return out
}

// fillSession adds a page's records to the session, rendered once, and sets the paging
// position; it returns the records shown now.
func fillSession(sess *searches.Session, cp *providers.Capability, req providers.Request, page *providers.Page) ([]*searches.Record, error) {
	recs := make([]*searches.Record, 0, len(page.Records))
	for i := range page.Records {
		r := &searches.Record{}
		sess.Add(r)
		if err := renderRecord(r, &page.Records[i]); err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return arrange(sess, cp, req, recs, page.HasMore, page.Next, mustJSON(orEmpty(page.Filters)), mustJSON(orEmpty(page.Notes))), nil
}

// arrange sets the paging position after a page's records were added to the session (fresh or
// from the shared cache) and returns the records shown now. Local paging holds the whole set and
// shows the first page.
func arrange(sess *searches.Session, cp *providers.Capability, req providers.Request, recs []*searches.Record, hasMore bool, next json.RawMessage, filters, notes json.RawMessage) []*searches.Record {
	start := 0
	if cp.Paging != providers.PagingLocal {
		start = sess.LocalTotal
	}
	for i, r := range recs {
		r.Generation, r.Position = sess.Generation, start+i
	}
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
		return shown
	}
	sess.LocalTotal = start + len(recs)
	sess.HasMore = hasMore && cp.Paging != providers.PagingSingle
	sess.NextState = ""
	if sess.HasMore {
		sess.NextState = string(next)
	}
	return recs
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("[]")
	}
	return b
}

func orEmpty[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

// renderRecord renders a provider record as shown (with its record_id), once: these bytes are
// what the session stores, the cache holds and the response writes. Stored details are rendered
// the same way.
func renderRecord(out *searches.Record, r *providers.Record) error {
	var b []byte
	var err error
	if r.Data != nil {
		b, err = appendRecordObject(make([]byte, 0, 512), recordBase(out.ID, r), r.Data, r.Fields)
	} else {
		b, err = appendFieldsRecord(make([]byte, 0, 512), out.ID, r)
	}
	if err != nil {
		return &Error{Code: providers.CodeInternal, Message: "a record could not be encoded", Cause: err}
	}
	out.Body, out.Ref, out.Actions = b, r.Ref, r.Actions
	for action, d := range r.Stored {
		if d == nil {
			continue
		}
		sd, err := renderDetail(action, d)
		if err != nil {
			return err
		}
		out.Stored = append(out.Stored, sd)
	}
	sort.Slice(out.Stored, func(i, j int) bool { return out.Stored[i].Action < out.Stored[j].Action })
	return nil
}

// recordBase is a record's record_id, snippet, title and url, in key order, url and snippet
// only when set.
func recordBase(id string, r *providers.Record) []baseKey {
	base := make([]baseKey, 0, 4)
	base = append(base, baseKey{"record_id", id})
	if r.Snippet != "" {
		base = append(base, baseKey{"snippet", r.Snippet})
	}
	base = append(base, baseKey{"title", r.Title})
	if r.URL != "" {
		base = append(base, baseKey{"url", r.URL})
	}
	return base
}

// appendFieldsRecord renders a record held as a map (free-form or not typed yet): its keys plus
// record_id, title, url and snippet (url and snippet only when set), sorted, as json.Marshal of
// the merged map would write them.
func appendFieldsRecord(b []byte, id string, r *providers.Record) ([]byte, error) {
	keys := make([]string, 0, len(r.Fields)+4)
	for k := range r.Fields {
		if !isBaseKey(k) {
			keys = append(keys, k)
		}
	}
	keys = append(keys, "record_id", "title")
	if r.URL != "" {
		keys = append(keys, "url")
	}
	if r.Snippet != "" {
		keys = append(keys, "snippet")
	}
	slices.Sort(keys)
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		switch k {
		case "record_id":
			b = appendString(b, id)
		case "title":
			b = appendString(b, r.Title)
		case "url":
			b = appendString(b, r.URL)
		case "snippet":
			b = appendString(b, r.Snippet)
		default:
			b, err = appendAny(b, r.Fields[k])
		}
		if err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// renderDetail renders a record-action answer's detail and links once.
func renderDetail(action string, d *providers.Detail) (searches.StoredDetail, error) {
	body, err := json.Marshal(d.Body)
	if err != nil {
		return searches.StoredDetail{}, &Error{Code: providers.CodeInternal, Message: "a record detail could not be encoded", Cause: err}
	}
	links, err := json.Marshal(orEmpty(d.Links))
	if err != nil {
		return searches.StoredDetail{}, &Error{Code: providers.CodeInternal, Message: "a record detail could not be encoded", Cause: err}
	}
	return searches.StoredDetail{Action: action, Detail: body, Links: links}, nil
}

// recordActions lists the actions valid for a stored record.
func recordActions(cp *providers.Capability, r *searches.Record) []string {
	if r.Actions == nil {
		return cp.ActionNames()
	}
	return r.Actions
}

// respondPage writes the ExecuteResponse of a page of a session.
func respondPage(c *fiber.Ctx, cp *providers.Capability, sess *searches.Session, shown []*searches.Record, notes []string, filters []providers.Filter, charged int64, bal balanceJSON) error {
	return writeJSON(c, pageAnswer(cp, sess, shown, notes, filters, charged, bal).appendJSON)
}

// pageAnswer is the ExecuteResponse of a page of a session.
func pageAnswer(cp *providers.Capability, sess *searches.Session, shown []*searches.Record, notes []string, filters []providers.Filter, charged int64, bal balanceJSON) *executeResponse {
	out := executeResponse{SearchID: sess.ID, Capability: cp.ID, Results: make([]json.RawMessage, 0, len(shown)),
		ResultCount: len(shown), HasMore: sess.HasMore, Filters: filters, Notes: notes, ChargedCredits: charged, Balance: bal}
	union := map[string]bool{}
	for _, r := range shown {
		out.Results = append(out.Results, r.Body)
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
	return &out
}

// nextFor builds next: the follow-up url, the search actions valid now and an example body that
// is valid right now (null when no follow-up is admitted).
func nextFor(cp *providers.Capability, sess *searches.Session, shown []*searches.Record, actions []string) nextStep {
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
func updateExample(cp *providers.Capability, sess *searches.Session) map[string]any {
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

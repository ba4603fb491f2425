package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// Sample is what test mode answers a capability's first example, for the API reference: the
// execute answer and the answer of a record action on the first record that offers one. The
// records are the sandbox's, mapped by the capability's own adapter and rendered by the same
// code as a real answer; nothing is stored or charged, so the ids cannot be followed up and
// the balance is an illustration.
type Sample struct {
	Request []byte // the example body, defaults applied
	Execute []byte // an ExecuteResponse
	Action  string // the record action Detail answers ("" when no record offers one)
	Detail  []byte // a RecordFollowUpResponse
}

// sampleTenant names the sandbox breakers the reference's samples run under (never a tenant's).
const sampleTenant = "reference-samples"

// Sample runs the capability's first example in test mode once and keeps the answer.
func (s *Server) Sample(ctx context.Context, id string) (*Sample, error) {
	cp, ok := s.caps[id]
	if !ok {
		return nil, fmt.Errorf("no capability %q", id)
	}
	if v, ok := s.samples.Load(id); ok {
		if e := v.(sampleEntry); e.err == nil || time.Since(e.at) < sampleRetry {
			return e.sample, e.err
		}
	}
	smp, err := s.sample(ctx, cp)
	if err != nil {
		// A failure is kept a while, so a page view does not rerun (and log) it each time.
		s.samples.Store(id, sampleEntry{err: err, at: time.Now()})
		return nil, err
	}
	v, loaded := s.samples.LoadOrStore(id, sampleEntry{sample: smp})
	if e := v.(sampleEntry); loaded && e.err == nil {
		return e.sample, nil
	}
	s.samples.Store(id, sampleEntry{sample: smp})
	return smp, nil
}

// sampleEntry is a kept sample, or a failure and when it happened.
type sampleEntry struct {
	sample *Sample
	err    error
	at     time.Time
}

// sampleRetry is how long a failed sample is answered from memory.
const sampleRetry = 5 * time.Minute

func (s *Server) sample(ctx context.Context, cp *providers.Capability) (*Sample, error) {
	body := providers.Request{}
	if len(cp.Examples) > 0 {
		// A copy of its own (defaults are applied in place), decoded as a caller's body is.
		body = cp.Examples[0].Body.Request()
	}
	req, err := cp.Prepare(body, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: example: %w", cp.ID, err)
	}
	if cp.Deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cp.Deadline)
		defer cancel()
	}
	call := providers.NewCall(cp, req, nil, providers.ModeTest, sampleTenant, s.opts.Client)
	call.PublicURL = s.opts.PublicURL
	page, err := cp.Execute(ctx, call)
	if err != nil {
		return nil, fmt.Errorf("%s: test mode: %w", cp.ID, err)
	}
	if page == nil {
		page = &providers.Page{}
	}
	query, _ := json.Marshal(req)
	sess := s.sessions.New(sampleTenant, tenants.ModeTest, cp.ID, query)
	shown, err := fillSession(sess, cp, req, page)
	if err != nil {
		return nil, err
	}
	charged := int64(pageCredits(cp, page))
	now := time.Now().UTC()
	periodEnd := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	bal := balanceJSON{Used: charged, Cap: 50000, PeriodEnd: &periodEnd}
	out := &Sample{Request: query, Execute: pageAnswer(cp, sess, shown, page.Notes, page.Filters, charged, bal).appendJSON(nil)}
	for _, rec := range shown {
		names := recordActions(cp, rec)
		if len(names) == 0 {
			continue
		}
		act, ok := cp.Action(names[0])
		if !ok {
			continue
		}
		var detail, links json.RawMessage
		credits := 0
		if act.Kind == providers.ActionStored {
			d, ok := rec.StoredDetail(act.Name)
			if !ok {
				break
			}
			detail, links = d.Detail, d.Links
		} else {
			pr, err := s.providerRecord(rec)
			if err != nil {
				return nil, err
			}
			d, err := act.Run(ctx, call, pr)
			if err != nil {
				return nil, fmt.Errorf("%s: %s in test mode: %w", cp.ID, act.Name, err)
			}
			if d == nil {
				break
			}
			credits = act.Credits
			if d.Credits != nil {
				credits = *d.Credits
			}
			sd, err := renderDetail(act.Name, d)
			if err != nil {
				return nil, err
			}
			detail, links = sd.Detail, sd.Links
		}
		cached := false
		dbal := bal
		dbal.Used += int64(credits)
		fu := recordFollowUpResponse{RecordID: rec.ID, Action: act.Name, Detail: detail, linksJSON: links, Cached: &cached,
			ChargedCredits: int64(credits), Balance: dbal}
		if act.Kind == providers.ActionStored {
			fu.Cached = nil
		}
		out.Action, out.Detail = act.Name, fu.appendJSON(nil)
		break
	}
	return out, nil
}

// consolePrincipal is the fiber local (a fasthttp user value, which no request can set) by which
// an in-process call names its caller; see TestCall.
type consolePrincipal struct{}

// TestCall runs one /v1 request in-process as the given test key: the console's "Run in test
// mode" form, which acts for a signed-in user without ever holding the key itself. The request
// takes the whole path of an API call (rate limit, validation, billing against the test balance,
// sessions, the error envelope). It answers the status and the body.
func (s *Server) TestCall(ctx context.Context, key *tenants.APIKey, method, path string, body []byte) (int, []byte, error) {
	if key == nil || key.Mode != tenants.ModeTest || key.RevokedAt != nil {
		return 0, nil, errors.New("test calls need an active test key")
	}
	t, err := s.store.Tenant(ctx, key.TenantID)
	if err != nil {
		return 0, nil, err
	}
	plan, err := s.store.Plan(ctx, t.PlanID)
	if err != nil {
		return 0, nil, err
	}
	var req fasthttp.Request
	req.Header.SetMethod(method)
	req.SetRequestURI(path)
	req.Header.SetHost("console.internal")
	if body != nil {
		req.Header.SetContentType("application/json")
		req.SetBody(body)
	}
	var fc fasthttp.RequestCtx
	fc.Init(&req, nil, nil)
	fc.SetUserValue(consolePrincipal{}, &Principal{Key: key, Tenant: t, Plan: plan})
	s.inProcessOnce.Do(func() { s.inProcess = s.app.Handler() })
	s.inProcess(&fc)
	return fc.Response.StatusCode(), append([]byte(nil), fc.Response.Body()...), nil
}

package console

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/providers"
)

// SampleAnswer is what test mode answers a capability's first example (gateway.Sample): the
// request with defaults, the execute answer, and the answer of a record action.
type SampleAnswer struct {
	Request []byte
	Execute []byte
	Action  string
	Detail  []byte
}

// reference is a capability's API reference, one source for /docs and the console: the request
// schema (the one the OpenAPI document embeds) as a parameter table, the follow-ups and cost of
// its declaration, and the record and detail keys of its test-mode sample.
func (cn *Console) reference(ctx context.Context, cp *providers.Capability) views.Reference {
	r := views.Reference{ID: cp.ID, Title: cp.Title, Summary: cp.Summary, Topic: cp.Topic,
		DescriptionHTML: renderMarkdown(cp.Description), Fields: requestFields(cp.Schema().Doc),
		TypicalCredits: cp.Cost.Typical, CostBasis: cp.Cost.Basis, Paging: pagingWords[cp.Paging], Deadline: cp.Deadline.String()}
	if r.Paging == "" {
		r.Paging = string(cp.Paging)
	}
	for _, f := range cp.FollowUps() {
		r.FollowUps = append(r.FollowUps, views.FollowUpRow{Action: f.Action, Scope: f.Scope, Credits: f.Credits, DescriptionHTML: renderInline(f.Description)})
	}
	if cn.opts.Samples == nil {
		r.SampleProblem = "samples are not wired in this build"
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := cn.opts.Samples(ctx, cp.ID)
	if err != nil {
		cn.log.Warn("reference sample failed", "capability", cp.ID, "err", err)
		r.SampleProblem = "test mode gives no sample without a signed-in account for this capability; run it in test mode from the console"
		return r
	}
	r.SampleRequest = indent(s.Request)
	r.SampleExecute = indent(s.Execute)
	r.SampleAction = s.Action
	r.SampleDetail = indent(s.Detail)
	var ex struct {
		Results []map[string]json.RawMessage `json:"results"`
	}
	_ = json.Unmarshal(s.Execute, &ex)
	r.RecordKeys = keysOf(ex.Results)
	var fu struct {
		Detail json.RawMessage `json:"detail"`
	}
	if len(s.Detail) > 0 && json.Unmarshal(s.Detail, &fu) == nil {
		var obj map[string]json.RawMessage
		if json.Unmarshal(fu.Detail, &obj) == nil {
			r.DetailKeys = keysOf([]map[string]json.RawMessage{obj})
		}
	}
	return r
}

// keysOf lists the keys of sample objects with the JSON type and an example value of each.
func keysOf(objs []map[string]json.RawMessage) []views.RecordKey {
	seen := map[string]*views.RecordKey{}
	for _, o := range objs {
		for k, v := range o {
			row, ok := seen[k]
			if !ok {
				row = &views.RecordKey{Name: k}
				seen[k] = row
			}
			if row.Type == "" || row.Type == "null" {
				row.Type, row.Example = jsonType(v), example(v)
			}
			row.Count++
		}
	}
	out := make([]views.RecordKey, 0, len(seen))
	for _, r := range seen {
		r.Always = r.Count == len(objs)
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func jsonType(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// example is a short rendering of a sample value.
func example(v json.RawMessage) string {
	s := string(bytes.TrimSpace(v))
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "…"
	}
	return s
}

func indent(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return string(b)
	}
	return out.String()
}

// capabilityByID finds a capability of the registry.
func (cn *Console) capabilityByID(id string) *providers.Capability {
	for _, cp := range cn.opts.Capabilities {
		if cp.ID == id {
			return cp
		}
	}
	return nil
}

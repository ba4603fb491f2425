package console

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// TestCaller runs one /v1 request in-process as a test key and answers its status and body.
type TestCaller interface {
	TestCall(ctx context.Context, key *tenants.APIKey, method, path string, body []byte) (int, []byte, error)
}

// runKeyLabel labels the test key the console creates for a tenant that has none.
const runKeyLabel = "console test runs"

// exampleBody is the first example's body, the form's starting values.
func exampleBody(cp *providers.Capability) map[string]any {
	if len(cp.Examples) == 0 {
		return map[string]any{}
	}
	return cp.Examples[0].Body.Request()
}

// runInputs generates the form controls of the request fields from their schema, filled with
// values (a request body) and the messages of refused values.
func runInputs(fields []views.Field, values map[string]any, problems map[string]string) []views.RunInput {
	out := make([]views.RunInput, 0, len(fields))
	for _, f := range fields {
		p := f.Schema
		in := views.RunInput{Name: f.Name, Required: f.Required, Hint: f.Type, Problem: problems[f.Name]}
		if f.Limits != "" {
			in.Hint += " · " + f.Limits
		}
		if f.Default != "" {
			in.Hint += " · default " + f.Default
		}
		v, has := values[f.Name]
		switch kind(p) {
		case "enum":
			in.Kind, in.Options = "select", enumValues(p["enum"])
			if has {
				in.Value = fmt.Sprint(v)
			}
		case "boolean":
			in.Kind, in.Options = "select", []string{"true", "false"}
			if has {
				in.Value = fmt.Sprint(v)
			}
		case "integer", "number":
			in.Kind = "number"
			in.Min, in.Max = bound(p, "minimum"), bound(p, "maximum")
			in.Step = "any"
			if kind(p) == "integer" {
				in.Step = "1"
			}
			if has {
				in.Value = jsonText(v)
			}
		case "checks":
			items, _ := p["items"].(map[string]any)
			in.Kind, in.Options, in.Checked = "checks", enumValues(items["enum"]), map[string]bool{}
			if xs, ok := v.([]any); ok {
				for _, x := range xs {
					in.Checked[fmt.Sprint(x)] = true
				}
			}
		case "string":
			in.Kind = "text"
			if s, ok := v.(string); ok {
				in.Value = s
			}
		default: // arrays, objects, unions: JSON
			in.Kind = "json"
			if has {
				in.Value = jsonText(v)
			}
			in.Hint += " · JSON"
		}
		out = append(out, in)
	}
	return out
}

// kind is the form control a property gets.
func kind(p map[string]any) string {
	if _, ok := p["enum"]; ok {
		return "enum"
	}
	t, _ := p["type"].(string)
	if t == "array" {
		if items, ok := p["items"].(map[string]any); ok {
			if _, ok := items["enum"]; ok {
				return "checks"
			}
		}
		return "json"
	}
	switch t {
	case "string", "integer", "number", "boolean":
		return t
	}
	return "json"
}

func enumValues(v any) []string {
	xs, _ := v.([]any)
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if x != nil {
			out = append(out, fmt.Sprint(x))
		}
	}
	return out
}

func bound(p map[string]any, key string) string {
	if v, ok := p[key]; ok {
		return fmt.Sprint(v)
	}
	return ""
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// formBody reads the form into a request body by the fields' schema: empty controls are left
// out (their defaults apply); a value of the wrong shape is a problem of its field.
func formBody(c *fiber.Ctx, fields []views.Field) (map[string]any, map[string]string) {
	body, problems := map[string]any{}, map[string]string{}
	args := c.Request().PostArgs()
	for _, f := range fields {
		k := kind(f.Schema)
		if k == "checks" {
			var vs []any
			for _, v := range args.PeekMulti(f.Name) {
				vs = append(vs, string(v))
			}
			if len(vs) > 0 {
				body[f.Name] = vs
			}
			continue
		}
		raw := string(args.Peek(f.Name))
		if strings.TrimSpace(raw) == "" {
			continue
		}
		switch k {
		case "integer":
			n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
			if err != nil {
				problems[f.Name] = "a whole number"
				continue
			}
			body[f.Name] = n
		case "number":
			n, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
			if err != nil {
				problems[f.Name] = "a number"
				continue
			}
			body[f.Name] = n
		case "boolean":
			body[f.Name] = raw == "true"
		case "json":
			var v any
			if err := json.Unmarshal([]byte(raw), &v); err != nil {
				problems[f.Name] = "not valid JSON"
				continue
			}
			body[f.Name] = v
		default: // strings and enums (the schema checks enum values)
			body[f.Name] = raw
		}
	}
	return body, problems
}

// runCapability runs the form's request in test mode as the signed-in tenant.
func (cn *Console) runCapability(c *fiber.Ctx) error {
	cp := cn.capabilityByID(c.Params("id"))
	if cp == nil {
		return cn.notFound(c)
	}
	d := cn.capabilityDetail(c, cp, tenants.ModeTest)
	body, problems := formBody(c, d.Ref.Fields)
	d.Run.Inputs = runInputs(d.Ref.Fields, body, problems)
	if d.Run.Blocked != "" || len(problems) > 0 {
		return cn.page(c, cp.ID, "catalog", views.CapabilityPage(d))
	}
	b, _ := json.Marshal(body)
	d.Run.Body = string(b)
	res, err := cn.testCall(c, "execute", "/v1/capabilities/"+cp.ID+"/execute", b)
	if err != nil {
		return err
	}
	d.Run.Result = res
	// The answer's violations point at fields: show them beside their controls too.
	d.Run.Inputs = runInputs(d.Ref.Fields, body, res.FieldProblems)
	return cn.page(c, cp.ID, "catalog", views.CapabilityPage(d))
}

// runFollowUp sends one follow-up of a test run (more on a search, an action on a record).
func (cn *Console) runFollowUp(c *fiber.Ctx) error {
	cp := cn.capabilityByID(c.Params("id"))
	if cp == nil {
		return cn.notFound(c)
	}
	d := cn.capabilityDetail(c, cp, tenants.ModeTest)
	var values map[string]any
	if json.Unmarshal([]byte(c.FormValue("body")), &values) != nil {
		values = exampleBody(cp)
	}
	d.Run.Inputs = runInputs(d.Ref.Fields, values, nil)
	d.Run.Body = c.FormValue("body")
	if d.Run.Blocked != "" {
		return cn.page(c, cp.ID, "catalog", views.CapabilityPage(d))
	}
	req := map[string]any{"action": c.FormValue("action")}
	if id := c.FormValue("search_id"); id != "" {
		req["search_id"] = id
	}
	if id := c.FormValue("record_id"); id != "" {
		req["record_id"] = id
	}
	b, _ := json.Marshal(req)
	res, err := cn.testCall(c, c.FormValue("action"), "/v1/follow-up", b)
	if err != nil {
		return err
	}
	d.Run.Result = res
	return cn.page(c, cp.ID, "catalog", views.CapabilityPage(d))
}

// testCall runs a call as the tenant's test key (the first active one; one labelled
// runKeyLabel is created, and audited, when the tenant has none).
func (cn *Console) testCall(c *fiber.Ctx, what, path string, body []byte) (*views.RunResult, error) {
	v := viewerOf(c)
	ctx := c.UserContext()
	keys, err := cn.store.Keys(ctx, v.tenant.ID)
	if err != nil {
		return nil, err
	}
	var key *tenants.APIKey
	for i := range keys {
		if keys[i].Mode == tenants.ModeTest && keys[i].RevokedAt == nil {
			key = &keys[i]
			break
		}
	}
	if key == nil {
		if key, _, err = cn.store.CreateKey(ctx, v.tenant.ID, tenants.ModeTest, runKeyLabel); err != nil {
			return nil, err
		}
		cn.record(c, auditKeyCreate, key.ID, nil, keyState(key))
	}
	status, answer, err := cn.opts.TestCalls.TestCall(ctx, key, fiber.MethodPost, path, body)
	if err != nil {
		return nil, err
	}
	return runResult(what, status, answer), nil
}

// runResult reads an API answer (an ExecuteResponse, a RecordFollowUpResponse or an error) for the page.
func runResult(what string, status int, answer []byte) *views.RunResult {
	r := &views.RunResult{What: what, Status: status, Raw: indent(answer)}
	var a struct {
		Error *struct {
			Code       string `json:"code"`
			Message    string `json:"message"`
			Violations []struct {
				Path    string `json:"path"`
				Message string `json:"message"`
			} `json:"violations"`
		} `json:"error"`
		SearchID      string                     `json:"search_id"`
		HasMore       bool                       `json:"has_more"`
		Results       []map[string]any           `json:"results"`
		RecordActions []string                   `json:"record_actions"`
		Next          struct{ Actions []string } `json:"next"`
		Detail        json.RawMessage            `json:"detail"`
		Charged       int64                      `json:"charged_credits"`
		Balance       struct {
			Used int64 `json:"used"`
			Cap  int64 `json:"cap"`
		} `json:"balance"`
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		r.ErrorCode, r.ErrorMessage = "unreadable", "the answer was not JSON"
		return r
	}
	if a.Error != nil {
		r.ErrorCode, r.ErrorMessage = a.Error.Code, a.Error.Message
		for _, v := range a.Error.Violations {
			r.Violations = append(r.Violations, v.Path+": "+v.Message)
			if field, ok := strings.CutPrefix(v.Path, "/"); ok && field != "" && !strings.Contains(field, "/") {
				if r.FieldProblems == nil {
					r.FieldProblems = map[string]string{}
				}
				r.FieldProblems[field] = v.Message
			}
		}
		return r
	}
	r.Charged = a.Charged
	r.Balance = views.Num(a.Balance.Used) + " of " + views.Num(a.Balance.Cap) + " used"
	if len(a.Detail) > 0 {
		r.Detail = indent(a.Detail)
		return r
	}
	r.SearchID, r.HasMore = a.SearchID, a.HasMore
	for _, s := range a.Next.Actions {
		if s == "more" { // update needs params: the form above is the way to change the query
			r.SearchActions = append(r.SearchActions, s)
		}
	}
	for _, rec := range a.Results {
		rr := views.RunRecord{}
		rr.ID, _ = rec["record_id"].(string)
		rr.Title, _ = rec["title"].(string)
		rr.URL, _ = rec["url"].(string)
		rr.Snippet, _ = rec["snippet"].(string)
		rr.Actions = a.RecordActions
		r.Records = append(r.Records, rr)
	}
	return r
}

package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/internal/apicontract"
	"github.com/capgate/capgate/providers/registry"
)

// servedDoc is the document as GET /v1/openapi.json serves it, decoded.
func servedDoc(t *testing.T, publicURL string) ([]byte, map[string]any) {
	t.Helper()
	b, err := json.Marshal(OpenAPI(registry.Capabilities(), publicURL))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return b, doc
}

// TestOpenAPIDocumentValidates loads the document with libopenapi, builds its 3.1 model and
// validates it with libopenapi-validator: zero errors.
func TestOpenAPIDocumentValidates(t *testing.T) {
	t.Parallel() // a long CPU-bound sweep: it shares the two cores with the others
	for _, u := range []string{"", "https://api.example.com"} {
		b, _ := servedDoc(t, u)
		if _, err := apicontract.Shared(b); err != nil {
			t.Fatalf("public URL %q: %v", u, err)
		}
	}
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// TestOpenAPILint checks the rules a linter's recommended set applies (and that client
// generators need): declared path parameters, unique operation ids, 4xx answers with the error
// envelope, whole-component references that resolve, required properties that exist, servers,
// license and contact.
func TestOpenAPILint(t *testing.T) {
	_, doc := servedDoc(t, "https://api.example.com/")
	servers := doc["servers"].([]any)
	if len(servers) != 1 || servers[0].(map[string]any)["url"] != "https://api.example.com" {
		t.Errorf("servers %v, want the public URL", servers)
	}
	_, local := servedDoc(t, "")
	if s := local["servers"].([]any); len(s) != 1 || s[0].(map[string]any)["url"] != "/" {
		t.Errorf("servers without a public URL %v", s)
	}
	info := doc["info"].(map[string]any)
	if lic, _ := info["license"].(map[string]any); lic["name"] == "" || lic["name"] == nil {
		t.Error("info.license.name missing")
	}
	if c, _ := info["contact"].(map[string]any); c["url"] == nil {
		t.Error("info.contact.url missing")
	}

	ids := map[string]string{}
	paramRE := regexp.MustCompile(`\{([^}]+)\}`)
	for path, raw := range doc["paths"].(map[string]any) {
		item := raw.(map[string]any)
		var inPath []string
		for _, m := range paramRE.FindAllStringSubmatch(path, -1) {
			inPath = append(inPath, m[1])
		}
		for _, m := range methods {
			o, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			where := strings.ToUpper(m) + " " + path
			id, _ := o["operationId"].(string)
			if id == "" {
				t.Errorf("%s: no operationId", where)
			} else if prev, dup := ids[id]; dup {
				t.Errorf("%s: operationId %s also on %s", where, id, prev)
			}
			ids[id] = where
			declared := map[string]bool{}
			params, _ := o["parameters"].([]any)
			for _, p := range params {
				pm := p.(map[string]any)
				if pm["in"] == "path" {
					declared[pm["name"].(string)] = true
					if pm["required"] != true {
						t.Errorf("%s: path parameter %v not required", where, pm["name"])
					}
				}
			}
			for _, n := range inPath {
				if !declared[n] {
					t.Errorf("%s: path parameter %s not declared", where, n)
				}
			}
			if len(declared) != len(inPath) {
				t.Errorf("%s: declares path parameters %v, the path has %v", where, declared, inPath)
			}
			responses := o["responses"].(map[string]any)
			if _, ok := responses["default"]; ok {
				t.Errorf("%s: a default response hides which statuses are answered", where)
			}
			has4xx := false
			for code, r := range responses {
				if code[0] == '4' || code[0] == '5' {
					has4xx = has4xx || code[0] == '4'
					s := fmt.Sprint(r.(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"])
					if !strings.Contains(s, "#/components/schemas/ErrorEnvelope") {
						t.Errorf("%s %s: error answer without the error envelope: %s", where, code, s)
					}
				}
			}
			if !has4xx && o["security"] == nil {
				t.Errorf("%s: no 4xx answer", where)
			}
		}
	}
	for _, want := range []string{OpGetCatalog, OpInspectCapability, OpFollowUp, OpSharpen, OpGetAccount, OpCreateProject, OpDeleteProjectItem, ExecuteOperationID("books.search")} {
		if _, ok := ids[want]; !ok {
			t.Errorf("operation %s missing", want)
		}
	}

	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	headers := doc["components"].(map[string]any)["headers"].(map[string]any)
	walk(doc, "#", func(at string, node map[string]any) {
		if r, ok := node["$ref"].(string); ok {
			parts := strings.Split(strings.TrimPrefix(r, "#/components/"), "/")
			switch {
			case len(parts) != 2:
				t.Errorf("%s: reference %s is not a whole component", at, r)
			case parts[0] == "schemas" && schemas[parts[1]] == nil, parts[0] == "headers" && headers[parts[1]] == nil:
				t.Errorf("%s: reference %s does not resolve", at, r)
			}
		}
		if req, ok := node["required"].([]any); ok {
			props, _ := node["properties"].(map[string]any)
			for _, r := range req {
				if _, ok := props[r.(string)]; !ok {
					t.Errorf("%s: required property %v is not defined", at, r)
				}
			}
		}
	})
	// Capability request schemas are embedded whole, one component per capability.
	for _, cp := range registry.Capabilities() {
		s, ok := schemas["Request."+cp.ID].(map[string]any)
		if !ok || s["properties"] == nil {
			t.Errorf("capability %s: request schema not embedded", cp.ID)
		}
	}
}

func walk(v any, at string, fn func(string, map[string]any)) {
	switch n := v.(type) {
	case map[string]any:
		fn(at, n)
		for k, c := range n {
			walk(c, at+"/"+k, fn)
		}
	case []any:
		for i, c := range n {
			walk(c, fmt.Sprintf("%s/%d", at, i), fn)
		}
	}
}

// TestResponseTypesMatchDocument is the field-by-field check of issue "one source": every
// response type, filled with a value in every field and encoded by encoding/json, shows exactly
// the properties its component lists, with the JSON types the component declares.
func TestResponseTypesMatchDocument(t *testing.T) {
	g := responseComponents()
	_, doc := servedDoc(t, "")
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	// A type the document lists only through derived schemas (ProjectsEnvelope) is checked as
	// the generator writes it; the derived envelopes are checked in TestProjectsEnvelopesDerived.
	for n, s := range g.schemas {
		if _, ok := schemas[n]; !ok {
			b, _ := json.Marshal(s)
			var plain map[string]any
			_ = json.Unmarshal(b, &plain)
			schemas[n] = plain
		}
	}
	var names []string
	byName := map[string]reflect.Type{}
	for ty, n := range g.names {
		names = append(names, n)
		byName[n] = ty
	}
	sort.Strings(names)
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			v := reflect.New(byName[n]).Elem()
			fill(t, g, v, 0)
			b, err := json.Marshal(v.Interface())
			if err != nil {
				t.Fatal(err)
			}
			var inst any
			if err := json.Unmarshal(b, &inst); err != nil {
				t.Fatal(err)
			}
			compare(t, schemas, ref(n), inst, n)
		})
	}
}

// fill sets every field of v to a non-zero value, as the gateway would when it sends all keys.
func fill(t *testing.T, g *schemaGen, v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	switch {
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
		return
	case v.Type() == rawType, v.Type() == objType:
		v.SetBytes([]byte(`{"k":1}`))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(t, g, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(t, g, s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		if v.Type().Elem().Kind() == reflect.Interface {
			e.Set(reflect.ValueOf("v"))
		} else {
			fill(t, g, e, depth+1)
		}
		m.SetMapIndex(reflect.ValueOf("k"), e)
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			if !v.Field(i).CanSet() {
				continue
			}
			if sc := f.Tag.Get("schema"); sc != "" && sc != "object" && sc != "any" {
				// A raw field holding a component: encode a filled value of that component.
				var comp reflect.Type
				for ty, n := range g.names {
					if n == sc {
						comp = ty
					}
				}
				c := reflect.New(comp).Elem()
				fill(t, g, c, depth+1)
				b, _ := json.Marshal(c.Interface())
				if f.Type == rawType {
					v.Field(i).SetBytes(b)
				} else {
					v.Field(i).Set(reflect.ValueOf([]json.RawMessage{b}))
				}
				continue
			}
			fill(t, g, v.Field(i), depth+1)
		}
	case reflect.Interface:
		v.Set(reflect.ValueOf("v"))
	}
}

// compare checks an encoded instance against a schema: the same keys as its properties (for
// schemas that list them) and the declared JSON type, recursively.
func compare(t *testing.T, schemas map[string]any, s map[string]any, inst any, at string) {
	t.Helper()
	for {
		if r, ok := s["$ref"].(string); ok {
			s = schemas[strings.TrimPrefix(r, "#/components/schemas/")].(map[string]any)
			continue
		}
		if alts, ok := s["anyOf"].([]any); ok {
			s = alts[0].(map[string]any) // the non-null branch: fill never writes null
			continue
		}
		break
	}
	kind := jsonKind(inst)
	if !typeAllows(s["type"], kind) {
		t.Errorf("%s: JSON %s, the document says %v", at, kind, s["type"])
		return
	}
	switch x := inst.(type) {
	case map[string]any:
		props, ok := s["properties"].(map[string]any)
		if !ok {
			return
		}
		var got, want []string
		for k := range x {
			got = append(got, k)
		}
		for k := range props {
			want = append(want, k)
		}
		sort.Strings(got)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the Go type writes %v, the document lists %v", at, got, want)
		}
		for k, v := range x {
			if ps, ok := props[k].(map[string]any); ok {
				compare(t, schemas, ps, v, at+"."+k)
			}
		}
	case []any:
		items, _ := s["items"].(map[string]any)
		for i, v := range x {
			if items != nil {
				compare(t, schemas, items, v, fmt.Sprintf("%s[%d]", at, i))
			}
		}
	}
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case nil:
		return "null"
	}
	return "?"
}

func typeAllows(declared any, kind string) bool {
	switch d := declared.(type) {
	case nil:
		return true
	case string:
		return d == kind || (d == "number" && kind == "integer")
	case []any:
		for _, x := range d {
			if typeAllows(x, kind) {
				return true
			}
		}
	}
	return false
}

// TestContractCheckerRejects shows the response check used by gatewaytest and the e2e tests has
// teeth on the real document: an undocumented status, an undocumented field, a missing required
// header, a wrong type or a bare error on an unknown route each fail.
func TestContractCheckerRejects(t *testing.T) {
	b, _ := servedDoc(t, "")
	c, err := apicontract.Shared(b)
	if err != nil {
		t.Fatal(err)
	}
	hdr := func(kv ...string) http.Header {
		h := http.Header{"Content-Type": {"application/json"}}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	okAccount := `{"plan":"pro","status":"active","cadence":"monthly","credits":{"used":1,"cap":10,"remaining":9,"period_end":"2026-01-01T00:00:00Z","mode":"live","credit_multiplier":1},` +
		`"rate_limit":{"requests_per_minute":60},"sharpen":{"stage":"stock","max_stage":"stage3"},"key":{"id":"k","label":"l","mode":"live","prefix":"cap_live_abc"},"tenant":{"id":"t","name":"n"}}`
	envelopeBody := `{"error":{"code":"unauthorized","message":"missing API key","retryable":false,"requestId":"r"}}`
	cases := []struct {
		name, method, path string
		status             int
		header             http.Header
		body               string
		ok                 bool
	}{
		{"account", "GET", "/v1/account", 200, hdr("X-Request-Id", "r"), okAccount, true},
		{"undocumented field", "GET", "/v1/account", 200, hdr("X-Request-Id", "r"), strings.Replace(okAccount, `"plan":"pro"`, `"plan":"pro","extra":1`, 1), false},
		{"missing field", "GET", "/v1/account", 200, hdr("X-Request-Id", "r"), strings.Replace(okAccount, `"cadence":"monthly",`, ``, 1), false},
		{"wrong type", "GET", "/v1/account", 200, hdr("X-Request-Id", "r"), strings.Replace(okAccount, `"used":1`, `"used":"1"`, 1), false},
		{"undocumented status", "GET", "/v1/account", 418, hdr("X-Request-Id", "r"), envelopeBody, false},
		{"missing X-Request-Id", "GET", "/v1/account", 200, hdr(), okAccount, false},
		{"documented error", "GET", "/v1/account", 401, hdr("X-Request-Id", "r"), envelopeBody, true},
		{"error without envelope", "GET", "/v1/account", 401, hdr("X-Request-Id", "r"), `{"message":"no"}`, false},
		{"unknown code", "GET", "/v1/account", 401, hdr("X-Request-Id", "r"), strings.Replace(envelopeBody, "unauthorized", "nope", 1), false},
		{"unknown route with envelope", "GET", "/v1/nope", 404, hdr("X-Request-Id", "r"), `{"error":{"code":"not_found","message":"no such route","retryable":false}}`, true},
		{"unknown route without envelope", "GET", "/v1/nope", 404, hdr("X-Request-Id", "r"), `{"oops":true}`, false},
		{"unknown route answering 200", "GET", "/v1/nope", 200, hdr("X-Request-Id", "r"), `{}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, nil)
			err := c.Check(req, tc.status, tc.header, []byte(tc.body))
			if (err == nil) != tc.ok {
				t.Errorf("ok=%v, got error %v", tc.ok, err)
			}
		})
	}
}

// TestProjectsEnvelopesDerived: each projects envelope of the document has the keys of the Go
// projectsEnvelope (data on success, error on failure) with the same schemas.
func TestProjectsEnvelopesDerived(t *testing.T) {
	g := responseComponents()
	src := g.schemas["ProjectsEnvelope"].(map[string]any)["properties"].(map[string]any)
	_, doc := servedDoc(t, "")
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	if _, listed := schemas["ProjectsEnvelope"]; listed {
		t.Error("ProjectsEnvelope is listed although no operation uses it")
	}
	for _, n := range []string{"ProjectsError", "ProjectsStatusEnvelope", "ProjectListEnvelope", "ProjectEnvelope", "ProjectDetailEnvelope", "ProjectDeletedEnvelope", "ProjectItemEnvelope", "ItemDeletedEnvelope"} {
		props := schemas[n].(map[string]any)["properties"].(map[string]any)
		for k := range props {
			if _, ok := src[k]; !ok {
				t.Errorf("%s.%s is not a field of projectsEnvelope", n, k)
			}
		}
		for _, k := range []string{"status", "commit_status", "request_id"} {
			if props[k] == nil {
				t.Errorf("%s lacks %s", n, k)
			}
		}
		b1, _ := json.Marshal(props["request_id"])
		b2, _ := json.Marshal(src["request_id"])
		if string(b1) != string(b2) {
			t.Errorf("%s.request_id %s, projectsEnvelope %s", n, b1, b2)
		}
	}
}

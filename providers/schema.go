package providers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is a compiled request schema together with its source document (for inspect and
// OpenAPI) and the defaults it declares.
type Schema struct {
	Doc      map[string]any
	compiled *jsonschema.Schema
}

var printer = message.NewPrinter(language.English)

// CompileSchema compiles a JSON Schema (draft 2020-12) document with format assertions on.
func CompileSchema(name, src string) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := "mem:///" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	var plain map[string]any
	if err := json.Unmarshal([]byte(src), &plain); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return &Schema{Doc: plain, compiled: compiled}, nil
}

// MustCompileSchema is CompileSchema for schemas fixed at build time.
func MustCompileSchema(name, src string) *Schema {
	s, err := CompileSchema(name, src)
	if err != nil {
		panic(err)
	}
	return s
}

// DecodeBody decodes a JSON request body that must be one object. Numbers stay json.Number.
func DecodeBody(body []byte) (Request, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, InvalidField("", "the body is not valid JSON: "+jsonErrorText(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, InvalidField("", "the body must hold exactly one JSON value")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, InvalidField("", "the body must be a JSON object")
	}
	return Request(obj), nil
}

func jsonErrorText(err error) string {
	if err == io.EOF {
		return "empty body"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// Validate checks v against the schema and returns every violation, sorted by path.
func (s *Schema) Validate(v any) []Violation {
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Violation{{Path: "", Message: err.Error()}}
	}
	seen := map[Violation]bool{}
	var out []Violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		for _, v := range leafViolations(e) {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func leafViolations(e *jsonschema.ValidationError) []Violation {
	base := pointer(e.InstanceLocation)
	if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
		out := make([]Violation, 0, len(ap.Properties))
		for _, p := range ap.Properties {
			out = append(out, Violation{Path: base + "/" + escapePointer(p), Message: fmt.Sprintf("unknown field %q", p)})
		}
		return out
	}
	if rq, ok := e.ErrorKind.(*kind.Required); ok {
		out := make([]Violation, 0, len(rq.Missing))
		for _, p := range rq.Missing {
			out = append(out, Violation{Path: base + "/" + escapePointer(p), Message: fmt.Sprintf("%q is required", p)})
		}
		return out
	}
	return []Violation{{Path: base, Message: e.ErrorKind.LocalizedString(printer)}}
}

func pointer(loc []string) string {
	var b strings.Builder
	for _, p := range loc {
		b.WriteByte('/')
		b.WriteString(escapePointer(p))
	}
	return b.String()
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// ApplyDefaults fills every absent property that declares a default, in nested objects too;
// in oneOf/anyOf branches it follows the branch whose const properties match the value.
func (s *Schema) ApplyDefaults(req Request) {
	applyDefaults(s.Doc, map[string]any(req))
}

func applyDefaults(schema map[string]any, v any) {
	obj, ok := v.(map[string]any)
	if !ok || schema == nil {
		return
	}
	if props, ok := schema["properties"].(map[string]any); ok {
		for name, raw := range props {
			ps, _ := raw.(map[string]any)
			if ps == nil {
				continue
			}
			if _, present := obj[name]; !present {
				if d, has := ps["default"]; has {
					obj[name] = cloneJSON(d)
				}
			}
			if child, present := obj[name]; present {
				applyDefaults(ps, child)
			}
		}
	}
	for _, key := range []string{"oneOf", "anyOf", "allOf"} {
		branches, _ := schema[key].([]any)
		for _, b := range branches {
			bs, _ := b.(map[string]any)
			if key == "allOf" || branchMatches(bs, obj) {
				applyDefaults(bs, obj)
			}
		}
	}
	// if/then/else keyed by const properties (a body shaped by a discriminator such as
	// legal.search's jurisdiction): the defaults of the branch that applies.
	if cond, ok := schema["if"].(map[string]any); ok {
		branch := "else"
		if branchMatches(cond, obj) {
			branch = "then"
		}
		if bs, ok := schema[branch].(map[string]any); ok {
			applyDefaults(bs, obj)
		}
	}
}

// branchMatches tells whether every const property of the branch equals the object's value.
func branchMatches(branch, obj map[string]any) bool {
	props, _ := branch["properties"].(map[string]any)
	found := false
	for name, raw := range props {
		ps, _ := raw.(map[string]any)
		c, has := ps["const"]
		if !has {
			continue
		}
		found = true
		if fmt.Sprint(obj[name]) != fmt.Sprint(c) {
			return false
		}
	}
	return found
}

func cloneJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = cloneJSON(x)
		}
		return m
	case []any:
		a := make([]any, len(t))
		for i, x := range t {
			a[i] = cloneJSON(x)
		}
		return a
	case float64:
		// Defaults come from encoding/json; keep numbers in the request's json.Number form.
		return json.Number(fmt.Sprint(t))
	}
	return v
}

var schemaCache sync.Map // *Capability → *Schema (one compile per capability value)

// Schema compiles (once) and returns the capability's request schema.
func (c *Capability) Schema() *Schema {
	if s, ok := schemaCache.Load(c); ok {
		return s.(*Schema)
	}
	s := MustCompileSchema(c.ID, c.Request)
	actual, _ := schemaCache.LoadOrStore(c, s)
	return actual.(*Schema)
}

// Prepare validates an execute body: the schema, then defaults, then the rules beyond the schema.
// It returns the request with defaults applied, or an invalid_request error with violations.
func (c *Capability) Prepare(req Request, up *Update) (Request, error) {
	s := c.Schema()
	if vs := s.Validate(map[string]any(req)); len(vs) > 0 {
		return nil, Invalid(summarize(vs), vs...)
	}
	s.ApplyDefaults(req)
	if c.Rules != nil {
		if vs := c.Rules(req, up); len(vs) > 0 {
			return nil, Invalid(summarize(vs), vs...)
		}
	}
	return req, nil
}

func summarize(vs []Violation) string {
	if len(vs) == 1 {
		if vs[0].Path == "" {
			return vs[0].Message
		}
		return vs[0].Path + ": " + vs[0].Message
	}
	return fmt.Sprintf("the request has %d problems; see violations", len(vs))
}

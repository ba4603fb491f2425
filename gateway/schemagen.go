package gateway

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// schemaGen derives JSON Schemas (OpenAPI 3.1) from Go types the way encoding/json writes them:
// json tag names, omitempty (optional) or not (required), embedded structs flattened, unexported
// and json:"-" fields left out. A registered named type becomes a component that is referenced
// whole; any other struct is written inline. Struct tags doc, enum, pattern, format, min, schema
// and nullable add what the Go type cannot say (see responses.go).
type schemaGen struct {
	names   map[reflect.Type]string // registered types → component name
	open    map[reflect.Type]bool   // components that allow keys beyond their fields
	enums   map[reflect.Type][]any  // named scalar types with a fixed set of values
	schemas map[string]any          // the components built so far
	known   map[string]bool         // component names that exist (built or external)
}

func newSchemaGen() *schemaGen {
	return &schemaGen{names: map[reflect.Type]string{}, open: map[reflect.Type]bool{}, enums: map[reflect.Type][]any{},
		schemas: map[string]any{}, known: map[string]bool{}}
}

// register names the component of v's type; open allows extra keys.
func (g *schemaGen) register(name string, v any, open bool) {
	t := reflect.TypeOf(v)
	if prev, ok := g.names[t]; ok && prev != name {
		panic(fmt.Sprintf("schemagen: %v registered as %s and %s", t, prev, name))
	}
	g.names[t] = name
	g.open[t] = open
	g.known[name] = true
}

// enum fixes the values of a named scalar type.
func (g *schemaGen) enum(v any, values []any) { g.enums[reflect.TypeOf(v)] = values }

// add puts a hand-written component (a request schema) beside the derived ones.
func (g *schemaGen) add(name string, schema map[string]any) {
	g.schemas[name] = schema
	g.known[name] = true
}

// ref is a reference to the component of v's type, built on first use.
func (g *schemaGen) ref(v any) map[string]any { return g.of(reflect.TypeOf(v)) }

var (
	timeType = reflect.TypeOf(time.Time{})
	rawType  = reflect.TypeOf(json.RawMessage(nil))
	objType  = reflect.TypeOf(providers.ExampleJSON(nil))
)

// of is the schema of t: a $ref for a registered type, else an inline schema.
func (g *schemaGen) of(t reflect.Type) map[string]any {
	if name, ok := g.names[t]; ok {
		if _, built := g.schemas[name]; !built {
			g.schemas[name] = map[string]any{} // placeholder against recursion
			g.schemas[name] = g.build(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	return g.build(t)
}

func (g *schemaGen) build(t reflect.Type) map[string]any {
	if vals, ok := g.enums[t]; ok {
		return map[string]any{"type": "string", "enum": vals}
	}
	switch t {
	case timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case rawType:
		return map[string]any{}
	case objType:
		return map[string]any{"type": "object"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.of(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return map[string]any{"type": "object"}
		}
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		return g.object(t)
	}
	panic(fmt.Sprintf("schemagen: no schema for %v", t))
}

// object is a struct's schema: its json fields, closed unless registered open.
func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	g.fields(t, props, &required)
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": g.open[t]}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

func (g *schemaGen) fields(t reflect.Type, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(ft, props, required)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		omitempty := false
		for _, o := range strings.Split(opts, ",") {
			if o == "omitempty" || o == "omitzero" {
				omitempty = true
			}
		}
		props[name] = g.field(f, omitempty)
		if !omitempty {
			*required = append(*required, name)
		}
	}
}

// field is one property's schema with its tags applied.
func (g *schemaGen) field(f reflect.StructField, omitempty bool) map[string]any {
	var s map[string]any
	switch sc := f.Tag.Get("schema"); {
	case sc == "":
		s = g.of(f.Type)
	case f.Type.Kind() == reflect.Slice && f.Type != rawType:
		s = map[string]any{"type": "array", "items": g.named(sc)}
	default:
		s = g.named(sc)
	}
	if _, isRef := s["$ref"]; isRef {
		s = map[string]any{"$ref": s["$ref"]} // a copy: siblings below must not change the component
	} else {
		c := make(map[string]any, len(s)+2)
		for k, v := range s {
			c[k] = v
		}
		s = c
	}
	if d := f.Tag.Get("doc"); d != "" {
		s["description"] = d
	}
	if p := f.Tag.Get("pattern"); p != "" {
		s["pattern"] = p
	}
	if fm := f.Tag.Get("format"); fm != "" {
		s["format"] = fm
	}
	if m := f.Tag.Get("min"); m != "" {
		n, err := strconv.Atoi(m)
		if err != nil {
			panic("schemagen: min tag of " + f.Name + ": " + err.Error())
		}
		s["minimum"] = n
	}
	if e := f.Tag.Get("enum"); e != "" {
		var vals []any
		for _, v := range strings.Split(e, ",") {
			vals = append(vals, v)
		}
		if s["type"] == "array" {
			items, _ := s["items"].(map[string]any)
			s["items"] = map[string]any{"type": items["type"], "enum": vals}
		} else {
			s["enum"] = vals
		}
	}
	nullable := f.Tag.Get("nullable") == "true"
	if !omitempty {
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Interface:
			nullable = true
		}
		if f.Type == rawType {
			nullable = true
		}
	}
	if nullable {
		s = orNull(s)
	}
	return s
}

// named is the schema a schema tag names: "object", "any" or a component.
func (g *schemaGen) named(name string) map[string]any {
	switch name {
	case "object":
		return map[string]any{"type": "object"}
	case "any":
		return map[string]any{}
	case "array":
		return map[string]any{"type": "array", "items": map[string]any{}}
	case "integer", "number", "string", "boolean":
		return map[string]any{"type": name}
	}
	if alts := strings.Split(name, "|"); len(alts) > 1 {
		// One of several shapes (a value whose shape depends on the request, e.g. a total or a
		// daily list): each alternative a type or a component.
		one := make([]any, 0, len(alts))
		for _, a := range alts {
			one = append(one, g.named(a))
		}
		return map[string]any{"oneOf": one}
	}
	if !g.known[name] {
		panic("schemagen: schema tag names unknown component " + name)
	}
	for t, n := range g.names {
		if n == name {
			return g.of(t)
		}
	}
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// orNull lets a schema accept JSON null as well.
func orNull(s map[string]any) map[string]any {
	if len(s) == 0 {
		return s // accepts anything already
	}
	switch t := s["type"].(type) {
	case string:
		s["type"] = []any{t, "null"}
		if e, ok := s["enum"].([]any); ok {
			s["enum"] = append(append([]any{}, e...), nil)
		}
		return s
	}
	out := map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	if d, ok := s["description"]; ok {
		out["description"] = d
		delete(s, "description")
	}
	return out
}

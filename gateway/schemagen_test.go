package gateway

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"
	"time"
)

type sgInner struct {
	A string `json:"a"`
}

type sgEmbedded struct {
	E1 string `json:"e1"`
	E2 int    `json:"e2,omitempty"`
}

type sgOuter struct {
	sgEmbedded
	Plain    string            `json:"plain" doc:"a plain string"`
	Opt      string            `json:"opt,omitempty" enum:"x,y"`
	Count    int64             `json:"count" min:"0"`
	Ratio    float64           `json:"ratio"`
	When     time.Time         `json:"when"`
	MaybeAt  *time.Time        `json:"maybe_at"`
	Inner    sgInner           `json:"inner"`
	InnerP   *sgInner          `json:"inner_p,omitempty"`
	Inline   struct{ B bool }  `json:"inline"`
	List     []sgInner         `json:"list"`
	Tags     []string          `json:"tags,omitempty" enum:"p,q"`
	Raw      json.RawMessage   `json:"raw" schema:"object"`
	Records  []json.RawMessage `json:"records" schema:"Inner"`
	Free     map[string]any    `json:"free,omitempty"`
	Counts   map[string]int    `json:"counts,omitempty"`
	Pattern  string            `json:"pattern" pattern:"^a$"`
	Skipped  string            `json:"-"`
	hidden   string            //nolint:unused // unexported fields are never written
	NoTag    string
	Nullable string `json:"nullable" nullable:"true"`
}

func TestSchemaGen(t *testing.T) {
	g := newSchemaGen()
	g.register("Inner", sgInner{}, false)
	g.register("Outer", sgOuter{}, true)
	if got := g.ref(sgOuter{}); got["$ref"] != "#/components/schemas/Outer" {
		t.Fatalf("ref %v", got)
	}
	outer := g.schemas["Outer"].(map[string]any)
	props := outer["properties"].(map[string]any)
	innerRef := map[string]any{"$ref": "#/components/schemas/Inner"}
	cases := []struct {
		prop string
		want map[string]any
	}{
		{"e1", map[string]any{"type": "string"}},
		{"e2", map[string]any{"type": "integer"}},
		{"plain", map[string]any{"type": "string", "description": "a plain string"}},
		{"opt", map[string]any{"type": "string", "enum": []any{"x", "y"}}},
		{"count", map[string]any{"type": "integer", "minimum": 0}},
		{"ratio", map[string]any{"type": "number"}},
		{"when", map[string]any{"type": "string", "format": "date-time"}},
		{"maybe_at", map[string]any{"type": []any{"string", "null"}, "format": "date-time"}},
		{"inner", innerRef},
		{"inner_p", innerRef},
		{"inline", map[string]any{"type": "object", "additionalProperties": false, "required": []string{"B"},
			"properties": map[string]any{"B": map[string]any{"type": "boolean"}}}},
		{"list", map[string]any{"type": "array", "items": innerRef}},
		{"tags", map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"p", "q"}}}},
		{"raw", map[string]any{"type": []any{"object", "null"}}},
		{"records", map[string]any{"type": "array", "items": innerRef}},
		{"free", map[string]any{"type": "object"}},
		{"counts", map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer"}}},
		{"pattern", map[string]any{"type": "string", "pattern": "^a$"}},
		{"NoTag", map[string]any{"type": "string"}},
		{"nullable", map[string]any{"type": []any{"string", "null"}}},
	}
	for _, c := range cases {
		t.Run(c.prop, func(t *testing.T) {
			if got := props[c.prop]; !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s: got %#v, want %#v", c.prop, got, c.want)
			}
		})
	}
	if len(props) != len(cases) {
		t.Errorf("%d properties, want %d: %v", len(props), len(cases), keys(props))
	}
	wantReq := []string{"e1", "plain", "count", "ratio", "when", "maybe_at", "inner", "inline", "list", "raw", "records", "pattern", "NoTag", "nullable"}
	if got := outer["required"].([]string); !reflect.DeepEqual(got, wantReq) {
		t.Errorf("required %v, want %v", got, wantReq)
	}
	if outer["additionalProperties"] != true {
		t.Errorf("Outer is registered open")
	}
	if g.schemas["Inner"].(map[string]any)["additionalProperties"] != false {
		t.Errorf("Inner is closed")
	}
	// A description beside a $ref must not leak into the component.
	if _, ok := g.schemas["Inner"].(map[string]any)["description"]; ok {
		t.Error("component changed by a field's tags")
	}
}

func TestSchemaGenRefusesUnknownComponent(t *testing.T) {
	type bad struct {
		R json.RawMessage `json:"r" schema:"Nope"`
	}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for an unknown component")
		}
	}()
	newSchemaGen().ref(bad{})
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

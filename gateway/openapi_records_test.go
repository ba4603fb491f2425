package gateway

import (
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers/registry"
)

// TestTypedRecordsInDocument: each capability that declares its record type has a Record.<id>
// schema listing every field of it with a typed schema, and its execute answer's results are
// those records; the renderer plans the type whole (no field left to encoding/json's order) and
// the type leaves record_id, title, url and snippet to the record.
func TestTypedRecordsInDocument(t *testing.T) {
	_, doc := servedDoc(t, "")
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	paths := doc["paths"].(map[string]any)
	var typed []string
	for _, cp := range registry.Capabilities() {
		if cp.Record == nil {
			continue
		}
		typed = append(typed, cp.ID)
		rt := reflect.TypeOf(cp.Record)
		if rt.Kind() != reflect.Struct {
			t.Errorf("%s: Record is a %s, not a struct", cp.ID, rt.Kind())
			continue
		}
		if planOf(rt) == nil {
			t.Errorf("%s: the renderer cannot plan %s (embedded struct, string option or duplicate name)", cp.ID, rt)
		}
		rec, ok := schemas[RecordSchemaName(cp.ID)].(map[string]any)
		if !ok {
			t.Errorf("%s: no %s schema", cp.ID, RecordSchemaName(cp.ID))
			continue
		}
		props := rec["properties"].(map[string]any)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if isBaseKey(name) {
				t.Errorf("%s: %s declares %s, which is the record's own", cp.ID, rt, name)
			}
			p, ok := props[name].(map[string]any)
			if !ok || len(p) == 0 {
				t.Errorf("%s: %s has no typed schema for %s: %v", cp.ID, RecordSchemaName(cp.ID), name, props[name])
			}
		}
		for _, base := range []string{"record_id", "title"} {
			if props[base] == nil {
				t.Errorf("%s: the record schema lacks %s", cp.ID, base)
			}
		}
		ok200 := paths["/v1/capabilities/"+cp.ID+"/execute"].(map[string]any)["post"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)
		schema := ok200["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
		if schema["$ref"] != "#/components/schemas/"+ExecuteResponseSchemaName(cp.ID) {
			t.Errorf("%s: execute answers %v", cp.ID, schema)
		}
		answer := schemas[ExecuteResponseSchemaName(cp.ID)].(map[string]any)
		items := answer["properties"].(map[string]any)["results"].(map[string]any)["items"].(map[string]any)
		if items["$ref"] != "#/components/schemas/"+RecordSchemaName(cp.ID) {
			t.Errorf("%s: results are %v", cp.ID, items)
		}
	}
	if len(typed) == 0 {
		t.Fatal("no capability declares a typed record")
	}
	t.Logf("%d of %d capabilities have typed records: %s", len(typed), len(registry.Capabilities()), strings.Join(typed, ", "))
}

package providers_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
)

// testSchema has a required nested object chosen by a const (oneOf), nested objects with and
// without defaults, defaults of every JSON type and a field name that needs pointer escaping.
const testSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["search"],
  "properties": {
    "search": {
      "type": "object",
      "oneOf": [
        {
          "type": "object",
          "additionalProperties": false,
          "required": ["jurisdiction", "query"],
          "properties": {
            "jurisdiction": {"const": "us"},
            "query": {"type": "string", "minLength": 1},
            "courts": {"enum": ["all", "federal", "state"], "default": "all"}
          }
        },
        {
          "type": "object",
          "additionalProperties": false,
          "required": ["jurisdiction", "query"],
          "properties": {
            "jurisdiction": {"const": "eu"},
            "query": {"type": "string", "minLength": 1},
            "kind": {"enum": ["judgment", "legislation"]},
            "language": {"type": "string", "default": "EN"}
          }
        }
      ]
    },
    "num": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
    "ratio": {"type": "number", "default": 0.5},
    "tags": {"type": "array", "items": {"type": "string"}, "default": ["first"]},
    "options": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "sort": {"type": "string", "default": "relevance"},
        "filters": {
          "type": "object",
          "default": {"lang": "en"},
          "additionalProperties": false,
          "properties": {
            "lang": {"type": "string"},
            "safe": {"type": "boolean", "default": true}
          }
        }
      }
    },
    "a/b": {"type": "string"}
  }
}`

func compileTestSchema(tb testing.TB) *providers.Schema {
	tb.Helper()
	s, err := providers.CompileSchema("test", testSchema)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// decode parses a body as the gateway does.
func decode(tb testing.TB, body string) providers.Request {
	tb.Helper()
	req, err := providers.DecodeBody([]byte(body))
	if err != nil {
		tb.Fatalf("DecodeBody(%s): %v", body, err)
	}
	return req
}

func paths(vs []providers.Violation) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.Path)
	}
	return out
}

func TestCompileSchema(t *testing.T) {
	for name, src := range map[string]string{
		"not JSON":        `{"type": `,
		"bad keyword use": `{"type": "object", "properties": {"n": {"minimum": "one"}}}`,
		"bad pattern":     `{"type": "string", "pattern": "(unclosed"}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := providers.CompileSchema("broken", src); err == nil {
				t.Fatal("an invalid schema compiled")
			}
		})
	}
}

func TestSchemaValidate(t *testing.T) {
	s := compileTestSchema(t)
	const us = `"search": {"jurisdiction": "us", "query": "privacy"}`
	cases := []struct {
		name    string
		body    string
		want    []string // exact violation paths, sorted; nil: valid
		message string   // a substring of the first violation's message
	}{
		{"valid", `{` + us + `}`, nil, ""},
		{"valid with every field", `{` + us + `, "num": 10, "ratio": 1.5, "tags": ["x"], "options": {"sort": "new", "filters": {"lang": "de", "safe": false}}, "a/b": "x"}`, nil, ""},
		{"unknown field", `{` + us + `, "bogus": 1}`, []string{"/bogus"}, `unknown field "bogus"`},
		{"two unknown fields", `{` + us + `, "y": 1, "x": 2}`, []string{"/x", "/y"}, `unknown field "x"`},
		{"missing required", `{}`, []string{"/search"}, `"search" is required`},
		{"below the minimum", `{` + us + `, "num": 0}`, []string{"/num"}, "1"},
		{"above the maximum", `{` + us + `, "num": 11}`, []string{"/num"}, "10"},
		{"not an integer", `{` + us + `, "num": 2.5}`, []string{"/num"}, ""},
		{"wrong type", `{` + us + `, "num": "3"}`, []string{"/num"}, ""},
		{"array item", `{` + us + `, "tags": ["ok", 7]}`, []string{"/tags/1"}, ""},
		{"nested unknown field", `{` + us + `, "options": {"colour": "red"}}`, []string{"/options/colour"}, `unknown field "colour"`},
		{"deeply nested unknown field", `{` + us + `, "options": {"filters": {"lang": "en", "adult": true}}}`, []string{"/options/filters/adult"}, `unknown field "adult"`},
		{"deeply nested type", `{` + us + `, "options": {"filters": {"safe": "yes"}}}`, []string{"/options/filters/safe"}, ""},
		{"escaped pointer", `{` + us + `, "a/b": 1}`, []string{"/a~1b"}, ""},
		{"escaped unknown field", `{` + us + `, "x~y": 1}`, []string{"/x~0y"}, `unknown field "x~y"`},
		{"several problems sorted by path", `{"num": 0, "bogus": true}`, []string{"/bogus", "/num", "/search"}, ""},
		{"not an object", `{"search": "us"}`, []string{"/search"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vs := s.Validate(map[string]any(decode(t, tc.body)))
			if got := paths(vs); !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && tc.want == nil) {
				t.Fatalf("paths %q, want %q (%v)", got, tc.want, vs)
			}
			if tc.message != "" && !strings.Contains(vs[0].Message, tc.message) {
				t.Fatalf("message %q does not contain %q", vs[0].Message, tc.message)
			}
			for _, v := range vs {
				if v.Message == "" {
					t.Fatalf("violation at %s without a message", v.Path)
				}
			}
		})
	}
	// In a oneOf every branch reports its own problems; the path at fault must be among them.
	branchCases := []struct {
		name string
		body string
		want string
	}{
		{"missing required in the chosen branch", `{"search": {"jurisdiction": "us"}}`, "/search/query"},
		{"field of the other branch", `{"search": {"jurisdiction": "us", "query": "x", "kind": "judgment"}}`, "/search/kind"},
		{"unknown branch", `{"search": {"jurisdiction": "mars", "query": "x"}}`, "/search/jurisdiction"},
		{"empty nested string", `{"search": {"jurisdiction": "eu", "query": ""}}`, "/search/query"},
	}
	for _, tc := range branchCases {
		t.Run(tc.name, func(t *testing.T) {
			vs := s.Validate(map[string]any(decode(t, tc.body)))
			if !slices.Contains(paths(vs), tc.want) {
				t.Fatalf("paths %q do not include %s", paths(vs), tc.want)
			}
			if !slices.IsSorted(paths(vs)) {
				t.Fatalf("paths %q are not sorted", paths(vs))
			}
			seen := map[providers.Violation]bool{}
			for _, v := range vs {
				if seen[v] {
					t.Fatalf("violation %+v reported twice", v)
				}
				seen[v] = true
			}
		})
	}
}

func TestSchemaApplyDefaults(t *testing.T) {
	s := compileTestSchema(t)
	cases := []struct {
		name string
		body string
		want string // the request after defaults, as JSON
	}{
		{"top-level defaults of every type",
			`{"search": {"jurisdiction": "us", "query": "q"}}`,
			`{"search": {"jurisdiction": "us", "query": "q", "courts": "all"}, "num": 3, "ratio": 0.5, "tags": ["first"]}`},
		{"present values are kept",
			`{"search": {"jurisdiction": "us", "query": "q", "courts": "state"}, "num": 7, "ratio": 2, "tags": []}`,
			`{"search": {"jurisdiction": "us", "query": "q", "courts": "state"}, "num": 7, "ratio": 2, "tags": []}`},
		{"oneOf follows the branch whose const matches",
			`{"search": {"jurisdiction": "eu", "query": "q"}}`,
			`{"search": {"jurisdiction": "eu", "query": "q", "language": "EN"}, "num": 3, "ratio": 0.5, "tags": ["first"]}`},
		{"no branch matches: no branch defaults",
			`{"search": {"jurisdiction": "mars", "query": "q"}}`,
			`{"search": {"jurisdiction": "mars", "query": "q"}, "num": 3, "ratio": 0.5, "tags": ["first"]}`},
		{"nested object without a default stays absent",
			`{"search": {"jurisdiction": "us", "query": "q"}, "num": 1}`,
			`{"search": {"jurisdiction": "us", "query": "q", "courts": "all"}, "num": 1, "ratio": 0.5, "tags": ["first"]}`},
		{"nested defaults fill a present object, and a defaulted object gets its own defaults",
			`{"search": {"jurisdiction": "us", "query": "q"}, "options": {}}`,
			`{"search": {"jurisdiction": "us", "query": "q", "courts": "all"}, "num": 3, "ratio": 0.5, "tags": ["first"],
			  "options": {"sort": "relevance", "filters": {"lang": "en", "safe": true}}}`},
		{"nested present values are kept",
			`{"search": {"jurisdiction": "us", "query": "q"}, "options": {"filters": {"safe": false}}}`,
			`{"search": {"jurisdiction": "us", "query": "q", "courts": "all"}, "num": 3, "ratio": 0.5, "tags": ["first"],
			  "options": {"sort": "relevance", "filters": {"safe": false}}}`},
		{"a non-object where an object is expected is left alone",
			`{"search": "us", "options": 5}`,
			`{"search": "us", "options": 5, "num": 3, "ratio": 0.5, "tags": ["first"]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := decode(t, tc.body)
			s.ApplyDefaults(req)
			got, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			var gotV, wantV any
			_ = json.Unmarshal(got, &gotV)
			if err := json.Unmarshal([]byte(tc.want), &wantV); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotV, wantV) {
				t.Fatalf("after defaults\n got %s\nwant %s", got, tc.want)
			}
		})
	}
	t.Run("numbers stay json.Number", func(t *testing.T) {
		req := decode(t, `{"search": {"jurisdiction": "us", "query": "q"}}`)
		s.ApplyDefaults(req)
		if req["num"] != json.Number("3") || req["ratio"] != json.Number("0.5") {
			t.Fatalf("num %#v ratio %#v, want json.Number like the decoded body", req["num"], req["ratio"])
		}
		if n, ok := req.Int("num"); !ok || n != 3 {
			t.Fatalf("Int(num) = %d, %v", n, ok)
		}
	})
	t.Run("defaults are copies", func(t *testing.T) {
		first := decode(t, `{"search": {"jurisdiction": "us", "query": "q"}, "options": {}}`)
		s.ApplyDefaults(first)
		first["tags"].([]any)[0] = "changed"
		first["options"].(map[string]any)["filters"].(map[string]any)["lang"] = "xx"
		second := decode(t, `{"search": {"jurisdiction": "us", "query": "q"}, "options": {}}`)
		s.ApplyDefaults(second)
		if second["tags"].([]any)[0] != "first" || second["options"].(map[string]any)["filters"].(map[string]any)["lang"] != "en" {
			t.Fatalf("a change to one request's defaults leaked into the next: %v", second)
		}
		if !strings.Contains(mustJSON(t, s.Doc), `"default":["first"]`) {
			t.Fatal("the schema document's default was modified")
		}
	})
	t.Run("defaulted request validates", func(t *testing.T) {
		req := decode(t, `{"search": {"jurisdiction": "eu", "query": "q"}, "options": {}}`)
		s.ApplyDefaults(req)
		if vs := s.Validate(map[string]any(req)); len(vs) > 0 {
			t.Fatalf("defaults made the request invalid: %v", vs)
		}
	})
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func TestDecodeBody(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		message string // "" when the body is accepted
	}{
		{"object", `{"a": 1}`, ""},
		{"empty object", `{}`, ""},
		{"surrounding whitespace", " \n\t{\"a\": 1}\r\n ", ""},
		{"empty", ``, "empty body"},
		{"only whitespace", "  \n ", "empty body"},
		{"trailing object", `{"a": 1} {"b": 2}`, "exactly one JSON value"},
		{"trailing garbage", `{"a": 1}x`, "exactly one JSON value"},
		{"trailing bracket", `{"a": 1}}`, "exactly one JSON value"},
		{"array", `[{"a": 1}]`, "must be a JSON object"},
		{"string", `"query"`, "must be a JSON object"},
		{"number", `42`, "must be a JSON object"},
		{"null", `null`, "must be a JSON object"},
		{"boolean", `true`, "must be a JSON object"},
		{"truncated", `{"a": `, "not valid JSON"},
		{"bad syntax", `{"a": 1,}`, "not valid JSON"},
		{"single quotes", `{'a': 1}`, "not valid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := providers.DecodeBody([]byte(tc.body))
			if tc.message == "" {
				if err != nil || req == nil {
					t.Fatalf("DecodeBody(%q): %v", tc.body, err)
				}
				return
			}
			e, ok := providers.AsError(err)
			if !ok || e.Code != providers.CodeInvalidRequest {
				t.Fatalf("DecodeBody(%q) = %v, want invalid_request", tc.body, err)
			}
			if !strings.Contains(e.Message, tc.message) {
				t.Fatalf("message %q does not contain %q", e.Message, tc.message)
			}
			if len(e.Violations) != 1 || e.Violations[0].Path != "" {
				t.Fatalf("violations %+v, want one at the body (path \"\")", e.Violations)
			}
			if e.HTTPStatus() != 400 {
				t.Fatalf("HTTP status %d", e.HTTPStatus())
			}
		})
	}
	t.Run("numbers are kept exact", func(t *testing.T) {
		req := decode(t, `{"big": 12345678901234567890, "small": 0.1, "nested": {"n": 1e3}}`)
		if req["big"] != json.Number("12345678901234567890") || req["small"] != json.Number("0.1") {
			t.Fatalf("numbers %#v %#v", req["big"], req["small"])
		}
		if n := req["nested"].(map[string]any)["n"]; n != json.Number("1e3") {
			t.Fatalf("nested number %#v", n)
		}
	})
}

func TestCapabilityPrepare(t *testing.T) {
	var sawNum any
	cp := &providers.Capability{ID: "test.prepare", Request: testSchema,
		Rules: func(req providers.Request, _ *providers.Update) []providers.Violation {
			sawNum = req["num"]
			if req.Str("a/b") == "refuse" {
				return []providers.Violation{{Path: "/a~1b", Message: "refused by a rule"}}
			}
			return nil
		}}
	t.Run("schema, then defaults, then rules", func(t *testing.T) {
		req, err := cp.Prepare(decode(t, `{"search": {"jurisdiction": "us", "query": "q"}}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		if sawNum != json.Number("3") || req["num"] != json.Number("3") {
			t.Fatalf("the rule saw num %#v, the request has %#v; want the default 3", sawNum, req["num"])
		}
	})
	t.Run("schema violations stop before the rules", func(t *testing.T) {
		sawNum = nil
		_, err := cp.Prepare(decode(t, `{"bogus": 1, "a/b": "refuse"}`), nil)
		e, ok := providers.AsError(err)
		if !ok || e.Code != providers.CodeInvalidRequest || !reflect.DeepEqual(paths(e.Violations), []string{"/bogus", "/search"}) {
			t.Fatalf("error %v, violations %v", err, e)
		}
		if sawNum != nil {
			t.Fatal("the rules ran on a body that failed the schema")
		}
	})
	t.Run("a rule's violation", func(t *testing.T) {
		_, err := cp.Prepare(decode(t, `{"search": {"jurisdiction": "us", "query": "q"}, "a/b": "refuse"}`), nil)
		e, ok := providers.AsError(err)
		if !ok || e.Code != providers.CodeInvalidRequest || e.Message != "/a~1b: refused by a rule" {
			t.Fatalf("error %v", err)
		}
	})
}

// TestSchemaApplyDefaultsIfThen: a body keyed by a discriminator through if/then/else gets the
// defaults of the branch that applies, and only those.
func TestSchemaApplyDefaultsIfThen(t *testing.T) {
	s, err := providers.CompileSchema("ifthen", `{
	  "type": "object",
	  "properties": {"search": {"type": "object",
	    "properties": {"jurisdiction": {"enum": ["us", "eu"]}},
	    "allOf": [
	      {"if": {"properties": {"jurisdiction": {"const": "us"}}},
	       "then": {"properties": {"courts": {"default": "all"}}}},
	      {"if": {"properties": {"jurisdiction": {"const": "eu"}}},
	       "then": {"properties": {"language": {"default": "EN"}}},
	       "else": {"properties": {"other": {"default": true}}}}
	    ]}}
	}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"search": {"jurisdiction": "us"}}`, `{"search": {"jurisdiction": "us", "courts": "all", "other": true}}`},
		{`{"search": {"jurisdiction": "eu"}}`, `{"search": {"jurisdiction": "eu", "language": "EN"}}`},
		{`{"search": {"jurisdiction": "eu", "language": "DE"}}`, `{"search": {"jurisdiction": "eu", "language": "DE"}}`},
	} {
		req := decode(t, tc.body)
		s.ApplyDefaults(req)
		var gotV, wantV any
		_ = json.Unmarshal([]byte(mustJSON(t, req)), &gotV)
		_ = json.Unmarshal([]byte(tc.want), &wantV)
		if !reflect.DeepEqual(gotV, wantV) {
			t.Errorf("%s: got %s, want %s", tc.body, mustJSON(t, req), tc.want)
		}
	}
}

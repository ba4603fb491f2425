package gateway

// Tool schemas and result text as the official MCP clients accept them (issue 32).
//
// The TypeScript SDK (the library most hosts are built on) refuses a tools/list whose outputSchema
// has no top-level "type": "object", and it validates every structuredContent against the
// outputSchema with its own JSON Schema validator; a schema that leans on $defs and $ref is
// resolved differently from client to client. So every tool schema is one self-contained object:
// component references are inlined, and only a reference back into itself (a recursive
// component, none today) stays as a $ref into $defs.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

const componentRef = "#/components/schemas/"

// toolSchema is an OpenAPI schema as a standalone JSON Schema object for MCP: every component it
// reaches is inlined, and the top level says "type": "object" (an object schema without it, such
// as a oneOf of objects, gets it added; a root that is not an object is a registry error).
func toolSchema(components map[string]any, root map[string]any) map[string]any {
	defs := map[string]any{}
	var walk func(v any, stack []string) any
	walk = func(v any, stack []string) any {
		switch t := v.(type) {
		case map[string]any:
			if s, ok := t["$ref"].(string); ok && strings.HasPrefix(s, componentRef) {
				name := strings.TrimPrefix(s, componentRef)
				target, ok := components[name].(map[string]any)
				if !ok {
					panic("gateway: a tool schema refers to the unknown component " + name)
				}
				for _, n := range stack {
					if n == name { // recursive: keep one definition and refer to it
						if _, seen := defs[name]; !seen {
							defs[name] = true // placeholder against re-entry
							defs[name] = walk(target, nil)
						}
						return map[string]any{"$ref": "#/$defs/" + name}
					}
				}
				inlined := walk(target, append(stack[:len(stack):len(stack)], name)).(map[string]any)
				// Keywords beside the $ref (a description, say) stay with the inlined schema.
				for k, x := range t {
					if k != "$ref" {
						inlined[k] = walk(x, stack)
					}
				}
				return inlined
			}
			out := make(map[string]any, len(t))
			for k, x := range t {
				out[k] = walk(x, stack)
			}
			return out
		case []any:
			out := make([]any, len(t))
			for i, x := range t {
				out[i] = walk(x, stack)
			}
			return out
		}
		return v
	}
	out := walk(root, nil).(map[string]any)
	switch ty := out["type"].(type) {
	case nil:
		out["type"] = "object"
	case string:
		if ty != "object" {
			panic(fmt.Sprintf("gateway: a tool schema's top level is %q, not an object", ty))
		}
	default:
		panic(fmt.Sprintf("gateway: a tool schema's top level type is %v, not \"object\"", ty))
	}
	if len(defs) > 0 {
		out["$defs"] = defs
	}
	return out
}

// Bounds of a result's text block: enough for an agent that reads text alone to work with the
// records, small enough not to flood its context (structuredContent holds everything).
const (
	textRecords     = 20   // records listed
	textRecordBytes = 600  // of one record's compact JSON
	textDetailBytes = 6000 // of a record action's detail
)

// renderResult is the text block that stands alone: what the answer is (search, record action or
// review), the records or the detail in compact form, the next step, and the cost.
func renderResult(body []byte) string {
	var res struct {
		SearchID    string            `json:"search_id"`
		Capability  string            `json:"capability"`
		ResultCount int               `json:"result_count"`
		HasMore     bool              `json:"has_more"`
		Results     []json.RawMessage `json:"results"`
		Actions     []string          `json:"record_actions"`
		Notes       []string          `json:"notes"`
		RecordID    string            `json:"record_id"`
		Action      string            `json:"action"`
		Detail      json.RawMessage   `json:"detail"`
		Links       []struct {
			Label string `json:"label"`
			URL   string `json:"url"`
		} `json:"links"`
		Reviews []struct {
			Reviewer struct {
				Family string `json:"family"`
				Model  string `json:"model"`
			} `json:"reviewer"`
			Review string `json:"review"`
		} `json:"reviews"`
		Instruction    string `json:"instruction"`
		ChargedCredits int64  `json:"charged_credits"`
		Balance        struct {
			Used int64 `json:"used"`
			Cap  int64 `json:"cap"`
		} `json:"balance"`
	}
	_ = json.Unmarshal(body, &res)
	var b strings.Builder
	switch {
	case res.SearchID != "":
		fmt.Fprintf(&b, "%s: search %s, %d results, has_more %t", res.Capability, res.SearchID, res.ResultCount, res.HasMore)
		for i, raw := range res.Results {
			if i == textRecords {
				fmt.Fprintf(&b, "\n… %d more records in structuredContent", len(res.Results)-i)
				break
			}
			fmt.Fprintf(&b, "\n%d. %s", i+1, compactRecord(raw))
		}
		for _, n := range res.Notes {
			b.WriteString("\nNote: " + n)
		}
		if res.HasMore {
			fmt.Fprintf(&b, "\nNext page: follow_up {\"search_id\": %q, \"action\": \"more\"}", res.SearchID)
		}
		if len(res.Actions) > 0 && len(res.Results) > 0 {
			fmt.Fprintf(&b, "\nRecord actions (follow_up {\"record_id\": …, \"action\": …}): %s", strings.Join(res.Actions, ", "))
		}
	case res.RecordID != "":
		fmt.Fprintf(&b, "record %s, %s:\n%s", res.RecordID, res.Action, clip(compactJSON(res.Detail), textDetailBytes))
		for _, l := range res.Links {
			fmt.Fprintf(&b, "\nLink %s: %s", l.Label, l.URL)
		}
	default:
		fmt.Fprintf(&b, "%d reviews", len(res.Reviews))
		for i, r := range res.Reviews {
			fmt.Fprintf(&b, "\n%d. %s %s: %s", i+1, r.Reviewer.Family, r.Reviewer.Model, clip(r.Review, textDetailBytes))
		}
		if res.Instruction != "" {
			b.WriteString("\n" + res.Instruction)
		}
	}
	fmt.Fprintf(&b, "\nCharged %d credits; balance %d of %d used.", res.ChargedCredits, res.Balance.Used, res.Balance.Cap)
	return b.String()
}

// compactRecord is one record on one line: its title and id first, then its other fields as
// compact JSON (keys sorted), clipped.
func compactRecord(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return clip(compactJSON(raw), textRecordBytes)
	}
	var head strings.Builder
	if t, ok := m["title"].(string); ok && t != "" {
		head.WriteString(t + " ")
	} else if n, ok := m["name"].(string); ok && n != "" {
		head.WriteString(n + " ")
	}
	if id, ok := m["record_id"].(string); ok {
		head.WriteString("[" + id + "] ")
	}
	delete(m, "record_id")
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rest := make([]string, 0, len(keys))
	for _, k := range keys {
		if k == "title" {
			continue
		}
		v, _ := json.Marshal(m[k])
		rest = append(rest, fmt.Sprintf("%q:%s", k, v))
	}
	return head.String() + clip("{"+strings.Join(rest, ",")+"}", textRecordBytes)
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8RuneStart(s[i]) {
		i--
	}
	return s[:i] + "… (clipped; the whole answer is in structuredContent)"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

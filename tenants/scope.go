package tenants

// Scope limits what a credential may use (issue 32): an API key today, an OAuth grant or a
// per-key budget later. It is the one check every surface asks (the catalog, the MCP tool list,
// execution and follow-ups on /v1 and /mcp): Allows.

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Scope names the capabilities a credential may use, by capability id or by topic. The zero Scope
// is unlimited: everything the plan enables. A capability is in a limited scope when its id is
// listed or its topic is. "sharpen" may be listed as an id for /v1/sharpen.
type Scope struct {
	Capabilities []string `json:"capabilities,omitempty"`
	Topics       []string `json:"topics,omitempty"` // TopicKey form: "dev", "web-and-news"
}

// Scope limits (shared by every caller that builds one from input).
const (
	maxScopeEntries = 100
	maxScopeEntry   = 80
)

// SharpenScopeID is the id a scope lists to include /v1/sharpen.
const SharpenScopeID = "sharpen"

var scopeIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$`)

// TopicKey is the comparable form of a topic: lower case, every run of other characters than
// letters and digits one "-" ("Web and news" → "web-and-news", "Dev" → "dev").
func TopicKey(topic string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(topic) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// NewScope builds a scope from capability ids and topics (any topic spelling; kept as TopicKey),
// refusing malformed entries. Duplicates are dropped and the lists sorted.
func NewScope(capabilities, topics []string) (Scope, error) {
	var s Scope
	for _, id := range capabilities {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if len(id) > maxScopeEntry || !scopeIDPattern.MatchString(id) {
			return Scope{}, invalidf("scope", fmt.Sprintf("scope capability %q is not a capability id such as web.search", clipText(id)))
		}
		s.Capabilities = append(s.Capabilities, id)
	}
	for _, t := range topics {
		if strings.TrimSpace(t) == "" {
			continue
		}
		k := TopicKey(t)
		if k == "" || len(k) > maxScopeEntry {
			return Scope{}, invalidf("scope", fmt.Sprintf("scope topic %q is not a topic such as dev", clipText(t)))
		}
		s.Topics = append(s.Topics, k)
	}
	slices.Sort(s.Capabilities)
	s.Capabilities = slices.Compact(s.Capabilities)
	slices.Sort(s.Topics)
	s.Topics = slices.Compact(s.Topics)
	if len(s.Capabilities)+len(s.Topics) > maxScopeEntries {
		return Scope{}, invalidf("scope", fmt.Sprintf("a scope names at most %d capabilities and topics", maxScopeEntries))
	}
	return s, nil
}

// ParseScope reads the comma-separated forms of the CLI, the console and the MCP URL
// (?tools=web.search,weather.forecast&topics=dev).
func ParseScope(capabilities, topics string) (Scope, error) {
	return NewScope(strings.Split(capabilities, ","), strings.Split(topics, ","))
}

func clipText(s string) string {
	if len(s) > maxScopeEntry {
		return s[:maxScopeEntry] + "…"
	}
	return s
}

// Unlimited reports whether the scope allows everything the plan enables.
func (s Scope) Unlimited() bool { return len(s.Capabilities) == 0 && len(s.Topics) == 0 }

// Allows is the scope check: the capability id (or SharpenScopeID) with its topic is in the scope.
func (s Scope) Allows(id, topic string) bool {
	if s.Unlimited() {
		return true
	}
	if slices.Contains(s.Capabilities, id) {
		return true
	}
	return topic != "" && slices.Contains(s.Topics, TopicKey(topic))
}

// Narrow is the scope allowing only what both s and other allow (other narrows, never widens).
// It is returned as a check, since an intersection of id and topic lists is not itself a Scope.
func (s Scope) Narrow(other Scope) func(id, topic string) bool {
	return func(id, topic string) bool { return s.Allows(id, topic) && other.Allows(id, topic) }
}

// String names the scope for people: "capabilities web.search, weather.forecast; topics dev".
func (s Scope) String() string {
	if s.Unlimited() {
		return "unlimited"
	}
	var parts []string
	if len(s.Capabilities) > 0 {
		parts = append(parts, "capabilities "+strings.Join(s.Capabilities, ", "))
	}
	if len(s.Topics) > 0 {
		parts = append(parts, "topics "+strings.Join(s.Topics, ", "))
	}
	return strings.Join(parts, "; ")
}

// Value stores the scope as JSON text; an unlimited scope is the empty string.
func (s Scope) Value() (driver.Value, error) {
	if s.Unlimited() {
		return "", nil
	}
	b, err := json.Marshal(s)
	return string(b), err
}

// Scan reads the stored form (NULL and "" are unlimited).
func (s *Scope) Scan(src any) error {
	*s = Scope{}
	var b []byte
	switch v := src.(type) {
	case nil:
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("scope: cannot scan %T", src)
	}
	if len(b) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, s); err != nil {
		return errors.New("scope: stored value is not a scope: " + err.Error())
	}
	return nil
}

// CheckKnown refuses a scope naming a capability id or topic outside the given vocabulary (the
// build's capability ids and SharpenScopeID, and its topics in any spelling).
func (s Scope) CheckKnown(capabilityIDs, topics []string) error {
	for _, id := range s.Capabilities {
		if id != SharpenScopeID && !slices.Contains(capabilityIDs, id) {
			return invalidf("scope", fmt.Sprintf("scope names the unknown capability %q", id))
		}
	}
	keys := make([]string, 0, len(topics))
	for _, t := range topics {
		keys = append(keys, TopicKey(t))
	}
	for _, t := range s.Topics {
		if !slices.Contains(keys, t) {
			slices.Sort(keys)
			return invalidf("scope", fmt.Sprintf("scope names the unknown topic %q (topics: %s)", t, strings.Join(slices.Compact(keys), ", ")))
		}
	}
	return nil
}

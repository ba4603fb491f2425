package gateway

// Scoped credentials (issue 32): a key limited to some capabilities sees only those in the
// catalog and the MCP tool list, and any call outside them (execute, follow-ups, sharpen, over
// /v1 or /mcp) is refused with capability_disabled naming the scope. The check itself is
// tenants.Scope.Allows; this file only applies it.

import (
	"fmt"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// Scope is what the caller's credential is limited to (the zero Scope: unlimited).
func (p *Principal) Scope() tenants.Scope { return p.Key.Scope }

// InScope tells whether the caller's credential may use the capability.
func (p *Principal) InScope(cp *providers.Capability) bool { return p.Scope().Allows(cp.ID, cp.Topic) }

// sharpenInScope tells whether the credential may use /v1/sharpen (its scope lists "sharpen").
func (p *Principal) sharpenInScope() bool { return p.Scope().Allows(tenants.SharpenScopeID, "") }

// outOfScope is the refusal of a capability (or "sharpen") outside the credential's scope.
func outOfScope(p *Principal, id string) *Error {
	return &Error{Code: providers.CodeCapabilityDisabled,
		Message: fmt.Sprintf("%s is outside this API key's scope", id),
		Hint:    fmt.Sprintf("this key is limited to %s; use a key whose scope includes %s, or create one in the console", p.Scope(), id)}
}

// scopeReason is the catalog's disabled_reason of a capability outside the scope.
func scopeReason(p *Principal) string {
	return "outside this API key's scope (" + p.Scope().String() + ")"
}

// ScopeVocabulary is what a scope may name in this build: the capability ids (and sharpen) and
// the topics, for tenants.Scope.CheckKnown.
func ScopeVocabulary(caps []*providers.Capability) (ids, topics []string) {
	for _, cp := range caps {
		ids = append(ids, cp.ID)
		topics = append(topics, cp.Topic)
	}
	return ids, topics
}

package gateway

// Key management over HTTP (issue 34): GET/POST /v1/keys, GET/PATCH/DELETE /v1/keys/{id} and
// POST /v1/keys/{id}/roll, for a key with the manage permission (manage.go), on its own
// tenant's keys only: another tenant's key is not_found, never shown. A manage key cannot hand
// out more than it holds: a key it creates or changes stays within its own scope, and a test key
// manages test keys only. Every change is written to the audit log with the managing key as the
// actor.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// Audit actions of key changes (the console's names).
const (
	AuditKeyCreate = "key.create"
	AuditKeyUpdate = "key.update"
	AuditKeyRevoke = "key.revoke"
	AuditKeyRoll   = "key.roll"
)

// keyStore is what the management routes use of the account store.
type keyStore interface {
	Keys(ctx context.Context, tenantID string) ([]tenants.APIKey, error)
	Key(ctx context.Context, id string) (*tenants.APIKey, error)
	CreateKeyWith(ctx context.Context, tenantID, mode string, pol tenants.KeyPolicy) (*tenants.APIKey, string, error)
	UpdateKey(ctx context.Context, id, tenantID string, patch tenants.KeyPatch) (before, after *tenants.APIKey, err error)
	RevokeKey(ctx context.Context, id, tenantID string) (*tenants.APIKey, error)
	RollKey(ctx context.Context, id, tenantID string, overlap time.Duration) (*tenants.APIKey, string, error)
	KeyUsage(ctx context.Context, t *tenants.Tenant, k *tenants.APIKey) (int64, error)
	Audit(ctx context.Context, actor, action, target string, before, after any) error
}

// keyScopeJSON is a key's scope.
type keyScopeJSON struct {
	Capabilities []string `json:"capabilities" doc:"capability ids the key may use (sharpen for /v1/sharpen); empty with no topics: everything the plan enables"`
	Topics       []string `json:"topics" doc:"topics whose capabilities the key may use"`
}

// keyJSON is an API key as the management API shows it (never its secret).
type keyJSON struct {
	ID                string         `json:"id" doc:"the key's id"`
	Name              string         `json:"name" doc:"the key's name (label)"`
	Mode              string         `json:"mode" enum:"live,test" doc:"live keys call real providers, test keys the sandbox"`
	Prefix            string         `json:"prefix" doc:"the first characters of the secret, to recognise it"`
	CreatedAt         time.Time      `json:"created_at" format:"date-time"`
	LastUsedAt        *time.Time     `json:"last_used_at" format:"date-time" nullable:"true"`
	RevokedAt         *time.Time     `json:"revoked_at" format:"date-time" nullable:"true"`
	ExpiresAt         *time.Time     `json:"expires_at" format:"date-time" nullable:"true" doc:"after it the key is refused with unauthorized; null: never"`
	Scope             keyScopeJSON   `json:"scope"`
	Metadata          map[string]any `json:"metadata" doc:"the caller's own small JSON object (at most 4096 bytes, 50 keys)"`
	CreditBudget      int64          `json:"credit_budget" min:"0" doc:"the key's own credits per period, under the account's cap; 0: none"`
	RatePerMinute     int            `json:"rate_per_minute" min:"0" doc:"the key's own requests per minute, never above the plan's; 0: the plan's"`
	Manage            bool           `json:"manage" doc:"the key may manage the account's keys"`
	PreviousExpiresAt *time.Time     `json:"previous_secret_expires_at" format:"date-time" nullable:"true" doc:"until when the secret replaced by the last roll stays valid; null: none"`
	CreditsUsed       int64          `json:"credits_used" min:"0" doc:"credits this key used in the current period (its budget's meter when it has one)"`
}

type keyList struct {
	Keys []keyJSON `json:"keys"`
}

// keyCreated is the answer of a create or a roll: the only time the secret is shown.
type keyCreated struct {
	Key    keyJSON `json:"key"`
	Secret string  `json:"secret" doc:"the key's secret (Authorization: Bearer …); shown once, never again"`
}

func toKeyJSON(k *tenants.APIKey, used int64) keyJSON {
	md := map[string]any(k.Metadata)
	if md == nil {
		md = map[string]any{}
	}
	return keyJSON{ID: k.ID, Name: k.Label, Mode: k.Mode, Prefix: k.Prefix, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt,
		RevokedAt: k.RevokedAt, ExpiresAt: k.ExpiresAt, Scope: keyScopeJSON{Capabilities: orEmpty(k.Scope.Capabilities), Topics: orEmpty(k.Scope.Topics)},
		Metadata: md, CreditBudget: k.CreditBudget, RatePerMinute: k.RatePerMinute, Manage: k.Manage, PreviousExpiresAt: k.PrevExpiresAt, CreditsUsed: used}
}

// KeyAuditState is an audited key in the API's names (never its secret or hash).
func KeyAuditState(k *tenants.APIKey) map[string]any {
	st := map[string]any{"tenant_id": k.TenantID, "mode": k.Mode, "label": k.Label, "prefix": k.Prefix, "revoked": k.RevokedAt != nil,
		"scope": k.Scope.String(), "credit_budget": k.CreditBudget, "rate_per_minute": k.RatePerMinute, "manage": k.Manage}
	if k.ExpiresAt != nil {
		st["expires_at"] = k.ExpiresAt.UTC().Format(time.RFC3339)
	}
	if len(k.Metadata) > 0 {
		b, _ := json.Marshal(k.Metadata)
		st["metadata"] = string(b)
	}
	return st
}

func (s *Server) keys() keyStore {
	ks, _ := s.store.(keyStore)
	return ks
}

func (s *Server) keyStoreOr503() (keyStore, error) {
	ks := s.keys()
	if ks == nil {
		return nil, &Error{Code: providers.CodeServiceUnavailable, Message: "key management is not available in this deployment"}
	}
	return ks, nil
}

// actorOf names the managing key in the audit log.
func actorOf(p *Principal) string { return "api key " + p.Key.Prefix + "… (" + p.Key.ID + ")" }

func (s *Server) audit(ctx context.Context, ks keyStore, p *Principal, action string, before, after *tenants.APIKey) {
	var b, a any
	target := ""
	if before != nil {
		b, target = KeyAuditState(before), before.ID
	}
	if after != nil {
		a, target = KeyAuditState(after), after.ID
	}
	if err := ks.Audit(context.WithoutCancel(ctx), actorOf(p), action, target, b, a); err != nil {
		s.log.Error("audit write failed", "action", action, "target", target, "err", err)
	}
}

// keyError maps a store error of the management routes.
func keyError(err error) error {
	var ie *tenants.InvalidError
	switch {
	case errors.As(err, &ie):
		return &Error{Code: providers.CodeInvalidRequest, Message: ie.Message, Violations: []providers.Violation{{Path: "/" + ie.Field, Message: ie.Message}}}
	case errors.Is(err, tenants.ErrNotFound):
		return &Error{Code: providers.CodeNotFound, Message: "no such key on this account"}
	case errors.Is(err, tenants.ErrKeyRevoked):
		return &Error{Code: providers.CodeInvalidRequest, Status: fiber.StatusConflict, Message: "the key is revoked; a revoked key cannot be changed or rolled"}
	}
	return storeError(err)
}

func (s *Server) usageOf(ctx context.Context, ks keyStore, p *Principal, k *tenants.APIKey) (int64, error) {
	return ks.KeyUsage(ctx, p.Tenant, k)
}

// listKeys answers GET /v1/keys: the account's keys, newest first.
func (s *Server) listKeys(c *fiber.Ctx) error {
	ks, err := s.keyStoreOr503()
	if err != nil {
		return err
	}
	p := principalOf(c)
	keys, err := ks.Keys(c.UserContext(), p.Tenant.ID)
	if err != nil {
		return storeError(err)
	}
	out := keyList{Keys: make([]keyJSON, 0, len(keys))}
	for i := range keys {
		used, err := s.usageOf(c.UserContext(), ks, p, &keys[i])
		if err != nil {
			return storeError(err)
		}
		out.Keys = append(out.Keys, toKeyJSON(&keys[i], used))
	}
	return c.JSON(out)
}

// ownKey loads a key of the caller's tenant (another tenant's key is not_found).
func (s *Server) ownKey(c *fiber.Ctx, ks keyStore) (*tenants.APIKey, error) {
	p := principalOf(c)
	k, err := ks.Key(c.UserContext(), c.Params("id"))
	if errors.Is(err, tenants.ErrNotFound) || (err == nil && k.TenantID != p.Tenant.ID) {
		return nil, &Error{Code: providers.CodeNotFound, Message: "no such key on this account", Hint: "GET /v1/keys lists the account's keys"}
	}
	if err != nil {
		return nil, storeError(err)
	}
	return k, nil
}

// getKey answers GET /v1/keys/{id}.
func (s *Server) getKey(c *fiber.Ctx) error {
	ks, err := s.keyStoreOr503()
	if err != nil {
		return err
	}
	k, err := s.ownKey(c, ks)
	if err != nil {
		return err
	}
	used, err := s.usageOf(c.UserContext(), ks, principalOf(c), k)
	if err != nil {
		return storeError(err)
	}
	return c.JSON(toKeyJSON(k, used))
}

// keyBody is the JSON body of a create or a patch, as sent (absent and null told apart).
type keyBody map[string]json.RawMessage

var keyBodyFields = map[string]bool{"name": true, "mode": true, "scope": true, "metadata": true, "expires_at": true,
	"credit_budget": true, "rate_per_minute": true, "manage": true}

func parseKeyBody(raw []byte, create bool) (keyBody, error) {
	var b keyBody
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, &b); err != nil || b == nil {
		return nil, providers.Invalid("the body must be a JSON object", providers.Violation{Path: "", Message: "a JSON object"})
	}
	for k := range b {
		if !keyBodyFields[k] || (k == "mode" && !create) {
			return nil, providers.Invalid(fmt.Sprintf("unknown field %q", k), providers.Violation{Path: "/" + k, Message: "unknown field"})
		}
	}
	return b, nil
}

func bodyViolation(field, msg string) error {
	return providers.Invalid(field+": "+msg, providers.Violation{Path: "/" + field, Message: msg})
}

func (b keyBody) has(f string) bool { _, ok := b[f]; return ok }

func (b keyBody) isNull(f string) bool { return string(bytes.TrimSpace(b[f])) == "null" }

func (b keyBody) decode(f string, v any, want string) error {
	d := json.NewDecoder(bytes.NewReader(b[f]))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return bodyViolation(f, "must be "+want)
	}
	return nil
}

// patch reads the policy fields of a body.
func (b keyBody) patch(s *Server) (tenants.KeyPatch, error) {
	var pt tenants.KeyPatch
	if b.has("name") {
		var v string
		if err := b.decode("name", &v, "a string"); err != nil {
			return pt, err
		}
		pt.Label = &v
	}
	if b.has("scope") && !b.isNull("scope") {
		var v keyScopeJSON
		if err := b.decode("scope", &v, "an object {capabilities: [ids], topics: [topics]}"); err != nil {
			return pt, err
		}
		sc, err := tenants.NewScope(v.Capabilities, v.Topics)
		if err == nil {
			err = sc.CheckKnown(ScopeVocabulary(s.order))
		}
		if err != nil {
			return pt, keyError(err)
		}
		pt.Scope = &sc
	} else if b.has("scope") {
		sc := tenants.Scope{}
		pt.Scope = &sc
	}
	if b.has("metadata") {
		md, err := tenants.ParseMetadata(b["metadata"])
		if err != nil {
			return pt, keyError(err)
		}
		pt.Metadata = &md
	}
	if b.has("expires_at") {
		if b.isNull("expires_at") {
			pt.ClearExpiry = true
		} else {
			var v time.Time
			if err := b.decode("expires_at", &v, "an RFC 3339 date-time or null"); err != nil {
				return pt, err
			}
			pt.ExpiresAt = &v
		}
	}
	if b.has("credit_budget") {
		var v int64
		if err := b.decode("credit_budget", &v, "an integer >= 0"); err != nil {
			return pt, err
		}
		pt.CreditBudget = &v
	}
	if b.has("rate_per_minute") {
		var v int
		if err := b.decode("rate_per_minute", &v, "an integer >= 0"); err != nil {
			return pt, err
		}
		pt.RatePerMinute = &v
	}
	if b.has("manage") {
		var v bool
		if err := b.decode("manage", &v, "a boolean"); err != nil {
			return pt, err
		}
		pt.Manage = &v
	}
	return pt, nil
}

// withinCaller refuses a scope wider than the managing key's own: a scoped manage key cannot
// mint or widen a key beyond what it may use itself.
func (s *Server) withinCaller(p *Principal, sc tenants.Scope) error {
	own := p.Key.Scope
	if own.Unlimited() {
		return nil
	}
	msg := "a key limited to " + own.String() + " can only give keys a scope within its own"
	if sc.Unlimited() {
		return bodyViolation("scope", msg)
	}
	for _, id := range sc.Capabilities {
		topic := ""
		if cp, ok := s.caps[id]; ok {
			topic = cp.Topic
		}
		if !own.Allows(id, topic) {
			return bodyViolation("scope", msg)
		}
	}
	for _, t := range sc.Topics {
		if !slices.Contains(own.Topics, t) {
			return bodyViolation("scope", msg)
		}
	}
	return nil
}

// createKey answers POST /v1/keys (201 with the secret, shown once).
func (s *Server) createKey(c *fiber.Ctx) error {
	ks, err := s.keyStoreOr503()
	if err != nil {
		return err
	}
	p := principalOf(c)
	b, err := parseKeyBody(c.BodyRaw(), true)
	if err != nil {
		return err
	}
	mode := p.Key.Mode
	if b.has("mode") {
		if err := b.decode("mode", &mode, `"live" or "test"`); err != nil {
			return err
		}
		if mode != tenants.ModeLive && mode != tenants.ModeTest {
			return bodyViolation("mode", `must be "live" or "test"`)
		}
	}
	if p.Key.Mode == tenants.ModeTest && mode != tenants.ModeTest {
		return bodyViolation("mode", "a test key manages test keys only")
	}
	pt, err := b.patch(s)
	if err != nil {
		return err
	}
	pol := tenants.KeyPolicy{}
	if pt.Label != nil {
		pol.Label = *pt.Label
	}
	if pt.Scope != nil {
		pol.Scope = *pt.Scope
	}
	if err := s.withinCaller(p, pol.Scope); err != nil {
		return err
	}
	if pt.Metadata != nil {
		pol.Metadata = *pt.Metadata
	}
	pol.ExpiresAt = pt.ExpiresAt
	if pt.CreditBudget != nil {
		pol.CreditBudget = *pt.CreditBudget
	}
	if pt.RatePerMinute != nil {
		pol.RatePerMinute = *pt.RatePerMinute
	}
	if pt.Manage != nil {
		pol.Manage = *pt.Manage
	}
	k, raw, err := ks.CreateKeyWith(c.UserContext(), p.Tenant.ID, mode, pol)
	if err != nil {
		return keyError(err)
	}
	s.audit(c.UserContext(), ks, p, AuditKeyCreate, nil, k)
	return c.Status(fiber.StatusCreated).JSON(keyCreated{Key: toKeyJSON(k, 0), Secret: raw})
}

// managedKey loads a key the caller may change: its tenant's, and a live key only for a live
// managing key.
func (s *Server) managedKey(c *fiber.Ctx, ks keyStore) (*tenants.APIKey, error) {
	k, err := s.ownKey(c, ks)
	if err != nil {
		return nil, err
	}
	if p := principalOf(c); p.Key.Mode == tenants.ModeTest && k.Mode != tenants.ModeTest {
		return nil, &Error{Code: providers.CodeCapabilityDisabled, Status: fiber.StatusForbidden, Message: "a test key manages test keys only"}
	}
	return k, nil
}

// updateKey answers PATCH /v1/keys/{id}.
func (s *Server) updateKey(c *fiber.Ctx) error {
	ks, err := s.keyStoreOr503()
	if err != nil {
		return err
	}
	k, err := s.managedKey(c, ks)
	if err != nil {
		return err
	}
	b, err := parseKeyBody(c.BodyRaw(), false)
	if err != nil {
		return err
	}
	pt, err := b.patch(s)
	if err != nil {
		return err
	}
	p := principalOf(c)
	if pt.Scope != nil {
		if err := s.withinCaller(p, *pt.Scope); err != nil {
			return err
		}
	}
	before, after, err := ks.UpdateKey(c.UserContext(), k.ID, p.Tenant.ID, pt)
	if err != nil {
		return keyError(err)
	}
	s.auth.forget()
	s.audit(c.UserContext(), ks, p, AuditKeyUpdate, before, after)
	used, err := s.usageOf(c.UserContext(), ks, p, after)
	if err != nil {
		return storeError(err)
	}
	return c.JSON(toKeyJSON(after, used))
}

// revokeKey answers DELETE /v1/keys/{id}: the key is revoked (kept, listed as revoked).
func (s *Server) revokeKey(c *fiber.Ctx) error {
	ks, err := s.keyStoreOr503()
	if err != nil {
		return err
	}
	k, err := s.managedKey(c, ks)
	if err != nil {
		return err
	}
	p := principalOf(c)
	after, err := ks.RevokeKey(c.UserContext(), k.ID, p.Tenant.ID)
	if err != nil {
		return keyError(err)
	}
	s.auth.forget()
	if k.RevokedAt == nil {
		s.audit(c.UserContext(), ks, p, AuditKeyRevoke, k, after)
	}
	used, err := s.usageOf(c.UserContext(), ks, p, after)
	if err != nil {
		return storeError(err)
	}
	return c.JSON(toKeyJSON(after, used))
}

// rollBody is the body of POST /v1/keys/{id}/roll.
type rollBody struct {
	OverlapSeconds int64 `json:"overlap_seconds" min:"0" doc:"how long the old secret stays valid (0..2592000 seconds; default 0: it stops at once)"`
}

// rollKey answers POST /v1/keys/{id}/roll: a new secret; the old one stays valid for the overlap.
func (s *Server) rollKey(c *fiber.Ctx) error {
	ks, err := s.keyStoreOr503()
	if err != nil {
		return err
	}
	k, err := s.managedKey(c, ks)
	if err != nil {
		return err
	}
	var rb rollBody
	if raw := bytes.TrimSpace(c.BodyRaw()); len(raw) > 0 {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&rb); err != nil {
			return providers.Invalid("the body must be {overlap_seconds: N}", providers.Violation{Path: "/overlap_seconds", Message: "an integer of seconds, 0..2592000"})
		}
	}
	if rb.OverlapSeconds < 0 || rb.OverlapSeconds > int64(tenants.MaxRollOverlap/time.Second) {
		return bodyViolation("overlap_seconds", fmt.Sprintf("must be between 0 and %d seconds", int64(tenants.MaxRollOverlap/time.Second)))
	}
	p := principalOf(c)
	after, raw, err := ks.RollKey(c.UserContext(), k.ID, p.Tenant.ID, time.Duration(rb.OverlapSeconds)*time.Second)
	if err != nil {
		if !errors.Is(err, tenants.ErrNotFound) && !errors.Is(err, tenants.ErrKeyRevoked) && !errors.Is(err, tenants.ErrInvalid) &&
			strings.Contains(err.Error(), "changed meanwhile") {
			return &Error{Code: providers.CodeInvalidRequest, Status: fiber.StatusConflict, Message: err.Error()}
		}
		return keyError(err)
	}
	s.auth.forget()
	s.audit(c.UserContext(), ks, p, AuditKeyRoll, k, after)
	used, err := s.usageOf(c.UserContext(), ks, p, after)
	if err != nil {
		return storeError(err)
	}
	return c.JSON(keyCreated{Key: toKeyJSON(after, used), Secret: raw})
}

var _ keyStore = (*tenants.Store)(nil)

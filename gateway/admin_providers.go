package gateway

// Provider settings over the admin API: the base URL and key of each upstream provider, the same
// setting the console's providers page saves (tenants.ProviderSetting; the key sealed under the
// master key, never shown again). Every instance applies a change within the console's sync
// interval; the instance that took it applies it at once (SetProviderSettingsHook).

import (
	"context"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// maxProviderKey bounds a provider key given over the admin API.
const maxProviderKey = 4096

// providerSettingsStore is what the provider routes read and write.
type providerSettingsStore interface {
	ProviderSettings(ctx context.Context) ([]tenants.ProviderSetting, error)
	SaveProviderSetting(ctx context.Context, ps *tenants.ProviderSetting) error
}

// SetProviderSettingsHook sets what applies stored provider settings to the upstream client (the
// console's sync); the admin API calls it after a change.
func (s *Server) SetProviderSettingsHook(apply func(context.Context)) {
	s.providersChanged.Store(&apply)
}

type providerSettingJSON struct {
	ID string `json:"id"`
	// BaseURL is the stored override ("" when the environment's or the built-in URL applies).
	BaseURL   string     `json:"base_url"`
	KeySet    bool       `json:"key_set"`
	UpdatedBy string     `json:"updated_by,omitempty"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
}

type providerSettingsList struct {
	Providers []providerSettingJSON `json:"providers"`
}

// providerBody is the body of PUT /v1/admin/providers/{id}: an absent field keeps its value.
type providerBody struct {
	BaseURL  *string `json:"base_url"`
	Key      *string `json:"key"`
	ClearKey bool    `json:"clear_key"`
}

func (a *adminAPI) providerStore() (providerSettingsStore, error) {
	st, ok := a.store.(providerSettingsStore)
	if !ok {
		return nil, &Error{Code: providers.CodeServiceUnavailable, Message: "provider settings are not available on this store"}
	}
	return st, nil
}

func (a *adminAPI) stored(ctx context.Context, st providerSettingsStore) (map[string]tenants.ProviderSetting, error) {
	ps, err := st.ProviderSettings(ctx)
	if err != nil {
		return nil, storeError(err)
	}
	out := make(map[string]tenants.ProviderSetting, len(ps))
	for _, p := range ps {
		out[p.ProviderID] = p
	}
	return out, nil
}

func settingJSON(id string, ps tenants.ProviderSetting) providerSettingJSON {
	out := providerSettingJSON{ID: id, BaseURL: ps.BaseURL, KeySet: ps.KeyCiphertext != "", UpdatedBy: ps.UpdatedBy}
	if !ps.UpdatedAt.IsZero() {
		t := ps.UpdatedAt.UTC()
		out.UpdatedAt = &t
	}
	return out
}

// listProviders answers every provider the gateway knows with its stored setting (keys never).
func (a *adminAPI) listProviders(c *fiber.Ctx) error {
	st, err := a.providerStore()
	if err != nil {
		return err
	}
	stored, err := a.stored(c.UserContext(), st)
	if err != nil {
		return err
	}
	out := providerSettingsList{Providers: []providerSettingJSON{}}
	for _, p := range a.s.opts.Client.Providers() {
		out.Providers = append(out.Providers, settingJSON(p.ID, stored[p.ID]))
	}
	return c.JSON(out)
}

// putProvider stores a provider's base URL and key (sealed), audited with the key redacted.
func (a *adminAPI) putProvider(c *fiber.Ctx) error {
	ctx := c.UserContext()
	id := c.Params("id")
	if _, ok := a.s.opts.Client.Provider(id); !ok {
		return &Error{Code: providers.CodeNotFound, Message: "no provider " + id}
	}
	st, err := a.providerStore()
	if err != nil {
		return err
	}
	var body providerBody
	if err := decodeStrict(c.BodyRaw(), &body); err != nil {
		return err
	}
	stored, err := a.stored(ctx, st)
	if err != nil {
		return err
	}
	prev := stored[id]
	next := tenants.ProviderSetting{ProviderID: id, BaseURL: prev.BaseURL, KeyCiphertext: prev.KeyCiphertext, UpdatedBy: AdminActor}
	if body.BaseURL != nil {
		u := strings.TrimSpace(*body.BaseURL)
		if u != "" {
			if err := checkBaseURL(u); err != nil {
				return err
			}
		}
		next.BaseURL = u
	}
	keyChange := "unchanged"
	switch {
	case body.ClearKey && body.Key != nil:
		return providers.InvalidField("/clear_key", "give a key or clear_key, not both")
	case body.ClearKey:
		next.KeyCiphertext, keyChange = "", "cleared"
	case body.Key != nil:
		key := strings.TrimSpace(*body.Key)
		if key == "" || len(key) > maxProviderKey || strings.IndexFunc(key, unicode.IsControl) >= 0 {
			return providers.InvalidField("/key", "the key must be 1 to 4096 characters without control characters")
		}
		if a.s.opts.Sealer == nil {
			return &Error{Code: providers.CodeServiceUnavailable, Message: "no master key: provider keys cannot be stored (set GATEWAY_MASTER_KEY)"}
		}
		sealed, err := a.s.opts.Sealer.Seal(id, key)
		if err != nil {
			return &Error{Code: providers.CodeInternal, Message: "the key could not be sealed", Cause: err}
		}
		next.KeyCiphertext, keyChange = sealed, "set"
	}
	if err := st.SaveProviderSetting(ctx, &next); err != nil {
		return adminError(err)
	}
	if apply := a.s.providersChanged.Load(); apply != nil {
		(*apply)(ctx)
	}
	a.audit(c, "provider.update", id, map[string]any{"base_url": prev.BaseURL, "key": keyState(prev.KeyCiphertext != "")},
		map[string]any{"base_url": next.BaseURL, "key": keyChange})
	return c.JSON(settingJSON(id, next))
}

// checkBaseURL accepts an absolute http(s) URL with a host and no credentials.
func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || len(raw) > 2048 {
		return providers.InvalidField("/base_url", "the base URL must be an absolute http:// or https:// URL with a host and no credentials")
	}
	return nil
}

func keyState(set bool) string {
	if set {
		return "set (redacted)"
	}
	return "not set"
}

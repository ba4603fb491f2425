package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestCreateScopedKey: the key form's optional capabilities and topics make a scoped key, shown in
// the list; an unknown capability is refused with a message and creates nothing.
func TestCreateScopedKey(t *testing.T) {
	e := newEnv(t, tenantstest.SQLite(t))
	u := e.user("owner@scope.test", tenants.RoleOwner, "pro")
	b := e.browser()
	if res := b.signIn("owner@scope.test", password); res.StatusCode != 303 {
		t.Fatalf("sign-in: %d", res.StatusCode)
	}
	_, page := b.do(http.MethodGet, "/console/keys?mode=test", nil)
	res, created := b.do(http.MethodPost, "/console/keys", url.Values{"_csrf": {csrfOf(t, page)}, "label": {"two"}, "mode": {"test"},
		"capabilities": {"books.search, weather.forecast"}, "topics": {"Dev"}})
	key, _ := doc(t, created).Find(`[data-testid="new-key-value"]`).Attr("value")
	if res.StatusCode != 200 || !tenants.WellFormedKey(key) {
		t.Fatalf("created %q (%d)", key, res.StatusCode)
	}
	k, err := e.store.KeyByHash(context.Background(), tenants.HashKey(key))
	if err != nil || k.Scope.String() != "capabilities books.search, weather.forecast; topics dev" {
		t.Fatalf("stored scope %q (%v)", k.Scope, err)
	}
	if cell := doc(t, created).Find(`[data-testid="scope-` + k.ID + `"]`).Text(); !strings.Contains(cell, "weather.forecast") {
		t.Errorf("the list shows scope %q", cell)
	}
	before, _ := e.store.Keys(context.Background(), u.TenantID)
	_, page = b.do(http.MethodGet, "/console/keys?mode=test", nil)
	b.do(http.MethodPost, "/console/keys", url.Values{"_csrf": {csrfOf(t, page)}, "label": {"bad"}, "mode": {"test"}, "capabilities": {"nope.search"}})
	_, after := b.do(http.MethodGet, "/console/keys", nil)
	if !strings.Contains(after, "nope.search") {
		t.Error("the refusal does not name the unknown capability")
	}
	if now, _ := e.store.Keys(context.Background(), u.TenantID); len(now) != len(before) {
		t.Error("a key with an unknown capability was created")
	}
}

package console_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/console"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/registry"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestProvidersPageWarnsOfRetiredReviewerModels: the providers page lists, above the rows, each
// reviewer family and tier whose last live call the vendor answered "no such model", with the
// setting to change; the warning is gone once the list is empty. Owners never see it.
func TestProvidersPageWarnsOfRetiredReviewerModels(t *testing.T) {
	db := tenantstest.SQLite(t)
	store := tenants.NewStore(db)
	client := providers.NewClient(registry.Providers(), providers.ClientOptions{})
	e := &env{t: t, store: store, client: client}
	var mu sync.Mutex
	retired := []console.RetiredReviewer{{Family: "deepseek", Title: "DeepSeek", Tier: "ultra", Model: "deepseek-v4-pro",
		Setting: "SHARPEN_MODEL_DEEPSEEK_ULTRA", Message: "HTTP 400: Model Not Exist", At: time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)}}
	opts := consoleOpts(t, store, client)
	opts.RetiredReviewers = func() []console.RetiredReviewer {
		mu.Lock()
		defer mu.Unlock()
		return append([]console.RetiredReviewer(nil), retired...)
	}
	e.serve(console.New(opts))
	e.user("admin@r.test", tenants.RoleAdmin, "pro")
	admin := e.browser()
	admin.signIn("admin@r.test", password)
	_, page := admin.do(http.MethodGet, "/console/admin/providers", nil)
	for _, want := range []string{`data-testid="retired-models"`, `data-testid="retired-deepseek-ultra"`, "deepseek-v4-pro",
		"Model Not Exist", "<code>SHARPEN_MODEL_DEEPSEEK_ULTRA</code>", "2026-11-26 09:30 UTC"} {
		if !strings.Contains(page, want) {
			t.Errorf("providers page lacks %q", want)
		}
	}
	mu.Lock()
	retired = nil
	mu.Unlock()
	if _, page := admin.do(http.MethodGet, "/console/admin/providers", nil); strings.Contains(page, "retired-models") {
		t.Error("the warning stays after the reviewer answered")
	}
	e.user("owner@r.test", tenants.RoleOwner, "pro")
	owner := e.browser()
	owner.signIn("owner@r.test", password)
	if res, page := owner.do(http.MethodGet, "/console/admin/providers", nil); res.StatusCode != 404 || strings.Contains(page, "SHARPEN_MODEL") {
		t.Errorf("owner: %d", res.StatusCode)
	}
}

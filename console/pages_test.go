package console_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {50000, "50,000"}, {1234567, "1,234,567"}, {-1500, "-1,500"}} {
		if got := views.Num(tc.n); got != tc.want {
			t.Errorf("Num(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestCatalogFiltersAndDetail(t *testing.T) {
	e := newEnv(t, tenantstest.SQLite(t))
	b := signedIn(t, e, "owner@catalog.test", tenants.RoleOwner)
	count := func(path string) int {
		t.Helper()
		res, page := b.do(http.MethodGet, path, nil)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", path, res.StatusCode)
		}
		return doc(t, page).Find(`[data-testid="catalog"] tbody tr`).Length()
	}
	all := count("/console/catalog")
	for _, tc := range []struct {
		query string
		check func(n int) bool
	}{
		{"?q=books.search", func(n int) bool { return n == 1 }},
		{"?q=no+such+words+anywhere", func(n int) bool { return n == 0 }},
		{"?topic=Dev", func(n int) bool { return n > 0 && n < all }},
		{"?mode=test&available=yes", func(n int) bool { return n > 0 }},
		// Live keys need configured providers, and this console has no provider keys: some
		// capabilities are unavailable live that a test key can call.
		{"?mode=live&available=no", func(n int) bool { return n > 0 && n < all }},
	} {
		if n := count("/console/catalog" + tc.query); !tc.check(n) {
			t.Errorf("%s: %d rows of %d", tc.query, n, all)
		}
	}
	// A tenant reads that a capability is not available here, without the operator's settings.
	_, page := b.do(http.MethodGet, "/console/catalog?mode=live&available=no", nil)
	if text := doc(t, page).Find(`[data-testid="catalog"]`).Text(); !strings.Contains(text, "not available in this deployment") || strings.Contains(text, "PROVIDER_") {
		t.Errorf("unavailable capabilities for a tenant: %.300s", text)
	}
	admin := signedIn(t, e, "admin@catalog.test", tenants.RoleAdmin)
	_, page = admin.do(http.MethodGet, "/console/catalog?mode=live&available=no", nil)
	if !strings.Contains(doc(t, page).Find(`[data-testid="catalog"]`).Text(), "has no API key") {
		t.Error("unavailable capabilities do not tell an admin why")
	}
	res, page := b.do(http.MethodGet, "/console/catalog/books.search?mode=test", nil)
	d := doc(t, page)
	fields := d.Find(`[data-testid="param-table"] tbody tr`)
	curl := d.Find(`[data-testid="curl"]`).First().Text()
	if res.StatusCode != http.StatusOK || fields.Length() < 2 || !strings.Contains(fields.Text(), "query") {
		t.Fatalf("detail: %d, %d fields", res.StatusCode, fields.Length())
	}
	if !strings.Contains(curl, "$CAPGATE_TEST_KEY") || !strings.Contains(curl, "/v1/capabilities/books.search/execute") {
		t.Fatalf("curl %q", curl)
	}
	if res, _ := b.do(http.MethodGet, "/console/catalog/no.such", nil); res.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown capability: %d", res.StatusCode)
	}
}

func TestUsageFiltersTotalsAndPages(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		b := signedIn(t, e, "owner@usage.test", tenants.RoleOwner)
		u, _ := e.store.CheckPassword(ctx, "owner@usage.test", password)
		tn, _ := e.store.Tenant(ctx, u.TenantID)
		plan, _ := e.store.Plan(ctx, tn.PlanID)
		keyA, _, _ := e.store.CreateKey(ctx, tn.ID, tenants.ModeTest, "a")
		keyB, _, _ := e.store.CreateKey(ctx, tn.ID, tenants.ModeTest, "b")
		m := tenants.NewMeter(db, tenants.MeterOptions{})
		defer m.Close()
		charge := func(mode, key, capability string, credits int64) {
			t.Helper()
			r, err := m.Reserve(ctx, tn, plan, mode, credits)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := m.Settle(ctx, r, credits, tenants.LedgerEntry{RequestID: "req_" + tenants.RandomString(8), Capability: capability, Action: "execute", KeyID: key}); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 60; i++ {
			charge(tenants.ModeTest, keyA.ID, "books.search", 2)
		}
		charge(tenants.ModeTest, keyB.ID, "web.search", 1500)
		charge(tenants.ModeLive, "", "web.search", 7)
		today := time.Now().UTC().Format("2006-01-02")
		for _, tc := range []struct {
			query          string
			calls, credits string
			pager          string
			csvRows        int
		}{
			{"?mode=test", "61", "1,620", "Page 1 of 2", 61},
			{"?mode=test&page=2", "61", "1,620", "Page 2 of 2", 61},
			{"?mode=live", "1", "7", "Page 1 of 1", 1},
			{"?mode=test&key=" + keyB.ID, "1", "1,500", "Page 1 of 1", 1},
			{"?mode=test&capability=books.search&from=" + today + "&to=" + today, "60", "120", "Page 1 of 2", 60},
			{"?mode=test&from=2001-01-01&to=2001-01-02", "0", "0", "Page 1 of 1", 0},
		} {
			t.Run(tc.query, func(t *testing.T) {
				_, page := b.do(http.MethodGet, "/console/usage"+tc.query, nil)
				d := doc(t, page)
				totals := d.Find(`[data-testid="usage-totals"]`).Text()
				if !strings.Contains(totals, tc.calls+" calls") || !strings.Contains(totals, tc.credits+" credits") {
					t.Errorf("totals %q, want %s calls and %s credits", totals, tc.calls, tc.credits)
				}
				if got := strings.TrimSpace(d.Find(`[data-testid="pager"] span`).Text()); got != tc.pager {
					t.Errorf("pager %q, want %q", got, tc.pager)
				}
				href, _ := d.Find(`[data-testid="csv"]`).Attr("href")
				_, csv := b.do(http.MethodGet, href, nil)
				if n := strings.Count(strings.TrimSpace(csv), "\n"); n != tc.csvRows {
					t.Errorf("CSV of the same filter has %d rows, want %d", n, tc.csvRows)
				}
			})
		}
	})
}

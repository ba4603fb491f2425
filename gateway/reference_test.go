package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/providers/registry"
	"github.com/capgate/capgate/tenants"
)

// Every capability's reference sample is what test mode answers its first example: an
// ExecuteResponse with records, and a record action's answer where a record offers one. Nothing
// is charged or stored.
func TestReferenceSamples(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}})
	ctx := context.Background()
	for _, cp := range registry.Capabilities() {
		t.Run(cp.ID, func(t *testing.T) {
			s, err := e.Server.Sample(ctx, cp.ID)
			if cp.ID == "fitness.exercises" {
				// It saves demonstrations to the caller's workouts: no sample without a caller.
				if err == nil {
					t.Fatal("a sample of fitness.exercises saved workouts for nobody")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ex struct {
				SearchID   string           `json:"search_id"`
				Capability string           `json:"capability"`
				Results    []map[string]any `json:"results"`
			}
			if err := json.Unmarshal(s.Execute, &ex); err != nil || ex.Capability != cp.ID || ex.SearchID == "" || len(ex.Results) == 0 {
				t.Fatalf("sample %v: %.300s", err, s.Execute)
			}
			if s.Action != "" {
				var fu struct {
					Action string         `json:"action"`
					Detail map[string]any `json:"detail"`
				}
				if err := json.Unmarshal(s.Detail, &fu); err != nil || fu.Action != s.Action || len(fu.Detail) == 0 {
					t.Fatalf("detail sample %v: %.300s", err, s.Detail)
				}
			}
			if again, _ := e.Server.Sample(ctx, cp.ID); again != s {
				t.Fatal("the sample is computed again")
			}
		})
	}
	if _, err := e.Server.Sample(ctx, "no.such"); err == nil {
		t.Fatal("a sample of an unknown capability")
	}
	// Nothing was charged: no ledger rows at all.
	var n int
	if err := e.DB.NewSelect().Table("ledger").ColumnExpr("count(*)").Scan(ctx, &n); err != nil || n != 0 {
		t.Fatalf("ledger rows after samples: %d (%v)", n, err)
	}
}

// TestCall runs a call as a tenant's test key without the key's secret, on the test balance;
// it refuses live and revoked keys, and a suspended tenant's calls are refused as over HTTP.
func TestConsoleTestCalls(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: unlimited{}})
	ctx := context.Background()
	keys, err := e.Store.Keys(ctx, e.Tenant.ID)
	if err != nil {
		t.Fatal(err)
	}
	var live, test *tenants.APIKey
	for i := range keys {
		if keys[i].Mode == tenants.ModeTest {
			test = &keys[i]
		} else {
			live = &keys[i]
		}
	}
	status, body, err := e.Server.TestCall(ctx, test, http.MethodPost, "/v1/capabilities/web.search/execute", []byte(`{"query":"capgate"}`))
	if err != nil || status != http.StatusOK {
		t.Fatalf("test call: %d %v %s", status, err, body)
	}
	var ans struct {
		SearchID string               `json:"search_id"`
		Charged  int64                `json:"charged_credits"`
		Results  []any                `json:"results"`
		Balance  struct{ Used int64 } `json:"balance"`
	}
	if err := json.Unmarshal(body, &ans); err != nil || len(ans.Results) == 0 || ans.Charged == 0 || ans.Balance.Used != ans.Charged {
		t.Fatalf("answer %v: %s", err, body)
	}
	// The follow-up reaches the same session: the call ran as the tenant's test key.
	more, _ := json.Marshal(map[string]string{"search_id": ans.SearchID, "action": "more"})
	if status, body, _ := e.Server.TestCall(ctx, test, http.MethodPost, "/v1/follow-up", more); status != http.StatusOK {
		t.Fatalf("follow-up: %d %s", status, body)
	}
	// Over HTTP the tenant's test key sees that search; the live balance never moved.
	if r := e.Do(http.MethodPost, "/v1/follow-up", e.TestKey, map[string]string{"search_id": ans.SearchID, "action": "update"}); r.Status == http.StatusNotFound {
		t.Fatalf("the test key does not see the console's search: %s", r.Body)
	}
	if r := e.Do(http.MethodGet, "/v1/account", e.LiveKey, nil); r.Status != 200 || r.JSON["credits"].(map[string]any)["used"] != float64(0) {
		t.Fatalf("live balance after test calls: %s", r.Body)
	}

	if _, _, err := e.Server.TestCall(ctx, live, http.MethodPost, "/v1/capabilities/web.search/execute", []byte(`{}`)); err == nil {
		t.Fatal("a test call with a live key")
	}
	revoked, err := e.Store.RevokeKey(ctx, test.ID, e.Tenant.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Server.TestCall(ctx, revoked, http.MethodPost, "/v1/capabilities/web.search/execute", []byte(`{}`)); err == nil {
		t.Fatal("a test call with a revoked key")
	}
	other, _, _ := e.NewTenant("pro")
	k, _, _ := e.Store.CreateKey(ctx, other.ID, tenants.ModeTest, "x")
	if _, err := e.Store.SetStatus(ctx, other.ID, tenants.StatusSuspended); err != nil {
		t.Fatal(err)
	}
	if status, body, _ := e.Server.TestCall(ctx, k, http.MethodPost, "/v1/capabilities/web.search/execute", []byte(`{"query":"x"}`)); status != http.StatusUnauthorized {
		t.Fatalf("a suspended tenant's test call: %d %s", status, body)
	}
}

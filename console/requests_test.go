package console_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestRequestLogPage: the console's request log shows the account's calls with their status,
// error code and message, filters them, looks one up by request id, escapes what callers sent,
// and never shows another tenant's calls.
func TestRequestLogPage(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		u := e.user("owner@rl.test", tenants.RoleOwner, "pro")
		other := e.user("other@rl.test", tenants.RoleOwner, "pro")
		k, _, err := e.store.CreateKey(ctx, u.TenantID, tenants.ModeLive, "ci")
		if err != nil {
			t.Fatal(err)
		}
		l := tenants.NewRequestLog(db, tenants.RequestLogOptions{})
		defer l.Close()
		now := time.Now()
		at := func(d time.Duration) int64 { return now.Add(-d).UnixMicro() }
		l.Record(tenants.RequestEntry{TenantID: u.TenantID, KeyID: k.ID, Mode: "live", Via: "api", Method: "POST", Route: "/v1/capabilities/:id/execute",
			Capability: "books.search", Action: "search", Status: 200, Credits: 1, LatencyUS: 12500, RequestID: "req_ok", AtUS: at(3 * time.Second)})
		l.Record(tenants.RequestEntry{TenantID: u.TenantID, KeyID: k.ID, Mode: "live", Via: "api", Method: "POST", Route: "/v1/capabilities/:id/execute",
			Capability: "books.search", Status: 400, ErrorCode: "invalid_request", ErrorMessage: `unknown field "<script>alert(1)</script>"`,
			LatencyUS: 800, RequestID: "req_bad", AtUS: at(2 * time.Second)})
		l.Record(tenants.RequestEntry{TenantID: u.TenantID, KeyID: k.ID, Mode: "live", Via: "mcp", Method: "POST", Route: "/mcp",
			Status: 503, ErrorCode: "capability_unavailable", ErrorMessage: "books.search is not available", LatencyUS: 900, RequestID: "req_down", AtUS: at(time.Second)})
		l.Record(tenants.RequestEntry{TenantID: other.TenantID, KeyID: "key_other", Mode: "live", Status: 500, ErrorCode: "internal_error",
			RequestID: "req_theirs", AtUS: at(time.Second)})
		if err := l.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		b := e.browser()
		if res := b.signIn("owner@rl.test", password); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", res.StatusCode)
		}
		page := func(q string) string {
			t.Helper()
			res, body := b.do(http.MethodGet, "/console/requests"+q, nil)
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d", q, res.StatusCode)
			}
			return body
		}
		all := page("")
		for _, want := range []string{`data-testid="request-req_ok"`, `data-testid="request-req_bad"`, `data-testid="request-req_down"`,
			"invalid_request", "capability_unavailable", "books.search is not available", "12.5 ms", k.Prefix} {
			if !strings.Contains(all, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
		if strings.Contains(all, "<script>alert(1)") || !strings.Contains(all, "&lt;script&gt;") {
			t.Error("an error message is not escaped")
		}
		if strings.Contains(all, "req_theirs") {
			t.Fatal("another tenant's call is shown")
		}
		if p := page("?status=5xx"); !strings.Contains(p, "req_down") || strings.Contains(p, "req_bad") || strings.Contains(p, "req_ok") {
			t.Error("status filter")
		}
		if p := page("?error_code=invalid_request"); !strings.Contains(p, "req_bad") || strings.Contains(p, "req_down") {
			t.Error("error code filter")
		}
		if p := page("?request_id=req_bad"); !strings.Contains(p, `data-testid="request-req_bad"`) || strings.Contains(p, `data-testid="request-req_ok"`) {
			t.Error("lookup")
		}
		if p := page("?request_id=req_theirs"); strings.Contains(p, `data-testid="request-req_theirs"`) || !strings.Contains(p, "requests-empty") {
			t.Error("lookup of another tenant's request id")
		}
		if p := page("?mode=test"); strings.Contains(p, "req_ok") {
			t.Error("live calls in test mode")
		}
		if p := page("?status=abc"); !strings.Contains(p, "requests-error") {
			t.Error("a bad status is not reported")
		}
		if p := page("?cursor=garbage"); !strings.Contains(p, "requests-error") {
			t.Error("a bad cursor is not reported")
		}
	})
}

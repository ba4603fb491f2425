package gateway_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// TestBilledCallFailuresLeaveNoTrace: whatever fails in a billed call before its charge commits
// (the adapter panics, the session cannot be saved, the ledger row cannot be written, the
// caller hangs up) leaves used == SUM(ledger), no ledger row for the call, and the balance as
// it was before the call, in the database and in the instance's own view.
func TestBilledCallFailuresLeaveNoTrace(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newCapEnv(t, db)
		ctx := context.Background()
		plan, err := e.Store.Plan(ctx, "pro")
		if err != nil {
			t.Fatal(err)
		}
		// One paid call first, so the lease and the period row exist and used is not zero.
		wantOK(t, e.exec(e.LiveKey, "test.page", map[string]any{"query": "warm"}))

		rename := func(from, to string) {
			t.Helper()
			if _, err := db.ExecContext(ctx, fmt.Sprintf("ALTER TABLE %s RENAME TO %s", from, to)); err != nil {
				t.Fatal(err)
			}
		}
		cases := []struct {
			name       string
			before     func()
			after      func()
			call       func(rid string) int // returns the HTTP status
			wantStatus int
		}{
			{name: "adapter panic", wantStatus: 500, call: func(rid string) int {
				return e.DoHeaders(http.MethodPost, "/v1/capabilities/test.panic/execute", e.LiveKey, map[string]any{"query": "panic"},
					map[string]string{"X-Request-Id": rid}).Status
			}},
			{name: "session not saved", wantStatus: 503,
				before: func() { rename("searches", "searches_off") }, after: func() { rename("searches_off", "searches") },
				call: func(rid string) int {
					return e.DoHeaders(http.MethodPost, "/v1/capabilities/test.page/execute", e.LiveKey, map[string]any{"query": "x"},
						map[string]string{"X-Request-Id": rid}).Status
				}},
			{name: "settlement not written", wantStatus: 503,
				before: func() { rename("ledger", "ledger_off") }, after: func() { rename("ledger_off", "ledger") },
				call: func(rid string) int {
					return e.DoHeaders(http.MethodPost, "/v1/capabilities/test.page/execute", e.LiveKey, map[string]any{"query": "x"},
						map[string]string{"X-Request-Id": rid}).Status
				}},
			{name: "caller hangs up", wantStatus: 499,
				before: func() { e.live.delay.Store(400) }, after: func() { e.live.delay.Store(0) },
				call: func(rid string) int { return hangUp(t, e, rid) }},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				usedBefore, viewBefore := periodUsed(t, e), meterUsed(t, e, plan)
				rid := "req_" + tenants.RandomString(16)
				if tc.before != nil {
					tc.before()
				}
				status := tc.call(rid)
				if tc.after != nil {
					tc.after()
				}
				if status != tc.wantStatus {
					t.Fatalf("status %d, want %d", status, tc.wantStatus)
				}
				if used := periodUsed(t, e); used != usedBefore {
					t.Fatalf("used %d, want %d as before", used, usedBefore)
				}
				if view := meterUsed(t, e, plan); view != viewBefore {
					t.Fatalf("the instance's balance %d, want %d as before", view, viewBefore)
				}
				if n := ledgerRows(t, e, rid); n != 0 {
					t.Fatalf("%d ledger rows for the failed call", n)
				}
				assertLedgerMatchesUsed(t, e)
				// The credits are not stuck: the next call is charged normally.
				wantOK(t, e.exec(e.LiveKey, "test.page", map[string]any{"query": "after " + tc.name}))
				assertLedgerMatchesUsed(t, e)
			})
		}
	})
}

// hangUp sends an execute over a real TCP connection and closes it once the upstream has the
// call, before the answer; it returns the status the server recorded for the call (499 when it
// saw the hang-up), read from /metrics once the call is finished. (It returned 0 whatever
// happened, so the case passed even when the request never reached the pipeline.)
func hangUp(t *testing.T, e *capEnv, rid string) int {
	t.Helper()
	// Served by Listen, as in production: the hang-up is seen through its listener's wrapping.
	probe, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = e.Server.Listen(ctx, addr) }()
	var conn net.Conn
	for i := 0; ; i++ {
		if conn, err = net.Dial("tcp", addr); err == nil {
			break
		}
		if i > 100 {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	gone := func() int { return countStatus(t, e, "499") }
	before, calls := gone(), e.live.Calls()
	body := `{"query":"hang up"}`
	fmt.Fprintf(conn, "POST /v1/capabilities/test.page/execute HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nX-Request-Id: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		e.LiveKey, rid, len(body), body)
	// The barrier: the upstream has the call (it answers after the delay).
	waitFor(t, "the upstream to receive the call", func() bool { return e.live.Calls() > calls })
	_ = conn.Close()
	// The call finishes after the upstream's delay: refunded and recorded as 499.
	waitFor(t, "the server to record the hang-up", func() bool { return gone() > before })
	return 499
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// countStatus sums capgate_http_requests_total over the series with the given status.
func countStatus(t *testing.T, e *capEnv, status string) int {
	t.Helper()
	// Not through e.Do: /metrics is outside the API document the contract checker holds to.
	res, err := e.Server.App().Test(httptest.NewRequest(http.MethodGet, "/metrics", nil), 10_000)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	n := 0
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "capgate_http_requests_total{") && strings.Contains(line, `status="`+status+`"`) {
			f := strings.Fields(line)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			n += int(v)
		}
	}
	return n
}

func periodUsed(t *testing.T, e *capEnv) int64 {
	t.Helper()
	var used int64
	if err := e.DB.NewSelect().Table("credit_periods").ColumnExpr("COALESCE(SUM(used), 0)").
		Where("tenant_id = ? AND mode = ?", e.Tenant.ID, tenants.ModeLive).Scan(context.Background(), &used); err != nil {
		t.Fatal(err)
	}
	return used
}

func meterUsed(t *testing.T, e *capEnv, plan *tenants.Plan) int64 {
	t.Helper()
	b, err := e.Meter.Balance(context.Background(), e.Tenant, plan, tenants.ModeLive)
	if err != nil {
		t.Fatal(err)
	}
	return b.Used
}

func ledgerRows(t *testing.T, e *capEnv, rid string) int64 {
	t.Helper()
	n, err := e.DB.NewSelect().Table("ledger").Where("request_id = ?", rid).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func assertLedgerMatchesUsed(t *testing.T, e *capEnv) {
	t.Helper()
	var sum int64
	if err := e.DB.NewSelect().Table("ledger").ColumnExpr("COALESCE(SUM(credits), 0)").
		Where("tenant_id = ? AND mode = ?", e.Tenant.ID, tenants.ModeLive).Scan(context.Background(), &sum); err != nil {
		t.Fatal(err)
	}
	if used := periodUsed(t, e); used != sum {
		t.Fatalf("used %d != SUM(ledger) %d", used, sum)
	}
}

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
)

// Tests of the write path: credit leases, group commit and their recovery after a crash.

// quickCall is one request from a worker goroutine: errors are returned, never fatal.
func quickCall(base, path, key, rid string, body any) (int, map[string]any, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(b))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("X-Request-Id", rid)
	// These calls measure billing: each must be a paid call, not a free hit of the shared
	// upstream cache on the same body.
	req.Header.Set("Cache-Control", "no-store")
	res, err := httpClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, nil, err
	}
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return res.StatusCode, out, nil
}

// openDeploymentDB opens the deployment's database from the test.
func openDeploymentDB(t *testing.T, d *deployment) *tenants.DB {
	t.Helper()
	db, err := tenants.Open(d.DatabaseURL, d.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// creditTotals are a tenant's used, leased and ledger sum over all its periods and modes.
func creditTotals(t *testing.T, db *tenants.DB, tenantID string) (used, leased, ledger int64) {
	t.Helper()
	ctx := context.Background()
	var row struct {
		Used   int64 `bun:"used"`
		Leased int64 `bun:"leased"`
	}
	if err := db.NewSelect().Table("credit_periods").ColumnExpr("COALESCE(SUM(used), 0) AS used, COALESCE(SUM(leased), 0) AS leased").
		Where("tenant_id = ?", tenantID).Scan(ctx, &row); err != nil {
		t.Fatal(err)
	}
	if err := db.NewSelect().Table("ledger").ColumnExpr("COALESCE(SUM(credits), 0)").Where("tenant_id = ?", tenantID).Scan(ctx, &ledger); err != nil {
		t.Fatal(err)
	}
	return row.Used, row.Leased, ledger
}

// oneCreditSandboxCall finds a capability whose sandbox call charges exactly 1 credit.
func oneCreditSandboxCall(t *testing.T, in *instance, probeKey string) (string, map[string]any) {
	t.Helper()
	cat := in.get(t, "/v1/catalog", probeKey).mustOK(t, "GET /v1/catalog")
	caps, _ := cat.JSON["capabilities"].([]any)
	for _, c := range caps {
		cm := c.(map[string]any)
		if tc, _ := num(cm, "typical_credits"); tc != 1 || cm["available"] != true {
			continue
		}
		insp := in.get(t, str(cm, "inspect_url"), probeKey).mustOK(t, "inspect "+str(cm, "id"))
		examples, _ := insp.JSON["examples"].([]any)
		if len(examples) == 0 {
			continue
		}
		body, _ := examples[0].(map[string]any)["body"].(map[string]any)
		path := "/v1/capabilities/" + str(cm, "id") + "/execute"
		r := in.call(t, http.MethodPost, path, probeKey, body)
		if ch, _ := num(r.JSON, "charged_credits"); r.Status == 200 && ch == 1 {
			return path, body
		}
	}
	t.Fatal("no capability charges exactly 1 credit in the sandbox")
	return "", nil
}

// TestCrashConsistency: a gateway killed with SIGKILL under concurrent paid and free calls
// loses nothing it acknowledged: after a restart and the reconciliation of its expired lease,
// used == SUM(ledger), no credits stay leased, and every request id that got a 200 has its
// ledger row.
func TestCrashConsistency(t *testing.T) {
	forEachBackendInTurn(t, func(t *testing.T, backend string) {
		d := newDeployment(t, backend)
		lease := "GATEWAY_LEASE_TTL=2s"
		in := d.serve(t, lease)
		d.admin(t, "plan", "create", "--name", "crash", "--cap", "1000000", "--rate", "1000000", "--capabilities", "all")
		tk := d.newTenant(t, "crash")
		paidPath, paidBody := oneCreditSandboxCall(t, in, tk.Test)
		first := in.call(t, http.MethodPost, paidPath, tk.Test, paidBody).mustOK(t, "first call")
		example, _ := dig(first.JSON, "next", "example").(map[string]any)

		var mu sync.Mutex
		acked := map[string]bool{}
		var stop atomic.Bool
		var wg sync.WaitGroup
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; !stop.Load() && i < 5000; i++ {
					rid := fmt.Sprintf("req_crash%02d%07d", w, i)
					path, body := paidPath, any(paidBody)
					if i%2 == 1 && example != nil { // a free or paid follow-up of the first search
						path, body = "/v1/follow-up", example
					}
					status, _, err := quickCall(in.Base, path, tk.Test, rid, body)
					if err != nil {
						return // the process is gone
					}
					if status == http.StatusOK {
						mu.Lock()
						acked[rid] = true
						mu.Unlock()
					}
				}
			}(w)
		}
		time.Sleep(1500 * time.Millisecond)
		if err := in.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-in.done
		in.stopped = true
		stop.Store(true)
		wg.Wait()
		if len(acked) < 10 {
			t.Fatalf("only %d calls answered before the kill", len(acked))
		}

		db := openDeploymentDB(t, d)
		used, _, ledger := creditTotals(t, db, tk.ID)
		if used != ledger {
			t.Fatalf("right after the crash: used %d != SUM(ledger) %d", used, ledger)
		}
		// Every acknowledged call is in the ledger.
		var rids []string
		if err := db.NewSelect().Table("ledger").Column("request_id").Where("tenant_id = ?", tk.ID).Scan(context.Background(), &rids); err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, r := range rids {
			have[r] = true
		}
		missing := 0
		for rid := range acked {
			if !have[rid] {
				missing++
			}
		}
		if missing > 0 {
			t.Fatalf("%d of %d acknowledged calls have no ledger row", missing, len(acked))
		}

		// A restarted instance returns the dead one's lease once it has expired.
		d.serve(t, lease)
		if _, ok := eventually(15*time.Second, func() bool {
			_, leased, _ := creditTotals(t, db, tk.ID)
			return leased == 0
		}); !ok {
			_, leased, _ := creditTotals(t, db, tk.ID)
			t.Fatalf("%d credits still leased after reconciliation", leased)
		}
		used, leased, ledger := creditTotals(t, db, tk.ID)
		if used != ledger || leased != 0 {
			t.Fatalf("after reconciliation: used %d, leased %d, SUM(ledger) %d", used, leased, ledger)
		}
		t.Logf("%d calls acknowledged before SIGKILL; used == SUM(ledger) == %d", len(acked), ledger)
	})
}

// TestFleetCreditCap: two gateways on one PostgreSQL and Redis, 400 concurrent 1-credit calls
// against a cap of 100: as many 200s as credits charged, at most 100, used == SUM(ledger).
func TestFleetCreditCap(t *testing.T) {
	forEachBackendInTurn(t, func(t *testing.T, backend string) {
		if backend != "postgres" {
			t.Skip("a fleet shares an external database")
		}
		d := newDeployment(t, backend).withRedis(t)
		a, b := d.serve(t), d.serveOther(t)
		d.admin(t, "plan", "create", "--name", "probe", "--cap", "1000", "--rate", "1000000", "--capabilities", "all")
		probe := d.newTenant(t, "probe")
		path, body := oneCreditSandboxCall(t, a, probe.Test)
		d.admin(t, "plan", "create", "--name", "fleet", "--cap", "100", "--rate", "1000000", "--capabilities", "all")
		tk := d.newTenant(t, "fleet")

		var ok, refused, charged, other atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < 400; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				in := a
				if i%2 == 1 {
					in = b
				}
				status, out, err := quickCall(in.Base, path, tk.Test, fmt.Sprintf("req_fleet%08d", i), body)
				switch {
				case err != nil:
					other.Add(1)
				case status == http.StatusOK:
					ok.Add(1)
					c, _ := num(out, "charged_credits")
					charged.Add(int64(c))
				case status == http.StatusPaymentRequired:
					refused.Add(1)
				default:
					other.Add(1)
					t.Errorf("status %d: %v", status, out)
				}
			}(i)
		}
		close(start)
		wg.Wait()
		// Connections the client dialled but never used would hold up a graceful stop (fasthttp
		// waits for connections that have not sent a request yet until its read timeout).
		httpClient.CloseIdleConnections()
		if other.Load() != 0 || ok.Load()+refused.Load() != 400 {
			t.Logf("stderr a:\n%s\nstderr b:\n%s", tail(a.stderr.String(), 30), tail(b.stderr.String(), 30))
			t.Fatalf("200s %d, 402s %d, others %d", ok.Load(), refused.Load(), other.Load())
		}
		if ok.Load() != charged.Load() || ok.Load() > 100 || ok.Load() == 0 {
			t.Fatalf("200s %d, credits charged %d: want equal and at most 100", ok.Load(), charged.Load())
		}
		db := openDeploymentDB(t, d)
		used, _, ledger := creditTotals(t, db, tk.ID)
		if used != ledger || used != charged.Load() {
			t.Fatalf("used %d, SUM(ledger) %d, charged %d", used, ledger, charged.Load())
		}
		t.Logf("fleet: %d of 400 calls answered 200 against a cap of 100", ok.Load())
	})
}

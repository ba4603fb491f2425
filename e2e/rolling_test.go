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
	"testing"
	"time"
)

// rotation is the client side of a load balancer: the instances that receive new calls. An
// instance leaves it before it is stopped, as a pod leaves its Service's endpoints while its
// preStop hook sleeps (deploy/helm).
type rotation struct {
	mu   sync.Mutex
	list []*instance
	next int
}

func (r *rotation) pick() *instance {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.list) == 0 {
		return nil
	}
	r.next++
	return r.list[r.next%len(r.list)]
}

func (r *rotation) remove(in *instance) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, x := range r.list {
		if x == in {
			r.list = append(r.list[:i:i], r.list[i+1:]...)
			return
		}
	}
}

func (r *rotation) add(in *instance) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, in)
}

// durableCall sends one paid call with its request id as X-Request-Id and Idempotency-Key, and
// retries it on another instance when the connection fails (a retry of a call that did commit
// replays its answer and is not charged again). It returns the final status.
func durableCall(rot *rotation, path, key, rid string, body []byte, client *http.Client) (int, error) {
	var lastErr error
	for attempt := 0; attempt < 20; attempt++ {
		in := rot.pick()
		if in == nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		req, err := http.NewRequest(http.MethodPost, in.Base+path, bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("X-Request-Id", rid)
		req.Header.Set("Idempotency-Key", rid)
		res, err := client.Do(req)
		if err != nil {
			lastErr = err
			continue
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") != "" {
			lastErr = fmt.Errorf("503 with Retry-After")
			time.Sleep(100 * time.Millisecond)
			continue
		}
		return res.StatusCode, nil
	}
	return 0, fmt.Errorf("no answer after 20 attempts: %v", lastErr)
}

// TestRollingRestart: two instances on one PostgreSQL and Redis serve paid calls from 4
// workers while each instance in turn leaves the rotation, is stopped with SIGTERM (the calls
// it is running drain) and is replaced by a new process. No call fails, every acknowledged
// call has exactly one ledger row, no call has two, and used == SUM(ledger).
func TestRollingRestart(t *testing.T) {
	forEachBackendInTurn(t, func(t *testing.T, backend string) {
		if backend != "postgres" {
			t.Skip("a fleet shares an external database")
		}
		d := newDeployment(t, backend).withRedis(t)
		a, b := d.serve(t), d.serveOther(t)
		d.admin(t, "plan", "create", "--name", "rolling", "--cap", "10000000", "--rate", "1000000", "--capabilities", "all")
		tk := d.newTenant(t, "rolling")
		path, body := oneCreditSandboxCall(t, a, tk.Test)
		raw, _ := json.Marshal(body)

		rot := &rotation{list: []*instance{a, b}}
		client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
		defer client.CloseIdleConnections()
		var mu sync.Mutex
		acked := map[string]bool{}
		var failed []string
		var stop atomic.Bool
		var sent atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; !stop.Load() && i < 20000; i++ {
					rid := fmt.Sprintf("req_roll%02d%07d", w, i)
					sent.Add(1)
					status, err := durableCall(rot, path, tk.Test, rid, raw, client)
					mu.Lock()
					if err == nil && status == http.StatusOK {
						acked[rid] = true
					} else {
						failed = append(failed, fmt.Sprintf("%s: status %d, %v", rid, status, err))
					}
					mu.Unlock()
				}
			}(w)
		}
		// Calls are flowing before the first restart, and between the restarts.
		waitCalls := func(n int64) {
			t.Helper()
			target := sent.Load() + n
			if _, ok := eventually(20*time.Second, func() bool { return sent.Load() >= target }); !ok {
				t.Fatalf("fewer than %d calls in 20 s", n)
			}
		}
		waitCalls(50)
		replaced := []*instance{}
		for _, old := range []*instance{a, b} {
			rot.remove(old)
			code, took, err := old.stop(gatewayDrainLimit)
			if err != nil || code != 0 {
				t.Fatalf("stopping %s: exit %d after %s, %v\n%s", old.Base, code, took, err, tail(old.stderr.String(), 20))
			}
			fresh := d.serveOther(t)
			if _, ok := eventually(20*time.Second, func() bool {
				res, err := http.Get(fresh.Base + "/readyz")
				if err != nil {
					return false
				}
				res.Body.Close()
				return res.StatusCode == http.StatusOK
			}); !ok {
				t.Fatalf("the replacement of %s never became ready", old.Base)
			}
			rot.add(fresh)
			replaced = append(replaced, fresh)
			waitCalls(50)
		}
		stop.Store(true)
		wg.Wait()
		client.CloseIdleConnections()

		if len(failed) > 0 {
			t.Fatalf("%d calls failed during the rolling restart, e.g. %v", len(failed), failed[:min(5, len(failed))])
		}
		db := openDeploymentDB(t, d)
		var rows []struct {
			RequestID string `bun:"request_id"`
			N         int    `bun:"n"`
		}
		if err := db.NewSelect().Table("ledger").ColumnExpr("request_id, COUNT(*) AS n").Where("tenant_id = ?", tk.ID).
			Group("request_id").Scan(context.Background(), &rows); err != nil {
			t.Fatal(err)
		}
		inLedger := map[string]bool{}
		for _, r := range rows {
			if r.N != 1 {
				t.Errorf("request %s has %d ledger rows (charged twice)", r.RequestID, r.N)
			}
			inLedger[r.RequestID] = true
		}
		lost := 0
		for rid := range acked {
			if !inLedger[rid] {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("%d of %d acknowledged calls have no ledger row", lost, len(acked))
		}
		for rid := range inLedger {
			// The probe call of oneCreditSandboxCall is the only row of a call not made here.
			if !acked[rid] && len(rid) == len("req_roll000000000") && rid[:8] == "req_roll" {
				t.Errorf("request %s is charged but was never acknowledged", rid)
			}
		}
		for _, in := range replaced {
			if _, _, err := in.stop(gatewayDrainLimit); err != nil {
				t.Fatal(err)
			}
		}
		used, leased, ledger := creditTotals(t, db, tk.ID)
		if used != ledger || leased != 0 {
			t.Errorf("after the restarts: used %d, leased %d, SUM(ledger) %d", used, leased, ledger)
		}
		t.Logf("rolling restart of 2 instances under load: %d calls acknowledged, each charged once; used == SUM(ledger) == %d", len(acked), ledger)
	})
}

// gatewayDrainLimit bounds a graceful stop in the tests: the 30 s drain and the final commit.
const gatewayDrainLimit = 45 * time.Second

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
)

// TestKeyPolicies (issue 34) on the real binary, SQLite and PostgreSQL: a key with a 10-credit
// budget under 200 concurrent 1-credit calls spread over two instances sharing the database gets
// exactly 10 successes (two instances on PostgreSQL; SQLite serves one); an expired key is refused; a rolled key's old secret works until the
// overlap ends, then not; Capgate-Max-Credits below the cost refuses with nothing charged; the
// quote matches the charge of the real call; a plain key gets 403 on /v1/keys; a key made with
// the CLI is in the audit log.
func TestKeyPolicies(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		d := newDeployment(t, backend)
		in1 := d.serve(t)
		// A fleet shares an external database: on SQLite both halves of the load go to one
		// instance; on PostgreSQL to two instances sharing the key's budget.
		in2 := in1
		if backend == "postgres" {
			in2 = d.serveOther(t)
		}
		d.admin(t, "plan", "create", "--name", "keys", "--cap", "1000000", "--rate", "1000000", "--capabilities", "all")
		tk := d.newTenant(t, "keys")
		path, body := oneCreditSandboxCall(t, in1, tk.Test)

		// The budget: exactly 10 of 200 concurrent calls over two instances.
		bk := d.admin(t, "key", "create", "--tenant", tk.ID, "--test", "--label", "budgeted", "--budget", "10")
		var ok, refused, other atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 200; i++ {
			base := in1.Base
			if i%2 == 1 {
				base = in2.Base
			}
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				status, out, err := quickCall(base, path, str(bk, "key"), fmt.Sprintf("req_budget%04d", i), body)
				switch {
				case err != nil:
					other.Add(1)
				case status == 200:
					ok.Add(1)
				case status == 402 && str(out, "error", "code") == "credits_exhausted":
					refused.Add(1)
				default:
					other.Add(1)
					t.Errorf("call %d: %d %v", i, status, out)
				}
			}(i)
		}
		wg.Wait()
		if ok.Load() != 10 || refused.Load() != 190 || other.Load() != 0 {
			t.Fatalf("budget 10: %d successes, %d refused, %d other; want 10, 190, 0", ok.Load(), refused.Load(), other.Load())
		}

		// Expiry.
		ek := d.admin(t, "key", "create", "--tenant", tk.ID, "--test", "--label", "short", "--expires", "2s")
		in1.call(t, http.MethodPost, path, str(ek, "key"), body).mustOK(t, "call before expiry")
		time.Sleep(2500 * time.Millisecond)
		requireEnvelope(t, in1.call(t, http.MethodPost, path, str(ek, "key"), body), 401, "unauthorized")

		// Roll with a 3 s overlap: the old secret works, then stops (within the key cache's TTL).
		rk := d.admin(t, "key", "create", "--tenant", tk.ID, "--test", "--label", "rolled")
		old := str(rk, "key")
		in1.call(t, http.MethodPost, path, old, body).mustOK(t, "old secret before roll")
		rolled := d.admin(t, "key", "roll", "--id", str(rk, "id"), "--overlap", "3s")
		rolledAt := time.Now()
		in1.call(t, http.MethodPost, path, str(rolled, "key"), body).mustOK(t, "new secret")
		in2.call(t, http.MethodPost, path, old, body).mustOK(t, "old secret within the overlap")
		if _, gone := eventually(15*time.Second, func() bool {
			return in2.call(t, http.MethodPost, path, old, body).Status == 401
		}); !gone {
			t.Fatal("the old secret still works long after the overlap")
		}
		if time.Since(rolledAt) < 3*time.Second {
			t.Fatal("the old secret stopped before its overlap ended")
		}

		// Ceiling and quote.
		usedOf := func() float64 {
			a := in1.get(t, "/v1/account", tk.Test).mustOK(t, "account")
			n, _ := num(a.JSON, "credits", "used")
			return n
		}
		before := usedOf()
		requireEnvelope(t, in1.call(t, http.MethodPost, path, tk.Test, body, "Capgate-Max-Credits", "0"), 402, "credits_exhausted")
		if after := usedOf(); after != before {
			t.Fatalf("a call refused by Capgate-Max-Credits charged: used %v → %v", before, after)
		}
		quotePath := path[:len(path)-len("execute")] + "quote"
		q := in1.call(t, http.MethodPost, quotePath, tk.Test, body, "Cache-Control", "no-store").mustOK(t, "quote")
		quoted, _ := num(q.JSON, "credits")
		x := in1.call(t, http.MethodPost, path, tk.Test, body, "Cache-Control", "no-store", "Capgate-Max-Credits", "1").mustOK(t, "call under the ceiling")
		if got, _ := num(x.JSON, "charged_credits"); got != quoted {
			t.Fatalf("quoted %v, charged %v", quoted, got)
		}

		// Manage permission.
		requireEnvelope(t, in1.get(t, "/v1/keys", tk.Live), 403, "capability_disabled")
		mk := d.admin(t, "key", "create", "--tenant", tk.ID, "--label", "manager", "--manage")
		in1.get(t, "/v1/keys", str(mk, "key")).mustOK(t, "manage key lists keys")

		// The CLI's key changes are audited.
		store := tenants.NewStore(openDeploymentDB(t, d))
		log, err := store.AuditLog(context.Background(), 1000, 0)
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]bool{}
		for _, a := range log {
			if a.Actor == "cli" {
				found[a.Action+" "+a.Target] = true
			}
		}
		for _, want := range []string{"key.create " + str(bk, "id"), "key.create " + str(mk, "id"), "key.roll " + str(rk, "id")} {
			if !found[want] {
				t.Errorf("audit log lacks %s", want)
			}
		}
	})
}

package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/tenants/tenantstest"
)

// pgTool finds a PostgreSQL client program (scripts/test-servers.sh installs them with the
// server); without one the test skips, or fails with CAPGATE_REQUIRE_SERVERS=1.
func pgTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CAPGATE_REQUIRE_SERVERS") == "1" {
			t.Fatalf("%s not found but CAPGATE_REQUIRE_SERVERS=1", name)
		}
		t.Skipf("%s not found", name)
	}
	return p
}

func runTool(t *testing.T, bin string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// TestBackupRestore is the runbook's backup and restore (docs/operations.md): pg_dump of a
// gateway's PostgreSQL while paid calls run, pg_restore into an empty database,
// deploy/postgres/check-ledger.sql answering no rows (used == SUM(ledger) in every period), and
// a gateway on the restored database that serves, with the restored balance, and returns the
// credits the dumped instance held leased.
func TestBackupRestore(t *testing.T) {
	if tenantstest.PostgresURL(t) == "" {
		t.Skip("no PostgreSQL test server (set CAPGATE_TEST_POSTGRES_URL)")
	}
	pgDump, pgRestore, psql := pgTool(t, "pg_dump"), pgTool(t, "pg_restore"), pgTool(t, "psql")
	d := newDeployment(t, "postgres")
	lease := "GATEWAY_LEASE_TTL=2s"
	in := d.serve(t, lease)
	d.admin(t, "plan", "create", "--name", "backup", "--cap", "1000000", "--rate", "1000000", "--capabilities", "all")
	tk := d.newTenant(t, "backup")
	path, body := oneCreditSandboxCall(t, in, tk.Test)

	// Calls run while pg_dump reads its snapshot.
	var stop atomic.Bool
	var ok atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; !stop.Load() && i < 5000; i++ {
				if status, _, err := quickCall(in.Base, path, tk.Test, fmt.Sprintf("req_backup%d%07d", w, i), body); err == nil && status == http.StatusOK {
					ok.Add(1)
				}
			}
		}(w)
	}
	if _, done := eventually(20*time.Second, func() bool { return ok.Load() >= 30 }); !done {
		t.Fatal("fewer than 30 calls answered in 20 s")
	}
	dump := filepath.Join(t.TempDir(), "capgate.dump")
	runTool(t, pgDump, "--format=custom", "--file="+dump, d.DatabaseURL)
	stop.Store(true)
	wg.Wait()
	httpClient.CloseIdleConnections()
	if code, _, err := in.stop(gatewayDrainLimit); err != nil || code != 0 {
		t.Fatalf("stopping the backed-up instance: exit %d, %v", code, err)
	}

	restored := &deployment{Backend: "postgres", DataDir: t.TempDir(), DatabaseURL: tenantstest.FreshPostgres(t), MasterKey: d.MasterKey}
	runTool(t, pgRestore, "--no-owner", "--exit-on-error", "--dbname="+restored.DatabaseURL, dump)
	bad := runTool(t, psql, restored.DatabaseURL, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-f", filepath.Join("..", "deploy", "postgres", "check-ledger.sql"))
	if strings.TrimSpace(bad) != "" {
		t.Fatalf("check-ledger.sql on the restored database lists periods where used != SUM(ledger):\n%s", bad)
	}
	db := openDeploymentDB(t, restored)
	used, _, ledger := creditTotals(t, db, tk.ID)
	if used == 0 || used != ledger {
		t.Fatalf("restored: used %d, SUM(ledger) %d", used, ledger)
	}
	// The check is not blind: a period out of step with its ledger is listed.
	if _, err := db.ExecContext(t.Context(), "UPDATE credit_periods SET used = used + 1 WHERE tenant_id = ?", tk.ID); err != nil {
		t.Fatal(err)
	}
	if bad := runTool(t, psql, restored.DatabaseURL, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-f", filepath.Join("..", "deploy", "postgres", "check-ledger.sql")); !strings.Contains(bad, tk.ID) {
		t.Fatalf("check-ledger.sql missed a period whose used is one above its ledger: %q", bad)
	}
	if _, err := db.ExecContext(t.Context(), "UPDATE credit_periods SET used = used - 1 WHERE tenant_id = ?", tk.ID); err != nil {
		t.Fatal(err)
	}

	// A gateway on the restored database serves the same tenant and key, and the leases the
	// dumped instance held go back to their periods.
	again := restored.serve(t, lease)
	again.call(t, http.MethodPost, path, tk.Test, body).mustOK(t, "a call on the restored database")
	if _, done := eventually(20*time.Second, func() bool {
		_, leased, _ := creditTotals(t, db, tk.ID)
		return leased == 0
	}); !done {
		_, leased, _ := creditTotals(t, db, tk.ID)
		t.Fatalf("%d credits still leased on the restored database", leased)
	}
	if code, _, err := again.stop(gatewayDrainLimit); err != nil || code != 0 {
		t.Fatalf("stopping: exit %d, %v", code, err)
	}
	used2, leased2, ledger2 := creditTotals(t, db, tk.ID)
	if used2 != ledger2 || leased2 != 0 || used2 != used+1 {
		t.Fatalf("after a call on the restored database: used %d, leased %d, SUM(ledger) %d (restored used %d)", used2, leased2, ledger2, used)
	}
	t.Logf("restored a live dump: %d credits used == SUM(ledger); %d calls answered while it was taken", used, ok.Load())
}

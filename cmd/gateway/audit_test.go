package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/capgate/capgate/tenants"
)

// TestCLIChangesAreAudited: every change made with `gateway admin` writes an audit row with the
// CLI actor (issue 34: a key made with the CLI did not appear in the audit log); reads write none.
func TestCLIChangesAreAudited(t *testing.T) {
	dir := t.TempDir()
	env := func(k string) string {
		switch k {
		case "GATEWAY_DATA_DIR":
			return dir
		case "USER":
			return "ops-alice"
		}
		return ""
	}
	ctx := context.Background()
	cli := func(args ...string) map[string]any {
		t.Helper()
		var out bytes.Buffer
		if err := admin(ctx, args, env, &out); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var m map[string]any
		_ = json.Unmarshal(out.Bytes(), &m)
		return m
	}
	cli("plan", "create", "--name", "team", "--cap", "500")
	cli("plan", "update", "--name", "team", "--rate", "120")
	ten := cli("tenant", "create", "--name", "Acme", "--plan", "team")
	tid := ten["id"].(string)
	cli("tenant", "set-plan", "--tenant", tid, "--plan", "pro")
	cli("tenant", "suspend", "--tenant", tid)
	key := cli("key", "create", "--tenant", tid, "--label", "ci", "--manage")
	if key["manage"] != true {
		t.Fatalf("--manage: %v", key)
	}
	cli("key", "revoke", "--id", key["id"].(string))
	cli("key", "revoke", "--id", key["id"].(string)) // a no-op: not audited again
	cli("key", "list", "--tenant", tid)
	cli("plan", "list")

	db, err := tenants.Open("", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	es, err := tenants.NewStore(db).AuditLog(ctx, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Actor != "cli:ops-alice" {
			t.Errorf("actor %q of %s", es[i].Actor, es[i].Action)
		}
		got = append(got, es[i].Action+" "+es[i].Target)
	}
	want := []string{"plan.create team", "plan.update team", "tenant.create " + tid, "tenant.set_plan " + tid,
		"tenant.set_status " + tid, "key.create " + key["id"].(string), "key.revoke " + key["id"].(string)}
	if len(got) != len(want) {
		t.Fatalf("audit rows:\n got %v\nwant %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("audit rows:\n got %v\nwant %v", got, want)
		}
	}
	// The plan update's row holds the change.
	for _, e := range es {
		if e.Action == "plan.update" && (!bytes.Contains([]byte(e.BeforeState), []byte(`"rate_per_minute":60`)) ||
			!bytes.Contains([]byte(e.AfterState), []byte(`"rate_per_minute":120`))) {
			t.Errorf("plan.update states: %s → %s", e.BeforeState, e.AfterState)
		}
	}
}

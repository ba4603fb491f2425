package gateway_test

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

func idem(key string) map[string]string { return map[string]string{"Idempotency-Key": key} }

func data(t *testing.T, r *gatewaytest.Response) map[string]any {
	t.Helper()
	d, ok := r.JSON["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data: %d %s", r.Status, r.Body)
	}
	return d
}

func TestProjectsRoutesOnBothDatabases(t *testing.T) {
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			e := gatewaytest.New(t, gatewaytest.Options{DB: b.Open(t)})
			key := e.TestKey
			st := e.Do(http.MethodGet, "/v1/projects/status", key, nil)
			if st.Status != 200 || data(t, st)["access"] != true || st.JSON["commit_status"] != "not_committed" {
				t.Fatalf("status: %d %s", st.Status, st.Body)
			}
			// A write without a durable request id is refused.
			if r := e.Do(http.MethodPost, "/v1/projects", key, map[string]any{"name": "x"}); r.Status != 400 || r.JSON["status"] != "error" {
				t.Fatalf("no request id: %d %s", r.Status, r.Body)
			}
			// Create, replay byte for byte (data), conflict with another body.
			body := map[string]any{"name": "Water research", "request_id": "req-create-1"}
			first := e.Do(http.MethodPost, "/v1/projects", key, body)
			if first.Status != 201 || first.JSON["commit_status"] != "committed" || first.JSON["request_id"] != "req-create-1" {
				t.Fatalf("create: %d %s", first.Status, first.Body)
			}
			again := e.Do(http.MethodPost, "/v1/projects", key, body)
			if again.Status != 201 || again.JSON["commit_status"] != "replayed" {
				t.Fatalf("replay: %d %s", again.Status, again.Body)
			}
			if !bytes.Equal(bytes.Replace(again.Body, []byte(`"replayed"`), []byte(`"committed"`), 1), first.Body) {
				t.Fatalf("replay differs:\n%s\n%s", first.Body, again.Body)
			}
			conflict := e.Do(http.MethodPost, "/v1/projects", key, map[string]any{"name": "Other", "request_id": "req-create-1"})
			if conflict.Status != 409 || conflict.JSON["commit_status"] != "not_committed" || conflict.JSON["error"].(map[string]any)["code"] != "invalid_request" {
				t.Fatalf("conflict: %d %s", conflict.Status, conflict.Body)
			}
			pid := data(t, first)["project_id"].(string)
			// Save a record snapshot (copied at save time) and a note.
			search := e.Do(http.MethodPost, "/v1/capabilities/books.search/execute", key, map[string]any{"query": "the lord of the rings", "num": 2})
			rec := search.JSON["results"].([]any)[0].(map[string]any)
			item := e.DoHeaders(http.MethodPost, "/v1/projects/"+pid+"/items", key, map[string]any{"kind": "record", "record_id": rec["record_id"]}, idem("item-1"))
			if item.Status != 201 || data(t, item)["record"].(map[string]any)["title"] != rec["title"] {
				t.Fatalf("item: %d %s", item.Status, item.Body)
			}
			note := e.DoHeaders(http.MethodPost, "/v1/projects/"+pid+"/items", key, map[string]any{"kind": "note", "note": "boils at 100 °C"}, idem("item-2"))
			if note.Status != 201 {
				t.Fatalf("note: %d %s", note.Status, note.Body)
			}
			for _, bad := range []map[string]any{{"kind": "note"}, {"kind": "record"}, {"kind": "note", "note": "x", "record_id": rec["record_id"]}, {"kind": "pdf"}} {
				if r := e.DoHeaders(http.MethodPost, "/v1/projects/"+pid+"/items", key, bad, idem("bad-"+tenants.RandomString(6))); r.Status != 400 {
					t.Fatalf("bad item %v: %d %s", bad, r.Status, r.Body)
				}
			}
			// Listing with paging.
			got := e.Do(http.MethodGet, "/v1/projects/"+pid+"?limit=1", key, nil)
			d := data(t, got)
			if len(d["items"].([]any)) != 1 || d["next_offset"] != float64(1) || d["project"].(map[string]any)["item_count"] != float64(2) {
				t.Fatalf("get: %s", got.Body)
			}
			if l := e.Do(http.MethodGet, "/v1/projects", key, nil); len(data(t, l)["projects"].([]any)) != 1 {
				t.Fatalf("list: %s", l.Body)
			}
			// Another tenant cannot reach the project.
			_, _, otherKey := e.NewTenant("pro")
			for _, r := range []*gatewaytest.Response{
				e.Do(http.MethodGet, "/v1/projects/"+pid, otherKey, nil),
				e.DoHeaders(http.MethodDelete, "/v1/projects/"+pid, otherKey, nil, idem("del-x")),
				e.DoHeaders(http.MethodPost, "/v1/projects/"+pid+"/items", otherKey, map[string]any{"kind": "note", "note": "n"}, idem("n-x")),
			} {
				if r.Status != 404 || r.JSON["error"].(map[string]any)["code"] != "not_found" {
					t.Fatalf("cross-tenant: %d %s", r.Status, r.Body)
				}
			}
			// Another tenant cannot save this tenant's record either.
			_, _, third := e.NewTenant("pro")
			p3 := e.DoHeaders(http.MethodPost, "/v1/projects", third, map[string]any{"name": "mine"}, idem("p3"))
			r := e.DoHeaders(http.MethodPost, "/v1/projects/"+data(t, p3)["project_id"].(string)+"/items", third,
				map[string]any{"kind": "record", "record_id": rec["record_id"]}, idem("steal"))
			if r.Status != 404 || r.JSON["error"].(map[string]any)["code"] != "record_unknown" {
				t.Fatalf("foreign record saved: %d %s", r.Status, r.Body)
			}
			// Delete an item, then the project.
			iid := data(t, note)["item_id"].(string)
			if r := e.DoHeaders(http.MethodDelete, "/v1/projects/"+pid+"/items/"+iid, key, nil, idem("del-i")); r.Status != 200 {
				t.Fatalf("delete item: %d %s", r.Status, r.Body)
			}
			if r := e.DoHeaders(http.MethodDelete, "/v1/projects/"+pid, key, nil, idem("del-p")); r.Status != 200 {
				t.Fatalf("delete project: %d %s", r.Status, r.Body)
			}
			if r := e.Do(http.MethodGet, "/v1/projects/"+pid, key, nil); r.Status != 404 {
				t.Fatalf("deleted project: %d", r.Status)
			}
		})
	}
}

func TestProjectsQuotaAndConcurrentDuplicates(t *testing.T) {
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			db := b.Open(t)
			store := tenants.NewStore(db)
			ctx := context.Background()
			small := &tenants.Plan{ID: "tiny", CreditCap: 1000, RatePerMinute: 100000, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stock", ProjectLimit: 2, ItemLimit: 1}
			if err := store.CreatePlan(ctx, small); err != nil {
				t.Fatal(err)
			}
			e := gatewaytest.New(t, gatewaytest.Options{DB: db, Plan: "tiny"})
			// 50 concurrent identical requests commit exactly once.
			var wg sync.WaitGroup
			results := make([]*gatewaytest.Response, 50)
			for i := range results {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					results[i] = e.Do(http.MethodPost, "/v1/projects", e.TestKey, map[string]any{"name": "same", "request_id": "dup-1"})
				}(i)
			}
			wg.Wait()
			commits, replays := 0, 0
			var pid string
			for _, r := range results {
				switch r.JSON["commit_status"] {
				case "committed":
					commits++
				case "replayed":
					replays++
				default:
					t.Fatalf("duplicate answered %d %s", r.Status, r.Body)
				}
				id := data(t, r)["project_id"].(string)
				if pid != "" && id != pid {
					t.Fatalf("two projects created: %s %s", pid, id)
				}
				pid = id
			}
			if commits != 1 || replays != 49 {
				t.Fatalf("commits %d replays %d", commits, replays)
			}
			if u, _ := store.ProjectUsage(ctx, tenants.ProjectOwner{TenantID: e.Tenant.ID, Mode: tenants.ModeTest}); u.Projects != 1 {
				t.Fatalf("projects %d", u.Projects)
			}
			// Quotas: 2 projects, 1 item.
			if r := e.DoHeaders(http.MethodPost, "/v1/projects", e.TestKey, map[string]any{"name": "second"}, idem("q2")); r.Status != 201 {
				t.Fatalf("second project: %d %s", r.Status, r.Body)
			}
			r := e.DoHeaders(http.MethodPost, "/v1/projects", e.TestKey, map[string]any{"name": "third"}, idem("q3"))
			if r.Status != 403 || r.JSON["error"].(map[string]any)["code"] != "capability_disabled" {
				t.Fatalf("project quota: %d %s", r.Status, r.Body)
			}
			// A refused write did not commit: the same id with a new body is not a conflict later.
			if r := e.DoHeaders(http.MethodPost, "/v1/projects/"+pid+"/items", e.TestKey, map[string]any{"kind": "note", "note": "a"}, idem("i1")); r.Status != 201 {
				t.Fatalf("item: %d %s", r.Status, r.Body)
			}
			if r := e.DoHeaders(http.MethodPost, "/v1/projects/"+pid+"/items", e.TestKey, map[string]any{"kind": "note", "note": "b"}, idem("i2")); r.Status != 403 {
				t.Fatalf("item quota: %d %s", r.Status, r.Body)
			}
			st := data(t, e.Do(http.MethodGet, "/v1/projects/status", e.TestKey, nil))
			if st["projects"].(map[string]any)["used"] != float64(2) || st["items"].(map[string]any)["limit"] != float64(1) {
				t.Fatalf("status %v", st)
			}
		})
	}
}

func TestIdempotencyKeyOnExecuteReplaysWithoutSecondCharge(t *testing.T) {
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			e := gatewaytest.New(t, gatewaytest.Options{DB: b.Open(t)})
			setStage(t, e, e.Tenant, "stage1")
			first := e.DoHeaders(http.MethodPost, "/v1/sharpen", e.TestKey, draft, idem("sharpen-1"))
			if first.Status != 200 || first.JSON["charged_credits"] != float64(5) {
				t.Fatalf("first: %d %s", first.Status, first.Body)
			}
			again := e.DoHeaders(http.MethodPost, "/v1/sharpen", e.TestKey, draft, idem("sharpen-1"))
			if !bytes.Equal(first.Body, again.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("replay not byte-identical:\n%s\n%s", first.Body, again.Body)
			}
			acct := e.Do(http.MethodGet, "/v1/account", e.TestKey, nil)
			if acct.JSON["credits"].(map[string]any)["used"] != float64(5) {
				t.Fatalf("charged twice: %v", acct.JSON["credits"])
			}
			if r := e.DoHeaders(http.MethodPost, "/v1/sharpen", e.TestKey, with(draft, "task", "other"), idem("sharpen-1")); r.Status != 409 {
				t.Fatalf("conflict: %d %s", r.Status, r.Body)
			}
			ex := e.DoHeaders(http.MethodPost, "/v1/capabilities/books.search/execute", e.TestKey, map[string]any{"query": "dune"}, idem("exec-1"))
			ex2 := e.DoHeaders(http.MethodPost, "/v1/capabilities/books.search/execute", e.TestKey, map[string]any{"query": "dune"}, idem("exec-1"))
			if ex.Status != 200 || !bytes.Equal(ex.Body, ex2.Body) {
				t.Fatalf("execute replay: %d\n%s\n%s", ex.Status, ex.Body, ex2.Body)
			}
			// A failed request is not stored: the retry runs.
			bad := e.DoHeaders(http.MethodPost, "/v1/capabilities/books.search/execute", e.TestKey, map[string]any{"nope": 1}, idem("exec-2"))
			good := e.DoHeaders(http.MethodPost, "/v1/capabilities/books.search/execute", e.TestKey, map[string]any{"query": "dune"}, idem("exec-2"))
			if bad.Status != 400 || good.Status != 200 {
				t.Fatalf("failed then retried: %d %d %s", bad.Status, good.Status, good.Body)
			}
		})
	}
}

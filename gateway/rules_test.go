package gateway_test

// Behaviour of the gateway against spec section 4.2 ("rules common to all capabilities"), one
// test per numbered rule, plus the errors, plan and deployment checks, credits and sessions
// around them. The capabilities and their upstream are in testcaps_test.go.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// onBackends runs fn on a fresh gateway over SQLite and over PostgreSQL.
func onBackends(t *testing.T, fn func(t *testing.T, e *capEnv)) {
	t.Helper()
	for _, b := range tenantstest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { fn(t, newCapEnv(t, b.Open(t))) })
	}
}

const goneMessage = "the cached record detail is no longer available; run the search again"

func TestRule1UnknownKeysRejected(t *testing.T) {
	e := newCapEnv(t, nil)
	cases := []struct {
		name  string
		body  map[string]any
		paths []string
	}{
		{"top level", map[string]any{"query": "alpha", "bogus": 1}, []string{"/bogus"}},
		{"nested object", map[string]any{"query": "alpha", "filter": map[string]any{"lang": "en", "region": "x"}}, []string{"/filter/region"}},
		{"several at once", map[string]any{"query": "alpha", "a": 1, "b": 2}, []string{"/a", "/b"}},
		{"a near miss of a field name", map[string]any{"Query": "alpha"}, []string{"/Query"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.live.Calls()
			r := e.exec(e.LiveKey, "test.page", c.body)
			wantError(t, r, 400, "invalid_request")
			for _, p := range c.paths {
				wantViolation(t, r, p)
			}
			if e.live.Calls() != before {
				t.Fatal("a refused body reached the upstream")
			}
			if u := used(t, e.Env, e.Tenant, tenants.ModeLive); u != 0 {
				t.Fatalf("a refused body was charged: used %d", u)
			}
		})
	}
	t.Run("follow-up body", func(t *testing.T) {
		r := e.follow(e.LiveKey, map[string]any{"search_id": "srch_AAAAAAAAAAAAAAAA", "action": "more", "page": 2})
		wantError(t, r, 400, "invalid_request")
		wantViolation(t, r, "/page")
	})
	t.Run("update params", func(t *testing.T) {
		sid := searchID(t, e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha"}))
		r := e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "update", "params": map[string]any{"bogus": true}})
		wantError(t, r, 400, "invalid_request")
		wantViolation(t, r, "/params/bogus")
	})
}

func TestRule1DefaultsApplied(t *testing.T) {
	e := newCapEnv(t, nil)
	t.Run("omitted num behaves as its default", func(t *testing.T) {
		omitted := e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha"})
		wantOK(t, omitted)
		if !strings.Contains(e.live.Last(), "size=3") {
			t.Fatalf("upstream was not asked for the default page size 3: %s", e.live.Last())
		}
		explicit := e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha", "num": 3})
		wantOK(t, explicit)
		if !reflect.DeepEqual(titles(omitted), titles(explicit)) || omitted.JSON["result_count"] != float64(3) {
			t.Fatalf("omitted num %v differs from num 3 %v", titles(omitted), titles(explicit))
		}
		// The stored query holds the default too: an update that changes only the query keeps 3.
		up := e.follow(e.LiveKey, map[string]any{"search_id": searchID(t, omitted), "action": "update", "params": map[string]any{"query": "beta"}})
		wantOK(t, up)
		if up.JSON["result_count"] != float64(3) {
			t.Fatalf("update after a defaulted num: %s", up.Body)
		}
	})
	t.Run("nested default", func(t *testing.T) {
		wantOK(t, e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha", "filter": map[string]any{}}))
		if !strings.Contains(e.live.Last(), "lang=en") {
			t.Fatalf("the nested default lang=en did not reach the adapter: %s", e.live.Last())
		}
	})
	t.Run("local page size defaults", func(t *testing.T) {
		r := e.exec(e.LiveKey, "test.local", map[string]any{"query": "alpha"})
		wantOK(t, r)
		if len(results(r)) != 3 || !hasMore(r) {
			t.Fatalf("local page with the default num: %s", r.Body)
		}
	})
}

func TestRule2RulesBeyondSchema(t *testing.T) {
	e := newCapEnv(t, nil)
	cases := []struct {
		name    string
		body    map[string]any
		paths   []string
		message string
	}{
		{"min above max", map[string]any{"query": "q", "min": 5, "max": 1}, []string{"/min"}, "min must not exceed max"},
		// max is omitted: its default (50) is applied before the rule runs.
		{"min above the default max", map[string]any{"query": "q", "min": 60}, []string{"/min"}, "min must not exceed max"},
		{"field accepted only on update", map[string]any{"query": "q", "label": "x"}, []string{"/label"}, "label is accepted only on update"},
		{"two rules at once", map[string]any{"query": "q", "min": 9, "max": 1, "label": "x"}, []string{"/min", "/label"}, ""},
		// The rules run after the schema: a schema violation is answered alone.
		{"schema first", map[string]any{"query": "q", "min": 9, "max": 1, "bogus": 1}, []string{"/bogus"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.live.Calls()
			r := e.exec(e.LiveKey, "test.rules", c.body)
			env := wantError(t, r, 400, "invalid_request")
			got := r.Violations()
			slices.Sort(got)
			want := slices.Clone(c.paths)
			slices.Sort(want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("violations %q, want %q: %s", got, want, r.Body)
			}
			msg, _ := env["message"].(string)
			if msg == "" || (c.message != "" && !strings.Contains(msg, c.message)) {
				t.Fatalf("message %q, want one that says %q", msg, c.message)
			}
			if e.live.Calls() != before {
				t.Fatal("a refused body reached the upstream")
			}
		})
	}
	t.Run("valid body passes", func(t *testing.T) {
		wantOK(t, e.exec(e.LiveKey, "test.rules", map[string]any{"query": "q", "min": 1, "max": 5}))
	})
}

// TestRule3PagingKinds walks every provider paging kind to the end and checks the paging state
// round trip; local paging serves more from the session for free.
func TestRule3PagingKinds(t *testing.T) {
	onBackends(t, func(t *testing.T, e *capEnv) {
		want := [][]string{{"alpha #1", "alpha #2", "alpha #3"}, {"alpha #4", "alpha #5", "alpha #6"}, {"alpha #7"}}
		cases := []struct {
			id       string
			typical  int64
			upstream func(page int) string // what the upstream must be asked for page (0-based)
		}{
			{"test.page", 2, func(p int) string { return fmt.Sprintf("page=%d", p+1) }},
			{"test.offset", 1, func(p int) string { return fmt.Sprintf("offset=%d", 3*p) }},
			{"test.token", 1, func(p int) string {
				if p == 0 {
					return "kind=token"
				}
				return fmt.Sprintf("cursor=tok-%d", 3*p)
			}},
		}
		for _, c := range cases {
			t.Run(c.id, func(t *testing.T) {
				r := e.exec(e.LiveKey, c.id, map[string]any{"query": "alpha", "num": 3})
				sid := searchID(t, r)
				seenIDs := map[string]bool{}
				for i, page := range want {
					if i > 0 {
						r = e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "more"})
					}
					wantOK(t, r)
					if r.JSON["search_id"] != sid {
						t.Fatalf("page %d changed the search_id: %s", i+1, r.Body)
					}
					if !reflect.DeepEqual(titles(r), page) {
						t.Fatalf("page %d: %v, want %v", i+1, titles(r), page)
					}
					if last := e.live.Last(); !strings.Contains(last, c.upstream(i)) {
						t.Fatalf("page %d: upstream asked %s, want %s", i+1, last, c.upstream(i))
					}
					more := i < len(want)-1
					if hasMore(r) != more || slices.Contains(anyStrings(nextOf(r)["actions"]), "more") != more {
						t.Fatalf("page %d: has_more/next.actions wrong: %s", i+1, r.Body)
					}
					if charged(r) != c.typical {
						t.Fatalf("page %d charged %d, want %d", i+1, charged(r), c.typical)
					}
					for _, rec := range results(r) {
						id := rec["record_id"].(string)
						if seenIDs[id] {
							t.Fatalf("record_id %s repeated across pages", id)
						}
						seenIDs[id] = true
					}
				}
				before := e.live.Calls()
				end := e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "more"})
				wantError(t, end, 400, "invalid_request")
				if e.live.Calls() != before {
					t.Fatal("more after has_more false reached the upstream")
				}
			})
		}
		t.Run("token cursors are the upstream's own", func(t *testing.T) {
			e.live.mu.Lock()
			issued := slices.Clone(e.live.cursors)
			e.live.mu.Unlock()
			for _, cur := range issued {
				found := false
				for _, s := range e.live.Seen() {
					found = found || strings.Contains(s, "cursor="+cur)
				}
				if !found {
					t.Fatalf("cursor %s was issued but never sent back (issued %v)", cur, issued)
				}
			}
		})
		t.Run("test.local", func(t *testing.T) {
			before := e.live.Calls()
			r := e.exec(e.LiveKey, "test.local", map[string]any{"query": "alpha", "num": 3})
			wantOK(t, r)
			if e.live.Calls() != before+1 || charged(r) != 3 {
				t.Fatalf("local execute: %d upstream calls, charged %d", e.live.Calls()-before, charged(r))
			}
			sid := searchID(t, r)
			usedAfterExecute := balanceUsed(r)
			for i, page := range want {
				if i > 0 {
					r = e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "more"})
					wantOK(t, r)
					if charged(r) != 0 || balanceUsed(r) != usedAfterExecute {
						t.Fatalf("local more was charged: %s", r.Body)
					}
				}
				if !reflect.DeepEqual(titles(r), page) || hasMore(r) != (i < len(want)-1) {
					t.Fatalf("local page %d: %v has_more %v", i+1, titles(r), hasMore(r))
				}
			}
			if e.live.Calls() != before+1 {
				t.Fatalf("local more called the upstream: %d calls", e.live.Calls()-before)
			}
			wantError(t, e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "more"}), 400, "invalid_request")
			if u := used(t, e.Env, e.Tenant, tenants.ModeLive); u != usedAfterExecute {
				t.Fatalf("used %d after free local pages, want %d", u, usedAfterExecute)
			}
		})
	})
}

func anyStrings(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, x := range arr {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func TestRule4MoreOnSingleRefused(t *testing.T) {
	e := newCapEnv(t, nil)
	for _, id := range []string{"test.single", "test.bare"} {
		t.Run(id, func(t *testing.T) {
			r := e.exec(e.LiveKey, id, map[string]any{"query": "alpha"})
			wantOK(t, r)
			if hasMore(r) || slices.Contains(anyStrings(nextOf(r)["actions"]), "more") {
				t.Fatalf("a single result offers more: %s", r.Body)
			}
			before := e.live.Calls()
			m := e.follow(e.LiveKey, map[string]any{"search_id": searchID(t, r), "action": "more"})
			wantError(t, m, 400, "invalid_request")
			wantViolation(t, m, "/action")
			if e.live.Calls() != before {
				t.Fatal("more on a single result reached the upstream")
			}
		})
	}
}

func TestRule4EmptyPageWithHasMore(t *testing.T) {
	e := newCapEnv(t, nil)
	r := e.exec(e.LiveKey, "test.page", map[string]any{"query": "sparse", "num": 3})
	wantOK(t, r)
	if len(results(r)) != 0 || r.JSON["result_count"] != float64(0) || !hasMore(r) {
		t.Fatalf("want an empty page with has_more: %s", r.Body)
	}
	if ra := anyStrings(r.JSON["record_actions"]); len(ra) != 0 {
		t.Fatalf("record_actions on an empty page: %v", ra)
	}
	ex := nextExample(t, r)
	if ex["action"] != "more" || ex["search_id"] != searchID(t, r) {
		t.Fatalf("next.example of an empty page with has_more: %v", ex)
	}
	m := e.follow(e.LiveKey, ex)
	wantOK(t, m)
	if !reflect.DeepEqual(titles(m), []string{"sparse #1", "sparse #2", "sparse #3"}) {
		t.Fatalf("the page after the empty one: %v", titles(m))
	}
}

func TestRule5UpdateMergesAndKeepsSearchID(t *testing.T) {
	onBackends(t, func(t *testing.T, e *capEnv) {
		first := e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha", "num": 2})
		sid := searchID(t, first)
		wantOK(t, e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "more"}))

		t.Run("merge, reset paging, same search_id", func(t *testing.T) {
			up := e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "update", "params": map[string]any{"query": "beta"}})
			wantOK(t, up)
			if up.JSON["search_id"] != sid {
				t.Fatalf("update changed the search_id: %s", up.Body)
			}
			// num 2 is kept from the stored query; paging restarts at page 1.
			if !reflect.DeepEqual(titles(up), []string{"beta #1", "beta #2"}) {
				t.Fatalf("update results %v", titles(up))
			}
			if last := e.live.Last(); !strings.Contains(last, "page=1") || !strings.Contains(last, "size=2") || !strings.Contains(last, "q=beta") {
				t.Fatalf("upstream asked %s after update", last)
			}
			if charged(up) != 2 {
				t.Fatalf("update charged %d, want the typical 2", charged(up))
			}
			m := e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "more"})
			wantOK(t, m)
			if !reflect.DeepEqual(titles(m), []string{"beta #3", "beta #4"}) {
				t.Fatalf("more after update: %v", titles(m))
			}
		})
		t.Run("null removes a field, its default applies", func(t *testing.T) {
			up := e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "update", "params": map[string]any{"num": nil}})
			wantOK(t, up)
			if len(results(up)) != 3 || titles(up)[0] != "beta #1" {
				t.Fatalf("update num:null: %v", titles(up))
			}
		})
		t.Run("params are validated and reported under /params", func(t *testing.T) {
			cases := []struct {
				name   string
				params map[string]any
				path   string
			}{
				{"out of range", map[string]any{"num": 99}, "/params/num"},
				{"wrong type", map[string]any{"query": 7}, "/params/query"},
				{"empty string", map[string]any{"query": ""}, "/params/query"},
				{"unknown field", map[string]any{"bogus": 1}, "/params/bogus"},
				{"nested unknown field", map[string]any{"filter": map[string]any{"x": 1}}, "/params/filter/x"},
				{"removing a required field", map[string]any{"query": nil}, "/params/query"},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					before, usedBefore := e.live.Calls(), used(t, e.Env, e.Tenant, tenants.ModeLive)
					r := e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "update", "params": c.params})
					wantError(t, r, 400, "invalid_request")
					wantViolation(t, r, c.path)
					if e.live.Calls() != before || used(t, e.Env, e.Tenant, tenants.ModeLive) != usedBefore {
						t.Fatal("a refused update reached the upstream or was charged")
					}
				})
			}
			// The session is untouched by refused updates: more continues the last good query.
			m := e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "more"})
			wantOK(t, m)
			if !reflect.DeepEqual(titles(m), []string{"beta #4", "beta #5", "beta #6"}) {
				t.Fatalf("more after refused updates: %v", titles(m))
			}
		})
		t.Run("rules beyond the schema on update", func(t *testing.T) {
			r := e.exec(e.LiveKey, "test.rules", map[string]any{"query": "q", "min": 1, "max": 10})
			rid := searchID(t, r)
			bad := e.follow(e.LiveKey, map[string]any{"search_id": rid, "action": "update", "params": map[string]any{"min": 20}})
			wantError(t, bad, 400, "invalid_request")
			wantViolation(t, bad, "/params/min")
			// label is accepted on update only: the rule sees that this is an update.
			wantOK(t, e.follow(e.LiveKey, map[string]any{"search_id": rid, "action": "update", "params": map[string]any{"label": "x"}}))
		})
		t.Run("local paging restarts on the new result set", func(t *testing.T) {
			l := e.exec(e.LiveKey, "test.local", map[string]any{"query": "alpha", "num": 3})
			lid := searchID(t, l)
			wantOK(t, e.follow(e.LiveKey, map[string]any{"search_id": lid, "action": "more"}))
			up := e.follow(e.LiveKey, map[string]any{"search_id": lid, "action": "update", "params": map[string]any{"query": "beta"}})
			wantOK(t, up)
			if up.JSON["search_id"] != lid || !reflect.DeepEqual(titles(up), []string{"beta #1", "beta #2", "beta #3"}) || !hasMore(up) {
				t.Fatalf("local update: %s", up.Body)
			}
			for _, want := range [][]string{{"beta #4", "beta #5", "beta #6"}, {"beta #7"}} {
				m := e.follow(e.LiveKey, map[string]any{"search_id": lid, "action": "more"})
				wantOK(t, m)
				if !reflect.DeepEqual(titles(m), want) {
					t.Fatalf("local more after update: %v, want %v", titles(m), want)
				}
			}
		})
		t.Run("update not offered", func(t *testing.T) {
			r := e.exec(e.LiveKey, "test.single", map[string]any{"query": "alpha"})
			if slices.Contains(anyStrings(nextOf(r)["actions"]), "update") {
				t.Fatalf("next.actions offers update: %s", r.Body)
			}
			before := e.live.Calls()
			up := e.follow(e.LiveKey, map[string]any{"search_id": searchID(t, r), "action": "update", "params": map[string]any{"query": "beta"}})
			wantError(t, up, 400, "invalid_request")
			wantViolation(t, up, "/action")
			if e.live.Calls() != before {
				t.Fatal("a refused update reached the upstream")
			}
		})
	})
}

func TestRule6StoredDetailsFreeAnd410(t *testing.T) {
	onBackends(t, func(t *testing.T, e *capEnv) {
		r := e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha", "num": 3})
		wantOK(t, r)
		usedAfterSearch := balanceUsed(r)

		t.Run("stored detail is free and never calls the provider", func(t *testing.T) {
			rec := recordWithN(t, r, 1)
			for i := 0; i < 2; i++ {
				before := e.live.Calls()
				d := e.follow(e.LiveKey, map[string]any{"record_id": rec, "action": "details"})
				wantOK(t, d)
				if charged(d) != 0 || balanceUsed(d) != usedAfterSearch || e.live.Calls() != before {
					t.Fatalf("stored detail charged %d, used %d (want %d), %d upstream calls", charged(d), balanceUsed(d), usedAfterSearch, e.live.Calls()-before)
				}
				if d.JSON["detail"].(map[string]any)["item_id"] != "it-1" {
					t.Fatalf("stored detail: %s", d.Body)
				}
			}
		})
		t.Run("gone stored detail is 410 and never re-fetched", func(t *testing.T) {
			rec := recordWithN(t, r, fakeGoneN)
			for i := 0; i < 2; i++ {
				before := e.live.Calls()
				d := e.follow(e.LiveKey, map[string]any{"record_id": rec, "action": "details"})
				env := wantError(t, d, 410, "session_expired")
				if env["message"] != goneMessage {
					t.Fatalf("message %q, want %q", env["message"], goneMessage)
				}
				if e.live.Calls() != before {
					t.Fatal("a gone stored detail was fetched from the provider")
				}
			}
			if u := used(t, e.Env, e.Tenant, tenants.ModeLive); u != usedAfterSearch {
				t.Fatalf("used %d after 410s, want %d", u, usedAfterSearch)
			}
		})
		t.Run("lookup billed once, then cached and free", func(t *testing.T) {
			rec := recordWithN(t, r, 1)
			before := e.live.Calls()
			first := e.follow(e.LiveKey, map[string]any{"record_id": rec, "action": "lookup"})
			wantOK(t, first)
			if charged(first) != lookupCost || first.JSON["cached"] != false || e.live.Calls() != before+1 {
				t.Fatalf("first lookup: charged %d, cached %v, %d upstream calls: %s", charged(first), first.JSON["cached"], e.live.Calls()-before, first.Body)
			}
			if balanceUsed(first) != usedAfterSearch+lookupCost {
				t.Fatalf("used %d after the lookup, want %d", balanceUsed(first), usedAfterSearch+lookupCost)
			}
			for i := 0; i < 2; i++ {
				again := e.follow(e.LiveKey, map[string]any{"record_id": rec, "action": "lookup"})
				wantOK(t, again)
				if charged(again) != 0 || again.JSON["cached"] != true || e.live.Calls() != before+1 || balanceUsed(again) != usedAfterSearch+lookupCost {
					t.Fatalf("repeat lookup: charged %d, cached %v, %d upstream calls: %s", charged(again), again.JSON["cached"], e.live.Calls()-before, again.Body)
				}
			}
		})
		t.Run("the ledger agrees", func(t *testing.T) {
			u, sum := used(t, e.Env, e.Tenant, tenants.ModeLive), ledgerSum(t, e.Env, e.Tenant, tenants.ModeLive)
			if u != usedAfterSearch+lookupCost || sum != u {
				t.Fatalf("used %d, ledger %d, want %d", u, sum, usedAfterSearch+lookupCost)
			}
		})
	})
}

func TestRule7RecordFollowUpBody(t *testing.T) {
	e := newCapEnv(t, nil)
	r := e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha"})
	sid := searchID(t, r)
	rec := recordWithN(t, r, 1)

	t.Run("record_id and action", func(t *testing.T) {
		d := e.follow(e.LiveKey, map[string]any{"record_id": rec, "action": "details"})
		wantOK(t, d)
		for _, k := range []string{"record_id", "action", "detail", "links", "charged_credits", "balance"} {
			if _, ok := d.JSON[k]; !ok {
				t.Fatalf("record follow-up response without %s: %s", k, d.Body)
			}
		}
		if d.JSON["record_id"] != rec || d.JSON["action"] != "details" {
			t.Fatalf("record follow-up answers another record or action: %s", d.Body)
		}
		if links, _ := d.JSON["links"].([]any); len(links) != 1 {
			t.Fatalf("links: %s", d.Body)
		}
		if _, isSearch := d.JSON["search_id"]; isSearch {
			t.Fatalf("a record follow-up answered with a search page: %s", d.Body)
		}
	})
	t.Run("with its own search_id", func(t *testing.T) {
		wantOK(t, e.follow(e.LiveKey, map[string]any{"search_id": sid, "record_id": rec, "action": "details"}))
	})
	cases := []struct {
		name   string
		body   map[string]any
		status int
		code   string
		path   string
	}{
		{"another search's search_id", map[string]any{"search_id": searchID(t, e.exec(e.LiveKey, "test.page", map[string]any{"query": "x"})), "record_id": rec, "action": "details"}, 404, "record_unknown", "/record_id"},
		{"params with a record action", map[string]any{"record_id": rec, "action": "details", "params": map[string]any{}}, 400, "invalid_request", "/params"},
		{"neither id", map[string]any{"action": "details"}, 400, "invalid_request", ""},
		{"search action on a record", map[string]any{"record_id": rec, "action": "more"}, 400, "invalid_request", "/action"},
		{"malformed record_id", map[string]any{"record_id": "rec_short", "action": "details"}, 400, "invalid_request", "/record_id"},
		{"action too long", map[string]any{"record_id": rec, "action": strings.Repeat("a", 41)}, 400, "invalid_request", "/action"},
		{"empty action", map[string]any{"record_id": rec, "action": ""}, 400, "invalid_request", "/action"},
		{"missing action", map[string]any{"record_id": rec}, 400, "invalid_request", "/action"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := e.follow(e.LiveKey, c.body)
			wantError(t, d, c.status, c.code)
			wantViolation(t, d, c.path)
		})
	}
}

// TestRule8UntypedDetails: details are provider-shaped JSON passed through unchanged, numbers
// included, whether stored at search time, looked up, or served again from the cache.
func TestRule8UntypedDetails(t *testing.T) {
	e := newCapEnv(t, nil)
	r := e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha"})
	rec := recordWithN(t, r, 1)

	t.Run("stored detail", func(t *testing.T) {
		d := e.follow(e.LiveKey, map[string]any{"record_id": rec, "action": "details"})
		wantOK(t, d)
		want := canonicalJSON(t, mustJSON(t, fakeStoredDetail(fakeItem{ID: "it-1", Title: "alpha #1", N: 1})))
		if got := canonicalJSON(t, rawField(t, d.Body, "detail")); got != want {
			t.Fatalf("stored detail changed on the way:\n got %s\nwant %s", got, want)
		}
	})
	lookupWant := fmt.Sprintf(`{"id":"it-1","views":%s,"ratio":0.25,"tags":["a","b"],"meta":null,"stats":{"by_year":[{"year":2024,"n":1}]}}`, fakeBigInt)
	first := e.follow(e.LiveKey, map[string]any{"record_id": rec, "action": "lookup"})
	wantOK(t, first)
	t.Run("looked-up detail", func(t *testing.T) {
		if got, want := canonicalJSON(t, rawField(t, first.Body, "detail")), canonicalJSON(t, []byte(lookupWant)); got != want {
			t.Fatalf("looked-up detail changed on the way:\n got %s\nwant %s", got, want)
		}
	})
	t.Run("cached repeat equals the first answer", func(t *testing.T) {
		again := e.follow(e.LiveKey, map[string]any{"record_id": rec, "action": "lookup"})
		wantOK(t, again)
		if again.JSON["cached"] != true {
			t.Fatalf("repeat not cached: %s", again.Body)
		}
		if got, want := canonicalJSON(t, rawField(t, again.Body, "detail")), canonicalJSON(t, rawField(t, first.Body, "detail")); got != want {
			t.Fatalf("the cached detail differs from the first answer:\n got %s\nwant %s", got, want)
		}
	})
}

func TestUnknownRecordAndActions(t *testing.T) {
	e := newCapEnv(t, nil)
	r := e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha"})
	t.Run("unknown record", func(t *testing.T) {
		d := e.follow(e.LiveKey, map[string]any{"record_id": "rec_0123456789abcdef", "action": "details"})
		wantError(t, d, 404, "record_unknown")
	})
	cases := []struct {
		name   string
		record string
		action string
	}{
		{"action the record does not offer", recordWithN(t, r, fakeLookupN), "details"},
		{"action the capability does not have", recordWithN(t, r, 1), "frobnicate"},
		{"action of another capability", recordWithN(t, e.exec(e.LiveKey, "test.single", map[string]any{"query": "a"}), 1), "lookup"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.live.Calls()
			d := e.follow(e.LiveKey, map[string]any{"record_id": c.record, "action": c.action})
			wantError(t, d, 400, "invalid_request")
			wantViolation(t, d, "/action")
			if e.live.Calls() != before {
				t.Fatal("a refused action reached the upstream")
			}
		})
	}
	t.Run("the record's own action works", func(t *testing.T) {
		wantOK(t, e.follow(e.LiveKey, map[string]any{"record_id": recordWithN(t, r, fakeLookupN), "action": "lookup"}))
	})
}

// TestOtherTenantIDsLikeUnknown: another tenant's search_id or record_id is answered exactly as
// one that never existed.
func TestOtherTenantIDsLikeUnknown(t *testing.T) {
	onBackends(t, func(t *testing.T, e *capEnv) {
		r := e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha"})
		sid, rec := searchID(t, r), recordWithN(t, r, 1)
		other, otherLive, _ := e.NewTenant("pro")
		const neverSearch, neverRecord = "srch_0123456789abcdef", "rec_0123456789abcdef"
		cases := []struct {
			name         string
			owned, never map[string]any
		}{
			{"more", map[string]any{"search_id": sid, "action": "more"}, map[string]any{"search_id": neverSearch, "action": "more"}},
			{"update", map[string]any{"search_id": sid, "action": "update", "params": map[string]any{"query": "x"}},
				map[string]any{"search_id": neverSearch, "action": "update", "params": map[string]any{"query": "x"}}},
			{"stored detail", map[string]any{"record_id": rec, "action": "details"}, map[string]any{"record_id": neverRecord, "action": "details"}},
			{"lookup", map[string]any{"record_id": rec, "action": "lookup"}, map[string]any{"record_id": neverRecord, "action": "lookup"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before := e.live.Calls()
				foreign := e.follow(otherLive, c.owned)
				never := e.follow(otherLive, c.never)
				if foreign.Status < 400 || foreign.Status != never.Status || foreign.ErrorCode() != never.ErrorCode() {
					t.Fatalf("another tenant's id: %d %s; never existed: %d %s", foreign.Status, foreign.Body, never.Status, never.Body)
				}
				fe, ne := foreign.JSON["error"].(map[string]any), never.JSON["error"].(map[string]any)
				if fe["message"] != ne["message"] || !reflect.DeepEqual(foreign.Violations(), never.Violations()) {
					t.Fatalf("the answers can be told apart:\n%s\n%s", foreign.Body, never.Body)
				}
				if e.live.Calls() != before {
					t.Fatal("another tenant's id reached the upstream")
				}
			})
		}
		if u := used(t, e.Env, other, tenants.ModeLive); u != 0 {
			t.Fatalf("the other tenant was charged %d", u)
		}
		// The owner's session is untouched.
		m := e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "more"})
		wantOK(t, m)
		if titles(m)[0] != "alpha #4" {
			t.Fatalf("the owner's session moved: %v", titles(m))
		}
	})
}

// TestSessionModeIsolation: a search made with the test key runs in the sandbox; continuing it
// with the live key of the same tenant must neither reach the live upstream nor charge the live
// balance (test-mode usage never counts against the live one, DESIGN.md section 6).
func TestSessionModeIsolation(t *testing.T) {
	e := newCapEnv(t, nil)
	r := e.exec(e.TestKey, "test.page", map[string]any{"query": "alpha"})
	wantOK(t, r)
	if e.sandbox.Calls() != 1 || e.live.Calls() != 0 {
		t.Fatalf("a test-key search reached live %d, sandbox %d", e.live.Calls(), e.sandbox.Calls())
	}
	sid, rec := searchID(t, r), recordWithN(t, r, 1)
	for _, body := range []map[string]any{
		{"search_id": sid, "action": "more"},
		{"search_id": sid, "action": "update", "params": map[string]any{"query": "beta"}},
		{"record_id": rec, "action": "lookup"},
	} {
		t.Run(fmt.Sprint(body["action"]), func(t *testing.T) {
			e.follow(e.LiveKey, body)
			if n := e.live.Calls(); n != 0 {
				t.Fatalf("a sandbox search continued with the live key reached the live upstream (%d calls)", n)
			}
			if u := used(t, e.Env, e.Tenant, tenants.ModeLive); u != 0 {
				t.Fatalf("a sandbox search continued with the live key charged the live balance %d", u)
			}
		})
	}
}

func TestSessionExpiry410(t *testing.T) {
	onBackends(t, func(t *testing.T, e *capEnv) {
		r := e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha"})
		sid, rec := searchID(t, r), recordWithN(t, r, 1)
		lookedUp := recordWithN(t, r, 2)
		wantOK(t, e.follow(e.LiveKey, map[string]any{"record_id": lookedUp, "action": "lookup"}))
		usedBefore, callsBefore := used(t, e.Env, e.Tenant, tenants.ModeLive), e.live.Calls()

		e.Sessions.SetClock(func() time.Time { return tenants.Now().Add(2 * time.Hour) }) // TTL is 1 h
		check := func(t *testing.T) {
			t.Helper()
			for _, c := range []struct {
				name string
				body map[string]any
			}{
				{"more", map[string]any{"search_id": sid, "action": "more"}},
				{"update", map[string]any{"search_id": sid, "action": "update", "params": map[string]any{"query": "beta"}}},
				{"stored detail", map[string]any{"record_id": rec, "action": "details"}},
				{"cached lookup", map[string]any{"record_id": lookedUp, "action": "lookup"}},
				{"fresh lookup", map[string]any{"record_id": rec, "action": "lookup"}},
			} {
				t.Run(c.name, func(t *testing.T) {
					env := wantError(t, e.follow(e.LiveKey, c.body), 410, "session_expired")
					if _, isRecord := c.body["record_id"]; isRecord && env["message"] != goneMessage {
						t.Fatalf("message %q, want %q", env["message"], goneMessage)
					}
				})
			}
			// Ids that never existed still answer as unknown, not as expired.
			wantError(t, e.follow(e.LiveKey, map[string]any{"search_id": "srch_0123456789abcdef", "action": "more"}), 404, "not_found")
			wantError(t, e.follow(e.LiveKey, map[string]any{"record_id": "rec_0123456789abcdef", "action": "details"}), 404, "record_unknown")
			if e.live.Calls() != callsBefore || used(t, e.Env, e.Tenant, tenants.ModeLive) != usedBefore {
				t.Fatal("an expired session reached the upstream or was charged")
			}
		}
		t.Run("after expiry", check)
		t.Run("after the sweep keeps tombstones", func(t *testing.T) {
			if _, err := e.Sessions.Sweep(t.Context()); err != nil {
				t.Fatal(err)
			}
			check(t)
		})
		t.Run("another tenant still sees unknown", func(t *testing.T) {
			_, otherLive, _ := e.NewTenant("pro")
			wantError(t, e.follow(otherLive, map[string]any{"search_id": sid, "action": "more"}), 404, "not_found")
			wantError(t, e.follow(otherLive, map[string]any{"record_id": rec, "action": "details"}), 404, "record_unknown")
		})
	})
}

func TestUnknownCapability(t *testing.T) {
	e := newCapEnv(t, nil)
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/v1/capabilities/test.nope/execute"},
		{http.MethodGet, "/v1/capabilities/test.nope"},
		{http.MethodPost, "/v1/capabilities/BOOKS.SEARCH/execute"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			var body any
			if c.method == http.MethodPost {
				body = map[string]any{"query": "alpha"}
			}
			wantError(t, e.Do(c.method, c.path, e.LiveKey, body), 404, "capability_unknown")
		})
	}
}

func TestCapabilityDisabledByPlan(t *testing.T) {
	e := newCapEnv(t, nil)
	_, freeKey, _ := e.NewTenant("free") // typical<=1
	_, listKey, _ := newPlanTenant(t, e.Env, 1000, "test.offset,test.local")
	cases := []struct {
		name, key, id string
		enabled       bool
	}{
		{"free: typical 2", freeKey, "test.page", false},
		{"free: typical 3", freeKey, "test.local", false},
		{"free: typical 1", freeKey, "test.offset", true},
		{"free: typical 0", freeKey, "test.single", true},
		{"list: listed", listKey, "test.offset", true},
		{"list: listed local", listKey, "test.local", true},
		{"list: not listed", listKey, "test.page", false},
		{"list: not listed, free", listKey, "test.single", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cat := catalogEntry(t, e.Env, c.key, c.id)
			if cat["enabled"] != c.enabled {
				t.Fatalf("catalog enabled %v, want %v", cat["enabled"], c.enabled)
			}
			before := e.live.Calls()
			r := e.exec(c.key, c.id, map[string]any{"query": "alpha"})
			if c.enabled {
				wantOK(t, r)
				return
			}
			wantError(t, r, 403, "capability_disabled")
			if e.live.Calls() != before {
				t.Fatal("a disabled capability reached the upstream")
			}
		})
	}
}

// catalogEntry is the catalog's entry of a capability for the key.
func catalogEntry(t *testing.T, e *gatewaytest.Env, key, id string) map[string]any {
	t.Helper()
	r := e.Do(http.MethodGet, "/v1/catalog", key, nil)
	wantOK(t, r)
	for _, c := range r.JSON["capabilities"].([]any) {
		m := c.(map[string]any)
		if m["id"] == id {
			return m
		}
	}
	t.Fatalf("%s not in the catalog", id)
	return nil
}

func TestCatalogAvailability(t *testing.T) {
	e := newCapEnv(t, nil)
	cases := []struct {
		name, key, id string
		available     bool
		reason        string // a fragment the unavailable_reason must hold
	}{
		{"live, configured provider", e.LiveKey, "test.page", true, ""},
		{"live, provider without URL", e.LiveKey, "test.unconfigured", false, "PROVIDER_FAKEBARE_URL"},
		{"test, sandboxed provider", e.TestKey, "test.page", true, ""},
		{"test, provider without sandbox", e.TestKey, "test.unconfigured", false, "sandbox"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cat := catalogEntry(t, e.Env, c.key, c.id)
			reason, _ := cat["unavailable_reason"].(string)
			if cat["available"] != c.available || cat["enabled"] != true || (c.available != (reason == "")) || !strings.Contains(reason, c.reason) {
				t.Fatalf("catalog entry %v", cat)
			}
			ins := e.Do(http.MethodGet, "/v1/capabilities/"+c.id, c.key, nil)
			wantOK(t, ins)
			if ins.JSON["available"] != c.available {
				t.Fatalf("inspect available %v, catalog %v", ins.JSON["available"], c.available)
			}
			r := e.exec(c.key, c.id, map[string]any{"query": "alpha"})
			if c.available {
				wantOK(t, r)
				return
			}
			wantError(t, r, 503, "capability_unavailable")
		})
	}
	if u := used(t, e.Env, e.Tenant, tenants.ModeLive); u != 2 {
		t.Fatalf("live used %d, want 2 (one test.page search; nothing for the unavailable one)", u)
	}
}

func TestCreditsExhausted(t *testing.T) {
	onBackends(t, func(t *testing.T, e *capEnv) {
		tn, key, _ := newPlanTenant(t, e.Env, 5, "all")
		steps := []struct {
			name   string
			id     string
			status int
			used   int64
		}{
			{"first search", "test.page", 200, 2},
			{"second search", "test.page", 200, 4},
			{"over the cap", "test.page", 402, 4},
			{"a cheaper call still fits", "test.offset", 200, 5},
			{"cap reached", "test.offset", 402, 5},
			{"free calls still run", "test.single", 200, 5},
		}
		var sid string
		for _, s := range steps {
			r := e.exec(key, s.id, map[string]any{"query": "alpha"})
			if s.status == 200 {
				wantOK(t, r)
				if balanceUsed(r) != s.used {
					t.Fatalf("%s: balance.used %d, want %d", s.name, balanceUsed(r), s.used)
				}
				if s.id == "test.page" {
					sid = searchID(t, r)
				}
			} else {
				env := wantError(t, r, s.status, "credits_exhausted")
				if env["retryable"] != false {
					t.Fatalf("credits_exhausted is retryable: %s", r.Body)
				}
			}
			if u := used(t, e.Env, tn, tenants.ModeLive); u != s.used {
				t.Fatalf("%s: used %d, want %d", s.name, u, s.used)
			}
		}
		before := e.live.Calls()
		wantError(t, e.follow(key, map[string]any{"search_id": sid, "action": "more"}), 402, "credits_exhausted")
		wantError(t, e.follow(key, map[string]any{"search_id": sid, "action": "update", "params": map[string]any{"query": "b"}}), 402, "credits_exhausted")
		if e.live.Calls() != before {
			t.Fatal("a call without credits reached the upstream")
		}
		if u, sum := used(t, e.Env, tn, tenants.ModeLive), ledgerSum(t, e.Env, tn, tenants.ModeLive); u != 5 || sum != 5 {
			t.Fatalf("used %d, ledger %d, want 5", u, sum)
		}
	})
}

// TestRefundOnUpstreamFailure: a failed upstream call gives the reservation back.
func TestRefundOnUpstreamFailure(t *testing.T) {
	onBackends(t, func(t *testing.T, e *capEnv) {
		r := e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha"})
		sid, rec := searchID(t, r), recordWithN(t, r, 1)
		usedBefore := used(t, e.Env, e.Tenant, tenants.ModeLive)
		e.live.failing.Store(true)
		// Three failures open the provider's breaker (gatewaytest sets 3): no more calls after them.
		for _, c := range []struct {
			name string
			do   func() *gatewaytest.Response
		}{
			{"execute", func() *gatewaytest.Response { return e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha"}) }},
			{"more", func() *gatewaytest.Response {
				return e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "more"})
			}},
			{"lookup", func() *gatewaytest.Response {
				return e.follow(e.LiveKey, map[string]any{"record_id": rec, "action": "lookup"})
			}},
		} {
			t.Run(c.name, func(t *testing.T) {
				env := wantError(t, c.do(), 502, "provider_error")
				if env["retryable"] != true {
					t.Fatalf("an upstream 5xx is not retryable: %v", env)
				}
				if u := used(t, e.Env, e.Tenant, tenants.ModeLive); u != usedBefore {
					t.Fatalf("used %d after a failed call, want %d", u, usedBefore)
				}
				if sum := ledgerSum(t, e.Env, e.Tenant, tenants.ModeLive); sum != usedBefore {
					t.Fatalf("ledger %d after a failed call, want %d", sum, usedBefore)
				}
			})
		}
		e.live.failing.Store(false)
		// The failed more left the session where it was.
		var m *gatewaytest.Response
		for i := 0; i < 20; i++ { // wait out the breaker's 300 ms pause
			m = e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "more"})
			if m.ErrorCode() != "service_unavailable" {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		wantOK(t, m)
		if titles(m)[0] != "alpha #4" {
			t.Fatalf("more after a failed more: %v", titles(m))
		}
	})
}

// TestConcurrentMore: concurrent more calls on one search each get their own next page, each is
// charged once, and the ledger still equals used.
func TestConcurrentMore(t *testing.T) {
	onBackends(t, func(t *testing.T, e *capEnv) {
		r := e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha", "num": 2})
		sid := searchID(t, r)
		const n = 3 // pages 2, 3 and 4 remain: items 3-4, 5-6 and 7
		var wg sync.WaitGroup
		answers := make([]*gatewaytest.Response, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i] = e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "more"})
			}()
		}
		wg.Wait()
		var got []string
		var charges int64
		for _, a := range answers {
			if a.Status != 200 {
				t.Fatalf("a concurrent more failed: %d %s", a.Status, a.Body)
			}
			got = append(got, titles(a)...)
			charges += charged(a)
		}
		slices.Sort(got)
		if want := []string{"alpha #3", "alpha #4", "alpha #5", "alpha #6", "alpha #7"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("concurrent pages hold %v, want each of %v once", got, want)
		}
		u, sum := used(t, e.Env, e.Tenant, tenants.ModeLive), ledgerSum(t, e.Env, e.Tenant, tenants.ModeLive)
		if charges != 2*n || u != 2+charges || sum != u {
			t.Fatalf("charged %d in total, used %d, ledger %d; want %d, %d, %d", charges, u, sum, 2*n, 2+2*n, 2+2*n)
		}
		wantError(t, e.follow(e.LiveKey, map[string]any{"search_id": sid, "action": "more"}), 400, "invalid_request")
	})
}

// TestChargesAgreeWithLedger: every response's balance.used is the running sum of
// charged_credits, and the store's used equals the ledger's sum, in both modes, separately.
func TestChargesAgreeWithLedger(t *testing.T) {
	onBackends(t, func(t *testing.T, e *capEnv) {
		for _, mode := range []struct {
			name, key, mode, other string
		}{
			{"live", e.LiveKey, tenants.ModeLive, tenants.ModeTest},
			{"test", e.TestKey, tenants.ModeTest, tenants.ModeLive},
		} {
			t.Run(mode.name, func(t *testing.T) {
				otherBefore := used(t, e.Env, e.Tenant, mode.other)
				sum := used(t, e.Env, e.Tenant, mode.mode)
				step := func(name string, r *gatewaytest.Response, want int64) *gatewaytest.Response {
					t.Helper()
					wantOK(t, r)
					if charged(r) != want {
						t.Fatalf("%s: charged %d, want %d", name, charged(r), want)
					}
					sum += charged(r)
					if balanceUsed(r) != sum {
						t.Fatalf("%s: balance.used %d, running sum of charged_credits %d", name, balanceUsed(r), sum)
					}
					return r
				}
				p := step("execute", e.exec(mode.key, "test.page", map[string]any{"query": "alpha"}), 2)
				sid := searchID(t, p)
				step("more", e.follow(mode.key, map[string]any{"search_id": sid, "action": "more"}), 2)
				u := step("update", e.follow(mode.key, map[string]any{"search_id": sid, "action": "update", "params": map[string]any{"query": "beta"}}), 2)
				rec := recordWithN(t, u, 1)
				step("stored detail", e.follow(mode.key, map[string]any{"record_id": rec, "action": "details"}), 0)
				step("lookup", e.follow(mode.key, map[string]any{"record_id": rec, "action": "lookup"}), lookupCost)
				step("cached lookup", e.follow(mode.key, map[string]any{"record_id": rec, "action": "lookup"}), 0)
				l := step("local execute", e.exec(mode.key, "test.local", map[string]any{"query": "alpha"}), 3)
				step("local more", e.follow(mode.key, map[string]any{"search_id": searchID(t, l), "action": "more"}), 0)
				step("offset", e.exec(mode.key, "test.offset", map[string]any{"query": "alpha"}), 1)
				step("free single", e.exec(mode.key, "test.single", map[string]any{"query": "alpha"}), 0)
				if got := used(t, e.Env, e.Tenant, mode.mode); got != sum {
					t.Fatalf("store used %d, charged in total %d", got, sum)
				}
				if ledger := ledgerSum(t, e.Env, e.Tenant, mode.mode); ledger != sum {
					t.Fatalf("ledger sum %d, used %d", ledger, sum)
				}
				if got := used(t, e.Env, e.Tenant, mode.other); got != otherBefore {
					t.Fatalf("%s calls moved the %s balance: %d → %d", mode.mode, mode.other, otherBefore, got)
				}
			})
		}
		if e.live.Calls() == 0 || e.sandbox.Calls() == 0 {
			t.Fatalf("live %d and sandbox %d calls: each key must reach its own upstream", e.live.Calls(), e.sandbox.Calls())
		}
	})
}

// TestNextExampleValidNow follows next.example from every execute until it stops offering more:
// each example must be accepted at once.
func TestNextExampleValidNow(t *testing.T) {
	e := newCapEnv(t, nil)
	cases := []struct {
		id    string
		body  map[string]any
		first string // the action of the first example
	}{
		{"test.page", map[string]any{"query": "alpha", "num": 3}, "more"},
		{"test.page", map[string]any{"query": "sparse", "num": 3}, "more"},
		{"test.offset", map[string]any{"query": "alpha", "num": 5}, "more"},
		{"test.token", map[string]any{"query": "alpha", "num": 4}, "more"},
		{"test.local", map[string]any{"query": "alpha", "num": 2}, "more"},
		{"test.rules", map[string]any{"query": "alpha", "num": 5}, "more"},
		{"test.single", map[string]any{"query": "alpha"}, "details"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %v", c.id, c.body["query"]), func(t *testing.T) {
			r := e.exec(e.LiveKey, c.id, c.body)
			wantOK(t, r)
			if ex := nextExample(t, r); ex["action"] != c.first {
				t.Fatalf("first next.example %v, want action %s", ex, c.first)
			}
			for i := 0; ; i++ {
				if i == 10 {
					t.Fatal("still offering more after 10 pages")
				}
				ex := nextExample(t, r)
				if nextOf(r)["url"] != "/v1/follow-up" {
					t.Fatalf("next.url %v", nextOf(r)["url"])
				}
				f := e.follow(e.LiveKey, ex)
				if f.Status != 200 {
					t.Fatalf("next.example %v was refused: %d %s", ex, f.Status, f.Body)
				}
				if ex["action"] != "more" {
					return // a record action or update: valid, and the walk is over
				}
				r = f
			}
		})
	}
	t.Run("null without follow-ups", func(t *testing.T) {
		r := e.exec(e.LiveKey, "test.bare", map[string]any{"query": "alpha"})
		wantOK(t, r)
		n := nextOf(r)
		if n["example"] != nil || len(anyStrings(n["actions"])) != 0 {
			t.Fatalf("a capability without follow-ups offers %v", n)
		}
	})
	t.Run("update example when nothing else is left", func(t *testing.T) {
		r := e.exec(e.LiveKey, "test.page", map[string]any{"query": "none"})
		wantOK(t, r)
		ex := nextExample(t, r)
		if hasMore(r) || ex["action"] != "update" || ex["search_id"] != searchID(t, r) {
			t.Fatalf("next.example of an empty last page: %v", ex)
		}
		wantOK(t, e.follow(e.LiveKey, ex))
	})
}

func TestInspectFollowUps(t *testing.T) {
	e := newCapEnv(t, nil)
	type fu struct{ action, scope string }
	cases := []struct {
		id     string
		want   []fu
		params bool // update carries params_schema
	}{
		{"test.page", []fu{{"more", "search"}, {"update", "search"}, {"details", "record"}, {"lookup", "record"}}, true},
		{"test.local", []fu{{"more", "search"}, {"update", "search"}, {"details", "record"}, {"lookup", "record"}}, true},
		{"test.single", []fu{{"details", "record"}}, false},
		{"test.bare", nil, false},
		{"test.rules", []fu{{"more", "search"}, {"update", "search"}, {"details", "record"}}, true},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			r := e.Do(http.MethodGet, "/v1/capabilities/"+c.id, e.LiveKey, nil)
			wantOK(t, r)
			var got []fu
			for _, x := range r.JSON["follow_ups"].([]any) {
				m := x.(map[string]any)
				got = append(got, fu{m["action"].(string), m["scope"].(string)})
				if d, _ := m["description"].(string); d == "" {
					t.Fatalf("follow-up %v without description", m)
				}
				ps, hasPS := m["params_schema"].(map[string]any)
				if m["action"] != "update" {
					if hasPS {
						t.Fatalf("%s carries params_schema", m["action"])
					}
					continue
				}
				if !hasPS {
					t.Fatalf("update without params_schema: %v", m)
				}
				// Any subset of the request fields: every field, none required.
				props, _ := ps["properties"].(map[string]any)
				for _, f := range []string{"query", "num"} {
					if _, ok := props[f]; !ok {
						t.Fatalf("params_schema lacks %s: %v", f, ps)
					}
				}
				if _, req := ps["required"]; req {
					t.Fatalf("params_schema requires fields: %v", ps)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("follow_ups %v, want %v", got, c.want)
			}
			ex := r.JSON["execute"].(map[string]any)
			if ex["method"] != "POST" || ex["url"] != "/v1/capabilities/"+c.id+"/execute" {
				t.Fatalf("execute %v", ex)
			}
			for _, x := range r.JSON["examples"].([]any) {
				wantOK(t, e.exec(e.LiveKey, c.id, x.(map[string]any)["body"]))
			}
		})
	}
	t.Run("local more is described as free", func(t *testing.T) {
		r := e.Do(http.MethodGet, "/v1/capabilities/test.local", e.LiveKey, nil)
		d := r.JSON["follow_ups"].([]any)[0].(map[string]any)["description"].(string)
		if !strings.Contains(d, "free") {
			t.Fatalf("local more description %q", d)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

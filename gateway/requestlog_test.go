package gateway_test

// The request log and the management read API (issue 34): errors and successes both land in
// GET /v1/requests with status, code and latency; only a manage key reads it, and only its own
// tenant's calls.

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// manageKey issues a live key with the manage permission for a tenant.
func manageKey(t *testing.T, e *gatewaytest.Env, tenantID string) (*tenants.APIKey, string) {
	t.Helper()
	ctx := context.Background()
	k, raw, err := e.Store.CreateKey(ctx, tenantID, tenants.ModeLive, "manage")
	if err != nil {
		t.Fatal(err)
	}
	if k, err = e.Store.SetKeyManage(ctx, k.ID, tenantID, true); err != nil || !k.Manage {
		t.Fatalf("manage not set: %v %+v", err, k)
	}
	return k, raw
}

func flushLog(t *testing.T, e *gatewaytest.Env) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.RequestLog.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// entries lists the request log as GET /v1/requests answers it (one page).
func entries(t *testing.T, e *gatewaytest.Env, key, query string) ([]map[string]any, string) {
	t.Helper()
	r := e.Do(http.MethodGet, "/v1/requests"+query, key, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /v1/requests%s: %d %s", query, r.Status, r.Body)
	}
	var out []map[string]any
	for _, x := range r.JSON["requests"].([]any) {
		out = append(out, x.(map[string]any))
	}
	next, _ := r.JSON["next_cursor"].(string)
	return out, next
}

func byRequestID(es []map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, e := range es {
		out[e["request_id"].(string)] = e
	}
	return out
}

func TestRequestLogShowsErrorsAndSuccesses(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newCapEnv(t, db)
		mk, mraw := manageKey(t, e.Env, e.Tenant.ID)
		calls := []struct {
			name       string
			capability string
			body       any
			status     int
			code       string
		}{
			{"200", "test.page", map[string]any{"query": "alpha"}, 200, ""},
			{"400", "test.page", map[string]any{"query": "alpha", "bogus": 1}, 400, "invalid_request"},
			{"503", "test.unconfigured", map[string]any{"query": "alpha"}, 503, "capability_unavailable"},
		}
		rids := map[string]string{}
		for _, c := range calls {
			r := e.exec(e.LiveKey, c.capability, c.body)
			if r.Status != c.status || r.ErrorCode() != c.code {
				t.Fatalf("%s: got %d %q: %s", c.name, r.Status, r.ErrorCode(), r.Body)
			}
			rids[c.name] = r.Header.Get("X-Request-Id")
		}
		flushLog(t, e.Env)

		got, _ := entries(t, e.Env, mraw, "")
		idx := byRequestID(got)
		for _, c := range calls {
			en, ok := idx[rids[c.name]]
			if !ok {
				t.Fatalf("%s (%s) is not in the request log: %v", c.name, rids[c.name], got)
			}
			if int(en["status"].(float64)) != c.status || (en["error_code"] == nil) != (c.code == "") ||
				(c.code != "" && en["error_code"] != c.code) {
				t.Errorf("%s: entry %v", c.name, en)
			}
			if c.code != "" && en["error_message"] == "" {
				t.Errorf("%s: no error message: %v", c.name, en)
			}
			if lat := en["latency_ms"].(float64); lat <= 0 {
				t.Errorf("%s: latency %v", c.name, lat)
			}
			if en["capability"] != c.capability || en["mode"] != "live" || en["via"] != "api" || en["method"] != "POST" ||
				en["route"] != "/v1/capabilities/:id/execute" {
				t.Errorf("%s: entry %v", c.name, en)
			}
		}
		if ok := idx[rids["200"]]; ok["credits"].(float64) < 1 {
			t.Errorf("the 200 charged nothing: %v", ok)
		}
		// The GET /v1/requests call itself is not in its own answer (it is logged once answered).
		for _, en := range got {
			if en["route"] == "/v1/requests" && en["key_id"] != mk.ID {
				t.Errorf("a management read under another key: %v", en)
			}
		}

		// Filters.
		filters := []struct {
			query string
			want  []string
		}{
			{"?status=4xx", []string{"400"}},
			{"?status=503", []string{"503"}},
			{"?error_code=capability_unavailable", []string{"503"}},
			{"?capability=test.unconfigured", []string{"503"}},
			{"?capability=test.page&status=200", []string{"200"}},
		}
		for _, f := range filters {
			es, _ := entries(t, e.Env, mraw, f.query)
			var names []string
			for _, en := range es {
				for n, rid := range rids {
					if en["request_id"] == rid {
						names = append(names, n)
					}
				}
			}
			if len(es) != len(f.want) || strings.Join(names, ",") != strings.Join(f.want, ",") {
				t.Errorf("%s: got %v", f.query, es)
			}
		}
		keyID := idx[rids["200"]]["key_id"].(string)
		if es, _ := entries(t, e.Env, mraw, "?key="+keyID); len(es) != 3 {
			t.Errorf("key filter: %d entries", len(es))
		}
		future := url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
		if es, _ := entries(t, e.Env, mraw, "?from="+future); len(es) != 0 {
			t.Errorf("from in the future: %v", es)
		}

		// Cursor pagination walks every entry once, newest first.
		flushLog(t, e.Env)
		all, _ := entries(t, e.Env, mraw, "?limit=100")
		var walked []string
		cursor := ""
		for range 100 {
			q := "?limit=2"
			if cursor != "" {
				q += "&cursor=" + url.QueryEscape(cursor)
			}
			page, next := entries(t, e.Env, mraw, q+"&to="+url.QueryEscape(time.Now().Add(time.Minute).UTC().Format(time.RFC3339Nano)))
			for _, en := range page {
				walked = append(walked, en["request_id"].(string)+en["route"].(string))
			}
			if next == "" {
				break
			}
			cursor = next
		}
		// Pages are read after all was: the reads of the walk were logged in between, and
		// are newer than every entry all holds; the walk covers all's entries in order.
		var want []string
		for _, en := range all {
			want = append(want, en["request_id"].(string)+en["route"].(string))
		}
		if got := strings.Join(walked[len(walked)-len(want):], " "); got != strings.Join(want, " ") {
			t.Errorf("cursor walk:\n got %v\nwant %v", walked, want)
		}

		// Lookup by request id.
		r := e.Do(http.MethodGet, "/v1/requests/"+rids["400"], mraw, nil)
		if r.Status != 200 || len(r.JSON["requests"].([]any)) != 1 ||
			r.JSON["requests"].([]any)[0].(map[string]any)["error_code"] != "invalid_request" {
			t.Fatalf("lookup: %d %s", r.Status, r.Body)
		}
		if r := e.Do(http.MethodGet, "/v1/requests/req_nosuchrequest", mraw, nil); r.Status != 404 || r.ErrorCode() != "not_found" {
			t.Fatalf("unknown id: %d %s", r.Status, r.Body)
		}

		// Usage by capability, JSON and CSV.
		u := e.Do(http.MethodGet, "/v1/usage?group_by=capability", mraw, nil)
		if u.Status != 200 {
			t.Fatalf("usage: %d %s", u.Status, u.Body)
		}
		rows := map[string]map[string]any{}
		for _, x := range u.JSON["rows"].([]any) {
			rows[x.(map[string]any)["group"].(string)] = x.(map[string]any)
		}
		if rows["test.page"]["calls"] != 2.0 || rows["test.page"]["errors"] != 1.0 || rows["test.unconfigured"]["errors"] != 1.0 {
			t.Errorf("usage rows: %v", rows)
		}
		for _, h := range []map[string]string{{"Accept": "text/csv"}, nil} {
			path := "/v1/usage?group_by=day"
			if h == nil {
				path += "&format=csv"
			}
			c := e.DoHeaders(http.MethodGet, path, mraw, nil, h)
			if c.Status != 200 || !strings.HasPrefix(c.Header.Get("Content-Type"), "text/csv") {
				t.Fatalf("csv: %d %s %s", c.Status, c.Header.Get("Content-Type"), c.Body)
			}
			recs, err := csv.NewReader(strings.NewReader(string(c.Body))).ReadAll()
			if err != nil || len(recs) != 2 || recs[0][0] != "day" || recs[1][0] != time.Now().UTC().Format(time.DateOnly) {
				t.Fatalf("csv body %v %v", recs, err)
			}
		}
	})
}

func TestManagementRoutesNeedManage(t *testing.T) {
	e := newCapEnv(t, nil)
	_, mraw := manageKey(t, e.Env, e.Tenant.ID)
	routes := []string{"/v1/requests", "/v1/requests?status=4xx", "/v1/requests/req_abc", "/v1/usage", "/v1/usage?format=csv"}
	for _, key := range []struct{ name, raw string }{{"live", e.LiveKey}, {"test", e.TestKey}} {
		for _, path := range routes {
			r := e.Do(http.MethodGet, path, key.raw, nil)
			if r.Status != http.StatusForbidden || r.ErrorCode() != "capability_disabled" {
				t.Errorf("%s key, %s: %d %s", key.name, path, r.Status, r.Body)
			}
		}
	}
	for _, path := range routes {
		if r := e.Do(http.MethodGet, path, "", nil); r.Status != http.StatusUnauthorized {
			t.Errorf("no key, %s: %d", path, r.Status)
		}
		if r := e.Do(http.MethodGet, path, mraw, nil); r.Status == http.StatusForbidden || r.Status == http.StatusUnauthorized {
			t.Errorf("manage key, %s: %d %s", path, r.Status, r.Body)
		}
	}
	// A refused management call is itself in the log, with its code.
	flushLog(t, e.Env)
	es, _ := entries(t, e.Env, mraw, "?status=403&limit=100")
	if len(es) != 2*len(routes) || es[0]["error_code"] != "capability_disabled" {
		t.Fatalf("403s logged: %d %v", len(es), es)
	}
}

func TestRequestLogIsTenantIsolated(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		e := newCapEnv(t, db)
		_, aManage := manageKey(t, e.Env, e.Tenant.ID)
		b, bLive, _ := e.NewTenant("pro")
		_, bManage := manageKey(t, e.Env, b.ID)
		ra := e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha"})
		rb := e.exec(bLive, "test.page", map[string]any{"query": "beta", "bogus": true})
		flushLog(t, e.Env)
		aRID, bRID := ra.Header.Get("X-Request-Id"), rb.Header.Get("X-Request-Id")
		aAll, _ := entries(t, e.Env, aManage, "?limit=100")
		bAll, _ := entries(t, e.Env, bManage, "?limit=100")
		if _, ok := byRequestID(aAll)[bRID]; ok {
			t.Fatal("tenant A sees B's call")
		}
		if _, ok := byRequestID(bAll)[aRID]; ok {
			t.Fatal("tenant B sees A's call")
		}
		if _, ok := byRequestID(bAll)[bRID]; !ok {
			t.Fatal("tenant B does not see its own call")
		}
		aKeyID := byRequestID(aAll)[aRID]["key_id"].(string)
		if es, _ := entries(t, e.Env, bManage, "?key="+aKeyID); len(es) != 0 {
			t.Fatalf("B filters by A's key: %v", es)
		}
		if r := e.Do(http.MethodGet, "/v1/requests/"+aRID, bManage, nil); r.Status != 404 {
			t.Fatalf("B looks up A's request id: %d %s", r.Status, r.Body)
		}
		u := e.Do(http.MethodGet, "/v1/usage?group_by=key", bManage, nil)
		for _, x := range u.JSON["rows"].([]any) {
			if x.(map[string]any)["group"] == aKeyID {
				t.Fatalf("B's usage lists A's key: %s", u.Body)
			}
		}
	})
}

func TestManagementBadQueries(t *testing.T) {
	e := newCapEnv(t, nil)
	_, mraw := manageKey(t, e.Env, e.Tenant.ID)
	cases := []struct{ path, violation string }{
		{"/v1/requests?status=abc", "status"},
		{"/v1/requests?status=6xx", "status"},
		{"/v1/requests?status=99", "status"},
		{"/v1/requests?limit=0", "limit"},
		{"/v1/requests?limit=101", "limit"},
		{"/v1/requests?cursor=%00%ff", "cursor"},
		{"/v1/requests?cursor=bm90LWEtY3Vyc29y", "cursor"},
		{"/v1/requests?from=yesterday", "from"},
		{"/v1/requests?key=" + strings.Repeat("k", 201), "key"},
		{"/v1/requests/bad%20id", "request_id"},
		{"/v1/usage?group_by=week", "group_by"},
		{"/v1/usage?format=xml", "format"},
		{"/v1/usage?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "from"},
		{"/v1/usage?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z", "from"},
	}
	for _, c := range cases {
		r := e.Do(http.MethodGet, c.path, mraw, nil)
		if r.Status != 400 || r.ErrorCode() != "invalid_request" || strings.Join(r.Violations(), ",") != c.violation {
			t.Errorf("%s: %d %v %s", c.path, r.Status, r.Violations(), r.Body)
		}
	}
	// A NUL byte or invalid UTF-8 in a filter matches nothing (and is no store error).
	if es, _ := entries(t, e.Env, mraw, "?capability=%00&error_code=%ff"); len(es) != 0 {
		t.Fatalf("%v", es)
	}
}

// TestRequestLogRecordsMCP: an MCP tool call logs its /mcp request (via mcp, the JSON-RPC method)
// and the /v1 call it dispatched (via mcp, with the capability) under one request id.
func TestRequestLogRecordsMCP(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	_, mraw := manageKey(t, e, e.Tenant.ID)
	cs, err := mcpSession(t, e, e.TestKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "books.search", Arguments: map[string]any{"query": "dune"}}); err != nil {
		t.Fatal(err)
	}
	flushLog(t, e)
	es, _ := entries(t, e, mraw, "?capability=books.search")
	if len(es) != 1 || es[0]["via"] != "mcp" || es[0]["route"] != "/v1/capabilities/:id/execute" || es[0]["mode"] != "test" ||
		es[0]["status"] != 200.0 || es[0]["action"] != "execute" {
		t.Fatalf("dispatched call: %v", es)
	}
	r := e.Do(http.MethodGet, "/v1/requests/"+es[0]["request_id"].(string), mraw, nil)
	var routes []string
	for _, x := range r.JSON["requests"].([]any) {
		m := x.(map[string]any)
		routes = append(routes, m["route"].(string)+" "+m["action"].(string))
	}
	if strings.Join(routes, ",") != "/v1/capabilities/:id/execute execute,/mcp tools/call" {
		t.Fatalf("entries of the tool call's request id: %v", routes)
	}
}

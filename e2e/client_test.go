package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/e2e/client"
)

// newClient is the generated client for a key, every answer checked against the document.
func (in *instance) newClient(t *testing.T, key string) *client.ClientWithResponses {
	t.Helper()
	hc := &http.Client{Timeout: 60 * time.Second, Transport: in.contractTransport(t)}
	c, err := client.NewClientWithResponses(in.Base, client.WithHTTPClient(hc),
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			if key != "" {
				r.Header.Set("Authorization", "Bearer "+key)
			}
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// wantEnvelope checks a typed error envelope and its status.
func wantEnvelope(t *testing.T, what string, status int, hr *http.Response, env *client.ErrorEnvelope, code client.ErrorBodyCode) *client.ErrorBody {
	t.Helper()
	if hr.StatusCode != status {
		t.Fatalf("%s: status %d, want %d", what, hr.StatusCode, status)
	}
	if env == nil {
		t.Fatalf("%s: the %d answer did not decode into the typed error envelope", what, status)
	}
	if env.Error.Code != code {
		t.Errorf("%s: error.code %s, want %s", what, env.Error.Code, code)
	}
	if env.Error.Message == "" || env.Error.RequestId == nil || *env.Error.RequestId != hr.Header.Get("X-Request-Id") {
		t.Errorf("%s: envelope %+v, X-Request-Id %q", what, env.Error, hr.Header.Get("X-Request-Id"))
	}
	return &env.Error
}

// TestGeneratedClient drives the real binary only through the Go client generated from the
// document (e2e/client): discovery, a search with more, update and details, sharpen, account,
// projects with durable request ids, and the typed error envelopes of 400 (with violations),
// 401, 402, 404, 410 and 429. Every answer is also checked against the document.
func TestGeneratedClient(t *testing.T) {
	d := newDeployment(t, "sqlite")
	in := d.serve(t)
	tk := d.newTenant(t, "pro")
	ctx := context.Background()
	c := in.newClient(t, tk.Test)

	t.Run("catalog and inspect", func(t *testing.T) {
		cat, err := c.GetCatalogWithResponse(ctx)
		if err != nil || cat.JSON200 == nil {
			t.Fatalf("catalog: %v %d %s", err, cat.StatusCode(), cat.Body)
		}
		found := false
		for _, cp := range cat.JSON200.Capabilities {
			found = found || cp.Id == "books.search"
		}
		if !found || cat.JSON200.Instructions == "" {
			t.Errorf("catalog without books.search or instructions: %+v", cat.JSON200)
		}
		insp, err := c.InspectCapabilityWithResponse(ctx, "books.search")
		if err != nil || insp.JSON200 == nil {
			t.Fatalf("inspect: %v %d %s", err, insp.StatusCode(), insp.Body)
		}
		if insp.JSON200.Id != "books.search" || insp.JSON200.Execute.Method != "POST" || len(insp.JSON200.Examples) == 0 {
			t.Errorf("inspect: %+v", insp.JSON200)
		}
	})

	var recordID string
	t.Run("execute, more, update, details", func(t *testing.T) {
		ex, err := c.ExecuteBooksSearchWithResponse(ctx, &client.ExecuteBooksSearchParams{}, client.RequestBooksSearch{Query: ptr("the lord of the rings"), Num: ptr(2)})
		if err != nil || ex.JSON200 == nil {
			t.Fatalf("execute: %v %d %s", err, ex.StatusCode(), ex.Body)
		}
		r := ex.JSON200
		if r.Capability != "books.search" || len(r.Results) == 0 || r.ResultCount != len(r.Results) {
			t.Fatalf("execute: %+v", r)
		}
		recordID = r.Results[0].RecordId
		if r.Results[0].Title == "" || !strings.HasPrefix(recordID, "rec_") {
			t.Errorf("first record %+v", r.Results[0])
		}
		if r.HasMore {
			more, err := c.FollowUpWithResponse(ctx, &client.FollowUpParams{}, client.FollowUpRequest{Action: "more", SearchId: &r.SearchId})
			if err != nil || more.JSON200 == nil {
				t.Fatalf("more: %v %d %s", err, more.StatusCode(), more.Body)
			}
			page, err := more.JSON200.AsExecuteResponse()
			if err != nil || page.SearchId != r.SearchId {
				t.Errorf("more: %v %+v", err, page)
			}
		}
		up, err := c.FollowUpWithResponse(ctx, &client.FollowUpParams{}, client.FollowUpRequest{Action: "update", SearchId: &r.SearchId,
			Params: &map[string]interface{}{"query": "dune"}})
		if err != nil || up.JSON200 == nil {
			t.Fatalf("update: %v %d %s", err, up.StatusCode(), up.Body)
		}
		if page, err := up.JSON200.AsExecuteResponse(); err != nil || page.SearchId != r.SearchId {
			t.Errorf("update keeps the search id: %v %+v", err, page)
		}
		if len(r.RecordActions) == 0 {
			t.Fatal("books.search lists no record action")
		}
		det, err := c.FollowUpWithResponse(ctx, &client.FollowUpParams{}, client.FollowUpRequest{Action: r.RecordActions[0], RecordId: &recordID})
		if err != nil || det.JSON200 == nil {
			t.Fatalf("details: %v %d %s", err, det.StatusCode(), det.Body)
		}
		rec, err := det.JSON200.AsRecordFollowUpResponse()
		if err != nil || rec.RecordId != recordID || rec.Action != r.RecordActions[0] || rec.Detail == nil {
			t.Errorf("details: %v %+v", err, rec)
		}
	})

	t.Run("account", func(t *testing.T) {
		a, err := c.GetAccountWithResponse(ctx)
		if err != nil || a.JSON200 == nil {
			t.Fatalf("account: %v %d %s", err, a.StatusCode(), a.Body)
		}
		if a.JSON200.Plan != "pro" || a.JSON200.Key.Mode != "test" || a.JSON200.Credits.Cap != 50000 {
			t.Errorf("account: %+v", a.JSON200)
		}
	})

	t.Run("sharpen", func(t *testing.T) {
		enableSharpen(t, d, in, tk.ID, "stage1")
		sh, err := c.SharpenDraftWithResponse(ctx, &client.SharpenDraftParams{IdempotencyKey: ptr("e2e-sharpen-1")}, client.SharpenRequest{
			Task: "What is the boiling point of water at sea level?", Draft: "100 °C at 1 atm.", CallerProvider: client.SharpenRequestCallerProviderOpenai})
		if err != nil || sh.JSON200 == nil {
			t.Fatalf("sharpen: %v %d %s", err, sh.StatusCode(), sh.Body)
		}
		if sh.JSON200.Tier != client.SharpenResponseTierSharpen || len(sh.JSON200.Reviews) == 0 || sh.JSON200.Instruction == "" {
			t.Errorf("sharpen: %+v", sh.JSON200)
		}
		again, err := c.SharpenDraftWithResponse(ctx, &client.SharpenDraftParams{IdempotencyKey: ptr("e2e-sharpen-1")}, client.SharpenRequest{
			Task: "What is the boiling point of water at sea level?", Draft: "100 °C at 1 atm.", CallerProvider: client.SharpenRequestCallerProviderOpenai})
		if err != nil || again.JSON200 == nil || again.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("sharpen replay: %v %d %v", err, again.StatusCode(), again.HTTPResponse.Header)
		}
	})

	t.Run("projects", func(t *testing.T) {
		cr, err := c.CreateProjectWithResponse(ctx, &client.CreateProjectParams{IdempotencyKey: ptr("e2e-create-1")}, client.ProjectCreate{Name: "Reading list"})
		if err != nil || cr.JSON201 == nil {
			t.Fatalf("create: %v %d %s", err, cr.StatusCode(), cr.Body)
		}
		if cr.JSON201.CommitStatus != "committed" || cr.JSON201.Data.Name != "Reading list" {
			t.Errorf("create: %+v", cr.JSON201)
		}
		pid := cr.JSON201.Data.ProjectId
		rep, err := c.CreateProjectWithResponse(ctx, &client.CreateProjectParams{IdempotencyKey: ptr("e2e-create-1")}, client.ProjectCreate{Name: "Reading list"})
		if err != nil || rep.JSON201 == nil || rep.JSON201.Data.ProjectId != pid || rep.JSON201.CommitStatus != "replayed" {
			t.Errorf("create replay: %v %d %s", err, rep.StatusCode(), rep.Body)
		}
		note, err := c.AddProjectItemWithResponse(ctx, pid, &client.AddProjectItemParams{IdempotencyKey: ptr("e2e-item-1")},
			client.ProjectItemCreate{Kind: client.ProjectItemCreateKindNote, Note: ptr("check the 1965 edition")})
		if err != nil || note.JSON201 == nil {
			t.Fatalf("add note: %v %d %s", err, note.StatusCode(), note.Body)
		}
		if recordID != "" {
			rec, err := c.AddProjectItemWithResponse(ctx, pid, &client.AddProjectItemParams{IdempotencyKey: ptr("e2e-item-2")},
				client.ProjectItemCreate{Kind: client.ProjectItemCreateKindRecord, RecordId: &recordID})
			if err != nil || rec.JSON201 == nil || rec.JSON201.Data.Record == nil || rec.JSON201.Data.Record.RecordId != recordID {
				t.Errorf("add record: %v %d %s", err, rec.StatusCode(), rec.Body)
			}
		}
		list, err := c.ListProjectsWithResponse(ctx, &client.ListProjectsParams{Limit: ptr(10)})
		if err != nil || list.JSON200 == nil || len(list.JSON200.Data.Projects) != 1 || list.JSON200.Data.NextOffset != nil {
			t.Errorf("list: %v %d %s", err, list.StatusCode(), list.Body)
		}
		get, err := c.GetProjectWithResponse(ctx, pid, &client.GetProjectParams{Limit: ptr(1)})
		if err != nil || get.JSON200 == nil || len(get.JSON200.Data.Items) != 1 {
			t.Fatalf("get: %v %d %s", err, get.StatusCode(), get.Body)
		}
		if recordID != "" && (get.JSON200.Data.NextOffset == nil || *get.JSON200.Data.NextOffset != 1) {
			t.Errorf("get: next_offset %v with two items and limit 1", get.JSON200.Data.NextOffset)
		}
		di, err := c.DeleteProjectItemWithResponse(ctx, pid, note.JSON201.Data.ItemId, &client.DeleteProjectItemParams{IdempotencyKey: ptr("e2e-del-item-1")})
		if err != nil || di.JSON200 == nil || !di.JSON200.Data.Deleted {
			t.Errorf("delete item: %v %d %s", err, di.StatusCode(), di.Body)
		}
		dp, err := c.DeleteProjectWithResponse(ctx, pid, &client.DeleteProjectParams{IdempotencyKey: ptr("e2e-del-1")})
		if err != nil || dp.JSON200 == nil || !dp.JSON200.Data.Deleted {
			t.Fatalf("delete: %v %d %s", err, dp.StatusCode(), dp.Body)
		}
		gone, err := c.GetProjectWithResponse(ctx, pid, &client.GetProjectParams{})
		if err != nil || gone.JSON404 == nil {
			t.Fatalf("get deleted: %v %d %s", err, gone.StatusCode(), gone.Body)
		}
		pe, err := gone.JSON404.AsProjectsError()
		if err != nil || pe.Status != "error" || pe.Error.Code != client.ErrorBodyCodeNotFound {
			t.Errorf("get deleted: %v %+v", err, pe)
		}
		st, err := c.GetProjectsStatusWithResponse(ctx)
		if err != nil || st.JSON200 == nil || !st.JSON200.Data.Access || st.JSON200.Data.Projects.Used != 0 {
			t.Errorf("projects status: %v %d %s", err, st.StatusCode(), st.Body)
		}
	})

	t.Run("400 with violations", func(t *testing.T) {
		r, err := c.ExecuteBooksSearchWithResponse(ctx, &client.ExecuteBooksSearchParams{}, client.RequestBooksSearch{Query: ptr("dune"), Num: ptr(1000)})
		if err != nil {
			t.Fatal(err)
		}
		e := wantEnvelope(t, "num 1000", 400, r.HTTPResponse, r.JSON400, client.ErrorBodyCodeInvalidRequest)
		if e.Violations == nil || len(*e.Violations) == 0 || (*e.Violations)[0].Path != "/num" {
			t.Errorf("violations %+v", e.Violations)
		}
	})

	t.Run("401", func(t *testing.T) {
		r, err := in.newClient(t, "cap_test_"+strings.Repeat("Z", 32)).GetCatalogWithResponse(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantEnvelope(t, "unknown key", 401, r.HTTPResponse, r.JSON401, client.ErrorBodyCodeUnauthorized)
	})

	t.Run("404", func(t *testing.T) {
		r, err := c.InspectCapabilityWithResponse(ctx, "no.such")
		if err != nil {
			t.Fatal(err)
		}
		wantEnvelope(t, "unknown capability", 404, r.HTTPResponse, r.JSON404, client.ErrorBodyCodeCapabilityUnknown)
		f, err := c.FollowUpWithResponse(ctx, &client.FollowUpParams{}, client.FollowUpRequest{Action: "details", RecordId: ptr("rec_" + strings.Repeat("A", 16))})
		if err != nil {
			t.Fatal(err)
		}
		wantEnvelope(t, "unknown record", 404, f.HTTPResponse, f.JSON404, client.ErrorBodyCodeRecordUnknown)
	})

	t.Run("402", func(t *testing.T) {
		d.admin(t, "plan", "create", "--name", "e2e-poor", "--cap", "1")
		poor := d.newTenant(t, "e2e-poor")
		pc := in.newClient(t, poor.Test)
		var last *client.ExecuteWebSearchResponse
		for i := 0; i < 3; i++ {
			r, err := pc.ExecuteWebSearchWithResponse(ctx, &client.ExecuteWebSearchParams{}, client.RequestWebSearch{Query: "golang generics"})
			if err != nil {
				t.Fatal(err)
			}
			last = r
			if r.StatusCode() != 200 {
				break
			}
		}
		wantEnvelope(t, "over the cap", 402, last.HTTPResponse, last.JSON402, client.ErrorBodyCodeCreditsExhausted)
	})

	t.Run("410", func(t *testing.T) {
		// A deployment of its own: on SQLite another instance would have another database.
		sd := newDeployment(t, "sqlite")
		short := sd.serve(t, "SESSION_TTL=1s")
		sc := short.newClient(t, sd.newTenant(t, "pro").Test)
		ex, err := sc.ExecuteBooksSearchWithResponse(ctx, &client.ExecuteBooksSearchParams{}, client.RequestBooksSearch{Query: ptr("dune")})
		if err != nil || ex.JSON200 == nil {
			t.Fatalf("execute: %v %d %s", err, ex.StatusCode(), ex.Body)
		}
		// Asked again until the 1 s retention has passed (no fixed sleep): until then the search
		// answers as a live one (here 400, it has no more pages), then 410 with the envelope.
		var r *client.FollowUpResponse
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			r, err = sc.FollowUpWithResponse(ctx, &client.FollowUpParams{}, client.FollowUpRequest{Action: "more", SearchId: &ex.JSON200.SearchId})
			if err != nil {
				t.Fatal(err)
			}
			if r.StatusCode() == http.StatusGone || time.Now().After(deadline) {
				break
			}
		}
		wantEnvelope(t, "expired search", 410, r.HTTPResponse, r.JSON410, client.ErrorBodyCodeSessionExpired)
	})

	t.Run("429", func(t *testing.T) {
		d.admin(t, "plan", "create", "--name", "e2e-slow", "--rate", "2")
		slow := d.newTenant(t, "e2e-slow")
		sc := in.newClient(t, slow.Test)
		var last *client.GetAccountResponse
		for i := 0; i < 3; i++ {
			r, err := sc.GetAccountWithResponse(ctx)
			if err != nil {
				t.Fatal(err)
			}
			last = r
		}
		wantEnvelope(t, "third call of 2 a minute", 429, last.HTTPResponse, last.JSON429, client.ErrorBodyCodeRateLimited)
		if last.HTTPResponse.Header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
	})
}

// TestHeadersTooLarge: the 431 every operation documents is really answered, with the envelope,
// on public and authenticated routes (call checks each answer against the document).
func TestHeadersTooLarge(t *testing.T) {
	d := newDeployment(t, "sqlite")
	in := d.serve(t)
	tk := d.newTenant(t, "pro")
	pad := strings.Repeat("a", 20<<10)
	for _, c := range []struct{ method, path, key string }{
		{"GET", "/healthz", ""}, {"GET", "/v1/openapi.json", ""}, {"GET", "/v1/catalog", tk.Test}, {"POST", "/v1/follow-up", tk.Test},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			// The server answers 431 after reading 16 KiB and closes with the rest of the request
			// unread, so the kernel may reset the connection before the client reads the answer,
			// or the client may still be writing its headers when the server has closed (a
			// broken pipe): races of TCP, not of the gateway, so both are tried again.
			for attempt := 1; ; attempt++ {
				req, _ := http.NewRequest(c.method, in.Base+c.path, nil)
				req.Header.Set("X-Padding", pad)
				if c.key != "" {
					req.Header.Set("Authorization", "Bearer "+c.key)
				}
				res, err := httpClient.Do(req)
				if err != nil && attempt < 8 && (strings.Contains(err.Error(), "reset by peer") || strings.Contains(err.Error(), "broken pipe")) {
					time.Sleep(50 * time.Millisecond)
					continue
				}
				if err != nil {
					t.Fatalf("%s %s: %v", c.method, c.path, err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				r := &response{Status: res.StatusCode, Header: res.Header, Body: body}
				_ = json.Unmarshal(body, &r.JSON)
				requireEnvelope(t, r, http.StatusRequestHeaderFieldsTooLarge, "invalid_request")
				break
			}
		})
	}
}

var csrfInput = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// enableSharpen saves a sharpen stage for the tenant the way an account owner does: a console
// user signs in and posts the sharpen form (the API has no route for the saved stage).
func enableSharpen(t *testing.T, d *deployment, in *instance, tenantID, stage string) {
	t.Helper()
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("e2e-correct-horse-battery"), 0o600); err != nil {
		t.Fatal(err)
	}
	email := "owner-" + strings.ToLower(tenantID) + "@e2e.test"
	d.admin(t, "user", "create", "--tenant", tenantID, "--email", email, "--password-file", pw)
	// The console's cookies are Secure; on this loopback http server they are carried by hand.
	cookies := map[string]string{}
	hc := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string, form url.Values) string {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, in.Base+path, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		for k, v := range cookies {
			req.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		res, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		for _, ck := range res.Cookies() {
			cookies[ck.Name] = ck.Value
		}
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 400 {
			t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
		}
		return string(b)
	}
	token := func(page string) string {
		m := csrfInput.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no CSRF token on the page:\n%.1000s", page)
		}
		return m[1]
	}
	login := do("GET", "/console/login", nil)
	do("POST", "/console/login", url.Values{"_csrf": {token(login)}, "email": {email}, "password": {"e2e-correct-horse-battery"}})
	page := do("GET", "/console/sharpen", nil)
	do("POST", "/console/sharpen", url.Values{"_csrf": {token(page)}, "stage": {stage}})
}

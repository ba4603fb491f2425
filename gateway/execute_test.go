package gateway_test

// Execute end to end: every example of every inspect answer runs in the sandbox, and malformed
// requests, wrong routes and adapter panics all leave through the error envelope.

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/providers/registry"
	"github.com/capgate/capgate/tenants"
)

// TestEveryInspectExampleExecutes: for every registered capability, each example its inspect
// answer shows is executed with the test key (sandbox) and answered 200 with a contract-valid
// body (gatewaytest checks every answer against /v1/openapi.json); next.example of the answer
// is accepted too.
func TestEveryInspectExampleExecutes(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	caps := registry.Capabilities()
	if len(caps) == 0 {
		t.Fatal("the registry lists no capabilities")
	}
	for _, cp := range caps {
		t.Run(cp.ID, func(t *testing.T) {
			ins := e.Do(http.MethodGet, "/v1/capabilities/"+cp.ID, e.TestKey, nil)
			wantOK(t, ins)
			if ins.JSON["available"] != true {
				t.Fatalf("%s is not available in the sandbox: %v", cp.ID, ins.JSON["unavailable_reason"])
			}
			examples, _ := ins.JSON["examples"].([]any)
			if len(examples) == 0 {
				t.Fatalf("inspect of %s shows no example", cp.ID)
			}
			exec := ins.JSON["execute"].(map[string]any)
			for _, x := range examples {
				ex := x.(map[string]any)
				title, _ := ex["title"].(string)
				t.Run(title, func(t *testing.T) {
					r := e.Do(exec["method"].(string), exec["url"].(string), e.TestKey, ex["body"])
					if r.Status != http.StatusOK {
						t.Fatalf("example %v: %d %s", ex["body"], r.Status, r.Body)
					}
					if r.JSON["capability"] != cp.ID {
						t.Fatalf("answered for %v", r.JSON["capability"])
					}
					if next, ok := nextOf(r)["example"].(map[string]any); ok {
						f := e.Do(http.MethodPost, "/v1/follow-up", e.TestKey, next)
						if f.Status != http.StatusOK {
							t.Fatalf("next.example %v of example %v: %d %s", next, ex["body"], f.Status, f.Body)
						}
					}
				})
			}
		})
	}
	if u := used(t, e, e.Tenant, tenants.ModeLive); u != 0 {
		t.Fatalf("sandbox calls charged the live balance: %d", u)
	}
}

var wellFormedRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// TestMalformedRequests: every malformed body, wrong method and unknown route is answered with
// the envelope, its requestId and the X-Request-Id header.
func TestMalformedRequests(t *testing.T) {
	e := newCapEnv(t, nil)
	const execPath = "/v1/capabilities/test.page/execute"
	cases := []struct {
		name         string
		method, path string
		key          string
		body         any
		status       int
		code         string
		violation    bool // a violation at "" (the body)
	}{
		{"malformed JSON", http.MethodPost, execPath, e.LiveKey, `{"query":`, 400, "invalid_request", true},
		{"malformed JSON, follow-up", http.MethodPost, "/v1/follow-up", e.LiveKey, `{"action":"more",`, 400, "invalid_request", true},
		{"array body", http.MethodPost, execPath, e.LiveKey, `[]`, 400, "invalid_request", true},
		{"string body", http.MethodPost, execPath, e.LiveKey, `"x"`, 400, "invalid_request", true},
		{"number body", http.MethodPost, execPath, e.LiveKey, `1`, 400, "invalid_request", true},
		{"null body", http.MethodPost, execPath, e.LiveKey, `null`, 400, "invalid_request", true},
		{"two values", http.MethodPost, execPath, e.LiveKey, `{"query":"a"} {"query":"b"}`, 400, "invalid_request", true},
		{"empty body", http.MethodPost, execPath, e.LiveKey, "", 400, "invalid_request", true},
		{"empty body, follow-up", http.MethodPost, "/v1/follow-up", e.LiveKey, "", 400, "invalid_request", true},
		{"array body, follow-up", http.MethodPost, "/v1/follow-up", e.LiveKey, `[]`, 400, "invalid_request", true},
		{"GET on execute", http.MethodGet, execPath, e.LiveKey, nil, 405, "invalid_request", false},
		{"PUT on follow-up", http.MethodPut, "/v1/follow-up", e.LiveKey, `{}`, 405, "invalid_request", false},
		{"DELETE on catalog", http.MethodDelete, "/v1/catalog", e.LiveKey, nil, 405, "invalid_request", false},
		{"unknown route", http.MethodGet, "/v1/nope", e.LiveKey, nil, 404, "not_found", false},
		{"unknown route without a key", http.MethodGet, "/v1/nope", "", nil, 404, "not_found", false},
		{"unknown version", http.MethodPost, "/v2/capabilities/test.page/execute", e.LiveKey, `{"query":"a"}`, 404, "not_found", false},
		{"execute without a capability id", http.MethodPost, "/v1/capabilities//execute", e.LiveKey, `{"query":"a"}`, 404, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.live.Calls()
			r := e.Do(c.method, c.path, c.key, c.body)
			code := c.code
			if code == "" {
				code = r.ErrorCode() // any 404 code, as long as it is an envelope
				if code == "" {
					t.Fatalf("no envelope: %d %s", r.Status, r.Body)
				}
			}
			env := wantError(t, r, c.status, code)
			if !wellFormedRequestID.MatchString(env["requestId"].(string)) {
				t.Fatalf("requestId %q", env["requestId"])
			}
			if c.violation {
				wantViolation(t, r, "")
			}
			if e.live.Calls() != before {
				t.Fatal("a malformed request reached the upstream")
			}
		})
	}
	if u := used(t, e.Env, e.Tenant, tenants.ModeLive); u != 0 {
		t.Fatalf("malformed requests were charged: used %d", u)
	}
}

// TestBodyOverLimit: a body over 1 MiB is refused with 413 and the envelope. fiber's in-process
// App.Test reports the refusal as an error instead of the answer, so this goes over loopback.
// The server answers after the headers and closes without reading the body, so the client sends
// Expect: 100-continue: otherwise it may see the connection reset while still writing the body.
func TestBodyOverLimit(t *testing.T) {
	e := newCapEnv(t, nil)
	addr, _ := serveLoopback(t, e.Env)
	base := "http://" + addr
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: 5 * time.Second}, Timeout: 30 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	huge := `{"query":"` + strings.Repeat("a", 1<<20) + `"}`
	for _, c := range []struct{ name, path, body string }{
		{"execute", "/v1/capabilities/test.page/execute", huge},
		{"follow-up", "/v1/follow-up", huge},
		{"one byte over", "/v1/capabilities/test.page/execute", `{"query":"a","filter":{"lang":"en"}}` + strings.Repeat(" ", 1<<20-35)},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, base+c.path, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+e.LiveKey)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Expect", "100-continue")
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var env struct {
				Error struct {
					Code      string `json:"code"`
					Message   string `json:"message"`
					Retryable *bool  `json:"retryable"`
					RequestID string `json:"requestId"`
				} `json:"error"`
			}
			if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
				t.Fatalf("%d: not an envelope: %v", res.StatusCode, err)
			}
			rid := res.Header.Get("X-Request-Id")
			if res.StatusCode != 413 || env.Error.Code != "invalid_request" || env.Error.Message == "" || env.Error.Retryable == nil ||
				rid == "" || env.Error.RequestID != rid {
				t.Fatalf("%d %+v (X-Request-Id %q)", res.StatusCode, env, rid)
			}
		})
	}
	t.Run("exactly 1 MiB is read", func(t *testing.T) {
		body := `{"query":"a"}` + strings.Repeat(" ", 1<<20-13)
		req, _ := http.NewRequest(http.MethodPost, base+"/v1/capabilities/test.page/execute", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+e.LiveKey)
		req.Header.Set("Expect", "100-continue")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("a body of exactly 1 MiB: %d", res.StatusCode)
		}
	})
	if e.live.Calls() != 1 {
		t.Fatalf("%d upstream calls, want 1 (the 1 MiB body only)", e.live.Calls())
	}
}

// TestAdapterPanic: a panic inside an adapter is a 500 internal_error with the request id and
// nothing of the panic in the body, and the reservation is refunded.
func TestAdapterPanic(t *testing.T) {
	onBackends(t, func(t *testing.T, e *capEnv) {
		check := func(t *testing.T, r *gatewaytest.Response, rid string) {
			t.Helper()
			env := wantError(t, r, 500, "internal_error")
			if env["requestId"] != rid {
				t.Fatalf("requestId %v, want the client's %s", env["requestId"], rid)
			}
			for _, leak := range []string{"adapter secret", "exploded", "goroutine", "panic(", ".go:", "runtime/"} {
				if strings.Contains(string(r.Body), leak) {
					t.Fatalf("the body shows %q: %s", leak, r.Body)
				}
			}
			if u := used(t, e.Env, e.Tenant, tenants.ModeLive); u != 2 {
				t.Fatalf("used %d after a panic, want 2 (only the one good search)", u)
			}
			if sum := ledgerSum(t, e.Env, e.Tenant, tenants.ModeLive); sum != 2 {
				t.Fatalf("ledger %d after a panic, want 2", sum)
			}
		}
		ok := e.exec(e.LiveKey, "test.panic", map[string]any{"query": "fine"})
		wantOK(t, ok)
		rec := recordWithN(t, ok, 1)
		t.Run("in execute", func(t *testing.T) {
			r := e.DoHeaders(http.MethodPost, "/v1/capabilities/test.panic/execute", e.LiveKey, map[string]any{"query": "panic"},
				map[string]string{"X-Request-Id": "panic-exec-1"})
			check(t, r, "panic-exec-1")
		})
		t.Run("in a record action", func(t *testing.T) {
			r := e.DoHeaders(http.MethodPost, "/v1/follow-up", e.LiveKey, map[string]any{"record_id": rec, "action": "explode"},
				map[string]string{"X-Request-Id": "panic-action-1"})
			check(t, r, "panic-action-1")
		})
		t.Run("the gateway keeps serving", func(t *testing.T) {
			wantOK(t, e.exec(e.LiveKey, "test.page", map[string]any{"query": "alpha"}))
		})
	})
}

func TestRequestIDHeader(t *testing.T) {
	e := newCapEnv(t, nil)
	cases := []struct {
		name, sent string
		kept       bool
	}{
		{"plain", "abc123", true},
		{"all allowed characters", "client-req_1.2:3", true},
		{"uuid", "6f1c2b9e-3d4a-4f8b-9c2d-1e2f3a4b5c6d", true},
		{"128 characters", strings.Repeat("a", 128), true},
		{"129 characters", strings.Repeat("a", 129), false},
		{"space", "has space", false},
		{"slash", "a/b", false},
		{"non-ASCII", "ünïcode", false},
		{"quote", `a"b`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, call := range []struct {
				name string
				do   func() *gatewaytest.Response
			}{
				{"success", func() *gatewaytest.Response {
					return e.DoHeaders(http.MethodGet, "/v1/catalog", e.LiveKey, nil, map[string]string{"X-Request-Id": c.sent})
				}},
				{"error", func() *gatewaytest.Response {
					return e.DoHeaders(http.MethodPost, "/v1/capabilities/test.page/execute", e.LiveKey, "[]", map[string]string{"X-Request-Id": c.sent})
				}},
				{"unauthenticated", func() *gatewaytest.Response {
					return e.DoHeaders(http.MethodGet, "/v1/catalog", "", nil, map[string]string{"X-Request-Id": c.sent})
				}},
			} {
				t.Run(call.name, func(t *testing.T) {
					r := call.do()
					got := r.Header.Get("X-Request-Id")
					if c.kept && got != c.sent {
						t.Fatalf("a well-formed id %q came back as %q", c.sent, got)
					}
					if !c.kept && (got == c.sent || !wellFormedRequestID.MatchString(got)) {
						t.Fatalf("a malformed id %q came back as %q", c.sent, got)
					}
					if env, ok := r.JSON["error"].(map[string]any); ok && env["requestId"] != got {
						t.Fatalf("requestId %v differs from the header %q", env["requestId"], got)
					}
				})
			}
		})
	}
	t.Run("made ids are distinct", func(t *testing.T) {
		a := e.Do(http.MethodGet, "/v1/catalog", e.LiveKey, nil).Header.Get("X-Request-Id")
		b := e.Do(http.MethodGet, "/v1/catalog", e.LiveKey, nil).Header.Get("X-Request-Id")
		if a == "" || a == b {
			t.Fatalf("made ids %q and %q", a, b)
		}
	})
}

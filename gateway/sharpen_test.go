package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/tenants"
)

func TestRouteSharpen(t *testing.T) {
	all := []string{"anthropic", "openai", "google", "xai", "mistral", "deepseek", "meta"}
	cases := []struct {
		name, tier, caller string
		available          []string
		want               []string
		note, err          bool
	}{
		{"another family first", "sharpen", "anthropic", all, []string{"openai"}, false, false},
		{"caller other", "plus", "other", all, []string{"anthropic"}, false, false},
		{"never the caller while another is available", "ultra", "openai", []string{"openai", "mistral"}, []string{"mistral"}, false, false},
		{"same family only when alone", "sharpen", "google", []string{"google"}, []string{"google"}, true, false},
		{"ultra2x two families, neither the caller", "ultra2x", "anthropic", all, []string{"openai", "google"}, false, false},
		{"ultra2x one other plus caller", "ultra2x", "xai", []string{"xai", "meta"}, []string{"meta", "xai"}, true, false},
		{"ultra2x a single family", "ultra2x", "openai", []string{"deepseek"}, []string{"deepseek"}, true, false},
		{"none", "sharpen", "openai", nil, nil, false, true},
		{"ultra2x none", "ultra2x", "openai", nil, nil, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := gateway.RouteSharpen(c.tier, c.caller, c.available)
			if c.err {
				if err == nil {
					t.Fatal("want sharpen_no_reviewer")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.Reviewers, c.want) || (r.Note != "") != c.note {
				t.Fatalf("route %+v", r)
			}
			for _, f := range append(r.Reviewers, r.Fallbacks...) {
				if f == c.caller && len(c.available) > 1 && c.tier != "ultra2x" {
					t.Fatalf("routed to the caller's family %s", f)
				}
			}
		})
	}
}

func setStage(t *testing.T, e *gatewaytest.Env, tn *tenants.Tenant, stage string) {
	t.Helper()
	plan, err := e.Store.Plan(context.Background(), tn.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.SetSharpenStage(context.Background(), tn.ID, plan, stage); err != nil {
		t.Fatal(err)
	}
}

var draft = map[string]any{"task": "At what temperature does water boil at sea level?", "draft": "Water boils at 90 °C.", "caller_provider": "openai"}

func with(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{}
	for a, b := range m {
		out[a] = b
	}
	out[k] = v
	return out
}

func TestSharpenStagesAndSavedSetting(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	// Saved stage stock: sharpen is disabled, with or without a per-call stage.
	for _, body := range []map[string]any{draft, with(draft, "stage", "stage1")} {
		if r := e.Do(http.MethodPost, "/v1/sharpen", e.TestKey, body); r.Status != 403 || r.ErrorCode() != "capability_disabled" {
			t.Fatalf("stock: %d %s", r.Status, r.Body)
		}
	}
	cat := e.Do(http.MethodGet, "/v1/catalog", e.TestKey, nil)
	sh := cat.JSON["sharpen"].(map[string]any)
	if sh["enabled"] != false || sh["stage"] != "stock" || len(sh["stages"].([]any)) != 3 {
		t.Fatalf("catalog sharpen while stock: %v", sh)
	}
	setStage(t, e, e.Tenant, "stage2")
	r := e.Do(http.MethodPost, "/v1/sharpen", e.TestKey, draft)
	if r.Status != 200 || r.JSON["tier"] != "plus" || r.JSON["stage"] != "stage2" || r.JSON["partial"] != false {
		t.Fatalf("saved stage2: %d %s", r.Status, r.Body)
	}
	reviews := r.JSON["reviews"].([]any)
	rev := reviews[0].(map[string]any)["reviewer"].(map[string]any)
	if len(reviews) != 1 || rev["family"] == "openai" {
		t.Fatalf("reviewer %v", reviews)
	}
	if r.JSON["charged_credits"] != float64(15) || r.JSON["instruction"] == "" {
		t.Fatalf("charge %v", r.JSON["charged_credits"])
	}
	// A per-call stage is used once and never changes the saved setting.
	r = e.Do(http.MethodPost, "/v1/sharpen", e.TestKey, with(draft, "stage", "stage3"))
	if r.Status != 200 || r.JSON["tier"] != "ultra" || r.JSON["charged_credits"] != float64(40) {
		t.Fatalf("per-call stage3: %d %s", r.Status, r.Body)
	}
	if st, _ := e.Store.SharpenStage(context.Background(), e.Tenant.ID); st != "stage2" {
		t.Fatalf("saved stage changed to %s", st)
	}
	// Above the plan's highest stage (pro: stage3).
	if r := e.Do(http.MethodPost, "/v1/sharpen", e.TestKey, with(draft, "stage", "stage3+")); r.Status != 403 || r.ErrorCode() != "capability_disabled" {
		t.Fatalf("stage3+ on pro: %d %s", r.Status, r.Body)
	}
	cat = e.Do(http.MethodGet, "/v1/catalog", e.TestKey, nil)
	sh = cat.JSON["sharpen"].(map[string]any)
	if sh["enabled"] != true || sh["tier"] != "plus" || sh["stage"] != "stage2" || sh["typical_credits"] != float64(15) || sh["url"] != "/v1/sharpen" {
		t.Fatalf("catalog sharpen: %v", sh)
	}
	acct := e.Do(http.MethodGet, "/v1/account", e.TestKey, nil)
	if acct.JSON["credits"].(map[string]any)["used"] != float64(55) {
		t.Fatalf("test balance %v", acct.JSON["credits"])
	}
}

func TestSharpenRequestValidation(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	setStage(t, e, e.Tenant, "stage1")
	cases := []struct {
		name string
		body any
		path string
	}{
		{"unknown key", with(draft, "temperature", 1), "/temperature"},
		{"empty task", with(draft, "task", ""), "/task"},
		{"blank draft", with(draft, "draft", "   "), "/draft"},
		{"unknown vendor", with(draft, "caller_provider", "acme"), "/caller_provider"},
		{"bad stage", with(draft, "stage", "stock"), "/stage"},
		{"missing caller", map[string]any{"task": "t", "draft": "d"}, "/caller_provider"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do(http.MethodPost, "/v1/sharpen", e.TestKey, c.body)
			if r.Status != 400 || r.ErrorCode() != "invalid_request" || !containsStr(r.Violations(), c.path) {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

const chatOK = `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"1. Water boils at 100 °C at sea level."},"finish_reason":"stop"}]}`

func TestSharpenUltra2xPartialAndNoReviewer(t *testing.T) {
	var failing atomic.Int64
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, chatOK)
	})
	broken := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		failing.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":{"message":"internal"}}`)
	})
	e := gatewaytest.New(t, gatewaytest.Options{Plan: "scale",
		Fakes: map[string]http.Handler{"xai": ok, "mistral": broken},
		Keys:  map[string]string{"xai": "k", "mistral": "k"}})
	setStage(t, e, e.Tenant, "stage3+")
	r := e.Do(http.MethodPost, "/v1/sharpen", e.LiveKey, with(draft, "caller_provider", "anthropic"))
	if r.Status != 200 || r.JSON["tier"] != "ultra2x" || r.JSON["partial"] != true || r.JSON["charged_credits"] != float64(40) {
		t.Fatalf("partial ultra2x: %d %s", r.Status, r.Body)
	}
	if n := len(r.JSON["reviews"].([]any)); n != 1 || failing.Load() == 0 || r.JSON["routing_note"] == nil {
		t.Fatalf("reviews %d, failing calls %d", n, failing.Load())
	}
	bal := r.JSON["balance"].(map[string]any)
	if bal["used"] != float64(40) {
		t.Fatalf("balance %v", bal)
	}
	// A tenant whose live deployment has no reviewer keys at all.
	e2 := gatewaytest.New(t, gatewaytest.Options{})
	setStage(t, e2, e2.Tenant, "stage1")
	r = e2.Do(http.MethodPost, "/v1/sharpen", e2.LiveKey, draft)
	if r.Status != 503 || r.ErrorCode() != "sharpen_no_reviewer" {
		t.Fatalf("no reviewer: %d %s", r.Status, r.Body)
	}
	if acct := e2.Do(http.MethodGet, "/v1/account", e2.LiveKey, nil); acct.JSON["credits"].(map[string]any)["used"] != float64(0) {
		t.Fatalf("charged without a reviewer: %v", acct.JSON["credits"])
	}
}

func TestSharpenFailureRefunded(t *testing.T) {
	broken := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	})
	e := gatewaytest.New(t, gatewaytest.Options{Fakes: map[string]http.Handler{"deepseek": broken}, Keys: map[string]string{"deepseek": "k"}})
	setStage(t, e, e.Tenant, "stage1")
	r := e.Do(http.MethodPost, "/v1/sharpen", e.LiveKey, draft)
	if r.Status != 502 || r.ErrorCode() != "provider_error" {
		t.Fatalf("failure: %d %s", r.Status, r.Body)
	}
	if acct := e.Do(http.MethodGet, "/v1/account", e.LiveKey, nil); acct.JSON["credits"].(map[string]any)["used"] != float64(0) {
		t.Fatalf("not refunded: %v", acct.JSON["credits"])
	}
}

// TestSharpenRetiredModelWarning: a reviewer whose vendor answers "no such model" is listed for
// the admin (RetiredReviewers, the capgate_reviewer_model_retired gauge) until a call of that
// family and tier is answered again.
func TestSharpenRetiredModelWarning(t *testing.T) {
	var retired atomic.Bool
	retired.Store(true)
	deepseek := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if retired.Load() {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"message":"Model Not Exist","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`)
			return
		}
		_, _ = io.WriteString(w, chatOK)
	})
	e := gatewaytest.New(t, gatewaytest.Options{Fakes: map[string]http.Handler{"deepseek": deepseek}, Keys: map[string]string{"deepseek": "k"}})
	setStage(t, e, e.Tenant, "stage1")
	r := e.Do(http.MethodPost, "/v1/sharpen", e.LiveKey, draft)
	if r.Status != 502 || r.ErrorCode() != "provider_error" || !strings.Contains(string(r.Body), "SHARPEN_MODEL_DEEPSEEK_SHARPEN") {
		t.Fatalf("retired model: %d %s", r.Status, r.Body)
	}
	list := e.Reviewers.Retired()
	if len(list) != 1 || list[0].Family != "deepseek" || list[0].Tier != "sharpen" || list[0].Model != "deepseek-flash" {
		t.Fatalf("retired reviewers %+v", list)
	}
	metrics := scrape(t, e)
	for _, want := range []string{`capgate_reviewer_model_retired{family="deepseek",tier="sharpen"} 1`,
		`capgate_reviewer_model_retired{family="deepseek",tier="ultra"} 0`, `capgate_reviewer_model_retired{family="xai",tier="sharpen"} 0`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// A test key's sandbox call says nothing about the live model.
	retired.Store(false)
	if r := e.Do(http.MethodPost, "/v1/sharpen", e.TestKey, draft); r.Status != 200 || len(e.Reviewers.Retired()) != 1 {
		t.Fatalf("test key: %d %s; retired %+v", r.Status, r.Body, e.Reviewers.Retired())
	}
	if r := e.Do(http.MethodPost, "/v1/sharpen", e.LiveKey, draft); r.Status != 200 || len(e.Reviewers.Retired()) != 0 {
		t.Fatalf("after the vendor answers: %d %s; retired %+v", r.Status, r.Body, e.Reviewers.Retired())
	}
	if metrics := scrape(t, e); !strings.Contains(metrics, `capgate_reviewer_model_retired{family="deepseek",tier="sharpen"} 0`) {
		t.Error("the gauge stayed at 1")
	}
}

// TestSharpenMetaNotADefaultReviewer: Meta has no default model, so a configured Meta key alone
// does not make it a reviewer.
func TestSharpenMetaNotADefaultReviewer(t *testing.T) {
	var calls atomic.Int64
	meta := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, chatOK)
	})
	e := gatewaytest.New(t, gatewaytest.Options{Fakes: map[string]http.Handler{"meta": meta}, Keys: map[string]string{"meta": "k"}})
	setStage(t, e, e.Tenant, "stage1")
	r := e.Do(http.MethodPost, "/v1/sharpen", e.LiveKey, draft)
	if r.Status != 503 || r.ErrorCode() != "sharpen_no_reviewer" || calls.Load() != 0 {
		t.Fatalf("meta without a model: %d %s, %d calls", r.Status, r.Body, calls.Load())
	}
}

// scrape reads /metrics (outside the API document, so not through the contract-checked Do).
func scrape(t *testing.T, e *gatewaytest.Env) string {
	t.Helper()
	res, err := e.Server.App().Test(httptest.NewRequest(http.MethodGet, "/metrics", nil), 10_000)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// A panic in a reviewer goroutine is the call's internal_error and the reservation is refunded;
// the process lives on (the pipeline's recover does not reach goroutines the call starts).
func TestSharpenReviewerPanicIsTheCallsError(t *testing.T) {
	gateway.PanicInReviews(t)
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, chatOK)
	})
	e := gatewaytest.New(t, gatewaytest.Options{Fakes: map[string]http.Handler{"deepseek": ok}, Keys: map[string]string{"deepseek": "k"}})
	setStage(t, e, e.Tenant, "stage1")
	r := e.Do(http.MethodPost, "/v1/sharpen", e.LiveKey, draft)
	if r.Status != 500 || r.ErrorCode() != "internal_error" {
		t.Fatalf("panicking reviewer: %d %s", r.Status, r.Body)
	}
	if acct := e.Do(http.MethodGet, "/v1/account", e.LiveKey, nil); acct.JSON["credits"].(map[string]any)["used"] != float64(0) {
		t.Fatalf("not refunded: %v", acct.JSON["credits"])
	}
}

package gateway_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/internal/telemetry"
)

// TestTraceResponse: with tracing on, a request continues the caller's traceparent, answers its
// trace id in traceresponse (errors included) and its spans hold the capability and error code
// but not the key or the query; with tracing off no traceresponse is sent.
func TestTraceResponse(t *testing.T) {
	e := gatewaytest.New(t, gatewaytest.Options{})
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	body := map[string]any{"query": "the lord of the rings", "num": 2}

	r := e.DoHeaders(http.MethodPost, "/v1/capabilities/books.search/execute", e.TestKey, body, map[string]string{"traceparent": parent})
	if r.Status != 200 || r.Header.Get("traceresponse") != "" {
		t.Fatalf("tracing off: status %d, traceresponse %q", r.Status, r.Header.Get("traceresponse"))
	}

	rec := tracetest.NewSpanRecorder()
	defer telemetry.Use(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))()
	r = e.DoHeaders(http.MethodPost, "/v1/capabilities/books.search/execute", e.TestKey, body, map[string]string{"traceparent": parent})
	if tr := r.Header.Get("traceresponse"); r.Status != 200 || !strings.HasPrefix(tr, "00-4bf92f3577b34da6a3ce929d0e0e4736-") {
		t.Fatalf("status %d, traceresponse %q", r.Status, tr)
	}
	r = e.DoHeaders(http.MethodPost, "/v1/capabilities/no.such/execute", e.TestKey, map[string]any{}, map[string]string{"traceparent": parent})
	if tr := r.Header.Get("traceresponse"); r.Status != 404 || !strings.HasPrefix(tr, "00-4bf92f3577b34da6a3ce929d0e0e4736-") {
		t.Fatalf("error answer: status %d, traceresponse %q", r.Status, tr)
	}
	// The group commit's span ends after it releases its calls: the answer can come first.
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if slices.ContainsFunc(rec.Ended(), func(s sdktrace.ReadOnlySpan) bool { return s.Name() == "commit batch" }) {
			break
		}
	}
	names := map[string]bool{}
	notFound := 0
	for _, s := range rec.Ended() {
		names[s.Name()] = true
		if s.SpanContext().TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
			t.Errorf("span %s is in trace %s", s.Name(), s.SpanContext().TraceID())
		}
		for _, kv := range s.Attributes() {
			if v := kv.Value.Emit(); strings.Contains(v, e.TestKey) || strings.Contains(v, "lord of the rings") {
				t.Errorf("span %s attribute %s = %q holds the key or the query", s.Name(), kv.Key, v)
			}
		}
		attrs := map[string]string{}
		for _, kv := range s.Attributes() {
			attrs[string(kv.Key)] = kv.Value.Emit()
		}
		if attrs["http.response.status_code"] == "404" {
			notFound++
			if attrs["capgate.error_code"] != "capability_unknown" {
				t.Errorf("the 404's span records error code %q, want capability_unknown", attrs["capgate.error_code"])
			}
		}
	}
	if notFound != 1 {
		t.Errorf("%d spans of the 404 answer, want 1", notFound)
	}
	for _, n := range []string{"POST /v1/capabilities/:id/execute", "authenticate", "rate limit", "credits.reserve", "credits.settle", "commit batch", "upstream openlibrary"} {
		if !names[n] {
			t.Errorf("no %q span; spans: %v", n, names)
		}
	}
}

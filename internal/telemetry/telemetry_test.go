package telemetry

import (
	"context"
	"net/http"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func TestFromEnv(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string
		enabled  bool
		endpoint string
		err      string
	}{
		{name: "nothing set: off", env: nil},
		{name: "general endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, enabled: true, endpoint: "http://collector:4318"},
		{name: "traces endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, enabled: true, endpoint: "http://collector:4318/v1/traces"},
		{name: "credentials are not logged", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://user:secret@collector:4318/?token=abc"}, enabled: true, endpoint: "https://collector:4318/"},
		{name: "SDK disabled", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}},
		{name: "exporter none", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}},
		{name: "exporter otlp", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, enabled: true, endpoint: "http://c:4318"},
		{name: "another exporter is refused", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, err: "OTEL_TRACES_EXPORTER"},
		{name: "grpc is refused", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317"}, err: "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{name: "the traces protocol wins", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, enabled: true, endpoint: "http://c:4318"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := FromEnv(func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Enabled != tc.enabled || cfg.Endpoint != tc.endpoint {
				t.Fatalf("got %+v, want enabled %v endpoint %q", cfg, tc.enabled, tc.endpoint)
			}
		})
	}
}

// TestOffCostsNothing: while tracing is off, Start hands back the caller's context and a span
// without trace context, and allocates nothing.
func TestOffCostsNothing(t *testing.T) {
	ctx := context.Background()
	got, span := Start(ctx, "x")
	if got != ctx || span.SpanContext().IsValid() || span.IsRecording() || Enabled() {
		t.Fatal("tracing is on, or Start changed the context, while off")
	}
	if n := testing.AllocsPerRun(100, func() {
		_, s := Start(ctx, "x")
		End(s, nil, "")
	}); n != 0 {
		t.Fatalf("%v allocations per span while off, want 0", n)
	}
}

// TestPropagation: an incoming traceparent is continued, the traceresponse names the span, and
// Inject writes the same trace id out.
func TestPropagation(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	defer Use(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))()
	in := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := Extract(context.Background(), func(k string) string {
		if k == "traceparent" {
			return in
		}
		return ""
	})
	ctx, span := Start(ctx, "request")
	tr := TraceResponse(span)
	if !strings.HasPrefix(tr, "00-4bf92f3577b34da6a3ce929d0e0e4736-") || strings.Contains(tr, "00f067aa0ba902b7") || !strings.HasSuffix(tr, "-01") {
		t.Fatalf("traceresponse %q", tr)
	}
	h := http.Header{}
	Inject(ctx, h)
	if got := h.Get("traceparent"); got != tr {
		t.Fatalf("injected %q, want the span's own %q", got, tr)
	}
	End(span, context.Canceled, "provider_timeout")
	ended := rec.Ended()
	if len(ended) != 1 || ended[0].Parent().SpanID().String() != "00f067aa0ba902b7" || ended[0].Status().Description != "provider_timeout" {
		t.Fatalf("recorded %+v", ended)
	}
	// A malformed traceparent starts a new trace.
	ctx = Extract(context.Background(), func(string) string { return "00-zz-00f067aa0ba902b7-01" })
	_, span = Start(ctx, "request")
	if !span.SpanContext().IsValid() || span.SpanContext().TraceID().String() == "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatal("a malformed traceparent was continued")
	}
	span.End()
}

// Package telemetry is capgate's OpenTelemetry tracing. It is off unless the standard
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT variable is set; then spans
// go over OTLP/HTTP (protobuf) to that endpoint, sampled as OTEL_TRACES_SAMPLER says (default:
// follow the caller's sampling decision, sample every new trace).
//
// While tracing is off, Start costs an atomic load and returns the context unchanged: the hot
// path pays nothing for it.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// instrumentation is the tracer's name (the instrumentation scope in every exported span).
const instrumentation = "github.com/capgate/capgate"

// Variables are the OTEL_* settings this binary honours; the SDK and its OTLP/HTTP exporter
// read them as the OpenTelemetry specification defines them.
var Variables = []string{
	"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
	"OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
	"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
	"OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
	"OTEL_EXPORTER_OTLP_CERTIFICATE", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE",
	"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE",
	"OTEL_EXPORTER_OTLP_CLIENT_KEY", "OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY",
	"OTEL_BSP_SCHEDULE_DELAY", "OTEL_BSP_EXPORT_TIMEOUT", "OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
	"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_SPAN_EVENT_COUNT_LIMIT", "OTEL_SPAN_LINK_COUNT_LIMIT",
}

// tracer is the active tracer; nil while tracing is off.
var tracer atomic.Pointer[trace.Tracer]

// off is the span every Start returns while tracing is off: it records nothing and carries no
// trace context.
var off trace.Span = noop.Span{}

// W3C is the propagator of incoming and outgoing trace context: the W3C traceparent and
// tracestate headers only (no baggage: it could carry what a caller put there to an upstream).
var W3C propagation.TextMapPropagator = propagation.TraceContext{}

// Config is what Setup decided from the environment.
type Config struct {
	Enabled  bool
	Endpoint string // the OTLP endpoint variable's value, for the start-up log
}

// FromEnv reads whether tracing is on, refusing settings this binary cannot honour (another
// exporter than OTLP, another protocol than http/protobuf) rather than ignoring them.
func FromEnv(env func(string) string) (Config, error) {
	if strings.EqualFold(strings.TrimSpace(env("OTEL_SDK_DISABLED")), "true") {
		return Config{}, nil
	}
	switch e := strings.TrimSpace(env("OTEL_TRACES_EXPORTER")); e {
	case "", "otlp":
	case "none":
		return Config{}, nil
	default:
		return Config{}, fmt.Errorf("OTEL_TRACES_EXPORTER %q: this gateway exports traces with otlp (or none)", e)
	}
	endpoint := env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if endpoint == "" {
		endpoint = env("OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	if endpoint == "" {
		return Config{}, nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := env(name); p != "" {
			if p != "http/protobuf" {
				return Config{}, fmt.Errorf("%s %q: this gateway exports OTLP over http/protobuf", name, p)
			}
			break // the signal-specific setting wins over the general one
		}
	}
	return Config{Enabled: true, Endpoint: redact(endpoint)}, nil
}

// redact keeps an endpoint's scheme, host and path for the log (a user:password or a query
// could hold a credential).
func redact(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "(unparsable)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// Setup starts tracing when cfg enables it: the OTLP/HTTP exporter, a batching tracer provider
// with the service's resource and the sampler of the environment. The returned shutdown
// flushes the spans still queued; it is a no-op when tracing is off.
func Setup(ctx context.Context, cfg Config, version string) (shutdown func(context.Context) error, err error) {
	if !cfg.Enabled {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	// Later sources win: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override the defaults.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "capgate"), attribute.String("service.version", version)),
		resource.WithTelemetrySDK(), resource.WithHost(), resource.WithFromEnv())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(W3C)
	t := tp.Tracer(instrumentation, trace.WithInstrumentationVersion(version))
	tracer.Store(&t)
	return func(ctx context.Context) error {
		tracer.Store(nil)
		return tp.Shutdown(ctx)
	}, nil
}

// Enabled tells whether spans are being made.
func Enabled() bool { return tracer.Load() != nil }

// Start starts a span under the one in ctx; while tracing is off it returns ctx and a span that
// does nothing.
func Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	t := tracer.Load()
	if t == nil {
		return ctx, off
	}
	return (*t).Start(ctx, name, opts...)
}

// End ends a span, marking it failed when err is set. Only the error's code goes into the span
// (a message may quote a caller's input).
func End(span trace.Span, err error, code string) {
	if err != nil && span.IsRecording() {
		if code == "" {
			code = "error"
		}
		span.SetStatus(codes.Error, code)
		span.SetAttributes(attribute.String("capgate.error_code", code))
	}
	span.End()
}

// Extract continues the trace of an incoming request's traceparent (ctx unchanged when it has
// none or a malformed one).
func Extract(ctx context.Context, header func(string) string) context.Context {
	return W3C.Extract(ctx, getter(header))
}

// Inject writes ctx's trace context into an outgoing request's headers (nothing when ctx
// carries no valid span).
func Inject(ctx context.Context, h http.Header) {
	W3C.Inject(ctx, propagation.HeaderCarrier(h))
}

// TraceResponse is the W3C Trace Context Level 2 traceresponse value of a span
// ("00-<trace id>-<span id>-<flags>"), or "" when the span carries no trace.
func TraceResponse(span trace.Span) string {
	sc := span.SpanContext()
	if !sc.IsValid() {
		return ""
	}
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
}

// getter reads the headers of a request for the propagator.
type getter func(string) string

func (g getter) Get(key string) string { return g(key) }
func (g getter) Set(string, string)    {}
func (g getter) Keys() []string        { return nil }

// Off is the span that does nothing (the one Start returns while tracing is off).
func Off() trace.Span { return off }

// Use makes spans with tp until the returned func restores the previous state (tests, and
// programs that embed the gateway with a tracer provider of their own).
func Use(tp trace.TracerProvider) (restore func()) {
	t := tp.Tracer(instrumentation)
	prev := tracer.Swap(&t)
	return func() { tracer.Store(prev) }
}

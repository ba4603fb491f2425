package providers_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/capgate/capgate/internal/telemetry"
	"github.com/capgate/capgate/providers"
)

// TestClientTraceparent: a live call carries the W3C traceparent only to a provider the
// deployment listed in TraceProviders, and only while tracing is on; the header is added before
// Authorize, so a signing provider signs it; the upstream span records the provider and status
// and never the URL (which holds the query and may hold the key).
func TestClientTraceparent(t *testing.T) {
	cases := []struct {
		name    string
		tracing bool
		optIn   []string
		want    bool
	}{
		{"on, opted in", true, []string{fakeID}, true},
		{"on, not opted in", true, nil, false},
		{"on, another provider opted in", true, []string{"other"}, false},
		{"off, opted in", false, []string{fakeID}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			if tc.tracing {
				defer telemetry.Use(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))()
			}
			var got, signed atomic.Value
			up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				got.Store(r.Header.Get("traceparent"))
				signed.Store(r.Header.Get("X-Signed-Headers"))
				status(200, `{}`)(w, r)
			})
			p := fakeProvider()
			p.Authorize = func(r *http.Request, key string) {
				names := []string{}
				for k := range r.Header {
					names = append(names, strings.ToLower(k))
				}
				r.Header.Set("X-Signed-Headers", strings.Join(names, ","))
				r.Header.Set("X-Api-Key", key)
			}
			c := newClient(t, p, up.URL, "secret-key", providers.ClientOptions{TraceProviders: tc.optIn})
			ctx, parent := telemetry.Start(context.Background(), "request")
			if _, err := c.Upstream(fakeID, providers.ModeLive).Get(ctx, "/search", map[string][]string{"q": {"dune"}}, nil); err != nil {
				t.Fatal(err)
			}
			parent.End()
			tp, _ := got.Load().(string)
			if (tp != "") != tc.want {
				t.Fatalf("traceparent %q, want one: %v", tp, tc.want)
			}
			if tc.want {
				if !strings.HasPrefix(tp, "00-"+parent.SpanContext().TraceID().String()+"-") {
					t.Fatalf("traceparent %q is not in the caller's trace %s", tp, parent.SpanContext().TraceID())
				}
				if s, _ := signed.Load().(string); !strings.Contains(s, "traceparent") {
					t.Fatalf("Authorize saw headers %q: the traceparent was added after it", s)
				}
			}
			if !tc.tracing {
				return
			}
			var upstream sdktrace.ReadOnlySpan
			for _, s := range rec.Ended() {
				if s.Name() == "upstream "+fakeID {
					upstream = s
				}
			}
			if upstream == nil || upstream.Parent().SpanID() != parent.SpanContext().SpanID() {
				t.Fatalf("no upstream span under the caller's: %v", rec.Ended())
			}
			for _, kv := range upstream.Attributes() {
				if v := kv.Value.Emit(); strings.Contains(v, "dune") || strings.Contains(v, "secret-key") || strings.Contains(v, "/search") {
					t.Errorf("attribute %s = %q holds the URL, query or key", kv.Key, v)
				}
			}
		})
	}
}

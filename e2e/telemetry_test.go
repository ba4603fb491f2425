package e2e

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"gopkg.in/yaml.v3"
)

// otlpReceiver is an OTLP/HTTP trace receiver (POST /v1/traces, binary protobuf
// ExportTraceServiceRequest, as the OTLP specification defines it) that keeps every span.
type otlpReceiver struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	services []string
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want POST /v1/traces with application/x-protobuf", http.StatusBadRequest)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(raw, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.Key == "service.name" {
				o.services = append(o.services, kv.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.ScopeSpans {
			o.spans = append(o.spans, ss.Spans...)
		}
	}
	o.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// trace returns the spans of one trace by name.
func (o *otlpReceiver) trace(traceID []byte) map[string][]*tracepb.Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string][]*tracepb.Span{}
	for _, s := range o.spans {
		if bytes.Equal(s.TraceId, traceID) {
			out[s.Name] = append(out[s.Name], s)
		}
	}
	return out
}

// fakePyPI answers the Python package index's JSON API for one project from the recorded
// fixture, and keeps the traceparent of every request.
type fakePyPI struct {
	fixture []byte
	mu      sync.Mutex
	parents []string
}

func (f *fakePyPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.parents = append(f.parents, r.Header.Get("traceparent"))
	f.mu.Unlock()
	if r.URL.Path != "/pypi/sampleproject/json" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message": "Not Found"}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(f.fixture)
}

// TestTracing: the real binary with OTLP pointed at an in-test receiver continues a caller's
// traceparent: the answer's traceresponse carries the trace id, the receiver gets the request,
// authentication, rate limit, reservation, upstream, settlement and commit batch spans under
// it, the upstream that opted in receives the same trace id, the request log records it, and
// no span attribute holds the key or the query.
func TestTracing(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("..", "providers", "pypi", "testdata", "project_sampleproject.json"))
	if err != nil {
		t.Fatal(err)
	}
	pypi := &fakePyPI{fixture: fixture}
	up := httptest.NewServer(pypi)
	t.Cleanup(up.Close)
	recv := &otlpReceiver{}
	collector := httptest.NewServer(recv)
	t.Cleanup(collector.Close)

	d := newDeployment(t, "sqlite")
	in := d.serve(t, "GATEWAY_SHARED_CACHE=on", "OTEL_EXPORTER_OTLP_ENDPOINT="+collector.URL, "OTEL_BSP_SCHEDULE_DELAY=50",
		"OTEL_SERVICE_NAME=capgate-e2e", "LOG_LEVEL=debug", "PROVIDER_PYPI_URL="+up.URL, "GATEWAY_TRACE_PROVIDERS=pypi")
	tk := d.newTenant(t, "pro")

	traceID, parentSpan := make([]byte, 16), make([]byte, 8)
	_, _ = rand.Read(traceID)
	_, _ = rand.Read(parentSpan)
	tid := hex.EncodeToString(traceID)
	traceparent := "00-" + tid + "-" + hex.EncodeToString(parentSpan) + "-01"
	r := in.call(t, http.MethodPost, "/v1/capabilities/pypkg.details/execute", tk.Live, map[string]any{"package": "SampleProject"},
		"traceparent", traceparent).mustOK(t, "pypkg.details")
	if tr := r.Header.Get("traceresponse"); !strings.HasPrefix(tr, "00-"+tid+"-") || !strings.HasSuffix(tr, "-01") {
		t.Errorf("traceresponse %q, want 00-%s-<span id>-01", tr, tid)
	}

	pypi.mu.Lock()
	parents := append([]string(nil), pypi.parents...)
	pypi.mu.Unlock()
	if len(parents) != 1 || !strings.HasPrefix(parents[0], "00-"+tid+"-") {
		t.Errorf("the upstream got traceparent %q, want one under trace %s", parents, tid)
	}

	want := []string{"POST /v1/capabilities/:id/execute", "authenticate", "rate limit", "credits.reserve",
		"cache.lookup", "upstream pypi", "credits.settle", "commit batch"}
	var spans map[string][]*tracepb.Span
	if _, ok := eventually(15*time.Second, func() bool {
		spans = recv.trace(traceID)
		for _, n := range want {
			if len(spans[n]) == 0 {
				return false
			}
		}
		return true
	}); !ok {
		names := []string{}
		for n := range spans {
			names = append(names, n)
		}
		t.Fatalf("spans of trace %s: %v, want %v\nstderr:\n%s", tid, names, want, tail(in.stderr.String(), 20))
	}
	server := spans["POST /v1/capabilities/:id/execute"][0]
	if !bytes.Equal(server.ParentSpanId, parentSpan) || server.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("the request span's parent %x kind %v, want the caller's span %x and SERVER", server.ParentSpanId, server.Kind, parentSpan)
	}
	if got := strings.Split(r.Header.Get("traceresponse"), "-"); len(got) == 4 && got[2] != hex.EncodeToString(server.SpanId) {
		t.Errorf("traceresponse names span %s, the request span is %x", got[2], server.SpanId)
	}
	for _, n := range want[1:] {
		s := spans[n][0]
		if n == "commit batch" {
			// Under the settlement that waited for it.
			if !bytes.Equal(s.ParentSpanId, spans["credits.settle"][0].SpanId) {
				t.Errorf("commit batch parent %x, want the settlement span %x", s.ParentSpanId, spans["credits.settle"][0].SpanId)
			}
			continue
		}
		if !bytes.Equal(s.ParentSpanId, server.SpanId) {
			t.Errorf("span %q has parent %x, want the request span %x", n, s.ParentSpanId, server.SpanId)
		}
	}
	upstream := spans["upstream pypi"][0]
	if upstream.Kind != tracepb.Span_SPAN_KIND_CLIENT || attr(upstream, "http.response.status_code").GetIntValue() != 200 ||
		attr(upstream, "capgate.provider").GetStringValue() != "pypi" {
		t.Errorf("upstream span: kind %v attributes %v", upstream.Kind, upstream.Attributes)
	}
	if !strings.HasPrefix(parents[0], "00-"+tid+"-"+hex.EncodeToString(upstream.SpanId)) {
		t.Errorf("the upstream's traceparent %q does not name the upstream span %x", parents[0], upstream.SpanId)
	}
	if attr(server, "capgate.capability").GetStringValue() != "pypkg.details" || attr(server, "http.response.status_code").GetIntValue() != 200 {
		t.Errorf("request span attributes %v", server.Attributes)
	}
	// Keys, secrets and the query never reach the collector.
	for _, ss := range spans {
		for _, s := range ss {
			for _, kv := range s.Attributes {
				v := kv.GetValue().GetStringValue()
				if strings.Contains(v, tk.Live) || strings.Contains(strings.ToLower(v), "sampleproject") || strings.Contains(v, "Bearer") {
					t.Errorf("span %q attribute %s = %q holds the key or the query", s.Name, kv.Key, v)
				}
			}
		}
	}
	recv.mu.Lock()
	services := recv.services
	recv.mu.Unlock()
	if len(services) == 0 || services[0] != "capgate-e2e" {
		t.Errorf("service.name %v, want OTEL_SERVICE_NAME's capgate-e2e", services)
	}
	if !strings.Contains(in.stderr.String(), "trace_id="+tid) {
		t.Errorf("the request log does not record trace_id=%s:\n%s", tid, tail(in.stderr.String(), 10))
	}

	// The dashboard and the alert rules are built on metrics this gateway exports (after a live
	// upstream call, a charged call, a commit and an error answer, every series they name exists).
	in.call(t, http.MethodPost, "/v1/capabilities/no.such/execute", tk.Live, map[string]any{})
	oneCreditSandboxCall(t, in, tk.Test) // a charged call (pypkg.details is free)
	// The first call again, untraced: a hit of the shared cache (its saved-calls series exist).
	if hit := in.call(t, http.MethodPost, "/v1/capabilities/pypkg.details/execute", tk.Live, map[string]any{"package": "SampleProject"}).mustOK(t, "repeat"); hit.Header.Get("Capgate-Cache") != "hit" {
		t.Errorf("the repeated call: Capgate-Cache %q, want hit", hit.Header.Get("Capgate-Cache"))
	}
	in.get(t, "/readyz", "")
	checkOperatorMetrics(t, in)

	// Without a traceparent a trace is started and still answered.
	r = in.call(t, http.MethodPost, "/v1/capabilities/pypkg.details/execute", tk.Live, map[string]any{"package": "SampleProject"}).mustOK(t, "second call")
	if tr := r.Header.Get("traceresponse"); len(tr) != 55 || strings.Contains(tr, tid) {
		t.Errorf("traceresponse %q of a call without traceparent, want a new trace", tr)
	}
}

// checkOperatorMetrics requires every metric named by deploy/grafana's dashboard and
// deploy/prometheus's rules in the instance's /metrics, and the files to be well formed.
func checkOperatorMetrics(t *testing.T, in *instance) {
	t.Helper()
	res, err := httpClient.Get(in.Base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	exposition, _ := io.ReadAll(res.Body)
	res.Body.Close()
	exported := map[string]bool{}
	for _, line := range strings.Split(string(exposition), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		exported[strings.FieldsFunc(line, func(r rune) bool { return r == '{' || r == ' ' })[0]] = true
	}

	var exprs []string
	raw, err := os.ReadFile(filepath.Join("..", "deploy", "grafana", "capgate-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	for _, p := range dash.Panels {
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("a %s panel has no query", p.Type)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	raw, err = os.ReadFile(filepath.Join("..", "deploy", "prometheus", "capgate-alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert  string            `yaml:"alert"`
				Expr   string            `yaml:"expr"`
				Labels map[string]string `yaml:"labels"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &rules); err != nil || len(rules.Groups) == 0 {
		t.Fatalf("the alert rules do not parse: %v", err)
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" || r.Labels["severity"] == "" {
				t.Errorf("rule %q: want alert, expr and a severity label", r.Alert)
			}
			exprs = append(exprs, r.Expr)
		}
	}
	names := regexp.MustCompile(`\b(?:capgate|go|process)_[a-z0-9_]+`)
	seen := 0
	for _, e := range exprs {
		for _, n := range names.FindAllString(e, -1) {
			seen++
			if !exported[n] {
				t.Errorf("%s (in %q) is not exported by the gateway", n, e)
			}
		}
	}
	if seen < 20 {
		t.Fatalf("only %d metric references found in the dashboard and rules", seen)
	}
}

func attr(s *tracepb.Span, key string) *commonpb.AnyValue {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

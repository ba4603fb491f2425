package tenants

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/capgate/capgate/internal/telemetry"
)

// The write path's metrics. They are per process (as the Go runtime's are): the serving process
// has one meter and one writer; Collectors registers them.
var (
	commitBatchCalls = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "capgate_commit_batch_calls",
		Help:    "Calls carried by one group-commit transaction.",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}})
	commitDuration = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "capgate_commit_duration_seconds",
		Help:    "Time one group-commit batch took to commit (its transaction, and the call-by-call retry after a failed one).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}})
	commitFailures = prometheus.NewCounter(prometheus.CounterOpts{Name: "capgate_commit_failed_calls_total",
		Help: "Calls whose commit failed (their callers got an error and were not charged)."})
	leaseGrants = prometheus.NewCounter(prometheus.CounterOpts{Name: "capgate_credit_lease_grants_total",
		Help: "Credit leases taken or topped up from a period row."})
	leaseGranted = prometheus.NewCounter(prometheus.CounterOpts{Name: "capgate_credit_lease_granted_credits_total",
		Help: "Credits moved from periods into this instance's leases."})
	leaseWait = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "capgate_credit_lease_wait_seconds",
		Help:    "Time a reservation or charge waited for credits to be leased from the period (database round trips).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}})
)

// Collectors are the write path's metrics, for the serving process's registry.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{commitBatchCalls, commitDuration, commitFailures, leaseGrants, leaseGranted, leaseWait}
}

func observeLeaseGrant(credits int64) {
	leaseGrants.Inc()
	leaseGranted.Add(float64(credits))
}

func observeLeaseWait(start time.Time) { leaseWait.Observe(time.Since(start).Seconds()) }

// batchObservation measures one batch from before its commit to after it (a value, not a
// closure: nothing is allocated per batch while tracing is off).
type batchObservation struct {
	start time.Time
	span  trace.Span
}

// observeBatch starts measuring a batch. While tracing is on the batch is a span under the
// first call's span, linked to the others' (a span has one parent, and a batch serves many
// traces).
func observeBatch(batch []*commit) batchObservation {
	start := time.Now()
	span := telemetry.Off()
	if telemetry.Enabled() {
		var parent trace.SpanContext
		links := make([]trace.Link, 0, len(batch))
		for _, c := range batch {
			switch {
			case !c.trace.IsValid():
			case !parent.IsValid():
				parent = c.trace
			default:
				links = append(links, trace.Link{SpanContext: c.trace})
			}
		}
		ctx := context.Background()
		if parent.IsValid() {
			ctx = trace.ContextWithSpanContext(ctx, parent)
		}
		_, span = telemetry.Start(ctx, "commit batch", trace.WithLinks(links...),
			trace.WithAttributes(attribute.Int("capgate.batch_calls", len(batch))))
	}
	return batchObservation{start: start, span: span}
}

// end records the committed batch.
func (o batchObservation) end(batch []*commit) {
	commitDuration.Observe(time.Since(o.start).Seconds())
	commitBatchCalls.Observe(float64(len(batch)))
	failed := 0
	for _, c := range batch {
		if c.err != nil {
			failed++
		}
	}
	var err error
	if failed > 0 {
		commitFailures.Add(float64(failed))
		err = errBatchFailed
		o.span.SetAttributes(attribute.Int("capgate.failed_calls", failed))
	}
	telemetry.End(o.span, err, "commit_failed")
}

var errBatchFailed = errors.New("calls of the batch failed to commit")

package gateway

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/capgate/capgate/tenants"
)

type metrics struct {
	requests      *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	credits       *prometheus.CounterVec
	rateLimited   prometheus.Counter
	limiterErrors prometheus.Counter
	errors        *prometheus.CounterVec
	reserveWait   prometheus.Histogram
	ready         prometheus.Gauge
	// swallowed counts errors that do not fail a request (a stored field that no longer
	// decodes), by where they happened.
	swallowed *prometheus.CounterVec
}

func newMetrics(reg *prometheus.Registry, retired Reviewers) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "capgate_http_requests_total",
			Help: "HTTP requests by route, status and capability."}, []string{"route", "status", "capability"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "capgate_http_request_duration_seconds",
			Help: "HTTP request latency by route and capability.", Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 45}}, []string{"route", "capability"}),
		credits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "capgate_credits_charged_total",
			Help: "Credits charged by capability and key mode."}, []string{"capability", "mode"}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{Name: "capgate_rate_limited_total",
			Help: "Requests refused by the rate limiter."}),
		limiterErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "capgate_rate_limiter_errors_total",
			Help: "Rate limiter failures (requests were let through)."}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "capgate_http_errors_total",
			Help: "Error answers by capability and error code (the envelope's code)."}, []string{"capability", "code"}),
		reserveWait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "capgate_credit_reserve_duration_seconds",
			Help:    "Time a billed call waited for its credit reservation (a lease top-up from the database included).",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1}}),
		ready: prometheus.NewGauge(prometheus.GaugeOpts{Name: "capgate_ready",
			Help: "The last /readyz answer of this instance: 1 ready, 0 not ready."}),
		swallowed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "capgate_swallowed_errors_total",
			Help: "Errors that did not fail a request, by where they happened."}, []string{"site"}),
	}
	reg.MustRegister(m.requests, m.latency, m.credits, m.rateLimited, m.limiterErrors, m.errors, m.reserveWait, m.ready, m.swallowed, retiredCollector{retired})
	return m
}

// retiredDesc is 1 for a reviewer family and tier whose last live call the vendor answered with
// "no such model" (a retired or mistyped model: set SHARPEN_MODEL_<FAMILY>_<TIER>), else 0. Every
// family and tier is exported, so an alert can be written as == 1.
var retiredDesc = prometheus.NewDesc("capgate_reviewer_model_retired",
	"1 when the reviewer family's last live call at the sharpen tier failed with the vendor's no-such-model answer.",
	[]string{"family", "tier"}, nil)

// retiredCollector reads the reviewer panel at each scrape (nothing without a panel).
type retiredCollector struct{ r Reviewers }

func (c retiredCollector) Describe(ch chan<- *prometheus.Desc) { ch <- retiredDesc }

func (c retiredCollector) Collect(ch chan<- prometheus.Metric) {
	if c.r == nil {
		return
	}
	for _, f := range c.r.Families() {
		for _, t := range sharpenTiers {
			v := 0.0
			if c.r.IsRetired(f, t) {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(retiredDesc, prometheus.GaugeValue, v, f, t)
		}
	}
}

// faultCounters are the stores' own counters of failures that did not fail a call.
type meterFaults interface{ Faults() tenants.MeterFaults }
type cacheFaults interface{ CacheFailures() uint64 }

// registerStoreFaults exports the meter's and the session cache's fault counters.
func registerStoreFaults(reg *prometheus.Registry, meter any, sessions any) {
	if mf, ok := meter.(meterFaults); ok {
		counter := func(name, help string, get func(tenants.MeterFaults) uint64) prometheus.Collector {
			return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
				func() float64 { return float64(get(mf.Faults())) })
		}
		reg.MustRegister(
			counter("capgate_commit_failures_total", "Group-commit transactions that returned an error.",
				func(f tenants.MeterFaults) uint64 { return f.FailedBatches }),
			counter("capgate_commit_committed_after_error_total", "Failed group commits found committed by the look-up (a COMMIT reply lost).",
				func(f tenants.MeterFaults) uint64 { return f.CommittedAnyway }),
			counter("capgate_commit_outcome_unknown_total", "Calls whose commit outcome could not be looked up (answered 503, credits held).",
				func(f tenants.MeterFaults) uint64 { return f.UnknownCalls }),
			counter("capgate_lease_settle_topup_failures_total", "Failed lease top-ups for a charge above its reservation (charged less).",
				func(f tenants.MeterFaults) uint64 { return f.SettleTopUps }),
			counter("capgate_lease_renewal_failures_total", "Failed credit lease renewals.",
				func(f tenants.MeterFaults) uint64 { return f.Renewals }),
			counter("capgate_lease_release_failures_total", "Failed credit lease releases (reconciliation returns them after expiry).",
				func(f tenants.MeterFaults) uint64 { return f.Releases }),
		)
	}
	if cf, ok := sessions.(cacheFaults); ok {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "capgate_session_cache_fill_failures_total",
			Help: "Session edge-cache fills that failed (the database still serves them)."},
			func() float64 { return float64(cf.CacheFailures()) }))
	}
}

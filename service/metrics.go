package service

import (
	"net/http"
	"sync"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are a node's Prometheus metrics, on a registry of its own (so
// several nodes may live in one test process).
type metrics struct {
	reg      *prometheus.Registry
	latency  *prometheus.HistogramVec
	record   *prometheus.HistogramVec
	waiting  *prometheus.GaugeVec
	sessions prometheus.Gauge
	grpc     *grpcprom.ServerMetrics
	// calls counts the calls carried by Calls streams, which grpc counts
	// as one stream each, by method and code (grpc's labels).
	calls *prometheus.CounterVec
	// limitRejects counts the requests refused at a limit of the node,
	// by limit: "sessions", "semaphores", "locks", "names".
	limitRejects *prometheus.CounterVec
	// refreshes counts the refreshes this node asked for (refresh.go),
	// and retired the messages of the instances retired: a counter does
	// not go down when an instance goes.
	refreshes prometheus.Counter
	pause     prometheus.Histogram
	retiredMu sync.Mutex
	retired   map[string]int64
}

// messages counts the algorithm messages the node's processes sent, by
// message kind, from the instances' hosts when scraped. Its label is
// "message", not "kind": "kind" is the request's kind (exclusive, pool,
// quota) on the other families, and one label name means one thing.
type messages struct{ from []sentCounter }

// sentCounter adds the algorithm messages it knows were sent, by kind, to
// byKind: the node's instances (views) and those it retired (metrics).
type sentCounter interface {
	addSent(byKind map[string]int64)
}

var messagesDesc = prometheus.NewDesc("allot_messages_total", "Algorithm messages sent by this node's processes, by message kind.", []string{"message"}, nil)

func (m messages) Describe(ch chan<- *prometheus.Desc) { ch <- messagesDesc }

func (m messages) Collect(ch chan<- prometheus.Metric) {
	byKind := map[string]int64{}
	for _, c := range m.from {
		c.addSent(byKind)
	}
	for k, v := range byKind {
		ch <- prometheus.MustNewConstMetric(messagesDesc, prometheus.CounterValue, float64(v), k)
	}
}

// addSent adds the messages of the retired instances to byKind.
func (m *metrics) addSent(byKind map[string]int64) {
	m.retiredMu.Lock()
	defer m.retiredMu.Unlock()
	for k, v := range m.retired {
		byKind[k] += v
	}
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "allot_acquire_seconds",
			Help:    "Time from a request to its grant at this node, by kind.",
			Buckets: prometheus.ExponentialBuckets(50e-6, 2, 18),
		}, []string{"kind"}),
		record: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "allot_grant_record_seconds",
			Help:    "Time from a grant at this node to its record at the session's backup, which its answer waits for, by kind (0 in a one-node cluster: no backup).",
			Buckets: prometheus.ExponentialBuckets(25e-6, 2, 18),
		}, []string{"kind"}),
		waiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "allot_waiting_requests",
			Help: "Requests of this node's sessions waiting for a grant (the queue length), by kind.",
		}, []string{"kind"}),
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "allot_sessions",
			Help: "Open client sessions at this node.",
		}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "allot_stream_calls_total",
			Help: "Calls answered on Calls streams (Lock, Unlock, Acquire, Release), by method and status code; grpc_server_handled_total counts the unary calls, and each Calls stream once.",
		}, []string{"grpc_method", "grpc_code"}),
		limitRejects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "allot_limit_rejects_total",
			Help: "Requests refused because a limit of this node was reached (RESOURCE_EXHAUSTED), by limit: sessions (--max-sessions), semaphores (--max-semaphores), locks (--max-locks: lock requests open at once), names (lock names of one view at one home, 2^24/N).",
		}, []string{"limit"}),
	}
	m.refreshes, m.pause, m.retired = refreshMetrics(), pauseMetric(), map[string]int64{}
	m.grpc = newServerMetrics()
	for _, l := range []string{"sessions", "semaphores", "locks", "names"} {
		m.limitRejects.WithLabelValues(l) // 0 until the first reject: a rate is defined from the start
	}
	m.reg.MustRegister(m.latency, m.record, m.waiting, m.sessions, m.grpc, m.calls, m.limitRejects, m.refreshes, m.pause,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// keep adds a retired instance's messages to the node's count.
func (m *metrics) keep(byKind map[string]int64) {
	m.retiredMu.Lock()
	defer m.retiredMu.Unlock()
	for k, v := range byKind {
		m.retired[k] += v
	}
}

// Metrics is the node's /metrics handler.
func (n *Node) Metrics() http.Handler {
	return promhttp.HandlerFor(n.metrics.reg, promhttp.HandlerOpts{})
}

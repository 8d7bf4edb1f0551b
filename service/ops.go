package service

import (
	"context"
	"strconv"
	"time"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/service/internal/space"
	tgrpc "github.com/allot-dev/allot/transport/grpc"
)

// What an operator's tools see of a node beside the Allot API: the
// standard gRPC health service (load balancers and orchestrators ask it
// whether to send clients here), server reflection (grpcurl lists and
// calls the API without the .proto), and the gauges of the node's place
// in the cluster.

// MaxTTL is the longest session TTL a node accepts (client.MaxTTL is the
// same): a holder that dies without closing its session keeps its locks
// for its TTL, and a bound keeps the node's time arithmetic far from
// overflow (a TTL of 2^63ns would wrap to the past).
const MaxTTL = 24 * time.Hour

// healthEvery is how often the health status follows the node's state: a
// lease runs out without an event, so the status is polled.
const healthEvery = 20 * time.Millisecond

// nodeHealth is the node's grpc.health.v1 service, s (nil until
// register): NOT_SERVING until the node serves, then following it.
type nodeHealth struct{ s *health.Server }

// servingReader is what the health service reads of its node: whether
// it serves clients now.
type servingReader interface{ servesNow() bool }

// register registers the health service on s.
func (h *nodeHealth) register(s *grpc.Server) {
	h.s = health.NewServer()
	// NOT_SERVING until the node serves a view (the health server
	// starts every service at SERVING).
	h.set(false)
	healthpb.RegisterHealthServer(s, h.s)
}

// set sets the status of the whole server ("") and of the Allot service
// alike: a node serves all of the API or none of it.
func (h *nodeHealth) set(serving bool) {
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if serving {
		st = healthpb.HealthCheckResponse_SERVING
	}
	h.s.SetServingStatus("", st)
	h.s.SetServingStatus(pb.Allot_ServiceDesc.ServiceName, st)
}

// follow keeps the status equal to n's servesNow until ctx ends, then
// leaves it NOT_SERVING.
func (h *nodeHealth) follow(ctx context.Context, n servingReader) {
	t := time.NewTicker(healthEvery)
	defer t.Stop()
	last := false
	for {
		select {
		case <-ctx.Done():
			h.s.Shutdown()
			return
		case <-t.C:
		}
		if now := n.servesNow(); now != last {
			h.set(now)
			last = now
		}
	}
}

// servesNow reports whether the node serves clients now: it is a member
// of a view agreed by the control plane, ready, within its lease, and not
// draining.
func (n *Node) servesNow() bool {
	if n.draining.Load() {
		return false
	}
	epoch, ok := n.readyEpoch()
	return ok && n.ctl.serving(epoch)
}

// readyEpoch is the epoch of the view the node is in, if it is ready.
func (n *Node) readyEpoch() (uint64, bool) {
	st := n.views.current()
	if st == nil {
		return 0, false
	}
	select {
	case <-st.ready:
		return st.v.Epoch, true
	default:
		return st.v.Epoch, false
	}
}

// newServerMetrics are the gRPC server's metrics: calls started and
// handled by method and code, and their handling time.
func newServerMetrics() *grpcprom.ServerMetrics {
	return grpcprom.NewServerMetrics(grpcprom.WithServerHandlingTimeHistogram())
}

// serverOptions are the interceptors that count the server's calls.
func (n *Node) serverOptions() []grpc.ServerOption {
	return append([]grpc.ServerOption{
		grpc.ChainUnaryInterceptor(n.metrics.grpc.UnaryServerInterceptor()),
		grpc.ChainStreamInterceptor(n.metrics.grpc.StreamServerInterceptor()),
	}, tgrpc.ServerOptions()...)
}

// state is the node's place in the cluster, p, and its links, l, read
// when scraped.
type state struct {
	p placeReader
	l linkReader
}

// placeReader is what state reads of its node: its view, whether it
// serves, the grants its sessions hold and the lock names in its tables.
type placeReader interface {
	viewNow() space.View // the zero View: none yet
	servesNow() bool
	held() int
	nameCount() int
}

// linkReader is what state reads of the node's links (membership).
type linkReader interface {
	// links is the node's link counts and the links to the members it
	// links to, by id; false before the node has its transport.
	links() (tgrpc.LinkStats, []peerLink, bool)
}

// peerLink is the link to member id.
type peerLink struct {
	id int
	tgrpc.PeerState
}

// viewNow is the view the node is in (the zero View: none yet).
func (n *Node) viewNow() space.View {
	if st := n.views.current(); st != nil {
		return st.v
	}
	return space.View{}
}

var (
	epochDesc   = prometheus.NewDesc("allot_view_epoch", "Epoch of the view this node is in (0: none yet).", nil, nil)
	servingDesc = prometheus.NewDesc("allot_serving", "1 while this node serves clients (a ready member of the view, within its lease, not draining), else 0; what grpc.health.v1 answers.", nil, nil)
	membersDesc = prometheus.NewDesc("allot_view_members", "Nodes in the view this node is in.", nil, nil)
	linkDesc    = prometheus.NewDesc("allot_peer_link_up", "1 while the link to the other node is up, by node index.", []string{"peer"}, nil)
	heldDesc    = prometheus.NewDesc("allot_held_grants", "Grants (locks, semaphore units, quota permits in flight) held by this node's sessions.", nil, nil)
	framesDesc  = prometheus.NewDesc("allot_link_messages_total", "Messages this node sent to other nodes over its links (algorithm instances and control plane, resends included).", nil, nil)
	batchesDesc = prometheus.NewDesc("allot_link_batches_total", "Batches of messages and acks this node sent over its links: a gRPC message each on a stream, a write on the plain carrier.", nil, nil)
	plainDesc   = prometheus.NewDesc("allot_peer_link_plain", "1 while the link to the other node is up on the plain carrier (a TCP connection of its own, TLS in a secure cluster), 0 while on a gRPC stream or down, by node index.", []string{"peer"}, nil)
	namesDesc   = prometheus.NewDesc("allot_lock_names", "Lock names in this node's tables for its view (homed here, or answers of their homes); given back at the next view change.", nil, nil)
)

func (s state) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{epochDesc, servingDesc, membersDesc, linkDesc, plainDesc, heldDesc, framesDesc, batchesDesc, namesDesc} {
		ch <- d
	}
}

func (s state) Collect(ch chan<- prometheus.Metric) {
	v := s.p.viewNow()
	ch <- prometheus.MustNewConstMetric(epochDesc, prometheus.GaugeValue, float64(v.Epoch))
	ch <- prometheus.MustNewConstMetric(membersDesc, prometheus.GaugeValue, float64(v.Members.Len()))
	serving := 0.0
	if s.p.servesNow() {
		serving = 1
	}
	ch <- prometheus.MustNewConstMetric(servingDesc, prometheus.GaugeValue, serving)
	ch <- prometheus.MustNewConstMetric(heldDesc, prometheus.GaugeValue, float64(s.p.held()))
	ch <- prometheus.MustNewConstMetric(namesDesc, prometheus.GaugeValue, float64(s.p.nameCount()))
	ls, peers, ok := s.l.links()
	if !ok {
		return
	}
	ch <- prometheus.MustNewConstMetric(framesDesc, prometheus.CounterValue, float64(ls.Frames))
	ch <- prometheus.MustNewConstMetric(batchesDesc, prometheus.CounterValue, float64(ls.Batches))
	for _, p := range peers {
		up := 0.0
		if p.Up {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(linkDesc, prometheus.GaugeValue, up, strconv.Itoa(p.id))
		plain := 0.0
		if p.Carrier == tgrpc.PlainCarrier {
			plain = 1
		}
		ch <- prometheus.MustNewConstMetric(plainDesc, prometheus.GaugeValue, plain, strconv.Itoa(p.id))
	}
}

package service_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	refpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service"
)

// opsNode is one node of opsCluster.
type opsNode struct {
	n    *service.Node
	srv  *grpc.Server
	addr string
	stop func()
}

// opsCluster starts n nodes in this process on loopback ports, each on
// the server NewServer builds (with its gRPC metrics), their configs
// changed by edits; each stops when the test ends or when its stop is
// called.
func opsCluster(t *testing.T, n int, edits ...func(*service.Config)) []*opsNode {
	t.Helper()
	var lns []net.Listener
	var addrs []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	var nodes []*opsNode
	for i := range n {
		cfg := service.Config{Cluster: service.Cluster{Nodes: addrs}, Self: i}
		for _, edit := range edits {
			edit(&cfg)
		}
		nd, err := service.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := nd.NewServer()
		if err != nil {
			t.Fatal(err)
		}
		go nd.Serve(s, lns[i]) // as allot serve does: links on the plain carrier
		var once sync.Once
		on := &opsNode{n: nd, srv: s, addr: addrs[i]}
		on.stop = func() {
			once.Do(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				defer cancel()
				nd.Shutdown(ctx)
				s.Stop()
			})
		}
		t.Cleanup(on.stop)
		nodes = append(nodes, on)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, on := range nodes {
		if err := on.n.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return nodes
}

func dialRaw(t testing.TB, addr string) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

// waitHealth waits until the node at cc answers want for service, for at
// most d; it fails the test with the last answer otherwise.
func waitHealth(t *testing.T, cc *grpc.ClientConn, service string, want healthpb.HealthCheckResponse_ServingStatus, d time.Duration) {
	t.Helper()
	hc := healthpb.NewHealthClient(cc)
	give := time.Now().Add(d)
	var last string
	for time.Now().Before(give) {
		r, err := hc.Check(context.Background(), &healthpb.HealthCheckRequest{Service: service})
		if err == nil && r.Status == want {
			return
		}
		last = fmt.Sprint(r.GetStatus(), err)
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("health of %q: %s after %v, want %v", service, last, d, want)
}

// TestHealth: a node answers SERVING while it serves a view; cut off from
// its majority (its lease runs out: it is fenced) it answers NOT_SERVING,
// and so does a node draining at Shutdown.
func TestHealth(t *testing.T) {
	nodes := opsCluster(t, 3)
	cc0, cc2 := dialRaw(t, nodes[0].addr), dialRaw(t, nodes[2].addr)
	for _, svc := range []string{"", "allot.v1.Allot"} {
		waitHealth(t, cc0, svc, healthpb.HealthCheckResponse_SERVING, 2*time.Second)
	}
	// Node 2 drains, waiting for a lock its session holds: NOT_SERVING
	// at once (within the poll), while it still waits.
	api := pb.NewAllotClient(cc2)
	ss, err := api.OpenSession(context.Background(), &pb.OpenSessionRequest{TtlMs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.Lock(context.Background(), &pb.LockRequest{Session: ss.Session, Resources: []string{"drain"}}); err != nil {
		t.Fatal(err)
	}
	drained := make(chan struct{})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		defer cancel()
		nodes[2].n.Shutdown(ctx)
		close(drained)
	}()
	waitHealth(t, cc2, "allot.v1.Allot", healthpb.HealthCheckResponse_NOT_SERVING, time.Second)
	select {
	case <-drained:
		t.Fatal("the drain ended with the lock still held: the test saw a stopped node, not a draining one")
	default:
	}
	// Node 2 stops when its drain times out (a stop, not a leave); then
	// node 1 stops: node 0 is alone, with no majority to serve a view
	// again, and its lease runs out.
	<-drained
	nodes[1].stop()
	waitHealth(t, cc0, "allot.v1.Allot", healthpb.HealthCheckResponse_NOT_SERVING, 10*time.Second)
	waitHealth(t, cc0, "", healthpb.HealthCheckResponse_NOT_SERVING, time.Second)
	// The gauges say the same: not serving, the link to node 1 down.
	var text string
	for give := time.Now().Add(5 * time.Second); time.Now().Before(give); time.Sleep(20 * time.Millisecond) {
		if text = scrape(nodes[0].n); strings.Contains(text, "allot_serving 0") && strings.Contains(text, `allot_peer_link_up{peer="1"} 0`) {
			return
		}
	}
	t.Errorf("/metrics of the fenced node, 5s on, lacks allot_serving 0 or allot_peer_link_up{peer=\"1\"} 0:\n%s", text)
}

// TestHealthWhileStarting: a node whose cluster has no majority yet (the
// other node of two never starts) answers NOT_SERVING, not the health
// server's initial SERVING.
func TestHealthWhileStarting(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n, err := service.New(service.Config{Cluster: service.Cluster{Nodes: []string{ln.Addr().String(), "127.0.0.1:1"}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := n.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Stop()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		n.Shutdown(ctx)
	}()
	hc := healthpb.NewHealthClient(dialRaw(t, ln.Addr().String()))
	for range 5 {
		for _, svc := range []string{"", "allot.v1.Allot"} {
			r, err := hc.Check(context.Background(), &healthpb.HealthCheckRequest{Service: svc})
			if err != nil || r.Status != healthpb.HealthCheckResponse_NOT_SERVING {
				t.Fatalf("health of %q while starting: %v %v, want NOT_SERVING", svc, r.GetStatus(), err)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestReflection: a reflection client lists the Allot API and the health
// service, and resolves the Allot service's file (what grpcurl does).
func TestReflection(t *testing.T) {
	nodes := opsCluster(t, 1)
	cc := dialRaw(t, nodes[0].addr)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := refpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(&refpb.ServerReflectionRequest{MessageRequest: &refpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	r, err := st.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range r.GetListServicesResponse().GetService() {
		names = append(names, s.Name)
	}
	for _, want := range []string{"allot.v1.Allot", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection"} {
		if !slices.Contains(names, want) {
			t.Errorf("reflection lists %v, without %s", names, want)
		}
	}
	if err := st.Send(&refpb.ServerReflectionRequest{MessageRequest: &refpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: "allot.v1.Allot"}}); err != nil {
		t.Fatal(err)
	}
	if r, err = st.Recv(); err != nil {
		t.Fatal(err)
	}
	if len(r.GetFileDescriptorResponse().GetFileDescriptorProto()) == 0 {
		t.Errorf("no file for allot.v1.Allot: %v", r)
	}
}

// scrape returns node's /metrics.
func scrape(n *service.Node) string {
	rec := httptest.NewRecorder()
	n.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

// promtool runs promtool check metrics on text; "" if it passes, else
// what it said.
func promtool(t *testing.T, text string) string {
	t.Helper()
	cmd := exec.Command("promtool", "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Sprintf("%v: %s", err, out.String())
	}
	return ""
}

// TestMetricsUnderLoad: a scrape taken while sessions lock and unlock has
// the families docs/service.md names, and passes promtool check metrics
// (when promtool is installed: Debian's prometheus package). promtool is
// first shown to reject a family that breaks its rules.
func TestMetricsUnderLoad(t *testing.T) {
	if _, err := exec.LookPath("promtool"); err != nil {
		t.Skip("promtool is not installed (Debian: apt-get install prometheus): the metrics are not linted")
	}
	if got := promtool(t, "# HELP requests Requests.\n# TYPE requests counter\nrequests 1\n"); got == "" {
		t.Fatal("promtool accepts a counter without the _total suffix: it checks nothing")
	}
	nodes := opsCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, nodes[0].addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Load: 8 sessions each lock and unlock a name of their own, for
	// 300ms at most and 200 locks each at most.
	var wg sync.WaitGroup
	until := time.Now().Add(300 * time.Millisecond)
	for i := range 8 {
		s, err := c.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			for k := 0; k < 200 && time.Now().Before(until); k++ {
				g, err := s.Lock(ctx, fmt.Sprintf("load/%d", i))
				if err != nil {
					t.Error(err)
					return
				}
				if err := g.Unlock(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	time.Sleep(100 * time.Millisecond)
	text := scrape(nodes[0].n)
	wg.Wait()
	if got := promtool(t, text); got != "" {
		t.Errorf("promtool check metrics: %s", got)
	}
	for _, want := range []string{
		"allot_serving 1", "allot_view_epoch ", "allot_view_members 3",
		"allot_peer_link_up{peer=\"1\"} 1", "allot_peer_link_up{peer=\"2\"} 1",
		"allot_peer_link_plain{peer=\"1\"} 1", "allot_peer_link_plain{peer=\"2\"} 1",
		"allot_sessions 8", "allot_held_grants ", "allot_lock_names ", "allot_messages_total{message=",
		`grpc_server_handled_total{grpc_code="OK",grpc_method="Lock",grpc_service="allot.v1.Allot",grpc_type="unary"}`,
		// The Go client's Locks and Unlocks, on its Calls stream.
		`allot_stream_calls_total{grpc_code="OK",grpc_method="Lock"} `,
		`allot_stream_calls_total{grpc_code="OK",grpc_method="Unlock"} `,
		"go_goroutines ", "process_resident_memory_bytes ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	// Eight sessions locking on three nodes have crossed the links.
	for _, want := range []string{"allot_link_messages_total", "allot_link_batches_total"} {
		if !regexp.MustCompile(`(?m)^` + want + ` [1-9]`).MatchString(text) {
			t.Errorf("/metrics lacks a positive %s", want)
		}
	}
}

// TestTTLBound: OpenSession refuses a TTL that is not positive or is above
// MaxTTL (2^63-1ms, which would overflow a time.Duration, included) with
// INVALID_ARGUMENT naming the limit, and accepts MaxTTL itself.
func TestTTLBound(t *testing.T) {
	nodes := opsCluster(t, 1)
	api := pb.NewAllotClient(dialRaw(t, nodes[0].addr))
	ctx := context.Background()
	for _, ms := range []int64{0, -1, service.MaxTTL.Milliseconds() + 1, math.MaxInt64} {
		_, err := api.OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: ms})
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "at most 86400000ms (24h0m0s)") {
			t.Errorf("TTL %dms: %v, want INVALID_ARGUMENT with the limit", ms, err)
		}
	}
	r, err := api.OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: service.MaxTTL.Milliseconds()})
	if err != nil || r.TtlMs != service.MaxTTL.Milliseconds() {
		t.Fatalf("TTL of MaxTTL: %v, %v", r, err)
	}
	if _, err := api.KeepAlive(ctx, &pb.KeepAliveRequest{Session: r.Session}); err != nil {
		t.Errorf("a session of MaxTTL is not alive: %v", err)
	}
}

// TestIDsBelow2To53: the session and grant ids a node hands out are exact
// as JavaScript numbers (below 2^53).
func TestIDsBelow2To53(t *testing.T) {
	nodes := opsCluster(t, 1)
	api := pb.NewAllotClient(dialRaw(t, nodes[0].addr))
	ctx := context.Background()
	s, err := api.OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 5000})
	if err != nil {
		t.Fatal(err)
	}
	g, err := api.Lock(ctx, &pb.LockRequest{Session: s.Session, Resources: []string{"ids"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Session >= service.MaxID || g.Grant >= service.MaxID {
		t.Errorf("session %d, grant %d: not below 2^53", s.Session, g.Grant)
	}
}

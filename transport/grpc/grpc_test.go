package grpc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/doorway"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/host"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
	grpcnet "github.com/allot-dev/allot/transport/grpc"
	"github.com/allot-dev/allot/transport/transporttest"
)

// cluster is a transport.Transport over several nodes on loopback: process
// p lives on node p mod len(nodes); each call goes to the node of the
// process it is about (a send, to the sender's node), and a cut breaks the
// connection between two nodes at both ends.
type cluster struct {
	nodes []*grpcnet.Transport
}

var _ transport.Cutter = (*cluster)(nil)

func (c *cluster) of(p proc.ID) *grpcnet.Transport { return c.nodes[max(0, int(p))%len(c.nodes)] }

func (c *cluster) Register(id proc.ID, h transport.Handler) error { return c.of(id).Register(id, h) }
func (c *cluster) Unregister(id proc.ID) error                    { return c.of(id).Unregister(id) }
func (c *cluster) Send(from, to proc.ID, m proc.Message) error    { return c.of(from).Send(from, to, m) }
func (c *cluster) Ordered() bool                                  { return true }
func (c *cluster) Cut(a, b proc.ID)                               { c.of(a).Cut(a, b); c.of(b).Cut(a, b) }
func (c *cluster) Restore(a, b proc.ID)                           { c.of(a).Restore(a, b); c.of(b).Restore(a, b) }
func (c *cluster) Close() error {
	var err error
	for _, n := range c.nodes {
		if e := n.Close(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// newClusterWith starts n nodes on loopback ports, carrying the messages
// of algs (and the suite's test message), with the nodes' configurations
// changed by mod first (nil: as they are). A node with Plain shares its one
// port between the carriers (Split).
func newClusterWith(t testing.TB, n int, mod func(i int, cfg *grpcnet.Config), algs ...algo.Algorithm) *cluster {
	t.Helper()
	algs = append(algs, algo.Algorithm{Name: "transporttest", Messages: []proc.Message{transporttest.Msg{}}})
	cd, err := codec.New(algs...)
	if err != nil {
		t.Fatal(err)
	}
	name := func(i int) string { return fmt.Sprintf("node%d", i) }
	lis := make([]net.Listener, n)
	peers := map[string]string{}
	for i := range lis {
		if lis[i], err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		peers[name(i)] = lis[i].Addr().String()
	}
	place := func(_ string, p proc.ID) (string, bool) {
		if p < 0 || p > 63 || p == 99 {
			return "", false
		}
		return name(int(p) % n), true
	}
	c := &cluster{}
	for i := range lis {
		cfg := grpcnet.Config{Node: name(i), Listener: lis[i], Peers: peers, Place: place, Codec: cd}
		if mod != nil {
			mod(i, &cfg)
		}
		c.nodes = append(c.nodes, start(t, cfg))
	}
	return c
}

// carriers are the two ways a link is carried, as options of a node.
var carriers = []struct {
	name string
	mod  func(i int, cfg *grpcnet.Config)
}{
	{"stream", nil},
	{"plain", func(_ int, cfg *grpcnet.Config) { cfg.Plain = &grpcnet.Plain{} }},
}

// start starts a node of cfg on cfg.Listener; with Plain, that one port is
// split between the carriers (Split), as a service node's is.
func start(t testing.TB, cfg grpcnet.Config) *grpcnet.Transport {
	t.Helper()
	var links net.Listener
	if cfg.Plain != nil {
		cfg.Listener, links = grpcnet.Split(cfg.Listener)
	}
	node, err := grpcnet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if links != nil {
		if err := node.AcceptPlain(links); err != nil {
			t.Fatal(err)
		}
	}
	return node
}

func TestContract(t *testing.T) {
	for _, cr := range carriers {
		t.Run(cr.name, func(t *testing.T) {
			transporttest.Run(t, func(t testing.TB) transport.Transport { return newClusterWith(t, 3, cr.mod) })
		})
	}
}

// TestDoorwayOverGRPCWithCuts runs Choy and Singh's algorithm (it needs
// FIFO channels) on three nodes over gRPC, while connections between the
// nodes are cut and restored every few milliseconds, in real time under
// the checkers: a lost or duplicated fork would show as a deadlock or an
// exclusion violation.
func TestDoorwayOverGRPCWithCuts(t *testing.T) {
	for _, cr := range carriers {
		t.Run(cr.name, func(t *testing.T) { doorwayWithCuts(t, cr.mod) })
	}
}

func doorwayWithCuts(t *testing.T, mod func(int, *grpcnet.Config)) {
	g, err := graph.Parse("random:9:0.4", rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	pb := algo.DiningProblem(g)
	pb.FIFO = true
	procs, err := doorway.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	c := newClusterWith(t, 3, mod, doorway.Algorithm)
	stop := make(chan struct{})
	var cuts atomic.Int32
	var wg sync.WaitGroup
	wg.Go(func() {
		rnd := rand.New(rand.NewPCG(5, 6))
		for {
			a, b := proc.ID(rnd.IntN(3)), proc.ID(rnd.IntN(3))
			if a == b {
				continue
			}
			c.Cut(a, b)
			cuts.Add(1)
			time.Sleep(time.Duration(1+rnd.IntN(4)) * time.Millisecond)
			c.Restore(a, b)
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(rnd.IntN(5)) * time.Millisecond):
			}
		}
	})
	var excl check.Exclusion
	var waits check.Waits
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := host.Run(ctx, host.RunConfig{
		Tick:      200 * time.Microsecond,
		Seed:      7,
		Transport: c,
		Work:      app.Workload{Think: dist.Uniform(0, 5), CS: dist.Uniform(1, 3), PerUser: 15},
		Sink:      proc.Sinks{&excl, &waits},
	}, pb, procs)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v after %v: served %d, %d messages, %d cuts", res.Stop, res.Elapsed.Round(time.Millisecond), res.Served, res.Messages, cuts.Load())
	switch {
	case !excl.OK():
		t.Errorf("exclusion: %v", excl.First)
	case res.Stop != host.StopQuiescent || waits.Open() != 0:
		t.Errorf("stopped by %v with %d open requests", res.Stop, waits.Open())
	case res.Served != pb.Users*15 || res.Delivered != res.Messages:
		t.Errorf("served %d of %d, delivered %d of %d messages", res.Served, pb.Users*15, res.Delivered, res.Messages)
	case cuts.Load() < 5:
		t.Errorf("only %d cuts during the run", cuts.Load())
	}
	for _, n := range c.nodes {
		if err := n.Err(); err != nil {
			t.Error(err)
		}
	}
}

// TestSpaces sends between processes with the same ids in two spaces of
// the same nodes, and to a space the receiving node opens only when the
// first message for it arrives: each message reaches its own space only.
func TestSpaces(t *testing.T) {
	type got struct {
		space    string
		from, to proc.ID
		m        proc.Message
	}
	ch := make(chan got, 16)
	handler := func(space string, to proc.ID) transport.Handler {
		return func(from proc.ID, m proc.Message) { ch <- got{space, from, to, m} }
	}
	var c *cluster
	var opened atomic.Int32
	c = newClusterWith(t, 2, func(i int, cfg *grpcnet.Config) {
		if i != 1 {
			return
		}
		// Process 1 lives on node1, which opens space "b" when it must.
		cfg.Open = func(space string, id proc.ID) {
			if space == "b" && id == 1 && opened.Add(1) == 1 {
				if err := c.nodes[1].Space("b").Register(1, handler("b", 1)); err != nil {
					t.Error(err)
				}
			}
		}
	})
	defer c.Close()
	a0, a1 := c.nodes[0].Space("a"), c.nodes[1].Space("a")
	if err := a1.Register(1, handler("a", 1)); err != nil {
		t.Fatal(err)
	}
	b0 := c.nodes[0].Space("b")
	for i := range 3 {
		if err := a0.Send(0, 1, transporttest.Msg{Seq: int32(i)}); err != nil {
			t.Fatal(err)
		}
		if err := b0.Send(0, 1, transporttest.Msg{Seq: int32(10 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	counts := map[string]int{}
	for range 6 {
		select {
		case g := <-ch:
			seq := g.m.(transporttest.Msg).Seq
			if (g.space == "a") != (seq < 10) || g.from != 0 || g.to != 1 {
				t.Errorf("message %d from %d reached process %d of space %q", seq, g.from, g.to, g.space)
			}
			counts[g.space]++
		case <-time.After(10 * time.Second):
			t.Fatalf("delivered %v of 3 per space", counts)
		}
	}
	if opened.Load() != 1 {
		t.Errorf("space b opened %d times, want once", opened.Load())
	}
	// A closed space takes no more and drops what arrives for it.
	if err := a1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a1.Register(1, handler("a", 1)); err == nil {
		t.Error("a closed space took a registration")
	}
	if err := a0.Send(0, 1, transporttest.Msg{Seq: 99}); err != nil {
		t.Fatal(err)
	}
	select {
	case g := <-ch:
		t.Errorf("a closed space got message %v", g.m)
	case <-time.After(50 * time.Millisecond):
	}
	// Forgotten, it is as one never opened: it takes a registration,
	// and its messages again.
	c.nodes[1].Forget("a")
	if err := a1.Register(1, handler("a", 1)); err != nil {
		t.Fatalf("a forgotten space: %v", err)
	}
	if err := a0.Send(0, 1, transporttest.Msg{Seq: 7}); err != nil {
		t.Fatal(err)
	}
	select {
	case g := <-ch:
		if g.space != "a" || g.m.(transporttest.Msg).Seq != 7 {
			t.Errorf("the forgotten space got %v in %q", g.m, g.space)
		}
	case <-time.After(10 * time.Second):
		t.Error("a forgotten space registered again got nothing")
	}
}

// TestOpenLocal: with Open set, a send to a process placed on the sending
// node but not registered is handed to Open (with the process's id), then
// delivered to what Open registered; one Open does not register is
// dropped, and without Open the send is an error.
func TestOpenLocal(t *testing.T) {
	got := make(chan proc.Message, 4)
	var c *cluster
	c = newClusterWith(t, 2, func(i int, cfg *grpcnet.Config) {
		if i != 0 {
			return
		}
		cfg.Open = func(space string, id proc.ID) {
			if id == 2 { // placed on node 0 (2 mod 2); 4 is never registered
				if err := c.nodes[0].Space(space).Register(id, func(_ proc.ID, m proc.Message) { got <- m }); err != nil {
					t.Error(err)
				}
			}
		}
	})
	defer c.Close()
	sp := c.nodes[0].Space("lazy")
	for _, to := range []proc.ID{4, 2} {
		if err := sp.Send(0, to, transporttest.Msg{Seq: int32(to)}); err != nil {
			t.Fatalf("send to %d: %v", to, err)
		}
	}
	select {
	case m := <-got:
		if m.(transporttest.Msg).Seq != 2 {
			t.Fatalf("process 2 got %v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the message to process 2, registered by Open, never came")
	}
	if err := c.nodes[1].Space("lazy").Send(1, 3, transporttest.Msg{}); err == nil {
		t.Fatal("without Open, a send to a process of this node not registered went through")
	}
}

// TestRestartedNode restarts a node (a new transport on the same address,
// as after kill -9 and a new process): both directions carry the new
// run's messages, which a session that kept its old numbering would drop
// as resends; the new run gets, before them, what the old one left
// unacknowledged (the package doc: the layer above judges it), in order
// and once.
func TestRestartedNode(t *testing.T) {
	lis := make([]net.Listener, 2)
	peers := map[string]string{}
	for i := range lis {
		var err error
		if lis[i], err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		peers[fmt.Sprintf("n%d", i)] = lis[i].Addr().String()
	}
	cd, err := codec.New(algo.Algorithm{Name: "transporttest", Messages: []proc.Message{transporttest.Msg{}}})
	if err != nil {
		t.Fatal(err)
	}
	place := func(_ string, p proc.ID) (string, bool) { return fmt.Sprintf("n%d", p%2), p >= 0 }
	var ackDelay time.Duration
	start := func(i int, ln net.Listener) *grpcnet.Transport {
		tr, err := grpcnet.New(grpcnet.Config{Node: fmt.Sprintf("n%d", i), Listener: ln, Peers: peers, Place: place, Codec: cd, Redial: 2 * time.Millisecond, AckDelay: ackDelay})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	got := []chan int32{make(chan int32, 100), make(chan int32, 100)} // by receiver
	handler := func(p proc.ID) transport.Handler {
		return func(_ proc.ID, m proc.Message) { got[p] <- m.(transporttest.Msg).Seq }
	}
	expect := func(p proc.ID, want ...int32) {
		t.Helper()
		for _, w := range want {
			select {
			case g := <-got[p]:
				if g != w {
					t.Fatalf("got message %d, want %d", g, w)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("message %d never arrived", w)
			}
		}
	}
	// An hour's AckDelay: an ack only rides with data, so what a node
	// received last is still unacknowledged when it restarts.
	for _, run := range []struct {
		dialler int // n0 dials n1: restart either end
		ack     time.Duration
	}{{0, 0}, {1, 0}, {0, time.Hour}, {1, time.Hour}} {
		dialler := run.dialler
		ackDelay = run.ack
		a := start(0, lis[0])
		b := start(1, lis[1])
		a.Register(0, handler(0))
		b.Register(1, handler(1))
		for i := range int32(5) {
			a.Send(0, 1, transporttest.Msg{Seq: i})
			b.Send(1, 0, transporttest.Msg{Seq: 100 + i})
		}
		expect(1, 0, 1, 2, 3, 4)
		expect(0, 100, 101, 102, 103, 104)
		// Restart one of them on the same address.
		old, idx := a, 0
		if dialler == 1 {
			old, idx = b, 1
		}
		addr := lis[idx].Addr().String()
		old.Close()
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fresh := start(idx, ln)
		fresh.Register(proc.ID(idx), handler(proc.ID(idx)))
		if idx == 0 {
			a = fresh
		} else {
			b = fresh
		}
		a.Send(0, 1, transporttest.Msg{Seq: 7})
		b.Send(1, 0, transporttest.Msg{Seq: 8})
		// The restarted end is a new incarnation: the other end sends it
		// what the old one had not acknowledged yet (acks wait up to
		// AckDelay for data to ride with), renumbered, in order — a suffix
		// of the earlier batch — and then the new message; nothing twice.
		eventually := func(p proc.ID, earlier []int32, want int32) {
			t.Helper()
			var before []int32
			for {
				select {
				case g := <-got[p]:
					if g == want {
						if len(before) > 0 && !slices.Equal(before, earlier[len(earlier)-len(before):]) {
							t.Fatalf("process %d got %v before message %d: not what was left unacknowledged of %v, in order", p, before, want, earlier)
						}
						return
					}
					if before = append(before, g); len(before) > len(earlier) {
						t.Fatalf("process %d got %v before message %d: more than the earlier %v", p, before, want, earlier)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("message %d never arrived", want)
				}
			}
		}
		eventually(1, []int32{0, 1, 2, 3, 4}, 7)
		eventually(0, []int32{100, 101, 102, 103, 104}, 8)
		a.Close()
		b.Close()
		for i := range lis {
			if lis[i], err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
				t.Fatal(err)
			}
			peers[fmt.Sprintf("n%d", i)] = lis[i].Addr().String()
		}
	}
}

package grpc_test

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/proc"
	grpcnet "github.com/allot-dev/allot/transport/grpc"
	"github.com/allot-dev/allot/transport/transporttest"
)

// sinkProxy forwards TCP connections to a target until silence: then it
// closes every connection's target side and keeps the dialling side open,
// reading and dropping whatever comes (a middlebox that lost its state:
// the dialler's writes succeed and nothing answers). New connections are
// forwarded as before.
type sinkProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	pairs  []*sinkPair
}

type sinkPair struct {
	in, out net.Conn
	silent  atomic.Bool
}

func newSinkProxy(t *testing.T, target string) *sinkProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &sinkProxy{ln: ln, target: target}
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, pr := range p.pairs {
			pr.in.Close()
			pr.out.Close()
		}
	})
	return p
}

func (p *sinkProxy) serve() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		pr := &sinkPair{in: in, out: out}
		p.mu.Lock()
		p.pairs = append(p.pairs, pr)
		p.mu.Unlock()
		go pr.pipe(in, out)
		go pr.pipe(out, in)
	}
}

func (pr *sinkPair) pipe(from, to net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if err == nil && !pr.silent.Load() {
			_, err = to.Write(buf[:n])
		}
		if err != nil {
			if !pr.silent.Load() {
				from.Close()
				to.Close()
			}
			return
		}
	}
}

func (p *sinkProxy) silence() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pr := range p.pairs {
		pr.silent.Store(true)
		pr.out.Close()
	}
}

// TestSilentStreamRedialled: when the link's accepting side goes away and
// the dialling side's connection stays open but silent, the dialler finds
// the stream dead by its keep-alive pings and dials again, so a message
// sent into the dead stream still arrives (resent on the new one). Without
// the pings the dialler keeps writing into the void for good.
func TestSilentStreamRedialled(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a keep-alive period (about 12s)")
	}
	silentLink(t, nil)
}

// silentLink runs TestSilentStreamRedialled with the nodes configured by
// mod (nil: as they are).
func silentLink(t *testing.T, mod func(*grpcnet.Config)) {
	cd, err := codec.New(algo.Algorithm{Name: "transporttest", Messages: []proc.Message{transporttest.Msg{}}})
	if err != nil {
		t.Fatal(err)
	}
	lis := make([]net.Listener, 2)
	for i := range lis {
		if lis[i], err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
	}
	// n0 dials n1, through the proxy.
	px := newSinkProxy(t, lis[1].Addr().String())
	peers := map[string]string{"n0": lis[0].Addr().String(), "n1": px.ln.Addr().String()}
	place := func(_ string, p proc.ID) (string, bool) { return fmt.Sprintf("n%d", p%2), p >= 0 }
	got := make(chan int32, 100)
	var nodes []*grpcnet.Transport
	for i := range lis {
		cfg := grpcnet.Config{Node: fmt.Sprintf("n%d", i), Listener: lis[i], Peers: peers, Place: place, Codec: cd}
		if mod != nil {
			mod(&cfg)
		}
		tr := start(t, cfg)
		defer tr.Close()
		nodes = append(nodes, tr)
	}
	nodes[1].Register(1, func(_ proc.ID, m proc.Message) { got <- m.(transporttest.Msg).Seq })
	nodes[0].Register(0, func(proc.ID, proc.Message) {})
	expect := func(want int32, within time.Duration) {
		t.Helper()
		for {
			select {
			case g := <-got:
				if g == want {
					return
				}
				if g > want {
					t.Fatalf("got message %d before %d", g, want)
				}
			case <-time.After(within):
				t.Fatalf("message %d did not arrive within %v", want, within)
			}
		}
	}
	nodes[0].Send(0, 1, transporttest.Msg{Seq: 1})
	expect(1, 10*time.Second)
	want := grpcnet.StreamCarrier
	if mod != nil {
		want = grpcnet.PlainCarrier
	}
	if st, _ := nodes[0].Peer("n1"); st.Carrier != want {
		t.Fatalf("the link is on %q, want %q", st.Carrier, want)
	}
	px.silence()
	start := time.Now()
	nodes[0].Send(0, 1, transporttest.Msg{Seq: 2})
	expect(2, grpcnet.KeepaliveTime+grpcnet.KeepaliveTimeout+5*time.Second)
	t.Logf("arrived %v after the stream went silent", time.Since(start).Round(time.Millisecond))
}

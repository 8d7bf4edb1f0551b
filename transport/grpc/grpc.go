// Package grpc is the network transport: the processes hosted on one node
// reach those on other nodes over gRPC, one bidirectional stream per
// neighbour node, with a link session layer that gives the algorithms the
// reliable FIFO channels their papers assume whatever the connections do.
//
//	node a                                                     node b
//	Send(p, q, m) ─> Codec ─> session a→b ══ one gRPC stream ══> session b←a ─> dispatcher ─> Handler of q
//	                          seq 1, 2, 3 …   (both directions)  deliver seq = delivered+1,
//	                          kept until acked                   drop seq ≤ delivered (a resend),
//	                          resent after reconnect <── ack ─── ack what was delivered
//
// Sessions. Each ordered pair of nodes has a session that outlives its
// connections: the sender numbers every message and keeps it until the
// receiver acknowledges it (acks are cumulative); the receiver delivers
// sequence number delivered+1 and drops anything lower, which is a resend.
// A stream opens with a hello each way carrying how far the speaker has
// delivered, so after a reconnect the sender forgets what arrived and
// resends the rest in order. A message is thus delivered exactly once and
// in send order on every link, however often the stream breaks (a lost
// fork deadlocks the dining philosophers, a duplicated fork breaks
// exclusion). A crashed node loses its sessions; node crashes and restarts
// are the next issue's.
//
// Connections. Of two nodes, the one with the smaller name dials; the
// other accepts. A broken stream is redialled after Config.Redial. Cut and
// Restore (transport.Cutter) break the connection between the nodes of two
// processes and hold it down, for tests.
//
// Messages between processes of the same node do not touch the network:
// they go straight to the node's dispatcher, the one goroutine that hands
// messages to Handlers, in order.
package grpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	ggrpc "google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
)

// Codec encodes the messages that cross the network (package codec's
// Codec is one).
type Codec interface {
	AppendMessage(b []byte, m proc.Message) ([]byte, error)
	DecodeMessage(b []byte) (proc.Message, error)
}

// Config is one node.
type Config struct {
	Node     string            // this node's name
	Listener net.Listener      // where its neighbours' streams arrive; closed by Close
	Peers    map[string]string // every other node: name -> address
	// Place says on which node a process lives (static membership); a
	// process it does not place cannot be sent to.
	Place  func(proc.ID) (node string, ok bool)
	Codec  Codec
	Redial time.Duration // wait before redialling a broken stream (0: 10ms)
}

// Transport is one node's transport.
type Transport struct {
	cfg    Config
	srv    *ggrpc.Server
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	peers  map[string]*peer

	mu     sync.Mutex
	eps    map[proc.ID]*transport.Endpoint
	closed bool
	err    error

	dmu  sync.Mutex
	dq   []delivery
	dsig chan struct{}
}

var (
	_ transport.Transport = (*Transport)(nil)
	_ transport.Cutter    = (*Transport)(nil)
)

type delivery struct {
	from, to proc.ID
	m        proc.Message
}

const method = "/allot.link.Link/Connect"

var streamDesc = ggrpc.StreamDesc{StreamName: "Connect", ServerStreams: true, ClientStreams: true}

// New starts a node: it serves its listener and dials the neighbours whose
// names are greater than its own.
func New(cfg Config) (*Transport, error) {
	switch {
	case cfg.Node == "":
		return nil, errors.New("link: a node needs a name")
	case cfg.Listener == nil:
		return nil, errors.New("link: a node needs a listener")
	case cfg.Place == nil || cfg.Codec == nil:
		return nil, errors.New("link: a node needs a placement and a codec")
	}
	if cfg.Redial <= 0 {
		cfg.Redial = 10 * time.Millisecond
	}
	t := &Transport{cfg: cfg, peers: map[string]*peer{}, eps: map[proc.ID]*transport.Endpoint{}, dsig: make(chan struct{}, 1)}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	for name, addr := range cfg.Peers {
		if name == cfg.Node {
			continue
		}
		p := &peer{t: t, name: name, restored: make(chan struct{})}
		if cfg.Node < name {
			conn, err := ggrpc.NewClient(addr, ggrpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.cancel()
				for _, q := range t.peers {
					if q.conn != nil {
						q.conn.Close()
					}
				}
				return nil, fmt.Errorf("link: node %s: %w", name, err)
			}
			p.conn = conn
		}
		t.peers[name] = p
	}
	t.srv = ggrpc.NewServer(ggrpc.ForceServerCodec(frameCodec{}))
	t.srv.RegisterService(&ggrpc.ServiceDesc{
		ServiceName: "allot.link.Link",
		HandlerType: (*any)(nil),
		Streams:     []ggrpc.StreamDesc{{StreamName: "Connect", Handler: t.accept, ServerStreams: true, ClientStreams: true}},
	}, t)
	t.wg.Add(2)
	go func() {
		defer t.wg.Done()
		t.srv.Serve(cfg.Listener)
	}()
	go t.dispatcher()
	for _, p := range t.peers {
		if p.conn != nil {
			t.wg.Add(1)
			go p.dial()
		}
	}
	return t, nil
}

// Ordered implements transport.Transport: every link is FIFO.
func (t *Transport) Ordered() bool { return true }

// Register implements transport.Transport. A node registers only the
// processes placed on it.
func (t *Transport) Register(id proc.ID, h transport.Handler) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return transport.ErrClosed
	}
	if node, ok := t.cfg.Place(id); !ok || node != t.cfg.Node {
		return fmt.Errorf("link: process %d is not placed on node %s", id, t.cfg.Node)
	}
	if _, dup := t.eps[id]; dup {
		return fmt.Errorf("link: process %d registered twice", id)
	}
	t.eps[id] = transport.NewEndpoint(h)
	return nil
}

// Unregister implements transport.Transport.
func (t *Transport) Unregister(id proc.ID) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return transport.ErrClosed
	}
	ep, ok := t.eps[id]
	delete(t.eps, id)
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("link: process %d is not registered", id)
	}
	ep.Retire()
	return nil
}

// Send implements transport.Transport.
func (t *Transport) Send(from, to proc.ID, m proc.Message) error {
	t.mu.Lock()
	closed := t.closed
	_, local := t.eps[to]
	t.mu.Unlock()
	if closed {
		return transport.ErrClosed
	}
	node, ok := t.cfg.Place(to)
	if !ok {
		return fmt.Errorf("link: send of %s from %d to unknown process %d", m.Kind(), from, to)
	}
	if node == t.cfg.Node {
		if !local {
			return fmt.Errorf("link: send of %s from %d to unknown process %d", m.Kind(), from, to)
		}
		t.dispatch(delivery{from, to, m})
		return nil
	}
	p := t.peers[node]
	if p == nil {
		return fmt.Errorf("link: process %d is placed on node %s, which is not a peer", to, node)
	}
	b, err := t.cfg.Codec.AppendMessage(nil, m)
	if err != nil {
		return fmt.Errorf("link: %w", err)
	}
	p.send(&frame{Kind: frameData, From: int32(from), To: int32(to), Payload: b})
	return nil
}

// Close implements transport.Transport.
func (t *Transport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.mu.Unlock()
	t.cancel()
	t.srv.Stop()
	for _, p := range t.peers {
		if p.conn != nil {
			p.conn.Close()
		}
	}
	t.wg.Wait()
	return nil
}

// Err returns what went wrong with messages that arrived (one the codec
// could not decode), joined, or nil.
func (t *Transport) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Cut implements transport.Cutter: the connection between the nodes of a
// and b is broken and held down until Restore (a no-op when both live
// here, or neither does).
func (t *Transport) Cut(a, b proc.ID) {
	if p := t.other(a, b); p != nil {
		p.setCut(true)
	}
}

// Restore implements transport.Cutter.
func (t *Transport) Restore(a, b proc.ID) {
	if p := t.other(a, b); p != nil {
		p.setCut(false)
	}
}

// other is the peer that carries the link between a and b, if this node
// is one end of it.
func (t *Transport) other(a, b proc.ID) *peer {
	na, _ := t.cfg.Place(a)
	nb, _ := t.cfg.Place(b)
	switch {
	case na == nb:
		return nil
	case na == t.cfg.Node:
		return t.peers[nb]
	case nb == t.cfg.Node:
		return t.peers[na]
	}
	return nil
}

// dispatch queues a delivery for the dispatcher.
func (t *Transport) dispatch(d delivery) {
	t.dmu.Lock()
	t.dq = append(t.dq, d)
	t.dmu.Unlock()
	select {
	case t.dsig <- struct{}{}:
	default:
	}
}

// dispatcher hands messages to Handlers one at a time, in arrival order,
// until the transport is closed.
func (t *Transport) dispatcher() {
	defer t.wg.Done()
	for {
		select {
		case <-t.ctx.Done():
			return
		case <-t.dsig:
		}
		t.dmu.Lock()
		batch := t.dq
		t.dq = nil
		t.dmu.Unlock()
		for _, d := range batch {
			t.mu.Lock()
			ep, closed := t.eps[d.to], t.closed
			t.mu.Unlock()
			if closed {
				return
			}
			if ep != nil {
				ep.Deliver(d.from, d.m)
			}
		}
	}
}

// accept serves a stream a neighbour opened.
func (t *Transport) accept(_ any, s ggrpc.ServerStream) error {
	their := new(frame)
	if err := s.RecvMsg(their); err != nil {
		return err
	}
	p := t.peers[their.Node]
	if their.Kind != frameHello || p == nil || p.conn != nil {
		return fmt.Errorf("link: node %s: unexpected hello from %q", t.cfg.Node, their.Node)
	}
	ctx, cancel := context.WithCancel(s.Context())
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		p.serve(ctx, cancel, s, their, true)
	}()
	select {
	case <-ctx.Done():
	case <-t.ctx.Done():
	}
	cancel()
	return nil
}

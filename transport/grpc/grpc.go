// Package grpc is the network transport: the processes hosted on one node
// reach those on other nodes over one connection per neighbour node, with
// a link session layer that gives the algorithms the reliable FIFO
// channels their papers assume whatever the connections do.
//
//	node a                                                     node b
//	Send(p, q, m) ─> Codec ─> session a→b ══ one connection ═══> session b←a ─> Handler of q
//	                          seq 1, 2, 3 …   (both directions)  deliver seq = delivered+1,
//	                          kept until acked                   drop seq ≤ delivered (a resend),
//	                          resent after reconnect <── ack ─── ack what was delivered
//
// Carriers. The session's frames travel on a gRPC stream, or, between
// nodes that both take it (Config.Plain, AcceptPlain), on the plain
// carrier: a TCP connection of their own (TLS when configured), a batch
// of frames a write, without HTTP/2, gRPC's writer goroutine and a
// protobuf wrapper — about half the CPU per message (plain.go). Both
// arrive at the node's one port: Split tells them apart by their first
// bytes. A node dials the plain carrier first and falls back to a stream,
// so nodes of both kinds make one cluster.
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
// exclusion).
//
// Restarts. A hello also carries the speaker's incarnation. A node that
// restarts has lost its sessions; its neighbours, seeing a new
// incarnation, start both directions afresh, so the new run's messages are
// not taken for resends, and send it what is still unacknowledged,
// renumbered. Whether those messages still mean something to the new run
// is for the layer above to say (the service's epochs).
//
// Connections. Of two nodes, the one with the smaller name dials; the
// other accepts, from its peers only. Peers are Config.Peers, and those
// AddPeer adds and RemovePeer removes while the node runs (a node that
// joins or leaves the cluster). A broken stream is redialled after
// Config.Redial. Cut and Restore (transport.Cutter) break the connection
// between the nodes of two processes and hold it down, for tests.
//
// Messages between processes of the same node do not touch the network:
// they go straight to the node's dispatcher, the one goroutine that hands
// them to Handlers, in order (Send never calls a Handler itself). A
// message from another node is handed to its Handler by the reader of its
// stream, in the link's order. Frames travel in batches: what a session
// has queued when its writer wakes goes as one gRPC message. An ack waits
// up to Config.AckDelay for data going its way and rides in that batch,
// since most messages are answered within a millisecond; and the HTTP/2
// flow-control windows are fixed (Window), so that gRPC does not ping the
// other end for every message to size them. Either would otherwise cost a
// write and a read on each side per message.
//
// Spaces. A node may host several independent runs of algorithms whose
// processes are all numbered from 0 (a service's lock and each of its
// semaphores): Space(name) is a transport.Transport of its own id space
// over the same streams and sessions. A message names its space on the
// wire; one for a space the node has not opened yet makes it call
// Config.Open first, so that a run can start at one node and be built at
// the others by its first message (and a process of it made when its
// first message comes).
//
// Sharing a server. With Config.Server the link service is registered on a
// gRPC server the caller owns (and serves, with whatever credentials it
// has), so a node needs one port for its clients and its peers; with
// Split in front of that server, the plain carrier uses the same port.
package grpc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"net"
	"sync"
	"sync/atomic"
	"time"

	ggrpc "google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/protobuf/types/known/wrapperspb"

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
	Node string // this node's name
	// Listener is where the neighbours' streams arrive, on a gRPC server
	// of the transport's own; closed by Close. Unused with Server.
	Listener net.Listener
	// Server, when set, is a gRPC server of the caller's on which the
	// link service is registered before it serves; the caller serves and
	// stops it.
	Server *ggrpc.Server
	// DialOptions are the options of the connections to the neighbours
	// this node dials (nil: insecure credentials).
	DialOptions []ggrpc.DialOption
	Peers       map[string]string // every other node: name -> address
	// Place says on which node a process of a space lives; a process it
	// does not place cannot be sent to.
	Place func(space string, id proc.ID) (node string, ok bool)
	// Open, when set, is called with the name of a space and the process
	// a message is for, before a message for a process not registered in
	// it is delivered (or dropped): the node may open the space and
	// register the process then, so a run's processes can be made as
	// they are first needed. With Open set, a send to a process placed
	// on this node but not registered goes the same way (Open, then
	// delivery or drop) instead of failing. It runs on the goroutine
	// that delivers, so it must not wait for a delivery.
	Open   func(space string, id proc.ID)
	Codec  Codec
	Redial time.Duration // wait before redialling a broken stream (0: 10ms)
	// AckDelay is how long an ack may wait for data to ride with (0:
	// DefaultAckDelay).
	AckDelay time.Duration
	// Incarnation tells this run of the node from earlier ones (0: the
	// start time in nanoseconds). A neighbour that sees a new incarnation
	// knows the node restarted with nothing of its sessions, and numbers
	// afresh.
	Incarnation uint64
	// Plain, when set, makes the node dial its neighbours' links on the
	// plain carrier first (plain.go), and take those that arrive at the
	// listeners given to AcceptPlain. Nil: gRPC streams only.
	Plain *Plain
}

// Transport is one node's transport.
type Transport struct {
	cfg    Config
	srv    *ggrpc.Server
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	pmu    sync.RWMutex // peers: AddPeer and RemovePeer change them at run time
	peers  map[string]*peer

	mu     sync.Mutex
	eps    map[addr]*transport.Endpoint
	gone   map[string]bool // spaces closed
	closed bool
	err    error

	restarted atomic.Bool // a neighbour knew an earlier incarnation

	plainLs []net.Listener // AcceptPlain's, closed by Close (under mu)

	frames, batches atomic.Int64 // see LinkStats

	dmu  sync.Mutex
	dq   []delivery
	dsig chan struct{}
}

var (
	_ transport.Transport = (*Transport)(nil)
	_ transport.Cutter    = (*Transport)(nil)
)

// addr is a process of a space.
type addr struct {
	space string
	id    proc.ID
}

type delivery struct {
	space    string
	from, to proc.ID
	m        proc.Message
}

const method = "/allot.link.Link/Connect"

// The link's keep-alive: the dialling node pings every KeepaliveTime and
// takes a link whose pings go unanswered for KeepaliveTimeout as broken
// (gRPC does not ping more often than every 10s).
const (
	KeepaliveTime    = 10 * time.Second
	KeepaliveTimeout = 2 * time.Second
)

// Window is the HTTP/2 flow-control window of a link's stream and
// connection, fixed on both ends. gRPC otherwise sizes windows on its own
// by estimating the bandwidth-delay product: it answers a DATA frame that
// arrives while no estimate is under way with a PING, which the other end
// answers in turn. A link's traffic is small messages, one or a few at a
// time, so nearly every batch would cost two more writes and two more
// reads, one each way, for a window that never needed to grow. A fixed
// window (at least gRPC's 64 KiB, below which it is ignored) turns the
// estimate off; 1 MiB holds thousands of messages in flight.
const Window = 1 << 20

// DialOptions are the options of a connection between two nodes (a link,
// and any other node-to-node call), before the credentials:
//
//   - gRPC's default reconnect backoff grows to two minutes: a link down
//     that long after a partition healed would be taken for a dead node.
//     A neighbour is worth a redial every second at most.
//   - A connection whose far side went away without a reset (a one-sided
//     drop, a silent middlebox) is never broken by the kernel: keep-alive
//     pings find it dead, so that it is redialled instead of swallowing
//     every stream on it for good.
//   - Fixed windows: see Window.
func DialOptions() []ggrpc.DialOption {
	return []ggrpc.DialOption{ggrpc.WithConnectParams(ggrpc.ConnectParams{
		Backoff:           backoff.Config{BaseDelay: 10 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
		MinConnectTimeout: time.Second,
	}), ggrpc.WithKeepaliveParams(keepalive.ClientParameters{Time: KeepaliveTime, Timeout: KeepaliveTimeout, PermitWithoutStream: true}),
		ggrpc.WithInitialWindowSize(Window), ggrpc.WithInitialConnWindowSize(Window)}
}

// ServerOptions are the options a gRPC server that carries links (Config.
// Server) needs: it lets the dialling side ping as often as KeepaliveTime
// (gRPC's default refuses pings more often than every five minutes), and
// pings the dialler in turn, so that both ends find a silent stream dead;
// and it fixes the flow-control windows (Window), for the links and for
// the server's other calls alike.
func ServerOptions() []ggrpc.ServerOption {
	return []ggrpc.ServerOption{
		ggrpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: KeepaliveTime / 2, PermitWithoutStream: true}),
		ggrpc.KeepaliveParams(keepalive.ServerParameters{Time: KeepaliveTime, Timeout: KeepaliveTimeout}),
		ggrpc.InitialWindowSize(Window),
		ggrpc.InitialConnWindowSize(Window),
	}
}

var streamDesc = ggrpc.StreamDesc{StreamName: "Connect", ServerStreams: true, ClientStreams: true}

// New starts a node: it serves its listener and dials the neighbours whose
// names are greater than its own.
func New(cfg Config) (*Transport, error) {
	switch {
	case cfg.Node == "":
		return nil, errors.New("link: a node needs a name")
	case cfg.Listener == nil && cfg.Server == nil:
		return nil, errors.New("link: a node needs a listener or a server")
	case cfg.Place == nil || cfg.Codec == nil:
		return nil, errors.New("link: a node needs a placement and a codec")
	}
	if cfg.Redial <= 0 {
		cfg.Redial = 10 * time.Millisecond
	}
	if cfg.AckDelay <= 0 {
		cfg.AckDelay = DefaultAckDelay
	}
	if cfg.Incarnation == 0 {
		cfg.Incarnation = uint64(time.Now().UnixNano())
	}
	if cfg.DialOptions == nil {
		cfg.DialOptions = []ggrpc.DialOption{ggrpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	t := &Transport{cfg: cfg, peers: map[string]*peer{}, eps: map[addr]*transport.Endpoint{}, gone: map[string]bool{}, dsig: make(chan struct{}, 1)}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	for name, addr := range cfg.Peers {
		if name == cfg.Node {
			continue
		}
		p, err := t.newPeer(name, addr)
		if err != nil {
			t.cancel()
			for _, q := range t.peers {
				if q.conn != nil {
					q.conn.Close()
				}
			}
			return nil, err
		}
		t.peers[name] = p
	}
	srv := cfg.Server
	if srv == nil {
		t.srv = ggrpc.NewServer(ServerOptions()...)
		srv = t.srv
	}
	srv.RegisterService(&ggrpc.ServiceDesc{
		ServiceName: "allot.link.Link",
		HandlerType: (*any)(nil),
		Streams:     []ggrpc.StreamDesc{{StreamName: "Connect", Handler: t.accept, ServerStreams: true, ClientStreams: true}},
	}, t)
	if t.srv != nil {
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.srv.Serve(cfg.Listener)
		}()
	}
	t.wg.Add(1)
	go t.dispatcher()
	for _, p := range t.peers {
		if p.conn != nil {
			t.wg.Add(1)
			go p.dial()
		}
	}
	return t, nil
}

// newPeer is the link to node name at addr, not started: a connection
// to dial it if this node's name is the smaller.
func (t *Transport) newPeer(name, addr string) (*peer, error) {
	p := &peer{t: t, name: name, addr: addr, restored: make(chan struct{})}
	p.ctx, p.stop = context.WithCancel(t.ctx)
	if t.cfg.Node < name {
		opts := append(DialOptions(), t.cfg.DialOptions...)
		conn, err := ggrpc.NewClient(addr, opts...)
		if err != nil {
			p.stop()
			return nil, fmt.Errorf("link: node %s: %w", name, err)
		}
		p.conn = conn
	}
	return p, nil
}

// peer is the link to node name (nil: not a peer).
func (t *Transport) peer(name string) *peer {
	t.pmu.RLock()
	defer t.pmu.RUnlock()
	return t.peers[name]
}

// AddPeer makes node name at addr a neighbour of this running node: a
// node that joined the cluster. A name that is a peer already keeps its
// link (a node under a new address is a new name).
func (t *Transport) AddPeer(name, addr string) error {
	if name == t.cfg.Node {
		return nil
	}
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return transport.ErrClosed
	}
	t.pmu.Lock()
	defer t.pmu.Unlock()
	if t.peers[name] != nil {
		return nil
	}
	p, err := t.newPeer(name, addr)
	if err != nil {
		return err
	}
	t.peers[name] = p
	if p.conn != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.closed {
			p.conn.Close()
			return transport.ErrClosed
		}
		t.wg.Add(1)
		go p.dial()
	}
	return nil
}

// RemovePeer ends the link to node name, a node that left the cluster:
// its stream is closed, what was not delivered to it is dropped, and it
// is not dialled or accepted again.
func (t *Transport) RemovePeer(name string) {
	t.pmu.Lock()
	p := t.peers[name]
	delete(t.peers, name)
	t.pmu.Unlock()
	if p == nil {
		return
	}
	p.stop()
	if p.conn != nil {
		p.conn.Close()
	}
}

// Ordered implements transport.Transport: every link is FIFO.
func (t *Transport) Ordered() bool { return true }

// Register implements transport.Transport in the default space ("").
func (t *Transport) Register(id proc.ID, h transport.Handler) error { return t.register("", id, h) }

// Unregister implements transport.Transport in the default space.
func (t *Transport) Unregister(id proc.ID) error { return t.unregister("", id) }

// Send implements transport.Transport in the default space.
func (t *Transport) Send(from, to proc.ID, m proc.Message) error { return t.send("", from, to, m) }

// Space returns the transport of the processes of space name: the same
// node, streams and placement, its own ids. Spaces with different names
// never see each other's messages.
func (t *Transport) Space(name string) *Space { return &Space{t: t, name: name} }

// Space is one id space of a node's transport.
type Space struct {
	t    *Transport
	name string
}

var _ transport.Transport = (*Space)(nil)

// Register implements transport.Transport.
func (s *Space) Register(id proc.ID, h transport.Handler) error { return s.t.register(s.name, id, h) }

// Unregister implements transport.Transport.
func (s *Space) Unregister(id proc.ID) error { return s.t.unregister(s.name, id) }

// Send implements transport.Transport.
func (s *Space) Send(from, to proc.ID, m proc.Message) error { return s.t.send(s.name, from, to, m) }

// Ordered implements transport.Transport.
func (s *Space) Ordered() bool { return true }

// Close implements transport.Transport: the space's processes are
// unregistered and it takes no more; the node and its other spaces go on.
// Messages that arrive for it later are dropped.
func (s *Space) Close() error {
	s.t.CloseSpaces(s.name)
	return nil
}

// CloseSpaces closes these spaces (Space.Close) in one pass over the
// endpoints, under one hold of the lock every message takes: a node that
// retires its instances by the hundred (a view change) would otherwise
// hold it once per space, each time over every endpoint.
func (t *Transport) CloseSpaces(names ...string) {
	t.mu.Lock()
	closing := map[string]bool{}
	for _, name := range names {
		if !t.gone[name] {
			t.gone[name] = true
			closing[name] = true
		}
	}
	var eps []*transport.Endpoint
	if len(closing) > 0 {
		for a, ep := range t.eps {
			if closing[a.space] {
				eps = append(eps, ep)
				delete(t.eps, a)
			}
		}
	}
	t.mu.Unlock()
	for _, ep := range eps {
		ep.Retire()
	}
}

// Forget drops the marks of closed spaces: a space forgotten is as one
// never opened (a message for it calls Config.Open again, and its
// processes may be registered). A node that closes a space for good (an
// instance of a view it left) forgets it once nothing will register in it
// again, so that the marks follow the spaces in use, not every space
// ever closed. A Go map never shrinks: the tables are made afresh here,
// so that their memory follows too.
func (t *Transport) Forget(spaces ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range spaces {
		delete(t.gone, s)
	}
	gone := make(map[string]bool, len(t.gone))
	maps.Copy(gone, t.gone)
	eps := make(map[addr]*transport.Endpoint, len(t.eps))
	maps.Copy(eps, t.eps)
	t.gone, t.eps = gone, eps
}

// register registers a process placed on this node.
func (t *Transport) register(space string, id proc.ID, h transport.Handler) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || t.gone[space] {
		return transport.ErrClosed
	}
	if node, ok := t.cfg.Place(space, id); !ok || node != t.cfg.Node {
		return fmt.Errorf("link: process %d is not placed on node %s", id, t.cfg.Node)
	}
	a := addr{space, id}
	if _, dup := t.eps[a]; dup {
		return fmt.Errorf("link: process %d registered twice", id)
	}
	t.eps[a] = transport.NewEndpoint(h)
	return nil
}

func (t *Transport) unregister(space string, id proc.ID) error {
	t.mu.Lock()
	if t.closed || t.gone[space] {
		t.mu.Unlock()
		return transport.ErrClosed
	}
	a := addr{space, id}
	ep, ok := t.eps[a]
	delete(t.eps, a)
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("link: process %d is not registered", id)
	}
	ep.Retire()
	return nil
}

func (t *Transport) send(space string, from, to proc.ID, m proc.Message) error {
	t.mu.Lock()
	closed := t.closed || t.gone[space]
	_, local := t.eps[addr{space, to}]
	t.mu.Unlock()
	if closed {
		return transport.ErrClosed
	}
	node, ok := t.cfg.Place(space, to)
	if !ok {
		return fmt.Errorf("link: send of %s from %d to unknown process %d", m.Kind(), from, to)
	}
	if node == t.cfg.Node {
		if !local && t.cfg.Open == nil {
			return fmt.Errorf("link: send of %s from %d to unknown process %d", m.Kind(), from, to)
		}
		t.dispatch(delivery{space, from, to, m})
		return nil
	}
	p := t.peer(node)
	if p == nil {
		return fmt.Errorf("link: process %d is placed on node %s, which is not a peer", to, node)
	}
	b, err := t.cfg.Codec.AppendMessage(nil, m)
	if err != nil {
		return fmt.Errorf("link: %w", err)
	}
	p.send(&frame{Kind: frameData, From: int32(from), To: int32(to), Node: space, Payload: b})
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
	ls := t.plainLs
	t.mu.Unlock()
	t.cancel()
	for _, l := range ls {
		l.Close()
	}
	if t.srv != nil {
		t.srv.Stop()
	}
	t.pmu.RLock()
	for _, p := range t.peers {
		if p.conn != nil {
			p.conn.Close()
		}
	}
	t.pmu.RUnlock()
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
	na, _ := t.cfg.Place("", a)
	nb, _ := t.cfg.Place("", b)
	switch {
	case na == nb:
		return nil
	case na == t.cfg.Node:
		return t.peer(nb)
	case nb == t.cfg.Node:
		return t.peer(na)
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
			if !t.handle(d) {
				return
			}
		}
	}
}

// handle hands d to its Handler, opening its space first if needed; false
// once the transport is closed.
func (t *Transport) handle(d delivery) bool {
	ep, closed := t.endpoint(d)
	if closed {
		return false
	}
	if ep == nil && t.cfg.Open != nil {
		t.cfg.Open(d.space, d.to)
		ep, closed = t.endpoint(d)
	}
	if ep != nil {
		ep.Deliver(d.from, d.m)
	}
	return !closed
}

func (t *Transport) endpoint(d delivery) (*transport.Endpoint, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.eps[addr{d.space, d.to}], t.closed
}

// wire carries frames on a gRPC stream: one message, a BytesValue, holds
// a batch of frames, each prefixed by its length. Send is called by one
// goroutine at a time (the hello, then the stream's writer) and so is Recv
// (the stream's reader).
type wire struct {
	s interface {
		SendMsg(any) error
		RecvMsg(any) error
	} // a client or server stream
	fb   []byte // Send's scratch for one frame
	rest []byte // frames received and not read yet
}

func (w *wire) Send(fs ...*frame) error {
	// The batch is sized once: a batch is mostly small frames, and
	// growing it frame by frame was most of the link layer's own
	// allocations. It is not reused: gRPC may read a message after
	// SendMsg returns (stats handlers).
	size := 0
	for _, f := range fs {
		size += binary.MaxVarintLen64 + frameBound(f)
	}
	b := make([]byte, 0, size)
	for _, f := range fs {
		w.fb = appendFrame(w.fb[:0], f)
		b = binary.AppendUvarint(b, uint64(len(w.fb)))
		b = append(b, w.fb...)
	}
	return w.s.SendMsg(&wrapperspb.BytesValue{Value: b})
}

func (w *wire) Recv(f *frame) error {
	if len(w.rest) == 0 {
		v := new(wrapperspb.BytesValue)
		if err := w.s.RecvMsg(v); err != nil {
			return err
		}
		w.rest = v.Value
	}
	l, n := binary.Uvarint(w.rest)
	if n <= 0 || l > uint64(len(w.rest)-n) {
		return errFrame
	}
	fb := w.rest[n : n+int(l)]
	w.rest = w.rest[n+int(l):]
	return parseFrame(fb, f)
}

// accept serves a stream a neighbour opened.
func (t *Transport) accept(_ any, ss ggrpc.ServerStream) error {
	s := &wire{s: ss}
	their := new(frame)
	if err := s.Recv(their); err != nil {
		return err
	}
	p := t.peer(their.Node)
	if their.Kind != frameHello || p == nil || p.conn != nil {
		return fmt.Errorf("link: node %s: unexpected hello from %q", t.cfg.Node, their.Node)
	}
	// Added under mu, and not once closed: Close's Wait must not race
	// with an Add from a stream that arrives while it stops.
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return fmt.Errorf("link: node %s is closing", t.cfg.Node)
	}
	t.wg.Add(1)
	t.mu.Unlock()
	ctx, cancel := context.WithCancel(ss.Context())
	go func() {
		defer t.wg.Done()
		p.serve(ctx, cancel, s, their, true)
	}()
	select {
	case <-ctx.Done():
	case <-p.ctx.Done(): // the peer was removed, or the transport closed
	}
	cancel()
	return nil
}

// WaitUp waits until a stream to node is up (or ctx ends).
func (t *Transport) WaitUp(ctx context.Context, node string) error {
	p := t.peer(node)
	if p == nil {
		return fmt.Errorf("link: %s is not a peer of node %s", node, t.cfg.Node)
	}
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		p.mu.Lock()
		up := p.up
		p.mu.Unlock()
		if up {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// PeerState is what a node knows of a neighbour's link.
type PeerState struct {
	Up          bool      // a link is up (a stream or a plain connection)
	Since       time.Time // when Up last changed (zero: never up)
	Incarnation uint64    // the neighbour's run, from its last hello (0: none yet)
	Carrier     Carrier   // what the link is on while Up ("" while down)
}

// Peer returns the state of the link to node.
func (t *Transport) Peer(node string) (PeerState, bool) {
	p := t.peer(node)
	if p == nil {
		return PeerState{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return PeerState{Up: p.up, Since: p.since, Incarnation: p.inc, Carrier: p.carrier}, true
}

// Restarted reports whether a neighbour has said it knew an earlier
// incarnation of this node: this run is a restart.
func (t *Transport) Restarted() bool { return t.restarted.Load() }

// LinkStats are what a node has written to the other nodes' streams.
type LinkStats struct {
	Frames  int64 // messages (data frames), resends included
	Batches int64 // batches of frames (messages, acks): a gRPC message each on a stream, a write on the plain carrier
}

// Stats returns the node's link counts so far.
func (t *Transport) Stats() LinkStats {
	return LinkStats{Frames: t.frames.Load(), Batches: t.batches.Load()}
}

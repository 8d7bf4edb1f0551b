package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/status"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/all"
	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
	tgrpc "github.com/allot-dev/allot/transport/grpc"
)

// Config is one node of a cluster.
type Config struct {
	Cluster Cluster
	Self    int // this node's index in Cluster.Nodes
	// LockDelay is how long an expired session's resources stay held
	// before they are released (Chubby's lock-delay): a holder that lost
	// its session without knowing it gets that long to notice.
	LockDelay time.Duration
	// TryWait bounds how long TryLock and TryAcquire wait for a grant
	// (0: 20ms); see docs/service.md.
	TryWait time.Duration
	// PeerAddrs, when set, are the addresses this node dials the other
	// nodes at, in Cluster.Nodes order (a proxy in between, in tests);
	// nil: Cluster.Nodes.
	PeerAddrs []string
	// Suspect is the control plane's lease (0: 1s): a node serves at most
	// this long after it last confirmed it is in the cluster's view, the
	// leader thinks a node dead after this long without a message from
	// it, and elections start after one to two of it without a leader
	// (package control).
	Suspect time.Duration
	// DataDir is where the node keeps what must outlive it (package
	// store): the control plane's log, its permit counts. "" keeps them
	// in a temporary directory removed at Shutdown: nothing outlives the
	// process.
	DataDir string
	// Rand draws the control plane's election timeouts (nil: seeded
	// from the clock).
	Rand *rand.Rand
	// DialOptions are the options of the node's dials to the other nodes
	// (nil: plaintext), and ServerOptions those of the server NewServer
	// builds: the transport credentials and authorisation of a secure
	// cluster (Secure).
	DialOptions   []grpc.DialOption
	ServerOptions []grpc.ServerOption
	Log           *slog.Logger // nil: discard
	Events        io.Writer    // the node event log (JSONL), nil: none
}

// Node is one node of a cluster: it serves the Allot API to clients, and
// its processes reach the other nodes' over the link transport, on the same
// gRPC server.
type Node struct {
	pb.UnimplementedAllotServer
	c        Cluster
	self     int
	cfg      Config
	log      *slog.Logger
	codec    *codec.Codec
	algs     map[algo.Kind]algo.Algorithm
	names    []string // the nodes' names on the link transport
	tr       *tgrpc.Transport
	clock    clock    // the node's Lamport clock: fencing counters
	views    sync.Map // space name -> spaceInfo, parsed once
	stop     context.CancelFunc
	events   *eventLog
	metrics  *metrics
	draining atomic.Bool
	health   *health.Server // grpc.health.v1, set by Register

	ctl    *ctlHost
	tmpDir string // DataDir's stand-in, removed at Shutdown ("": none)

	mu        sync.Mutex
	instances map[string]*instance // by space
	sessions  map[uint64]*session
	nextID    uint64
	cur       *epochState // the view this node is in (nil: none)
	adopted   uint64      // the largest epoch this node has adopted (never built again below)
}

// New returns the node cfg.Self of cfg.Cluster; Start connects it.
func New(cfg Config) (*Node, error) {
	c := cfg.Cluster
	if err := c.Complete(); err != nil {
		return nil, err
	}
	if cfg.Self < 0 || cfg.Self >= len(c.Nodes) {
		return nil, fmt.Errorf("%w: node %d of %d", ErrCluster, cfg.Self, len(c.Nodes))
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.TryWait == 0 {
		cfg.TryWait = 20 * time.Millisecond
	}
	if cfg.Suspect <= 0 {
		cfg.Suspect = time.Second
	}
	n := &Node{
		c: c, self: cfg.Self, cfg: cfg, log: cfg.Log.With("node", cfg.Self),
		algs:      map[algo.Kind]algo.Algorithm{},
		instances: map[string]*instance{},
		sessions:  map[uint64]*session{},
		metrics:   newMetrics(),
	}
	n.events = &eventLog{w: cfg.Events, node: cfg.Self}
	n.metrics.reg.MustRegister(messages{n}, state{n})
	var algs []algo.Algorithm
	for kind, name := range map[algo.Kind]string{algo.Exclusive: c.Lock, algo.Pool: c.Semaphore, algo.Quota: c.Quota} {
		if name == "" {
			continue
		}
		a, err := lookup(name)
		if err != nil {
			return nil, err
		}
		n.algs[kind] = a
		algs = append(algs, a)
	}
	algs = append(algs, control.Algorithm())
	var err error
	if n.codec, err = codec.New(algs...); err != nil {
		return nil, err
	}
	for k := range c.Nodes {
		n.names = append(n.names, strconv.Itoa(k))
	}
	if n.cfg.Rand == nil {
		n.cfg.Rand = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(cfg.Self)))
	}
	dir := cfg.DataDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "allot-node-"); err != nil {
			return nil, err
		}
		n.tmpDir = dir
	}
	if n.ctl, err = newCtl(n, dir); err != nil {
		if n.tmpDir != "" {
			os.RemoveAll(n.tmpDir)
		}
		return nil, err
	}
	run := n.ctl.startNo
	if n.tmpDir != "" {
		// Nothing outlives the process: every run is the first of its
		// directory, so the clock tells the runs apart.
		run = uint64(time.Now().UnixMilli())
	}
	n.nextID = firstID(cfg.Self, run)
	return n, nil
}

// Register registers the node's services on s, the node's one gRPC
// server (for clients and peers), connects to the other nodes and starts
// the lock and the declared quotas. Call it before s serves.
func (n *Node) Register(s *grpc.Server) error {
	pb.RegisterAllotServer(s, n)
	n.registerOps(s)
	peers := map[string]string{}
	for k, addr := range n.c.Nodes {
		if k < len(n.cfg.PeerAddrs) {
			addr = n.cfg.PeerAddrs[k]
		}
		if k != n.self {
			peers[n.names[k]] = addr
		}
	}
	tr, err := tgrpc.New(tgrpc.Config{
		Node:        n.names[n.self],
		Server:      s,
		DialOptions: n.cfg.DialOptions,
		Peers:       peers,
		Place:       n.place,
		Open: func(space string) {
			if _, err := n.instance(space); err != nil && !errors.Is(err, errRetiredView) {
				n.log.Warn("link: message for an instance this node does not build", "instance", space, "err", err)
			}
		},
		Codec: stampCodec{n.codec, &n.clock},
	})
	if err != nil {
		return err
	}
	n.tr = tr
	n.ctl.space = tr.Space(ctlSpace)
	if err := n.ctl.space.Register(proc.ID(n.self), n.ctl.deliver); err != nil {
		tr.Close()
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	n.stop = cancel
	go n.ctl.run(ctx)
	go n.ctl.changes(ctx)
	go n.flushEvents(ctx)
	go n.watchHealth(ctx)
	return nil
}

// flushEvents writes the event log out every 100ms until ctx ends: a node
// killed at once loses at most that much of it.
func (n *Node) flushEvents(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n.events.flush()
		}
	}
}

// spaceInfo is what a space name says.
type spaceInfo struct {
	key     string
	v       view
	epoched bool
	err     error
}

// spaceView parses a space name: a lock's or semaphore's key@VIEW, or a
// quota's key, which runs on every node of the cluster file.
func (n *Node) spaceView(space string) (string, view, bool, error) {
	if x, ok := n.views.Load(space); ok {
		i := x.(spaceInfo)
		return i.key, i.v, i.epoched, i.err
	}
	i := spaceInfo{key: space}
	if strings.Contains(space, "@") {
		i.key, i.v, i.err = splitSpace(space)
		i.epoched = true
		for _, k := range i.v.live {
			if k >= len(n.c.Nodes) {
				i.err = fmt.Errorf("%w: %q names node %d of %d", errSpace, space, k, len(n.c.Nodes))
			}
		}
	} else {
		i.v = view{epoch: n.c.Epoch}
		for k := range n.c.Nodes {
			i.v.live = append(i.v.live, k)
		}
	}
	n.views.Store(space, i)
	return i.key, i.v, i.epoched, i.err
}

// place is the transport's placement: which node hosts process id of a
// space.
func (n *Node) place(space string, id proc.ID) (string, bool) {
	if id < 0 {
		return "", false
	}
	if space == ctlSpace {
		if int(id) >= len(n.names) {
			return "", false
		}
		return n.names[id], true
	}
	_, v, _, err := n.spaceView(space)
	if err != nil {
		return "", false
	}
	return n.names[n.owner(v, len(v.live)*n.c.Slots, id)], true
}

// WaitReady waits until the node serves: a view of a majority of the
// cluster, agreed in the control plane, has it as a member.
func (n *Node) WaitReady(ctx context.Context) error {
	for {
		n.mu.Lock()
		st := n.cur
		n.mu.Unlock()
		if st != nil {
			select {
			case <-st.ready:
				return nil
			default:
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no view with a majority of the cluster took this node in: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Shutdown stops taking requests, waits until the granted leases are given
// back or ctx ends, and logs every lease still held then (never dropped
// silently: the holder's keep-alives fail, so its session's Done closes).
func (n *Node) Shutdown(ctx context.Context) {
	n.draining.Store(true)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for n.held() > 0 {
		select {
		case <-ctx.Done():
			n.mu.Lock()
			for _, s := range n.sessions {
				s.mu.Lock()
				for _, g := range s.grants {
					n.log.Warn("shutdown with a granted lease", "session", s.id, "grant", g.id, "key", g.key)
				}
				s.mu.Unlock()
			}
			n.mu.Unlock()
			goto out
		case <-tick.C:
		}
	}
	// Drained: the others may move on at once. (A Shutdown whose time
	// is up already is a stop, not a leave.)
	if ctx.Err() == nil {
		n.ctl.leave(ctx)
	}
out:
	n.stop()
	n.mu.Lock()
	for _, in := range n.instances {
		in.close()
		n.events.put(Record{Instance: in.space, Ev: evClosed})
	}
	n.mu.Unlock()
	n.tr.Close()
	n.ctl.close()
	if n.tmpDir != "" {
		os.RemoveAll(n.tmpDir)
	}
	n.events.flush()
}

func (n *Node) held() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := 0
	for _, s := range n.sessions {
		s.mu.Lock()
		k += len(s.grants)
		s.mu.Unlock()
	}
	return k
}

func (n *Node) id() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.nextID++
	return n.nextID
}

// Errors of instances.
var (
	errSpace       = errors.New("not an instance of this cluster")
	errRetiredView = errors.New("an instance of a view this node has left")
)

// instance returns the instance of a space, building it on first use. An
// instance of a view older than this node's is not built again.
func (n *Node) instance(space string) (*instance, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if in := n.instances[space]; in != nil {
		return in, nil
	}
	if _, v, epoched, err := n.spaceView(space); err == nil && epoched {
		var cur uint64
		if n.cur != nil {
			cur = n.cur.v.epoch
		}
		// A view behind this node's, or one the control log has but
		// this run did not adopt (it is not in it: a restarted node's
		// old run was), is never built: fresh processes would answer
		// for state they never had.
		if v.epoch < n.adopted || v.epoch <= n.ctl.newest.Load() && v.epoch != cur && v.epoch != n.ctl.member.Load() {
			return nil, errRetiredView
		}
	}
	in, err := n.newInstance(space)
	if err != nil {
		return nil, err
	}
	n.instances[space] = in
	return in, nil
}

// resources maps names onto the lock namespace, sorted and without
// repeats.
func (n *Node) resources(names []string) []proc.ResID {
	rs := make([]proc.ResID, 0, len(names))
	for _, s := range names {
		rs = append(rs, n.c.resource(s))
	}
	slices.Sort(rs)
	return slices.Compact(rs)
}

func lockKey(r proc.ResID) string { return "lock/" + strconv.Itoa(int(r)) }

var errDraining = status.Error(codes.Unavailable, "the node is shutting down")

// acquire runs one request of a session on the instance of key in this
// node's view: waits for the view to be ready and for a free slot, asks,
// waits for the answer (fenced by the instance). The grant is registered
// with the session before the request is made, so an expiring session
// finds it. A request still waiting when the view changes starts over in
// the next one.
func (n *Node) acquire(ctx context.Context, s *session, key string, req proc.Request, try bool) (*grant, error) {
	var trying <-chan time.Time
	if try {
		t := time.NewTimer(n.cfg.TryWait)
		defer t.Stop()
		trying = t.C
	}
	for {
		if n.draining.Load() {
			return nil, errDraining
		}
		st, err := n.current(ctx, s.done)
		if err != nil {
			return nil, status.FromContextError(err).Err()
		}
		in, err := n.instance(key + st.v.suffix())
		if errors.Is(err, errRetiredView) {
			continue
		}
		if err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
		var sl *slot
		select {
		case sl = <-in.free:
		case <-st.retired:
			continue
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-s.done:
			return nil, errExpired
		case <-trying:
			return nil, status.Error(codes.FailedPrecondition, "taken")
		}
		g := &grant{id: n.id(), key: key, req: req, in: in, sl: sl, epoch: st.v.epoch}
		if !s.add(g) {
			in.free <- sl
			return nil, errExpired
		}
		in.request(sl, req, g.id)
		var a answer
		select {
		case a = <-sl.answer:
		case <-st.retired:
			s.drop(g)
			in.abandon(sl)
			continue
		case <-ctx.Done():
			s.drop(g)
			in.abandon(sl)
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-s.done:
			s.drop(g)
			in.abandon(sl)
			return nil, errExpired
		case <-trying:
			s.drop(g)
			in.abandon(sl)
			return nil, status.Error(codes.FailedPrecondition, "taken")
		}
		g.unit, g.counter = a.ev.Unit, a.counter
		serving := n.ctl.serving(st.v.epoch)
		n.mu.Lock()
		moved := n.cur != st || !serving || n.draining.Load()
		ok := moved || g.answer()
		n.mu.Unlock()
		if moved {
			// The view changed before the answer was taken (a grant of
			// a replaced view is not asked again: adopt did not see
			// it), or the node's lease ran out: this request starts
			// over in the next view.
			s.drop(g)
			g.release()
			continue
		}
		if !ok {
			// The session ended while the answer was on its way: it goes
			// back.
			s.drop(g)
			g.release()
			return nil, errExpired
		}
		return g, nil
	}
}

// regrant asks in view st for grant g again, for a holder whose grant was
// made in an earlier view. g keeps its token (of the earlier, smaller
// epoch). Given back meanwhile, it is released as soon as it is granted.
func (n *Node) regrant(g *grant, st *epochState) {
	in, err := n.instance(g.key + st.v.suffix())
	if err != nil {
		n.log.Error("regrant", "key", g.key, "err", err)
		return
	}
	var sl *slot
	select {
	case sl = <-in.free:
	case <-st.retired:
		return
	}
	in.request(sl, g.req, g.id)
	var a answer
	select {
	case a = <-sl.answer:
	case <-st.retired:
		in.abandon(sl)
		return
	}
	g.mu.Lock()
	released := g.released
	g.in, g.sl, g.unit = in, sl, a.ev.Unit
	g.mu.Unlock()
	if released {
		in.release(sl, a.ev.Unit)
	}
}

// grant is one Lock or Acquire answered to a session.
type grant struct {
	id      uint64
	key     string       // the instance key: "lock", "sem/NAME/R"
	req     proc.Request // what was asked
	epoch   uint64       // the view the token was issued in
	counter uint64       // the fencing counter

	mu       sync.Mutex
	in       *instance // where it is held now (moved by regrant)
	sl       *slot
	unit     int32
	lost     bool // the session ended
	answered bool // the grant may be handed out
	released bool
}

// answer marks g answered, unless its session has ended: then the caller
// gives it back (the session could not: it found g still waiting).
func (g *grant) answer() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.answered = !g.lost
	return g.answered
}

// held reports whether g is held: answered, not given back.
func (g *grant) held() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.answered && !g.released
}

// release gives the grant back, once.
func (g *grant) release() {
	g.mu.Lock()
	done := g.released
	g.released = true
	in, sl, unit := g.in, g.sl, g.unit
	g.mu.Unlock()
	if !done {
		in.release(sl, unit)
	}
}

var errExpired = status.Error(codes.NotFound, "session expired")

// session is a client's session: a lease renewed by keep-alives.
type session struct {
	id    uint64
	ttl   time.Duration
	timer *time.Timer
	done  chan struct{}

	mu     sync.Mutex
	grants map[uint64]*grant
	dead   bool
}

func (s *session) add(g *grant) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return false
	}
	s.grants[g.id] = g
	return true
}

func (s *session) drop(g *grant) {
	s.mu.Lock()
	delete(s.grants, g.id)
	s.mu.Unlock()
}

func (s *session) take(id uint64) *grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.grants[id]
	delete(s.grants, id)
	return g
}

// end ends the session: every grant goes back, after delay for an expired
// lease. A grant still waiting is marked lost and goes back when its
// request finds out (acquire).
func (n *Node) end(s *session, delay time.Duration, why string) {
	s.mu.Lock()
	if s.dead {
		s.mu.Unlock()
		return
	}
	s.dead = true
	close(s.done)
	gs := s.grants
	s.grants = nil
	s.mu.Unlock()
	n.mu.Lock()
	delete(n.sessions, s.id)
	n.mu.Unlock()
	n.metrics.sessions.Dec()
	n.log.Info("session ended", "session", s.id, "why", why, "grants", len(gs))
	for _, g := range gs {
		g.mu.Lock()
		g.lost = true
		answered := g.answered
		g.mu.Unlock()
		if !answered {
			continue // still waiting: acquire gives it back
		}
		if delay > 0 {
			time.AfterFunc(delay, g.release)
		} else {
			g.release()
		}
	}
}

func (n *Node) session(id uint64) (*session, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := n.sessions[id]
	if s == nil {
		return nil, errExpired
	}
	return s, nil
}

// OpenSession implements the Allot service.
func (n *Node) OpenSession(ctx context.Context, r *pb.OpenSessionRequest) (*pb.OpenSessionResponse, error) {
	if r.TtlMs <= 0 || r.TtlMs > MaxTTL.Milliseconds() {
		return nil, status.Errorf(codes.InvalidArgument, "session TTL must be positive and at most %dms (%v), got %dms", MaxTTL.Milliseconds(), MaxTTL, r.TtlMs)
	}
	if n.draining.Load() {
		return nil, errDraining
	}
	lease, err := n.waitLease(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{id: n.id(), ttl: time.Duration(r.TtlMs) * time.Millisecond, done: make(chan struct{}), grants: map[uint64]*grant{}}
	n.mu.Lock()
	n.sessions[s.id] = s
	n.mu.Unlock()
	n.metrics.sessions.Inc()
	s.timer = time.AfterFunc(s.ttl, func() { n.end(s, n.cfg.LockDelay, "lease expired") })
	return &pb.OpenSessionResponse{Session: s.id, TtlMs: r.TtlMs, LeaseMs: lease.Milliseconds()}, nil
}

// waitLease waits until the node serves (a node starting, or between two
// views, will soon), for at most three leases and a second.
func (n *Node) waitLease(ctx context.Context) (time.Duration, error) {
	give := time.Now().Add(3*n.cfg.Suspect + time.Second)
	for {
		if lease := n.ctl.leaseLeft(); lease > 0 {
			return lease, nil
		}
		if time.Now().After(give) {
			return 0, status.Error(codes.Unavailable, "this node is not serving: not in the cluster's view, or cut off from its majority")
		}
		select {
		case <-ctx.Done():
			return 0, status.FromContextError(ctx.Err()).Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// KeepAlive implements the Allot service.
func (n *Node) KeepAlive(_ context.Context, r *pb.KeepAliveRequest) (*pb.KeepAliveResponse, error) {
	if n.draining.Load() {
		return nil, errDraining
	}
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	// The lease is read first: what the answer says is left is never
	// more than is.
	lease := n.ctl.leaseLeft()
	if lease <= 0 {
		// The node is fencing itself: the session ends with it.
		return nil, status.Error(codes.Unavailable, "this node is not serving")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead || !s.timer.Stop() {
		return nil, errExpired
	}
	s.timer.Reset(s.ttl)
	return &pb.KeepAliveResponse{TtlMs: s.ttl.Milliseconds(), LeaseMs: lease.Milliseconds()}, nil
}

// CloseSession implements the Allot service.
func (n *Node) CloseSession(_ context.Context, r *pb.CloseSessionRequest) (*pb.CloseSessionResponse, error) {
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	s.timer.Stop()
	n.end(s, 0, "closed")
	return &pb.CloseSessionResponse{}, nil
}

// Lock implements the Allot service.
func (n *Node) Lock(ctx context.Context, r *pb.LockRequest) (*pb.LockResponse, error) {
	if len(r.Resources) == 0 {
		return nil, status.Error(codes.InvalidArgument, "lock of no resources")
	}
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	g, err := n.acquire(ctx, s, "lock", proc.Request{Res: n.resources(r.Resources)}, r.TryLock)
	if err != nil {
		return nil, err
	}
	// One counter fences every resource of the grant: it is above the
	// counter of every earlier holder of each.
	out := make([]*pb.Token, len(r.Resources))
	for i, name := range r.Resources {
		out[i] = &pb.Token{Resource: name, Epoch: g.epoch, Counter: g.counter}
	}
	return &pb.LockResponse{Grant: g.id, Tokens: out}, nil
}

// Unlock implements the Allot service.
func (n *Node) Unlock(_ context.Context, r *pb.UnlockRequest) (*pb.UnlockResponse, error) {
	return &pb.UnlockResponse{}, n.giveBack(r.Session, r.Grant)
}

func (n *Node) giveBack(sid, gid uint64) error {
	s, err := n.session(sid)
	if err != nil {
		return err
	}
	g := s.take(gid)
	if g == nil {
		return status.Errorf(codes.NotFound, "no grant %d in the session", gid)
	}
	g.release()
	return nil
}

// Acquire implements the Allot service.
func (n *Node) Acquire(ctx context.Context, r *pb.AcquireRequest) (*pb.AcquireResponse, error) {
	if r.Units <= 0 {
		return nil, status.Errorf(codes.InvalidArgument, "a semaphore needs units > 0, got %d", r.Units)
	}
	if r.Name == "" {
		return nil, status.Error(codes.InvalidArgument, "a semaphore needs a name")
	}
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	key := semKey(r.Name, int(r.Units))
	if _, err := parseKey(key); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if _, _, err := n.problem(spec{kind: algo.Pool, name: r.Name, units: int(r.Units)}, len(n.c.Nodes)*n.c.Slots); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	g, err := n.acquire(ctx, s, key, proc.Request{}, r.TryAcquire)
	if err != nil {
		return nil, err
	}
	tok := &pb.Token{Resource: unitKey(key, g.unit, g.epoch), Epoch: g.epoch, Counter: g.counter}
	return &pb.AcquireResponse{Grant: g.id, Unit: g.unit, Token: tok}, nil
}

// Release implements the Allot service.
func (n *Node) Release(_ context.Context, r *pb.ReleaseRequest) (*pb.ReleaseResponse, error) {
	return &pb.ReleaseResponse{}, n.giveBack(r.Session, r.Grant)
}

// Take implements the Allot service: n requests of one permit each, in
// turn, on one user slot of this node. A reject ends the Take with
// RESOURCE_EXHAUSTED; the permits issued before it are consumed.
func (n *Node) Take(ctx context.Context, r *pb.TakeRequest) (*pb.TakeResponse, error) {
	if r.N <= 0 {
		return nil, status.Errorf(codes.InvalidArgument, "take needs n > 0, got %d", r.N)
	}
	_, ok := n.c.Quotas[r.Name]
	if !ok {
		return nil, status.Errorf(codes.InvalidArgument, "no quota %q in this cluster", r.Name)
	}
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	for {
		st, err := n.current(ctx, s.done)
		if err != nil {
			return nil, status.FromContextError(err).Err()
		}
		resp, err := n.take(ctx, s, st, r)
		if errors.Is(err, errViewChanged) {
			continue // nothing was issued: asked again in the next view
		}
		return resp, err
	}
}

// errViewChanged: a Take's view stopped serving before it issued anything.
var errViewChanged = errors.New("the view changed")

// take serves a Take in view st. Permits are on disk before the answer
// leaves: a permit the node would not know of after a crash is never
// handed out.
func (n *Node) take(ctx context.Context, s *session, st *epochState, r *pb.TakeRequest) (*pb.TakeResponse, error) {
	n.ctl.issuing.RLock()
	defer n.ctl.issuing.RUnlock()
	select {
	case <-st.retired:
		return nil, errViewChanged
	default:
	}
	if st.spent[r.Name] {
		if st.guess[r.Name] {
			return nil, status.Errorf(codes.Unavailable, "quota %s: what is left is held for a node away since an earlier view, until it is back on its data", r.Name)
		}
		return nil, status.Errorf(codes.ResourceExhausted, "quota %s exhausted: every permit was issued", r.Name)
	}
	space := st.quotas[r.Name]
	in, err := n.instance(space)
	if errors.Is(err, errRetiredView) {
		return nil, errViewChanged
	}
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	qi, _ := slices.BinarySearch(n.ctl.quotas, r.Name)
	var got int64
	var refused error
	reserved := 0  // permits reserved in the node's chunk, not yet settled
	var kept int64 // permits of got already on disk
	defer func() {
		if reserved > 0 && got == kept {
			n.ctl.chunks.settle(qi, reserved, 0) // abandoned: never handed out
		}
	}()
	for got < r.N && refused == nil {
		if n.draining.Load() {
			refused = errDraining
			break
		}
		var sl *slot
		select {
		case sl = <-in.free:
		case <-st.retired:
			refused = errViewChanged
		case <-ctx.Done():
			refused = status.FromContextError(ctx.Err()).Err()
		case <-s.done:
			refused = errExpired
		}
		if refused != nil {
			break
		}
		// The permit is within this node's chunk of the view, or waits
		// for the report that grants the next one to commit.
		refused = n.ctl.chunks.reserve(st.v.epoch, qi, func(wait <-chan struct{}) error {
			if got > kept {
				// The chunk is used up: what this Take got so far goes
				// on disk first, so that the report it waits for can
				// count it.
				count, err := n.ctl.store.AddIssued(r.Name, uint64(got-kept))
				if err != nil {
					return status.Errorf(codes.Unavailable, "quota %s: the node could not record its permits", r.Name)
				}
				n.ctl.chunks.settle(qi, int(got-kept), count)
				reserved -= int(got - kept)
				kept = got
				n.ctl.issued()
			}
			select {
			case <-wait:
				return nil
			case <-st.retired:
				return errViewChanged
			case <-ctx.Done():
				return status.FromContextError(ctx.Err()).Err()
			case <-s.done:
				return errExpired
			}
		})
		if refused != nil {
			in.free <- sl
			break
		}
		reserved++
		in.request(sl, proc.Request{}, 0)
		select {
		case a := <-sl.answer:
			in.free <- sl
			switch {
			case a.ev.Kind != proc.EvReject:
				got++
				continue
			}
			// Not issued: its reservation ends now.
			n.ctl.chunks.settle(qi, 1, 0)
			reserved--
			switch {
			case st.guess[r.Name]:
				// The view began short of an absent member's report:
				// this reject proves nothing of the quota's waste.
				refused = status.Errorf(codes.Unavailable, "quota %s: what is left is held for a node away since an earlier view, until it is back on its data", r.Name)
			default:
				refused = status.Errorf(codes.ResourceExhausted, "quota %s exhausted after %d of %d permits", r.Name, got, r.N)
			}
		case <-st.retired:
			in.abandon(sl)
			refused = errViewChanged
		case <-ctx.Done():
			in.abandon(sl)
			refused = status.FromContextError(ctx.Err()).Err()
		case <-s.done:
			in.abandon(sl)
			refused = errExpired
		}
	}
	if got > kept {
		count, err := n.ctl.store.AddIssued(r.Name, uint64(got-kept))
		if err != nil {
			// Held as reserved for good: the node may have issued them.
			n.log.Error("quota: the permit count could not be kept", "quota", r.Name, "err", err)
			return nil, status.Errorf(codes.Unavailable, "quota %s: the node could not record its permits", r.Name)
		}
		n.ctl.chunks.settle(qi, reserved, count)
		reserved = 0
		n.ctl.issued()
	}
	if got > 0 {
		if refused == nil && !n.ctl.serving(st.v.epoch) {
			// The lease ran out meanwhile: the permits are spent, not
			// handed out.
			refused = status.Errorf(codes.Unavailable, "quota %s: this node stopped serving", r.Name)
		}
		if errors.Is(refused, errViewChanged) {
			refused = status.Errorf(codes.Unavailable, "quota %s: the cluster's view changed after %d of %d permits", r.Name, got, r.N)
		}
	}
	if refused != nil {
		return nil, refused
	}
	return &pb.TakeResponse{Permits: r.N}, nil
}

// lookup finds an algorithm of the catalogue.
func lookup(name string) (algo.Algorithm, error) {
	a, err := all.Lookup(name)
	if err != nil {
		return algo.Algorithm{}, fmt.Errorf("%w: %v", ErrCluster, err)
	}
	return a, nil
}

package service

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/all"
	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/link"
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
	Log       *slog.Logger // nil: discard
	Events    io.Writer    // the node event log (JSONL), nil: none
}

// Node is one node of a cluster: it serves the Allot API to clients and the
// Peer API to the other nodes.
type Node struct {
	pb.UnimplementedAllotServer
	c        Cluster
	self     int
	cfg      Config
	log      *slog.Logger
	codec    *codec.Codec
	algs     map[algo.Kind]algo.Algorithm
	links    []*link.Link
	conns    []*grpc.ClientConn
	events   *eventLog
	metrics  *metrics
	ctx      context.Context
	cancel   context.CancelFunc
	draining atomic.Bool
	wg       sync.WaitGroup

	mu        sync.Mutex
	instances map[string]*instance
	sessions  map[uint64]*session
	nextID    uint64

	keeperMu sync.Mutex
	counters map[string]uint64 // fencing counters of the keys this node keeps
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
	n := &Node{
		c: c, self: cfg.Self, cfg: cfg, log: cfg.Log.With("node", cfg.Self),
		algs:      map[algo.Kind]algo.Algorithm{},
		instances: map[string]*instance{},
		sessions:  map[uint64]*session{},
		counters:  map[string]uint64{},
		// Grant and session ids carry the node so they are unique in the
		// cluster.
		nextID:  uint64(cfg.Self) << 48,
		metrics: newMetrics(),
	}
	n.events = &eventLog{w: cfg.Events, node: cfg.Self}
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
	var err error
	if n.codec, err = codec.New(algs...); err != nil {
		return nil, err
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.links = make([]*link.Link, len(c.Nodes))
	n.conns = make([]*grpc.ClientConn, len(c.Nodes))
	for k, addr := range c.Nodes {
		if k == n.self {
			continue
		}
		if k < len(cfg.PeerAddrs) {
			addr = cfg.PeerAddrs[k]
		}
		n.links[k] = link.New(n.self, k, func(f *pb.Frame) { n.received(k, f) }, n.log)
		if n.conns[k], err = grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials())); err != nil {
			n.cancel()
			return nil, err
		}
	}
	// The lock and the declared quotas start on every node at once: the
	// controller's root builds its tree at Start, and a node that built
	// the instance only on a first Take would wait for a root that never
	// started. (A semaphore may start on first use: R-RESOURCES only
	// answers requests.)
	keys := []string{"lock"}
	for _, name := range slices.Sorted(maps.Keys(c.Quotas)) {
		keys = append(keys, quotaKey(name, c.Quotas[name]))
	}
	for _, k := range keys {
		if _, err := n.instance(k); err != nil {
			n.cancel()
			return nil, err
		}
	}
	return n, nil
}

// Register registers the node's services on s.
func (n *Node) Register(s *grpc.Server) {
	pb.RegisterAllotServer(s, n)
	pb.RegisterPeerServer(s, peerServer{n: n})
}

// Start dials the nodes with a larger index (the others dial this one).
func (n *Node) Start() {
	for k := n.self + 1; k < len(n.links); k++ {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			n.links[k].Dial(n.ctx, n.conns[k])
		}()
	}
}

// WaitPeers waits until a link to every other node is up.
func (n *Node) WaitPeers(ctx context.Context) error {
	for k, l := range n.links {
		if l == nil {
			continue
		}
		select {
		case <-l.Up():
		case <-ctx.Done():
			return fmt.Errorf("node %d at %s unreachable: %w", k, n.c.Nodes[k], ctx.Err())
		}
	}
	return nil
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
					n.log.Warn("shutdown with a granted lease", "session", s.id, "grant", g.id, "keys", g.keys)
				}
				s.mu.Unlock()
			}
			n.mu.Unlock()
			goto out
		case <-tick.C:
		}
	}
out:
	n.mu.Lock()
	for _, in := range n.instances {
		in.close()
	}
	n.mu.Unlock()
	n.cancel()
	n.wg.Wait()
	for _, c := range n.conns {
		if c != nil {
			c.Close()
		}
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

// instance returns the instance of key, building it on first use.
func (n *Node) instance(key string) (*instance, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if in := n.instances[key]; in != nil {
		return in, nil
	}
	in, err := n.newInstance(key)
	if err != nil {
		return nil, err
	}
	n.instances[key] = in
	return in, nil
}

// send encodes m for the link to node k.
func (n *Node) send(k int, instance string, from, to proc.ID, m proc.Message) {
	b, err := n.codec.AppendMessage(nil, m)
	if err != nil {
		// A message the codec cannot carry is a bug of the algorithm's
		// declarations, caught by the codec's catalogue test.
		panic(fmt.Sprintf("service: %v", err))
	}
	n.links[k].Send(instance, from, to, b)
}

// keeper is the node that issues the fencing tokens of key.
func (n *Node) keeper(key string) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(len(n.c.Nodes)))
}

// issue gives the next counter of each key this node keeps.
func (n *Node) issue(keys []string) []uint64 {
	n.keeperMu.Lock()
	defer n.keeperMu.Unlock()
	out := make([]uint64, len(keys))
	for i, k := range keys {
		n.counters[k]++
		out[i] = n.counters[k]
	}
	return out
}

// tokens fetches the next token of every key from its keeper. The caller
// holds what the keys name, and gives it back only after tokens returned,
// so the keeper issues a key's counters in the order of its holders.
func (n *Node) tokens(ctx context.Context, keys []string) ([]*pb.Token, error) {
	byKeeper := map[int][]int{}
	for i, k := range keys {
		byKeeper[n.keeper(k)] = append(byKeeper[n.keeper(k)], i)
	}
	out := make([]*pb.Token, len(keys))
	for k, idx := range byKeeper {
		ks := make([]string, len(idx))
		for j, i := range idx {
			ks[j] = keys[i]
		}
		var cs []uint64
		if k == n.self {
			cs = n.issue(ks)
		} else {
			resp, err := n.remoteTokens(ctx, k, ks)
			if err != nil {
				return nil, err
			}
			if len(resp.Counters) != len(ks) {
				return nil, fmt.Errorf("node %d issued %d tokens for %d keys", k, len(resp.Counters), len(ks))
			}
			cs = resp.Counters
		}
		for j, i := range idx {
			out[i] = &pb.Token{Resource: keys[i], Epoch: n.c.Epoch, Counter: cs[j]}
		}
	}
	return out, nil
}

// remoteTokens asks keeper k, again while the connection breaks under the
// call. A call lost that way may still have been served: its counters are
// skipped, which keeps the tokens in order (the grant goes back only after
// the answer that counts).
func (n *Node) remoteTokens(ctx context.Context, k int, keys []string) (*pb.TokensResponse, error) {
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		resp, err := pb.NewPeerClient(n.conns[k]).Tokens(ctx, &pb.TokensRequest{Keys: keys}, grpc.WaitForReady(true))
		if status.Code(err) != codes.Unavailable {
			return resp, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

type peerServer struct {
	pb.UnimplementedPeerServer
	n *Node
}

// Tokens implements the Peer service.
func (p peerServer) Tokens(_ context.Context, r *pb.TokensRequest) (*pb.TokensResponse, error) {
	return &pb.TokensResponse{Epoch: p.n.c.Epoch, Counters: p.n.issue(r.Keys)}, nil
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

// acquire runs one request of a session on in: waits for a free slot,
// asks, waits for the answer, fences it. The grant is registered with the
// session before the request is made, so an expiring session finds it.
func (n *Node) acquire(ctx context.Context, s *session, in *instance, req proc.Request, try bool, keys func(proc.Event) []string) (*grant, []*pb.Token, error) {
	if n.draining.Load() {
		return nil, nil, errDraining
	}
	var sl *slot
	select {
	case sl = <-in.free:
	case <-ctx.Done():
		return nil, nil, status.FromContextError(ctx.Err()).Err()
	case <-s.done:
		return nil, nil, errExpired
	}
	g := &grant{id: n.id(), in: in, sl: sl}
	if !s.add(g) {
		in.free <- sl
		return nil, nil, errExpired
	}
	in.run(func() { in.request(sl, req) })
	var trying <-chan time.Time
	if try {
		t := time.NewTimer(n.cfg.TryWait)
		defer t.Stop()
		trying = t.C
	}
	var ev proc.Event
	select {
	case ev = <-sl.answer:
	case <-ctx.Done():
		s.drop(g)
		in.abandon(sl)
		return nil, nil, status.FromContextError(ctx.Err()).Err()
	case <-s.done:
		s.drop(g)
		in.abandon(sl)
		return nil, nil, errExpired
	case <-trying:
		s.drop(g)
		in.abandon(sl)
		return nil, nil, status.Error(codes.FailedPrecondition, "taken")
	}
	g.unit = ev.Unit
	g.keys = keys(ev)
	toks, err := n.tokens(ctx, g.keys)
	if err == nil {
		counters := make([]uint64, len(toks))
		for i, t := range toks {
			counters[i] = t.Counter
		}
		in.run(func() { n.events.fenced(in, sl.id, g.keys, counters) })
	}
	if err != nil || !g.fence() {
		// The tokens could not be issued, or the session expired
		// meanwhile: the answer goes back, after the keepers answered.
		s.drop(g)
		g.release()
		if err != nil {
			return nil, nil, status.Errorf(codes.Unavailable, "fencing: %v", err)
		}
		return nil, nil, errExpired
	}
	return g, toks, nil
}

// grant is one Lock or Acquire answered to a session.
type grant struct {
	id   uint64
	in   *instance
	sl   *slot
	unit int32
	keys []string

	mu       sync.Mutex
	lost     bool // the session ended
	fenced   bool // the tokens are issued: the grant may be handed out
	released bool
}

// fence marks g's tokens issued, unless its session has ended: then the
// caller gives it back (the session could not, the tokens being on their
// way: a grant goes back only after its keepers answered, which is what
// keeps the tokens in the order of the holders).
func (g *grant) fence() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.fenced = !g.lost
	return g.fenced
}

// release gives the grant back, once.
func (g *grant) release() {
	g.mu.Lock()
	done := g.released
	g.released = true
	g.mu.Unlock()
	if !done {
		g.in.run(func() { g.in.release(g.sl, g.unit) })
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
// lease. A grant still being fenced is marked lost and goes back when its
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
		fenced := g.fenced
		g.mu.Unlock()
		if !fenced {
			continue // still waiting or fencing: acquire gives it back
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
func (n *Node) OpenSession(_ context.Context, r *pb.OpenSessionRequest) (*pb.OpenSessionResponse, error) {
	if r.TtlMs <= 0 {
		return nil, status.Errorf(codes.InvalidArgument, "session TTL must be positive, got %dms", r.TtlMs)
	}
	if n.draining.Load() {
		return nil, errDraining
	}
	s := &session{id: n.id(), ttl: time.Duration(r.TtlMs) * time.Millisecond, done: make(chan struct{}), grants: map[uint64]*grant{}}
	n.mu.Lock()
	n.sessions[s.id] = s
	n.mu.Unlock()
	n.metrics.sessions.Inc()
	s.timer = time.AfterFunc(s.ttl, func() { n.end(s, n.cfg.LockDelay, "lease expired") })
	return &pb.OpenSessionResponse{Session: s.id, TtlMs: r.TtlMs}, nil
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead || !s.timer.Stop() {
		return nil, errExpired
	}
	s.timer.Reset(s.ttl)
	return &pb.KeepAliveResponse{TtlMs: s.ttl.Milliseconds()}, nil
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
	in, err := n.instance("lock")
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	rs := n.resources(r.Resources)
	g, toks, err := n.acquire(ctx, s, in, proc.Request{Res: rs}, r.Try, func(proc.Event) []string {
		ks := make([]string, len(rs))
		for i, x := range rs {
			ks[i] = lockKey(x)
		}
		return ks
	})
	if err != nil {
		return nil, err
	}
	// The tokens are per namespace slot; each name gets its slot's.
	out := make([]*pb.Token, len(r.Resources))
	for i, name := range r.Resources {
		x := n.resources([]string{name})[0]
		t := toks[slices.Index(rs, x)]
		out[i] = &pb.Token{Resource: name, Epoch: t.Epoch, Counter: t.Counter}
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
	in, err := n.instance(key)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	g, toks, err := n.acquire(ctx, s, in, proc.Request{}, r.Try, func(e proc.Event) []string {
		return []string{key + "/" + strconv.Itoa(int(e.Unit))}
	})
	if err != nil {
		return nil, err
	}
	return &pb.AcquireResponse{Grant: g.id, Unit: g.unit, Token: toks[0]}, nil
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
	q, ok := n.c.Quotas[r.Name]
	if !ok {
		return nil, status.Errorf(codes.InvalidArgument, "no quota %q in this cluster", r.Name)
	}
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	in, err := n.instance(quotaKey(r.Name, q))
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	for k := range r.N {
		if n.draining.Load() {
			return nil, errDraining
		}
		var sl *slot
		select {
		case sl = <-in.free:
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-s.done:
			return nil, errExpired
		}
		in.run(func() { in.request(sl, proc.Request{}) })
		var ev proc.Event
		select {
		case ev = <-sl.answer:
			in.free <- sl
		case <-ctx.Done():
			in.abandon(sl)
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-s.done:
			in.abandon(sl)
			return nil, errExpired
		}
		if ev.Kind == proc.EvReject {
			return nil, status.Errorf(codes.ResourceExhausted, "quota %s exhausted after %d of %d permits", r.Name, k, r.N)
		}
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

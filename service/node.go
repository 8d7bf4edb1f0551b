package service

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/all"
	"github.com/allot-dev/allot/algo/centralpool"
	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/mtls"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/eventlog"
	"github.com/allot-dev/allot/service/internal/backuppb"
	"github.com/allot-dev/allot/service/internal/names"
	"github.com/allot-dev/allot/service/internal/space"
	tgrpc "github.com/allot-dev/allot/transport/grpc"
)

// DefaultSuspect is the control plane's lease when none is set. A lease
// is renewed every sixth of it by a Raft round trip, which waits for
// the nodes' writes to disk and for their processes to run: on a loaded
// two-core machine (four CPU hogs beside three nodes, 10,000 sessions)
// those round trips took up to 1.4s, and with a lease of 1s or 2s nodes
// let it run out and ended their sessions; with 3s, none did. A longer
// lease costs failover time: a crashed node is left out of the view
// after it, and the view waits about as long again for its lease.
const DefaultSuspect = 3 * time.Second

// Config is one node of a cluster.
type Config struct {
	// Cluster is the cluster's description; its Nodes are the nodes it
	// started with (ids 0..n-1). Members added later have the next ids.
	Cluster Cluster
	Self    int // this node's id: its index in Cluster.Nodes, or a later member's
	// FromLog: the membership is the log's alone (a node that joined, or
	// one restarted on its data without a node list). Otherwise
	// Cluster.Nodes must be the membership the log has
	// (ErrStaleMembership).
	FromLog bool
	// Peers, for a node joining a running cluster, are the members the
	// cluster told it of (id -> address): it links to them until its
	// log, which they send it, has its own addition.
	Peers map[int]string
	// LockDelay is how long an expired session's resources stay held
	// before they are released (Chubby's lock-delay): a holder that lost
	// its session without knowing it gets that long to notice.
	LockDelay time.Duration
	// TryWait bounds how long TryAcquire waits for a grant, and TryLock
	// under a lock algorithm whose users cannot tell whether they wait
	// behind another (proc.Queued: modular-central's can, central's
	// cannot) (0: 20ms); see docs/service.md.
	TryWait time.Duration
	// MaxSessions bounds the sessions open at this node at once (0:
	// DefaultMaxSessions); one more is RESOURCE_EXHAUSTED with reason
	// NODE_LIMIT, and the client opens it on another node.
	MaxSessions int
	// MaxSemaphores bounds the semaphores in use on this node in its
	// view (0: DefaultMaxSemaphores; at most MostSemaphores): the
	// semaphore instances it hosts, idle ones included until a refresh
	// collects them (RefreshIdle). This node refuses an Acquire of a name
	// beyond it (RESOURCE_EXHAUSTED, NODE_LIMIT), and asks for a refresh
	// if some are idle.
	MaxSemaphores int
	// RefreshIdle is how many idle instances of its view (no holder, no
	// waiter on this node) a node keeps before it asks for a refresh, a
	// view of the same members that collects them (0:
	// DefaultRefreshIdle; negative: never, and idle instances live as
	// long as their view). It asks only once they are at least twice
	// those in use, and the view has served for RefreshEvery (0:
	// DefaultRefreshEvery). refresh.go says what a refresh costs.
	RefreshIdle  int
	RefreshEvery time.Duration
	// MaxLocks bounds the lock requests open at this node at once,
	// waiting or held (0: DefaultMaxLocks; at most MaxMaxLocks): each is
	// a user process of the view's lock instance while it is open. One
	// more is RESOURCE_EXHAUSTED with reason NODE_LIMIT (limit "locks").
	MaxLocks int
	// PeerAddrs, when set, are the addresses this node dials the other
	// nodes at, by id (a proxy in between, in tests); nil: the members'
	// addresses.
	PeerAddrs []string
	// Suspect is the control plane's lease (0: DefaultSuspect): a node serves at most
	// this long after it last confirmed it is in the cluster's view, the
	// leader thinks a node dead after this long without a message from
	// it, and elections start after one to two of it without a leader
	// (package control).
	Suspect time.Duration
	// SnapshotEvery is how many control log entries a node applies
	// between two snapshots of the control plane's state, each of which
	// replaces the entries before it in its store (0:
	// control.DefaultSnapshotEvery; negative: never, the log grows for
	// the cluster's life).
	SnapshotEvery int
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
	// Identity is the node's mTLS identity in a secure cluster, the one
	// Secure was given: the links between nodes that leave gRPC out (the
	// plain carrier, Serve) speak mTLS with it. Without it, a node with
	// DialOptions or ServerOptions links to the others over gRPC streams
	// only (it cannot tell what the options secure).
	Identity *mtls.Identity
	Log      *slog.Logger // nil: discard
	Events   io.Writer    // the node event log (JSONL), nil: none

	// StatusAddr is where the node's /status and /metrics are served
	// (allot serve --metrics; "": nowhere), for ListMembers to say.
	StatusAddr string
}

// Node is one node of a cluster: it serves the Allot API to clients, and
// its processes reach the other nodes' over the link transport, on the same
// gRPC server.
type Node struct {
	pb.UnimplementedAllotServer

	// What the node is, fixed once New returns.
	c     Cluster
	self  int
	cfg   Config
	log   *slog.Logger
	codec *codec.Codec
	algs  map[algo.Kind]algo.Algorithm
	every space.View // every node of the cluster file: placement of a name without a view

	// The membership as the control log has it, and the links to the
	// members, which follow it (members.go: the link transport, set by
	// Register); the space names the transport hands over, each parsed
	// once (space.go); and whether the node's log proved lost (lost.go).
	members membership
	spaces  spaceNames
	lost    lostSignal

	// The data plane: the view the node is in and the instances it hosts
	// (view.go, space.go, instance.go), and the Lamport clock of the
	// fencing counters.
	views views
	clock clock
	names nameTables // the lock names' ids, per view (names.go)

	// The API's state: the clients' sessions (sessions.go), the ids of
	// sessions and grants (ids.go), and whether the node is shutting down.
	sessions sessionTable
	ids      atomic.Uint64 // the last id issued
	draining atomic.Bool

	// The control plane's host (ctl.go) and its data directory.
	ctl    *ctlHost
	tmpDir string // DataDir's stand-in, removed at Shutdown ("": none)

	// Operations: the event log, the metrics, health (set by Register),
	// and the stop of the node's goroutines.
	events  *eventlog.Log
	metrics *metrics
	health  nodeHealth
	stop    context.CancelFunc

	// semUnits: semaphore name -> its units as the control log recorded
	// them, and when; semReads: name -> the one read of the log under
	// way for it (semaphores.go); expiry ends the sessions whose
	// lease ran out and gives back the grants whose lock-delay is over
	// (expiry.go); refreshWake wakes the refresher
	// (refresh.go).
	semUnits    sync.Map
	semReads    sync.Map
	expiry      *expiry
	refreshWake chan struct{}

	// Sessions that outlive their node: what this node keeps as the
	// backup of other nodes' sessions (backup.go), and the records of
	// its own going to its backup (primary.go).
	keeper *keeper
	rep    *replicator
}

// New returns the node cfg.Self of cfg.Cluster; Start connects it.
func New(cfg Config) (*Node, error) {
	c := cfg.Cluster
	if err := c.Complete(); err != nil {
		return nil, err
	}
	if cfg.Self < 0 || cfg.Self >= MaxNodes || cfg.Self >= len(c.Nodes) && !cfg.FromLog {
		return nil, fmt.Errorf("%w: node %d of %d", ErrCluster, cfg.Self, len(c.Nodes))
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.TryWait == 0 {
		cfg.TryWait = 20 * time.Millisecond
	}
	if cfg.Suspect <= 0 {
		cfg.Suspect = DefaultSuspect
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.MaxSemaphores <= 0 {
		cfg.MaxSemaphores = DefaultMaxSemaphores
	}
	if cfg.MaxSemaphores > MostSemaphores {
		return nil, fmt.Errorf("%w: at most %d semaphores in use on a node, not %d", ErrCluster, MostSemaphores, cfg.MaxSemaphores)
	}
	if cfg.RefreshIdle == 0 {
		cfg.RefreshIdle = DefaultRefreshIdle
	}
	if cfg.RefreshEvery <= 0 {
		cfg.RefreshEvery = DefaultRefreshEvery
	}
	if cfg.MaxLocks <= 0 {
		cfg.MaxLocks = DefaultMaxLocks
	}
	cfg.MaxLocks = min(cfg.MaxLocks, MaxMaxLocks)
	log := cfg.Log.With("node", cfg.Self)
	n := &Node{
		c: c, self: cfg.Self, cfg: cfg, log: log,
		algs:     map[algo.Kind]algo.Algorithm{},
		views:    views{instances: map[space.Space]*instance{}},
		sessions: sessionTable{byID: map[uint64]*session{}},
		expiry:   newExpiry(),
		metrics:  newMetrics(),
		members:  newMembership(cfg, log),
		lost:     lostSignal{done: make(chan struct{})},
		keeper:   newKeeper(),

		refreshWake: make(chan struct{}, 1),
	}
	n.rep = newReplicator(cfg, log, &n.members, &n.sessions)
	n.events = eventlog.New(cfg.Events, cfg.Self)
	n.metrics.reg.MustRegister(messages{from: []sentCounter{&n.views, n.metrics}}, state{p: n, l: &n.members}, objectsGauge{c: n})
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
	// central-pool serves the large semaphores whatever the cluster's
	// semaphore algorithm (semaphores.go).
	algs = append(algs, centralpool.Algorithm, control.Algorithm(), algo.Algorithm{Name: "names", Messages: names.Messages})
	var err error
	if n.codec, err = codec.New(algs...); err != nil {
		return nil, err
	}
	n.every.Epoch = c.Epoch
	for k := range c.Nodes {
		n.every.Members |= space.SetOf(k)
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
	if cfg.DataDir != "" { // a temporary directory is new at every run: nothing in it to lose
		if err := n.checkDataLost(dir); err != nil {
			return nil, err
		}
	}
	if n.ctl, err = newCtl(n, &n.members, n.cfg, c, n.log, dir); err == nil {
		n.members.ctl = n.ctl
		if !cfg.FromLog {
			if err = n.members.check(); err != nil {
				n.ctl.close()
			}
		}
	}
	if err != nil {
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
	n.ids.Store(firstID(cfg.Self, run))
	return n, nil
}

// Register registers the node's services on s, the node's one gRPC
// server (for clients and peers), connects to the other nodes and starts
// the lock and the declared quotas. Call it before s serves.
func (n *Node) Register(s *grpc.Server) error {
	pb.RegisterAllotServer(s, n)
	pb.RegisterAdminServer(s, n.admin())
	backuppb.RegisterBackupServer(s, backupServer{k: n.keeper})
	n.health.register(s)
	reflection.Register(s) // grpcurl lists and calls the API without the .proto
	tr, err := n.members.link(tgrpc.Config{
		Server:      s,
		DialOptions: n.cfg.DialOptions,
		Place:       n.place,
		Open:        n.open,
		Codec:       stampCodec{n.codec, &n.clock},
		Plain:       plainLinks(n.cfg, n.log),
	})
	if err != nil {
		return err
	}
	n.ctl.space = tr.Space(ctlSpace)
	if err := n.ctl.space.Register(proc.ID(n.self), n.ctl.deliver); err != nil {
		tr.Close()
		return err
	}
	n.names.mu.Lock()
	n.names.space = tr.Space(namesSpace)
	n.names.mu.Unlock()
	if err := n.names.space.Register(proc.ID(n.self), n.deliverNames); err != nil {
		tr.Close()
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	n.stop = cancel
	go n.ctl.run(ctx)
	go n.ctl.changes(ctx)
	go n.flushEvents(ctx)
	go n.health.follow(ctx, n)
	go n.expire(ctx)
	go n.refresher(ctx)
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
			n.events.Flush()
		}
	}
}

// WaitReady waits until the node serves: a view of a majority of the
// cluster, agreed in the control plane, has it as a member.
func (n *Node) WaitReady(ctx context.Context) error {
	for {
		if st := n.views.current(); st != nil {
			select {
			case <-st.ready:
				return nil
			default:
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no view with a majority of the cluster took this node in: %w", ctx.Err())
		case <-n.members.removed:
			return fmt.Errorf("node %d: %w", n.self, ErrRemoved)
		case <-n.lost.done:
			return n.lost.err
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
			for _, s := range n.sessions.list() {
				s.mu.Lock()
				for _, g := range s.grants.List() {
					n.log.Warn("shutdown with a granted lease", "session", s.id, "grant", g.ID, "key", g.key.String())
				}
				s.mu.Unlock()
			}
			goto out
		case <-tick.C:
		}
	}
	// Drained: the others may move on at once. (A Shutdown whose time
	// is up already is a stop, not a leave; a removed node has nobody to
	// tell.)
	select {
	case <-n.members.removed:
	default:
		if ctx.Err() == nil && n.stop != nil { // nil: never registered, nobody knows it
			n.ctl.leave(ctx)
		}
	}
out:
	if n.stop != nil { // nil: never registered
		n.stop()
	}
	n.views.closeAll(func(in *instance) { n.events.Put(eventlog.Record{Instance: in.name, Ev: eventlog.Closed}) })
	if tr := n.members.transport(); tr != nil {
		tr.Close()
	}
	n.rep.close()
	n.ctl.close()
	if n.tmpDir != "" {
		os.RemoveAll(n.tmpDir)
	}
	n.events.Flush()
}

func (n *Node) held() int {
	k := 0
	for _, s := range n.sessions.list() {
		s.mu.Lock()
		k += s.grants.Len()
		s.mu.Unlock()
	}
	return k
}

func (n *Node) id() uint64 {
	return n.ids.Add(1)
}

// lookup finds an algorithm of the catalogue.
func lookup(name string) (algo.Algorithm, error) {
	a, err := all.Lookup(name)
	if err != nil {
		return algo.Algorithm{}, fmt.Errorf("%w: %v", ErrCluster, err)
	}
	return a, nil
}

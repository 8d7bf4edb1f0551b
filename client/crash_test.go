package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service"
)

// crashable is a cluster whose nodes can be crashed (their server and
// links stop at once, nothing drained) and started again on the same
// address, as a new run.
type crashable struct {
	t     *testing.T
	addrs []string
	dirs  []string // each node's data directory, kept across its runs
	mu    sync.Mutex
	nodes []*service.Node
	srvs  []*grpc.Server
	logs  []*bytes.Buffer // every run's log
	// via: node i dials the others at via(i, addrs) (nil: at addrs).
	via func(i int, addrs []string) []string
	// config, if set, changes each node's configuration.
	config func(*service.Config)
}

const testSuspect = time.Second

func newCrashable(t *testing.T, n int) *crashable {
	return newCrashableVia(t, n, nil)
}

// newCrashableVia is newCrashable with node i dialling the others at
// via(i, addrs).
func newCrashableVia(t *testing.T, n int, via func(i int, addrs []string) []string) *crashable {
	return newCrashableWith(t, n, via, nil)
}

// newCrashableWith is newCrashableVia with each node's configuration
// changed by config (nil: none).
func newCrashableWith(t *testing.T, n int, via func(i int, addrs []string) []string, config func(*service.Config)) *crashable {
	c := &crashable{t: t, nodes: make([]*service.Node, n), srvs: make([]*grpc.Server, n), via: via, config: config}
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		c.addrs = append(c.addrs, ln.Addr().String())
		c.dirs = append(c.dirs, t.TempDir())
	}
	// The nodes start together, as a new cluster's processes do. Before
	// it starts a new log, each node asks its peers for half a lease
	// whether their log has a start of it, and a peer still in that check
	// does not answer: started one after the other, each node would come
	// up that much after the one before, and the cluster's first views
	// would form without the last ones (then crashing those would leave
	// every view as it was, which is not what the tests mean by it).
	runs := make([]run, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = c.open(i, lns[i])
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for i := range n {
			c.crash(i)
		}
	})
	for i, r := range runs { // every run that started, before one fails the test
		if r.err == nil {
			c.install(i, r)
		}
	}
	for i, r := range runs {
		if r.err != nil {
			c.install(i, r)
		}
	}
	// The tests crash, cut and restart members of the view: a node that
	// came up after the first views formed (a loaded machine) would be in
	// none yet, and crashing it would change nothing. Every node's newest
	// view has every node before a test begins.
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < n; {
		if c.allInView(i) {
			i++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %d's view never had all %d nodes", i, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return c
}

// run is one run of a node, opened but not yet a member of the crashable.
type run struct {
	nd  *service.Node
	srv *grpc.Server
	log *bytes.Buffer
	err error
}

func (c *crashable) start(i int, ln net.Listener) {
	c.t.Helper()
	if ln == nil {
		var err error
		for try := 0; ; try++ { // the old run's port may take a moment to free
			if ln, err = net.Listen("tcp", c.addrs[i]); err == nil || try > 100 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil {
			c.t.Fatal(err)
		}
	}
	c.install(i, c.open(i, ln))
}

// open starts node i's run on ln; it may run in any goroutine.
func (c *crashable) open(i int, ln net.Listener) run {
	log := &bytes.Buffer{}
	cfg := service.Config{Cluster: service.Cluster{Nodes: c.addrs, Slots: 4, Quotas: testQuotas}, Self: i, Events: log, Suspect: testSuspect, DataDir: c.dirs[i]}
	if c.via != nil {
		cfg.PeerAddrs = c.via(i, c.addrs)
	}
	if c.config != nil {
		c.config(&cfg)
	}
	nd, err := service.New(cfg)
	if err != nil {
		return run{err: err}
	}
	s := grpc.NewServer()
	if err := nd.Register(s); err != nil {
		return run{err: err}
	}
	go s.Serve(ln)
	return run{nd: nd, srv: s, log: log}
}

// install makes run r node i's, or fails the test if it did not start.
func (c *crashable) install(i int, r run) {
	c.t.Helper()
	if r.err != nil {
		c.t.Fatalf("node %d: %v", i, r.err)
	}
	c.mu.Lock()
	c.nodes[i], c.srvs[i] = r.nd, r.srv
	c.logs = append(c.logs, r.log)
	c.mu.Unlock()
}

// inView says whether node k is a member of view epoch, as node i knows
// it: the newest view it has applied is that one, and k is in it.
func (c *crashable) inView(i, k int, epoch uint64) bool {
	c.mu.Lock()
	nd := c.nodes[i]
	c.mu.Unlock()
	ms, newest := nd.Members()
	return newest == epoch && slices.ContainsFunc(ms, func(m service.MemberInfo) bool { return m.ID == k && m.InView })
}

// allInView says whether the newest view node i has applied has every
// node of the crashable.
func (c *crashable) allInView(i int) bool {
	c.mu.Lock()
	nd := c.nodes[i]
	c.mu.Unlock()
	ms, newest := nd.Members()
	return newest > 0 && len(ms) == len(c.addrs) && !slices.ContainsFunc(ms, func(m service.MemberInfo) bool { return !m.InView })
}

// crash stops node i at once: its connections close, its sessions and
// processes are gone, nothing is given back.
func (c *crashable) crash(i int) {
	c.mu.Lock()
	nd, s := c.nodes[i], c.srvs[i]
	c.nodes[i], c.srvs[i] = nil, nil
	c.mu.Unlock()
	if nd == nil {
		return
	}
	s.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no drain
	nd.Shutdown(ctx)
}

func (c *crashable) records(t *testing.T) [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out [][]byte
	for _, b := range c.logs {
		out = append(out, b.Bytes())
	}
	return out
}

// session opens a session on node addr alone.
func session(t *testing.T, ctx context.Context, addr string) *client.Session {
	t.Helper()
	return sessionVia(t, ctx, addr)
}

// sessionVia opens a session by a client that knows addrs, the first
// first: the session opens there and follows its node's loss.
func sessionVia(t *testing.T, ctx context.Context, addrs ...string) *client.Session {
	t.Helper()
	cl, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	s, err := cl.Session(ctx, client.WithTTL(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestNodeCrashAndRejoin crashes a node while sessions on the others hold
// locks and a semaphore unit: after the suspicion timeout the cluster
// moves to a view without it, what the dead node held is free again once
// its sessions, adopted by its backup, expire (their client cannot
// follow them: it knows that node alone), what
// the live sessions hold stays theirs (nobody else gets it until they give
// it back), and their next holders get tokens of the new, larger epoch.
// The quota is held while the node is away (its count is on its disk);
// the node then comes back on its data as a new run, serves again in a
// later view, and the quota goes on with exactly what is left.
func TestNodeCrashAndRejoin(t *testing.T) {
	c := newCrashable(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// s0's and s1's clients know every node, as a client that is to
	// keep its session through a node's loss must: with a lease of a
	// second, a loaded machine can leave node 0 or 1 past its lease in
	// the view without node 2 (it fences itself), and their backup then
	// adopts their sessions (a client that knows one node loses them:
	// seen once, at load 6, as s1's Lock of "kept" answered "session
	// expired"). s2's knows node 2 alone: its sessions are to be lost
	// with it.
	s0 := sessionVia(t, ctx, c.addrs[0], c.addrs[1], c.addrs[2])
	s1 := sessionVia(t, ctx, c.addrs[1], c.addrs[0], c.addrs[2])
	s2 := session(t, ctx, c.addrs[2])

	held, err := s0.Lock(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Lock(ctx, "dies"); err != nil {
		t.Fatal(err)
	}
	sem := s0.Semaphore("pool", 2)
	if err := sem.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s2.Semaphore("pool", 2).Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	// Permits of the quota q (20, waste 4) taken on the node that dies and
	// on a live one.
	if err := s2.Quota("q").Take(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if err := s0.Quota("q").Take(ctx, 3); err != nil {
		t.Fatal(err)
	}

	crashed := time.Now()
	c.crash(2)

	// What the dead node held is free once the cluster moved on and the
	// dead node's sessions ran out: node 0, its backup, adopts them, but
	// their client knows node 2 alone and cannot follow (their Done
	// closes), so they expire after their TTL at node 0.
	g, err := s1.Lock(ctx, "dies")
	for errors.Is(err, client.ErrSessionExpired) {
		// Node 2 may have been the Raft leader: with a lease of a second
		// a loaded machine can elect the next one past node 1's lease,
		// which then fences itself, and its sessions, backed by node 2,
		// are lost with it, as they must be (a clean-clone CI run saw
		// it; s1 holds nothing yet). What is tested is who gets the
		// crashed node's lock, when, and with what token.
		t.Logf("session on node 1 lost (%v): opening another", err)
		s1 = sessionVia(t, ctx, c.addrs[1], c.addrs[0], c.addrs[2])
		g, err = s1.Lock(ctx, "dies")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a lock the crashed node held was granted again after %v", time.Since(crashed).Round(time.Millisecond))
	if !held.Token("kept").Less(g.Token("dies")) {
		t.Errorf("token %v of the new view is not above %v of the old", g.Token("dies"), held.Token("kept"))
	}
	if err := g.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	// So is the crashed node's semaphore unit: s1 gets the second unit
	// while s0 keeps the first.
	sem1 := s1.Semaphore("pool", 2)
	if err := sem1.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	// What a live session held across the change is still its own.
	if _, err := s1.TryLock(ctx, "kept"); !errors.Is(err, client.ErrLocked) {
		t.Fatalf("TryLock of a lock held across the view change: %v, want ErrLocked", err)
	}
	if err := sem1.TryAcquire(ctx); !errors.Is(err, client.ErrLocked) {
		t.Fatalf("a third unit of a semaphore of 2: %v, want ErrLocked", err)
	}
	waited := make(chan *client.Grant, 1)
	go func() {
		g, err := s1.Lock(ctx, "kept")
		if err != nil {
			t.Error(err)
		}
		waited <- g
	}()
	select {
	case g := <-waited:
		t.Fatalf("%v granted while its holder still holds it", g)
	case <-time.After(100 * time.Millisecond):
	}
	if err := held.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	next := <-waited
	if next == nil {
		t.FailNow()
	}
	if !held.Token("kept").Less(next.Token("kept")) {
		t.Errorf("the next holder's token %v is not above %v", next.Token("kept"), held.Token("kept"))
	}
	if err := next.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sem.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sem1.Release(ctx); err != nil {
		t.Fatal(err)
	}
	// While the dead node is away, only its last report and one chunk
	// are held for it (it issued no more in its view): the others go on
	// serving the quota.
	if err := s1.Quota("q").Take(ctx, 1); err != nil {
		t.Fatalf("Take with the crashed node away: %v, want it served", err)
	}

	// The node comes back on its data as a new run, reports its 5, and
	// serves in a later view.
	c.start(2, nil)
	s2b := session(t, ctx, c.addrs[2])
	g2, err := s2b.Lock(ctx, "dies", "kept")
	if err != nil {
		t.Fatal(err)
	}
	if !next.Token("kept").Less(g2.Token("kept")) {
		t.Errorf("a holder after the rejoin got %v, not above %v", g2.Token("kept"), next.Token("kept"))
	}
	if err := g2.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	// The quota goes on with what is left: 20 − 5 − 3. The clients get
	// at most the 12 left, and at least 12 − W before a reject.
	more := 0
	for {
		err := s1.Quota("q").Take(ctx, 1)
		if errors.Is(err, client.ErrExhausted) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		more++
	}
	if more > 12 || more < 12-4 {
		t.Errorf("%d permits after the rejoin, want 8 to 12 of the 12 left", more)
	}
	t.Logf("%d permits of the quota's 12 left after the rejoin", more)
	if err := s2b.Quota("q").Take(ctx, 1); !errors.Is(err, client.ErrExhausted) {
		t.Errorf("Take of a spent quota: %v, want ErrExhausted", err)
	}
	c.crash(0)
	c.crash(1)
	c.crash(2)
	v := verifyLogs(t, c.records(t))
	t.Logf("%v", v)
}

// TestSessionPassesOverADeadNode: a client that knows every node opens its
// sessions on the live ones when one is down.
func TestSessionPassesOverADeadNode(t *testing.T) {
	c := newCrashable(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, err := client.Dial(ctx, c.addrs...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// The cluster's first view needs every node to have been up.
	s, err := cl.Session(ctx, client.WithTTL(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.Lock(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	g.Unlock(ctx)
	c.crash(1)
	for i := range 6 {
		s, err := cl.Session(ctx, client.WithTTL(2*time.Second))
		if err != nil {
			t.Fatalf("session %d with node 1 down: %v", i, err)
		}
		g, err := s.Lock(ctx, "x")
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		g.Unlock(ctx)
		s.Close(ctx)
	}
}

// TestQuotaHeldWhileNodesAway: two of five nodes crash; the three left
// are a majority and go on with locks, but the quota is held (its permits
// since the last view are on the dead nodes' disks) until they come back
// on their data: then Take is served again.
func TestQuotaHeldWhileNodesAway(t *testing.T) {
	c := newCrashable(t, 5)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The two that crash are members of the view the permits are taken
	// in (newCrashable waits for it): a crash of nodes outside it would
	// change no view, the quota would not be held, and the Takes below
	// would spend it all.
	//
	// take takes n permits through node 0 on a session it opens again
	// when it was lost: with a lease of a second, a loaded machine may
	// make node 0 miss a renewal (it fences itself and its sessions end,
	// as it must); what is tested is what the quota answers.
	s0 := session(t, ctx, c.addrs[0])
	take := func(n int) error {
		for {
			err := s0.Quota("calls").Take(ctx, n)
			if !errors.Is(err, client.ErrSessionExpired) {
				return err
			}
			t.Logf("session on node 0 lost (%v): opening another", err)
			s0 = session(t, ctx, c.addrs[0])
		}
	}
	if err := take(2); err != nil {
		t.Fatal(err)
	}
	c.crash(3)
	c.crash(4)
	// Until the view without them serves, the old view serves (or the
	// Take waits for the new one); then the quota is held.
	// A view change after --suspect (1 s here) takes a second or two on
	// an idle machine, and up to several on one kept busy by other work.
	crashed := time.Now()
	deadline := crashed.Add(15 * time.Second)
	for {
		err := take(1)
		if errors.Is(err, client.ErrUnavailable) {
			t.Logf("the quota held %v after the crashes", time.Since(crashed).Round(time.Millisecond))
			break
		}
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("Take with two nodes away: %v, want ErrUnavailable in the end", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Locks are served meanwhile: the quota alone is held.
	g, err := s0.Lock(ctx, "x")
	if errors.Is(err, client.ErrSessionExpired) {
		s0 = session(t, ctx, c.addrs[0])
		g, err = s0.Lock(ctx, "x")
	}
	if err != nil {
		t.Fatal(err)
	}
	g.Unlock(ctx)
	c.start(3, nil)
	c.start(4, nil)
	deadline = time.Now().Add(10 * time.Second)
	for {
		err := take(1)
		if err == nil {
			break
		}
		if !errors.Is(err, client.ErrUnavailable) || time.Now().After(deadline) {
			t.Fatalf("Take once the nodes are back: %v, want it served", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestMinorityStops: a node that no longer hears a majority may be the one
// cut off while the others move on, so it stops serving when its lease
// runs out: its sessions end (their Done closes within the lease, long
// before their TTL) and it opens no new one.
func TestMinorityStops(t *testing.T) {
	c := newCrashable(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s0 := session(t, ctx, c.addrs[0])
	g, err := s0.Lock(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	c.crash(1)
	c.crash(2)
	select {
	case <-g.Done():
	case <-time.After(2 * testSuspect): // the node's lease, bounding its clients'
		t.Fatal("the session of a node without a majority is still alive")
	}
	// The client's bound comes first; the node's lease ends soon after.
	time.Sleep(testSuspect)
	cl, err := client.Dial(ctx, c.addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.Session(ctx); !errors.Is(err, client.ErrUnavailable) {
		t.Errorf("a session on a node without a majority: %v, want ErrUnavailable", err)
	}
}

// TestGracefulLeave: a node shut down with its leases given back says so
// (a leave in the control log), and the others move to a view without it
// at once, not after the suspicion timeout and the wait for its lease
// (here longer than the test allows).
func TestGracefulLeave(t *testing.T) {
	lns := make([]net.Listener, 3)
	var addrs []string
	for i := range lns {
		var err error
		if lns[i], err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, lns[i].Addr().String())
	}
	var nodes []*service.Node
	var srvs []*grpc.Server
	for i := range lns {
		nd, err := service.New(service.Config{Cluster: service.Cluster{Nodes: addrs, Slots: 4}, Self: i, Suspect: 3 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		s := grpc.NewServer()
		if err := nd.Register(s); err != nil {
			t.Fatal(err)
		}
		go s.Serve(lns[i])
		nodes, srvs = append(nodes, nd), append(srvs, s)
	}
	defer func() {
		for i := range 2 {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			nodes[i].Shutdown(ctx)
			srvs[i].Stop()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s0 := session(t, ctx, addrs[0])
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}
	g, err := s0.Lock(ctx, names...)
	if err != nil {
		t.Fatal(err)
	}
	g.Unlock(ctx)
	dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Second)
	nodes[2].Shutdown(dctx)
	dcancel()
	srvs[2].Stop()
	left := time.Now()
	// Twelve names: some resource manager lived on node 2, so this
	// lock needs the new view.
	lctx, lcancel := context.WithTimeout(ctx, 2*time.Second)
	defer lcancel()
	g, err = s0.Lock(lctx, names...)
	if err != nil {
		t.Fatalf("lock after a node left: %v", err)
	}
	t.Logf("granted %v after the node left", time.Since(left).Round(time.Millisecond))
	if g.Token("a").Epoch < 2 {
		t.Errorf("token %v: not of a later view than the first", g.Token("a"))
	}
	g.Unlock(ctx)
}

// TestFastRestart: a node that restarts before it could be suspected is in
// the same live set with fresh processes, which know nothing of the view's
// forks and queues: the cluster must start a new view all the same.
func TestFastRestart(t *testing.T) {
	c := newCrashable(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s0 := session(t, ctx, c.addrs[0])
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}
	g, err := s0.Lock(ctx, names...)
	if err != nil {
		t.Fatal(err)
	}
	// The premise: node 2 is in the view of the first grant. A loaded
	// machine can start the cluster serving with two of its nodes (a
	// CI run had the first grant in such a view, which the restart of
	// node 2 does not touch): then lock again once node 2 is in.
	for !c.inView(0, 2, g.Token("a").Epoch) {
		if err := g.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		if g, err = s0.Lock(ctx, names...); err != nil {
			t.Fatal(err)
		}
	}
	c.crash(2)
	c.start(2, nil)
	restarted := time.Now()
	if err := g.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	// Twelve names: some of their managers live on node 2.
	lctx, lcancel := context.WithTimeout(ctx, 5*time.Second)
	defer lcancel()
	g2, err := s0.Lock(lctx, names...)
	if err != nil {
		t.Fatalf("lock after a node restarted at once: %v", err)
	}
	t.Logf("granted %v after the restart", time.Since(restarted).Round(time.Millisecond))
	if g2.Token("a").Epoch <= g.Token("a").Epoch {
		t.Errorf("token %v after %v: not of a later view", g2.Token("a"), g.Token("a"))
	}
	g2.Unlock(ctx)
}

// TestFullRestart kills every node of a cluster that has issued permits
// and restarts them all on their data: the quota goes on from what was
// issued (no permit twice, none lost beyond the waste), the epochs and
// the tokens keep growing.
func TestFullRestart(t *testing.T) {
	c := newCrashable(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s0 := session(t, ctx, c.addrs[0])
	s1 := session(t, ctx, c.addrs[1])
	if err := s0.Quota("q").Take(ctx, 6); err != nil {
		t.Fatal(err)
	}
	if err := s1.Quota("q").Take(ctx, 5); err != nil {
		t.Fatal(err)
	}
	g, err := s0.Lock(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	before := g.Token("x")
	for i := range 3 {
		c.crash(i)
	}
	for i := range 3 {
		c.start(i, nil)
	}
	s := session(t, ctx, c.addrs[2])
	g2, err := s.Lock(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	if !before.Less(g2.Token("x")) {
		t.Errorf("token %v after a full restart, not above %v", g2.Token("x"), before)
	}
	g2.Unlock(ctx)
	more := 0
	for {
		err := s.Quota("q").Take(ctx, 1)
		if errors.Is(err, client.ErrExhausted) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		more++
	}
	// 11 of 20 were issued before: at most 9 more, at least 9 − W.
	if more > 9 || more < 9-4 {
		t.Errorf("%d permits after a full restart, want 5 to 9 of the 9 left", more)
	}
	t.Logf("token %v before, %v after; %d permits of the 9 left", before, g2.Token("x"), more)
}

// TestFastRestartKeepsHoldersSafe: a node killed and back before anyone
// could suspect it comes back as a new run; its old run's client, which
// cannot tell (it no longer reaches the node: Orphan), still believes in
// its lock until its Done closes, bounded by the node's lease. Nobody else
// gets the lock before that.
func TestFastRestartKeepsHoldersSafe(t *testing.T) {
	c := newCrashable(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s2 := session(t, ctx, c.addrs[2])
	g, err := s2.Lock(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	s1 := session(t, ctx, c.addrs[1])
	s2.Orphan()
	killed := time.Now()
	c.crash(2)
	c.start(2, nil)
	g1, err := s1.Lock(ctx, "x")
	for errors.Is(err, client.ErrSessionExpired) {
		// With a lease of a second, a loaded machine may make node 1 miss
		// a renewal: it fences itself and its sessions end, as it must
		// (a CI run saw it). What is tested is who gets the lock, when.
		t.Logf("session on node 1 lost (%v): opening another", err)
		s1 = sessionVia(t, ctx, c.addrs[1], c.addrs[0], c.addrs[2])
		g1, err = s1.Lock(ctx, "x")
	}
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.Done():
	default:
		t.Fatal("the lock was granted again while its holder's Done was still open")
	}
	t.Logf("granted again %v after the kill", time.Since(killed).Round(time.Millisecond))
	g1.Unlock(ctx)
}

// TestHoldersAdoptedPastTheLimits: a node that adopts a lost node's
// sessions holds their grants beside its own, more than its limits allow
// of one key: the next view still serves. A view serves once every
// member asked its held grants again in it, and a grant asked again
// waited for a user (a slot, or one within --max-locks or
// --max-sessions) for as long as the holders held — 30 s and more, no
// Lock granted anywhere (the holders kept their sessions alive):
//
//   - a semaphore of 11 units, on 3 nodes of 4 slots: on the slots (as it
//     was, below nodes × slots), the adopter's six grants had four; it is
//     large now (at least a node's slots);
//   - locks, 4 at most a node (--max-locks): the adopter's six;
//   - a large semaphore, 4 requests at most a node (--max-sessions): the
//     adopter's six holders.
//
// A grant asked again now gets a user past the node's most.
func TestHoldersAdoptedPastTheLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config func(*service.Config)
		hold   func(ctx context.Context, s *client.Session, i int) (func(context.Context) error, error)
		most   int // the limit the adopter is back to once they go back (0: none)
	}{
		{"semaphore of 11 units, 4 slots", nil, func(ctx context.Context, s *client.Session, _ int) (func(context.Context) error, error) {
			sem := s.Semaphore("s", 11)
			return sem.Release, sem.Acquire(ctx)
		}, 0},
		{"locks, --max-locks 4", func(c *service.Config) { c.MaxLocks = 4 }, func(ctx context.Context, s *client.Session, i int) (func(context.Context) error, error) {
			g, err := s.Lock(ctx, fmt.Sprintf("held-%d", i))
			if err != nil {
				return nil, err
			}
			return g.Unlock, nil
		}, 4},
		{"large semaphore, --max-sessions 4", func(c *service.Config) { c.MaxSessions = 4 }, func(ctx context.Context, s *client.Session, _ int) (func(context.Context) error, error) {
			sem := s.Semaphore("big", 100)
			return sem.Release, sem.Acquire(ctx)
		}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCrashableWith(t, 3, nil, tc.config)
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cl, err := client.Dial(ctx, c.addrs...)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			// Sessions go round the nodes: three on each, each holding.
			var gives []func(context.Context) error
			var ss []*client.Session
			for i := range 9 {
				s, err := cl.Session(ctx, client.WithTTL(40*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				give, err := tc.hold(ctx, s, i)
				if err != nil {
					t.Fatalf("holder %d: %v", i, err)
				}
				ss, gives = append(ss, s), append(gives, give)
			}
			c.crash(1) // node 2, its backup, adopts its three holders
			crashed := time.Now()
			const bound = 20 * time.Second
			for {
				lctx, lcancel := context.WithTimeout(ctx, 2*time.Second)
				s, err := cl.Session(lctx, client.WithTTL(5*time.Second))
				if err == nil {
					var g *client.Grant
					if g, err = s.Lock(lctx, "x"); err == nil {
						lcancel()
						t.Logf("a Lock granted %v after the crash", time.Since(crashed).Round(time.Millisecond))
						g.Unlock(ctx)
						s.Close(ctx)
						break
					}
					s.Close(ctx)
				}
				lcancel()
				if time.Since(crashed) > bound {
					t.Fatalf("no Lock granted %v after the crash (last: %v)", bound, err)
				}
			}
			// Every holder, the adopted ones too, still holds.
			for i, give := range gives {
				select {
				case <-ss[i].Done():
					t.Errorf("holder %d's session ended", i)
					continue
				default:
				}
				if err := give(ctx); err != nil {
					t.Errorf("holder %d's give-back: %v", i, err)
				}
				ss[i].Close(ctx)
			}
			if tc.most == 0 {
				return
			}
			// The adopter, its users past its most dropped as they came
			// back, serves its most again, and refuses one more.
			at2, err := client.Dial(ctx, c.addrs[2])
			if err != nil {
				t.Fatal(err)
			}
			defer at2.Close()
			s, err := at2.Session(ctx, client.WithTTL(5*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.most {
				if _, err := tc.hold(ctx, s, 100+i); err != nil {
					t.Fatalf("hold %d of the adopter's most %d: %v", i+1, tc.most, err)
				}
			}
			if _, err := tc.hold(ctx, s, 200); !errors.Is(err, client.ErrLimit) {
				t.Errorf("one more than the adopter's most: %v, want ErrLimit", err)
			}
		})
	}
}

package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/grpc/status"

	"github.com/allot-dev/allot/chunk"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/eventlog"
	"github.com/allot-dev/allot/service/internal/space"
	"github.com/allot-dev/allot/service/store"
	"github.com/allot-dev/allot/transport"
	tgrpc "github.com/allot-dev/allot/transport/grpc"
)

// ctlSpace is the transport space of the control plane's Raft messages
// (process id = node index).
const ctlSpace = "ctl"

// ctlHost drives the node's control.Node in real time: it ticks it, steps
// the Raft messages that come in, persists what it asks (fsynced) before
// sending its messages, and hands its changes to the node in order. Time
// is the milliseconds since the host started, on the monotonic clock.
type ctlHost struct {
	to         changeTaker
	membership memberFollower
	self       int
	suspect    time.Duration // Config.Suspect
	log        *slog.Logger
	start      time.Time
	store      *store.Store
	quotas     []string // the quotas' names, in the control plane's order
	space      *tgrpc.Space
	startNo    uint64 // this start's number in the store (1: the first)

	mu sync.Mutex // the control node
	// The inputs waiting for mu (input), taken together by the next to
	// hold it.
	cmu     sync.Mutex
	calls   []ctlCall
	node    *control.Node
	broken  bool // a write failed, or the log proved lost: the node is silent from then on
	removed bool // the node applied its own removal (membership.removedSelf was called)
	// The lease, as of the last input, for answers that must not wait
	// for the control node (it may be writing to disk).
	leaseEnd     atomic.Int64
	servingEpoch atomic.Uint64
	newest       atomic.Uint64 // the newest view applied
	member       atomic.Uint64 // the same if this run is in it, else 0
	// The changes not yet taken, in order, and the wake-up of the
	// goroutine that takes them.
	qmu   sync.Mutex
	queue []control.Change
	wake  chan struct{}
	// iss is read-held by every Take from the moment it asks a view's
	// instance until its permits are on disk (issuing): a count read
	// under the write lock, once the view's instances are stopped, is
	// final for that view.
	iss sync.RWMutex

	// The chunks of the quotas (control.Quota.Chunk): a Take issues a
	// permit only while this node's count stays within the limit the
	// log allows it in the view it serves (package chunk's rule, the
	// data plane's model's too).
	chunks  *chunks
	counted chan struct{} // a Take added to the counts on disk
}

// changeTaker is what the control host hands its node: the control
// node's changes, in order (adopt, serve, fence: Node.change), and the
// end of the node's part in the cluster when its log proved lost (lose).
type changeTaker interface {
	change(c control.Change)
	lose(err error)
}

// memberFollower is what the control host hands the node's membership:
// the members the log has, each time they change, before the messages
// to a new member go (setPeers: they need its link); and this node's
// own removal applied (removedSelf: called once).
type memberFollower interface {
	setPeers(ms []control.Member)
	removedSelf()
}

// chunks keeps this node's permit counts within what the log allows it
// in the view it serves (package chunk: the rule, the model's too),
// under its mutex, and wakes the Takes waiting on it.
type chunks struct {
	mu    sync.Mutex
	q     *chunk.Quotas
	moved chan struct{} // closed when a limit grows or a reservation ends
}

// reserve takes one permit of quota i of view epoch on this node, waiting
// while the node's chunk is used up (for its report to commit); stop ends
// the wait with its error.
func (c *chunks) reserve(epoch uint64, i int, stop func(wait <-chan struct{}) error) error {
	for {
		c.mu.Lock()
		if c.q.Reserve(epoch, i) {
			c.mu.Unlock()
			return nil
		}
		wait := c.moved
		c.mu.Unlock()
		if err := stop(wait); err != nil {
			return err
		}
	}
}

// settle ends k reservations of quota i; count is the node's count on disk
// now (0: unchanged).
func (c *chunks) settle(i int, k int, count uint64) {
	c.mu.Lock()
	c.q.Settle(i, k, count)
	c.wake()
	c.mu.Unlock()
}

// set is the limits the control node gives view epoch now.
func (c *chunks) set(epoch uint64, limit func(i int) (uint64, bool)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.q.Set(epoch, limit) {
		c.wake()
	}
}

func (c *chunks) wake() {
	close(c.moved)
	c.moved = make(chan struct{})
}

// counts is the node's counts on disk, as the Takes left them.
func (c *chunks) counts() []uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.q.Counts()
}

func (h *ctlHost) now() proc.Time { return proc.Time(time.Since(h.start).Milliseconds()) }

// lease is the control plane's lease and margin for a --suspect of d.
func lease(d time.Duration) (l, margin proc.Time) {
	l = proc.Time(d.Milliseconds())
	return l, max(10, l/10)
}

// newCtl opens the store in dir of node cfg.Self of cluster c (complete)
// and starts its control node, as a new run; it hands its changes to to,
// and the membership's to membership.
func newCtl(to changeTaker, membership memberFollower, cfg Config, c Cluster, log *slog.Logger, dir string) (*ctlHost, error) {
	spec, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(dir, store.Identity{Nodes: c.Nodes, Node: cfg.Self, Spec: spec})
	if err != nil {
		return nil, err
	}
	h := &ctlHost{to: to, membership: membership, self: cfg.Self, suspect: cfg.Suspect, log: log, start: time.Now(), store: st, quotas: slices.Sorted(maps.Keys(c.Quotas)), wake: make(chan struct{}, 1), counted: make(chan struct{}, 1)}
	fail := func(err error) (*ctlHost, error) {
		st.Close()
		return nil, err
	}
	run, err := st.NewRun()
	if err != nil {
		return fail(err)
	}
	h.startNo = run
	d, err := st.Disk()
	if err != nil {
		return fail(err)
	}
	counts, err := st.Counts(h.quotas)
	if err != nil {
		return fail(err)
	}
	var qs []control.Quota
	for _, name := range h.quotas {
		q := c.Quotas[name]
		qs = append(qs, control.Quota{Name: name, Budget: uint64(q.Budget), Chunk: chunk.Size(q.Waste, len(c.Nodes))})
	}
	h.chunks = &chunks{q: chunk.New(counts), moved: make(chan struct{})}
	l, margin := lease(cfg.Suspect)
	h.node, err = control.New(control.Config{
		Self: proc.ID(cfg.Self), Run: run, Lease: l, Margin: margin, Quotas: qs, Counts: counts,
		Rand: cfg.Rand, MaxNodes: MaxNodes, SnapshotEvery: cfg.SnapshotEvery,
	}, d, h.now())
	if err != nil {
		return fail(err)
	}
	// The log is applied again before anything reaches the node: it
	// knows the views of its earlier runs before a message of one does.
	u, err := h.node.Next(h.now())
	if err == nil {
		err = st.Save(u)
	}
	if err != nil {
		return fail(err)
	}
	if h.node.Removed() {
		return fail(fmt.Errorf("%w: node %d's log has its removal; a node comes back under a new id (allot member add) on a new data dir", ErrRemoved, cfg.Self))
	}
	h.newest.Store(h.node.State().View().Epoch)
	return h, nil
}

// run ticks the control node until ctx ends.
func (h *ctlHost) run(ctx context.Context) {
	every := max(h.suspect/control.LeaseTicks/2, time.Millisecond)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-h.counted:
			c := h.chunks.counts()
			h.input(func(now proc.Time) error { h.node.Issued(now, c); return nil })
			continue
		}
		h.input(func(now proc.Time) error { h.node.Tick(now); return nil })
	}
}

// deliver steps a Raft message from another node, or hands the control
// node its Reach.
func (h *ctlHost) deliver(from proc.ID, m proc.Message) {
	if r, ok := m.(control.Reach); ok {
		h.input(func(now proc.Time) error { h.node.Hear(now, from, r); return nil })
		return
	}
	msg, ok := m.(control.Msg)
	if !ok {
		return
	}
	var rm raftpb.Message
	if err := rm.Unmarshal(msg.Raft); err != nil || int(rm.From)-1 != int(from) && !passedOn(rm.Type) {
		h.log.Warn("control: a malformed Raft message", "from", from, "raft_from", rm.From, "type", rm.Type.String())
		return
	}
	err := h.input(func(now proc.Time) error { return h.node.Step(now, rm) })
	switch {
	case errors.Is(err, control.ErrLogLost):
		// The log forgot entries it acknowledged: the control node says
		// nothing more, and the node stops (lost.go).
		h.mu.Lock()
		h.broken = true
		h.mu.Unlock()
		h.to.lose(err)
	case err != nil:
		h.log.Warn("control", "err", err)
	}
}

// passedOn reports whether Raft passes messages of type t on from a
// follower to its leader with their first sender's From: a read's request
// reaches the leader that way when it went to a node that was leader no
// more, and the leader answers its first sender. Any other message names
// the node that sent it.
func passedOn(t raftpb.MessageType) bool {
	switch t {
	case raftpb.MsgReadIndex, raftpb.MsgProp, raftpb.MsgTransferLeader:
		return true
	}
	return false
}

// ctlCall is an input waiting for the control node: f, and where its
// error goes.
type ctlCall struct {
	f   func(now proc.Time) error
	err chan error
}

// input runs f on the control node, then does what the node asks; it
// returns f's error. The inputs that wait while one is written (fsync)
// go together, with one write after them: one by one, a burst of
// proposals (a semaphore's first Acquire each) wrote one entry each,
// every renewal of the lease waiting behind all of them.
func (h *ctlHost) input(f func(now proc.Time) error) error {
	c := ctlCall{f: f, err: make(chan error, 1)}
	h.cmu.Lock()
	h.calls = append(h.calls, c)
	h.cmu.Unlock()
	h.mu.Lock()
	h.cmu.Lock()
	calls := h.calls
	h.calls = nil
	h.cmu.Unlock()
	if len(calls) == 0 {
		// An input before this one took f with its own, and wrote.
		h.mu.Unlock()
		return <-c.err
	}
	now := h.now()
	for _, c := range calls {
		c.err <- c.f(now)
	}
	h.inputLocked(now)
	h.mu.Unlock()
	return <-c.err
}

// inputLocked does, under mu, what the control node asks after inputs at
// now.
func (h *ctlHost) inputLocked(now proc.Time) {
	if h.broken {
		return
	}
	u, err := h.node.Next(now)
	if err == nil {
		err = h.store.Save(u)
	}
	if err != nil {
		// Nothing can be promised on a log that is not on disk: the
		// node says nothing more to the others, and stops serving when
		// its lease runs out.
		h.broken = true
		h.log.Error("control: the log could not be kept; this node stops", "err", err)
		return
	}
	if u.Members != nil {
		// Before the messages: the first to a new member needs its link.
		h.membership.setPeers(u.Members)
	}
	if h.node.Removed() && !h.removed {
		h.removed = true
		h.log.Warn("this node was removed from the cluster: it serves nothing more")
		h.membership.removedSelf()
	}
	for _, m := range u.Messages {
		b, err := m.Marshal()
		if err == nil {
			err = h.space.Send(proc.ID(h.self), proc.ID(m.To-1), control.Msg{Raft: b})
		}
		if err != nil && !errors.Is(err, transport.ErrClosed) {
			h.log.Debug("control: send", "to", m.To-1, "err", err)
		}
	}
	for _, to := range u.ReachTo {
		if err := h.space.Send(proc.ID(h.self), to, u.Reach); err != nil && !errors.Is(err, transport.ErrClosed) {
			h.log.Debug("control: send reach", "to", to, "err", err)
		}
	}
	h.leaseEnd.Store(int64(h.node.LeaseEnd()))
	h.newest.Store(h.node.State().View().Epoch)
	h.member.Store(h.node.Member())
	h.servingEpoch.Store(h.node.ServingEpoch())
	h.chunks.set(h.node.ServingEpoch(), func(i int) (uint64, bool) { return h.node.Limit(h.node.ServingEpoch(), i) })
	if len(u.Changes) > 0 {
		h.qmu.Lock()
		h.queue = append(h.queue, u.Changes...)
		h.qmu.Unlock()
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

// changes hands the control node's changes to the node, in order, until
// ctx ends. (Not under mu: taking a change may take a while — instances
// to stop, grants to ask again — and mu must stay free for the next
// input and for the lease.)
func (h *ctlHost) changes(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
		}
		for {
			h.qmu.Lock()
			q := h.queue
			h.queue = nil
			h.qmu.Unlock()
			if len(q) == 0 {
				break
			}
			for _, c := range q {
				h.to.change(c)
			}
		}
	}
}

// counts are the node's permit counts once no Take of a stopped view can
// add to them.
func (h *ctlHost) counts() []uint64 {
	h.iss.Lock()
	defer h.iss.Unlock()
	c, err := h.store.Counts(h.quotas)
	if err != nil {
		h.log.Error("control: reading the permit counts", "err", err)
	}
	return c
}

// issuing holds the issuing lock as a Take does, from the moment it asks
// a view's instance until its permits are on disk (counts waits for
// them); the Take calls the func it returns when they are.
func (h *ctlHost) issuing() (done func()) {
	h.iss.RLock()
	return h.iss.RUnlock
}

// ready tells the control node this node holds again in epoch every grant
// its sessions held, among them the semaphores sems.
func (h *ctlHost) ready(epoch uint64, sems []control.SemaphoreEntry) {
	c := h.counts()
	h.input(func(now proc.Time) error { h.node.ReadyHolding(now, epoch, c, sems); return nil })
}

// stopped tells the control node this node serves nothing of its view.
func (h *ctlHost) stopped() {
	c := h.counts()
	h.input(func(now proc.Time) error { h.node.Stopped(now, c); return nil })
}

// issued tells the control node, from run's goroutine, the permits this
// node has on disk once a Take has added to them: it reports them when
// half a chunk is used. A Take does not wait for the control node (it
// may be writing to disk), nor hold its issuing lock meanwhile.
func (h *ctlHost) issued() {
	select {
	case h.counted <- struct{}{}:
	default: // a word is on its way already: it reads the counts then
	}
}

// members is the membership as this node applied the log.
func (h *ctlHost) members() []control.Member {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.node.Members()
}

// memberInfo is the membership as this node applied the log, with what
// it knows of each member as of the same entry (an address "" where a
// store older than addresses in the log has none), and the newest
// view's epoch.
func (h *ctlHost) memberInfo() ([]MemberInfo, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st, lead := h.node.State(), h.node.Leader()
	v := st.View()
	var out []MemberInfo
	for _, m := range h.node.Members() {
		rejoins, _ := st.Gen(m.ID, [2]uint64{})
		out = append(out, MemberInfo{ID: int(m.ID), Addr: m.Addr, Voter: true, InView: slices.Contains(v.Members, m.ID), Leader: m.ID == lead, Rejoins: rejoins})
	}
	return out, v.Epoch
}

// appliedIndex is the index of the last control log entry this node
// applied.
func (h *ctlHost) appliedIndex() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.node.State().Applied()
}

// proposeAdd proposes a member at addr, on the leader only; id is the
// one it is to have.
func (h *ctlHost) proposeAdd(addr string) (id proc.ID, err error) {
	err = h.input(func(now proc.Time) (err error) {
		id, err = h.node.ProposeAdd(now, addr)
		return err
	})
	return id, err
}

// proposeRemove proposes the removal of member id, on the leader only.
func (h *ctlHost) proposeRemove(id proc.ID) error {
	return h.input(func(now proc.Time) error { return h.node.ProposeRemove(now, id) })
}

// semaphore is what this node applied of the control log about semaphore
// name: its units and whether the log has them, the log's view, and
// whether that view is open (control.State.Open).
func (h *ctlHost) semaphore(name string) (units int32, ok bool, epoch uint64, open bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.node.State()
	units, ok = st.Semaphore(name)
	open, _ = st.Open()
	return units, ok, st.View().Epoch, open
}

// recordSemaphore proposes units as semaphore name's, its first use.
func (h *ctlHost) recordSemaphore(name string, units int32) error {
	return h.input(func(proc.Time) error { return h.node.RecordSemaphore(name, units) })
}

// proposeRefresh proposes a refresh of view epoch: a view of the same
// members.
func (h *ctlHost) proposeRefresh(epoch uint64) error {
	return h.input(func(proc.Time) error { return h.node.ProposeRefresh(epoch) })
}

// leaseLeft is how much longer this node may serve.
func (h *ctlHost) leaseLeft() time.Duration {
	return time.Duration(max(h.leaseEnd.Load()-int64(h.now()), 0)) * time.Millisecond
}

// serving reports whether the node serves view epoch now: the check
// before an answer leaves the node.
func (h *ctlHost) serving(epoch uint64) bool {
	return h.servingEpoch.Load() == epoch && int64(h.now()) < h.leaseEnd.Load()
}

// epochState is a node's current view and how far it is.
type epochState struct {
	v       space.View
	adopted time.Time              // when this node adopted it
	ready   chan struct{}          // closed once the view serves on this node
	retired chan struct{}          // closed when the node stops serving v
	quotas  map[string]space.Space // quota name -> its instance in v (set when ready)
	spent   map[string]bool        // quotas with no permit left when v began
	guess   map[string]bool        // quotas whose permits left are short of an absent member's report
}

// change takes a change of the control node.
func (n *Node) change(c control.Change) {
	v := space.View{Epoch: c.View.Epoch}
	for _, m := range c.View.Members {
		v.Members |= space.SetOf(int(m))
	}
	switch c.Kind {
	case control.Adopt:
		n.adopt(v, c.View, c.Prev)
	case control.Serve:
		n.events.Put(eventlog.Record{Ev: proc.EvView.String(), Epoch: v.Epoch, Members: c.View.Members})
		n.serve(v, c.Left)
	case control.Fence:
		n.events.Put(eventlog.Record{Ev: proc.EvFence.String(), Epoch: v.Epoch})
		if c.Lost {
			n.fence(v.Epoch)
		}
	}
}

// adopt moves this node to view v (cv as the control plane has it, prev
// the view it replaced): the instances of older views stop, the sessions
// this node keeps for a node v leaves out are adopted (backup.go), the
// grants its sessions hold (and those the lock-delay holds) are asked for
// again in v, its sessions are recorded at its backup in v if that moved,
// and once all that is done the node tells the control plane it is
// ready.
func (n *Node) adopt(v space.View, cv, prev control.View) {
	st := &epochState{v: v, adopted: time.Now(), ready: make(chan struct{}), retired: make(chan struct{})}
	old, stop := n.views.adopt(st)
	adopted := n.takeOver(cv, prev)
	n.names.forget(v.Epoch) // the names' ids of older views are not asked again
	// The grants are read after st is the node's view: a grant answered
	// in old is either held by now, or its request sees the view moved
	// and gives it back (acquire).
	var held []*grant
	for _, s := range n.sessions.list() {
		s.mu.Lock()
		held = append(held, s.grants.Held()...)
		s.mu.Unlock()
	}
	// And those of ended sessions that the lock-delay holds still.
	for _, g := range n.expiry.delayed() {
		if g.held() {
			held = append(held, g)
		}
	}
	n.log.Info("adopting a view", "epoch", v.Epoch, "members", v.Members.List(), "grants", len(held))
	if old != nil {
		close(old.retired)
	}
	names := n.retire(stop)
	// What the node kept of older views goes with their instances
	// (refresh.go), and the ready records the units of the semaphores
	// held (semaphores.go: a refresh forgets the others).
	n.forget(v.Epoch, names)
	sems := heldSemaphores(held)
	go func() {
		var wg sync.WaitGroup
		for _, g := range held {
			wg.Go(func() { n.regrant(g, st) })
		}
		wg.Go(func() { n.rep.move(cv, adopted) })
		wg.Wait()
		n.ctl.ready(v.Epoch, sems)
	}()
}

// rejectProves reports whether a reject in a view that may issue l proves
// that Budget − waste permits were issued in the cluster's life. What is
// known issued before the view is at least Budget − Left − Reserve, and the
// view's controller rejects only after Left − min(waste, Left) of its own:
// so Budget − Reserve − min(waste, Left), enough if Reserve plus that is
// within the waste (always so once nothing is left: the chunks keep the
// Reserve within waste/2).
func rejectProves(l control.QuotaLeft, waste uint64) bool {
	return l.Reserve+min(waste, l.Left) <= waste
}

// serve opens view v on this node: it takes new requests, and each quota
// has what the control plane's ledger left it.
func (n *Node) serve(v space.View, left []control.QuotaLeft) {
	st := n.views.current()
	if st == nil || st.v.Epoch != v.Epoch {
		return // a change already replaced it
	}
	st.quotas, st.spent, st.guess = map[string]space.Space{}, map[string]bool{}, map[string]bool{}
	var spaces []space.Space
	for _, l := range left {
		q, ok := n.c.Quotas[l.Name]
		if !ok {
			continue
		}
		st.guess[l.Name] = !rejectProves(l, uint64(q.Waste))
		if l.Left == 0 {
			// Nothing to control (the controller needs a budget):
			// every Take is refused.
			st.spent[l.Name] = true
			continue
		}
		sp := space.Space{Key: space.Quota(l.Name, q.Budget, q.Waste, int(l.Left)), View: v}
		st.quotas[l.Name] = sp
		spaces = append(spaces, sp)
	}
	for _, sp := range spaces {
		if _, err := n.instance(sp); err != nil && !errors.Is(err, errRetiredView) {
			n.log.Error("quota", "instance", sp.String(), "err", err)
		}
	}
	n.log.Info("serving a view", "epoch", v.Epoch, "members", v.Members.List(), "quotas", left)
	n.metrics.pause.Observe(time.Since(st.adopted).Seconds())
	close(st.ready)
}

// fence stops a node whose lease ran out, or that a view left out: its
// view is retired, its sessions end (their clients' leases ran out with
// the node's), and it serves nothing until a view takes it in again.
func (n *Node) fence(epoch uint64) {
	cur, stop := n.views.fence(epoch)
	sessions := n.sessions.list()
	n.log.Warn("this node stops serving: its lease ran out, or the cluster moved on without it", "epoch", epoch, "sessions", len(sessions))
	if cur != nil {
		close(cur.retired)
	}
	n.retire(stop)
	n.rep.stopped()
	n.keeper.stop()
	for _, s := range sessions {
		n.end(s, 0, "this node stopped serving", false)
	}
	go n.ctl.stopped()
}

// current waits until this node's view serves and returns it. Its error
// is the call's: errExpired once the session ended (done), else ctx's as a
// status (a session ending while a refresh pauses the view is
// NOT_FOUND, not UNKNOWN).
func (n *Node) current(ctx context.Context, done <-chan struct{}) (*epochState, error) {
	for {
		st := n.views.current()
		if st == nil {
			select {
			case <-ctx.Done():
				return nil, status.FromContextError(ctx.Err()).Err()
			case <-done:
				return nil, errExpired
			case <-time.After(5 * time.Millisecond):
				continue
			}
		}
		select {
		case <-st.ready:
			return st, nil
		case <-st.retired:
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-done:
			return nil, errExpired
		}
	}
}

// close stops the control node and closes the store: nothing is written
// after it.
func (h *ctlHost) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.broken = true
	// A Take still between its permits and their count gets an error
	// from the closed store, and answers Unavailable.
	if err := h.store.Close(); err != nil {
		h.log.Error("control: closing the store", "err", err)
	}
}

// leave tells the control plane this node gave everything back and is
// stopping, and waits (within ctx, at most a lease) until the leave is
// agreed: the others then move on without waiting for its lease.
func (h *ctlHost) leave(ctx context.Context) {
	c := h.counts()
	h.input(func(now proc.Time) error { h.node.Leave(now, c); return nil })
	ctx, cancel := context.WithTimeout(ctx, h.suspect)
	defer cancel()
	for {
		h.mu.Lock()
		left := h.node.Left()
		h.mu.Unlock()
		if left {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

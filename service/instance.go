package service

import (
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/centralpool"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/host"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/eventlog"
	"github.com/allot-dev/allot/service/internal/space"
	"github.com/allot-dev/allot/users"
)

// tick is the real duration of one tick of the algorithms' timers.
const tick = time.Millisecond

// instance hosts this node's share of one run of an algorithm: the lock
// instance, one semaphore (name, units) or one quota. Every node builds the
// same processes from the same problem and hosts only the ones it owns, on
// a host.Host whose transport is the instance's space of the node's
// transport: a message to a process another node owns goes over the link
// to it. The host gives each process its goroutine and mailbox, so a
// process takes its inputs one at a time and the algorithm needs no locks.
type instance struct {
	instanceDeps
	key  space.Key  // what it runs: the lock, a semaphore, a quota's view
	view space.View // the nodes it runs on
	kind algo.Kind  // key.Kind
	name string     // its transport space and event log instance: key@VIEW
	h    *host.Host

	free chan *slot // this node's idle user slots

	// closed is closed once h is: no process of the instance runs any
	// more, and an answer given before is in its slot's channel.
	closed   chan struct{}
	shutOnce sync.Once

	// The processes of the lock and of a large semaphore are made as they
	// are first needed (locks.go), on a problem of lockRange users: lazy
	// is set, alg and pb make them, and made says which this node made,
	// users included. users counts the node's user slots, decides when
	// one is made and when a request waits or is refused (package users:
	// the rule the data plane's model runs too), and holds the ones
	// given back that are not idle yet; mu guards made and users.
	lazy  bool
	alg   algo.Algorithm
	pb    *algo.Problem
	mu    sync.Mutex
	made  map[proc.ID]bool
	users *users.Lazy
}

// instanceDeps are what an instance uses of its node, all of them the
// same for every instance of the node (Node.instanceDeps): not the node
// itself, so that what an instance may reach of it is listed here.
type instanceDeps struct {
	self    int           // the node's id: which processes it hosts
	lease   leaseReader   // no grant fenced, nothing given back, past it
	clock   *clock        // the fencing counters
	events  *eventlog.Log // the grants' owners and fences
	metrics *metrics      // the requests waiting, the time to a grant
	log     *slog.Logger
}

// leaseReader is how much longer the node may serve (ctlHost.leaseLeft):
// an instance fences a grant or gives one back only within it.
type leaseReader interface {
	leaseLeft() time.Duration
}

// instanceDeps are the node's parts its instances use.
func (n *Node) instanceDeps() instanceDeps {
	return instanceDeps{self: n.self, lease: n.ctl, clock: &n.clock, events: n.events, metrics: n.metrics, log: n.log}
}

// slot is one user process of this node, serving one request at a time.
// Its fields are touched only on the process's goroutine (in Calls and in
// its Follow), except answer.
type slot struct {
	id     proc.ID
	p      proc.Allocator
	answer chan answer // the algorithm's enter or grant (capacity 1)
	// waiting: asked and not answered; abandoned: nobody wants the answer
	// any more (the session expired, the caller gave up), so it is
	// released as soon as it comes.
	waiting, abandoned bool
	asked              time.Time
	res                []proc.ResID // the open request's resources
	keys               []string     // the open lock request's fenced keys ("lock/" + name)
}

// answer is the algorithm's answer to a slot's request, with the fencing
// counter it was given.
type answer struct {
	ev      proc.Event
	counter uint64
}

// ownerOf is the node hosting process id of instance sp: the lock's and
// a large semaphore's (lockOwner) or, for a semaphore on the slots or a
// quota, owner's.
func (n *Node) ownerOf(sp space.Space, id proc.ID) int {
	if n.lazy(sp.Key) {
		return lockOwner(sp.View, id)
	}
	return n.owner(sp.View, n.users(sp), id)
}

// users is how many users instance sp on the slots has: slots per
// member (a semaphore on the slots has fewer units than a member has
// slots: large).
func (n *Node) users(sp space.Space) int {
	return sp.View.Members.Len() * n.c.Slots
}

// owner is the node hosting process id of an instance of v with users
// user slots: users in blocks of Slots, block b on member b, helper
// processes (managers, coordinators) dealt round the live nodes.
func (n *Node) owner(v space.View, users int, id proc.ID) int {
	if int(id) < users {
		return v.Members.Nth(int(id) / n.c.Slots)
	}
	return v.Members.Nth((int(id) - users) % v.Members.Len())
}

// unitKey names a semaphore's unit in the view of epoch: units are
// numbered afresh in every view (the algorithm starts over), so a unit is
// a unit of its view. A holder whose unit crossed a view change keeps its
// key and token; a new holder of the same number in the later view holds
// another unit.
func unitKey(sem space.Key, unit int32, epoch uint64) string {
	return fmt.Sprintf("%s/%d@%d", sem, unit, epoch)
}

// problem is the problem every node builds for an instance key.
func (n *Node) problem(k space.Key, users int) (*algo.Problem, algo.Algorithm, error) {
	kind, units := k.Kind, k.Units
	if _, ok := n.algs[kind]; !ok {
		return nil, algo.Algorithm{}, fmt.Errorf("no algorithm serves %s", kind)
	}
	switch kind {
	case algo.Exclusive:
		return &algo.Problem{Kind: algo.Exclusive, Users: lockRange, Resources: lockRange}, n.algs[algo.Exclusive], nil
	case algo.Pool:
		if n.large(k) {
			return &algo.Problem{Kind: algo.Pool, Users: lockRange, Units: units}, centralpool.Algorithm, nil
		}
		if units < 1 || units >= users {
			return nil, algo.Algorithm{}, fmt.Errorf("a semaphore of this cluster has 1 to %d units, not %d", users-1, units)
		}
		return &algo.Problem{Kind: algo.Pool, Users: users, Units: units, Graph: n.tree(users)}, n.algs[algo.Pool], nil
	case algo.Quota:
		if k.Budget < 0 || k.Waste < 0 || k.Waste > k.Budget {
			return nil, algo.Algorithm{}, fmt.Errorf("a quota needs 0 ≤ waste ≤ budget, got %d and %d", k.Waste, k.Budget)
		}
		return &algo.Problem{Kind: algo.Quota, Users: users, Budget: k.Left, Waste: min(k.Waste, k.Left), Graph: n.tree(users)}, n.algs[algo.Quota], nil
	}
	return nil, algo.Algorithm{}, fmt.Errorf("no algorithm serves %s", kind)
}

// tree is the communication graph of an instance on the slots (a
// semaphore's, a quota's): a node's slots in a star round its first slot,
// and the first slots in a star round user 0 (graph.Blocks), so that most
// messages stay inside a node.
func (n *Node) tree(users int) *graph.Graph {
	g, err := graph.Blocks(users, n.c.Slots)
	if err != nil {
		panic(err) // users and slots are positive: a cluster has both
	}
	return g
}

// newInstance builds the instance of a space and starts this node's
// processes of it.
func (n *Node) newInstance(sp space.Space) (*instance, error) {
	name, v := sp.String(), sp.View
	if err := sp.Key.Check(); err != nil {
		return nil, err
	}
	if v.Members.Rank(n.self) < 0 {
		return nil, fmt.Errorf("%w: this node is not in %s", errSpace, name)
	}
	pb, a, err := n.problem(sp.Key, n.users(sp))
	if err != nil {
		return nil, err
	}
	if n.lazy(sp.Key) {
		return n.newLazyInstance(sp, pb, a)
	}
	procs, err := a.Build(pb)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name, err)
	}
	in := &instance{
		instanceDeps: n.instanceDeps(), key: sp.Key, view: v, kind: sp.Key.Kind, name: name,
		free: make(chan *slot, n.c.Slots), closed: make(chan struct{}),
	}
	if in.h, err = n.newHost(name); err != nil {
		return nil, err
	}
	slots := map[proc.ID]*slot{}
	for k := range n.c.Slots {
		id := proc.ID(v.Members.Rank(n.self)*n.c.Slots + k)
		s := &slot{id: id, p: procs[id].(proc.Allocator), answer: make(chan answer, 1)}
		slots[s.id] = s
		in.free <- s
	}
	// Every process of the node is registered before any starts: a
	// process sending at Start to one of the node's processes not added
	// yet would be refused ("unknown process"), and the message lost.
	open := make(chan struct{})
	for id := range procs {
		pid := proc.ID(id)
		if n.owner(v, pb.Users, pid) != n.self {
			continue
		}
		var follow host.Follow
		if s := slots[pid]; s != nil {
			follow = func(env proc.Env, e proc.Event) { in.follow(env, s, e) }
		}
		if err := in.h.Add(pid, gated{procs[id], open}, follow); err != nil {
			close(open)
			in.close()
			return nil, err
		}
	}
	close(open)
	return in, nil
}

// newHost is the host of an instance's processes on this node.
func (n *Node) newHost(name string) (*host.Host, error) {
	seed := fnv.New64a()
	seed.Write([]byte(name))
	return host.New(host.Config{
		Transport: n.members.transport().Space(name),
		Direct:    true, // the node's own processes: straight to the mailbox
		Inline:    true, // another node's: handled by the link's reader
		Tick:      tick,
		Seed:      seed.Sum64(),
		Sink:      n.events.Sink(name),
		OnError:   func(err error) { n.log.Error("instance", "instance", name, "err", err) },
	})
}

// gated is a process whose Start waits until open is closed.
type gated struct {
	proc.Process
	open <-chan struct{}
}

func (g gated) Start(env proc.Env) {
	<-g.open
	g.Process.Start(env)
}

// request asks slot s's process for req.
// grant is the id of the session's grant the request is for (0: none, a
// quota's permit); the log names it, with a lock's keys (its names), so
// that a grant asked again in a later view, where its names have other
// ids, is seen as one holder of the same names.
func (in *instance) request(s *slot, req proc.Request, grant uint64, keys []string) {
	in.call(s, func(env proc.Env) {
		s.waiting, s.abandoned, s.asked, s.res, s.keys = true, false, time.Now(), req.Res, keys
		in.metrics.waiting.WithLabelValues(in.kind.String()).Inc()
		switch in.kind {
		case algo.Pool:
			in.h.Record(proc.Event{Kind: proc.EvAcquire, P: s.id})
		default: // exclusive, and quota as the application cycle does
			in.h.Record(proc.Event{Kind: proc.EvRequest, P: s.id, Res: req.Res})
		}
		if grant != 0 {
			in.events.Put(eventlog.Record{Instance: in.name, Ev: eventlog.Owner, P: s.id, Res: req.Res, Keys: keys, Grant: grant})
		}
		s.p.Request(env, req)
	})
}

// follow is told of slot s's events: an answer to its request is fenced
// and handed to the waiting call, or released at once if abandoned.
func (in *instance) follow(env proc.Env, s *slot, e proc.Event) {
	if !e.Served() || !s.waiting {
		return
	}
	s.waiting = false
	in.metrics.waiting.WithLabelValues(in.kind.String()).Dec()
	in.metrics.latency.WithLabelValues(in.kind.String()).Observe(time.Since(s.asked).Seconds())
	in.answer(s, e)
}

// answer fences slot s's grant e and hands it to the waiting call, or
// releases it at once if abandoned.
//
// Not while the node's lease has run out, for the reason release waits
// (a node stopped past its lease runs what was queued for it before it
// notices): a token issued then, in a view the cluster has left, would be
// below the tokens the newer view issued meanwhile. The grant waits like
// a release: for the fence (the instance is gone, the request retired
// with it) or for the lease to go on.
func (in *instance) answer(s *slot, e proc.Event) {
	var counter uint64
	if keys := in.keys(s, e); keys != nil {
		if in.lease.leaseLeft() <= 0 {
			time.AfterFunc(5*time.Millisecond, func() { in.call(s, func(proc.Env) { in.answer(s, e) }) })
			return
		}
		// The fencing counter is the node's Lamport time now: the grant
		// comes after every release of these resources by an earlier
		// holder (exclusion needs a chain of messages from that release
		// to this grant), and every message carries its sender's time.
		counter = in.clock.tick()
		in.events.Fenced(in.name, s.id, keys, in.view.Epoch, counter)
	}
	if s.abandoned {
		// Release is an input of its own: the process is in the middle
		// of handling the input that made it emit.
		in.release(s, e.Unit)
		return
	}
	s.answer <- answer{e, counter}
}

// keys are the fenced keys of an answer: a lock's resources, a
// semaphore's unit; nil for a quota's permit or reject.
func (in *instance) keys(s *slot, e proc.Event) []string {
	switch in.kind {
	case algo.Exclusive:
		return s.keys
	case algo.Pool:
		return []string{unitKey(in.key, e.Unit, in.view.Epoch)}
	}
	return nil
}

// release gives back what slot s holds and frees the slot. The exit is
// recorded before Release sends anything, so no other process can enter
// on what s gives back before the log shows s left.
//
// Not while the node's lease has run out: a node frozen (SIGSTOP) or cut
// off past its lease may find, when it runs again, a release waiting (an
// Unlock that came in meanwhile, a session closed) before it has noticed
// the lapse and fenced. Given back then, the exit would be recorded, and
// the algorithm moved, in a view the cluster may have left long before —
// and a newer view serves what the grant held once the lease is over. So
// the release waits: a lapse is either followed by a fence, which retires
// the instance (the call then fails, and nothing is left to give back),
// or, if a lease read begun before the lapse is confirmed after it, by
// the same lease going on (then it is given back). The check is next to
// the record on the instance's goroutine: only a process stopped between
// the two statements could stamp an exit past its lease.
func (in *instance) release(s *slot, unit int32) {
	in.call(s, func(env proc.Env) {
		if in.lease.leaseLeft() <= 0 {
			time.AfterFunc(5*time.Millisecond, func() { in.release(s, unit) })
			return
		}
		switch in.kind {
		case algo.Quota: // a permit is consumed, never given back
		case algo.Pool:
			in.h.Record(proc.Event{Kind: proc.EvRelease, P: s.id, Unit: unit})
			s.p.Release(env)
		default:
			in.h.Record(proc.Event{Kind: proc.EvExit, P: s.id})
			s.p.Release(env)
		}
		in.putBack(s)
	})
}

// abandon gives up s's open request: released at once if it was answered
// meanwhile, else as soon as the answer comes.
func (in *instance) abandon(s *slot) {
	in.call(s, func(proc.Env) {
		select {
		case a := <-s.answer:
			in.release(s, a.ev.Unit)
		default:
			s.abandoned = true
		}
	})
}

// call runs f on s's process. It fails only once the instance is closed,
// when nothing is left to give back.
func (in *instance) call(s *slot, f func(proc.Env)) {
	if err := in.h.Call(s.id, f); err != nil && !errors.Is(err, host.ErrClosed) {
		in.log.Error("instance", "instance", in.key.String(), "process", s.id, "err", err)
	}
}

// close stops the instance's processes; once it returns, none runs (a
// second caller waits for the first).
func (in *instance) close() {
	in.shutOnce.Do(func() {
		in.h.Close()
		close(in.closed)
	})
}

// outcome waits for the answer to slot s's open request, asked in view st:
// it comes unless the view is retired first, or the instance closed. A
// retired view's instances are closed right after (adopt, fence), and an
// answer given before that is in s.answer then: none is missed, so that a
// permit the controller issued is counted, taken or not.
func (in *instance) outcome(s *slot, st *epochState) (answer, bool) {
	select {
	case a := <-s.answer:
		return a, true
	case <-st.retired:
	case <-in.closed:
	}
	<-in.closed
	select {
	case a := <-s.answer:
		return a, true
	default:
		return answer{}, false
	}
}

// retire stops instances of a view that has been replaced: their
// processes stop and the messages still on their way to them are dropped
// (their transport spaces closed in one pass: a refresh retires them by
// the hundred). It returns their names.
func (n *Node) retire(ins []*instance) []string {
	names := make([]string, len(ins))
	for i, in := range ins {
		in.close()
		n.metrics.keep(in.h.Stats().ByKind)
		names[i] = in.name
	}
	n.members.transport().CloseSpaces(names...)
	for _, name := range names {
		n.events.Put(eventlog.Record{Instance: name, Ev: eventlog.Retired})
	}
	return names
}

package service

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// tick is the real duration of one tick of the algorithms' timers.
const tick = time.Millisecond

// instance hosts this node's share of one run of an algorithm: the lock
// instance, or one semaphore (name, units). Every node builds the same
// processes from the same problem and runs only the ones it owns; a
// message to a process another node owns goes over the link to it.
//
// The processes of an instance take their inputs one at a time under mu:
// an input (a delivered message, a fired timer, a request or release of a
// session) runs, then the inputs it created for processes of this node, in
// order, before mu is released. So no process is ever entered twice at
// once and the algorithm needs no locks.
type instance struct {
	n     *Node
	key   string // "lock" or "sem/NAME/UNITS"
	kind  algo.Kind
	users int // every node's user slots
	procs []proc.Process
	start time.Time

	free chan *slot // this node's idle user slots

	mu     sync.Mutex
	q      []input
	slots  map[proc.ID]*slot
	rnds   map[proc.ID]*rand.Rand
	closed bool
}

// input is a message for a local process, or a call to make in turn.
type input struct {
	to, from proc.ID
	msg      proc.Message
	call     func()
}

// slot is one user process of this node, serving one request at a time.
type slot struct {
	id     proc.ID
	answer chan proc.Event // the algorithm's enter or grant (capacity 1)
	// waiting: asked and not answered; abandoned: nobody wants the answer
	// any more (the session expired, the caller gave up), so it is
	// released as soon as it comes.
	waiting, abandoned bool
	asked              time.Time
}

// owner is the node hosting process id: users in blocks of Slots per node,
// helper processes (managers, coordinators) dealt round the nodes.
func (n *Node) owner(id proc.ID, users int) int {
	if int(id) < users {
		return int(id) / n.c.Slots
	}
	return (int(id) - users) % len(n.c.Nodes)
}

// spec is what an instance key names: the lock ("lock"), a semaphore
// ("sem/NAME/UNITS") or a quota ("quota/NAME/BUDGET/WASTE").
type spec struct {
	kind                 algo.Kind
	name                 string
	units, budget, waste int
}

// parseKey returns the spec of an instance key.
func parseKey(key string) (spec, error) {
	if key == "lock" {
		return spec{kind: algo.Exclusive}, nil
	}
	bad := fmt.Errorf("unknown instance %q", key)
	nums := func(rest string, k int) (string, []int, bool) {
		parts := strings.Split(rest, "/")
		if len(parts) < k+1 {
			return "", nil, false
		}
		var out []int
		for _, p := range parts[len(parts)-k:] {
			v, err := strconv.Atoi(p)
			if err != nil {
				return "", nil, false
			}
			out = append(out, v)
		}
		return strings.Join(parts[:len(parts)-k], "/"), out, true
	}
	if rest, ok := strings.CutPrefix(key, "sem/"); ok {
		if name, v, ok := nums(rest, 1); ok {
			return spec{kind: algo.Pool, name: name, units: v[0]}, nil
		}
	}
	if rest, ok := strings.CutPrefix(key, "quota/"); ok {
		if name, v, ok := nums(rest, 2); ok {
			return spec{kind: algo.Quota, name: name, budget: v[0], waste: v[1]}, nil
		}
	}
	return spec{}, bad
}

func semKey(name string, units int) string { return "sem/" + name + "/" + strconv.Itoa(units) }

func quotaKey(name string, q QuotaSpec) string {
	return fmt.Sprintf("quota/%s/%d/%d", name, q.Budget, q.Waste)
}

// problem is the problem every node builds the instance key for.
func (n *Node) problem(sp spec) (*algo.Problem, algo.Algorithm, error) {
	users := len(n.c.Nodes) * n.c.Slots
	kind, units := sp.kind, sp.units
	if _, ok := n.algs[kind]; !ok {
		return nil, algo.Algorithm{}, fmt.Errorf("no algorithm serves %s", kind)
	}
	switch kind {
	case algo.Exclusive:
		return &algo.Problem{Kind: algo.Exclusive, Users: users, Resources: n.c.Resources}, n.algs[algo.Exclusive], nil
	case algo.Pool:
		if units < 1 || units >= users {
			return nil, algo.Algorithm{}, fmt.Errorf("a semaphore of this cluster has 1 to %d units, not %d", users-1, units)
		}
		return &algo.Problem{Kind: algo.Pool, Users: users, Units: units, Graph: n.tree(users)}, n.algs[algo.Pool], nil
	case algo.Quota:
		if sp.budget < 0 || sp.waste < 0 || sp.waste > sp.budget {
			return nil, algo.Algorithm{}, fmt.Errorf("a quota needs 0 ≤ waste ≤ budget, got %d and %d", sp.waste, sp.budget)
		}
		return &algo.Problem{Kind: algo.Quota, Users: users, Budget: sp.budget, Waste: sp.waste, Graph: n.tree(users)}, n.algs[algo.Quota], nil
	}
	return nil, algo.Algorithm{}, fmt.Errorf("no algorithm serves %s", kind)
}

// tree is the communication graph of a semaphore: each node's slots in a
// star round the node's first slot, and the first slots in a star round
// user 0, so that most messages stay inside a node.
func (n *Node) tree(users int) *graph.Graph {
	var edges [][2]proc.ID
	for u := range users {
		hub := proc.ID(u / n.c.Slots * n.c.Slots)
		switch {
		case proc.ID(u) != hub:
			edges = append(edges, [2]proc.ID{hub, proc.ID(u)})
		case u != 0:
			edges = append(edges, [2]proc.ID{0, proc.ID(u)})
		}
	}
	g, err := graph.New(users, edges)
	if err != nil {
		panic(err) // a tree on 0..users-1 is always a graph
	}
	return g
}

// newInstance builds the instance of key and starts this node's processes.
func (n *Node) newInstance(key string) (*instance, error) {
	sp, err := parseKey(key)
	if err != nil {
		return nil, err
	}
	kind := sp.kind
	pb, a, err := n.problem(sp)
	if err != nil {
		return nil, err
	}
	procs, err := a.Build(pb)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name, err)
	}
	in := &instance{
		n: n, key: key, kind: kind, users: pb.Users, procs: procs, start: time.Now(),
		free:  make(chan *slot, n.c.Slots),
		slots: map[proc.ID]*slot{},
		rnds:  map[proc.ID]*rand.Rand{},
	}
	for id := range procs {
		if n.owner(proc.ID(id), pb.Users) == n.self {
			in.rnds[proc.ID(id)] = rand.New(rand.NewPCG(uint64(n.c.Epoch), uint64(id)))
		}
	}
	for k := range n.c.Slots {
		s := &slot{id: proc.ID(n.self*n.c.Slots + k), answer: make(chan proc.Event, 1)}
		in.slots[s.id] = s
		in.free <- s
	}
	in.run(func() {
		for id := range procs {
			if in.rnds[proc.ID(id)] != nil {
				procs[id].Start(in.env(proc.ID(id)))
			}
		}
	})
	return in, nil
}

// run runs f and every input it causes at this node, one at a time.
func (in *instance) run(f func()) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return
	}
	f()
	for len(in.q) > 0 {
		x := in.q[0]
		in.q = in.q[1:]
		if x.call != nil {
			x.call()
			continue
		}
		in.procs[x.to].Deliver(in.env(x.to), x.from, x.msg)
	}
	in.q = in.q[:0]
}

// deliver hands a message from the link to a process of this node.
func (in *instance) deliver(from, to proc.ID, m proc.Message) {
	if to < 0 || int(to) >= len(in.procs) || in.n.owner(to, in.users) != in.n.self {
		in.n.log.Warn("message for a process of another node dropped", "instance", in.key, "to", to)
		return
	}
	in.run(func() { in.procs[to].Deliver(in.env(to), from, m) })
}

// request asks slot s's process for req (under mu).
func (in *instance) request(s *slot, req proc.Request) {
	s.waiting, s.abandoned, s.asked = true, false, time.Now()
	in.n.metrics.waiting.WithLabelValues(in.kind.String()).Inc()
	switch in.kind {
	case algo.Pool:
		in.n.events.write(in, proc.Event{Kind: proc.EvAcquire, P: s.id})
	default: // exclusive, and quota as the application cycle does
		in.n.events.write(in, proc.Event{Kind: proc.EvRequest, P: s.id, Res: req.Res})
	}
	in.procs[s.id].(proc.Allocator).Request(in.env(s.id), req)
}

// release gives back what slot s holds and frees the slot (under mu). The
// exit is recorded before Release sends anything, so no other process can
// enter on what s gives back before the log shows s left.
func (in *instance) release(s *slot, unit int32) {
	if in.kind == algo.Quota { // a permit is consumed, never given back
		in.free <- s
		return
	}
	if in.kind == algo.Pool {
		in.n.events.write(in, proc.Event{Kind: proc.EvRelease, P: s.id, Unit: unit})
	} else {
		in.n.events.write(in, proc.Event{Kind: proc.EvExit, P: s.id})
	}
	in.procs[s.id].(proc.Allocator).Release(in.env(s.id))
	in.free <- s
}

// abandon gives up s's open request: released at once if it was answered
// meanwhile, else as soon as the answer comes.
func (in *instance) abandon(s *slot) {
	in.run(func() {
		select {
		case e := <-s.answer:
			in.release(s, e.Unit)
		default:
			s.abandoned = true
		}
	})
}

func (in *instance) close() {
	in.mu.Lock()
	in.closed = true
	in.mu.Unlock()
}

// env is a process's proc.Env.
type env struct {
	in *instance
	id proc.ID
}

func (in *instance) env(id proc.ID) proc.Env { return env{in, id} }

func (e env) Self() proc.ID    { return e.id }
func (e env) Now() proc.Time   { return proc.Time(time.Since(e.in.start) / tick) }
func (e env) Rand() *rand.Rand { return e.in.rnds[e.id] }
func (e env) Send(to proc.ID, m proc.Message) {
	in := e.in
	in.n.metrics.messages.WithLabelValues(m.Kind()).Inc()
	if o := in.n.owner(to, in.users); o != in.n.self {
		in.n.send(o, in.key, e.id, to, m)
		return
	}
	in.q = append(in.q, input{to: to, from: e.id, msg: m})
}

func (e env) After(d proc.Time, t proc.Timer) {
	in, id := e.in, e.id
	time.AfterFunc(time.Duration(d)*tick, func() {
		in.run(func() { in.procs[id].Fire(in.env(id), t) })
	})
}

// Emit records the algorithm's event and answers the slot it is at.
func (e env) Emit(ev proc.Event) {
	in := e.in
	ev.P = e.id
	in.n.events.write(in, ev)
	s := in.slots[e.id]
	if s == nil || !ev.Served() || !s.waiting {
		return
	}
	s.waiting = false
	in.n.metrics.waiting.WithLabelValues(in.kind.String()).Dec()
	in.n.metrics.latency.WithLabelValues(in.kind.String()).Observe(time.Since(s.asked).Seconds())
	if s.abandoned {
		// Release is an input of its own: the process is in the middle
		// of handling the input that made it emit.
		unit := ev.Unit
		in.q = append(in.q, input{call: func() { in.release(s, unit) }})
		return
	}
	s.answer <- ev
}

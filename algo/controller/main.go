package controller

import (
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/spantree"
	"github.com/allot-dev/allot/proc"
)

// Main is the main controller (§5): CONTROLLER-N admits nodes to the tree
// of participants, CONTROLLER-R hands out the permits on it, both with
// U = 3n_i, re-initialized each time CONTROLLER-N runs dry.
var Main = algo.Algorithm{
	Name:     "controller-main",
	Kind:     algo.Quota,
	Summary:  "Afek et al.'s main (M, W) controller: CONTROLLER-N admits nodes to a tree of participants, CONTROLLER-R runs on it with U = 3n_i, anew when the participants double",
	Build:    BuildMain,
	Messages: mainMessages,
}

var mainMessages = slices.Concat(spantree.Messages,
	[]proc.Message{Req{}, Permit{}, Reject{}, Later{}, NReq{}, NPermit{}, NLater{}, Join{}, Admit{}})

// The two basic controllers of the main controller.
const (
	ctlR = iota // CONTROLLER-R: the resource
	ctlN        // CONTROLLER-N: admissions of nodes
)

// opCount is the main controller's wave between the collection (opCollect:
// close the iteration, echo CONTROLLER-R's unused permits) and the start of
// the next iteration (opStart, whose Arg is n_i here): it counts the
// participants.
const opCount = opStart + 1

// bins is one basic controller's part at a node: its local bin
// (RESOURCE-REQUEST, Fig. 3) and its global bin (DELIVERY-PROCESS, Fig. 4,
// or ROOT-DELIVERY-PROCESS, Fig. 5), with the DELIVERY-PROCESS's queue.
type bins struct {
	lam           int   // Λ = 2^lam, or lamZero
	local, global int64 // permits in b_l(v) and b_g(v)
	exhL, exhG    bool  // a reject came to the local / global bin
	asked         bool  // the local bin's refill request is out
	deferred      bool  // it was answered Later: ask in the next iteration
	blocked       bool  // a request is out to the parent
	relay         bool  // that request is a relayed one, not a refill
	cur           item
	queue         []item
	// Name assignment (§6.2): a bin holds a range of names, its count
	// above and its first name here.
	lLo, gLo int64
}

// MainNode is one node of the main controller.
type MainNode struct {
	// tree spans the whole graph; a node joins the participants along it.
	// part is the participants' tree (a subtree of tree with the same
	// root), over which the controllers and the waves run.
	tree, part spantree.Node
	wave       spantree.Wave
	nbrs       []proc.ID
	self       proc.ID
	root       bool
	waste      int64

	in      bool      // a participant
	joining bool      // a Join is out to the tree parent
	joins   []proc.ID // tree children waiting for admission
	ni      int64     // n_i, the participants when this iteration began
	phase   phase
	want    bool // the application waits for an answer
	r, n    bins // CONTROLLER-R and CONTROLLER-N
	// Name assignment (§6.2): CONTROLLER-N's permits are names, and there
	// is no CONTROLLER-R; issued counts the names taken at this node.
	names  bool
	issued int64

	// The root.
	budget     int64
	m          int64 // M^R of the next iteration, once collected
	signal     bool  // the exhausted signal was generated
	waveOp     uint8
	closeAfter bool    // CONTROLLER-N ran dry during a start wave
	base, rng  int64   // name assignment: this iteration's range of names
	Counts     []int64 // n_i of every iteration begun (the root only; for tests and reports)
}

// BuildMain returns the nodes of the main controller, the root (process
// 0) first.
func BuildMain(pb *algo.Problem) ([]proc.Process, error) {
	if err := Validate(pb); err != nil {
		return nil, err
	}
	nodes := make([]MainNode, pb.Graph.N())
	ps := make([]proc.Process, len(nodes))
	for v := range nodes {
		nd := &nodes[v]
		nd.nbrs = pb.Graph.Neighbors(proc.ID(v))
		nd.root = v == 0
		nd.budget, nd.waste = int64(pb.Budget), int64(pb.Waste)
		ps[v] = nd
	}
	return ps, nil
}

func (x *MainNode) bin(c int) *bins {
	if c == ctlN {
		return &x.n
	}
	return &x.r
}

// Start implements proc.Process. The root is the only participant at
// first: iteration 1 has n_1 = 1 and M^R_1 = M.
func (x *MainNode) Start(env proc.Env) {
	x.self = env.Self()
	x.tree.Start(env, x.nbrs, x.root)
	x.part.Parent = proc.None
	if x.root {
		x.in = true
		x.begin(env, 1, x.budget)
	}
}

// Request implements proc.Allocator: a node that is not a participant
// joins first.
func (x *MainNode) Request(env proc.Env, _ proc.Request) {
	x.want = true
	x.join(env)
	if x.names {
		x.resourceN(env)
		return
	}
	x.resourceR(env)
}

// Release implements proc.Allocator; permits are consumed, not released.
func (x *MainNode) Release(proc.Env) {}

// Fire implements proc.Process; the controller arms no timers.
func (x *MainNode) Fire(proc.Env, proc.Timer) {}

// join asks the tree parent for admission, once the node needs it: its
// application asks, or a tree child waits to be admitted through it.
func (x *MainNode) join(env proc.Env) {
	if x.in || x.joining || !x.tree.Joined || (!x.want && len(x.joins) == 0) {
		return
	}
	x.joining = true
	x.part.Parent, x.part.Depth = x.tree.Parent, x.tree.Depth
	env.Send(x.tree.Parent, Join{})
}

// resourceR is RESOURCE-REQUEST of CONTROLLER-R (Fig. 3).
func (x *MainNode) resourceR(env proc.Env) {
	b := &x.r
	switch {
	case !x.want || !x.in || x.names:
	case b.local > 0:
		b.local--
		x.want = false
		env.Emit(proc.Event{Kind: proc.EvPermit})
	case b.exhL:
		x.want = false
		env.Emit(proc.Event{Kind: proc.EvReject})
	case !b.asked && !b.deferred && x.phase == running:
		b.asked = true
		b.queue = append(b.queue, item{from: x.self, level: -1})
		x.run(env, ctlR)
	}
}

// resourceN is RESOURCE-REQUEST of CONTROLLER-N, whose application asks
// one permit for each tree child waiting for admission (and, in name
// assignment, one name for the node's own request). Admissions happen only
// while the iteration runs: a node that is closing keeps its children
// waiting, to be resubmitted to the next iteration (§5).
func (x *MainNode) resourceN(env proc.Env) {
	b := &x.n
	for x.in && x.phase == running && (len(x.joins) > 0 || x.names && x.want) {
		if b.local == 0 {
			if !b.asked && !b.deferred {
				b.asked = true
				b.queue = append(b.queue, item{from: x.self, level: -1})
				x.run(env, ctlN)
			}
			return
		}
		b.local--
		name := b.lLo
		b.lLo++
		if x.names && x.want {
			x.issued++
			x.named(env, name)
			continue
		}
		c := x.joins[0]
		x.joins = x.joins[1:]
		x.part.Children = append(x.part.Children, c)
		if x.names {
			x.issued++
			env.Send(c, Welcome{N: int32(x.ni), Name: name})
		} else {
			env.Send(c, Admit{N: int32(x.ni)})
		}
	}
	if len(x.joins) == 0 {
		x.joins = nil
	}
}

// named gives this node the name: a name event, and a permit if the
// application waits for it.
func (x *MainNode) named(env proc.Env, name int64) {
	env.Emit(proc.Event{Kind: proc.EvName, Unit: int32(name)})
	if x.want {
		x.want = false
		env.Emit(proc.Event{Kind: proc.EvPermit})
	}
}

// localAnswer is the DELIVERY-PROCESS's answer over the internal link.
func (x *MainNode) localAnswer(env proc.Env, c int, a answer, lo int64) {
	b := x.bin(c)
	b.asked = false
	switch a {
	case ansPermit:
		b.local, b.lLo = Cap(b.lam, -1), lo
	case ansReject:
		b.exhL = true
	case ansLater:
		b.deferred = true
	}
	if c == ctlN {
		x.resourceN(env)
	} else {
		x.resourceR(env)
	}
}

// Deliver implements proc.Process.
func (x *MainNode) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if ok, joined, _ := x.tree.Handle(env, from, m); ok {
		if joined {
			x.join(env)
		}
		return
	}
	if ok, b, done, sum := x.wave.Handle(env, &x.part, from, m); ok {
		if b != nil {
			x.onBroadcast(env, *b)
		}
		if done {
			x.waveDone(env, sum)
		}
		return
	}
	switch m := m.(type) {
	case Join:
		x.joins = append(x.joins, from)
		x.join(env)
		x.resourceN(env)
	case Admit:
		x.admitted(env, int64(m.N))
	case Welcome:
		x.admitted(env, int64(m.N))
		x.named(env, m.Name)
	case Req:
		x.r.queue = append(x.r.queue, item{from: from, level: m.Level})
		x.run(env, ctlR)
	case NReq:
		x.n.queue = append(x.n.queue, item{from: from, level: m.Level})
		x.run(env, ctlN)
	case Permit:
		x.onAnswer(env, ctlR, from, ansPermit, 0)
	case Reject:
		x.onAnswer(env, ctlR, from, ansReject, 0)
	case Later:
		x.onAnswer(env, ctlR, from, ansLater, 0)
	case NPermit:
		x.onAnswer(env, ctlN, from, ansPermit, 0)
	case NameRange:
		x.onAnswer(env, ctlN, from, ansPermit, m.Lo)
	case NLater:
		x.onAnswer(env, ctlN, from, ansLater, 0)
	default:
		panic(fmt.Sprintf("controller-main: unexpected %T from %d", m, from))
	}
}

// admitted makes the node a participant of the iteration with n_i = ni.
// The collection's broadcast may have come first (channels are not FIFO):
// the node then only settles and echoes.
func (x *MainNode) admitted(env proc.Env, ni int64) {
	x.in, x.joining = true, false
	x.setIteration(ni)
	if x.phase == idle {
		x.phase = running
	}
	x.resourceR(env)
	x.resourceN(env)
	x.maybeEcho(env)
}

// setIteration takes iteration i's parameters: U_i = 3n_i for both
// controllers, W for CONTROLLER-R, W^N_i = n_i for CONTROLLER-N.
func (x *MainNode) setIteration(ni int64) {
	x.ni = ni
	x.r.lam = Lambda(x.waste, 3*ni)
	x.n.lam = Lambda(ni, 3*ni)
}

// run handles controller c's queued requests until one needs the
// parent's answer.
func (x *MainNode) run(env proc.Env, c int) {
	b := x.bin(c)
	for !b.blocked && len(b.queue) > 0 {
		it := b.queue[0]
		b.queue = b.queue[1:]
		x.handle(env, c, it)
	}
	if len(b.queue) == 0 {
		b.queue = nil
	}
	x.maybeEcho(env)
}

// handle is one turn of controller c's DELIVERY-PROCESS (Fig. 4) or
// ROOT-DELIVERY-PROCESS (Fig. 5).
func (x *MainNode) handle(env proc.Env, c int, it item) {
	if x.root {
		x.rootServe(env, c, it)
		return
	}
	b := x.bin(c)
	up := x.phase == running
	lv := Level(x.part.Depth)
	switch {
	case lv != it.level+1: // not addressed to this bin: relay
		if !up {
			x.send(env, c, it, ansLater, 0)
			return
		}
		env.Send(x.part.Parent, req(c, it.level))
		b.blocked, b.relay, b.cur = true, true, it
	case b.global == 0 && !b.exhG: // addressed here, and the bin is empty
		if !up {
			x.send(env, c, it, ansLater, 0)
			return
		}
		env.Send(x.part.Parent, req(c, lv))
		b.blocked, b.relay, b.cur = true, false, it
	default:
		x.serve(env, c, it)
	}
}

func req(c int, level int8) proc.Message {
	if c == ctlN {
		return NReq{Level: level}
	}
	return Req{Level: level}
}

// serve satisfies a request from the global bin, or rejects it.
func (x *MainNode) serve(env proc.Env, c int, it item) {
	b := x.bin(c)
	if b.global > 0 {
		size := Cap(b.lam, it.level)
		b.global -= size
		b.gLo += size
		x.send(env, c, it, ansPermit, b.gLo-size)
		return
	}
	b.exhG = true
	x.send(env, c, it, ansReject, 0)
}

// rootServe is ROOT-DELIVERY-PROCESS: it never waits. CONTROLLER-R's
// rejects with the exhausted signal (once); CONTROLLER-N's never rejects
// but ends the iteration (§5).
func (x *MainNode) rootServe(env proc.Env, c int, it item) {
	b := x.bin(c)
	size := Cap(b.lam, it.level)
	switch {
	case b.global >= size:
		b.global -= size
		b.gLo += size
		x.send(env, c, it, ansPermit, b.gLo-size)
	case c == ctlR && x.phase == running:
		x.send(env, c, it, ansReject, 0)
		if !x.signal {
			x.signal = true
			env.Emit(proc.Event{Kind: proc.EvExhausted})
		}
	case c == ctlR || x.phase != running || x.closeAfter:
		x.send(env, c, it, ansLater, 0)
	default: // CONTROLLER-N ran dry: re-initialize
		x.send(env, c, it, ansLater, 0)
		if x.wave.Active() {
			x.closeAfter = true
		} else {
			x.close(env)
		}
	}
}

func (x *MainNode) send(env proc.Env, c int, it item, a answer, lo int64) {
	if it.from == x.self {
		x.localAnswer(env, c, a, lo)
		return
	}
	var m proc.Message
	switch {
	case c == ctlN && a == ansPermit && x.names:
		m = NameRange{Lo: lo}
	case c == ctlN && a == ansPermit:
		m = NPermit{}
	case c == ctlN && a == ansLater:
		m = NLater{}
	case c == ctlN:
		panic("controller-main: CONTROLLER-N rejects")
	default:
		m = a.msg()
	}
	env.Send(it.from, m)
}

// onAnswer takes the parent's answer to controller c's request out.
func (x *MainNode) onAnswer(env proc.Env, c int, from proc.ID, a answer, lo int64) {
	b := x.bin(c)
	if !b.blocked || from != x.part.Parent {
		panic(fmt.Sprintf("controller-main: unasked answer from %d", from))
	}
	b.blocked = false
	it := b.cur
	switch {
	case b.relay:
		x.send(env, c, it, a, lo)
	case a == ansPermit:
		b.global, b.gLo = Cap(b.lam, Level(x.part.Depth)), lo
		x.serve(env, c, it)
	case a == ansLater:
		x.send(env, c, it, ansLater, 0)
	default:
		b.exhG = true
		x.send(env, c, it, ansReject, 0)
	}
	x.run(env, c)
}

// close ends an iteration at the root: a broadcast-and-echo over the
// participants settles every node and collects CONTROLLER-R's permits.
func (x *MainNode) close(env proc.Env) {
	x.closeAfter = false
	x.phase = closing
	x.waveOp = opCollect
	x.wave.Begin(env, &x.part, opCollect, 0)
	x.maybeEcho(env)
}

// onBroadcast acts on a wave at a non-root node.
func (x *MainNode) onBroadcast(env proc.Env, b spantree.Bcast) {
	switch b.Op {
	case opCollect:
		x.phase = closing
		x.maybeEcho(env)
	case opCount:
		x.ready(env, 1)
	case opStart:
		x.startIteration(b.Arg)
		x.ready(env, 0)
		x.resourceR(env)
		x.resourceN(env)
	}
}

func (x *MainNode) ready(env proc.Env, contribution int64) {
	if done, sum := x.wave.Ready(env, &x.part, contribution); done {
		x.waveDone(env, sum)
	}
}

// maybeEcho echoes the collection once this node is a participant and
// owes and is owed no answer: its bins are then settled, every permit
// given out in the iteration has reached its bin (§5).
func (x *MainNode) maybeEcho(env proc.Env) {
	if x.phase != closing || !x.in || !x.wave.Active() || x.r.blocked || x.n.blocked || len(x.r.queue) > 0 || len(x.n.queue) > 0 {
		return
	}
	left := x.r.local + x.r.global
	if x.names {
		// The names left in bins are not reused (§6.2): count the names
		// given instead, the participants.
		left = x.issued
	}
	// CONTROLLER-N's bins are not collected: each iteration's admissions
	// start afresh from 2n_i at the root.
	x.r.local, x.r.global, x.n.local, x.n.global = 0, 0, 0, 0
	x.phase = closed
	x.ready(env, left)
}

// startIteration begins an iteration at a participant. A local bin that
// was rejected stays so: no permit may follow a reject at a node (§3).
func (x *MainNode) startIteration(ni int64) {
	x.setIteration(ni)
	x.phase = running
	x.r.exhG = false
	x.r.deferred, x.n.deferred = false, false
}

// waveDone is the root learning that a wave has come back: the
// collection (CONTROLLER-R's unused permits), then the count (n_{i+1}),
// then the start of the next iteration.
func (x *MainNode) waveDone(env proc.Env, sum int64) {
	switch x.waveOp {
	case opCollect:
		if x.names {
			// The participants are the initiator and the named.
			x.begin(env, sum+1, 0)
			return
		}
		x.m = sum
		x.waveOp = opCount
		x.wave.Begin(env, &x.part, opCount, 0)
		x.ready(env, 1)
	case opCount:
		x.begin(env, sum, x.m)
	case opStart:
		if x.closeAfter {
			x.close(env)
		}
	}
}

// begin starts an iteration with ni participants and m unused permits:
// CONTROLLER-N with (2n_i, n_i), CONTROLLER-R with (m, W), both with
// U = 3n_i. With m ≤ W the resource counts as exhausted: CONTROLLER-R's
// root rejects whatever reaches it.
func (x *MainNode) begin(env proc.Env, ni, m int64) {
	x.Counts = append(x.Counts, ni)
	if m <= x.waste {
		m = 0
	}
	x.r.global, x.r.local = m, 0
	x.n.global, x.n.local = 2*ni, 0
	// Name assignment hands out the fresh range [base, base + 2n_i).
	x.base += x.rng
	x.rng, x.n.gLo = 2*ni, x.base
	x.startIteration(ni)
	x.waveOp = opStart
	x.wave.Begin(env, &x.part, opStart, ni)
	x.ready(env, 0)
	x.resourceR(env)
	x.resourceN(env)
	x.run(env, ctlR)
	x.run(env, ctlN)
}

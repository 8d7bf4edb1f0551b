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

// ModifiedMain is the modified controller as §6.1 states it: stages of
// the main controller with (M_i, M_i/2), each ending when its
// CONTROLLER-R's root bin runs dry, then the main controller with W.
var ModifiedMain = algo.Algorithm{
	Name:     "controller-modified-main",
	Kind:     algo.Quota,
	Summary:  "Afek et al.'s modified (M, W) controller over MAIN (§6.1): stages of the main controller with (M_i, M_i/2), the waste halved each stage, participants growing from the root",
	Build:    BuildModifiedMain,
	Messages: slices.Concat(mainMessages, []proc.Message{AdmitW{}}),
}

// BuildModifiedMain returns the nodes of the modified controller over
// MAIN, the root (process 0) first.
func BuildModifiedMain(pb *algo.Problem) ([]proc.Process, error) {
	ps, err := BuildMain(pb)
	for _, p := range ps {
		p.(*MainNode).modified = true
	}
	return ps, err
}

// The two basic controllers of the main controller.
const (
	ctlR = iota // CONTROLLER-R: the resource
	ctlN        // CONTROLLER-N: admissions of nodes
)

// opCount is the main controller's wave between the collection (opCollect:
// close the iteration, echo CONTROLLER-R's unused permits) and the start of
// the next iteration (opStart, whose Arg is n_i here): it counts the
// participants. opStage, in the modified controller over MAIN only, comes
// between the count and the start when a stage begins: its Arg is the
// stage's waste, W_s, CONTROLLER-R's W from then on.
const (
	opCount = opStart + 1
	opStage = opStart + 2
)

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
	// The modified controller over MAIN (§6.1): wr is CONTROLLER-R's
	// waste in this stage, W_s = M_s/2 until the last stage, then W.
	modified bool
	wr       int64
	// The bank over MAIN (bankmain.go): CONTROLLER-R is the withdrawal
	// controller, whose root bin is the bank; dl and dg are the deposit
	// bins; waiting are the withdrawals waiting at the root for deposits,
	// late the deposits that reached the root while an iteration closed.
	bank    bool
	dl, dg  int64
	waiting []item
	late    int64

	// The root.
	budget     int64
	m          int64 // M^R of the next iteration, once collected
	next       int64 // n_{i+1}, once counted
	signal     bool  // the exhausted signal was generated
	waveOp     uint8
	closeAfter bool    // CONTROLLER-N ran dry during a start wave
	base, rng  int64   // name assignment: this iteration's range of names
	final      bool    // the modified controller's last stage (waste W, rejects)
	stageEnd   bool    // CONTROLLER-R's root bin ran dry in a stage before the last
	Stages     []int64 // M_s of every stage begun (the root only; for tests and reports)
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
		nd.wr = nd.waste
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
		x.final = !x.modified
		x.stageEnd = x.modified
		x.stage(x.budget)
		x.begin(env, 1, x.budget)
	}
}

// Request implements proc.Allocator: a node that is not a participant
// joins first.
func (x *MainNode) Request(env proc.Env, r proc.Request) {
	if x.bank {
		x.bankRequest(env, r)
		return
	}
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
	if x.in || x.joining || !x.tree.Joined || (!x.want && len(x.joins) == 0 && x.dl == 0) {
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
		if x.bank {
			env.Emit(proc.Event{Kind: proc.EvWithdraw})
			return
		}
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
		switch {
		case x.names:
			x.issued++
			env.Send(c, Welcome{N: int32(x.ni), Name: name})
		case x.modified:
			env.Send(c, AdmitW{N: int32(x.ni), W: x.wr})
		default:
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
	case Deposit:
		x.deposit(env, m.Level, m.N)
	case AdmitW:
		x.wr = m.W
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
	x.flush(env)
	x.maybeEcho(env)
}

// setIteration takes iteration i's parameters: U_i = 3n_i for both
// controllers, W for CONTROLLER-R, W^N_i = n_i for CONTROLLER-N.
func (x *MainNode) setIteration(ni int64) {
	x.ni = ni
	x.r.lam = Lambda(x.wr, 3*ni)
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
// but ends the iteration (§5). In the modified controller's stages before
// the last, CONTROLLER-R's does not reject either: its running dry is the
// stage's main controller terminating (§6.1), and it ends the iteration
// as CONTROLLER-N's does, marking the stage's end. The bank's withdrawal
// controller is the exception that waits: its root bin is the bank, and a
// withdrawal it cannot serve waits there for deposits, in order (§6.3).
func (x *MainNode) rootServe(env proc.Env, c int, it item) {
	b := x.bin(c)
	size := Cap(b.lam, it.level)
	if b.global >= size && (c == ctlN || len(x.waiting) == 0) {
		b.global -= size
		b.gLo += size
		x.send(env, c, it, ansPermit, b.gLo-size)
		return
	}
	if c == ctlR && x.bank {
		x.wait(env, it)
		return
	}
	// The root bin cannot serve: CONTROLLER-R's rejects in the main
	// controller and the last stage; otherwise the request waits for the
	// next iteration, which this one's end starts.
	if c == ctlR && x.final {
		if x.phase == running {
			x.send(env, c, it, ansReject, 0)
			if !x.signal {
				x.signal = true
				env.Emit(proc.Event{Kind: proc.EvExhausted})
			}
			return
		}
		x.send(env, c, it, ansLater, 0)
		return
	}
	x.send(env, c, it, ansLater, 0)
	if c == ctlR && x.phase == running {
		// Not while closing: the root's bins are emptied into the
		// collection then, and the stage ends only if the count finds
		// it exhausted.
		x.stageEnd = true
	}
	switch {
	case x.phase != running || x.closeAfter:
	case x.wave.Active():
		x.closeAfter = true
	default:
		x.close(env)
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
	x.unwait(env)
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
	case opStage:
		x.wr = b.Arg
		x.ready(env, 0)
	case opStart:
		x.startIteration(b.Arg)
		x.ready(env, 0)
		x.resourceR(env)
		x.resourceN(env)
		x.flush(env)
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
	left := x.r.local + x.r.global + x.dl + x.dg
	x.dl, x.dg = 0, 0
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
		x.next = sum
		if x.stage(x.m) {
			x.waveOp = opStage
			x.wave.Begin(env, &x.part, opStage, x.wr)
			x.ready(env, 0)
			return
		}
		x.begin(env, sum, x.m)
	case opStage:
		x.begin(env, x.next, x.m)
	case opStart:
		if x.closeAfter {
			x.close(env)
		}
	}
}

// stage decides, at the end of an iteration of the modified controller
// with m permits collected, whether a stage begins: the first, one after
// a stage whose CONTROLLER-R's root bin ran dry, or one after a stage
// whose main controller is exhausted (m ≤ W_s, §5). The stage's main
// controller runs with (m, m/2) (§6.1), the last one, once m/2 ≤ W, with
// (m, W).
func (x *MainNode) stage(m int64) bool {
	if !x.modified || x.final || !x.stageEnd && m > x.wr {
		return false
	}
	x.stageEnd = false
	x.Stages = append(x.Stages, m)
	x.wr = m / 2
	if x.wr <= x.waste {
		x.wr, x.final = x.waste, true
	}
	return true
}

// begin starts an iteration with ni participants and m unused permits:
// CONTROLLER-N with (2n_i, n_i), CONTROLLER-R with (m, W), both with
// U = 3n_i. With m ≤ W the resource counts as exhausted: CONTROLLER-R's
// root rejects whatever reaches it.
func (x *MainNode) begin(env proc.Env, ni, m int64) {
	x.Counts = append(x.Counts, ni)
	if x.bank {
		m, x.late = m+x.late, 0
	} else if m <= x.waste {
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
	x.flush(env)
}

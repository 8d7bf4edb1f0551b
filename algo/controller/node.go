package controller

import (
	"fmt"
	"math/bits"

	"github.com/allot-dev/allot/algo/spantree"
	"github.com/allot-dev/allot/proc"
)

type phase uint8

const (
	idle    phase = iota // no iteration yet: the tree or the first parameters are on their way
	running              // serving requests, refilling bins from supervisors
	closing              // the collection reached this node: no more refills
	closed               // this node's bins were counted and emptied
)

// The operations of the modified controller's waves.
const (
	opCollect uint8 = iota + 1 // end the iteration; echo the bins' contents
	opStart                    // begin an iteration; Arg is Λ's exponent
)

// answer is what a supervisor (or the relaying nodes) send down.
type answer uint8

const (
	ansPermit answer = iota
	ansReject
	ansLater
)

func (a answer) msg() proc.Message {
	switch a {
	case ansPermit:
		return Permit{}
	case ansReject:
		return Reject{}
	}
	return Later{}
}

// item is a request for permits waiting at a node's DELIVERY-PROCESS:
// from a child link, or from this node's own local bin (from == self).
type item struct {
	from  proc.ID
	level int8
}

// Node is one node of a controller: its local bin (RESOURCE-REQUEST, Fig.
// 3) and its global bin (DELIVERY-PROCESS, Fig. 4, or at the root
// ROOT-DELIVERY-PROCESS, Fig. 5), on the spanning tree it builds.
type Node struct {
	tree spantree.Node
	wave spantree.Wave
	nbrs []proc.ID
	self proc.ID
	root bool
	iter bool // the modified controller (iterations), else the basic one
	lam  int  // Λ = 2^lam, or lamZero

	phase         phase
	local, global int64 // permits in b_l(v) and b_g(v)
	exhL, exhG    bool  // a reject came to the local / global bin (not Not-Exhausted)

	// The RESOURCE-REQUEST procedure.
	want     bool // the application waits for an answer
	asked    bool // the local bin's refill request is out
	deferred bool // it was answered Later: wait for the next iteration

	// The DELIVERY-PROCESS: it waits for its parent's answer to one
	// request at a time, queueing what arrives meanwhile.
	blocked bool
	relay   bool // the request out is a relayed one, not a refill
	cur     item
	queue   []item

	// The root.
	budget, waste int64
	m             int64 // M_i, the permits of this iteration
	final         bool  // this iteration rejects (and signals) when empty
	signal        bool  // the exhausted signal was generated
	waveOp        uint8
	closeAfter    bool // the root ran dry during a start wave
	Iterations    int  // iterations begun (the root only; for tests)
}

// lamZero stands for Λ = 0 (W = 0): every bin has capacity 1.
const lamZero = -1 << 20

// Cap is Cap(b) = max{Λ·2^Level(b), 1} of a bin at level l, Λ = 2^lam.
func Cap(lam int, l int8) int64 {
	e := lam + int(l)
	if lam == lamZero || e < 0 {
		return 1
	}
	return 1 << e
}

func (n *Node) capOf(l int8) int64 { return Cap(n.lam, l) }

// Level is Level(b_g(v)) = max{i : 2^i divides D(v)} of the global bin of
// a node at depth D(v) ≥ 1 (Definition 4.1.1).
func Level(depth int) int8 { return int8(bits.TrailingZeros(uint(depth))) }

func (n *Node) level() int8 { return Level(n.tree.Depth) }

// Start implements proc.Process.
func (n *Node) Start(env proc.Env) {
	n.self = env.Self()
	n.tree.Start(env, n.nbrs, n.root)
	if n.root && !n.iter {
		n.phase, n.global, n.final = running, n.budget, true
	}
}

// Request implements proc.Allocator: the RESOURCE-REQUEST procedure.
func (n *Node) Request(env proc.Env, _ proc.Request) {
	n.want = true
	n.resource(env)
}

// Release implements proc.Allocator; permits are consumed, not released.
func (n *Node) Release(proc.Env) {}

// Fire implements proc.Process; the controller arms no timers.
func (n *Node) Fire(proc.Env, proc.Timer) {}

// resource answers the application from the local bin, or asks the
// DELIVERY-PROCESS for a refill (Fig. 3).
func (n *Node) resource(env proc.Env) {
	switch {
	case !n.want:
	case n.local > 0:
		n.local--
		n.want = false
		env.Emit(proc.Event{Kind: proc.EvPermit})
	case n.exhL:
		n.want = false
		env.Emit(proc.Event{Kind: proc.EvReject})
	case !n.asked && !n.deferred && n.tree.Joined && (n.phase == running || n.phase == closing):
		n.asked = true
		n.queue = append(n.queue, item{from: n.self, level: -1})
		n.run(env)
	}
}

// localAnswer is the DELIVERY-PROCESS's answer over the internal link.
func (n *Node) localAnswer(env proc.Env, a answer) {
	n.asked = false
	switch a {
	case ansPermit:
		n.local = n.capOf(-1)
	case ansReject:
		n.exhL = true
	case ansLater:
		n.deferred = true
	}
	n.resource(env)
}

// Deliver implements proc.Process.
func (n *Node) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if ok, joined, built := n.tree.Handle(env, from, m); ok {
		switch {
		case built && n.iter:
			n.begin(env, n.budget)
		case joined && !n.iter:
			n.phase = running
			n.resource(env)
		}
		return
	}
	if ok, b, done, sum := n.wave.Handle(env, &n.tree, from, m); ok {
		if b != nil {
			n.onBroadcast(env, *b)
		}
		if done {
			n.waveDone(env, sum)
		}
		return
	}
	switch m := m.(type) {
	case Req:
		n.queue = append(n.queue, item{from: from, level: m.Level})
		n.run(env)
	case Permit:
		n.onAnswer(env, from, ansPermit)
	case Reject:
		n.onAnswer(env, from, ansReject)
	case Later:
		n.onAnswer(env, from, ansLater)
	default:
		panic(fmt.Sprintf("controller: unexpected %T from %d", m, from))
	}
}

// run handles queued requests until one needs the parent's answer.
func (n *Node) run(env proc.Env) {
	for !n.blocked && len(n.queue) > 0 {
		it := n.queue[0]
		n.queue = n.queue[1:]
		n.handle(env, it)
	}
	if len(n.queue) == 0 {
		n.queue = nil
	}
	n.maybeEcho(env)
}

// handle is one turn of the DELIVERY-PROCESS loop (Fig. 4) or of the
// ROOT-DELIVERY-PROCESS (Fig. 5).
func (n *Node) handle(env proc.Env, it item) {
	if n.root {
		n.rootServe(env, it)
		return
	}
	up := n.phase == running
	switch {
	case n.level() != it.level+1: // not addressed to this bin: relay
		if !up {
			n.send(env, it, ansLater)
			return
		}
		env.Send(n.tree.Parent, Req{Level: it.level})
		n.blocked, n.relay, n.cur = true, true, it
	case n.global == 0 && !n.exhG: // addressed here, and the bin is empty
		if !up {
			n.send(env, it, ansLater)
			return
		}
		env.Send(n.tree.Parent, Req{Level: n.level()})
		n.blocked, n.relay, n.cur = true, false, it
	default:
		n.serve(env, it)
	}
}

// serve satisfies a request from the global bin, or rejects it.
func (n *Node) serve(env proc.Env, it item) {
	if n.global > 0 {
		n.global -= n.capOf(it.level)
		n.send(env, it, ansPermit)
		return
	}
	n.exhG = true
	n.send(env, it, ansReject)
}

// rootServe is ROOT-DELIVERY-PROCESS: it never waits.
func (n *Node) rootServe(env proc.Env, it item) {
	size := n.capOf(it.level)
	switch {
	case n.global >= size:
		n.global -= size
		n.send(env, it, ansPermit)
	case n.phase != running || n.closeAfter:
		n.send(env, it, ansLater)
	case n.final:
		n.send(env, it, ansReject)
		if !n.signal {
			n.signal = true
			env.Emit(proc.Event{Kind: proc.EvExhausted})
		}
	default: // the iteration's bin ran dry: collect what is left, then go on
		n.send(env, it, ansLater)
		if n.wave.Active() {
			n.closeAfter = true
		} else {
			n.close(env)
		}
	}
}

func (n *Node) send(env proc.Env, it item, a answer) {
	if it.from == n.self {
		n.localAnswer(env, a)
		return
	}
	env.Send(it.from, a.msg())
}

// onAnswer takes the parent's answer to the request out.
func (n *Node) onAnswer(env proc.Env, from proc.ID, a answer) {
	if !n.blocked || from != n.tree.Parent {
		panic(fmt.Sprintf("controller: unasked answer from %d", from))
	}
	n.blocked = false
	it := n.cur
	switch {
	case n.relay:
		n.send(env, it, a)
	case a == ansPermit:
		n.global = n.capOf(n.level())
		n.serve(env, it)
	case a == ansLater:
		n.send(env, it, ansLater)
	default:
		n.exhG = true
		n.send(env, it, ansReject)
	}
	n.run(env)
}

// close ends an iteration at the root: broadcast-and-echo collects every
// bin's permits.
func (n *Node) close(env proc.Env) {
	n.closeAfter = false
	n.phase = closing
	n.waveOp = opCollect
	n.wave.Begin(env, &n.tree, opCollect, 0)
	n.maybeEcho(env)
}

// onBroadcast acts on a wave at a non-root node.
func (n *Node) onBroadcast(env proc.Env, b spantree.Bcast) {
	switch b.Op {
	case opCollect:
		n.phase = closing
		n.maybeEcho(env)
	case opStart:
		n.startIteration(int(b.Arg))
		if done, _ := n.wave.Ready(env, &n.tree, 0); done {
			panic("controller: a start wave finished at a non-root node")
		}
		n.resource(env)
	}
}

// maybeEcho echoes the collection once this node owes and is owed no
// answer: its bins are then settled.
func (n *Node) maybeEcho(env proc.Env) {
	if !n.iter || n.phase != closing || !n.wave.Active() || n.blocked || len(n.queue) > 0 {
		return
	}
	left := n.local + n.global
	n.local, n.global, n.phase = 0, 0, closed
	if done, sum := n.wave.Ready(env, &n.tree, left); done {
		n.waveDone(env, sum)
	}
}

func (n *Node) startIteration(lam int) {
	n.phase, n.lam = running, lam
	n.exhL, n.exhG, n.deferred = false, false, false
}

// waveDone is the root learning that a wave has come back.
func (n *Node) waveDone(env proc.Env, sum int64) {
	switch n.waveOp {
	case opCollect:
		n.begin(env, sum)
	case opStart:
		if n.closeAfter {
			n.close(env)
		}
	}
}

// begin starts iteration i+1 of the modified controller with the m
// permits left (§6.1): while m/2 > W the waste allowed is m/2, so at most
// half the permits stay behind; then the last iteration runs with W itself
// and rejects when its root bin is empty. With W = 0 the last iteration
// has Λ = 0: every bin holds at most one permit on its way, the naive
// controller.
func (n *Node) begin(env proc.Env, m int64) {
	progress := n.Iterations == 0 || m < n.m
	n.Iterations++
	w := n.waste
	n.final = !(m/2 > n.waste) || !progress
	if !n.final {
		w = m / 2
	}
	n.m, n.global, n.local = m, m, 0
	n.startIteration(Lambda(w, int64(n.tree.Size)))
	n.waveOp = opStart
	n.wave.Begin(env, &n.tree, opStart, int64(n.lam))
	if done, _ := n.wave.Ready(env, &n.tree, 0); done {
		n.waveDone(env, 0)
	}
	n.resource(env)
	n.run(env)
}

// Package bank is the distributed bank of Afek, Awerbuch, Plotkin and Saks
// (§6.3): nodes deposit units of money and withdraw them; a withdrawal is
// never granted beyond the deposits, and one is left waiting only while the
// money not yet withdrawn is below W.
//
// It combines two controllers on the bin hierarchy of package controller
// (levels, supervisors, Cap = max{Λ·2^Level, 1}), on the spanning tree of
// package spantree:
//
//   - deposits flow up: a deposit is acknowledged at once and put in the
//     node's local deposit bin; a bin that reaches its capacity sends its
//     whole content to its supervisor (one Deposits message, the count
//     implied by the level), up to the root's bin, the bank;
//   - withdrawals are the basic controller's requests (§4, Figs. 3–5) whose
//     root bin is the bank; the root never rejects: a request it cannot
//     serve waits there, in order, until deposits arrive (§6.3: "waiting
//     until this bin contains a sufficient number of deposits").
//
// Readings: the paper sketches the bank in a paragraph ("two MAIN
// CONTROLLERS ... the controller responsible for withdrawals [never]
// return[s] a rejection"). The deposit controller is read as the
// withdrawal controller run backwards, so that the bank only ever holds
// money deposited (an ordinary controller's root would count permits
// handed out, deposits not yet made). Both run with Λ computed for a waste
// of ⌊W/3⌋ and U = n: money parked in deposit bins, in withdrawal bins, and
// at the bank short of the waiting request's size are each below W/3 or so,
// which keeps a waiting withdrawal's balance below W. W ≥ 1: with W = 0 no
// withdrawal could ever wait (property 3), and one must when the money is
// gone. Every node participates from the start (no MAIN CONTROLLER);
// controller.BankMain is the bank on two MAIN CONTROLLERS, as §6.3 has it.
//
// Not in the catalogue: its requests are deposits and withdrawals, not the
// quota contract's permit requests. A request naming resource Deposit is a
// deposit, any other a withdrawal; the answers are the deposit and withdraw
// events; check.Bank judges them.
package bank

import (
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/controller"
	"github.com/allot-dev/allot/algo/spantree"
	"github.com/allot-dev/allot/proc"
)

// Deposit is the resource a deposit request names.
const Deposit proc.ResID = 1

// Algorithm builds the bank (not in the catalogue; see the package doc).
var Algorithm = algo.Algorithm{
	Name:     "bank",
	Kind:     algo.Quota,
	Summary:  "Afek et al.'s distributed bank: deposits up the bin hierarchy, withdrawals down it, waiting at the root for money",
	Build:    Build,
	Messages: slices.Concat(spantree.Messages, []proc.Message{Deposits{}, Ask{}, Units{}}),
}

// Build returns one node per graph node; process 0 is the root. It reads
// Waste (W ≥ 1); Budget is not read.
func Build(pb *algo.Problem) ([]proc.Process, error) {
	q := *pb
	q.Budget = q.Waste
	if err := controller.Validate(&q); err != nil {
		return nil, err
	}
	if pb.Waste < 1 {
		return nil, fmt.Errorf("bank: W must be at least 1, not %d", pb.Waste)
	}
	n := pb.Graph.N()
	lam := controller.Lambda(int64(pb.Waste/3), int64(n))
	nodes := make([]Node, n)
	ps := make([]proc.Process, n)
	for v := range nodes {
		nodes[v] = Node{nbrs: pb.Graph.Neighbors(proc.ID(v)), root: v == 0, lam: lam}
		ps[v] = &nodes[v]
	}
	return ps, nil
}

// item is a withdrawal request waiting at a node: from a child link, or
// from this node's local bin (from == self).
type item struct {
	from  proc.ID
	level int8
}

// Node is one node of the bank.
type Node struct {
	tree spantree.Node
	nbrs []proc.ID
	self proc.ID
	root bool
	lam  int

	dLocal, dGlobal int64 // deposits parked in the local and global deposit bins
	wLocal, wGlobal int64 // units parked in the withdrawal bins
	bank            int64 // the root: deposits arrived, not yet handed down

	want    bool // the application waits for a withdrawal
	asked   bool // the local withdrawal bin's request is out
	blocked bool // a request to the parent is out
	relay   bool
	cur     item
	queue   []item
	waiting []item // the root: requests waiting for deposits
}

func (n *Node) cap(l int8) int64 { return controller.Cap(n.lam, l) }
func (n *Node) level() int8      { return controller.Level(n.tree.Depth) }

// Start implements proc.Process.
func (n *Node) Start(env proc.Env) {
	n.self = env.Self()
	n.tree.Start(env, n.nbrs, n.root)
}

// Fire implements proc.Process; no timers.
func (n *Node) Fire(proc.Env, proc.Timer) {}

// Release implements proc.Allocator; nothing is held.
func (n *Node) Release(proc.Env) {}

// Request implements proc.Allocator: DEPOSIT-RESOURCE or
// WITHDRAW-RESOURCE.
func (n *Node) Request(env proc.Env, r proc.Request) {
	if len(r.Res) == 1 && r.Res[0] == Deposit {
		env.Emit(proc.Event{Kind: proc.EvDeposit})
		n.dLocal++
		n.flush(env)
		return
	}
	n.want = true
	n.withdraw(env)
}

// flush sends the local deposit bin up each time it is full, once the
// node is in the tree.
func (n *Node) flush(env proc.Env) {
	for n.tree.Joined && n.dLocal >= n.cap(-1) {
		n.dLocal -= n.cap(-1)
		n.deposits(env, -1)
	}
}

// deposits takes Cap(level) deposits from a bin at level below this
// node's global bin, or from this node's own local bin.
func (n *Node) deposits(env proc.Env, level int8) {
	switch {
	case n.root:
		n.bank += n.cap(level)
		n.serveWaiting(env)
	case n.level() != level+1:
		env.Send(n.tree.Parent, Deposits{Level: level})
	default:
		if n.dGlobal += n.cap(level); n.dGlobal >= n.cap(n.level()) {
			n.dGlobal -= n.cap(n.level())
			env.Send(n.tree.Parent, Deposits{Level: n.level()})
		}
	}
}

// withdraw answers the application from the local withdrawal bin, or asks
// for a refill.
func (n *Node) withdraw(env proc.Env) {
	switch {
	case !n.want:
	case n.wLocal > 0:
		n.wLocal--
		n.want = false
		env.Emit(proc.Event{Kind: proc.EvWithdraw})
	case !n.asked && n.tree.Joined:
		n.asked = true
		n.queue = append(n.queue, item{from: n.self, level: -1})
		n.run(env)
	}
}

// Deliver implements proc.Process.
func (n *Node) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if ok, joined, _ := n.tree.Handle(env, from, m); ok {
		if joined {
			n.flush(env)
			n.withdraw(env)
		}
		return
	}
	switch m := m.(type) {
	case Deposits:
		n.deposits(env, m.Level)
	case Ask:
		n.queue = append(n.queue, item{from: from, level: m.Level})
		n.run(env)
	case Units:
		if !n.blocked || from != n.tree.Parent {
			panic(fmt.Sprintf("bank: unasked units from %d", from))
		}
		n.blocked = false
		if n.relay {
			n.answer(env, n.cur)
		} else {
			n.wGlobal = n.cap(n.level())
			n.serve(env, n.cur)
		}
		n.run(env)
	default:
		panic(fmt.Sprintf("bank: unexpected %T from %d", m, from))
	}
}

func (n *Node) run(env proc.Env) {
	for !n.blocked && len(n.queue) > 0 {
		it := n.queue[0]
		n.queue = n.queue[1:]
		switch {
		case n.root:
			n.waiting = append(n.waiting, it)
			n.serveWaiting(env)
		case n.level() != it.level+1:
			env.Send(n.tree.Parent, Ask{Level: it.level})
			n.blocked, n.relay, n.cur = true, true, it
		case n.wGlobal == 0:
			env.Send(n.tree.Parent, Ask{Level: n.level()})
			n.blocked, n.relay, n.cur = true, false, it
		default:
			n.serve(env, it)
		}
	}
	if len(n.queue) == 0 {
		n.queue = nil
	}
}

// serve satisfies a request from the global withdrawal bin.
func (n *Node) serve(env proc.Env, it item) {
	n.wGlobal -= n.cap(it.level)
	n.answer(env, it)
}

// serveWaiting hands the bank's deposits to the waiting requests, in
// order, as far as they go.
func (n *Node) serveWaiting(env proc.Env) {
	for len(n.waiting) > 0 && n.bank >= n.cap(n.waiting[0].level) {
		it := n.waiting[0]
		n.waiting = n.waiting[1:]
		n.bank -= n.cap(it.level)
		n.answer(env, it)
	}
}

// answer sends Cap(it.level) units to the asking bin.
func (n *Node) answer(env proc.Env, it item) {
	if it.from != n.self {
		env.Send(it.from, Units{})
		return
	}
	n.asked = false
	n.wLocal = n.cap(-1)
	n.withdraw(env)
}

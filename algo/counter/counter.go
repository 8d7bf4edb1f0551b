// Package counter is the quota baseline a user builds without Afek et al.:
// one counter of the M permits at the root, and every request relayed to it
// and back along the spanning tree (package spantree, the same tree the
// controllers build).
//
//	v ──Ask{v}──> parent ──Ask{v}──> … ──> root: count < M ? permit : reject
//	v <─Answer{v,ok}─ …  <──────────────── root
//
// Exact (no waste: the first reject comes after exactly M permits), and
// 2·D(v) messages per request, Ω(nM) in all on a line; the root sees every
// request. Relaying nodes remember which child each origin's request came
// through, to route the answer back.
package counter

import (
	"fmt"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/controller"
	"github.com/allot-dev/allot/algo/spantree"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is the catalogue entry.
var Algorithm = algo.Algorithm{
	Name:     "central-counter",
	Kind:     algo.Quota,
	Summary:  "one counter at the root; every request travels up the tree to it and back",
	Build:    Build,
	Messages: messages,
}

// Build returns one node per graph node; process 0 is the root.
func Build(pb *algo.Problem) ([]proc.Process, error) {
	if err := controller.Validate(pb); err != nil {
		return nil, err
	}
	nodes := make([]Node, pb.Graph.N())
	ps := make([]proc.Process, len(nodes))
	for v := range nodes {
		nodes[v].nbrs = pb.Graph.Neighbors(proc.ID(v))
		nodes[v].left = int64(pb.Budget)
		ps[v] = &nodes[v]
	}
	return ps, nil
}

// Node is one node: a relay, and at the root the counter.
type Node struct {
	tree    spantree.Node
	nbrs    []proc.ID
	via     map[int32]proc.ID // origin -> the child its request came from
	left    int64             // the root's permits left
	signal  bool
	pending bool // the application's request waits for the tree
}

// Start implements proc.Process.
func (n *Node) Start(env proc.Env) {
	n.tree.Start(env, n.nbrs, env.Self() == 0)
}

// Request implements proc.Allocator.
func (n *Node) Request(env proc.Env, _ proc.Request) {
	n.pending = true
	n.ask(env)
}

func (n *Node) ask(env proc.Env) {
	if !n.pending || !n.tree.Joined {
		return
	}
	n.pending = false
	n.up(env, Ask{Origin: int32(env.Self())})
}

// up moves a request one hop towards the root, or decides it there.
func (n *Node) up(env proc.Env, a Ask) {
	if n.tree.Parent != proc.None {
		env.Send(n.tree.Parent, a)
		return
	}
	ok := n.left > 0
	if ok {
		n.left--
	} else if !n.signal {
		n.signal = true
		env.Emit(proc.Event{Kind: proc.EvExhausted})
	}
	n.down(env, Answer{Origin: a.Origin, OK: ok})
}

// down moves an answer one hop towards its origin, or delivers it.
func (n *Node) down(env proc.Env, a Answer) {
	if proc.ID(a.Origin) != env.Self() {
		to, ok := n.via[a.Origin]
		if !ok {
			panic(fmt.Sprintf("counter: no route to %d", a.Origin))
		}
		delete(n.via, a.Origin)
		env.Send(to, a)
		return
	}
	kind := proc.EvReject
	if a.OK {
		kind = proc.EvPermit
	}
	env.Emit(proc.Event{Kind: kind})
}

// Deliver implements proc.Process.
func (n *Node) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if ok, joined, _ := n.tree.Handle(env, from, m); ok {
		if joined {
			n.ask(env)
		}
		return
	}
	switch m := m.(type) {
	case Ask:
		if n.via == nil {
			n.via = map[int32]proc.ID{}
		}
		n.via[m.Origin] = from
		n.up(env, m)
	case Answer:
		n.down(env, m)
	default:
		panic(fmt.Sprintf("counter: unexpected %T from %d", m, from))
	}
}

// Release implements proc.Allocator; permits are consumed, not released.
func (n *Node) Release(proc.Env) {}

// Fire implements proc.Process; no timers.
func (n *Node) Fire(proc.Env, proc.Timer) {}

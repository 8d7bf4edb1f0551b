// Package broadcastpool is the pool baseline "broadcasting requests" that
// Carvalho's §1 contrasts R-RESOURCES with on a complete network ("it
// prevents excessive resource migration which may result from broadcasting
// requests"). The paper describes no such algorithm; this is our
// construction of the plain way to do it, and it is not the free-servers
// scheme of Andrews, Dobkin and Downey (PODC 1982) that §4 compares with
// (package hashpool reconstructs that one, with client and allocator
// roles):
//
//	requester ──Ask{seq}──> every other node (n−1 messages, complete graph)
//	          <──Offer{seq, unit}── a node with a free unit (the unit moves)
//	          <──Busy{seq}───────── a node with none
//	all n−1 answered Busy ──> wait a random backoff, ask again
//
// The details:
//
//   - Units are not owned: a node keeps any unit it received and did not
//     use, and every unit it released, as free, and offers it to the next
//     Ask that reaches it. Units start at node 0, as in R-RESOURCES.
//   - A node that is offered several units keeps the extra ones free.
//   - Nothing orders competing requesters, so nothing prevents a
//     conspiracy of faster requesters from starving a node; the random
//     backoff makes each request succeed with probability 1, not within a
//     bound (the weakness §4 names in [A&&82], shared by this scheme).
//   - Backoff: after the k-th all-busy attempt of a request, a uniform
//     draw in [1, min(1024, 16·2^(k-1))] ticks (binary exponential backoff,
//     constants chosen once, not tuned to any workload).
//
// The communication graph is taken as complete whatever --graph says.
package broadcastpool

import (
	"fmt"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is the catalogue entry.
var Algorithm = algo.Algorithm{
	Name:     "broadcast-pool",
	Kind:     algo.Pool,
	Summary:  "broadcast the request, take the first unit offered, back off if none",
	Messages: []proc.Message{Ask{}, Offer{}, Busy{}},
	Timers:   []proc.Timer{Retry{}},
	Build:    Build,
}

// Backoff bounds, in ticks.
const (
	backoffBase = 16
	backoffCap  = 1024
)

// Build returns one node per user, units 0..R-1 at node 0.
func Build(pb *algo.Problem) ([]proc.Process, error) {
	if pb.Kind != algo.Pool {
		return nil, fmt.Errorf("broadcast-pool: solves pool problems, not %s", pb.Kind)
	}
	if pb.Units < 1 || pb.Users < 2 {
		return nil, fmt.Errorf("broadcast-pool: needs at least one unit and two nodes, got %d units on %d nodes", pb.Units, pb.Users)
	}
	nodes := make([]Node, pb.Users)
	ps := make([]proc.Process, pb.Users)
	for p := range nodes {
		nodes[p].n = pb.Users
		nodes[p].unit = -1
		ps[p] = &nodes[p]
	}
	for r := range pb.Units {
		nodes[0].free = append(nodes[0].free, int32(r))
	}
	return ps, nil
}

// Node is one node: a user and a holder of free units.
type Node struct {
	n       int
	free    []int32 // units here, not in use, oldest first
	waiting bool
	unit    int32  // the unit in use, -1 none
	seq     uint32 // the current attempt
	busy    int    // Busy answers to the current attempt
	tries   int    // all-busy attempts of the current request
}

func (x *Node) Start(proc.Env) {}

// Request uses a free unit at hand, or asks everyone.
func (x *Node) Request(env proc.Env, _ proc.Request) {
	x.waiting, x.tries = true, 0
	if len(x.free) > 0 {
		x.use(env, x.take())
		return
	}
	x.ask(env)
}

// Release keeps the unit here, free.
func (x *Node) Release(proc.Env) {
	x.free = append(x.free, x.unit)
	x.unit = -1
}

func (x *Node) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch m := m.(type) {
	case Ask:
		if len(x.free) > 0 {
			env.Send(from, Offer{m.Seq, x.take()})
		} else {
			env.Send(from, Busy(m))
		}
	case Offer:
		env.Emit(proc.Event{Kind: proc.EvMove, Unit: m.Unit, Peer: from})
		if x.waiting {
			x.use(env, m.Unit)
		} else {
			x.free = append(x.free, m.Unit)
		}
	case Busy:
		if x.waiting && m.Seq == x.seq {
			if x.busy++; x.busy == x.n-1 {
				x.tries++
				window := min(backoffCap, backoffBase<<min(x.tries-1, 10))
				env.After(proc.Time(1+env.Rand().Int64N(int64(window))), Retry{x.seq})
			}
		}
	default:
		panic(fmt.Sprintf("broadcast-pool: got %T", m))
	}
}

func (x *Node) Fire(env proc.Env, t proc.Timer) {
	if r, ok := t.(Retry); ok && x.waiting && r.Seq == x.seq {
		x.ask(env)
	}
}

func (x *Node) ask(env proc.Env) {
	x.seq++
	x.busy = 0
	self := env.Self()
	for q := range x.n {
		if proc.ID(q) != self {
			env.Send(proc.ID(q), Ask{x.seq})
		}
	}
}

func (x *Node) use(env proc.Env, r int32) {
	x.waiting, x.unit = false, r
	env.Emit(proc.Event{Kind: proc.EvGrant, Unit: r})
}

func (x *Node) take() int32 {
	r := x.free[0]
	x.free = x.free[1:]
	return r
}

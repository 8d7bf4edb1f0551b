// Package hygienic is Chandy and Misra's hygienic dining philosophers, as
// summarized in Sivilotti, Pike and Sridhar §3.
//
// One fork lies on each edge of the conflict graph; a process eats only
// holding all its forks. A fork is clean or dirty: a fork is cleaned when it
// is sent, and every fork a process holds turns dirty when it eats. The
// holder of a dirty fork has lower priority than its neighbour over that
// edge, so the forks encode a partial order; eating makes all of a process's
// forks dirty, lowering it below all its neighbours, which keeps the order
// acyclic. One request token per edge lets a process ask for the fork.
//
//	hungry, no fork, token  ──token──>  holder
//	holder: fork dirty and not eating ──fork (now clean)──> asker
//	        (and, if hungry itself, ──token──> to ask it back)
//	holder: fork clean, or eating      keep the token, answer after eating
//
// Initially each fork is dirty at the endpoint with the smaller id and the
// token at the larger, so the initial priority order is by id (larger id
// first): acyclic.
//
// Readings and choices:
//   - Messages carry no payload: there is exactly one fork and one token per
//     edge, and the sender identifies the edge.
//   - For dynamic workloads (users request subsets of resources) the conflict
//     graph comes from each user's maximum resource set (algo.Problem.
//     Conflict: declared with fixed sets, else every resource, which makes
//     the graph complete). A user collects the forks of all its conflict
//     neighbours whatever subset it asks for this time: that is what the
//     algorithm needs for exclusion over a static conflict graph.
package hygienic

import (
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is the catalogue entry.
var Algorithm = algo.Algorithm{
	Name:    "hygienic",
	Kind:    algo.Exclusive,
	Summary: "Chandy–Misra clean/dirty forks, request tokens, acyclic priority",
	Build:   Build,

	Messages: []proc.Message{Fork{}, Token{}},
}

// Fork hands over the fork of the edge between sender and receiver.
type Fork struct{}

// Token asks for that fork.
type Token struct{}

func (Fork) Kind() string  { return "fork" }
func (Token) Kind() string { return "token" }

// Build returns one process per user over the problem's conflict graph.
func Build(pb *algo.Problem) ([]proc.Process, error) {
	if _, err := pb.ConflictGraph(); err != nil {
		return nil, err
	}
	if pb.Kind != algo.Exclusive || pb.Conflict == nil {
		return nil, fmt.Errorf("hygienic: needs an exclusive problem with a conflict graph")
	}
	ps := make([]proc.Process, pb.Users)
	nodes := make([]Node, pb.Users)
	for u := range nodes {
		nodes[u].init(proc.ID(u), pb.Conflict.Neighbors(proc.ID(u)))
		ps[u] = &nodes[u]
	}
	return ps, nil
}

// Per-edge state bits.
const (
	hasFork  uint8 = 1 << iota // this process holds the fork
	dirty                      // the fork it holds is dirty
	hasToken                   // this process holds the request token
)

type state uint8

const (
	thinking state = iota
	hungry
	eating
)

// Node is one philosopher. A node of degree at most smallDegree keeps its
// neighbours inside itself and fits one 64-byte cache line, so that
// handling a message costs one cache miss: in a large simulation that miss
// is most of the cost.
type Node struct {
	res       []proc.ResID         // the request being served
	big       *neighbours          // when the degree exceeds smallDegree
	forks     int32                // forks held
	deg       uint8                // number of neighbours, when small
	state     state                // thinking, hungry, eating
	smallEdge [smallDegree]uint8   // per neighbour: hasFork, dirty, hasToken
	smallNbr  [smallDegree]proc.ID // conflict neighbours, sorted
}

type neighbours struct {
	nbr  []proc.ID // sorted, shared with the graph
	edge []uint8
	// When the neighbours are every id from first to last but one, gap
	// (on complete:N, the node itself; else past the last), dense is set
	// and a neighbour's index is found without loading nbr: on
	// complete:5000 the loads of a search in 4999 neighbours, cache misses
	// all, were 16 of the 29 s of a run.
	dense            bool
	first, last, gap proc.ID
}

const smallDegree = 4

// nbr and edge return the neighbours and their per-edge state.
func (n *Node) nbr() []proc.ID {
	if n.big != nil {
		return n.big.nbr
	}
	return n.smallNbr[:n.deg]
}

func (n *Node) edge() []uint8 {
	if n.big != nil {
		return n.big.edge
	}
	return n.smallEdge[:n.deg]
}

func (n *Node) init(self proc.ID, nbr []proc.ID) {
	if len(nbr) <= smallDegree {
		n.deg = uint8(copy(n.smallNbr[:], nbr))
	} else {
		n.big = &neighbours{nbr: nbr, edge: make([]uint8, len(nbr))}
		b := n.big
		b.first, b.last = nbr[0], nbr[len(nbr)-1]
		switch int(b.last - b.first) {
		case len(nbr) - 1:
			b.dense, b.gap = true, b.last+1
		case len(nbr):
			b.dense = true
			for i := 1; i < len(nbr); i++ {
				if nbr[i] != nbr[i-1]+1 {
					b.gap = nbr[i-1] + 1
					break
				}
			}
		}
	}
	edge := n.edge()
	for i, q := range nbr {
		if self < q {
			edge[i] = hasFork | dirty
			n.forks++
		} else {
			edge[i] = hasToken
		}
	}
}

func (n *Node) index(q proc.ID) int {
	if n.big == nil {
		for i, p := range n.smallNbr[:n.deg] {
			if p == q {
				return i
			}
		}
	}
	if b := n.big; b != nil && b.dense && q >= b.first && q <= b.last && q != b.gap {
		i := int(q - b.first)
		if q > b.gap {
			i--
		}
		return i
	}
	i, ok := slices.BinarySearch(n.nbr(), q)
	if !ok {
		panic(fmt.Sprintf("hygienic: message from non-neighbour %d", q))
	}
	return i
}

func (n *Node) Start(proc.Env)            {}
func (n *Node) Fire(proc.Env, proc.Timer) {}

// Request makes the philosopher hungry.
func (n *Node) Request(env proc.Env, r proc.Request) {
	n.state = hungry
	n.res = r.Res
	edge, nbr := n.edge(), n.nbr()
	for i, e := range edge {
		if e&hasFork == 0 && e&hasToken != 0 {
			edge[i] = e &^ hasToken
			env.Send(nbr[i], Token{})
		}
	}
	n.tryEat(env)
}

// Release ends eating: deferred requests get their forks.
func (n *Node) Release(env proc.Env) {
	n.state = thinking
	edge, nbr := n.edge(), n.nbr()
	for i, e := range edge {
		if e&hasFork != 0 && e&hasToken != 0 {
			edge[i] = hasToken
			n.forks--
			env.Send(nbr[i], Fork{})
		}
	}
}

func (n *Node) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	i := n.index(from)
	edge := n.edge()
	switch m.(type) {
	case Token:
		e := edge[i] | hasToken
		if e&hasFork != 0 && e&dirty != 0 && n.state != eating {
			e &^= hasFork | dirty
			n.forks--
			env.Send(from, Fork{})
			if n.state == hungry {
				e &^= hasToken
				env.Send(from, Token{})
			}
		}
		edge[i] = e
	case Fork:
		edge[i] = edge[i]&^dirty | hasFork
		n.forks++
		n.tryEat(env)
	default:
		panic(fmt.Sprintf("hygienic: unexpected %T", m))
	}
}

func (n *Node) tryEat(env proc.Env) {
	edge := n.edge()
	if n.state != hungry || int(n.forks) != len(edge) {
		return
	}
	n.state = eating
	for i := range edge {
		edge[i] |= dirty
	}
	env.Emit(proc.Event{Kind: proc.EvEnter, Res: n.res})
}

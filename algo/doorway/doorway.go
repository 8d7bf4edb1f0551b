// Package doorway implements Choy and Singh's dining philosophers with
// fork collection at a threshold point behind an asynchronous doorway, as
// summarized by Sivilotti, Pike and Sridhar §4 (Choy and Singh, TOPLAS
// 17(3), 1995). A crash starves processes at most three hops away (failure
// locality 3). It needs FIFO channels.
//
//	thinking ──hungry──> at the doorway ──all acks──> inside ──> eating ──> thinking
//	                     (ask every neighbour)        (collect forks: low first,
//	                                                   then high)
//
// # Static priorities (§4.1)
//
// A greedy colouring in id order gives every process the smallest colour
// none of its smaller-id neighbours has: at most δ+1 colours, neighbours
// always differ. A lower colour is a higher priority. A neighbour with a
// lower colour is a low neighbour (it has priority), one with a higher
// colour a high neighbour.
//
// # Fork collection (§4.2)
//
// One fork and one request token per edge; a process asks for a fork by
// sending the token, and a fork it gives up while it still wants it travels
// with the token (the asking back).
//
//   - Inside the doorway, p first asks for its missing low forks. Until it
//     holds them all it gives any requested fork to anyone.
//   - Holding every low fork, p is at its threshold point: it asks for its
//     missing high forks and defers the requests of high neighbours.
//   - A request from a low neighbour preempts p: p gives that fork up, is no
//     longer at its threshold point, and so also gives up the forks its high
//     neighbours asked for and it deferred. Then it starts over.
//   - Holding every fork, p eats; it defers every request while eating.
//
// # The asynchronous doorway (§4.4)
//
// A hungry process asks every neighbour to pass the doorway and passes it
// when all have answered. A neighbour inside the doorway (collecting forks
// or eating) answers only when it leaves (when it stops eating); any other
// answers at once. So a neighbour that ate cannot come back before a process
// that was already inside when it asked has eaten: no unbounded overtaking
// by the statically higher-priority neighbours.
//
// # Readings and deviations
//
//   - The summary in §4 does not say how requests are carried; we use the
//     request tokens of the hygienic algorithm (§3), which bound the
//     messages in flight on an edge to one fork and one token.
//   - A process outside the doorway gives up requested forks and keeps its
//     token: it asks for them once inside.
//   - A process not yet at its threshold point asks low forks back when it
//     gives them up (the token travels along), but asks for high forks only
//     at its threshold point (low forks first, then high). Two neighbours
//     that are both short of their threshold points may hand a fork back and
//     forth until one of them gets its other low forks: the scheme as §4.2
//     describes it; it costs messages, not progress.
//   - The colouring is computed when the processes are built (Choy and
//     Singh precompute it); it is not a distributed colouring protocol.
//   - The initial forks lie at the high end of each edge (the lower
//     priority), the tokens at the low end.
//
// # FIFO channels
//
// Choy and Singh prove the algorithm for FIFO channels only, so the
// catalogue entry sets NeedsFIFO: the simulator's command line refuses to
// run it on unordered channels and tells the user to pass --fifo. (With the
// request tokens above, this reading also passed the conformance suite on
// unordered channels; the guarantee we claim is still only the paper's.)
package doorway

import (
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is the catalogue entry.
var Algorithm = algo.Algorithm{
	Name:      "doorway",
	Kind:      algo.Exclusive,
	Summary:   "Choy–Singh static colours, threshold fork collection, asynchronous doorway (Sivilotti–Pike–Sridhar §4): failure locality 3, FIFO channels",
	NeedsFIFO: true,
	Build:     Build,

	Messages: []proc.Message{Fork{}, Req{}, Door{}, Ack{}},
}

// Fork hands over the fork of the edge; with Req the sender asks it back.
type Fork struct{ Req bool }

// Req is the request token: its arrival asks for the fork.
type Req struct{}

// Door asks the receiver to let the sender pass the doorway.
type Door struct{}

// Ack lets the receiver pass the doorway.
type Ack struct{}

func (Fork) Kind() string { return "fork" }
func (Req) Kind() string  { return "request" }
func (Door) Kind() string { return "door" }
func (Ack) Kind() string  { return "ack" }

// Colors is the greedy colouring of g in id order: each node gets the
// smallest colour (from 0) none of its smaller-id neighbours has. It uses at
// most MaxDegree()+1 colours.
func Colors(g *graph.Graph) []int32 {
	c := make([]int32, g.N())
	var used []bool
	for p := 0; p < g.N(); p++ {
		used = used[:0]
		used = append(used, make([]bool, g.Degree(proc.ID(p))+1)...)
		for _, q := range g.Neighbors(proc.ID(p)) {
			if int(q) < p && int(c[q]) < len(used) {
				used[c[q]] = true
			}
		}
		c[p] = int32(slices.Index(used, false))
	}
	return c
}

// NoDoorway is the fork collection of §4.2 with static priorities and no
// doorway: a hungry process goes straight to collecting forks. §4.4 says it
// is not correct: "high-priority processes maintain their high priority
// even after eating. Consequently, such processes can cycle around to
// preempt lower-priority processes infinitely often." It is not in the
// catalogue; the failure-locality study runs it to show that overtaking.
var NoDoorway = algo.Algorithm{
	Name:      "doorway/no-doorway",
	Kind:      algo.Exclusive,
	Summary:   "NOT CORRECT on purpose (§4.4): " + Algorithm.Summary + ", without the doorway",
	NeedsFIFO: true,
	Build:     func(pb *algo.Problem) ([]proc.Process, error) { return build(pb, true) },

	Messages: []proc.Message{Fork{}, Req{}},
}

// Build builds one process per user over the problem's conflict graph.
func Build(pb *algo.Problem) ([]proc.Process, error) { return build(pb, false) }

func build(pb *algo.Problem, noDoor bool) ([]proc.Process, error) {
	if _, err := pb.ConflictGraph(); err != nil {
		return nil, err
	}
	if pb.Kind != algo.Exclusive || pb.Conflict == nil {
		return nil, fmt.Errorf("doorway: needs an exclusive problem with a conflict graph")
	}
	g := pb.Conflict
	if g.N() != pb.Users {
		return nil, fmt.Errorf("doorway: conflict graph has %d nodes for %d users", g.N(), pb.Users)
	}
	col := Colors(g)
	ps := make([]proc.Process, pb.Users)
	for u := range ps {
		id := proc.ID(u)
		nb := g.Neighbors(id)
		p := &Proc{id: id, nbr: nb, flag: make([]uint8, len(nb)), noDoor: noDoor}
		for i, q := range nb {
			if col[q] < col[u] { // q has priority: the fork starts here
				p.flag[i] = fLow | fFork
			} else {
				p.flag[i] = fTok
			}
		}
		ps[u] = p
	}
	return ps, nil
}

// Per-neighbour state bits.
const (
	fFork  uint8 = 1 << iota // holds the fork
	fTok                     // holds the request token
	fLow                     // the neighbour is a low neighbour (has priority)
	fAck                     // at the doorway: the neighbour has answered
	fDefer                   // the neighbour asked to pass the doorway; answer on leaving
)

type phase uint8

const (
	thinking phase = iota
	door           // hungry, at the doorway
	inside         // hungry, past the doorway, collecting forks
	eating
)

// Proc is one philosopher.
type Proc struct {
	id    proc.ID
	nbr   []proc.ID
	flag  []uint8
	state phase
	acks  int
	res   []proc.ResID
	// noDoor: no doorway (NoDoorway), a request goes straight inside.
	noDoor bool
}

var _ proc.Allocator = (*Proc)(nil)

func (p *Proc) Start(proc.Env)            {}
func (p *Proc) Fire(proc.Env, proc.Timer) {}

// Request implements proc.Allocator: ask every neighbour to pass the doorway.
func (p *Proc) Request(env proc.Env, r proc.Request) {
	p.res = r.Res
	if p.noDoor {
		p.state = inside
		p.step(env)
		return
	}
	p.state = door
	p.acks = 0
	for i, q := range p.nbr {
		p.flag[i] &^= fAck
		env.Send(q, Door{})
	}
	if len(p.nbr) == 0 {
		p.state = inside
	}
	p.step(env)
}

// Release implements proc.Allocator: leave the doorway, answer the deferred
// doorway requests and fork requests.
func (p *Proc) Release(env proc.Env) {
	p.state = thinking
	for i, f := range p.flag {
		if f&fDefer != 0 {
			p.flag[i] = f &^ fDefer
			env.Send(p.nbr[i], Ack{})
		}
	}
	p.step(env)
}

func (p *Proc) index(q proc.ID) int {
	i, ok := slices.BinarySearch(p.nbr, q)
	if !ok {
		panic(fmt.Sprintf("doorway: process %d got a message from non-neighbour %d", p.id, q))
	}
	return i
}

// Deliver implements proc.Process.
func (p *Proc) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	i := p.index(from)
	f := p.flag[i]
	switch m := m.(type) {
	case Door:
		if p.state == inside || p.state == eating {
			p.flag[i] = f | fDefer
		} else {
			env.Send(from, Ack{})
		}
		return
	case Ack:
		if p.state != door || f&fAck != 0 {
			panic(fmt.Sprintf("doorway: %d got an unexpected doorway answer from %d", p.id, from))
		}
		p.flag[i] = f | fAck
		if p.acks++; p.acks == len(p.nbr) {
			p.state = inside
		}
	case Req:
		if f&fTok != 0 {
			panic(fmt.Sprintf("doorway: %d got a second request token from %d", p.id, from))
		}
		p.flag[i] = f | fTok
	case Fork:
		if f&fFork != 0 || (m.Req && f&fTok != 0) {
			panic(fmt.Sprintf("doorway: %d got a second fork or token from %d", p.id, from))
		}
		f |= fFork
		if m.Req {
			f |= fTok
		}
		p.flag[i] = f
	default:
		panic(fmt.Sprintf("doorway: unexpected message %T", m))
	}
	p.step(env)
}

// lowComplete reports whether p holds every low fork.
func (p *Proc) lowComplete() bool {
	for _, f := range p.flag {
		if f&(fLow|fFork) == fLow {
			return false
		}
	}
	return true
}

// step runs every enabled action.
func (p *Proc) step(env proc.Env) {
	if p.state == eating {
		return
	}
	in := p.state == inside
	// Requests from low neighbours are always served (outside the doorway,
	// short of the threshold point, or as a preemption at it); inside, the
	// low fork is asked back at once.
	for i, f := range p.flag {
		if f&(fLow|fFork|fTok) == fLow|fFork|fTok {
			env.Send(p.nbr[i], Fork{Req: in})
			if in {
				p.flag[i] = f &^ (fFork | fTok)
			} else {
				p.flag[i] = f &^ fFork
			}
		}
	}
	tp := in && p.lowComplete()
	// Requests from high neighbours wait only at the threshold point.
	if !tp {
		for i, f := range p.flag {
			if f&(fLow|fFork|fTok) == fFork|fTok {
				env.Send(p.nbr[i], Fork{})
				p.flag[i] = f &^ fFork
			}
		}
	}
	if !in {
		return
	}
	all := true
	for i, f := range p.flag {
		if f&fFork != 0 {
			continue
		}
		all = false
		if f&fTok != 0 && (f&fLow != 0 || tp) {
			env.Send(p.nbr[i], Req{})
			p.flag[i] = f &^ fTok
		}
	}
	if all {
		p.state = eating
		env.Emit(proc.Event{Kind: proc.EvEnter, Res: p.res})
	}
}

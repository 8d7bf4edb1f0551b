// Package hashpool is a pool baseline after the "free servers" of Andrews,
// Dobkin and Downey, "Distributed allocation with pools of servers" (PODC
// 1982), the only earlier distributed solution Carvalho's §4 compares
// R-RESOURCES with. Neither that paper nor its abstract is in our reading
// list; what we could recover of it comes from Carvalho's §4 alone:
//
//   - it is called the "free servers" problem;
//   - it needs a communication medium connecting every node to every
//     other;
//   - it distinguishes "client" and "allocator" nodes;
//   - message traffic and waiting time are not bounded as the load factor
//     approaches 1, and a conspiracy can starve a node even at low demand.
//
// How clients find allocators is not said there. We address them by
// hashing, the usual way to spread a directory without a coordinator: this
// is our construction from those four facts, not a transcription, and its
// constants are ours.
//
//	client c ──Ask{seq}──> allocator h(c, attempt)      (one at a time)
//	         <──Busy{seq}── no free unit registered there: ask the next
//	                        allocator; all A busy: back off, start again
//	allocator ──Forward{unit, c}──> holder p of a free unit
//	holder p ──Give{unit}──> c (the unit moves straight to its next user)
//	c, on release ──Free{unit}──> allocator h(unit): "unit is free here"
//
// The details:
//
//   - A allocators are extra processes, ids n..n+A−1 after the n clients
//     (option allocators=A; default ⌈√n⌉). An allocator only keeps names:
//     the free units registered with it and where each one is parked.
//   - A free unit stays parked at the client that released it until an
//     allocator forwards it; that client does not reuse it on its own.
//     Unit u is always registered with allocator h(u) = mix(u) mod A.
//   - Attempt k of client c (k counts all its attempts) asks allocator
//     mix(c, k) mod A first, then the next ones in turn until one has a
//     unit or all A said busy.
//   - Backoff as broadcast-pool's: after the k-th all-busy round, a
//     uniform draw in [1, min(1024, 16·2^(k−1))] ticks.
//   - Nothing orders competing clients, so nothing bounds how often one
//     loses: the weakness §4 names.
//
// Units start parked at client 0, registered with their allocators. The
// communication graph is taken as complete whatever --graph says.
package hashpool

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is the catalogue entry.
var Algorithm = algo.Algorithm{
	Name:     "hash-pool",
	Kind:     algo.Pool,
	Summary:  "free servers after Andrews–Dobkin–Downey: clients probe hash-addressed allocators that know where free units are parked",
	Options:  []string{"allocators"},
	Messages: []proc.Message{Ask{}, Busy{}, Forward{}, Give{}, Free{}},
	Timers:   []proc.Timer{Retry{}},
	Build:    Build,
}

// Backoff bounds, in ticks (broadcast-pool's).
const (
	backoffBase = 16
	backoffCap  = 1024
)

// Build returns the n clients followed by the allocators.
func Build(pb *algo.Problem) ([]proc.Process, error) {
	if pb.Kind != algo.Pool {
		return nil, fmt.Errorf("hash-pool: solves pool problems, not %s", pb.Kind)
	}
	if pb.Units < 1 || pb.Users < 1 {
		return nil, fmt.Errorf("hash-pool: needs at least one unit and one node, got %d units on %d nodes", pb.Units, pb.Users)
	}
	a := int(math.Ceil(math.Sqrt(float64(pb.Users))))
	for _, k := range slices.Sorted(maps.Keys(pb.Options)) { // the first bad one, the same every time
		v := pb.Options[k]
		n, err := strconv.Atoi(v)
		if k != "allocators" || err != nil || n < 1 {
			return nil, fmt.Errorf("hash-pool: unknown option %s=%s (want allocators=A, A ≥ 1)", k, v)
		}
		a = n
	}
	ps := make([]proc.Process, pb.Users+a)
	clients := make([]Client, pb.Users)
	for c := range clients {
		clients[c] = Client{n: pb.Users, a: a, unit: -1}
		ps[c] = &clients[c]
	}
	allocs := make([]Allocator, a)
	for i := range allocs {
		ps[pb.Users+i] = &allocs[i]
	}
	for u := range pb.Units {
		i := home(int32(u), a)
		allocs[i].free = append(allocs[i].free, parked{int32(u), 0})
	}
	return ps, nil
}

// mix is SplitMix64's finaliser: a fixed hash, the same on every node.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// home is the allocator unit u is registered with, of a.
func home(u int32, a int) int { return int(mix(uint64(u)) % uint64(a)) }

// Client is an application node: it asks allocators for units and parks
// the units it released until an allocator forwards them.
type Client struct {
	n, a    int
	waiting bool
	unit    int32  // in use, -1 none
	seq     uint32 // the current attempt
	probed  int    // allocators asked in the current attempt
	first   int    // the attempt's first allocator
	tries   int    // all-busy rounds of the current request
}

func (c *Client) Start(proc.Env)                       {}
func (c *Client) Request(env proc.Env, _ proc.Request) { c.waiting, c.tries = true, 0; c.attempt(env) }

// Release parks the unit here and registers it as free with its allocator.
func (c *Client) Release(env proc.Env) {
	env.Send(c.allocator(home(c.unit, c.a)), Free{c.unit})
	c.unit = -1
}

func (c *Client) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch m := m.(type) {
	case Busy:
		if !c.waiting || m.Seq != c.seq {
			return
		}
		if c.probed < c.a {
			c.ask(env)
			return
		}
		c.tries++
		window := min(backoffCap, backoffBase<<min(c.tries-1, 10))
		env.After(proc.Time(1+env.Rand().Int64N(int64(window))), Retry{c.seq})
	case Forward:
		if m.To == env.Self() {
			c.use(env, m.Unit)
			return
		}
		env.Send(m.To, Give{m.Unit})
	case Give:
		env.Emit(proc.Event{Kind: proc.EvMove, Unit: m.Unit, Peer: from})
		c.use(env, m.Unit)
	default:
		panic(fmt.Sprintf("hash-pool: client got %T", m))
	}
}

func (c *Client) Fire(env proc.Env, t proc.Timer) {
	if r, ok := t.(Retry); ok && c.waiting && r.Seq == c.seq {
		c.attempt(env)
	}
}

// attempt starts a round of probes at a hashed allocator.
func (c *Client) attempt(env proc.Env) {
	c.seq++
	c.probed = 0
	c.first = int(mix(uint64(env.Self())<<32|uint64(c.seq)) % uint64(c.a))
	c.ask(env)
}

func (c *Client) ask(env proc.Env) {
	env.Send(c.allocator((c.first+c.probed)%c.a), Ask{c.seq})
	c.probed++
}

func (c *Client) allocator(i int) proc.ID { return proc.ID(c.n + i) }

func (c *Client) use(env proc.Env, u int32) {
	c.waiting, c.unit = false, u
	env.Emit(proc.Event{Kind: proc.EvGrant, Unit: u})
}

// parked is a free unit and the client it is parked at.
type parked struct {
	unit int32
	at   proc.ID
}

// Allocator keeps the names of the free units registered with it.
type Allocator struct {
	free []parked // oldest registered first
}

func (x *Allocator) Start(proc.Env)            {}
func (x *Allocator) Fire(proc.Env, proc.Timer) {}

func (x *Allocator) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch m := m.(type) {
	case Ask:
		if len(x.free) == 0 {
			env.Send(from, Busy(m))
			return
		}
		f := x.free[0]
		x.free = x.free[1:]
		env.Send(f.at, Forward{Unit: f.unit, To: from})
	case Free:
		x.free = append(x.free, parked{m.Unit, from})
	default:
		panic(fmt.Sprintf("hash-pool: allocator got %T", m))
	}
}

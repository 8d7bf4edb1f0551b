// Package threshold implements the dynamic threshold-point algorithm for
// dining philosophers of Sivilotti, Pike and Sridhar, "A new distributed
// resource-allocation algorithm with optimal failure locality", §5: the
// dynamic priorities of Chandy and Misra's hygienic algorithm (§3) combined
// with Choy and Singh's threshold points (§4). A crash starves processes at
// most two hops away (failure locality 2, optimal); channels may reorder.
//
// # State
//
// Every edge (p, q) of the conflict graph carries one fork and one request
// token. Process p keeps, per neighbour q, three bits: it holds the fork, it
// holds the request token, and "q has priority over p" (higher). Priority and
// the colour of the fork are the same fact seen two ways (§3): a fork held by
// the higher-priority end is clean, one held by the lower-priority end is
// dirty. So clean(p, q) at p is ¬higher(q), and a fork travels with its
// colour so that the receiver learns the priority.
//
//	p.tp  ≡ p holds the fork of every neighbour with priority over p
//	        (all of its dirty forks: its threshold set)
//
// # Actions (a message-driven reading of the UNITY program of §5.1)
//
//	H  hungry: request (send the token for) each missing fork of a
//	   higher-priority neighbour; once at the threshold point, also each
//	   missing fork of a lower-priority neighbour.
//	P  a requested dirty fork (the requester has priority) is sent, cleaned,
//	   unless p eats; a hungry p sends its own request token along.
//	E  hungry and holding every fork: eat; every fork becomes dirty, so every
//	   neighbour now has priority over p (p lowers itself).
//	R  a requested clean fork is sent, dirtied (p keeps its priority), when p
//	   is not a hungry process at its threshold point and does not eat.
//
// All enabled actions are executed after every input, so a guard never
// stays true unserved (the weak fairness of UNITY).
//
// # Readings of the listing and deviations
//
// The listing of §5.1 is damaged in the conversion and, read literally,
// deadlocks (a process with no higher-priority neighbour is trivially at its
// threshold point and H, guarded by ¬p.tp, never requests its missing
// forks). The readings chosen, each from the prose of §4.2 and §5.1 and the
// proof of §5.2:
//
//   - H requests, before the threshold point, the forks of the threshold set
//     (the neighbours holding a clean fork, i.e. with priority) — the listing
//     writes ¬clean; the prose says "attempts to acquire forks from
//     higher-priority neighbors (i.e. the neighbors in its threshold set)".
//     At the threshold point it requests the remaining forks, as in Choy and
//     Singh's scheme (§4.2: "low forks first, then high"), which §5.3 says
//     this algorithm shares.
//   - P and R are not enabled while p eats (§4.2: "while eating, p defers
//     all fork requests"); the listing omits the guard on P, which would let
//     an eating process lose a fork.
//   - P sends the request token along only when p is hungry (Chandy–Misra);
//     the listing sends it always, which makes the receiver hand the fork
//     straight back to a thinking process. Both are safe; ours saves the
//     round trip.
//   - R's guard is "not (hungry and at the threshold point)" rather than
//     "not at the threshold point". For this algorithm the two coincide (a
//     thinking process never holds a clean fork: forks move only to a
//     hungry requester, who eats before it thinks again, and eating dirties
//     every fork); for the integer-height priorities of package unhygienic a
//     thinking process may hold a fork it has priority on, and must give it.
//   - p knows the priority of a fork it does not hold only as of the last
//     time it held it; the holder may since have eaten and lowered itself.
//     p's belief errs only towards "q has priority", so p's local threshold
//     point implies the true one and p at worst requests a fork it would be
//     sent anyway (P).
//   - The proof of §5.2 writes u.top where Lemmas 1 and 2 have u.bot; we
//     read u.bot.
//
// Initial state (§5.1 "initially"): every process thinks, every fork is
// dirty and held by the lower-priority end, the request token by the other
// end. The initial priorities are by id, the larger id first (as in package
// hygienic, so that both start from the same partial order).
//
// Dynamic workloads (requests naming subsets of resources) run over the
// problem's conflict graph exactly as package hygienic does: a process
// collects the forks of all its conflict neighbours whatever it asks for.
package threshold

import (
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is the catalogue entry.
var Algorithm = algo.Algorithm{
	Name:    "threshold",
	Kind:    algo.Exclusive,
	Summary: "dynamic threshold points (Sivilotti–Pike–Sridhar §5): failure locality 2 on unordered channels",
	Build:   func(pb *algo.Problem) ([]proc.Process, error) { return Build(pb, nil) },

	Messages: []proc.Message{Fork{}, Req{}},
}

// Fork is the fork of an edge in transit.
type Fork struct {
	// Clean is the fork's colour as it arrives: clean means the receiver
	// now has priority over the sender.
	Clean bool
	// Req is true when the sender's request token travels with the fork:
	// the sender wants it back.
	Req bool
	// H is the sender's height (integer-height priorities only).
	H int64
}

// Kind implements proc.Message.
func (Fork) Kind() string { return "fork" }

// Req is the request token of an edge: its arrival asks for the fork.
type Req struct{}

// Kind implements proc.Message.
func (Req) Kind() string { return "request" }

// Rise chooses the new height of a process that starts eating, for
// integer-height priorities (package unhygienic): h is its height, nbr the
// heights of its neighbours (exact, since it holds every fork). The result
// must exceed h and differ from every nbr; a smaller height has priority.
type Rise func(p proc.ID, h int64, nbr []int64) int64

// Build builds the processes of a dining problem. With rise nil the
// priorities are the clean and dirty forks of §5; with rise set they are
// integer heights (§6), process p of n starting at height n-1-p.
func Build(pb *algo.Problem, rise Rise) ([]proc.Process, error) {
	if _, err := pb.ConflictGraph(); err != nil {
		return nil, err
	}
	if pb.Kind != algo.Exclusive || pb.Conflict == nil {
		return nil, fmt.Errorf("dining algorithm: needs an exclusive problem with a conflict graph")
	}
	g := pb.Conflict
	if g.N() != pb.Users {
		return nil, fmt.Errorf("dining algorithm: conflict graph has %d nodes for %d users", g.N(), pb.Users)
	}
	ps := make([]proc.Process, pb.Users)
	for u := range ps {
		id := proc.ID(u)
		nb := g.Neighbors(id)
		p := &Proc{id: id, nbr: nb, flag: make([]uint8, len(nb)), rise: rise}
		if rise != nil {
			p.h = int64(pb.Users - 1 - u)
			p.nh = make([]int64, len(nb))
		}
		for i, q := range nb {
			if q > id { // q has priority: the fork starts here, dirty
				p.flag[i] = fFork | fHigher
			} else { // p has priority: it holds the token
				p.flag[i] = fTok
			}
			if rise != nil {
				p.nh[i] = int64(pb.Users - 1 - int(q))
			}
		}
		if len(nb) >= indexFrom {
			p.ix = newIndex(p.flag)
		}
		ps[u] = p
	}
	return ps, nil
}

// Per-neighbour state bits.
const (
	fFork   uint8 = 1 << iota // p holds the fork
	fTok                      // p holds the request token
	fHigher                   // the neighbour has priority over p (as p last knew)
)

type phase uint8

const (
	thinking phase = iota
	hungry
	eating
)

// Proc is one philosopher.
type Proc struct {
	id    proc.ID
	nbr   []proc.ID // sorted; shared with the graph, never written
	flag  []uint8
	state phase
	res   []proc.ResID // the request being served

	rise Rise    // nil: clean/dirty priorities
	h    int64   // own height (rise != nil)
	nh   []int64 // neighbours' heights as last known (rise != nil)

	ix *index // from indexFrom neighbours on; nil below
}

// set writes flag i, keeping the index.
func (p *Proc) set(i int, f uint8) {
	if p.ix != nil {
		p.ix.move(i, p.flag[i], f)
	}
	p.flag[i] = f
}

var _ proc.Allocator = (*Proc)(nil)

// Start implements proc.Process. Nothing happens until the first request.
func (p *Proc) Start(env proc.Env) {}

// Fire implements proc.Process. The algorithm arms no timers.
func (p *Proc) Fire(env proc.Env, t proc.Timer) {}

// Request implements proc.Allocator: the philosopher becomes hungry.
func (p *Proc) Request(env proc.Env, r proc.Request) {
	p.state, p.res = hungry, r.Res
	p.step(env)
}

// Release implements proc.Allocator: the philosopher goes back to thinking
// and serves the requests it deferred while eating.
func (p *Proc) Release(env proc.Env) {
	p.state, p.res = thinking, nil
	p.step(env)
}

func (p *Proc) index(q proc.ID) int {
	i, ok := slices.BinarySearch(p.nbr, q)
	if !ok {
		panic(fmt.Sprintf("threshold: process %d got a message from non-neighbour %d", p.id, q))
	}
	return i
}

// Deliver implements proc.Process.
func (p *Proc) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	i := p.index(from)
	switch m := m.(type) {
	case Req:
		if p.flag[i]&fTok != 0 {
			panic(fmt.Sprintf("threshold: %d got a second request token from %d", p.id, from))
		}
		p.set(i, p.flag[i]|fTok)
	case Fork:
		if p.flag[i]&fFork != 0 {
			panic(fmt.Sprintf("threshold: %d got a second fork from %d", p.id, from))
		}
		f := p.flag[i]&^fHigher | fFork
		if m.Req {
			if f&fTok != 0 {
				panic(fmt.Sprintf("threshold: %d got a second request token from %d", p.id, from))
			}
			f |= fTok
		}
		if p.rise != nil {
			p.nh[i] = m.H
			if m.H < p.h {
				f |= fHigher
			}
		} else if !m.Clean {
			f |= fHigher // a dirty fork here: the sender keeps priority
		}
		p.set(i, f)
	default:
		panic(fmt.Sprintf("threshold: unexpected message %T", m))
	}
	p.step(env)
}

// atThreshold is p.tp: p holds the fork of every neighbour with priority.
func (p *Proc) atThreshold() bool {
	for _, f := range p.flag {
		if f&(fHigher|fFork) == fHigher {
			return false
		}
	}
	return true
}

// step executes every enabled action: P, then R, then H and E.
func (p *Proc) step(env proc.Env) {
	if p.state == eating {
		return // every request is deferred while eating
	}
	if p.ix != nil {
		p.stepIndexed(env)
		return
	}
	isHungry := p.state == hungry
	// P: a requested dirty fork goes to the neighbour with priority.
	for i, f := range p.flag {
		if f&(fFork|fTok|fHigher) == fFork|fTok|fHigher {
			p.give(env, i, isHungry)
		}
	}
	tp := p.atThreshold()
	// R: not protected by a threshold point, a requested clean fork is
	// given up too; it arrives dirty, so p keeps its priority.
	if !(isHungry && tp) {
		for i, f := range p.flag {
			if f&(fFork|fTok) == fFork|fTok {
				p.yield(env, i)
			}
		}
	}
	if !isHungry {
		return
	}
	// H: request the missing forks of the threshold set, and at the
	// threshold point the others too.
	all := true
	for i, f := range p.flag {
		if f&fFork != 0 {
			continue
		}
		all = false
		if f&fTok != 0 && (f&fHigher != 0 || tp) {
			p.ask(env, i)
		}
	}
	if all {
		p.eat(env)
	}
}

// stepIndexed is step from the index: the same actions in the same
// order, each guard's neighbours found without looking at the others.
func (p *Proc) stepIndexed(env proc.Env) {
	x, isHungry := p.ix, p.state == hungry
	for i := x.give.next(0); i >= 0; i = x.give.next(i + 1) {
		p.give(env, i, isHungry)
	}
	tp := x.short == 0
	if !(isHungry && tp) {
		for i := x.yield.next(0); i >= 0; i = x.yield.next(i + 1) {
			p.yield(env, i)
		}
	}
	if !isHungry {
		return
	}
	asked := x.askUp
	if tp {
		asked = x.ask
	}
	for i := asked.next(0); i >= 0; i = asked.next(i + 1) {
		p.ask(env, i)
	}
	if x.lack == 0 {
		p.eat(env)
	}
}

// give is P for neighbour i: the fork goes, cleaned, and a hungry p's
// request token along.
func (p *Proc) give(env proc.Env, i int, isHungry bool) {
	env.Send(p.nbr[i], Fork{Clean: true, Req: isHungry, H: p.h})
	if isHungry {
		p.set(i, fHigher)
	} else {
		p.set(i, fTok|fHigher)
	}
}

// yield is R for neighbour i: the fork goes, dirtied.
func (p *Proc) yield(env proc.Env, i int) {
	env.Send(p.nbr[i], Fork{Clean: false, H: p.h})
	p.set(i, fTok)
}

// ask is H for neighbour i: the request token goes.
func (p *Proc) ask(env proc.Env, i int) {
	env.Send(p.nbr[i], Req{})
	p.set(i, p.flag[i]&^fTok)
}

// eat is E: eat, and lower the priority below every neighbour (clean and
// dirty forks) or rise by the height rule.
func (p *Proc) eat(env proc.Env) {
	p.state = eating
	if p.rise == nil {
		for i := range p.flag {
			p.set(i, p.flag[i]|fHigher)
		}
	} else {
		h := p.rise(p.id, p.h, p.nh)
		if h <= p.h || slices.Contains(p.nh, h) {
			panic(fmt.Sprintf("threshold: rise rule gave %d a height %d from %d equal to a neighbour's or not higher", p.id, h, p.h))
		}
		p.h = h
		for i := range p.flag {
			if p.nh[i] < h {
				p.set(i, p.flag[i]|fHigher)
			} else {
				p.set(i, p.flag[i]&^fHigher)
			}
		}
	}
	env.Emit(proc.Event{Kind: proc.EvEnter, Res: p.res})
}

package locality

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// Worst cases for failure locality. The dining algorithms of allot start
// from the priority order "the larger id first" (hygienic, threshold,
// unhygienic), so a graph's labelling sets its initial orientation: the
// generators below label nodes to build the orientations that make a crash
// hurt most, and probe finds the crash times that do from a fault-free run
// of the same seed (the simulator is deterministic, and a crash changes
// nothing before it happens).

// oneWayLine is a line of n processes whose priorities all point one way:
// process i+1 has priority over process i, so every process waits, through
// its neighbours, on process n−1. Crashing n−1 as it collects its forks
// builds the hygienic algorithm's waiting chain of length n−1 (§3 of
// Sivilotti, Pike and Sridhar).
func oneWayLine(n int) (*graph.Graph, proc.ID, error) {
	g, err := graph.Parse(fmt.Sprintf("line:%d", n), nil)
	return g, proc.ID(n - 1), err
}

// orientedLine is a line of len(up)+1 processes, laid out left to right,
// whose i-th edge points up (the right end has priority) when up[i]. It
// returns the graph, labelled so that the larger id has priority, and the
// id of each position.
func orientedLine(up []bool) (*graph.Graph, []proc.ID, error) {
	n := len(up) + 1
	// Kahn's algorithm over "has priority over" from the lowest priority:
	// a position is ready when every neighbour it has priority over is
	// labelled.
	below := make([]int, n) // neighbours with less priority, not yet labelled
	for i, u := range up {
		if u {
			below[i+1]++
		} else {
			below[i]++
		}
	}
	id := make([]proc.ID, n)
	var ready []int
	for i := range below {
		if below[i] == 0 {
			ready = append(ready, i)
		}
	}
	next := proc.ID(0)
	for len(ready) > 0 {
		i := ready[0]
		ready = ready[1:]
		id[i] = next
		next++
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= n {
				continue
			}
			// j has priority over i when the edge between them points to j.
			e := min(i, j)
			if (up[e] && j > i) || (!up[e] && j < i) {
				if below[j]--; below[j] == 0 {
					ready = append(ready, j)
				}
			}
		}
	}
	edges := make([][2]proc.ID, 0, n-1)
	for i := 0; i+1 < n; i++ {
		edges = append(edges, [2]proc.ID{id[i], id[i+1]})
	}
	g, err := graph.New(n, edges)
	return g, id, err
}

// randomOrientation draws each edge of a line up with probability p.
func randomOrientation(edges int, p float64, rnd *rand.Rand) []bool {
	up := make([]bool, edges)
	for i := range up {
		up[i] = rnd.Float64() < p
	}
	return up
}

// spider is a centre with legs neighbours, each of which has feet further
// neighbours of its own: the shape in which a crash of the centre reaches
// two hops through every neighbour that waits on it. Nodes are labelled at
// random (a random initial orientation); the centre's id is returned.
// Labelling the centre 0 makes every neighbour a priority neighbour of it.
func spider(legs, feet int, centreZero bool, rnd *rand.Rand) (*graph.Graph, proc.ID, error) {
	n := 1 + legs*(1+feet)
	perm := make([]proc.ID, n)
	for i := range perm {
		perm[i] = proc.ID(i)
	}
	rnd.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	if centreZero {
		k := slices.Index(perm, 0)
		perm[0], perm[k] = perm[k], perm[0]
	}
	var edges [][2]proc.ID
	next := 1
	for l := 0; l < legs; l++ {
		leg := next
		next++
		edges = append(edges, [2]proc.ID{perm[0], perm[leg]})
		for f := 0; f < feet; f++ {
			edges = append(edges, [2]proc.ID{perm[leg], perm[next]})
			next++
		}
	}
	g, err := graph.New(n, edges)
	return g, perm[0], err
}

// highCentreStar is a centre joined to legs neighbours, each with feet
// further neighbours, labelled so that the centre has the largest id: the
// last colour of a greedy colouring in id order, every neighbour a low
// neighbour (with priority, in Choy and Singh's terms) of it — "a process
// with many low neighbours".
func highCentreStar(legs, feet int) (*graph.Graph, proc.ID, error) {
	n := 1 + legs*(1+feet)
	centre := proc.ID(n - 1)
	var edges [][2]proc.ID
	next := proc.ID(0)
	for l := 0; l < legs; l++ {
		leg := next
		next++
		edges = append(edges, [2]proc.ID{centre, leg})
		for f := 0; f < feet; f++ {
			edges = append(edges, [2]proc.ID{leg, next})
			next++
		}
	}
	g, err := graph.New(n, edges)
	return g, centre, err
}

// probe watches a fault-free run for the moments at which crashing process
// P hurts most. It is a proc.Sink.
type probe struct {
	P     proc.ID
	After proc.Time // ignore what happens before this tick

	first       proc.Time // first entry after After, +1
	enter, exit proc.Time // first critical section longer than one tick
	inside      bool
	done        bool
}

// Event implements proc.Sink.
func (p *probe) Event(e proc.Event) {
	if p.done || e.P != p.P || e.Time < p.After {
		return
	}
	switch e.Kind {
	case proc.EvEnter:
		if p.first == 0 {
			p.first = e.Time + 1
		}
		p.enter, p.inside = e.Time, true
	case proc.EvExit:
		if p.inside && e.Time > p.enter+1 {
			p.exit, p.done = e.Time, true
		}
		p.inside = false
	}
}

// WhileEating is a tick at which P is in its critical section, holding
// every fork: a crash then starves all its neighbours. A crash at a tick
// is handled before anything else at that tick, so the tick after an enter
// is chosen, in the first critical section after After that lasts more
// than one tick; false if there was none.
func (p *probe) WhileEating() (proc.Time, bool) {
	return p.enter + 1, p.done
}

// AtThreshold is the tick of P's first entry after After: crashing then,
// before the last fork is delivered, catches it hungry with all its other
// forks — at its threshold point when, as the threshold algorithms do, it
// collects the forks of its lower-priority neighbours last.
func (p *probe) AtThreshold() (proc.Time, bool) {
	return p.first - 1, p.first > 0
}

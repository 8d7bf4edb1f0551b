package controller

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/spantree"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// mainNet starts the main controller on spec under the tiny FIFO driver.
func mainNet(t *testing.T, spec string, m, w int) *net {
	t.Helper()
	g, err := graph.Parse(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := BuildMain(&algo.Problem{Kind: algo.Quota, Users: g.N(), Graph: g, Budget: m, Waste: w})
	if err != nil {
		t.Fatal(err)
	}
	n := &net{procs: ps}
	for p := range ps {
		n.cur = proc.ID(p)
		ps[p].Start(n)
	}
	n.drain()
	return n
}

// TestMainParticipantsArePaths: only the nodes that ask, and the nodes on
// their tree paths to the root, take part (§3, §5: the controller runs on
// a tree of the participants); the rest of the line sees nothing but the
// tree's construction. Joining node 6 takes two iterations (n_i = 1, 3):
// CONTROLLER-N admits at most 2n_i nodes in each, so the first ends with
// nodes 1 and 2 admitted, and the second admits 3 to 6.
func TestMainParticipantsArePaths(t *testing.T) {
	n := mainNet(t, "line:30", 1000, 500)
	n.log = nil
	n.request(6)
	n.request(4)
	for v, p := range n.procs {
		if in := p.(*MainNode).in; in != (v <= 6) {
			t.Errorf("node %d participates: %v", v, in)
		}
	}
	for _, e := range n.log {
		if e.to > 6 || e.from > 6 {
			t.Errorf("%s from %d to %d, outside the participants", e.m.Kind(), e.from, e.to)
		}
	}
	if got := n.procs[0].(*MainNode).Counts; !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("n_i by iteration: %v, want [1 3]", got)
	}
	if len(n.events) != 2 || n.events[0].Kind != proc.EvPermit || n.events[1].Kind != proc.EvPermit {
		t.Errorf("events %v, want two permits", n.events)
	}
}

// TestMainIterationsDouble checks Lemma 5.1's bound from the root's
// counts: n_1 = 1, and as CONTROLLER-N admits at most 2n_i nodes in
// iteration i and at least half of them before it runs dry,
// 2n_i ≤ n_{i+1} ≤ 3n_i while nodes wait to join — U_i = 3n_i is a bound
// on the participants of iteration i, the last one included (every node
// joins in the end). The consumption conditions hold and every request is
// answered.
func TestMainIterationsDouble(t *testing.T) {
	for _, spec := range []string{"line:300", "random:200:0.03", "tree:255:2", "grid:15x15"} {
		for seed := uint64(1); seed <= 3; seed++ {
			g, err := graph.Parse(spec, rand.New(rand.NewPCG(seed, 1)))
			if err != nil {
				t.Fatal(err)
			}
			pb := &algo.Problem{Kind: algo.Quota, Users: g.N(), Graph: g, Budget: 20 * g.N(), Waste: 2 * g.N()}
			ps, err := BuildMain(pb)
			if err != nil {
				t.Fatal(err)
			}
			q := check.Quota{Budget: pb.Budget, Waste: pb.Waste}
			res, err := sim.Run(sim.Config{Seed: seed, Net: sim.Network{Delay: dist.Exp(10)},
				Work: app.Workload{Think: dist.Uniform(0, 30), PerUser: 25}, Sink: &q}, pb, ps)
			if err != nil {
				t.Fatal(err)
			}
			q.Finish()
			if !q.OK() || !res.Quiescent || res.Served != 25*g.N() || q.Rejects == 0 {
				t.Fatalf("%s seed %d: %v, quiescent %v, %d of %d answered, %d rejects", spec, seed, q.First, res.Quiescent, res.Served, 25*g.N(), q.Rejects)
			}
			cs := ps[0].(*MainNode).Counts
			if last := cs[len(cs)-1]; cs[0] != 1 || last > int64(g.N()) || int64(g.N()) > 3*last {
				t.Errorf("%s seed %d: n_i %v, want 1 … [n/3, n], n = %d", spec, seed, cs, g.N())
			}
			for i := 0; i < len(cs)-1; i++ {
				if cs[i+1] < 2*cs[i] || cs[i+1] > 3*cs[i] {
					t.Errorf("%s seed %d: n_i %v: n_%d = %d, n_%d = %d", spec, seed, cs, i+1, cs[i], i+2, cs[i+1])
				}
			}
		}
	}
}

// TestMainExhaustedFromTheStart: with M ≤ W the first iteration's M^R_1 is
// at most W, and the main controller counts the resource as exhausted
// (§5): the first request is rejected, with the signal; none is permitted.
func TestMainExhaustedFromTheStart(t *testing.T) {
	n := mainNet(t, "line:5", 10, 10)
	n.request(3)
	n.request(1)
	var kinds []proc.EventKind
	for _, e := range n.events {
		kinds = append(kinds, e.Kind)
	}
	if want := []proc.EventKind{proc.EvExhausted, proc.EvReject, proc.EvReject}; !slices.Equal(kinds, want) {
		t.Errorf("events %v, want %v", kinds, want)
	}
}

// TestMainBroadcastBeforeAdmit: channels are not FIFO, so a node admitted
// just before its parent closes the iteration may get the collection's
// broadcast before its Admit. Here every Admit is held back while other
// messages are on their way: on a star the root admits leaves 1 and 2 with
// the two permits of iteration 1, runs dry on leaf 3, and closes; 1 and 2
// see the broadcast first, wait for their Admit, then echo. Iteration 2
// (n_2 = 3) admits 3, and every request gets its permit.
func TestMainBroadcastBeforeAdmit(t *testing.T) {
	n := mainNet(t, "star:4", 100, 10)
	for _, p := range []proc.ID{1, 2, 3} {
		n.cur = p
		n.procs[p].(proc.Allocator).Request(n, proc.Request{})
	}
	first := map[proc.ID]string{} // the first of bcast and admit each leaf got
	for len(n.queue) > 0 {
		i := slices.IndexFunc(n.queue, func(e envelope) bool { _, ok := e.m.(Admit); return !ok })
		if i < 0 {
			i = 0
		}
		e := n.queue[i]
		n.queue = slices.Delete(n.queue, i, i+1)
		switch e.m.(type) {
		case Admit, spantree.Bcast:
			if first[e.to] == "" {
				first[e.to] = e.m.Kind()
			}
		}
		n.cur = e.to
		n.procs[e.to].Deliver(n, e.from, e.m)
	}
	if first[1] != "bcast" || first[2] != "bcast" {
		t.Errorf("first of bcast and admit at 1 and 2: %q, %q; want bcast", first[1], first[2])
	}
	if got := n.procs[0].(*MainNode).Counts; !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("n_i by iteration: %v, want [1 3]", got)
	}
	permits := 0
	for _, e := range n.events {
		if e.Kind == proc.EvPermit {
			permits++
		}
	}
	if permits != 3 || len(n.events) != 3 {
		t.Errorf("events %v, want three permits", n.events)
	}
}

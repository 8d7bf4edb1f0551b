package central_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/conformance"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

func TestGolden(t *testing.T) { conformance.Golden(t, central.Algorithm, "testdata/golden") }

// TestOvertakingRequestWaitsForItsRelease drives the coordinator by hand: a
// user's next request that overtakes the release of its previous grant is
// held back, and a younger request on the same resource waits behind it.
func TestOvertakingRequestWaitsForItsRelease(t *testing.T) {
	c := central.NewCoordinator()
	env := &recorder{}
	c.Deliver(env, 0, central.Req{Res: []proc.ResID{1, 2}})
	c.Deliver(env, 0, central.Req{Res: []proc.ResID{2}}) // overtook its release
	c.Deliver(env, 1, central.Req{Res: []proc.ResID{2}})
	if got := env.grants; !slices.Equal(got, []proc.ID{0}) {
		t.Fatalf("grants %v, want [0]", got)
	}
	c.Deliver(env, 0, central.Rel{})
	if got := env.grants; !slices.Equal(got, []proc.ID{0, 0}) {
		t.Fatalf("after the release: grants %v, want user 0 again (it asked first)", got)
	}
	c.Deliver(env, 0, central.Rel{})
	if got := env.grants; !slices.Equal(got, []proc.ID{0, 0, 1}) {
		t.Fatalf("grants %v, want user 1 last", got)
	}
}

type recorder struct {
	proc.Env
	grants []proc.ID
}

func (r *recorder) Send(to proc.ID, m proc.Message) {
	if _, ok := m.(central.Grant); ok {
		r.grants = append(r.grants, to)
	}
}

// BenchmarkComplete is the worst case of the head-of-line policy: every
// user conflicts with every other, all asking at once.
func BenchmarkComplete(b *testing.B) {
	g, err := graph.Parse("complete:300", nil)
	if err != nil {
		b.Fatal(err)
	}
	pb := algo.DiningProblem(g)
	for b.Loop() {
		ps, _ := central.Build(pb)
		if _, err := sim.Run(sim.Config{Seed: 1, Net: sim.Network{Delay: dist.Const(1)}, Work: app.Workload{CS: dist.Const(100), PerUser: 1}}, pb, ps); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCompleteGraphReleaseIsLinear drives the coordinator by hand on the
// complete graph, where a release names every other user as a candidate:
// each must be judged in constant time, not by a scan of its own n−1
// resources (n² a release: complete:5000 ran past a minute for 100
// requests). Every user asks for all its edges at once, then the holder
// releases, n times; the whole run must be far from quadratic a release.
func TestCompleteGraphReleaseIsLinear(t *testing.T) {
	const n = 800
	edge := func(i, j int) proc.ResID { // i < j, numbered row by row
		return proc.ResID(i*n - i*(i+1)/2 + j - i - 1)
	}
	c := central.NewCoordinator()
	env := &recorder{}
	for u := range n {
		var res []proc.ResID
		for v := range n {
			switch {
			case v < u:
				res = append(res, edge(v, u))
			case v > u:
				res = append(res, edge(u, v))
			}
		}
		c.Deliver(env, proc.ID(u), central.Req{Res: res})
	}
	start := time.Now()
	for i := range n {
		if len(env.grants) != i+1 {
			t.Fatalf("after %d releases: %d grants, want %d (one holder at a time)", i, len(env.grants), i+1)
		}
		c.Deliver(env, env.grants[i], central.Rel{})
	}
	// A scan per candidate costs about n³/2 steps here (seconds); the
	// counts make it n² log n (about 10 ms).
	t.Logf("%d releases in %v", n, time.Since(start))
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("%d releases took %v: a release costs more than linear time in its size", n, d)
	}
	if !slices.Equal(env.grants, slices.Sorted(slices.Values(env.grants))) {
		t.Errorf("grants out of arrival order: %v", env.grants[:10])
	}
}

// TestLongQueuesKeepArrivalOrder drives queues past the two users a
// resource's record holds: grants still come in arrival order, a request
// naming a resource twice included.
func TestLongQueuesKeepArrivalOrder(t *testing.T) {
	c := central.NewCoordinator()
	env := &recorder{}
	const n = 7
	for u := range n {
		res := []proc.ResID{0, 1}
		if u == 3 {
			res = []proc.ResID{1, 0, 1}
		}
		c.Deliver(env, proc.ID(u), central.Req{Res: res})
	}
	for i := range n {
		if len(env.grants) != i+1 || env.grants[i] != proc.ID(i) {
			t.Fatalf("after %d releases: grants %v, want 0..%d in order", i, env.grants, i)
		}
		c.Deliver(env, proc.ID(i), central.Rel{})
	}
}

// TestQueuesAllocatePerRequestNotPerName: on the complete graph every user
// names n−1 resources; a queue is a record in one table, not an array of
// its own (n² small arrays: complete:5000 spent most of its run on their
// cache misses, and the collector on scanning them).
func TestQueuesAllocatePerRequestNotPerName(t *testing.T) {
	const n = 200
	g, err := graph.Parse(fmt.Sprintf("complete:%d", n), nil)
	if err != nil {
		t.Fatal(err)
	}
	pb := algo.DiningProblem(g)
	reqs := make([]central.Req, n)
	for u := range reqs {
		reqs[u] = central.Req{Res: g.Edges(proc.ID(u))}
	}
	allocs := testing.AllocsPerRun(3, func() {
		ps, _ := central.Build(pb)
		c, env := ps[n], &recorder{grants: make([]proc.ID, 0, n)}
		for u, r := range reqs {
			c.Deliver(env, proc.ID(u), r)
		}
		for u := range n {
			c.Deliver(env, proc.ID(u), central.Rel{})
		}
	})
	if allocs > 10*n {
		t.Errorf("%.0f allocations for %d requests of %d names each, want at most %d", allocs, n, n-1, 10*n)
	}
}

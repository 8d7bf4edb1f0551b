package doorway_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/doorway"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/conformance"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

func TestColorsAtMostDeltaPlusOne(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		for _, spec := range []string{"random:30:0.2", "grid:4x5", "complete:6", "star:9", "ring:7"} {
			g, err := graph.Parse(spec, rand.New(rand.NewPCG(seed, 1)))
			if err != nil {
				t.Fatal(err)
			}
			c := doorway.Colors(g)
			for p := range g.N() {
				if int(c[p]) > g.MaxDegree() {
					t.Fatalf("%s: colour %d above δ=%d", spec, c[p], g.MaxDegree())
				}
				for _, q := range g.Neighbors(proc.ID(p)) {
					if c[p] == c[q] {
						t.Fatalf("%s: neighbours %d and %d share colour %d", spec, p, q, c[p])
					}
				}
			}
		}
	}
}

func ExampleColors() {
	g, _ := graph.Parse("ring:5", nil)
	fmt.Println(doorway.Colors(g))
	// Output: [0 1 0 1 2]
}

// Under FIFO channels and heavy contention every request is answered and no
// two neighbours eat together, on larger graphs than the suite's.
func TestBusyGraphs(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		g, err := graph.Parse("random:40:0.15", rand.New(rand.NewPCG(seed, 2)))
		if err != nil {
			t.Fatal(err)
		}
		pb := algo.DiningProblem(g)
		pb.FIFO = true
		ps, _ := doorway.Build(pb)
		var ex check.Exclusion
		var w check.Waits
		res, err := sim.Run(sim.Config{Seed: seed, Sink: proc.Sinks{&ex, &w}, Net: sim.Network{FIFO: true, Delay: dist.Exp(20)}, Work: app.Workload{CS: dist.Uniform(1, 10), Think: dist.Uniform(0, 20), PerUser: 30}}, pb, ps)
		if err != nil {
			t.Fatal(err)
		}
		if !ex.OK() || res.Served != 30*g.N() || w.Open() != 0 {
			t.Fatalf("seed %d: exclusion %v, served %d of %d, open %d", seed, ex.First, res.Served, 30*g.N(), w.Open())
		}
	}
}

func TestGolden(t *testing.T) { conformance.Golden(t, doorway.Algorithm, "testdata/golden") }

package host_test

import (
	"math/rand/v2"
	"testing"

	"allot/algo"
	"allot/algo/all"
	"allot/algo/doorway"
	"allot/algo/modular"
	"allot/dist"
	"allot/graph"
	"allot/proc"
	"allot/workload"
)

// TestCatalogueRealTime runs every exclusive catalogue entry in real time
// under the conformance checkers (exclusion, every request answered, the
// stream's causality), on FIFO links when the algorithm needs them: the
// real-time host runs whatever the simulator runs.
func TestCatalogueRealTime(t *testing.T) {
	for _, a := range all.OfKind(algo.Exclusive) {
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			g, err := graph.Parse("grid:3x3", nil)
			if err != nil {
				t.Fatal(err)
			}
			realRun(t, a, algo.DiningProblem(g), nil, 5, dist.Uniform(1, 6))
		})
	}
}

// TestDoorwayFIFO: Choy and Singh's algorithm is proved for FIFO channels;
// doorway and Rhee's modular algorithm over it run on FIFO links in real
// time, on conflict graphs and (modular) a dynamic workload, and pass the
// checkers.
func TestDoorwayFIFO(t *testing.T) {
	specs := []string{"ring:6", "complete:4", "random:10:0.35", "dyn:8:6:1:3"}
	if testing.Short() {
		specs = specs[:2]
	}
	for _, a := range []algo.Algorithm{doorway.Algorithm, modular.For(doorway.Algorithm)} {
		if !a.NeedsFIFO {
			t.Fatalf("%s does not ask for FIFO links", a.Name)
		}
		for _, spec := range specs {
			if spec[:3] == "dyn" && a.Name == "doorway" {
				continue // a dining algorithm: the whole maximal set every time
			}
			t.Run(a.Name+"/"+spec, func(t *testing.T) {
				t.Parallel()
				pb, next := problem(t, spec)
				realRun(t, a, pb, next, 10, dist.Exp(3))
			})
		}
	}
}

// problem builds a conflict graph's problem or, for "dyn:U:R:K1:K2", a
// dynamic workload's.
func problem(t *testing.T, spec string) (*algo.Problem, func(proc.ID, *rand.Rand) proc.Request) {
	t.Helper()
	var u, r, k1, k2 int
	if n, _ := fmtSscanf(spec, "dyn:%d:%d:%d:%d", &u, &r, &k1, &k2); n == 4 {
		d := workload.Dynamic{Users: u, Resources: r, MinDemand: k1, MaxDemand: k2}
		pb, next, err := d.Problem(newRand(2))
		if err != nil {
			t.Fatal(err)
		}
		return pb, next
	}
	g, err := graph.Parse(spec, newRand(4))
	if err != nil {
		t.Fatal(err)
	}
	return algo.DiningProblem(g), nil
}

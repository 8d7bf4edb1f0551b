package bidding_test

import (
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/bidding"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/conformance"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/sim"
)

func TestGolden(t *testing.T) { conformance.Golden(t, bidding.Algorithm, "testdata/golden") }

func TestGoldenPriority(t *testing.T) {
	conformance.Golden(t, bidding.Priority, "testdata/golden-priority")
}

// BenchmarkRing runs uniform bidding on a ring of 1000 philosophers; the
// unit of work is one answered request.
func BenchmarkRing(b *testing.B) {
	g, err := graph.Parse("ring:1000", nil)
	if err != nil {
		b.Fatal(err)
	}
	pb := algo.DiningProblem(g)
	procs, err := bidding.Algorithm.Build(pb)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	res, err := sim.Run(sim.Config{Seed: 1, Requests: b.N, Net: sim.Network{Delay: dist.Uniform(1, 10)}, Work: app.Workload{CS: dist.Uniform(5, 15), Think: dist.Exp(40)}}, pb, procs)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Inputs)/float64(b.N), "inputs/served")
}

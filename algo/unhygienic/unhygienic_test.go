package unhygienic_test

import (
	"fmt"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/unhygienic"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/conformance"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// The suite again with a failure model in which every other process rises
// by the least amount: heights then leave many neighbours above a process
// that just ate.
func TestConformanceFailureProne(t *testing.T) {
	a := unhygienic.Algorithm
	build := a.Build
	a.Build = func(pb *algo.Problem) ([]proc.Process, error) {
		pb.Failure = make([]float64, pb.Users)
		for u := range pb.Failure {
			pb.Failure[u] = float64(u % 2)
		}
		return build(pb)
	}
	for _, f := range conformance.Check(a, conformance.Cases(4)) {
		t.Error(f)
	}
}

func TestRise(t *testing.T) {
	cases := []struct {
		f    float64
		h    int64
		nbr  []int64
		want int64
	}{
		{0, 5, []int64{3, 9, 7}, 10},  // above all
		{1, 5, []int64{3, 9, 7}, 6},   // the least rise
		{1, 5, []int64{6, 7, 9}, 8},   // skips the neighbours' heights
		{0.5, 0, []int64{10, 20}, 11}, // half-way to 21, rounded up
		{0, 5, []int64{1, 2}, 6},      // already above all
		{0.5, 4, nil, 5},              // no neighbours
	}
	for _, c := range cases {
		if got := unhygienic.Rise(c.f, c.h, c.nbr); got != c.want {
			t.Errorf("Rise(%v, %d, %v) = %d, want %d", c.f, c.h, c.nbr, got, c.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	g, _ := graph.Parse("ring:4", nil)
	for _, pb := range []*algo.Problem{
		{Kind: algo.Exclusive, Users: 4, Conflict: g, Options: map[string]string{"rule": "lazy"}},
		{Kind: algo.Exclusive, Users: 4, Conflict: g, Failure: []float64{0.1}},
		{Kind: algo.Exclusive, Users: 4, Conflict: g, Failure: []float64{0.1, 2, 0, 0}},
	} {
		if _, err := unhygienic.Build(pb); err == nil {
			t.Errorf("no error for %+v", pb)
		}
	}
}

func Example() {
	g, _ := graph.Parse("grid:3x3", nil)
	pb := algo.DiningProblem(g)
	pb.Failure = []float64{0, 0, 0, 0, 0.9, 0, 0, 0, 0} // the centre is failure-prone
	ps, _ := unhygienic.Build(pb)
	res, _ := sim.Run(sim.Config{Seed: 1, Net: sim.Network{Delay: dist.Exp(5)}, Work: app.Workload{CS: dist.Const(3), PerUser: 10}}, pb, ps)
	fmt.Println(res.Served, res.Deadlock)
	// Output: 90 false
}
func TestGolden(t *testing.T) { conformance.Golden(t, unhygienic.Algorithm, "testdata/golden") }

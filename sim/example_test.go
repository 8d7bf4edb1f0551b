package sim_test

import (
	"fmt"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// ExampleRun simulates five dining philosophers, each eating three times,
// and checks the event stream for exclusion.
func ExampleRun() {
	g, _ := graph.Parse("ring:5", nil)
	pb := algo.DiningProblem(g)
	procs, _ := hygienic.Build(pb)
	var excl check.Exclusion
	res, err := sim.Run(sim.Config{Seed: 1, Sink: proc.Sinks{&excl}, Net: sim.Network{Delay: dist.Uniform(1, 10)}, Work: app.Workload{Think: dist.Exp(20), CS: dist.Const(5), PerUser: 3}}, pb, procs)
	fmt.Println(err, res.Served, res.Quiescent, res.Deadlock, excl.Violations)
	// Output: <nil> 15 true false 0
}

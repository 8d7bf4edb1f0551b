package controller_test

import (
	"fmt"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/controller"
	"github.com/allot-dev/allot/algo/counter"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/sim"
)

// A budget of 4000 permits, at most 2000 of them wasted, on a line of 64
// nodes that each ask 100 times: the controller against a counter at the
// root, judged by check.Quota from the events.
func Example() {
	g, _ := graph.Parse("line:64", nil)
	for _, a := range []algo.Algorithm{controller.Algorithm, counter.Algorithm} {
		pb := &algo.Problem{Kind: algo.Quota, Users: g.N(), Graph: g, Budget: 4000, Waste: 2000}
		procs, err := a.Build(pb)
		if err != nil {
			fmt.Println(err)
			return
		}
		q := check.Quota{Budget: pb.Budget, Waste: pb.Waste}
		res, err := sim.Run(sim.Config{Seed: 1, Net: sim.Network{Delay: dist.Uniform(1, 10)},
			Work: app.Workload{Think: dist.Uniform(0, 20), PerUser: 100}, Sink: &q}, pb, procs)
		if err != nil {
			fmt.Println(err)
			return
		}
		q.Finish()
		fmt.Printf("%s: %d permits, %d rejects, %d messages, conditions hold: %v\n",
			a.Name, q.Permits, q.Rejects, res.Messages, q.OK())
	}
	// Output:
	// controller: 3996 permits, 2404 rejects, 27398 messages, conditions hold: true
	// central-counter: 4000 permits, 2400 rejects, 403326 messages, conditions hold: true
}

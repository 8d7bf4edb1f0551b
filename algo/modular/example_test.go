package modular_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/algo/modular"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/workload"
)

// Rhee's algorithm over the central coordinator: 6 users ask for any 1..3
// of 5 resources each time (their sets are unknown in advance), on
// unordered channels.
func ExampleFor() {
	a := modular.For(central.Algorithm)
	d := workload.Dynamic{Users: 6, Resources: 5, MinDemand: 1, MaxDemand: 3}
	pb, next, err := d.Problem(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	procs, err := a.Build(pb)
	if err != nil {
		panic(err)
	}
	var excl check.Exclusion
	res, err := sim.Run(sim.Config{Seed: 1, Sink: &excl, Net: sim.Network{Delay: dist.Uniform(1, 20)}, Work: app.Workload{Think: dist.Uniform(0, 30), CS: dist.Uniform(1, 10), PerUser: 50, Next: next}}, pb, procs)
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Name, "processes:", len(procs), "(6 users, 5 managers, 1 coordinator)")
	fmt.Println("served:", res.Served, "exclusion ok:", excl.OK(), "deadlock:", res.Deadlock)
	// Output:
	// modular-central processes: 12 (6 users, 5 managers, 1 coordinator)
	// served: 300 exclusion ok: true deadlock: false
}

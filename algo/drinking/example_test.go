package drinking_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/allot-dev/allot/algo/drinking"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/workload"
)

// Chandy and Misra's drinking philosophers over their hygienic dining
// algorithm: 8 users with fixed maximum sets of 4 of 10 resources ask for
// any 1..2 of them each time, on unordered channels.
func ExampleFor() {
	a := drinking.For(hygienic.Algorithm)
	fixed := workload.Dynamic{Users: 8, Resources: 10, MinDemand: 4, MaxDemand: 4, FixedSets: true}
	pb, _, err := fixed.Problem(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	// Each request: 1 or 2 resources of the user's maximum set.
	next := func(u proc.ID, r *rand.Rand) proc.Request {
		set := pb.MaxSets[u]
		i := r.IntN(len(set))
		req := []proc.ResID{set[i]}
		if r.IntN(2) == 0 {
			req = append(req, set[(i+1)%len(set)])
		}
		return proc.Request{Res: req}
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
	fmt.Println(a.Name, "served:", res.Served, "exclusion ok:", excl.OK(), "deadlock:", res.Deadlock)
	fmt.Println("bottle messages:", res.ByKind["drinking.request"]+res.ByKind["drinking.bottle"], "dining messages:", res.ByKind["fork"]+res.ByKind["token"])
	// Output:
	// drinking-hygienic served: 400 exclusion ok: true deadlock: false
	// bottle messages: 2072 dining messages: 1686
}

package bidding_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/bidding"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/workload"
)

// TestSpeeds runs both algorithms in the simulator under every speed
// pattern, tame and with untame intervals at arbitrary speeds: exclusion
// holds always and every request is answered.
func TestSpeeds(t *testing.T) {
	patterns := []string{"min:1:1", "extremes:1:3", "alternate:1:3:40", "walk:1:3:25", "adversary:1:3:60"}
	untame := [][]sim.Untame{
		nil,
		{{From: 200, To: 900, P: proc.None, Factor: 40}},  // everyone very slow
		{{From: 100, To: 2000, P: 1, Factor: 0.02}},       // one user very fast
		{{From: 0, To: 5000, P: proc.ID(8), Factor: 500}}, // a granter nearly stopped
	}
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for _, a := range []algo.Algorithm{bidding.Algorithm, bidding.Priority} {
		for _, spec := range patterns {
			for ui, un := range untame {
				for seed := range uint64(seeds) {
					d := workload.Dynamic{Users: 8, Resources: 6, MinDemand: 1, MaxDemand: 3}
					pb, next, err := d.Problem(rand.New(rand.NewPCG(seed, 1)))
					if err != nil {
						t.Fatal(err)
					}
					sp, err := sim.ParseSpeeds(spec)
					if err != nil {
						t.Fatal(err)
					}
					sp.Users, sp.Seed, sp.Untame = pb.Users, seed, un
					pb.Options = map[string]string{"ratio": fmt.Sprint(sp.Ratio()), "step": "4", "v": "4"}
					procs, err := a.Build(pb)
					if err != nil {
						t.Fatal(err)
					}
					var excl check.Exclusion
					var waits check.Waits
					res, err := sim.Run(sim.Config{Seed: seed, Sink: proc.Sinks{&excl, &waits}, Net: sim.Network{Delay: dist.Uniform(1, 4), Speed: sp}, Work: app.Workload{Think: dist.Uniform(0, 20), CS: dist.Uniform(1, 8), PerUser: 8, Next: next}}, pb, procs)
					name := fmt.Sprintf("%s %s untame#%d seed %d", a.Name, spec, ui, seed)
					switch {
					case err != nil:
						t.Fatalf("%s: %v", name, err)
					case !excl.OK():
						t.Fatalf("%s: %d exclusion violations, first %s", name, excl.Violations, excl.First[0])
					case !res.Quiescent || res.Served != pb.Users*8:
						t.Fatalf("%s: served %d of %d (quiescent %v, open %d)", name, res.Served, pb.Users*8, res.Quiescent, waits.Open())
					}
				}
			}
		}
	}
}

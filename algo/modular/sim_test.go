package modular

import (
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/workload"
)

// TestLateUsersSim: on the simulator, with central as the subroutine (no
// prior knowledge of users or sets), half of the users join late — after
// the others have been served many times — with a fresh random set on every
// request; everyone is served, exclusively.
func TestLateUsersSim(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		d := workload.Dynamic{Users: 20, Resources: 10, MinDemand: 1, MaxDemand: 4}
		pb, next, err := d.Problem(rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		procs, err := For(central.Algorithm).Build(pb)
		if err != nil {
			t.Fatal(err)
		}
		var excl check.Exclusion
		var waits check.Waits
		firstLate := proc.Time(-1)
		late := func(u proc.ID) bool { return u >= 10 }
		sink := proc.Sinks{&excl, &waits, sinkFunc(func(e proc.Event) {
			if e.Kind == proc.EvRequest && late(e.P) && firstLate < 0 {
				firstLate = e.Time
			}
		})}
		served := map[proc.ID]int{}
		sink = append(sink, sinkFunc(func(e proc.Event) {
			if e.Kind == proc.EvEnter {
				served[e.P]++
			}
		}))
		res, err := sim.Run(sim.Config{Seed: seed, Sink: sink, Net: sim.Network{Delay: dist.Exp(10)}, Work: app.Workload{Think: dist.Uniform(0, 30), CS: dist.Uniform(1, 10), PerUser: 20, Next: next, Join: func(u proc.ID) proc.Time {
			if late(u) {
				return 20000
			}
			return 0
		}}}, pb, procs)
		switch {
		case err != nil:
			t.Fatalf("seed %d: %v", seed, err)
		case !excl.OK():
			t.Fatalf("seed %d: %s", seed, excl.First[0])
		case res.Deadlock || !res.Quiescent || res.Served != 20*20:
			t.Fatalf("seed %d: served %d of 400, deadlock %v, quiescent %v", seed, res.Served, res.Deadlock, res.Quiescent)
		case firstLate < 20000:
			t.Fatalf("seed %d: first late request at %d", seed, firstLate)
		}
		for u := proc.ID(10); u < 20; u++ {
			if served[u] != 20 {
				t.Fatalf("seed %d: late user %d served %d times", seed, u, served[u])
			}
		}
	}
}

type sinkFunc func(proc.Event)

func (f sinkFunc) Event(e proc.Event) { f(e) }

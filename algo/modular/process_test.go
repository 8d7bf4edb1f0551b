package modular

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/conformance"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/workload"
)

// fromProcess is a with a Build made of its Process alone: process id
// for each id below the count a's own Build returns, and an error for the
// id after them.
func fromProcess(a algo.Algorithm) algo.Algorithm {
	b := a
	b.Name += "/process"
	b.Build = func(pb *algo.Problem) ([]proc.Process, error) {
		all, err := a.Build(pb)
		if err != nil {
			return nil, err
		}
		ps := make([]proc.Process, len(all))
		for id := range ps {
			if ps[id], err = a.Process(pb, proc.ID(id)); err != nil {
				return nil, err
			}
		}
		if _, err := a.Process(pb, proc.ID(len(all))); err == nil {
			return nil, fmt.Errorf("%s: Process made process %d of a run of %d", a.Name, len(all), len(all))
		}
		return ps, nil
	}
	return b
}

// events is the event stream of one simulated run of a on a dynamic
// problem (users ask for random sets of the resources), or the error
// that ended it.
func events(t *testing.T, a algo.Algorithm, seed uint64) ([]proc.Event, error) {
	t.Helper()
	d := workload.Dynamic{Users: 12, Resources: 8, MinDemand: 1, MaxDemand: 3}
	pb, next, err := d.Problem(rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	procs, err := a.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	var evs []proc.Event
	_, err = sim.Run(sim.Config{Seed: seed, Sink: sinkFunc(func(e proc.Event) { evs = append(evs, e) }), Net: sim.Network{Delay: dist.Exp(10)},
		Work: app.Workload{Think: dist.Uniform(0, 30), CS: dist.Uniform(1, 10), PerUser: 8, Next: next}}, pb, procs)
	return evs, err
}

// same runs a and b on seed and reports whether both ran to the end with
// the same event stream.
func same(t *testing.T, a, b algo.Algorithm, seed uint64) bool {
	ea, erra := events(t, a, seed)
	eb, errb := events(t, b, seed)
	return erra == nil && errb == nil && reflect.DeepEqual(ea, eb)
}

// TestProcessIsBuild: for central and modular-central, the processes
// Process makes one at a time run exactly as Build's (the same event
// stream in the simulator, seed by seed), and pass the exclusive
// conformance suite on their own.
func TestProcessIsBuild(t *testing.T) {
	for _, a := range []algo.Algorithm{central.Algorithm, For(central.Algorithm)} {
		if a.Process == nil {
			t.Fatalf("%s has no Process", a.Name)
		}
		p := fromProcess(a)
		for seed := uint64(1); seed <= 5; seed++ {
			if !same(t, p, a, seed) {
				t.Fatalf("%s seed %d: Process's run differs from Build's", a.Name, seed)
			}
		}
		if fails := conformance.Check(p, conformance.Cases(1)); len(fails) > 0 {
			t.Fatalf("%s: %d conformance failures, first: %s", p.Name, len(fails), fails[0])
		}
	}
}

// TestProcessIsBuildCatchesDifference: the comparison above fails for a
// Process that makes another algorithm's processes (modular-central's
// users selecting position 1 whatever is marked), and fromProcess refuses
// a Process that makes processes past the run.
func TestProcessIsBuildCatchesDifference(t *testing.T) {
	good := For(central.Algorithm)
	bad := good
	bad.Process = forVariant(central.Algorithm, variant{alwaysFront: true}).Process
	differs := false
	for seed := uint64(1); seed <= 5 && !differs; seed++ {
		differs = !same(t, fromProcess(bad), good, seed)
	}
	if !differs {
		t.Fatal("the always-front variant's processes ran as modular-central's in 5 seeds")
	}
	loose := good
	loose.Process = func(pb *algo.Problem, id proc.ID) (proc.Process, error) { return central.NewCoordinator(), nil }
	if _, err := fromProcess(loose).Build(&algo.Problem{Kind: algo.Exclusive, Users: 2, Resources: 2}); err == nil {
		t.Fatal("a Process that makes any id was accepted")
	}
}

// TestProcessNeedsSubProcess: modular over a dining subroutine (static
// conflict graph) has no Process, and Process refuses ids outside a run.
func TestProcessNeedsSubProcess(t *testing.T) {
	if a := For(algo.Algorithm{Name: "static", Kind: algo.Exclusive, Build: central.Build}); a.Process != nil {
		t.Fatal("modular over a subroutine without Process has one")
	}
	a := For(central.Algorithm)
	pb := &algo.Problem{Kind: algo.Exclusive, Users: 1 << 24, Resources: 1 << 24}
	for _, id := range []proc.ID{-1, 1<<25 + 1} {
		if _, err := a.Process(pb, id); err == nil {
			t.Fatalf("process %d of a run of %d made", id, 1<<25+1)
		}
	}
	if _, err := a.Process(pb, 1<<25); err != nil {
		t.Fatalf("the coordinator of a 2^24 × 2^24 run: %v", err)
	}
}

package socialcsp_test

import (
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/bidding"
	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/algo/modular"
	"github.com/allot-dev/allot/algo/ordered"
	"github.com/allot-dev/allot/algo/socialcsp"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/conformance"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/workload"
)

// run simulates a on a dynamic workload whose every request names 1..3
// partners of 6, drawn at run time, and returns the checkers' verdicts.
func run(t *testing.T, a algo.Algorithm, seed uint64) (check.Rendezvous, check.Exclusion, sim.Result) {
	t.Helper()
	d := workload.Dynamic{Users: 6, Resources: 6, MinDemand: 1, MaxDemand: 3}
	pb, next, err := d.Problem(rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := a.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	var rv check.Rendezvous
	var ex check.Exclusion
	res, err := sim.Run(sim.Config{Seed: seed, Requests: 200, Drain: 1 << 30, Sink: proc.Sinks{&rv, &ex},
		Net:  sim.Network{Delay: dist.Uniform(1, 9)},
		Work: app.Workload{Think: dist.Exp(10), CS: dist.Uniform(1, 5), Next: next}}, pb, ps)
	if err != nil {
		t.Fatal(err)
	}
	return rv, ex, res
}

// TestRendezvousOverGranters runs extended outputs over every algorithm
// with a granting process per resource: every output is matched by its
// inputs, each value delivered once, no partner in two rendezvous.
func TestRendezvousOverGranters(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	for _, a := range []algo.Algorithm{bidding.Algorithm, bidding.Priority, ordered.Algorithm, modular.For(central.Algorithm)} {
		t.Run(a.Name, func(t *testing.T) {
			rv, ex, res := run(t, socialcsp.For(a), seed)
			if rv.Violations > 0 || ex.Violations > 0 {
				t.Fatalf("seed %d: rendezvous %v, exclusion %v", seed, rv.First, ex.First)
			}
			// Outputs still open at the end are critical sections the run
			// stopped in, after their inputs.
			if res.Open > 0 || res.Served < 200 {
				t.Fatalf("seed %d: %d served, %d requests open", seed, res.Served, res.Open)
			}
			if rv.Outputs != res.Served || rv.Inputs < rv.Outputs {
				t.Fatalf("seed %d: %d outputs, %d inputs for %d served", seed, rv.Outputs, rv.Inputs, res.Served)
			}
		})
	}
}

// TestEarlyEnterCaught: a sender that completes on its first ack leaves
// outputs unmatched, and the checker says so.
func TestEarlyEnterCaught(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rv, _, _ := run(t, socialcsp.EarlyEnter(ordered.Algorithm), seed)
	if rv.Violations == 0 {
		t.Fatalf("seed %d: the early-entering sender went unnoticed", seed)
	}
}

// TestNeedsGranters: an algorithm without a process per resource has no
// partners to offer.
func TestNeedsGranters(t *testing.T) {
	if _, err := socialcsp.For(central.Algorithm).Build(&algo.Problem{Kind: algo.Exclusive, Users: 2, Resources: 2}); err == nil {
		t.Fatal("central accepted")
	}
}

// TestConformance: the layer keeps the algorithm's exclusion, deadlock
// freedom and answers (the catalogue-wide exclusive suite).
func TestConformance(t *testing.T) {
	for _, a := range []algo.Algorithm{bidding.Algorithm, ordered.Algorithm} {
		t.Run(a.Name, func(t *testing.T) { conformance.Exclusive(t, socialcsp.For(a)) })
		t.Run("in-"+a.Name, func(t *testing.T) { conformance.Exclusive(t, socialcsp.InputFor(a)) })
	}
}

// TestExtInputOverGranters runs extended inputs over every algorithm with
// a granting process per resource: every extended input receives its k
// values, each once, before its receiver exits, no partner in two
// rendezvous, and no output is made.
func TestExtInputOverGranters(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	for _, a := range []algo.Algorithm{bidding.Algorithm, ordered.Algorithm, modular.For(central.Algorithm)} {
		t.Run(a.Name, func(t *testing.T) {
			rv, ex, res := run(t, socialcsp.InputFor(a), seed)
			if rv.Violations > 0 || ex.Violations > 0 {
				t.Fatalf("seed %d: rendezvous %v, exclusion %v", seed, rv.First, ex.First)
			}
			if res.Open > 0 || res.Served < 200 {
				t.Fatalf("seed %d: %d served, %d requests open", seed, res.Served, res.Open)
			}
			if rv.ExtInputs != res.Served || rv.Receives < rv.ExtInputs || rv.Outputs != 0 || rv.Inputs != 0 {
				t.Fatalf("seed %d: %d extended inputs, %d receipts, %d outputs for %d served", seed, rv.ExtInputs, rv.Receives, rv.Outputs, res.Served)
			}
		})
	}
}

// TestInputEarlyEnterCaught: a receiver that completes on its first value
// leaves extended inputs without their values, and the checker says so.
func TestInputEarlyEnterCaught(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rv, _, _ := run(t, socialcsp.InputEarlyEnter(ordered.Algorithm), seed)
	if rv.Violations == 0 {
		t.Fatalf("seed %d: the early-entering receiver went unnoticed", seed)
	}
}

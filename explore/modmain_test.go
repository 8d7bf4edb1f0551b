package explore

import (
	"testing"

	"github.com/allot-dev/allot/scenario"
)

// TestModifiedMainStages explores the modified controller over MAIN where
// its stages matter: M = 4, W = 0 on a line of three, two requests each
// (more than the budget). Stage 1 runs the main controller with (4, 2),
// later stages halve the waste down to the naive controller; the
// catalogue's instance (W ≥ M/2) is the main controller alone. Every
// interleaving keeps the consumption conditions, W = 0 exact, and ends
// with every request answered.
func TestModifiedMainStages(t *testing.T) {
	s := scenario.Scenario{Kind: "quota", Graph: "line:3", Budget: 4, Waste: 0}
	r, err := Run(instance(t, "controller-modified-main", s, 2))
	if err != nil {
		t.Fatal(err)
	}
	if r.Violations > 0 {
		t.Fatalf("%s: %s", r.Counterexample.Kind, r.Counterexample.What)
	}
	if !r.Complete {
		t.Fatalf("cut %q after %d states", r.Cut, r.States)
	}
	t.Logf("%d states, %d transitions, depth %d, %d terminal", r.States, r.Edges, r.Depth, r.Terminal)
}

package drinking

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/conformance"
)

// TestSuiteCatchesBrokenVariants: a user that hands over a bottle it is
// drinking with breaks exclusion; a user that looks at a neighbour's
// request only when the request arrives, not when an overtaken bottle
// arrives after it, sits on a requested bottle (unordered channels). The
// suite catches both.
func TestSuiteCatchesBrokenVariants(t *testing.T) {
	fails := conformance.Check(forVariant(hygienic.Algorithm, variant{yieldWhileDrinking: true}), conformance.Cases(1))
	if len(fails) == 0 || !strings.Contains(fails[0].Why, "exclusion") {
		t.Fatalf("yielding while drinking not caught: %v", fails)
	}
	fails = conformance.Check(forVariant(hygienic.Algorithm, variant{noYieldOnArrival: true}), conformance.Cases(2))
	if len(fails) == 0 {
		t.Fatal("ignoring requests that overtook their bottle not caught")
	}
	t.Logf("%d failures, first: %s", len(fails), fails[0])
}

func TestGolden(t *testing.T) { conformance.Golden(t, For(hygienic.Algorithm), "testdata/golden") }

package drinking

import (
	"strings"
	"testing"

	"allot/algo/algotest"
	"allot/algo/hygienic"
)

// TestSuiteCatchesBrokenVariants: a user that hands over a bottle it is
// drinking with breaks exclusion; a user that looks at a neighbour's
// request only when the request arrives, not when an overtaken bottle
// arrives after it, sits on a requested bottle (unordered channels). The
// suite catches both.
func TestSuiteCatchesBrokenVariants(t *testing.T) {
	fails := algotest.Check(forVariant(hygienic.Algorithm, variant{yieldWhileDrinking: true}), algotest.Cases(1))
	if len(fails) == 0 || !strings.Contains(fails[0].Why, "exclusion") {
		t.Fatalf("yielding while drinking not caught: %v", fails)
	}
	fails = algotest.Check(forVariant(hygienic.Algorithm, variant{noYieldOnArrival: true}), algotest.Cases(2))
	if len(fails) == 0 {
		t.Fatal("ignoring requests that overtook their bottle not caught")
	}
	t.Logf("%d failures, first: %s", len(fails), fails[0])
}

func TestGolden(t *testing.T) { algotest.Golden(t, For(hygienic.Algorithm), "testdata/golden") }

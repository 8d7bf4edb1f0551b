package modular_test

import (
	"strings"
	"testing"

	"allot/algo/all"
	"allot/algo/central"
	"allot/algo/modular"
	"allot/conformance"
)

// TestConformance runs the exclusive suite on modular-<sub> for every
// subroutine in the catalogue.
func TestConformance(t *testing.T) {
	n := 0
	for _, a := range all.List() {
		if !strings.HasPrefix(a.Name, "modular-") {
			continue
		}
		n++
		t.Run(a.Name, func(t *testing.T) { conformance.Exclusive(t, a) })
	}
	if n < 2 {
		t.Fatalf("only %d modular algorithms in the catalogue", n)
	}
}

func TestGolden(t *testing.T) {
	conformance.Golden(t, modular.For(central.Algorithm), "testdata/golden")
}

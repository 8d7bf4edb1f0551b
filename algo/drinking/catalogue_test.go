package drinking_test

import (
	"strings"
	"testing"

	"allot/algo/all"
	"allot/conformance"
)

// TestConformance runs the exclusive suite (dining graphs and dynamic
// workloads, unordered channels unless the subroutine needs FIFO) on
// drinking-<sub> for every subroutine in the catalogue.
func TestConformance(t *testing.T) {
	n := 0
	for _, a := range all.List() {
		if !strings.HasPrefix(a.Name, "drinking-") {
			continue
		}
		n++
		t.Run(a.Name, func(t *testing.T) { conformance.Exclusive(t, a) })
	}
	if n < 2 {
		t.Fatalf("only %d drinking algorithms in the catalogue", n)
	}
}

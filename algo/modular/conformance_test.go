package modular

import (
	"testing"

	"allot/algo/algotest"
	"allot/algo/central"
)

// TestConformanceCatchesLiteral32: the conformance suite itself (events
// only) catches the literal reading of Fig. 5 line 32.
func TestConformanceCatchesLiteral32(t *testing.T) {
	if len(algotest.Check(forVariant(central.Algorithm, variant{literal32: true}), algotest.Cases(1))) == 0 {
		t.Fatal("the conformance suite passed modular-central with the literal line 32")
	}
}

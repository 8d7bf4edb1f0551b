package modular

import (
	"testing"

	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/conformance"
)

// TestConformanceCatchesLiteral32: the conformance suite itself (events
// only) catches the literal reading of Fig. 5 line 32.
func TestConformanceCatchesLiteral32(t *testing.T) {
	if len(conformance.Check(forVariant(central.Algorithm, variant{literal32: true}), conformance.Cases(1))) == 0 {
		t.Fatal("the conformance suite passed modular-central with the literal line 32")
	}
}

package hygienic

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/conformance"
)

func TestSuiteCatchesForkHandedOverWhileEating(t *testing.T) {
	fails := conformance.Check(Handover, conformance.Cases(1))
	if len(fails) == 0 || !strings.Contains(fails[0].Why, "exclusion") {
		t.Fatalf("broken hygienic not caught: %v", fails)
	}
}

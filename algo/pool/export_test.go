package pool

import (
	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Literal returns R-RESOURCES built with one damaged place of the listing
// read literally: "TH" (NORMALIZE raises TH[j]) or "HRSN" (TREAT-MESSAGE
// updates HRSN[j] before testing the request).
func Literal(which string) algo.Algorithm {
	rd := map[string]reading{"TH": literalTH, "HRSN": literalHRSN}[which]
	a := Algorithm
	a.Name = "pool-literal-" + which
	a.Build = func(pb *algo.Problem) ([]proc.Process, error) { return build(pb, rd) }
	return a
}

package pool

import (
	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Broken returns R-RESOURCES with each damaged place of the listing read
// literally (see the package doc): pool/literal-th (NORMALIZE raises
// TH[j]) and pool/literal-hrsn (TREAT-MESSAGE updates HRSN[j] before the
// request test). Neither is in the catalogue: they are the readings the
// suites keep to show they break (the pool suite, the explorer).
func Broken() []algo.Algorithm {
	var out []algo.Algorithm
	for _, b := range []struct {
		name, what string
		rd         reading
	}{{"literal-th", "NORMALIZE raises TH[j] as printed", literalTH}, {"literal-hrsn", "HRSN[j] updated before the request test as printed", literalHRSN}} {
		a := Algorithm
		a.Name += "/" + b.name
		a.Summary = "BROKEN on purpose: " + a.Summary + "; " + b.what
		rd := b.rd
		a.Build = func(pb *algo.Problem) ([]proc.Process, error) { return build(pb, rd) }
		out = append(out, a)
	}
	return out
}

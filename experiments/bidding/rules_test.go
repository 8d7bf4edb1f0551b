package bidding

import (
	"math"
	"testing"
)

// Each rule of the claims written in this file's package passes a series
// shaped like the paper's and rejects a plausible wrong one: a quadratic
// series for "linear", one twice over for an upper bound, half of it for a
// lower bound, a cubic or linear one for Θ(k²).
func TestRulesRejectWrongSeries(t *testing.T) {
	kv := []float64{4, 6, 8, 12, 16, 9, 12, 18, 24, 36, 64} // the grid's products
	line, quad, bound := make([]float64, len(kv)), make([]float64, len(kv)), make([]float64, len(kv))
	for i, x := range kv {
		line[i], quad[i], bound[i] = 1+2.1*x, 0.3*x*x, 2*math.E*3*x
	}
	if g := linearInKV(kv, line); !g.Pass {
		t.Errorf("a line: exponent %.2f ± %.2f rejected", g.E, g.Half)
	}
	if g := linearInKV(kv, quad); g.Pass {
		t.Errorf("(kv)²: exponent %.2f ± %.2f passes as linear", g.E, g.Half)
	}
	if _, ok := withinBounds(line, bound); !ok {
		t.Error("a mean within 2eβkv rejected")
	}
	twice := make([]float64, len(bound))
	for i := range bound {
		twice[i] = 2 * bound[i]
	}
	if w, ok := withinBounds(twice, bound); ok || w != 2 {
		t.Errorf("a mean 2× over 2eβkv: worst %v, pass %v", w, ok)
	}
	// Theorem 3's per-round success in units of 1/(βkv): [1/2e, 1].
	if !meetsRange(0.78, 0.97, 1/(2*math.E), 1) {
		t.Error("a rate inside [1/2e, 1] rejected")
	}
	if meetsRange(1.9, 2.1, 1/(2*math.E), 1) || meetsRange(0.05, 0.09, 1/(2*math.E), 1) {
		t.Error("a rate twice the upper bound, or half the lower, passes")
	}
	if !atLeastBound([]float64{1412, 20, 16}, []float64{12, 12, 12}) {
		t.Error("waits over the lower bound rejected")
	}
	if atLeastBound([]float64{1412, 6}, []float64{12, 12}) {
		t.Error("a wait half the lower bound passes")
	}
	ks := []float64{2, 3, 4, 5, 6, 8, 10}
	sq, lin, cube := make([]float64, len(ks)), make([]float64, len(ks)), make([]float64, len(ks))
	for i, k := range ks {
		sq[i], lin[i], cube[i] = 2.2*k*k*(1+0.03*float64(i%2)), 5*k, 0.3*k*k*k
	}
	if g := quadraticIn(ks, sq); !g.Pass {
		t.Errorf("k²: exponent %.2f ± %.2f rejected", g.E, g.Half)
	}
	for name, ys := range map[string][]float64{"k": lin, "k³": cube} {
		if g := quadraticIn(ks, ys); g.Pass {
			t.Errorf("%s: exponent %.2f ± %.2f passes as Θ(k²)", name, g.E, g.Half)
		}
	}
	if !noViolation(0) || noViolation(1) {
		t.Error("noViolation wrong")
	}
	if !faster(576, 3399) || faster(3399, 576) || faster(500, 500) {
		t.Error("faster wrong")
	}
	if !polylogLoss(4635, 3718, 18.5) || polylogLoss(2*18.5*3718, 3718, 18.5) || polylogLoss(0, 0, 18.5) {
		t.Error("polylogLoss passes a loss twice the polylog factor, or none measured")
	}
}

package sweep

import (
	"math"
	"testing"
)

func TestLineFit(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	a, b, r2 := LineFit(x, []float64{3, 5, 7, 9}) // y = 1 + 2x exactly
	if math.Abs(a-1) > 1e-12 || math.Abs(b-2) > 1e-12 || math.Abs(r2-1) > 1e-12 {
		t.Errorf("exact line: a %v b %v R² %v, want 1, 2, 1", a, b, r2)
	}
	if _, b, r2 := LineFit(x, []float64{1, 3, 1, 3}); b >= 1 || r2 >= 0.5 {
		t.Errorf("a zigzag: slope %v R² %v, want a poor fit", b, r2)
	}
}

// Linear passes a line with an intercept and a noisy one, and rejects a
// quadratic series on the same grid (which a rule on R² accepted: R² 0.92
// to 0.93 on the claims' own grids), a flat one and a falling one.
func TestLinearRejectsQuadratic(t *testing.T) {
	kv := []float64{4, 6, 8, 9, 12, 16, 18, 24, 32, 36, 48, 64}
	line, noisy, quad, flat, falling := make([]float64, len(kv)), make([]float64, len(kv)), make([]float64, len(kv)), make([]float64, len(kv)), make([]float64, len(kv))
	for i, x := range kv {
		line[i], noisy[i], quad[i], flat[i], falling[i] = 3+2.1*x, 2.1*x*(1+0.1*float64(i%3-1)), 0.05*x*x, 7*(1+0.05*float64(i%2)), 100/x
	}
	for _, tc := range []struct {
		name string
		y    []float64
		want bool
	}{{"line with intercept", line, true}, {"noisy line", noisy, true}, {"quadratic", quad, false}, {"flat", flat, false}, {"falling", falling, false}} {
		if g := Linear(kv, tc.y); g.Pass != tc.want {
			t.Errorf("%s: exponent %.2f ± %.2f, pass %v, want %v", tc.name, g.E, g.Half, g.Pass, tc.want)
		}
	}
	if e, h := Exponent([]float64{1, 2}, []float64{1, 4}); !math.IsNaN(e) || !math.IsInf(h, 1) {
		t.Errorf("two points: exponent %v ± %v, want no interval", e, h)
	}
}

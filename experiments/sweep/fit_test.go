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

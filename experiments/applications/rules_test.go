package applications

import (
	"math"
	"testing"
)

// Each pass rule accepts a series that fits its claim and rejects one that
// breaks it.

func TestLinearInKV(t *testing.T) {
	kv := []float64{4, 6, 8, 9, 12, 16, 18, 24, 36}
	bound := make([]float64, len(kv))
	good, expo, flatline, over := make([]float64, len(kv)), make([]float64, len(kv)), make([]float64, len(kv)), make([]float64, len(kv))
	for i, x := range kv {
		bound[i] = 2 * math.E * 2 * x
		good[i] = 2*x + 1 + float64(i%2) // linear, a little noise
		// The earlier static locking's O(k·v^(k+2)), with v = k = √kv.
		r := math.Sqrt(x)
		expo[i] = r * math.Pow(r, r+2)
		flatline[i] = 10 - float64(i%2)
		over[i] = 12 * x // linear but above the bound
	}
	if v := linearInKV(kv, good, bound); !v.Pass {
		t.Errorf("a linear series below the bound rejected: %+v", v)
	}
	quad := make([]float64, len(kv))
	for i, x := range kv {
		quad[i] = 0.3 * x * x // (kv)², below the bound at the smaller kv
	}
	for name, ys := range map[string][]float64{"k·v^(k+2)": expo, "flat": flatline, "above the bound": over, "(kv)²": quad} {
		big := make([]float64, len(bound))
		for i := range bound {
			big[i] = 100 * bound[i] // the growth alone is judged
		}
		if name == "above the bound" {
			big = bound
		}
		if v := linearInKV(kv, ys, big); v.Pass {
			t.Errorf("%s accepted: %+v", name, v)
		}
	}
}

func TestFaster(t *testing.T) {
	small := ci99([]float64{10, 11, 9, 10, 12, 8, 10, 11, 9, 10})
	large := ci99([]float64{30, 33, 27, 30, 36, 24, 30, 33, 27, 30})
	if !faster(small, large) {
		t.Errorf("%v not faster than %v", small, large)
	}
	if faster(large, small) || faster(small, small) {
		t.Error("a slower or equal series judged faster")
	}
	if faster(ci99(nil), large) || faster(ci99([]float64{1}), large) {
		t.Error("no samples, or one, judged faster")
	}
}

func TestChains(t *testing.T) {
	kv := []float64{8, 16, 32, 16, 32, 64, 32, 64, 128}
	whole, steeper, parallel := make([]float64, len(kv)), make([]float64, len(kv)), make([]float64, len(kv))
	for i, x := range kv {
		whole[i] = 2 * x
		steeper[i] = 0.2 * math.Pow(x, 1.6)
		parallel[i] = 3 * x // slower everywhere, but not growing faster
	}
	if v := chains(kv, steeper, whole); !v.Pass {
		t.Errorf("a steeper series rejected: %+v", v)
	}
	if v := chains(kv, parallel, whole); v.Pass {
		t.Errorf("a parallel series accepted: %+v", v)
	}
	if v := chains(kv, whole, steeper); v.Pass {
		t.Errorf("a shallower series accepted: %+v", v)
	}
}

func TestFlat(t *testing.T) {
	if v := flat([]float64{20, 21, 19.5, 20.4}); !v.Pass {
		t.Errorf("a flat series rejected: %+v", v)
	}
	n := []float64{16, 32, 64, 128}
	for name, f := range map[string]func(float64) float64{"log n": math.Log2, "n": func(x float64) float64 { return x }} {
		ys := make([]float64, len(n))
		for i, x := range n {
			ys[i] = f(x)
		}
		if v := flat(ys); v.Pass {
			t.Errorf("a series growing as %s accepted: %+v", name, v)
		}
	}
}

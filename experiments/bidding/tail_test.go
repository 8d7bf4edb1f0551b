package bidding

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The ε-response rule passes a geometric tail (what Theorem 4's proof
// bounds the rounds with) and rejects a power-law tail and a response
// that does not spread; each drawn from a fresh seed.
func TestTailRuleRejectsWrongTails(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 1))
	epss := []float64{0.1, 0.03, 0.01, 0.003, 0.001}
	draw := func(f func() float64) []tailRun {
		var runs []tailRun
		for range 4 {
			rs := make([]float64, 30000)
			for i := range rs {
				rs[i] = f()
			}
			runs = append(runs, measureTail(rs, epss))
		}
		return runs
	}
	p := 1 / 40.0
	geometric := func() float64 { return math.Floor(math.Log(1-rnd.Float64())/math.Log(1-p)) + rnd.Float64() }
	pareto := func() float64 { return math.Pow(1-rnd.Float64(), -1/2.0) }
	constant := func() float64 { return 40 + rnd.Float64() }
	for _, tc := range []struct {
		name string
		f    func() float64
		want bool
	}{{"geometric", geometric, true}, {"pareto α=2", pareto, false}, {"constant", constant, false}} {
		b, h, c, ok := tailVerdict(epss, draw(tc.f))
		if ok != tc.want {
			t.Errorf("%s: slope %.2f ± %.2f, curvature %.2f: pass %v, want %v", tc.name, b, h, c, ok, tc.want)
		}
	}
}

// The size rule passes a flat mean and rejects one growing like ln n or
// n^0.1.
func TestSizeRuleRejectsGrowth(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 2))
	for _, tc := range []struct {
		name string
		f    func(n float64) float64
		want bool
	}{
		{"flat", func(float64) float64 { return 20 }, true},
		{"ln n", func(n float64) float64 { return 5 * math.Log(n) }, false},
		{"n^0.1", func(n float64) float64 { return 10 * math.Pow(n, 0.1) }, false},
	} {
		var ns, ms []float64
		for _, n := range []float64{12, 24, 48, 96, 192} {
			for range 3 {
				ns, ms = append(ns, n), append(ms, tc.f(n)*(1+0.02*rnd.NormFloat64()))
			}
		}
		e, h := sizeSlope(ns, ms)
		if ok := e-h >= -sizeMargin && e+h <= sizeMargin; ok != tc.want {
			t.Errorf("%s: exponent %.3f ± %.3f: pass %v, want %v", tc.name, e, h, ok, tc.want)
		}
	}
}

// The constants rule: equal means give a ratio interval around 1; means
// 20 % apart fall outside 1 ± constMargin.
func TestRatioCI(t *testing.T) {
	a := []float64{10, 10.2, 9.9, 10.1}
	r, lo, hi := ratioCI(a, a)
	if r != 1 || lo >= 1 || hi <= 1 || lo < 1-constMargin || hi > 1+constMargin {
		t.Errorf("equal: %.3f [%.3f, %.3f]", r, lo, hi)
	}
	b := []float64{12, 12.3, 11.8, 12.1}
	if _, lo, _ := ratioCI(b, a); lo <= 1+constMargin {
		t.Errorf("20%% apart: interval from %.3f", lo)
	}
}

// The ε-response bound rejects a run whose quantile passes 2eβkv·ln(2e/ε).
func TestEpsBoundRejectsALongTail(t *testing.T) {
	// k = 3, v = 4, β = 2, ε = 0.01: the bound is 2e·24·ln(200e) ≈ 822.
	runs := []tailRun{{Quantiles: []float64{130}}, {Quantiles: []float64{125}}}
	if _, b, ok := epsWithin(runs, 0, 0.01, 2, 3, 4); !ok || math.Abs(b-821.8) > 0.1 {
		t.Errorf("a quantile of 130 against %.1f: pass %v", b, ok)
	}
	runs = append(runs, tailRun{Quantiles: []float64{900}})
	if w, b, ok := epsWithin(runs, 0, 0.01, 2, 3, 4); ok {
		t.Errorf("a quantile of %.0f against %.1f passes", w, b)
	}
}

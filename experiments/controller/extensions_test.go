package controller

import (
	"math"
	"testing"
)

// The pass rules, each shown rejecting a plausible wrong series.

func TestUnderLogFactorRejectsOneMoreLog(t *testing.T) {
	var ns []int
	var flat, more []float64
	for i, n := range []int{16, 23, 32, 45, 64, 91, 128, 181, 256} {
		l := math.Log2(float64(n))
		wobble := 1 + 0.2*float64(i%3-1) // the swing of Λ's power-of-two floor
		ns, flat, more = append(ns, n), append(flat, 3*wobble), append(more, 3*l*wobble)
	}
	if e, h, ok := underLogFactor(ns, flat); !ok {
		t.Errorf("n·lg²n judged over the bound: e = %.2f ± %.2f", e, h)
	}
	if e, h, ok := underLogFactor(ns, more); ok {
		t.Errorf("n·lg³n judged within it: e = %.2f ± %.2f", e, h)
	}
}

func TestLinearInLogRejectsQuadratic(t *testing.T) {
	var ls, lin, quad []float64
	for i, l := range []float64{2, 3, 5, 7, 9, 11, 13} {
		wobble := 1 + 0.1*float64(i%3-1)
		ls, lin, quad = append(ls, l), append(lin, (500*l+800)*wobble), append(quad, 500*l*l*wobble)
	}
	if e, h, ok := linearInLog(ls, lin); !ok {
		t.Errorf("linear growth rejected: e = %.2f ± %.2f", e, h)
	}
	if e, h, ok := linearInLog(ls, quad); ok {
		t.Errorf("quadratic growth accepted: e = %.2f ± %.2f", e, h)
	}
}

func TestWithinBoundRejectsTwiceOver(t *testing.T) {
	var under, twice, bounds []float64
	for _, n := range []int{16, 64, 256} {
		b := namesBound(n)
		bounds, under, twice = append(bounds, b), append(under, 0.9*b), append(twice, 2*b)
	}
	if w, ok := withinBound(under, bounds); !ok {
		t.Errorf("a series at 0.9 of the bound rejected (worst %.2f)", w)
	}
	if w, ok := withinBound(twice, bounds); ok {
		t.Errorf("a series 2× over the bound accepted (worst %.2f)", w)
	}
	// The bank's bound, the same rule.
	bounds, twice = bounds[:0], twice[:0]
	for _, n := range []int{16, 64, 256} {
		b := bankBound(bankOps*n, n, bankW*n)
		bounds, twice = append(bounds, b), append(twice, 2*b)
	}
	if w, ok := withinBound(twice, bounds); ok {
		t.Errorf("a bank series 2× over the bound accepted (worst %.2f)", w)
	}
	bounds, twice = bounds[:0], twice[:0]
	for _, n := range []int{16, 64, 256} {
		b := bankMainBound(bankOps*n, n, bankW*n)
		bounds, twice = append(bounds, b), append(twice, 2*b)
	}
	if w, ok := withinBound(twice, bounds); ok {
		t.Errorf("a bank-main series 2× over the bound accepted (worst %.2f)", w)
	}
}

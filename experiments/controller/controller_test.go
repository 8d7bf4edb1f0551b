package controller

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/proc"
	_ "github.com/allot-dev/allot/report/svg" // draws the figures these tests check
)

func TestControllerQuick(t *testing.T) {
	dir := t.TempDir()
	claims, err := Experiment().Run(context.Background(), study.Options{Quick: true, Seed: 1, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(claims) != 14 {
		t.Errorf("%d claims, want 14", len(claims))
	}
	for _, c := range claims {
		t.Logf("%s pass=%v: %s", c.ID, c.Pass, c.Measured)
		// The quick grid (n up to 256, one seed) is too short for the
		// exponent's interval to exclude 1: judged in the full run only.
		// modified-main-messages-n is a finding on lines (extensions.go):
		// it fails in the full run too.
		if !c.Pass && c.ID != "controller/main-messages-n" && c.ID != "controller/modified-main-messages-n" {
			t.Errorf("claim %s fails: %s", c.ID, c.Measured)
		}
	}
	for _, f := range []string{"controller-messages-n.svg", "controller-messages-w.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// The growth rules can fail: a cost growing like n² or n·lg³n is not
// bounded by n·lg²n.
func TestBoundedCatchesFasterGrowth(t *testing.T) {
	ns := []int{16, 32, 64, 128, 256, 512, 1024}
	var quad, cubed, shaped []float64
	for _, n := range ns {
		lg := math.Log2(float64(n))
		quad = append(quad, float64(n*n)/f(n, 2, 1))
		cubed = append(cubed, float64(n)*lg*lg*lg/f(n, 2, 1))
		// n·lg²n with a lower-order term: the ratio rises towards 7.7.
		shaped = append(shaped, 7.7-20/lg)
	}
	if bounded(ns, quad, 64) {
		t.Error("n² passed as O(n·lg²n)")
	}
	if bounded(ns, cubed, 64) {
		t.Error("n·lg³n passed as O(n·lg²n)")
	}
	if !bounded(ns, shaped, 64) {
		t.Error("n·lg²n with a lower-order term failed")
	}
	// The main controller's rule: the exponent of the ratio against lg n
	// over a dense grid, its 95 % interval below 1. n·lg³n is rejected,
	// with or without a swing between neighbouring n; n·lg²n with a
	// lower-order term and a ×3 swing passes.
	dense := []int{16, 23, 32, 45, 64, 91, 128, 181, 256, 362, 512, 724, 1024}
	swing := []float64{1, 1.6, 1.5, 2.5, 0.85, 1.9, 1.25}
	for _, c := range []struct {
		name  string
		ratio func(lg float64) float64
		swing bool
		want  bool
	}{
		{"n·lg³n", func(lg float64) float64 { return lg }, false, false},
		{"n·lg³n, swinging", func(lg float64) float64 { return lg }, true, false},
		{"n²", func(lg float64) float64 { return math.Pow(2, lg) / (lg * lg) }, true, false},
		{"n·lg²n with a lower-order term, swinging", func(lg float64) float64 { return 7.7 - 10/lg }, true, true},
	} {
		var ns []int
		var rs []float64
		for i, n := range dense {
			for s := range 3 {
				k := 1.0
				if c.swing {
					k = swing[i%len(swing)]
				}
				ns, rs = append(ns, n), append(rs, c.ratio(math.Log2(float64(n)))*k*(1+0.01*float64(s)))
			}
		}
		if e, h := logExponent(ns, rs); (e+h < 1) != c.want {
			t.Errorf("%s: exponent %.2f ± %.2f", c.name, e, h)
		}
	}
	// Whatever M: a flat or settling cost passes, ln M or M^0.2 does not.
	for _, c := range []struct {
		name string
		f    func(m float64) float64
		want bool
	}{
		{"flat", func(float64) float64 { return 5e4 }, true},
		{"settling", func(m float64) float64 { return 25000 - 1.2e7/m }, true},
		{"ln M", func(m float64) float64 { return 5e3 * math.Log(m) }, false},
		{"M^0.2", func(m float64) float64 { return 5e3 * math.Pow(m, 0.2) }, false},
	} {
		var ms []float64
		for st := range 11 {
			ms = append(ms, c.f(1542*math.Pow(2, float64(st)/2)))
		}
		if first, last, ok := settles(ms); ok != c.want {
			t.Errorf("whatever M, %s: first octave %.3f, last %.3f", c.name, first, last)
		}
	}
	if c, r2 := fitOrigin([]float64{1, 2, 4}, []float64{3, 6, 12}); c != 3 || r2 < 0.999 {
		t.Errorf("exact fit: c %.3f R² %.3f", c, r2)
	}
}

// The participants count: a message from or to a node that never asks
// counts, one among askers does not, nor the spanning tree's.
func TestOutsideCounter(t *testing.T) {
	c := outsideCounter{askers: 3}
	for _, e := range []proc.Event{
		{Kind: proc.EvSend, P: 0, Peer: 1, Msg: "req"},
		{Kind: proc.EvSend, P: 2, Peer: 5, Msg: "bcast"},
		{Kind: proc.EvSend, P: 5, Peer: 2, Msg: "echo"},
		{Kind: proc.EvSend, P: 2, Peer: 5, Msg: "explore"},
		{Kind: proc.EvDeliver, P: 5, Peer: 2, Msg: "bcast"},
	} {
		c.Event(e)
	}
	if c.from != 1 || c.to != 1 {
		t.Errorf("from %d, to %d; want 1 and 1", c.from, c.to)
	}
}

// The rules of zero-waste, vs-central-counter and small-waste pass the
// paper's shape and reject a wrong one.
func TestRulesRejectWrongSeries(t *testing.T) {
	if !allExact(12, 12) || allExact(12, 11) || allExact(0, 0) {
		t.Error("zero-waste: one run short of M passes, or none rejected")
	}
	// The gap of Ω(nM) over n·lg²n·log(M/(W+1)) grows; a counter only a
	// constant factor worse, or one whose gap shrinks, fails.
	if !gapGrows([]float64{3, 2.5, 5, 11, 24}) {
		t.Error("a growing gap rejected")
	}
	for name, qs := range map[string][]float64{"constant ×2": {2, 2, 2, 2, 2}, "shrinking": {3, 40, 30, 20, 12}, "growing to ×6": {1, 2, 3, 4, 6}} {
		if gapGrows(qs) {
			t.Errorf("vs-central-counter: %s passes", name)
		}
	}
	// Basic ×16 against modified ×1.3 with the modified flat in log(M/W):
	// passes; the modified controller growing like M/W too (×16), or 2×
	// over its log(M/(W+1)) law, fails.
	if !iteratingPays(16, 1.3, 1.05) {
		t.Error("small-waste: the paper's shape rejected")
	}
	if iteratingPays(16, 16, 1.05) || iteratingPays(16, 1.3, 2) {
		t.Error("small-waste: a modified controller growing like M/W, or twice its law, passes")
	}
}

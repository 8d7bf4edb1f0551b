package controller

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/allot-dev/allot/experiments/study"
)

func TestControllerQuick(t *testing.T) {
	dir := t.TempDir()
	claims, err := Experiment().Run(context.Background(), study.Options{Quick: true, Seed: 1, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(claims) != 9 {
		t.Errorf("%d claims, want 9", len(claims))
	}
	for _, c := range claims {
		t.Logf("%s pass=%v: %s", c.ID, c.Pass, c.Measured)
		if !c.Pass {
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
	for _, c := range []struct {
		name string
		rs   []float64
		want bool
	}{{"n²", quad, false}, {"n·lg³n", cubed, false}, {"n·lg²n with a lower-order term", shaped, true}} {
		if e := extraLog(ns, c.rs, 64); (e < 0.75) != c.want {
			t.Errorf("%s: extra log exponent %.2f", c.name, e)
		}
	}
	// A swing of ×3 between neighbouring n with no trend passes.
	if e := extraLog(ns, []float64{5, 8, 7.5, 12.5, 4.2, 9.4, 6.2}, 64); e >= 0.75 {
		t.Errorf("a swing without trend: extra log exponent %.2f", e)
	}
	if c, r2 := fitOrigin([]float64{1, 2, 4}, []float64{3, 6, 12}); c != 3 || r2 < 0.999 {
		t.Errorf("exact fit: c %.3f R² %.3f", c, r2)
	}
}

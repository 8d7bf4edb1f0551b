package sweep

import (
	"context"
	"math"
	"testing"
)

func TestMapKeepsOrderAndReportsProgress(t *testing.T) {
	last := 0
	out, err := Map(context.Background(), 100, func(done, total int) {
		if done != last+1 || total != 100 {
			t.Errorf("progress %d/%d after %d", done, total, last)
		}
		last = done
	}, func(i int) int { return i * i })
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		if v != i*i {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
	if last != 100 {
		t.Errorf("progress ended at %d", last)
	}
}

func TestMapStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Map(ctx, 1000, nil, func(i int) int { return i }); err == nil {
		t.Error("a cancelled sweep returned no error")
	}
}

func TestSeedSeparatesCoordinates(t *testing.T) {
	seen := map[uint64]bool{}
	for a := uint64(0); a < 30; a++ {
		for b := uint64(0); b < 30; b++ {
			s := Seed(1, a, b)
			if seen[s] {
				t.Fatalf("seed collision at (%d, %d)", a, b)
			}
			seen[s] = true
		}
	}
	if Seed(1, 2, 3) == Seed(1, 3, 2) {
		t.Error("coordinates commute")
	}
}

func TestCI95(t *testing.T) {
	m, h := CI95([]float64{1, 2, 3, 4, 5})
	if m != 3 || math.Abs(h-2.776*math.Sqrt(2.5/5)) > 1e-12 {
		t.Errorf("CI95 = %v ± %v", m, h)
	}
}

func TestT95(t *testing.T) {
	// sd = 1.291, t(3) = 3.182: half = 3.182·1.291/2 = 2.054
	if m, h := CI95([]float64{1, 2, 3, 4}); m != 2.5 || math.Abs(h-2.054) > 0.001 {
		t.Fatalf("got %v ± %v", m, h)
	}
	if _, h := CI95([]float64{5}); h != 0 {
		t.Fatalf("one sample: half-width %v, want 0 (no interval)", h)
	}
	if math.Abs(T95(31)-2.040) > 0.01 || math.Abs(T95(1000)-1.962) > 0.002 {
		t.Fatalf("t quantiles off: %v %v", T95(31), T95(1000))
	}
}

func TestWilson99(t *testing.T) {
	lo, hi := Wilson99(50, 100)
	if lo >= 0.5 || hi <= 0.5 || math.Abs((lo+hi)/2-0.5) > 1e-12 || hi-lo > 0.25 || hi-lo < 0.24 {
		t.Errorf("Wilson99(50, 100) = [%v, %v]", lo, hi)
	}
}

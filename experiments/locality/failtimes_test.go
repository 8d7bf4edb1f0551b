package locality

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/proc"
)

// TestExpTimes: the exponential draw picks each process in proportion to
// its likelihood, and its crash times past the warm-up are exponential
// with mean crashMean: a third of them (e^−1 ≈ 0.37) past the mean, one
// in seven (e^−2) past twice the mean. The uniform draw, checked the same
// way, is rejected (half past the mean, none past twice it).
func TestExpTimes(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 1))
	f := []float64{0.95, 0.02, 0.02, 0.95, 0.02, 0.02, 0.02}
	const draws = 20000
	limit := proc.Time(1 << 40) // no conditioning
	exp := func(c crashTimes) (byP []float64, mean, past1, past2 float64) {
		byP = make([]float64, len(f))
		for range draws {
			x, at := c.draw(f, rnd, limit)
			byP[x]++
			d := float64(at - crashWarm)
			mean += d / draws
			if d > crashMean {
				past1 += 1.0 / draws
			}
			if d > 2*crashMean {
				past2 += 1.0 / draws
			}
		}
		return byP, mean, past1, past2
	}
	byP, mean, p1, p2 := exp(expTimes)
	if math.Abs(mean/crashMean-1) > 0.05 || math.Abs(p1-math.Exp(-1)) > 0.02 || math.Abs(p2-math.Exp(-2)) > 0.015 {
		t.Errorf("exponential: mean %.0f (want %d), past the mean %.3f (want %.3f), past twice %.3f (want %.3f)", mean, crashMean, p1, math.Exp(-1), p2, math.Exp(-2))
	}
	total := 0.0
	for _, x := range f {
		total += x
	}
	for u, k := range byP {
		if want := f[u] / total * draws; math.Abs(k-want) > 5*math.Sqrt(want)+5 {
			t.Errorf("process %d crashed %.0f times, want about %.0f", u, k, want)
		}
	}
	if _, _, p1, p2 := exp(uniformTimes); math.Abs(p1-math.Exp(-1)) <= 0.02 && math.Abs(p2-math.Exp(-2)) <= 0.015 {
		t.Errorf("the uniform draw passes for exponential: past the mean %.3f, past twice %.3f", p1, p2)
	}
	// Conditioned on a crash before the limit.
	for range 1000 {
		if _, at := expTimes.draw(f, rnd, 1000); at >= 1000 || at < crashWarm {
			t.Fatalf("crash at %d, want in [%d, 1000)", at, crashWarm)
		}
	}
}

// TestUnhygienicExpQuick: the failure-model claim with exponential
// failure times passes in the quick configuration.
func TestUnhygienicExpQuick(t *testing.T) {
	claims, err := unhygienicExpClaims(context.Background(), study.Options{Quick: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range claims {
		t.Logf("%s pass=%v: %s", c.ID, c.Pass, c.Measured)
		if !c.Pass {
			t.Errorf("%s fails", c.ID)
		}
	}
}

package workload

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/proc"
)

func TestDynamic(t *testing.T) {
	d := Dynamic{Users: 30, Resources: 10, MinDemand: 2, MaxDemand: 4}
	pb, next, err := d.Problem(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if pb.Conflict.M() != 30*29/2 {
		t.Errorf("without fixed sets every two users conflict; got %d edges", pb.Conflict.M())
	}
	r := rand.New(rand.NewPCG(2, 2))
	sizes := map[int]int{}
	for i := 0; i < 3000; i++ {
		set := next(3, r).Res
		sizes[len(set)]++
		for j := 1; j < len(set); j++ {
			if set[j] <= set[j-1] || set[j] >= 10 || set[0] < 0 {
				t.Fatalf("bad set %v", set)
			}
		}
	}
	if len(sizes) != 3 || sizes[2] < 800 || sizes[4] < 800 {
		t.Errorf("set sizes %v, want 2..4 about evenly", sizes)
	}
	d.FixedSets = true
	pb, next, _ = d.Problem(rand.New(rand.NewPCG(1, 1)))
	for u := 0; u < 30; u++ {
		if s := next(proc.ID(u), r).Res; &s[0] != &pb.MaxSets[u][0] {
			t.Fatal("fixed sets: the request is not the user's set")
		}
	}
	for _, bad := range []Dynamic{{}, {Users: 1, Resources: 1}, {Users: 1, Resources: 2, MinDemand: 3, MaxDemand: 3}, {Users: 1, Resources: 5, MinDemand: 3, MaxDemand: 2}} {
		if _, _, err := bad.Problem(r); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestZipf: readsets drawn with a Zipf skew are sets of the asked sizes,
// and a one-resource draw picks resource r with probability about
// (1/(r+1)^s) / Σ 1/(j+1)^s.
func TestZipf(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	d := Dynamic{Users: 5, Resources: 10, MinDemand: 2, MaxDemand: 6, Zipf: 1.2}
	_, next, err := d.Problem(r)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		set := next(0, r).Res
		if len(set) < 2 || len(set) > 6 {
			t.Fatalf("seed %d: size %d", seed, len(set))
		}
		for j := 1; j < len(set); j++ {
			if set[j] <= set[j-1] || set[j] >= 10 || set[0] < 0 {
				t.Fatalf("seed %d: bad set %v", seed, set)
			}
		}
	}
	d.MinDemand, d.MaxDemand = 1, 1
	_, next, _ = d.Problem(r)
	const draws = 20000
	counts := make([]int, 10)
	for i := 0; i < draws; i++ {
		counts[next(0, r).Res[0]]++
	}
	var h float64
	for j := 1; j <= 10; j++ {
		h += math.Pow(float64(j), -1.2)
	}
	for _, res := range []int{0, 1, 9} {
		want := math.Pow(float64(res+1), -1.2) / h
		// The binomial's standard deviation is below 0.004 here: 0.02 is
		// five of them.
		if got := float64(counts[res]) / draws; math.Abs(got-want) > 0.02 {
			t.Errorf("seed %d: resource %d drawn %.3f of the time, want %.3f", seed, res, got, want)
		}
	}
	for _, s := range []float64{-1, math.NaN(), 11} {
		if err := (Dynamic{Users: 1, Resources: 2, MinDemand: 1, MaxDemand: 1, Zipf: s}).Validate(); err == nil {
			t.Errorf("zipf %g accepted", s)
		}
	}
}

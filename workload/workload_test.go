package workload

import (
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

package threshold_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"allot/algo/internal/dinetest"
	"allot/algo/threshold"
	"allot/graph"
	"allot/proc"
)

var specs = []string{"line:2", "line:7", "ring:5", "ring:8", "grid:3x4", "complete:5", "star:6", "tree:12:3", "random:15:0.3", "random:25:0.15"}

func TestSafeAndLive(t *testing.T) {
	for _, spec := range specs {
		for seed := uint64(0); seed < 30; seed++ {
			g, err := graph.Parse(spec, rand.New(rand.NewPCG(seed, 9)))
			if err != nil {
				t.Fatal(err)
			}
			cfg := dinetest.Config{Seed: seed, MaxDelay: []proc.Time{1, 5, 40}[seed%3], Think: []proc.Time{0, 10, 100}[seed/3%3], Eat: 5, Requests: 40 * g.N(), FIFO: seed%2 == 0}
			res, err := dinetest.Run(threshold.Algorithm, g, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Error != nil {
				t.Fatalf("%s seed %d: %v", spec, seed, res.Error)
			}
			if res.Served < cfg.Requests {
				t.Fatalf("%s seed %d: deadlock after %d entries, hungry %v", spec, seed, res.Served, res.Hungry)
			}
		}
	}
}

func ExampleBuild() {
	g, _ := graph.Parse("ring:4", nil)
	res, _ := dinetest.Run(threshold.Algorithm, g, dinetest.Config{Seed: 1, MaxDelay: 3, Eat: 2, Requests: 100})
	fmt.Println(res.Served, res.Error)
	// Output: 100 <nil>
}

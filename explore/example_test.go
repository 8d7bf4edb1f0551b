package explore_test

import (
	"fmt"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/explore"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// ExampleRun explores hygienic dining on a ring of three philosophers, one
// meal each: every interleaving, checked for exclusion, deadlock and
// starvation on fair runs.
func ExampleRun() {
	g, _ := graph.New(3, [][2]proc.ID{{0, 1}, {1, 2}, {2, 0}})
	r, err := explore.Run(explore.Config{
		Algorithm: hygienic.Algorithm,
		Problem:   algo.DiningProblem(g),
		Requests:  1,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.States, "states, complete:", r.Complete, "violations:", r.Violations)
	// Output:
	// 485 states, complete: true violations: 0
}

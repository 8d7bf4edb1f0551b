package bidding_test

import (
	"fmt"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/bidding"
	"github.com/allot-dev/allot/proc"
)

// The constants of §3.2 for a problem where every user wants two of four
// resources and each resource is wanted by two users, with process speeds
// varying by a factor of two.
func ExampleNewParams() {
	pb := &algo.Problem{
		Kind: algo.Exclusive, Users: 4, Resources: 4,
		MaxSets: [][]proc.ResID{{0, 1}, {1, 2}, {2, 3}, {3, 0}},
		Options: map[string]string{"ratio": "2", "mu": "3"},
	}
	p, err := bidding.NewParams(pb, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("k=%d v=%d β=%g: a draw wins with probability 1/%d\n", p.K, p.V, p.Beta, p.Draws(0))
	fmt.Printf("λ1=%d steps, a round is c=%d steps, %d attempts fit in it\n", p.Lambda1, p.C, p.Attempts())
	// Output:
	// k=2 v=2 β=3: a draw wins with probability 1/12
	// λ1=5 steps, a round is c=68 steps, 13 attempts fit in it
}

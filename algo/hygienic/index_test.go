package hygienic

import (
	"slices"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// TestIndexOfDenseNeighboursLoadsNoList: on a dense neighbour list (all
// ids in a range but one: complete:N's) a neighbour's index is arithmetic,
// with no load of the list (its cache misses were most of a run on
// complete:5000); on any list it is the neighbour's position.
func TestIndexOfDenseNeighboursLoadsNoList(t *testing.T) {
	ids := func(lo, hi proc.ID, skip ...proc.ID) []proc.ID {
		var s []proc.ID
		for q := lo; q <= hi; q++ {
			if !slices.Contains(skip, q) {
				s = append(s, q)
			}
		}
		return s
	}
	for _, c := range []struct {
		self  proc.ID
		nbr   []proc.ID
		dense bool
	}{
		{7, ids(0, 19, 7), true},         // complete:20
		{0, ids(1, 19), true},            // complete:20's node 0, a star's centre
		{19, ids(0, 18), true},           // its last node
		{3, ids(4, 12, 9), true},         // a range with a hole
		{3, ids(0, 30, 3, 9, 17), false}, // two holes
		{50, []proc.ID{1, 5, 9, 11, 40, 60}, false},
	} {
		var n Node
		n.init(c.self, c.nbr)
		if n.big == nil || n.big.dense != c.dense {
			t.Fatalf("node %d with %v: dense %v, want %v", c.self, c.nbr, n.big != nil && n.big.dense, c.dense)
		}
		for i, q := range c.nbr {
			if got := n.index(q); got != i {
				t.Errorf("node %d with %v: index(%d) = %d, want %d", c.self, c.nbr, q, got, i)
			}
		}
		if c.dense {
			n.big.nbr = nil // a load of the list would now fail
			for i, q := range c.nbr {
				if got := n.index(q); got != i {
					t.Errorf("node %d: index(%d) = %d without its list, want %d", c.self, q, got, i)
				}
			}
		}
	}
}

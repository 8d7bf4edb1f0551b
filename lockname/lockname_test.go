package lockname

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHomeOrderFree: a name's home is the same whatever the order the
// members are given in (every node computes it from its own copy of the
// view), and a member leaving moves only the names it was home of; over
// names drawn from a fresh seed, printed.
func TestHomeOrderFree(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	members := []int{0, 1, 2, 3, 4, 5, 6}
	for i := 0; i < 2000; i++ {
		name := fmt.Sprintf("n%d", r.Uint64())
		h := Home(name, members)
		shuffled := slices.Clone(members)
		r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		if g := Home(name, shuffled); g != h {
			t.Fatalf("%q: home %d of %v, %d of %v", name, h, members, g, shuffled)
		}
		gone := members[r.IntN(len(members))]
		rest := slices.DeleteFunc(slices.Clone(members), func(m int) bool { return m == gone })
		if g := Home(name, rest); h != gone && g != h {
			t.Fatalf("%q: home %d moved to %d when %d left", name, h, g, gone)
		}
	}
	if Home("x", nil) != -1 {
		t.Error("a home among no members")
	}
}

// TestIDsDisjoint: no two homes of a view give the same id, and a home's
// ids are placed at it (id mod n is its rank).
func TestIDsDisjoint(t *testing.T) {
	for _, n := range []int{1, 3, 7} {
		seen := map[int]bool{}
		for rank := 0; rank < n; rank++ {
			for k := 0; k < 50; k++ {
				id := ID(rank, n, k)
				if seen[id] || id%n != rank {
					t.Fatalf("n %d: rank %d's id %d (k %d): given twice, or not at its home", n, rank, id, k)
				}
				seen[id] = true
			}
		}
	}
}

func ExampleHome() {
	view := []int{0, 1, 2}
	h := Home("accounts/alice", view)
	fmt.Println(h == Home("accounts/alice", []int{2, 0, 1}))
	fmt.Println(ID(1, 3, 0), ID(1, 3, 1), ID(1, 3, 2)) // member of rank 1's first ids
	// Output:
	// true
	// 1 4 7
}

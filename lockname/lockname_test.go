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

// TestTable: a home gives each name one id, the same to every question,
// ids of its own range in order, none at or past the limit; answers are
// kept until forgotten.
func TestTable(t *testing.T) {
	for _, c := range []struct {
		rank, n, limit int
		names          []string
		want           []int // the ids given, -1: refused
	}{
		{0, 1, 0, []string{"a", "b", "a", "c"}, []int{0, 1, 0, 2}},
		{1, 3, 0, []string{"a", "b", "b", "c"}, []int{1, 4, 4, 7}},
		{2, 3, 8, []string{"a", "b", "c", "a"}, []int{2, 5, -1, 2}},
		{0, 3, 1, []string{"a", "b"}, []int{0, -1}},
	} {
		tb := NewTable[string](c.rank, c.n, c.limit)
		var got []int
		for _, name := range c.names {
			id, ok := tb.Assign(name)
			if !ok {
				id = -1
			}
			got = append(got, id)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("rank %d of %d, limit %d, %q: ids %v, want %v", c.rank, c.n, c.limit, c.names, got, c.want)
		}
	}
	tb := NewTable[int32](0, 3, 0)
	if _, ok := tb.Known(7); ok {
		t.Error("an answer never learnt")
	}
	tb.Learn(7, 4)
	tb.Assign(8)
	if id, ok := tb.Given(8); !ok || id != 0 {
		t.Errorf("Given(8) = %d, %v", id, ok)
	}
	if _, ok := tb.Given(7); ok {
		t.Error("an id given to a name homed elsewhere")
	}
	if id, ok := tb.Known(7); !ok || id != 4 || tb.Len() != 2 {
		t.Errorf("Known(7) = %d, %v; Len %d", id, ok, tb.Len())
	}
	tb.Forget(7)
	if _, ok := tb.Known(7); ok || tb.Len() != 1 {
		t.Errorf("forgotten, still known; Len %d", tb.Len())
	}
}

func ExampleTable() {
	// The member of rank 1 of a view of 3, its ids below 8: 1, 4, 7.
	tb := NewTable[string](1, 3, 8)
	a, _ := tb.Assign("accounts/alice")
	b, _ := tb.Assign("accounts/bob")
	again, _ := tb.Assign("accounts/alice")
	tb.Assign("accounts/carol")
	_, ok := tb.Assign("accounts/dave") // 10: past the range
	fmt.Println(a, b, again, ok)
	// Output:
	// 1 4 1 false
}

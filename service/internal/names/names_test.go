package names

import (
	"fmt"
	"testing"

	"github.com/allot-dev/allot/service/internal/space"
)

// TestHome: a name's home is a member; names spread over the members
// (each of 3 homes about a third of 3,000 names); taking a member out
// moves only the names it was home to.
func TestHome(t *testing.T) {
	all := space.SetOf(0, 2, 5)
	less := space.SetOf(0, 5)
	count := map[int]int{}
	for i := range 3000 {
		name := fmt.Sprintf("name/%d", i)
		h := Home(name, all)
		if all.Rank(h) < 0 {
			t.Fatalf("%s: home %d is not a member of %v", name, h, all.List())
		}
		count[h]++
		if h2 := Home(name, less); h != 2 && h2 != h {
			t.Fatalf("%s moved from %d to %d when node 2 left", name, h, h2)
		}
	}
	for _, m := range all.List() {
		if count[m] < 800 || count[m] > 1200 {
			t.Errorf("member %d is home to %d of 3000 names, want about 1000 (%v)", m, count[m], count)
		}
	}
	if h := Home("x", space.SetOf(7)); h != 7 {
		t.Errorf("the one member's home: %d", h)
	}
}

package users_test

import (
	"fmt"

	"github.com/allot-dev/allot/users"
)

// The node of rank 1 in a view of 3 members, with at most 2 users of the
// lock: two Locks make users 1 and 4; a third is refused while both are
// busy, and claims user 1 once its Unlock is answered (given back, its
// release not run yet); a regrant makes user 7, past the most. The
// first of the three to go idle is dropped (three alive, the most two),
// the others kept.
func Example() {
	l := users.New(1, 3, 2, 1<<24)
	for range 2 {
		v, id := l.Ask(false)
		fmt.Println(v, id)
		l.Made()
	}
	v, _ := l.Ask(false)
	fmt.Println(v)

	l.GivenBack(1)
	v, _ = l.Ask(false)
	fmt.Println(v)
	l.Returned(1) // the claimant took it idle
	l.Unclaim()

	v, id := l.Ask(true)
	fmt.Println("regrant:", v, id)
	l.Made()

	for _, id := range []int{7, 1, 4} {
		keep := l.Keep()
		if !keep {
			l.Dropped()
		}
		fmt.Printf("user %d idle: kept %v\n", id, keep)
	}
	fmt.Println("made", l.Len(), "alive", l.Alive(), "most", l.Most())
	// Output:
	// make 1
	// make 4
	// full
	// claim
	// regrant: make 7
	// user 7 idle: kept false
	// user 1 idle: kept true
	// user 4 idle: kept true
	// made 3 alive 2 most 2
}

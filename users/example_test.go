package users_test

import (
	"fmt"

	"github.com/allot-dev/allot/users"
)

// The node of rank 1 in a view of 3 members, with at most 2 users of the
// lock: two Locks make users 1 and 4; a third is refused while both are
// busy, and claims user 1 once its Unlock is answered (given back, its
// release not run yet); a regrant makes user 7, past the most. Going
// idle, users 1 and 4 are kept, user 7 is not.
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

	for idle := range 3 {
		fmt.Printf("idle %d: keep another %v\n", idle, l.Keep(idle))
	}
	fmt.Println("made", l.Len(), "most", l.Most())
	// Output:
	// make 1
	// make 4
	// full
	// claim
	// regrant: make 7
	// idle 0: keep another true
	// idle 1: keep another true
	// idle 2: keep another false
	// made 3 most 2
}

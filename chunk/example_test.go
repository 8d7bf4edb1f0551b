package chunk_test

import (
	"fmt"

	"github.com/allot-dev/allot/chunk"
)

// A node with 3 permits of a quota on disk serves view 5, where the log
// allows its count to reach 5 (its report plus a chunk of 2): two
// permits are reserved, the third waits. One is issued (4 on disk), one
// rejected: one more fits. The node's report commits, the limit grows
// to 7, and the waiters wake.
func Example() {
	limit := uint64(5)
	q := chunk.New([]uint64{3})
	q.Set(5, func(int) (uint64, bool) { return limit, true })
	for range 3 {
		fmt.Println("reserve:", q.Reserve(5, 0))
	}
	q.Settle(0, 1, 4) // issued, on disk
	q.Settle(0, 1, 0) // rejected
	fmt.Println("reserve:", q.Reserve(5, 0), q.Reserve(5, 0))
	limit = 7
	fmt.Println("grew:", q.Set(5, func(int) (uint64, bool) { return limit, true }))
	fmt.Println("reserve in view 6:", q.Reserve(6, 0))
	fmt.Println("counts:", q.Counts())
	// Output:
	// reserve: true
	// reserve: true
	// reserve: false
	// reserve: true false
	// grew: true
	// reserve in view 6: false
	// counts: [4]
}

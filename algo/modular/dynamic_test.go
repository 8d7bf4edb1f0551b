package modular

import (
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/bidding"
	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/algo/doorway"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/algo/ordered"
	"github.com/allot-dev/allot/algo/threshold"
	"github.com/allot-dev/allot/algo/unhygienic"
	"github.com/allot-dev/allot/proc"
)

// subs are the subroutines the package tests run under: ordered too,
// since modular-ordered serves the service's locks.
func subs() []algo.Algorithm {
	return []algo.Algorithm{lockAlg, central.Algorithm, ordered.Algorithm, hygienic.Algorithm, threshold.Algorithm,
		doorway.Algorithm, unhygienic.Algorithm, bidding.Algorithm}
}

// TestConcurrency is Theorem 5.11: users 0 and 1 hold resources 0 and 1
// forever (they ask long before the others, so that even a slow
// subroutine has let them in); users 2 and 3 want them too and wait
// forever; user 4 asks
// for resources 2 and 3 over and over, conflicts with nobody, and must get
// through every time — although its maximum set (every resource: the sets
// are unknown) overlaps everybody's, so a dining algorithm alone would make
// it wait for the users holding forever.
func TestConcurrency(t *testing.T) {
	for _, sub := range subs() {
		t.Run(sub.Name, func(t *testing.T) {
			for seed := uint64(1); seed <= 20; seed++ {
				n, err := concurrencyRun(t, For(sub), seed)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if n.entered[0] != 1 || n.entered[1] != 1 {
					t.Fatalf("seed %d: users 0, 1 entered %d, %d times; want them holding since before the others ask", seed, n.entered[0], n.entered[1])
				}
				if n.entered[2] != 0 || n.entered[3] != 0 {
					t.Fatalf("seed %d: users 2, 3 entered %d, %d times while users 0, 1 hold", seed, n.entered[2], n.entered[3])
				}
				if n.entered[4] < 3 {
					t.Fatalf("seed %d: user 4, which conflicts with nobody, entered only %d times", seed, n.entered[4])
				}
			}
		})
	}
	// The check can fail: the subroutine alone (a global lock) makes user
	// 4 wait for the users that hold forever.
	n, err := concurrencyRun(t, lockAlg, 1)
	if err != nil || n.entered[4] != 0 {
		t.Fatalf("bare subroutine: err %v, user 4 entered %d times; want it blocked", err, n.entered[4])
	}
}

func concurrencyRun(t *testing.T, a algo.Algorithm, seed uint64) (*tnet, error) {
	n, err := newNet(a, dynamicProblem(5, 4), seed)
	if err != nil {
		t.Fatal(err)
	}
	sets := [][]proc.ResID{{0}, {1}, {0, 1}, {0}, {2, 3}}
	n.next = func(u proc.ID, _ *rand.Rand) []proc.ResID { return sets[u] }
	n.start = func(u proc.ID) proc.Time { return []proc.Time{0, 0, 100000, 100010, 100020}[u] }
	n.forever = map[proc.ID]bool{0: true, 1: true}
	n.horizon = 200000
	n.requests = 1 << 30
	return n, n.run()
}

// TestDynamicUsers: users with a new random set on every request, half of
// whom appear only late in the run (their first request comes after the
// others have been served many times), all get served.
func TestDynamicUsers(t *testing.T) {
	for _, sub := range subs() {
		t.Run(sub.Name, func(t *testing.T) {
			for seed := uint64(1); seed <= 20; seed++ {
				n, err := newNet(For(sub), dynamicProblem(12, 8), seed)
				if err != nil {
					t.Fatal(err)
				}
				n.next = randomSets(8, 1, 4)
				n.start = func(u proc.ID) proc.Time {
					if u%2 == 1 {
						return 2000 + 300*proc.Time(u)
					}
					return 0
				}
				n.requests = 400
				if err := n.run(); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if n.served != n.requests {
					t.Fatalf("seed %d: served %d of %d; starved %v", seed, n.served, n.requests, n.starved())
				}
				for u := 1; u < 12; u += 2 {
					if n.entered[u] == 0 {
						t.Fatalf("seed %d: late user %d never entered", seed, u)
					}
				}
			}
		})
	}
}

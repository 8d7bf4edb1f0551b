package workload_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/workload"
)

func TestMatrixNetworks(t *testing.T) {
	for _, spec := range []string{"matrix:1:1", "matrix:3:3", "matrix:2:5", "matrix:4:2", "matrix-groups:3:2", "matrix-groups:1:4", "matrix-groups:4:3"} {
		m, err := workload.ParseMatrix(spec)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := m.Problem()
		if err != nil {
			t.Fatal(err)
		}
		if pb.Users != m.A*m.B {
			t.Errorf("%s: %d users, want %d", spec, pb.Users, m.A*m.B)
		}
		maxK := 0
		wanted := make([]int, pb.Resources)
		for u, set := range pb.MaxSets {
			maxK = max(maxK, len(set))
			if !slices.IsSorted(set) {
				t.Errorf("%s: user %d's set is not sorted", spec, u)
			}
			for _, r := range set {
				wanted[r]++
			}
			// Every two crosses meet: at most one user at a time.
			for w := u + 1; w < pb.Users; w++ {
				if !slices.ContainsFunc(set, func(r proc.ResID) bool { return slices.Contains(pb.MaxSets[w], r) }) {
					t.Errorf("%s: users %d and %d want disjoint sets", spec, u, w)
				}
			}
		}
		if maxK != m.K() || slices.Max(wanted) != m.V() {
			t.Errorf("%s: k = %d, v = %d; Matrix says %d, %d", spec, maxK, slices.Max(wanted), m.K(), m.V())
		}
	}
	// Theorem 1, a = b = 2: the 2×2 matrix 0 1 / 2 3; user 1 = (row 0, column 1).
	m, _ := workload.ParseMatrix("matrix:2:2")
	sets, _ := m.Sets()
	if want := []proc.ResID{0, 1, 3}; !slices.Equal(sets[1], want) {
		t.Errorf("matrix:2:2 user 1 wants %v, want %v", sets[1], want)
	}
	if !workload.IsMatrix("matrix-groups:2:2") || workload.IsMatrix("grid:2x2") {
		t.Error("IsMatrix")
	}
	for _, bad := range []string{"matrix", "matrix:2", "matrix:0:2", "matrix:a:2", "matrix:5000:2", "matrixx:2:2"} {
		if _, err := workload.ParseMatrix(bad); err == nil || !strings.Contains(err.Error(), "bad matrix") {
			t.Errorf("ParseMatrix(%q): %v", bad, err)
		}
	}
}

// A matrix network too large for its complete conflict graph is refused
// at once, before its sets are built (a million users would take minutes).
func TestMatrixTooLargeRefusedUpFront(t *testing.T) {
	start := time.Now()
	_, err := workload.Matrix{A: 1000, B: 1000}.Problem()
	if !errors.Is(err, algo.ErrTooLarge) || !strings.Contains(err.Error(), "1000000 users") {
		t.Fatalf("got %v, want a refusal with the estimate", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refused after %v: the sets were built first", d)
	}
	if _, err := (workload.Matrix{A: 4, B: 3}).Problem(); err != nil {
		t.Errorf("a small network: %v", err)
	}
}

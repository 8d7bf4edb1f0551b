package service

import (
	"testing"

	"github.com/allot-dev/allot/control"
)

// TestRejectProves: a reject is RESOURCE_EXHAUSTED only when what is known
// issued, plus what the view's controller issues before it rejects, reaches
// Budget − Waste; a guess larger than the waste leaves room makes it
// UNAVAILABLE.
func TestRejectProves(t *testing.T) {
	for _, tc := range []struct {
		left, reserve, waste uint64
		want                 bool
	}{
		{100, 0, 10, true},  // nothing guessed: the controller's own bound
		{100, 1, 10, false}, // the controller may stop 10 short, the guess 1 more
		{5, 5, 10, true},    // 5 left at most wasted, 5 guessed: 10
		{6, 5, 10, false},   // 11
		{0, 10, 10, true},   // nothing left: only the guess
		{0, 11, 10, false},  // a guess beyond the waste
		{0, 0, 0, true},     // exact
		{3, 0, 0, true},     // the exact controller
		{3, 1, 0, false},    // an exact quota with a guess proves nothing
	} {
		got := rejectProves(control.QuotaLeft{Name: "q", Left: tc.left, Reserve: tc.reserve}, tc.waste)
		if got != tc.want {
			t.Errorf("left %d, reserve %d, waste %d: %v, want %v", tc.left, tc.reserve, tc.waste, got, tc.want)
		}
	}
}

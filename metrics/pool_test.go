package metrics

import (
	"math"
	"testing"

	"github.com/allot-dev/allot/proc"
)

func TestPool(t *testing.T) {
	x := Pool{Units: 2}
	for _, e := range []proc.Event{
		{Time: 0, Kind: proc.EvAcquire, P: 1},
		{Time: 0, Kind: proc.EvGrant, P: 1, Unit: 0}, // first grant of unit 0: no migration
		{Time: 10, Kind: proc.EvRelease, P: 1, Unit: 0},
		{Time: 10, Kind: proc.EvGrant, P: 1, Unit: 0}, // back at p1: no migration
		{Time: 20, Kind: proc.EvRelease, P: 1, Unit: 0},
		{Time: 20, Kind: proc.EvGrant, P: 2, Unit: 0}, // p1 -> p2: one
		{Time: 20, Kind: proc.EvGrant, P: 3, Unit: 1}, // first grant of unit 1
		{Time: 30, Kind: proc.EvRelease, P: 2, Unit: 0},
		{Time: 30, Kind: proc.EvRelease, P: 3, Unit: 1},
	} {
		x.Event(e)
	}
	s := x.Summary(40)
	// In use: 1 unit for 0..20, 2 for 20..30, none for 30..40: 40/40/2.
	if s.Grants != 4 || s.Migrations != 1 || s.Migration != 0.25 || math.Abs(s.Utilisation-0.5) > 1e-12 {
		t.Fatalf("got %+v", s)
	}
}

// Moves and excess moves: a unit that goes the long way round, or to a
// node that does not use it, shows as excess; one that goes straight from
// user to user does not.
func TestPoolMoves(t *testing.T) {
	line := func(a, b proc.ID) int { return int(max(a, b) - min(a, b)) } // a line 0-1-2-3
	for _, tc := range []struct {
		name         string
		events       []proc.Event
		moves        int
		excess, migr float64
	}{
		{"straight", []proc.Event{
			{Kind: proc.EvMove, P: 1, Unit: 0, Peer: 0}, // before its first grant: not counted
			{Kind: proc.EvGrant, P: 1, Unit: 0},
			{Kind: proc.EvRelease, P: 1, Unit: 0},
			{Kind: proc.EvMove, P: 2, Unit: 0, Peer: 1},
			{Kind: proc.EvMove, P: 3, Unit: 0, Peer: 2},
			{Kind: proc.EvGrant, P: 3, Unit: 0},
		}, 2, 0, 0.5},
		{"detour", []proc.Event{
			{Kind: proc.EvGrant, P: 1, Unit: 0},
			{Kind: proc.EvRelease, P: 1, Unit: 0},
			{Kind: proc.EvMove, P: 0, Unit: 0, Peer: 1}, // sent the wrong way
			{Kind: proc.EvMove, P: 1, Unit: 0, Peer: 0},
			{Kind: proc.EvMove, P: 2, Unit: 0, Peer: 1},
			{Kind: proc.EvGrant, P: 2, Unit: 0},
		}, 3, 1, 0.5},
		{"back to its user", []proc.Event{
			{Kind: proc.EvGrant, P: 2, Unit: 1},
			{Kind: proc.EvRelease, P: 2, Unit: 1},
			{Kind: proc.EvMove, P: 3, Unit: 1, Peer: 2},
			{Kind: proc.EvMove, P: 2, Unit: 1, Peer: 3},
			{Kind: proc.EvGrant, P: 2, Unit: 1},
		}, 2, 1, 0},
	} {
		x := Pool{Units: 2, Dist: line}
		for _, e := range tc.events {
			x.Event(e)
		}
		s := x.Summary(10)
		if s.Moves != tc.moves || s.Excess != tc.excess || s.Migration != tc.migr || s.MovesPer != float64(tc.moves)/2 {
			t.Errorf("%s: got %+v, want %d moves, excess %v, migration %v", tc.name, s, tc.moves, tc.excess, tc.migr)
		}
	}
}

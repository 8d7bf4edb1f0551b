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

package metrics

import "github.com/allot-dev/allot/proc"

// Pool measures what is particular to a pool of Units identical units,
// from grant, release and move events alone:
//
//   - migration, how often a unit changes user (a grant of unit u at p when
//     u's previous grant was at another node; a unit's first grant is not
//     counted, its starting place is not in the stream);
//   - moves, how often a unit arrives at a node (a move event) after its
//     first grant: the unit's travel, whether or not the node uses it;
//   - excess moves, when Dist is set: the moves minus Σ Dist(previous user,
//     next user) over the grants that follow a unit's first, i.e. the hops
//     a unit made beyond the shortest way from one user to the next (units
//     sent to a node that did not use them, or the long way round). A unit
//     still travelling when the run ends has moves not yet matched by a
//     grant, so the figure is an upper bound by at most the units' last
//     journeys;
//   - utilisation, the time-average number of units in use divided by
//     Units.
//
// Waiting time and messages per grant are the Recorder's and the driver's.
type Pool struct {
	Units int
	// Dist, when set, is the length of the shortest way a unit can take
	// from node a to node b in the network the algorithm sends it over.
	Dist       func(a, b proc.ID) int
	Grants     int // grants seen
	Migrations int // grants of a unit at another node than its previous grant
	Moves      int // moves of units granted before
	Path       int // Σ Dist(previous user, next user)
	last       map[int32]proc.ID
	inUse      int
	area       float64 // ∫ units in use dt
	start, t   proc.Time
	started    bool
}

// PoolSummary is what Pool measured.
type PoolSummary struct {
	Grants      int     `json:"grants"`
	Migrations  int     `json:"migrations"`
	Migration   float64 `json:"migration_per_grant"` // Migrations / Grants
	Moves       int     `json:"moves"`
	MovesPer    float64 `json:"moves_per_grant"`                  // Moves / Grants
	Excess      float64 `json:"excess_moves_per_grant,omitempty"` // (Moves − Path) / Grants, with Dist
	Utilisation float64 `json:"utilisation"`                      // time-average units in use / Units
}

// Event implements proc.Sink.
func (x *Pool) Event(e proc.Event) {
	if !x.started {
		x.started, x.start, x.t, x.last = true, e.Time, e.Time, map[int32]proc.ID{}
	}
	x.area += float64(x.inUse) * float64(e.Time-x.t)
	x.t = e.Time
	switch e.Kind {
	case proc.EvGrant:
		x.Grants++
		if q, ok := x.last[e.Unit]; ok {
			if q != e.P {
				x.Migrations++
			}
			if x.Dist != nil {
				x.Path += x.Dist(q, e.P)
			}
		}
		x.last[e.Unit] = e.P
		x.inUse++
	case proc.EvRelease:
		x.inUse = max(0, x.inUse-1)
	case proc.EvMove:
		if _, ok := x.last[e.Unit]; ok {
			x.Moves++
		}
	}
}

// Summary computes the measures up to tick end.
func (x *Pool) Summary(end proc.Time) PoolSummary {
	s := PoolSummary{Grants: x.Grants, Migrations: x.Migrations, Moves: x.Moves}
	if x.Grants > 0 {
		s.Migration = float64(x.Migrations) / float64(x.Grants)
		s.MovesPer = float64(x.Moves) / float64(x.Grants)
		if x.Dist != nil {
			s.Excess = float64(x.Moves-x.Path) / float64(x.Grants)
		}
	}
	if d := end - x.start; d > 0 && x.Units > 0 {
		area := x.area + float64(x.inUse)*float64(max(0, end-x.t))
		s.Utilisation = area / float64(d) / float64(x.Units)
	}
	return s
}

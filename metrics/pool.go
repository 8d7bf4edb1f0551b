package metrics

import "github.com/allot-dev/allot/proc"

// Pool measures what is particular to a pool of Units identical units,
// from grant and release events alone: migration, how often a unit changes
// node (a grant of unit u at p when u's previous grant was at another
// node; a unit's first grant is not counted, its starting place is not in
// the stream), and utilisation, the time-average number of units in use
// divided by Units. Waiting time and messages per grant are the Recorder's
// and the driver's.
type Pool struct {
	Units      int
	Grants     int // grants seen
	Migrations int // grants of a unit at another node than its previous grant
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
	Utilisation float64 `json:"utilisation"`         // time-average units in use / Units
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
		if q, ok := x.last[e.Unit]; ok && q != e.P {
			x.Migrations++
		}
		x.last[e.Unit] = e.P
		x.inUse++
	case proc.EvRelease:
		x.inUse = max(0, x.inUse-1)
	}
}

// Summary computes the measures up to tick end.
func (x *Pool) Summary(end proc.Time) PoolSummary {
	s := PoolSummary{Grants: x.Grants, Migrations: x.Migrations}
	if x.Grants > 0 {
		s.Migration = float64(x.Migrations) / float64(x.Grants)
	}
	if d := end - x.start; d > 0 && x.Units > 0 {
		area := x.area + float64(x.inUse)*float64(max(0, end-x.t))
		s.Utilisation = area / float64(d) / float64(x.Units)
	}
	return s
}

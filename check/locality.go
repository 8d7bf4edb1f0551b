package check

import (
	"github.com/allot-dev/allot/internal/dense"

	"slices"

	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// Locality measures the failure locality of a run with crashes (Choy and
// Singh; Sivilotti, Pike and Sridhar §1, §6) from the event stream and the
// conflict graph alone.
//
// Definitions. Let c be the time of the first crash and E the end of the
// observation (the last event, or the end the driver reports, whichever is
// later). A live process p is starved by the crash when
//
//	p has a request open at E, made at tick r, and E − max(r, c) ≥ Horizon:
//	hungry after the crash, it has not eaten for Horizon ticks since.
//
// The failure set is the crashed processes and the processes they starved.
// A starved process belongs to the nearest crashed process (hop distance in
// the conflict graph); the failure locality is the largest such distance,
// 0 when only crashed processes are in the failure set.
//
// Horizon must be long against the fault-free response time for the verdict
// to mean "never" (Horizon 0 takes half the time observed after the first
// crash). Processes hungry at E for less than the horizon are undecided and
// reported apart; a starved process no crashed process can reach in the
// graph is counted in Unreachable (its starvation is not the crash's doing).
type Locality struct {
	Graph   *graph.Graph
	Horizon proc.Time

	asked   []proc.Time // process -> open request time + 1
	crashed []bool
	crashes []proc.ID
	first   proc.Time
	last    proc.Time
}

// Event implements proc.Sink.
func (l *Locality) Event(e proc.Event) {
	l.last = max(l.last, e.Time)
	p := int(e.P)
	switch {
	case e.Kind == proc.EvRequest || e.Kind == proc.EvAcquire:
		l.asked = dense.Grow(l.asked, p)
		l.asked[p] = e.Time + 1
	case e.Served():
		if p < len(l.asked) {
			l.asked[p] = 0
		}
	case e.Kind == proc.EvCrash:
		l.crashed = dense.Grow(l.crashed, p)
		if !l.crashed[p] {
			if len(l.crashes) == 0 {
				l.first = e.Time
			}
			l.crashed[p] = true
			l.crashes = append(l.crashes, e.P)
		}
	}
}

// LocalityResult is the verdict of a run.
type LocalityResult struct {
	Crashed         []proc.ID // in crash order
	FailureSet      []proc.ID // crashed and starved processes, sorted
	FailureLocality int       // -1 without crashes
	Undecided       []proc.ID // hungry at the end for less than the horizon
	Unreachable     int       // starved but not connected to a crashed process
	Horizon         proc.Time // the horizon used
	End             proc.Time // the end of the observation
}

// Result computes the verdict at tick end, the end of the observation: the
// driver's horizon when the run went quiescent before it (nothing happening
// is evidence too), else the driver's last tick. The last event's tick is
// used if later. quiescent says the driver found nothing left to happen:
// then every open request is decided, starved for ever, whatever the
// horizon.
func (l *Locality) Result(end proc.Time, quiescent bool) LocalityResult {
	end = max(end, l.last)
	r := LocalityResult{FailureLocality: -1, End: end, Crashed: slices.Clone(l.crashes)}
	if len(l.crashes) == 0 {
		return r
	}
	r.Horizon = l.Horizon
	if r.Horizon <= 0 {
		r.Horizon = max(1, (end-l.first)/2)
	}
	var starved []proc.ID
	for p, a := range l.asked {
		if a == 0 || (p < len(l.crashed) && l.crashed[p]) {
			continue
		}
		if quiescent || end-max(a-1, l.first) >= r.Horizon {
			starved = append(starved, proc.ID(p))
		} else {
			r.Undecided = append(r.Undecided, proc.ID(p))
		}
	}
	r.FailureSet = append(slices.Clone(l.crashes), starved...)
	slices.Sort(r.FailureSet)
	r.FailureLocality, r.Unreachable = FailureLocality(l.Graph, l.crashes, starved)
	return r
}

// FailureLocality is the largest hop distance in g from the nearest crashed
// process to a starved one (0 with no starved process), and how many starved
// processes no crashed process reaches.
func FailureLocality(g *graph.Graph, crashed, starved []proc.ID) (locality, unreachable int) {
	if len(starved) == 0 {
		return 0, 0
	}
	dist := g.Distances(crashed...)
	for _, p := range starved {
		if int(p) >= len(dist) || dist[p] < 0 {
			unreachable++
			continue
		}
		locality = max(locality, int(dist[p]))
	}
	return locality, unreachable
}

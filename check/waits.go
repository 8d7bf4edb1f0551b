package check

import (
	"github.com/allot-dev/allot/internal/dense"
	"github.com/allot-dev/allot/proc"
)

// Waits follows requests to their answers: how many stay open at the end
// (starvation, or deadlock when the run is quiescent) and the longest wait.
// Requests at crashed processes are not counted as open.
type Waits struct {
	since   []proc.Time // process -> time of its open request + 1 (0: none)
	crashed []bool
	open    int
	// Longest is the longest answered wait.
	Longest proc.Time
	end     proc.Time
}

// Event implements proc.Sink.
func (w *Waits) Event(e proc.Event) {
	p := int(e.P)
	w.end = e.Time
	switch {
	case e.Kind == proc.EvRequest || e.Kind == proc.EvAcquire:
		w.since = dense.Grow(w.since, p)
		if w.since[p] == 0 {
			w.open++
		}
		w.since[p] = e.Time + 1
	case e.Served():
		if p < len(w.since) && w.since[p] > 0 {
			w.Longest = max(w.Longest, e.Time-(w.since[p]-1))
			w.since[p] = 0
			w.open--
		}
	case e.Kind == proc.EvCrash:
		w.crashed = dense.Grow(w.crashed, p)
		w.crashed[p] = true
		if p < len(w.since) && w.since[p] > 0 {
			w.since[p] = 0
			w.open--
		}
	}
}

// Open is the number of live processes waiting for an answer.
func (w *Waits) Open() int { return w.open }

// OldestOpen is how long the oldest open request has waited at tick end.
func (w *Waits) OldestOpen(end proc.Time) proc.Time {
	var m proc.Time
	for _, s := range w.since {
		if s > 0 {
			m = max(m, end-(s-1))
		}
	}
	return m
}

// Deadlock reports a deadlock: the driver found the run quiescent while
// requests were open.
func (w *Waits) Deadlock(quiescent bool) bool { return quiescent && w.open > 0 }

// Starved reports starvation at the end of a run that reached tick end: an
// open request that has waited longer than bound.
func (w *Waits) Starved(end, bound proc.Time) bool { return w.open > 0 && w.OldestOpen(end) > bound }

package session

import (
	"container/heap"
	"time"
)

// Expiry is the sessions' deadlines, soonest first: one queue for all of
// them, looked at by one driver. A keep-alive only moves a session's
// deadline (Lease.Renew); its place here is corrected when it comes up
// (the driver looks at its lease, and Adds it again if it was kept
// alive), so a keep-alive costs no more than it did.
// A session is named by S: its id, or the driver's handle of it (a
// handle names one session only: a session adopted back later under the
// same id is another).
type Expiry[S comparable] struct {
	q deadlines[S]
}

type deadline[S comparable] struct {
	at Time
	s  S
}

// deadlines is a min-heap by at.
type deadlines[S comparable] []deadline[S]

func (d deadlines[S]) Len() int           { return len(d) }
func (d deadlines[S]) Less(i, j int) bool { return d[i].at < d[j].at }
func (d deadlines[S]) Swap(i, j int)      { d[i], d[j] = d[j], d[i] }
func (d *deadlines[S]) Push(x any)        { *d = append(*d, x.(deadline[S])) }
func (d *deadlines[S]) Pop() any {
	old := *d
	x := old[len(old)-1]
	old[len(old)-1] = deadline[S]{} // a handle is not kept alive by the array
	*d = old[:len(old)-1]
	return x
}

// Add queues session s to be looked at at at; first reports whether it
// is now the soonest (a driver waiting for the soonest wakes).
func (e *Expiry[S]) Add(s S, at Time) (first bool) {
	heap.Push(&e.q, deadline[S]{at: at, s: s})
	return e.q[0].s == s && e.q[0].at == at
}

// Next pops the first session due by now; wait is how long until the
// first is due when none is (0: the queue is empty).
func (e *Expiry[S]) Next(now Time) (s S, wait time.Duration, ok bool) {
	if len(e.q) == 0 {
		return s, 0, false
	}
	if d := e.q[0].at.Sub(now); d > 0 {
		return s, d, false
	}
	s = heap.Pop(&e.q).(deadline[S]).s
	if cap(e.q) > 64 && len(e.q) < cap(e.q)/4 {
		// The queue shrank a lot: its array goes back too.
		e.q = append(make(deadlines[S], 0, 2*len(e.q)), e.q...)
	}
	return s, 0, true
}

// Package check holds allot's safety and liveness checkers. Every checker
// is a proc.Sink fed only by the event stream, so it checks every algorithm,
// present and future, the same way, and it can be run over a trace written
// by another program as well as live.
//
//	driver ──events──> Exclusion   no two overlapping resource sets in critical sections
//	                   Pool        one holder per unit, one unit per holder, ≤ R units
//	                   Quota       ≤ M permits; a reject only once ≥ M−W permits; exhausted iff reject
//	                   Waits       open requests at the end, the longest wait (starvation)
//	                   Locality    with crashes: the failure set and the failure locality (+ the graph)
//
// Deadlock is quiescence with open requests: the driver knows when nothing is
// left to happen, the events tell which requests are open (Waits.Deadlock).
package check

import (
	"allot/internal/dense"

	"fmt"

	"allot/proc"
)

// maxReports bounds the violations kept as text; all are counted.
const maxReports = 20

// Report collects violations.
type Report struct {
	Violations int      // how many
	First      []string // the first few, described
}

func (r *Report) add(format string, args ...any) {
	r.Violations++
	if len(r.First) < maxReports {
		r.First = append(r.First, fmt.Sprintf(format, args...))
	}
}

// OK reports whether nothing was violated.
func (r *Report) OK() bool { return r.Violations == 0 }

// Exclusion checks that no two processes are in critical sections holding
// a common resource, and that enter follows a request for the same set.
type Exclusion struct {
	Report
	holder []proc.ID   // resource -> holder+1 (0: free)
	procs  []exclState // per process
}

type exclState struct {
	asked   []proc.ResID // the open request; nil when none
	holding []proc.ResID // resources held while inside
	inside  bool
}

// Event implements proc.Sink.
func (x *Exclusion) Event(e proc.Event) {
	p := int(e.P)
	switch e.Kind {
	case proc.EvRequest:
		x.procs = dense.Grow(x.procs, p)
		x.procs[p].asked = e.Res
		if e.Res == nil {
			x.procs[p].asked = []proc.ResID{}
		}
	case proc.EvEnter:
		x.procs = dense.Grow(x.procs, p)
		st := &x.procs[p]
		if st.inside {
			x.add("t=%d: p%d enters twice", e.Time, p)
		}
		if st.asked == nil {
			x.add("t=%d: p%d enters without a request", e.Time, p)
		} else if !sameSet(st.asked, e.Res) {
			x.add("t=%d: p%d enters with %v but asked %v", e.Time, p, e.Res, st.asked)
		}
		for _, r := range e.Res {
			x.holder = dense.Grow(x.holder, int(r))
			if q := x.holder[r] - 1; q >= 0 && int(q) != p {
				x.add("t=%d: p%d enters %v while p%d holds resource %d", e.Time, p, e.Res, q, r)
				continue
			}
			x.holder[r] = e.P + 1
		}
		st.inside, st.holding, st.asked = true, e.Res, nil
	case proc.EvExit:
		if p >= len(x.procs) || !x.procs[p].inside {
			x.add("t=%d: p%d exits without holding", e.Time, p)
			return
		}
		st := &x.procs[p]
		for _, r := range st.holding {
			if x.holder[r] == e.P+1 {
				x.holder[r] = 0
			}
		}
		st.inside, st.holding = false, nil
	}
}

func sameSet(a, b []proc.ResID) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true // the common case: the very request
	}
	seen := make(map[proc.ResID]int, len(a))
	for _, r := range a {
		seen[r]++
	}
	for _, r := range b {
		if seen[r]--; seen[r] < 0 {
			return false
		}
	}
	return true
}

// Pool checks a pool of Units identical units: one holder per unit, one
// unit per process, at most Units distinct units, grants only to processes
// that asked.
type Pool struct {
	Report
	Units  int
	holder map[int32]proc.ID
	unitOf map[proc.ID]int32
	asked  map[proc.ID]bool
	seen   map[int32]bool
}

// Event implements proc.Sink.
func (x *Pool) Event(e proc.Event) {
	if x.holder == nil {
		x.holder, x.unitOf, x.asked, x.seen = map[int32]proc.ID{}, map[proc.ID]int32{}, map[proc.ID]bool{}, map[int32]bool{}
	}
	switch e.Kind {
	case proc.EvAcquire:
		x.asked[e.P] = true
	case proc.EvGrant:
		if !x.asked[e.P] {
			x.add("t=%d: p%d granted unit %d without asking", e.Time, e.P, e.Unit)
		}
		if u, ok := x.unitOf[e.P]; ok {
			x.add("t=%d: p%d granted unit %d while holding unit %d", e.Time, e.P, e.Unit, u)
		}
		if q, ok := x.holder[e.Unit]; ok {
			x.add("t=%d: unit %d granted to p%d while p%d holds it", e.Time, e.Unit, e.P, q)
		}
		if !x.seen[e.Unit] {
			x.seen[e.Unit] = true
			if len(x.seen) > x.Units {
				x.add("t=%d: %d distinct units used, the pool has %d", e.Time, len(x.seen), x.Units)
			}
		}
		x.holder[e.Unit], x.unitOf[e.P] = e.P, e.Unit
		delete(x.asked, e.P)
	case proc.EvRelease:
		if x.holder[e.Unit] != e.P || x.unitOf[e.P] != e.Unit {
			x.add("t=%d: p%d releases unit %d it does not hold", e.Time, e.P, e.Unit)
		}
		delete(x.holder, e.Unit)
		delete(x.unitOf, e.P)
	}
}

// Quota checks the consumption conditions of an (M, W) resource controller
// (Afek et al., Def. 3.1): at most M permits; no reject before M−W permits
// were issued; the exhausted signal is given exactly when something is
// rejected.
type Quota struct {
	Report
	Budget, Waste         int
	Permits, Rejects, Exh int
}

// Event implements proc.Sink.
func (x *Quota) Event(e proc.Event) {
	switch e.Kind {
	case proc.EvPermit:
		x.Permits++
		if x.Permits == x.Budget+1 {
			x.add("t=%d: permit %d exceeds the budget %d", e.Time, x.Permits, x.Budget)
		}
	case proc.EvReject:
		x.Rejects++
		if x.Permits < x.Budget-x.Waste {
			x.add("t=%d: reject at p%d with only %d permits issued (< M-W = %d)", e.Time, e.P, x.Permits, x.Budget-x.Waste)
		}
	case proc.EvExhausted:
		x.Exh++
	}
}

// Finish adds the end-of-run condition: exhausted signalled iff rejected.
func (x *Quota) Finish() {
	if (x.Rejects > 0) != (x.Exh > 0) {
		x.add("rejects=%d but exhausted signals=%d", x.Rejects, x.Exh)
	}
}

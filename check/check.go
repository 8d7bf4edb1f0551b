// Package check holds allot's safety and liveness checkers. Every checker
// is a proc.Sink fed only by the event stream, so it checks every algorithm,
// present and future, the same way, and it can be run over a trace written
// by another program as well as live.
//
//	driver ──events──> Exclusion   no two overlapping resource sets in critical sections
//	                   Pool        one holder per unit, one unit per holder, ≤ R units
//	                   Quota       ≤ M permits; a reject only once ≥ M−W permits; exhausted iff reject
//	                   Names       unique names, the largest below C·(n+1)
//	                   Bank        withdrawals ≤ deposits; one waits only while the balance is below W
//	                   Waits       open requests at the end, the longest wait (starvation)
//	                   Rendezvous  Social-CSP: each output matched by its k inputs, each value once
//	                   Locality    with crashes: the failure set and the failure locality (+ the graph)
//	                   Control     the control plane: one view per epoch, a majority in each, epochs
//	                               only grow, one view serving at a time, grants only in it, ≤ M permits
//
// Deadlock is quiescence with open requests: the driver knows when nothing is
// left to happen, the events tell which requests are open (Waits.Deadlock).
package check

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-dev/allot/internal/dense"
	"github.com/allot-dev/allot/proc"
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
// that asked. Once a unit has been seen moving (a move event), its moves
// must account for where it is: it moves from where it is, never while in
// use, and is granted only where it is. (A trace without move events is
// judged on the rest.)
type Pool struct {
	Report
	Units int
	// IgnoreMoves leaves the moves unjudged, for a stream that may have
	// lost events (a node's log cut short by a kill): a lost move would
	// read as a unit appearing where it is not.
	IgnoreMoves bool
	holder      map[int32]proc.ID
	unitOf      map[proc.ID]int32
	asked       map[proc.ID]bool
	seen        map[int32]bool
	at          map[int32]proc.ID // where each unit is, once it has moved
}

// Event implements proc.Sink.
func (x *Pool) Event(e proc.Event) {
	if x.holder == nil {
		x.holder, x.unitOf, x.asked, x.seen = map[int32]proc.ID{}, map[proc.ID]int32{}, map[proc.ID]bool{}, map[int32]bool{}
		x.at = map[int32]proc.ID{}
	}
	switch e.Kind {
	case proc.EvAcquire:
		x.asked[e.P] = true
	case proc.EvMove:
		if x.IgnoreMoves {
			return
		}
		if q, ok := x.holder[e.Unit]; ok {
			x.add("t=%d: unit %d moves from p%d to p%d while p%d uses it", e.Time, e.Unit, e.Peer, e.P, q)
		}
		if q, ok := x.at[e.Unit]; ok && q != e.Peer {
			x.add("t=%d: unit %d moves from p%d to p%d but it is at p%d", e.Time, e.Unit, e.Peer, e.P, q)
		}
		x.at[e.Unit] = e.P
	case proc.EvGrant:
		if q, ok := x.at[e.Unit]; ok && q != e.P {
			x.add("t=%d: unit %d granted at p%d but it is at p%d", e.Time, e.Unit, e.P, q)
		}
		if _, ok := x.at[e.Unit]; ok {
			x.at[e.Unit] = e.P
		}
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
// (Afek et al., Def. 3.1) and the legality of the sequence (§3):
//
//   - at most M permits;
//   - the resource-exhausted signal is given, once, exactly when some
//     request is rejected;
//   - if a request is rejected, at least M − W permits are issued by the
//     end of the run. The paper says "eventually": permits may still be on
//     their way when the first reject is given, so this is judged by
//     Finish, on a run drained of open requests;
//   - every permit or reject answers an open request at its process, and no
//     permit follows a reject at the same process.
type Quota struct {
	Report
	Budget, Waste         int
	Permits, Rejects, Exh int
	open, rejected        []bool // per process
}

// Event implements proc.Sink.
func (x *Quota) Event(e proc.Event) {
	p := int(e.P)
	switch e.Kind {
	case proc.EvRequest:
		x.open = dense.Grow(x.open, p)
		x.open[p] = true
	case proc.EvPermit, proc.EvReject:
		x.open = dense.Grow(x.open, p)
		x.rejected = dense.Grow(x.rejected, p)
		if !x.open[p] {
			x.add("t=%d: %s at p%d answers no request", e.Time, e.Kind, p)
		}
		x.open[p] = false
		if e.Kind == proc.EvReject {
			x.Rejects++
			x.rejected[p] = true
			return
		}
		x.Permits++
		if x.Permits == x.Budget+1 {
			x.add("t=%d: permit %d exceeds the budget %d", e.Time, x.Permits, x.Budget)
		}
		if x.rejected[p] {
			x.add("t=%d: permit at p%d after a reject there", e.Time, p)
		}
	case proc.EvExhausted:
		x.Exh++
		if x.Exh == 2 {
			x.add("t=%d: a second exhausted signal, at p%d", e.Time, p)
		}
	}
}

// Finish adds the end-of-run conditions: exhausted signalled iff rejected,
// and a reject only with at least M − W permits in all.
func (x *Quota) Finish() {
	if (x.Rejects > 0) != (x.Exh > 0) {
		x.add("rejects=%d but exhausted signals=%d", x.Rejects, x.Exh)
	}
	if x.Rejects > 0 && x.Permits < x.Budget-x.Waste {
		x.add("%d rejects with only %d permits issued in all (< M-W = %d)", x.Rejects, x.Permits, x.Budget-x.Waste)
	}
}

// Names checks dynamic name assignment (Afek et al. §6.2): every name
// given is unique, and at the end the largest is below C·(n+1), n the
// number of names given (the participants, with the initiator).
type Names struct {
	Report
	C       int
	Given   int
	Largest int32
	holder  map[int32]proc.ID
}

// Event implements proc.Sink.
func (x *Names) Event(e proc.Event) {
	if e.Kind != proc.EvName {
		return
	}
	if x.holder == nil {
		x.holder = map[int32]proc.ID{}
	}
	if q, ok := x.holder[e.Unit]; ok {
		x.add("t=%d: name %d given to p%d, and before to p%d", e.Time, e.Unit, e.P, q)
	}
	if e.Unit < 0 {
		x.add("t=%d: negative name %d at p%d", e.Time, e.Unit, e.P)
	}
	x.holder[e.Unit] = e.P
	x.Given++
	x.Largest = max(x.Largest, e.Unit)
}

// Finish adds the end-of-run condition: the largest name below C·(n+1).
func (x *Names) Finish() {
	if x.Given > 0 && int(x.Largest) >= x.C*(x.Given+1) {
		x.add("largest name %d with %d names given: not below %d·(n+1)", x.Largest, x.Given, x.C)
	}
}

// Bank checks a distributed bank with parameter W (Afek et al. §6.3) from
// the events: a request naming resource DepositRes is a deposit, any other
// a withdrawal; deposit and withdraw events answer them.
//
//  1. every request is answered by its own kind of answer, and only a
//     withdrawal may be left open at the end (at most one a process, as
//     the application waits);
//  2. in every prefix, withdrawals granted ≤ deposits requested;
//  3. if a withdrawal is open at the end, deposits − withdrawals < W.
type Bank struct {
	Report
	Waste                 int
	DepositRes            proc.ResID
	Deposits, Withdrawals int
	open                  map[proc.ID]proc.EventKind // the answer an open request wants
}

// Event implements proc.Sink.
func (x *Bank) Event(e proc.Event) {
	if x.open == nil {
		x.open = map[proc.ID]proc.EventKind{}
	}
	switch e.Kind {
	case proc.EvRequest:
		want := proc.EvWithdraw
		if len(e.Res) == 1 && e.Res[0] == x.DepositRes {
			want = proc.EvDeposit
			x.Deposits++
		}
		x.open[e.P] = want
	case proc.EvDeposit, proc.EvWithdraw:
		if want, ok := x.open[e.P]; !ok || want != e.Kind {
			x.add("t=%d: %s at p%d answers no such request", e.Time, e.Kind, e.P)
		}
		delete(x.open, e.P)
		if e.Kind == proc.EvWithdraw {
			x.Withdrawals++
			if x.Withdrawals > x.Deposits {
				x.add("t=%d: withdrawal %d granted with %d deposits", e.Time, x.Withdrawals, x.Deposits)
			}
		}
	}
}

// Finish adds the end-of-run conditions on the open requests.
func (x *Bank) Finish() {
	waiting := 0
	for _, p := range slices.Sorted(maps.Keys(x.open)) { // the findings in one order
		if want := x.open[p]; want == proc.EvDeposit {
			x.add("a deposit at p%d was never acknowledged", p)
		} else {
			waiting++
		}
	}
	if waiting > 0 && x.Deposits-x.Withdrawals >= x.Waste {
		x.add("%d withdrawals wait with a balance of %d ≥ W = %d", waiting, x.Deposits-x.Withdrawals, x.Waste)
	}
}

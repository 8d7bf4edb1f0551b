// Package modular is Rhee's modular resource-allocation algorithm (I. Rhee,
// "A modular algorithm for resource allocation", Distributed Computing 1998,
// §4, Figs. 4 and 5). It turns any exclusion algorithm, run as a subroutine,
// into a drinking or dynamic resource-allocation algorithm in which a user
// waits only for the users it currently conflicts with.
//
// # Processes
//
//	ids 0..U-1         users (Fig. 4), each hosting its own process of the subroutine
//	ids U..U+R-1       resource managers rm_k, one per resource k (Fig. 5)
//	ids U+R..          the subroutine's helper processes (a coordinator, ...), if any
//
// Each manager keeps a queue q_k of numbered positions. A user that wants the
// set R_i first enters the critical region of the subroutine; there it sends
// report to every rm_k, k ∈ R_i, each answers marked (its occupied
// positions and their predecessors) and stops serving anything but the
// user's select (rm_critical_k); the user takes the smallest position p
// marked by none, sends select(p) to all of them and leaves the subroutine.
// A manager grants its resource to the user at position 1; a user enters its
// critical region with a grant from every manager it asked. When position p−1
// of q_k empties, rm_k sends dec(p) to the occupant of p; a user that has
// dec(p) from every manager answers advance(p) to all of them, and each moves
// it to p−1. A user leaves with release.
//
//	q_a: [1:x][2:i][3: ][4:y]        i holds 2 in q_a and q_b; y selected 4
//	q_b: [1: ][2:i][3:z]             because 3 precedes y's 4 in q_a
//	              ▲
//	x releases → rm_a: dec(2) to i; rm_b already sent dec(2) → i: advance(2)
//
// # Composition
//
// The subroutine's processes are built from the same problem with sub.Build
// and hosted inside this algorithm's processes through proc.SubEnv: a user's
// subroutine process lives inside the user (its messages travel as
// proc.Wrapped, its Enter arrives at the user's SubEvent and means "in the
// subroutine's critical region", Fig. 4 line 4), and each helper process of
// the subroutine is hosted by a process of its own after the managers
// (proc.Host). The subroutine numbers its helpers from U; a proc.Shift
// translates its ids to U+R.. and back, so the subroutine never knows it is
// hosted.
//
// The sub-problem is the problem itself, users only: same users, resources,
// maximum sets and conflict graph. The subroutine is asked for the user's
// current set (subR_i := R_i, Fig. 4 line 3). A dining subroutine (hygienic,
// doorway, threshold, ...) keeps a fork on every edge of the conflict graph
// of the maximum sets — declared sets with fixed sets, every resource when
// the sets are unknown, which makes the conflict graph complete — and
// behaves as on that graph whatever the current request; central needs no
// prior knowledge, so modular-central is a dynamic algorithm in full: users
// may appear at any time with any set (§3).
//
// # Readings of the listing
//
//   - Fig. 5 line 32. After advance_one_position(p) moves the occupant of p
//     to p−1 and finds p−2 empty, the listing sets has_dec_sent(p) := true
//     before sending dec(p−1). Position p was just emptied and its flag reset
//     two lines earlier (line 29); the flag that guards dec(p−1) is
//     has_dec_sent(p−1). Claim 5.3 needs "has_dec_sent(x) is true only while
//     the dec(x) it records went to the current occupant of x": with the
//     literal line a user that later occupies p finds has_dec_sent(p) true,
//     never gets dec(p) and is locked out (Claim 5.4's "if" part fails), and
//     has_dec_sent(p−1) stays false so dec(p−1) is sent again by the next
//     adjust_queue(p−1) — a stale duplicate that can reach the user after it
//     moved on. We read has_dec_sent(p−1) := true; TestLine32 shows both.
//   - Position 0 does not exist: adjust_queue starts at 2 (a user at 1 is
//     granted, never sent dec(1)), line 31 is skipped when p−1 = 1 (the grant
//     of line 30 is sent instead), and marked leaves out the predecessor of 1.
//   - The guards "¬rm_critical_k, receive ..." are implemented by holding
//     report, advance and release in the manager's buffer while
//     rm_critical_k is true, and running them in arrival order as soon as it
//     is false (the paper's FIFO execution of enabled commands).
//   - A user collects dec(p) per manager (the p of the latest dec from each)
//     and sends advance(p) when all managers of R_i sent the same p
//     (Fig. 4 line 14).
//   - §5 assumes a user enters its trying region at most once; here a user
//     requests again and again, possibly a different set each time. On
//     unordered channels the report of a new request may reach rm_k before
//     the release of the previous one: q_k then briefly holds the user at
//     position 1 (old request) and behind it (new request). The marking
//     keeps the two apart exactly as for two conflicting users, and the
//     release frees position 1, so nothing else changes.
//   - A request for no resource enters at once.
//   - Deviation: the paper's Theorem 5.12 charges one time unit per step; the
//     algorithm does not count time, the driver's per-event cost does.
//
// # Conditions proved in §5 and where they are tested
//
// Lemma 5.1 (no two conflicting users at one position of a queue) is
// asserted where a position is written. Claim 5.6 (a user's positions
// differ by at most 1), Lemma 5.7 (the wait-for order of two users is the
// same in every queue they share, so there is no wait-for cycle), the
// initial-position bound p ≤ 3δ (checked as p ≤ 3m+1 with m the other users
// in the user's queues), and Theorem 5.11 (concurrency: a user without
// conflicting users enters even while others hold other resources forever)
// are checked by the package tests over random runs under central,
// ordered, hygienic, threshold, doorway, unhygienic and bidding, each check shown to
// catch a deliberately broken variant.
// Every modular-<sub> of the catalogue passes the exclusive conformance
// suite, which also catches the literal reading of line 32.
package modular

import (
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// For returns Rhee's modular algorithm with sub as the subroutine, named
// modular-<sub>.
func For(sub algo.Algorithm) algo.Algorithm {
	return forVariant(sub, variant{})
}

// variant holds deliberately broken behaviours for the tests that show the
// invariant checks can fail, and the literal reading of Fig. 5 line 32. The
// zero value is the algorithm.
type variant struct {
	literal32      bool // line 32 as printed: has_dec_sent(p) := true
	alwaysFront    bool // users select position 1 whatever is marked
	tail           bool // users select behind the last marked position
	perQueue       bool // users answer each dec(p) at once, to its manager only (Fig. 3)
	noCriticalHold bool // managers serve everything while rm_critical
}

func forVariant(sub algo.Algorithm, v variant) algo.Algorithm {
	a := algo.Algorithm{
		Name:      "modular-" + sub.Name,
		Kind:      algo.Exclusive,
		Summary:   "Rhee's modular algorithm: resource managers and a distributed queue, positions chosen inside " + sub.Name,
		NeedsFIFO: sub.NeedsFIFO,
		Options:   sub.Options,
		// One resource manager per resource.
		PerResource: true,
		Build: func(pb *algo.Problem) ([]proc.Process, error) {
			return build(sub, pb, v)
		},
		Messages: slices.Concat(messages, sub.Messages),
		Timers:   sub.Timers,
	}
	if sub.Process != nil {
		a.Process = func(pb *algo.Problem, id proc.ID) (proc.Process, error) {
			return process(sub, pb, id, v)
		}
	}
	return a
}

// process is process id of build(sub, pb, v), made alone: a user hosting
// the subroutine's process of the same id, a manager, or a host of one of
// the subroutine's helpers. The subroutine is asked for its process on pb
// itself, not on pb.Completed(): a subroutine with a per-process
// constructor needs no maximum sets or conflict graph (that is what has
// one), and completing a problem of millions of users would build the
// very tables this path exists to avoid.
func process(sub algo.Algorithm, pb *algo.Problem, id proc.ID, v variant) (proc.Process, error) {
	name := "modular-" + sub.Name
	if err := checkProblem(name, sub, pb); err != nil {
		return nil, err
	}
	ids := idMap{users: int32(pb.Users), resources: int32(pb.Resources)}
	switch {
	case id < 0:
		return nil, fmt.Errorf("%s: no process %d", name, id)
	case int(id) < pb.Users:
		p, err := sub.Process(pb, id)
		if err != nil {
			return nil, fmt.Errorf("%s: subroutine: %w", name, err)
		}
		a, ok := p.(proc.Allocator)
		if !ok {
			return nil, fmt.Errorf("%s: subroutine %s: user %d is not an allocator", name, sub.Name, id)
		}
		return &user{id: id, ids: ids, sub: a, nres: int32(pb.Resources), v: v}, nil
	case int64(id) < int64(pb.Users)+int64(pb.Resources):
		return newManager(ids.res(id), v), nil
	}
	h, err := sub.Process(pb, id-proc.ID(pb.Resources))
	if err != nil {
		return nil, fmt.Errorf("%s: subroutine: %w", name, err)
	}
	return &proc.Host{Inner: h, Shift: ids.shift()}, nil
}

// checkProblem refuses what neither build nor process can run.
func checkProblem(name string, sub algo.Algorithm, pb *algo.Problem) error {
	if sub.Kind != algo.Exclusive {
		return fmt.Errorf("%s: subroutine %s solves %s, not exclusive", name, sub.Name, sub.Kind)
	}
	if pb.Kind != algo.Exclusive {
		return fmt.Errorf("%s: solves exclusive problems, not %s", name, pb.Kind)
	}
	if pb.Users < 1 || pb.Resources < 1 {
		return fmt.Errorf("%s: need at least one user and one resource (have %d users, %d resources)", name, pb.Users, pb.Resources)
	}
	return nil
}

func build(sub algo.Algorithm, pb *algo.Problem, v variant) ([]proc.Process, error) {
	name := "modular-" + sub.Name
	if err := checkProblem(name, sub, pb); err != nil {
		return nil, err
	}
	subPb, err := pb.Completed() // same users, resources, maximum sets, conflict graph
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	subProcs, err := sub.Build(subPb)
	if err != nil {
		return nil, fmt.Errorf("%s: subroutine: %w", name, err)
	}
	if len(subProcs) < pb.Users {
		return nil, fmt.Errorf("%s: subroutine %s built %d processes for %d users", name, sub.Name, len(subProcs), pb.Users)
	}
	ids := idMap{users: int32(pb.Users), resources: int32(pb.Resources)}
	procs := make([]proc.Process, 0, pb.Users+pb.Resources+len(subProcs)-pb.Users)
	for i := 0; i < pb.Users; i++ {
		a, ok := subProcs[i].(proc.Allocator)
		if !ok {
			return nil, fmt.Errorf("%s: subroutine %s: user %d is not an allocator", name, sub.Name, i)
		}
		procs = append(procs, &user{id: proc.ID(i), ids: ids, sub: a, nres: int32(pb.Resources), v: v})
	}
	for k := 0; k < pb.Resources; k++ {
		procs = append(procs, newManager(proc.ResID(k), v))
	}
	for _, h := range subProcs[pb.Users:] {
		procs = append(procs, &proc.Host{Inner: h, Shift: ids.shift()})
	}
	return procs, nil
}

// idMap translates between the run's ids and the subroutine's, which
// numbers its helper processes from U where the run has the managers.
type idMap struct{ users, resources int32 }

func (m idMap) rm(k proc.ResID) proc.ID { return proc.ID(m.users + int32(k)) }
func (m idMap) res(rm proc.ID) proc.ResID {
	return proc.ResID(int32(rm) - m.users)
}

// shift places the subroutine's helpers after the managers.
func (m idMap) shift() proc.Shift {
	return proc.Shift{At: proc.ID(m.users), By: proc.ID(m.resources)}
}

// Literal32 is modular over sub with Fig. 5 line 32 read as printed
// (has_dec_sent(p) := true), named modular-<sub>/literal32. It is not in
// the catalogue: it is the broken reading the suites keep (the conformance
// suite and the explorer find it).
func Literal32(sub algo.Algorithm) algo.Algorithm {
	return broken(sub, "literal32", "Fig. 5 line 32 as printed", variant{literal32: true})
}

// Broken returns modular over sub with each broken behaviour the package's
// tests keep, named modular-<sub>/<variant>: literal32, always-front,
// tail, per-queue, no-critical-hold (see variant). None is in the
// catalogue.
func Broken(sub algo.Algorithm) []algo.Algorithm {
	return []algo.Algorithm{
		Literal32(sub),
		broken(sub, "always-front", "users select position 1 whatever is marked", variant{alwaysFront: true}),
		broken(sub, "tail", "users select behind the last marked position", variant{tail: true}),
		broken(sub, "per-queue", "users answer each dec at once, to its manager only (Fig. 3)", variant{perQueue: true}),
		broken(sub, "no-critical-hold", "managers serve everything while rm_critical", variant{noCriticalHold: true}),
	}
}

func broken(sub algo.Algorithm, name, what string, v variant) algo.Algorithm {
	a := forVariant(sub, v)
	a.Name += "/" + name
	a.Summary = "BROKEN on purpose: " + a.Summary + ", " + what
	return a
}

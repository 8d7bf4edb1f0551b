package modular

import (
	"fmt"
	"slices"

	"github.com/allot-dev/allot/proc"
)

// region is a user's region, or its sub-region in the subroutine (§3, §4.2).
type region uint8

const (
	remainder region = iota
	trying
	critical
	exit
)

// user is user i of Fig. 4, hosting its own process of the subroutine.
type user struct {
	id   proc.ID
	ids  idMap
	sub  proc.Allocator
	nres int32 // resources in the problem, for checking requests

	region, subRegion region
	res               []proc.ResID // R_i of the current request, sorted

	reqReport bool
	nMarked   int    // marked messages received for this selection
	avoid     []bool // ∪ marked, indexed by position
	grants    int
	lastDec   []int32 // per resource of res: the p of the last dec(p) received, 0 = none
	selected  int32   // the position chosen at line 8 (for tests)

	v variant
}

var (
	_ proc.Queued = (*user)(nil)
	_ proc.Parent = (*user)(nil)
)

// Behind implements proc.Queued. The open request is placed once the user
// has chosen its position (Fig. 4 line 8) and left the subroutine; it is
// behind another user when that position is not the first: the position
// is the smallest no manager marked, and a manager marks its occupied
// positions and their predecessors, so position 1 was marked, and some
// queue of the request had another user at position 1 or 2, ahead of it.
// (Its own earlier request, whose release a report overtook, marks too;
// on FIFO links a release cannot be overtaken.) A granted request is
// placed and not behind.
func (u *user) Behind() (known, behind bool) {
	switch {
	case u.region == critical:
		return true, false
	case u.region == trying && u.subRegion == remainder:
		return true, u.selected > 1
	}
	return false, false
}

// subEnv is the Env the hosted subroutine process runs with: ids translated,
// messages and timers wrapped, events to this user.
func (u *user) subEnv(env proc.Env) proc.SubEnv {
	return proc.SubEnv{Env: env, Parent: u, Shift: u.ids.shift()}
}

func (u *user) Start(env proc.Env) { u.sub.Start(u.subEnv(env)) }

func (u *user) Fire(env proc.Env, t proc.Timer) {
	if !proc.Route(u.sub, u.subEnv(env), proc.None, t) {
		panic(fmt.Sprintf("modular: user %d: unexpected timer %T", u.id, t))
	}
}

// Request is Fig. 4 lines 1–3: the user enters its trying region and, with
// subR_i := R_i, the subroutine's.
func (u *user) Request(env proc.Env, r proc.Request) {
	if u.region != remainder {
		panic(fmt.Sprintf("modular: user %d: request in region %d", u.id, u.region))
	}
	res := slices.Clone(r.Res)
	slices.Sort(res)
	res = slices.Compact(res)
	for _, k := range res {
		if k < 0 || int32(k) >= u.nres {
			panic(fmt.Sprintf("modular: user %d: resource %d outside 0..%d", u.id, k, u.nres-1))
		}
	}
	u.res = res
	u.region = trying
	u.grants = 0
	u.lastDec = slices.Grow(u.lastDec[:0], len(res))[:len(res)]
	clear(u.lastDec)
	if len(res) == 0 {
		// Nothing to wait for: no user conflicts with an empty request.
		u.region = critical
		env.Emit(proc.Event{Kind: proc.EvEnter})
		return
	}
	u.subRegion = trying
	u.sub.Request(u.subEnv(env), proc.Request{Res: slices.Clone(res)})
}

// SubEvent receives the subroutine's events; its Enter is sub-region :=
// Critical, which enables Fig. 4 lines 4–6.
func (u *user) SubEvent(env proc.Env, e proc.Event) {
	if e.Kind != proc.EvEnter {
		return
	}
	if u.subRegion != trying {
		panic(fmt.Sprintf("modular: user %d: subroutine entered in sub-region %d", u.id, u.subRegion))
	}
	u.subRegion = critical
	u.reqReport = true
	u.nMarked = 0
	clear(u.avoid)
	for _, k := range u.res {
		env.Send(u.ids.rm(k), Report{})
	}
}

// Release is Fig. 4 lines 16–18.
func (u *user) Release(env proc.Env) {
	if u.region != critical {
		panic(fmt.Sprintf("modular: user %d: release in region %d", u.id, u.region))
	}
	u.region = remainder
	for _, k := range u.res {
		env.Send(u.ids.rm(k), Release{})
	}
}

func (u *user) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if proc.Route(u.sub, u.subEnv(env), from, m) {
		return
	}
	switch m := m.(type) {
	case Marked: // lines 7–11
		if !u.reqReport {
			panic(fmt.Sprintf("modular: user %d: marked from %d without a report", u.id, from))
		}
		for _, p := range m.Pos {
			for int(p) >= len(u.avoid) {
				u.avoid = append(u.avoid, false)
			}
			u.avoid[p] = true
		}
		u.nMarked++
		if u.nMarked < len(u.res) {
			return
		}
		p := u.choose()
		u.selected = p
		for _, k := range u.res {
			env.Send(u.ids.rm(k), Select{p})
		}
		u.reqReport = false
		u.subRegion = exit
		u.sub.Release(u.subEnv(env))
		u.subRegion = remainder
	case Grant: // lines 12–13
		u.grants++
		if u.grants == len(u.res) {
			u.region = critical
			env.Emit(proc.Event{Kind: proc.EvEnter, Res: slices.Clone(u.res)})
		}
	case Dec: // lines 14–15
		i := u.index(from)
		if u.v.perQueue {
			env.Send(from, Advance{m.P})
			return
		}
		u.lastDec[i] = m.P
		for _, p := range u.lastDec {
			if p != m.P {
				return
			}
		}
		clear(u.lastDec)
		for _, k := range u.res {
			env.Send(u.ids.rm(k), Advance{m.P})
		}
	default:
		panic(fmt.Sprintf("modular: user %d: unexpected message %T from %d", u.id, m, from))
	}
}

// choose is Fig. 4 line 8: the smallest position marked by none of the
// managers.
func (u *user) choose() int32 {
	switch {
	case u.v.alwaysFront:
		return 1
	case u.v.tail:
		return int32(max(len(u.avoid), 1))
	}
	for p := 1; p < len(u.avoid); p++ {
		if !u.avoid[p] {
			return int32(p)
		}
	}
	return int32(max(len(u.avoid), 1))
}

// index is the position in u.res of the resource managed by rm.
func (u *user) index(rm proc.ID) int {
	i, ok := slices.BinarySearch(u.res, u.ids.res(rm))
	if !ok {
		panic(fmt.Sprintf("modular: user %d: message from manager %d, not of a resource it requests", u.id, rm))
	}
	return i
}

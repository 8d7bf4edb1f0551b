package drinking

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/allot-dev/allot/proc"
)

// Per-bottle state bits.
const (
	hasBottle uint8 = 1 << iota // this user holds the bottle
	hasToken                    // this user holds the request token (with the bottle: a deferred request)
	requested                   // this user sent the token and has not had the bottle back yet
	needed                      // the current request needs this bottle
)

// bottle is this user's end of the bottle of resource res on the edge to
// peer.
type bottle struct {
	peer proc.ID
	res  proc.ResID
	bits uint8
}

// The drinking layer's states (Chandy–Misra: tranquil, thirsty, drinking).
type drinkState uint8

const (
	tranquil drinkState = iota
	thirsty
	drinking
)

// The dining layer's states, as this user sees its subroutine.
type dineState uint8

const (
	thinking dineState = iota
	hungry
	eating
)

// user is one philosopher: the drinking layer, hosting its dining process.
type user struct {
	id      proc.ID
	sub     proc.Allocator
	maxSet  []proc.ResID // sorted
	bottles []bottle     // sorted by (peer, res)

	drink  drinkState
	dine   dineState
	ate    bool         // the subroutine entered during this input, not yet handled
	res    []proc.ResID // the current request, sorted, as emitted
	need   int          // bottles the current request needs
	held   int          // of which this user holds
	v      variant
	subReq proc.Request // the dining request: the whole maximum set
}

var (
	_ proc.Allocator = (*user)(nil)
	_ proc.Parent    = (*user)(nil)
)

func (u *user) subEnv(env proc.Env) proc.SubEnv { return proc.SubEnv{Env: env, Parent: u} }

func (u *user) Start(env proc.Env) {
	u.subReq = proc.Request{Res: u.maxSet}
	u.sub.Start(u.subEnv(env))
	u.settle(env)
}

func (u *user) Fire(env proc.Env, t proc.Timer) {
	if !proc.Route(u.sub, u.subEnv(env), proc.None, t) {
		panic(fmt.Sprintf("drinking: user %d: unexpected timer %T", u.id, t))
	}
	u.settle(env)
}

// SubEvent receives the dining subroutine's events: its Enter is "eating".
// It is handled by settle once the subroutine has returned, so that the
// subroutine is never re-entered from inside itself.
func (u *user) SubEvent(_ proc.Env, e proc.Event) {
	if e.Kind != proc.EvEnter {
		return
	}
	if u.dine != hungry || u.ate {
		panic(fmt.Sprintf("drinking: user %d: dining enter while %d", u.id, u.dine))
	}
	u.ate = true
}

// Request makes the user thirsty for r.Res.
func (u *user) Request(env proc.Env, r proc.Request) {
	if u.drink != tranquil {
		panic(fmt.Sprintf("drinking: user %d: request while %d", u.id, u.drink))
	}
	res := slices.Clone(r.Res)
	slices.Sort(res)
	res = slices.Compact(res)
	u.res = res
	u.need, u.held = 0, 0
	for _, k := range res {
		if _, ok := slices.BinarySearch(u.maxSet, k); !ok {
			panic(fmt.Sprintf("drinking: user %d: resource %d is not in its maximum set", u.id, k))
		}
	}
	for i := range u.bottles {
		b := &u.bottles[i]
		if _, ok := slices.BinarySearch(res, b.res); ok {
			b.bits |= needed
			u.need++
			if b.bits&hasBottle != 0 {
				u.held++
			}
		}
	}
	u.drink = thirsty
	if u.held < u.need {
		u.askAll(env)
		if u.dine == thinking {
			u.dine = hungry
			u.sub.Request(u.subEnv(env), u.subReq)
		}
	}
	u.settle(env)
}

// Release ends drinking: the deferred requests get their bottles.
func (u *user) Release(env proc.Env) {
	if u.drink != drinking {
		panic(fmt.Sprintf("drinking: user %d: release while %d", u.id, u.drink))
	}
	u.drink = tranquil
	u.need, u.held = 0, 0
	for i := range u.bottles {
		b := &u.bottles[i]
		b.bits &^= needed
		if b.bits&(hasBottle|hasToken) == hasBottle|hasToken {
			u.yield(env, b)
		}
	}
	u.settle(env)
}

func (u *user) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if proc.Route(u.sub, u.subEnv(env), from, m) {
		u.settle(env)
		return
	}
	switch m := m.(type) {
	case Request:
		b := u.bottle(from, m.Res)
		if b.bits&hasToken != 0 {
			panic(fmt.Sprintf("drinking: user %d: second token for resource %d from %d", u.id, m.Res, from))
		}
		b.bits |= hasToken
		switch {
		case b.bits&hasBottle != 0:
			if u.mayYield(b) {
				u.yield(env, b)
			}
		case b.bits&needed != 0 && b.bits&requested == 0 && u.dine == eating:
			// Eating and thirsty: ask for it back at once.
			u.ask(env, b)
		}
	case Bottle:
		b := u.bottle(from, m.Res)
		if b.bits&hasBottle != 0 {
			panic(fmt.Sprintf("drinking: user %d: second bottle for resource %d from %d", u.id, m.Res, from))
		}
		b.bits = b.bits&^requested | hasBottle
		if b.bits&needed != 0 {
			u.held++
		}
		// The neighbour's request may have overtaken the bottle.
		if b.bits&hasToken != 0 && u.mayYield(b) && !u.v.noYieldOnArrival {
			u.yield(env, b)
		}
	default:
		panic(fmt.Sprintf("drinking: user %d: unexpected message %T from %d", u.id, m, from))
	}
	u.settle(env)
}

// settle takes the steps the state now enables: the first steps of eating,
// drinking, and leaving the dining layer.
func (u *user) settle(env proc.Env) {
	if u.ate {
		u.ate = false
		u.dine = eating
		if u.drink == thirsty {
			u.askAll(env)
		}
	}
	if u.drink == thirsty && u.held == u.need {
		u.drink = drinking
		env.Emit(proc.Event{Kind: proc.EvEnter, Res: u.res})
	}
	if u.dine == eating && u.drink != thirsty {
		// Drinking started, or nothing to drink for: leave the dining
		// layer as soon as it lets us in.
		u.dine = thinking
		u.sub.Release(u.subEnv(env))
	}
}

// mayYield is the yielding rule: keep a bottle only while drinking with it,
// or while eating and needing it.
func (u *user) mayYield(b *bottle) bool {
	if b.bits&needed == 0 {
		return true
	}
	switch {
	case u.drink == drinking:
		return u.v.yieldWhileDrinking
	case u.dine == eating:
		return false
	}
	return true
}

// yield sends the bottle to the neighbour whose request (the token) this
// user holds; the token stays here.
func (u *user) yield(env proc.Env, b *bottle) {
	b.bits &^= hasBottle
	if b.bits&needed != 0 {
		u.held--
	}
	env.Send(b.peer, Bottle{b.res})
}

// ask sends the token: a request for the bottle.
func (u *user) ask(env proc.Env, b *bottle) {
	b.bits = b.bits&^hasToken | requested
	env.Send(b.peer, Request{b.res})
}

// askAll requests every needed bottle this user lacks and may ask for.
func (u *user) askAll(env proc.Env) {
	for i := range u.bottles {
		b := &u.bottles[i]
		if b.bits&(needed|hasBottle|hasToken|requested) == needed|hasToken {
			u.ask(env, b)
		}
	}
}

func (u *user) bottle(peer proc.ID, res proc.ResID) *bottle {
	i, ok := slices.BinarySearchFunc(u.bottles, bottle{peer: peer, res: res}, func(a, b bottle) int {
		return cmp.Or(cmp.Compare(a.peer, b.peer), cmp.Compare(a.res, b.res))
	})
	if !ok {
		panic(fmt.Sprintf("drinking: user %d: no bottle of resource %d shared with %d", u.id, res, peer))
	}
	return &u.bottles[i]
}

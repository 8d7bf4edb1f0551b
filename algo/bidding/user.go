package bidding

import (
	"slices"

	"github.com/allot-dev/allot/proc"
)

// User is a user process: it runs rounds while it has a request that has
// not been served, and bids for all the request's resources at once.
type User struct {
	p     *Params
	users proc.ID // granter of resource j is users+j

	req       []proc.ResID // current request, sorted, without repeats
	asked     []proc.ResID // the request as the application made it
	group     int          // its demand group
	want      bool         // the request is outstanding (not yet entered)
	inCS      bool
	running   bool   // a round is in progress
	winner    bool   // this round's draw won
	r, a      uint32 // round and attempt numbers
	roundOver bool   // the round's c steps are over
	// Attempt a: open (bidding) until every granter has answered.
	bidding    bool
	failed     bool   // a Deny came: the attempt cannot succeed
	windowOver bool   // its λ1 steps are over
	agreed     []bool // per request index: Agree(r, a) received, not declined
	nAgreed    int
	nAnswers   int

	stats UserStats
}

// UserStats counts what a user did, for the experiments that measure the
// paper's per-round quantities (the event stream has no notion of rounds).
type UserStats struct {
	Rounds   int64 // draws made
	Wins     int64 // draws that won
	Attempts int64 // attempts (Win broadcasts)
	Served   int64 // requests entered
	// RoundsToServe sums, over served requests, the draws from the request
	// to its service (including the winning one).
	RoundsToServe int64
	pending       int64 // draws for the current request
}

// Stats reports the user's counters.
func (u *User) Stats() UserStats { return u.stats }

// UserTimer is a user's timer: Phase (tBegin, tRound or tWindow) of round
// R, attempt A.
type UserTimer struct {
	Phase uint8
	R, A  uint32
}

const (
	tBegin  uint8 = iota // priority: the random wait is over, draw
	tRound               // the round ends
	tWindow              // attempt a's collecting window ends
)

var _ proc.Allocator = (*User)(nil)

func (u *User) granter(r proc.ResID) proc.ID { return u.users + proc.ID(r) }

// Start does nothing: a user runs rounds only while it has a request.
func (u *User) Start(env proc.Env) {}

// Request starts bidding for r.Res: at once, or when the current round ends.
func (u *User) Request(env proc.Env, r proc.Request) {
	u.asked = r.Res
	u.req = append(u.req[:0], r.Res...)
	slices.Sort(u.req)
	u.req = slices.Compact(u.req)
	if len(u.req) == 0 {
		// Nothing to ask for: the request is trivially served.
		u.inCS = true
		u.stats.Served++
		env.Emit(proc.Event{Kind: proc.EvEnter, Res: r.Res})
		return
	}
	u.group = u.p.Group(len(u.req))
	if cap(u.agreed) < len(u.req) {
		u.agreed = make([]bool, len(u.req))
	}
	u.agreed = u.agreed[:len(u.req)]
	u.want = true
	u.stats.pending = 0
	if !u.running {
		u.startRound(env)
	}
}

// Release gives every resource back and lets the round run to its end.
func (u *User) Release(env proc.Env) {
	if !u.inCS {
		return
	}
	u.inCS = false
	for _, res := range u.req {
		env.Send(u.granter(res), Release{u.r, u.a})
	}
}

func (u *User) startRound(env proc.Env) {
	u.running = true
	u.r++
	u.a = 0
	u.winner, u.bidding, u.roundOver = false, false, false
	if u.p.Priority {
		if w := env.Rand().IntN(u.p.C1); w > 0 {
			env.After(proc.Time(w)*u.p.Step, UserTimer{tBegin, u.r, 0})
			return
		}
	}
	u.draw(env)
}

// draw is the start of the round proper: one draw, then c steps.
func (u *User) draw(env proc.Env) {
	env.After(proc.Time(u.p.C)*u.p.Step, UserTimer{tRound, u.r, 0})
	if !u.want {
		return
	}
	u.stats.Rounds++
	u.stats.pending++
	if env.Rand().IntN(u.p.Draws(u.group)) != 0 {
		return // not a winner: idle until the round ends
	}
	u.winner = true
	u.stats.Wins++
	u.attempt(env)
}

// attempt announces the win to every granter at once and opens the window.
func (u *User) attempt(env proc.Env) {
	u.stats.Attempts++
	u.bidding = true
	u.failed, u.windowOver = false, false
	u.nAgreed, u.nAnswers = 0, 0
	clear(u.agreed)
	for _, res := range u.req {
		env.Send(u.granter(res), Win{u.r, u.a, uint8(u.group)})
	}
	env.After(proc.Time(u.p.Lambda1)*u.p.Step, UserTimer{tWindow, u.r, u.a})
}

// fail gives up the open attempt: every granter that agreed is told so, and
// the Agrees still to come are declined on arrival.
func (u *User) fail(env proc.Env) {
	u.failed = true
	for i, ok := range u.agreed {
		if ok {
			env.Send(u.granter(u.req[i]), Decline{u.r, u.a})
			u.agreed[i] = false
		}
	}
	u.nAgreed = 0
}

func (u *User) index(from proc.ID) int {
	i, ok := slices.BinarySearch(u.req, proc.ResID(from-u.users))
	if !ok {
		return -1
	}
	return i
}

// Deliver handles the granters' answers.
func (u *User) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch m := m.(type) {
	case Agree:
		i := -1
		if u.bidding && m.R == u.r && m.A == u.a {
			i = u.index(from)
		}
		if i < 0 || u.agreed[i] {
			// An answer from another period (or a duplicate, which a
			// granter never sends): the granter is reserved for us, free it.
			env.Send(from, Decline{m.R, m.A})
			return
		}
		u.nAnswers++
		if u.failed {
			env.Send(from, Decline{m.R, m.A})
		} else {
			u.agreed[i] = true
			u.nAgreed++
			if u.nAgreed == len(u.req) {
				u.enter(env)
				return
			}
		}
		u.answered(env)
	case Deny:
		if !u.bidding || m.R != u.r || m.A != u.a {
			return
		}
		u.nAnswers++
		if !u.failed {
			u.fail(env)
		}
		u.answered(env)
	default:
		panic("bidding: user got an unexpected message " + m.Kind())
	}
}

// answered closes a failed attempt once every granter has answered: the
// next attempt starts when the window is over too, and a round whose end
// came during the attempt ends now.
func (u *User) answered(env proc.Env) {
	if u.nAnswers < len(u.req) {
		return
	}
	u.bidding = false
	switch {
	case u.roundOver:
		u.endRound(env)
	case u.windowOver:
		u.next(env)
	}
}

// next starts another attempt if one still fits in the round.
func (u *User) next(env proc.Env) {
	if int(u.a)+1 < u.p.Attempts() {
		u.a++
		u.attempt(env)
	}
}

// enter accepts the allocation: every granter agreed in this period.
func (u *User) enter(env proc.Env) {
	u.bidding = false
	u.winner = false // the rest of the round is idle, whatever comes next
	u.want = false
	u.inCS = true
	for _, res := range u.req {
		env.Send(u.granter(res), Accept{u.r, u.a})
	}
	u.stats.Served++
	u.stats.RoundsToServe += u.stats.pending
	env.Emit(proc.Event{Kind: proc.EvEnter, Res: u.asked})
	if u.roundOver {
		u.running = false
	}
}

func (u *User) endRound(env proc.Env) {
	u.running = false
	if u.want {
		u.startRound(env)
	}
}

// Fire handles the round and window timers.
func (u *User) Fire(env proc.Env, t proc.Timer) {
	tm := t.(UserTimer)
	if tm.R != u.r || !u.running {
		return // a timer of an earlier round
	}
	switch tm.Phase {
	case tBegin:
		u.draw(env)
	case tWindow:
		if tm.A != u.a || !u.winner {
			return
		}
		u.windowOver = true
		if !u.bidding {
			u.next(env)
		}
	case tRound:
		u.roundOver = true
		if !u.bidding {
			u.endRound(env)
		}
		// Otherwise the open attempt ends the round when it is answered.
	}
}

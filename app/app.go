// Package app is the application side of every run, written once for every
// driver (the simulator, the explorer, the real-time host): each user goes
// round the cycle
//
//	     Begin
//	       │ think (+ join)
//	       v
//	┌─> thinking ──Wake──> waiting ──algorithm emits enter/grant──> using
//	│      ^  (request/acquire,         │ (permit/reject: back to        │
//	│      │   Allocator.Request)       │  thinking, quota)              │ cs
//	│      └────────────────────────────┘                                │
//	└──────────────── Wake: exit/release, Allocator.Release, think <─────┘
//
// A driver owns time and scheduling; the cycle decides what the
// application does and when it wants to be woken next. The driver calls
// Wake when a scheduled wake-up is due and Answer when the algorithm emits
// an event at a user; the cycle talks back through the small Driver
// interface: Observe records the application's own events (request,
// acquire, exit, release) on the observation stream, Schedule asks for a
// wake-up. The algorithm's events reach the observation stream through the
// driver's proc.Env, as before: the cycle only follows them.
//
// The cycle keeps each user's state in its own record and nothing shared,
// so a driver that runs users on different goroutines may call the methods
// for different users concurrently (the real-time host does); Totals is
// read once the run is over.
package app

import (
	"math/rand/v2"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
)

// Workload is what the application asks for and how long it takes: the
// application's half of a driver's configuration (the network model is the
// other half). The zero value is a user that asks at once, holds for no
// time, and asks again, forever.
type Workload struct {
	Think dist.Dist // between a user's exit and its next request
	CS    dist.Dist // time in the critical section (pool: holding a unit)
	// CSTime, when set, replaces CS: the critical-section time of user u
	// for request r.
	CSTime func(u proc.ID, r proc.Request, rnd *rand.Rand) proc.Time
	// Next returns user u's next request. Nil: the user's whole MaxSet
	// (dining) for exclusive problems, an empty request otherwise.
	Next func(u proc.ID, rnd *rand.Rand) proc.Request
	// Join, when set, is the tick at which user u makes its first request
	// (after its first think time); users may thus appear during a run.
	Join func(u proc.ID) proc.Time
	// PerUser caps the requests each user makes (0: no cap). With a cap a
	// fault-free run ends quiescent, and every request must be answered.
	PerUser int
}

// Driver is what the cycle needs from the driver running it.
type Driver interface {
	// Observe hands an event of the application (request, acquire, exit,
	// release) to the observation stream; the driver stamps its time.
	Observe(e proc.Event)
	// Schedule asks for Wake(u) after d ticks.
	Schedule(u proc.ID, d proc.Time)
}

// Phase is a user's place in the cycle.
type Phase uint8

const (
	Thinking Phase = iota
	Waiting        // asked, not yet answered
	Using          // in its critical section / holding a unit
)

// User is one user's state. It is small on purpose: a simulator keeps a
// million of them, and one fits a cache line.
type User struct {
	Phase  Phase
	made   int32     // requests made
	served int32     // requests answered
	unit   int32     // pool: the unit held
	asked  proc.Time // when the open request was made
	req    proc.Request
	src    rand.PCG // the user's workload draws
}

// rnd is a random source drawing from u's own stream. It stays on the
// stack unless handed to Next or CSTime.
func (u *User) rnd() *rand.Rand { return rand.New(&u.src) }

// Cycle is the application of one run: every user's cycle over one
// workload.
type Cycle struct {
	work  Workload
	kind  algo.Kind
	Users []User
}

// New returns the application of a run of pb: users 0..pb.Users-1, each
// with its own random stream derived from seed.
func New(pb *algo.Problem, w Workload, seed uint64) *Cycle {
	c := &Cycle{work: w, kind: pb.Kind, Users: make([]User, pb.Users)}
	for i := range c.Users {
		u := &c.Users[i]
		u.src.Seed(seed, uint64(i)<<1|1)
		if w.Next == nil && pb.Kind == algo.Exclusive {
			u.req = proc.Request{Res: pb.MaxSets[i]}
		}
	}
	return c
}

// Begin schedules user u's first request: after a think time, and after
// its join time if the workload has one.
func (c *Cycle) Begin(d Driver, u proc.ID) {
	st := &c.Users[u]
	at := c.work.Think.Draw(st.rnd())
	if c.work.Join != nil {
		at += c.work.Join(u)
	}
	d.Schedule(u, at)
}

// Wake moves user u one step along its cycle at time now: a thinking user
// asks a (the algorithm's process at u, run with env) for its next request,
// unless ask is false (the driver is draining the run); a user in its
// critical section leaves it and releases.
func (c *Cycle) Wake(d Driver, env proc.Env, a proc.Allocator, u proc.ID, now proc.Time, ask bool) {
	st := &c.Users[u]
	switch st.Phase {
	case Thinking:
		if !ask {
			return
		}
		if c.work.Next != nil {
			st.req = c.work.Next(u, st.rnd())
		}
		st.Phase = Waiting
		st.asked = now
		st.made++
		if c.kind == algo.Pool {
			d.Observe(proc.Event{Kind: proc.EvAcquire, P: u})
		} else {
			d.Observe(proc.Event{Kind: proc.EvRequest, P: u, Res: st.req.Res})
		}
		a.Request(env, st.req)
	case Using:
		st.Phase = Thinking
		// The exit is observed before Release sends anything, so no other
		// process can enter on what this one gives back before the stream
		// shows it left.
		if c.kind == algo.Pool {
			d.Observe(proc.Event{Kind: proc.EvRelease, P: u, Unit: st.unit})
		} else {
			d.Observe(proc.Event{Kind: proc.EvExit, P: u})
		}
		a.Release(env)
		c.thinkThenAsk(d, u, st)
	}
}

// Answer follows an event the algorithm emitted at user u at time now. It
// reports whether the event answered u's open request, and how long u
// waited for it. An answer to no open request (a broken algorithm) changes
// nothing; the checkers will say so.
func (c *Cycle) Answer(d Driver, u proc.ID, e proc.Event, now proc.Time) (wait proc.Time, answered bool) {
	st := &c.Users[u]
	if !e.Served() || st.Phase != Waiting {
		return 0, false
	}
	st.served++
	switch e.Kind {
	case proc.EvEnter, proc.EvGrant:
		st.Phase = Using
		st.unit = e.Unit
		d.Schedule(u, c.csTime(u, st))
	default: // permit, reject: consumed, nothing to release
		st.Phase = Thinking
		c.thinkThenAsk(d, u, st)
	}
	return now - st.asked, true
}

// thinkThenAsk schedules user u's next request, if it has one left.
func (c *Cycle) thinkThenAsk(d Driver, u proc.ID, st *User) {
	if c.work.PerUser > 0 && int(st.made) >= c.work.PerUser {
		return
	}
	d.Schedule(u, c.work.Think.Draw(st.rnd()))
}

func (c *Cycle) csTime(u proc.ID, st *User) proc.Time {
	if c.work.CSTime != nil {
		return c.work.CSTime(u, st.req, st.rnd())
	}
	return c.work.CS.Draw(st.rnd())
}

// Totals counts the requests made and answered over every user.
func (c *Cycle) Totals() (requests, served int) {
	for i := range c.Users {
		requests += int(c.Users[i].made)
		served += int(c.Users[i].served)
	}
	return requests, served
}

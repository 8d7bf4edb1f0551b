package proc

import (
	"fmt"
	"math/rand/v2"
)

// Wrapped carries a subroutine's message inside its parent's traffic. It is
// counted under the subroutine's own message kind.
type Wrapped struct{ M Message }

// Kind is the inner message's kind.
func (w Wrapped) Kind() string { return w.M.Kind() }

// WrappedTimer carries a subroutine's timer.
type WrappedTimer struct{ T Timer }

// Parent is a process that hosts a subroutine and receives its events: the
// subroutine's Enter means "you are in the subroutine's critical region".
type Parent interface {
	// SubEvent gets the parent's own env (its ids, its traffic unwrapped),
	// so the parent may act on the event at once.
	SubEvent(env Env, e Event)
}

// Shift maps a hosted subroutine's process ids onto the run's when the
// parent puts processes of its own among them: the subroutine's ids from At
// on are By higher in the run. Rhee's modular algorithm, say, keeps the
// users 0..U-1 and puts its R resource managers where the subroutine
// numbers its helpers, which therefore live at U+R.. (At=U, By=R). The zero
// Shift maps every id to itself.
type Shift struct{ At, By ID }

// Out is the run's id of subroutine process id.
func (s Shift) Out(id ID) ID {
	if id >= s.At {
		return id + s.By
	}
	return id
}

// In is the subroutine's id of run process id, None for a process of the
// parent's own (the subroutine never hears from one).
func (s Shift) In(id ID) ID {
	switch {
	case id >= s.At+s.By:
		return id - s.By
	case id >= s.At:
		return None
	}
	return id
}

// SubEnv is the Env a parent hands its subroutine. Build one per input:
//
//	sub.Deliver(proc.SubEnv{Env: env, Parent: p}, from, inner)
//
// The subroutine sees its own ids (Shift), sends and arms its traffic
// wrapped, and emits to the parent.
type SubEnv struct {
	Env    Env    // the parent's env for this input
	Parent Parent // receives the subroutine's events
	Shift  Shift  // the subroutine's ids in the run
}

var _ Env = SubEnv{}

func (s SubEnv) Self() ID              { return s.Shift.In(s.Env.Self()) }
func (s SubEnv) Now() Time             { return s.Env.Now() }
func (s SubEnv) Rand() *rand.Rand      { return s.Env.Rand() }
func (s SubEnv) Send(to ID, m Message) { s.Env.Send(s.Shift.Out(to), Wrapped{m}) }
func (s SubEnv) After(d Time, t Timer) { s.Env.After(d, WrappedTimer{t}) }
func (s SubEnv) Emit(e Event)          { s.Parent.SubEvent(s.Env, e) }

// Route hands a wrapped message or timer to the subroutine sub, the sender
// translated to the subroutine's ids, and reports whether in was one. A
// parent calls it first in Deliver and Fire:
//
//	if proc.Route(sub, proc.SubEnv{Env: env, Parent: p}, from, m) { return }
func Route(sub Process, env SubEnv, from ID, in any) bool {
	switch w := in.(type) {
	case Wrapped:
		sub.Deliver(env, env.Shift.In(from), w.M)
		return true
	case WrappedTimer:
		sub.Fire(env, w.T)
		return true
	}
	return false
}

// Host runs one helper process of a hosted subroutine (a coordinator, say)
// as a process of the parent's run: its traffic travels wrapped and its ids
// are shifted as for the subroutine's processes inside the parent's users,
// and its events are dropped (only users answer the application).
type Host struct {
	Inner Process
	Shift Shift
}

var (
	_ Process = (*Host)(nil)
	_ Parent  = (*Host)(nil)
)

func (h *Host) env(env Env) SubEnv { return SubEnv{Env: env, Parent: h, Shift: h.Shift} }

func (h *Host) Start(env Env) { h.Inner.Start(h.env(env)) }

func (h *Host) Deliver(env Env, from ID, m Message) {
	if !Route(h.Inner, h.env(env), from, m) {
		panic(fmt.Sprintf("proc: hosted %T: unexpected message %T from %d", h.Inner, m, from))
	}
}

func (h *Host) Fire(env Env, t Timer) {
	if !Route(h.Inner, h.env(env), None, t) {
		panic(fmt.Sprintf("proc: hosted %T: unexpected timer %T", h.Inner, t))
	}
}

// SubEvent drops the helper's events.
func (h *Host) SubEvent(Env, Event) {}

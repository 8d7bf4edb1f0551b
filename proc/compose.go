package proc

import "math/rand/v2"

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
	SubEvent(env Env, e Event)
}

// SubEnv is the Env a parent hands its subroutine. Build one per input:
//
//	sub.Deliver(proc.SubEnv{Env: env, Parent: p}, from, inner)
type SubEnv struct {
	Env    Env    // the parent's env for this input
	Parent Parent // receives the subroutine's events
}

var _ Env = SubEnv{}

func (s SubEnv) Self() ID              { return s.Env.Self() }
func (s SubEnv) Now() Time             { return s.Env.Now() }
func (s SubEnv) Rand() *rand.Rand      { return s.Env.Rand() }
func (s SubEnv) Send(to ID, m Message) { s.Env.Send(to, Wrapped{m}) }
func (s SubEnv) After(d Time, t Timer) { s.Env.After(d, WrappedTimer{t}) }
func (s SubEnv) Emit(e Event)          { s.Parent.SubEvent(s.Env, e) }

// Route hands a wrapped message or timer to the subroutine sub and reports
// whether in was one. A parent calls it first in Deliver and Fire:
//
//	if proc.Route(sub, proc.SubEnv{Env: env, Parent: p}, from, m) { return }
func Route(sub Process, env SubEnv, from ID, in any) bool {
	switch w := in.(type) {
	case Wrapped:
		sub.Deliver(env, from, w.M)
		return true
	case WrappedTimer:
		sub.Fire(env, w.T)
		return true
	}
	return false
}

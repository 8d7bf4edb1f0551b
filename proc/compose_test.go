package proc

import (
	"math/rand/v2"
	"testing"
)

func TestShift(t *testing.T) {
	s := Shift{At: 3, By: 4} // users 0..2, the parent's own 3..6, the subroutine's helpers 7..
	for _, c := range []struct{ sub, run ID }{{0, 0}, {2, 2}, {3, 7}, {5, 9}} {
		if got := s.Out(c.sub); got != c.run {
			t.Errorf("Out(%d) = %d, want %d", c.sub, got, c.run)
		}
		if got := s.In(c.run); got != c.sub {
			t.Errorf("In(%d) = %d, want %d", c.run, got, c.sub)
		}
	}
	for _, own := range []ID{3, 6} {
		if got := s.In(own); got != None {
			t.Errorf("In(%d) = %d, want None (the parent's own process)", own, got)
		}
	}
	var zero Shift
	for _, id := range []ID{None, 0, 5} {
		if zero.Out(id) != id || zero.In(id) != id {
			t.Errorf("zero Shift moves %d", id)
		}
	}
}

// recorder is an Env that records what is sent and emitted.
type recorder struct {
	self ID
	sent []string
}

func (r *recorder) Self() ID          { return r.self }
func (r *recorder) Now() Time         { return 0 }
func (r *recorder) Rand() *rand.Rand  { return nil }
func (r *recorder) After(Time, Timer) {}
func (r *recorder) Emit(Event)        { r.sent = append(r.sent, "emit") }
func (r *recorder) Send(to ID, m Message) {
	r.sent = append(r.sent, m.(Wrapped).M.Kind()+">"+string(rune('0'+to)))
}

type ping struct{}

func (ping) Kind() string { return "ping" }

// echo answers every message to its sender and records who it thinks it is.
type echo struct{ self, from ID }

func (e *echo) Start(Env)       {}
func (e *echo) Fire(Env, Timer) {}
func (e *echo) Deliver(env Env, from ID, m Message) {
	e.self, e.from = env.Self(), from
	env.Send(from, m)
	env.Emit(Event{Kind: EvEnter})
}

// TestHost: a hosted helper sees its own ids, answers through the shift,
// and its events go nowhere.
func TestHost(t *testing.T) {
	in := &echo{}
	h := &Host{Inner: in, Shift: Shift{At: 2, By: 3}}
	env := &recorder{self: 6} // the subroutine's process 3
	h.Deliver(env, 5, Wrapped{ping{}})
	if in.self != 3 || in.from != 2 {
		t.Errorf("helper saw self=%d from=%d, want 3 and 2", in.self, in.from)
	}
	if len(env.sent) != 1 || env.sent[0] != "ping>5" {
		t.Errorf("run saw %v, want one wrapped ping to 5 and no event", env.sent)
	}
	defer func() {
		if recover() == nil {
			t.Error("an unwrapped message reached the helper without a panic")
		}
	}()
	h.Deliver(env, 5, ping{})
}

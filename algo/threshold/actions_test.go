package threshold

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// fakeEnv records what a process sends and emits.
type fakeEnv struct {
	self  proc.ID
	sent  []string
	enter int
}

func (e *fakeEnv) Self() proc.ID               { return e.self }
func (e *fakeEnv) Now() proc.Time              { return 0 }
func (e *fakeEnv) Rand() *rand.Rand            { return rand.New(rand.NewPCG(1, 1)) }
func (e *fakeEnv) After(proc.Time, proc.Timer) {}
func (e *fakeEnv) Emit(ev proc.Event)          { e.enter++ }
func (e *fakeEnv) Send(to proc.ID, m proc.Message) {
	s := m.Kind() + "→" + string(rune('0'+to))
	if f, ok := m.(Fork); ok {
		if f.Clean {
			s += " clean"
		} else {
			s += " dirty"
		}
		if f.Req {
			s += "+req"
		}
	}
	e.sent = append(e.sent, s)
}

func (e *fakeEnv) take() []string { s := e.sent; e.sent = nil; return s }

// The readings of §5.1 the package doc lists, scripted on the middle of the
// line 0–1–2 (the larger id first: 2 has priority over 1, 1 over 0).
func TestActions(t *testing.T) {
	g, _ := graph.Parse("line:3", nil)
	ps, err := Build(algo.DiningProblem(g), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := ps[1].(*Proc)
	env := &fakeEnv{self: 1}
	step := func(what string, f func(), want ...string) {
		t.Helper()
		f()
		if got := env.take(); !slices.Equal(got, want) {
			t.Fatalf("%s: sent %q, want %q", what, got, want)
		}
	}
	// Thinking, 1 holds the dirty fork it shares with 2: P gives it up and
	// keeps the token (no request of its own to send along).
	step("P while thinking", func() { p.Deliver(env, 2, Req{}) }, "fork→2 clean")
	// Hungry and short of its threshold point (2's fork is missing), 1 asks
	// only its threshold set: 2, not 0.
	step("H before the threshold point", func() { p.Request(env, proc.Request{}) }, "request→2")
	// 2 gives the fork back keeping priority (R: clean at 2, arrives
	// dirty): 1 is at its threshold point and asks for 0's fork.
	step("H at the threshold point", func() { p.Deliver(env, 2, Fork{Clean: false}) }, "request→0")
	// 0 sends its fork (1 has priority: it arrives clean); 1 eats.
	step("E", func() { p.Deliver(env, 0, Fork{Clean: true}) })
	if env.enter != 1 {
		t.Fatal("1 did not eat holding every fork")
	}
	// Requests while eating wait (the guard the listing omits on P).
	step("P deferred while eating", func() { p.Deliver(env, 2, Req{}); p.Deliver(env, 0, Req{}) })
	// After eating every fork is dirty: both go, and 1 keeps both tokens.
	step("release", func() { p.Release(env) }, "fork→0 clean", "fork→2 clean")
	// Hungry again: both neighbours have priority, so both are asked.
	step("hungry again", func() { p.Request(env, proc.Request{}) }, "request→0", "request→2")
	// 2's fork arrives clean: 1 now has priority over 2 but is short of its
	// threshold point (0's fork); 2 asks again and R gives the clean fork
	// up, dirty, keeping 1's priority and its token.
	step("fork from 2", func() { p.Deliver(env, 2, Fork{Clean: true}) })
	step("R short of the threshold point", func() { p.Deliver(env, 2, Req{}) }, "fork→2 dirty")
	// 0's fork arrives clean: 1 is at its threshold point (it has priority
	// over both) and asks for 2's fork, which it now may.
	step("threshold point", func() { p.Deliver(env, 0, Fork{Clean: true}) }, "request→2")
	// 0 asks back while 1 is at its threshold point: the clean fork stays.
	step("threshold point protects clean forks", func() { p.Deliver(env, 0, Req{}) })
}

package doorway

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

type fakeEnv struct {
	sent  []string
	enter int
}

func (e *fakeEnv) Self() proc.ID               { return 1 }
func (e *fakeEnv) Now() proc.Time              { return 0 }
func (e *fakeEnv) Rand() *rand.Rand            { return rand.New(rand.NewPCG(1, 1)) }
func (e *fakeEnv) After(proc.Time, proc.Timer) {}
func (e *fakeEnv) Emit(proc.Event)             { e.enter++ }
func (e *fakeEnv) Send(to proc.ID, m proc.Message) {
	s := m.Kind() + "→" + string(rune('0'+to))
	if f, ok := m.(Fork); ok && f.Req {
		s += "+req"
	}
	e.sent = append(e.sent, s)
}

// Process 1 of complete:4 has colour 1: one low neighbour (0, with
// priority) and two high ones (2 and 3). It starts with the fork it shares
// with 0 and the tokens of the edges to 2 and 3.
func TestActions(t *testing.T) {
	g, _ := graph.Parse("complete:4", nil)
	if c := Colors(g); !slices.Equal(c, []int32{0, 1, 2, 3}) {
		t.Fatalf("colours %v", c)
	}
	ps, err := Build(algo.DiningProblem(g))
	if err != nil {
		t.Fatal(err)
	}
	p := ps[1].(*Proc)
	env := &fakeEnv{}
	step := func(what string, f func(), want ...string) {
		t.Helper()
		f()
		got := env.sent
		env.sent = nil
		if !slices.Equal(got, want) {
			t.Fatalf("%s: sent %q, want %q", what, got, want)
		}
	}
	step("doorway answered at once while thinking", func() { p.Deliver(env, 2, Door{}) }, "ack→2")
	step("hungry: ask to pass the doorway", func() { p.Request(env, proc.Request{}) }, "door→0", "door→2", "door→3")
	step("at the doorway, not inside: answer at once", func() { p.Deliver(env, 3, Door{}) }, "ack→3")
	step("two answers of three: still outside", func() { p.Deliver(env, 0, Ack{}); p.Deliver(env, 2, Ack{}) })
	// Inside, holding its only low fork: at the threshold point at once,
	// it asks for the high forks.
	step("inside at the threshold point", func() { p.Deliver(env, 3, Ack{}) }, "request→2", "request→3")
	step("doorway request deferred inside", func() { p.Deliver(env, 0, Door{}) })
	// 2's fork comes with 2's token (2 wants it back): deferred, a high
	// neighbour's request at the threshold point.
	step("high request deferred at the threshold point", func() { p.Deliver(env, 2, Fork{Req: true}) })
	// 0 asks for its fork: preemption. 1 gives it up and asks it back, is no
	// longer at its threshold point, and releases the deferred high fork.
	step("preemption", func() { p.Deliver(env, 0, Req{}) }, "fork→0+req", "fork→2")
	step("low fork back: threshold point again", func() { p.Deliver(env, 0, Fork{}) }, "request→2")
	step("forks from 3 and 2", func() { p.Deliver(env, 3, Fork{}); p.Deliver(env, 2, Fork{}) })
	if env.enter != 1 {
		t.Fatal("1 did not eat holding every fork")
	}
	step("requests deferred while eating", func() { p.Deliver(env, 3, Req{}); p.Deliver(env, 0, Req{}) })
	// Leaving: the deferred doorway answer, then the forks.
	step("release", func() { p.Release(env) }, "ack→0", "fork→0", "fork→3")
}

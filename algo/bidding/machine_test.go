package bidding

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// fakeEnv records what a process does with one input.
type fakeEnv struct {
	self   proc.ID
	now    proc.Time
	out    []string
	timers []proc.Timer
	events []proc.Event
	rnd    *rand.Rand
}

func (e *fakeEnv) Self() proc.ID    { return e.self }
func (e *fakeEnv) Now() proc.Time   { return e.now }
func (e *fakeEnv) Rand() *rand.Rand { return e.rnd }
func (e *fakeEnv) Send(to proc.ID, m proc.Message) {
	e.out = append(e.out, fmt.Sprintf("%s>%d", strings.TrimPrefix(fmt.Sprintf("%T%v", m, m), "bidding."), to))
}
func (e *fakeEnv) After(d proc.Time, t proc.Timer) { e.timers = append(e.timers, t) }
func (e *fakeEnv) Emit(ev proc.Event)              { e.events = append(e.events, ev) }

// take returns and clears what was sent.
func (e *fakeEnv) take() []string {
	out := e.out
	e.out = nil
	return out
}

func newGranter(priority bool) (*Granter, *fakeEnv) {
	p, err := NewParams(fixedProblem(ringSets(6, 3), 6, nil), priority)
	if err != nil {
		panic(err)
	}
	g := &Granter{p: p, holder: proc.None}
	if priority {
		g.leases = map[proc.ID]lease{}
	}
	return g, &fakeEnv{self: 10, rnd: rand.New(rand.NewPCG(1, 1))}
}

// fireLast fires the last timer the granter armed.
func fireLast(g *Granter, env *fakeEnv) {
	t := env.timers[len(env.timers)-1]
	g.Fire(env, t)
}

func TestGranterRounds(t *testing.T) {
	type step struct {
		from proc.ID
		m    proc.Message // nil: fire the last timer
		want []string
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"unique winner, allocation, release", []step{
			{1, Win{R: 1, A: 0}, nil},
			{0, nil, []string{"Agree{1 0}>1"}},
			{2, Win{R: 4, A: 0}, []string{"Deny{4 0}>2"}}, // offered: deny
			{1, Accept{1, 0}, nil},
			{2, Win{R: 4, A: 1}, []string{"Deny{4 1}>2"}}, // allocated: deny
			{1, Release{1, 0}, nil},
			{2, Win{R: 4, A: 2}, nil},
			{0, nil, []string{"Agree{4 2}>2"}},
		}},
		{"two winners in one gather: both denied", []step{
			{1, Win{R: 1, A: 0}, nil},
			{2, Win{R: 3, A: 0}, nil},
			{0, nil, []string{"Deny{1 0}>1", "Deny{3 0}>2"}},
			{1, Win{R: 1, A: 1}, nil}, // a new round of the granter
			{0, nil, []string{"Agree{1 1}>1"}},
		}},
		// Four winners sum to 1 modulo 3: the counter saturates instead.
		{"four winners: M_j saturates", []step{
			{1, Win{R: 1, A: 0}, nil},
			{2, Win{R: 1, A: 0}, nil},
			{3, Win{R: 1, A: 0}, nil},
			{4, Win{R: 1, A: 0}, nil},
			{0, nil, []string{"Deny{1 0}>1", "Deny{1 0}>2", "Deny{1 0}>3", "Deny{1 0}>4"}},
		}},
		{"a later attempt of the same winner replaces its earlier one", []step{
			{1, Win{R: 1, A: 0}, nil},
			{1, Win{R: 1, A: 1}, []string{"Deny{1 0}>1"}},
			{0, nil, []string{"Agree{1 1}>1"}},
		}},
		{"decline frees; stale answers are ignored", []step{
			{1, Win{R: 1, A: 0}, nil},
			{0, nil, []string{"Agree{1 0}>1"}},
			{1, Accept{1, 9}, nil},  // another period: ignored
			{2, Decline{1, 0}, nil}, // another user: ignored
			{2, Win{R: 2, A: 0}, []string{"Deny{2 0}>2"}},
			{1, Decline{1, 0}, nil},
			{2, Win{R: 2, A: 1}, nil},
			{0, nil, []string{"Agree{2 1}>2"}},
		}},
		{"release overtakes accept", []step{
			{1, Win{R: 1, A: 0}, nil},
			{0, nil, []string{"Agree{1 0}>1"}},
			{1, Release{1, 0}, nil},
			{1, Accept{1, 0}, nil}, // late: must not re-allocate
			{2, Win{R: 2, A: 0}, nil},
			{0, nil, []string{"Agree{2 0}>2"}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, env := newGranter(false)
			for i, s := range tc.steps {
				if s.m == nil {
					fireLast(g, env)
				} else {
					g.Deliver(env, s.from, s.m)
				}
				if got := env.take(); !slices.Equal(got, s.want) {
					t.Fatalf("step %d: sent %v, want %v", i, got, s.want)
				}
			}
		})
	}
}

func TestPriorityGranterIntervals(t *testing.T) {
	// k = 3: groups 0 (demand 2..3), 1 (demand 2), 2 (demand 1).
	g, env := newGranter(true)
	g.Deliver(env, 1, Win{R: 1, A: 0, G: 2}) // free: the interval becomes group 2
	if g.cur != 2 {
		t.Fatalf("interval %d, want 2", g.cur)
	}
	fireLast(g, env)
	g.Deliver(env, 1, Decline{1, 0})
	env.take()
	// User 1 (group 2) is still bidding: a group-0 winner is denied.
	env.now = 5
	g.Deliver(env, 2, Win{R: 1, A: 0, G: 0})
	if got := env.take(); !slices.Equal(got, []string{"Deny{1 0}>2"}) || g.cur != 2 {
		t.Fatalf("sent %v in interval %d, want a deny in interval 2", got, g.cur)
	}
	// Once user 1's flag has lapsed the next group with a winner gets its turn.
	env.now = 5 + proc.Time(g.p.Lease)*g.p.Step + 1
	g.Deliver(env, 2, Win{R: 1, A: 1, G: 0})
	if g.cur != 0 || g.phase != gGathering {
		t.Fatalf("interval %d, phase %d: want group 0 gathering", g.cur, g.phase)
	}
	// A served winner's flag is down at once.
	fireLast(g, env)
	g.Deliver(env, 2, Accept{1, 1})
	g.Deliver(env, 2, Release{1, 1})
	env.take()
	g.Deliver(env, 3, Win{R: 1, A: 0, G: 1})
	if g.cur != 1 {
		t.Fatalf("after the group-0 winner was served the interval is %d, want 1", g.cur)
	}
}

func TestUserAnswersEveryAgree(t *testing.T) {
	p, err := NewParams(fixedProblem(ringSets(6, 3), 6, nil), false)
	if err != nil {
		t.Fatal(err)
	}
	p.K, p.V, p.Beta = 1, 1, 0.5 // ⌈βkv⌉ = 1: every draw wins
	u := &User{p: p, users: 6}
	env := &fakeEnv{self: 0, rnd: rand.New(rand.NewPCG(1, 1))}
	u.Request(env, proc.Request{Res: []proc.ResID{2, 0}})
	if got := env.take(); !slices.Equal(got, []string{"Win{1 0 0}>6", "Win{1 0 0}>8"}) {
		t.Fatalf("sent %v", got)
	}
	u.Deliver(env, 6, Agree{1, 0})
	u.Deliver(env, 8, Deny{1, 0})
	if got := env.take(); !slices.Equal(got, []string{"Decline{1 0}>6"}) {
		t.Fatalf("after a deny: sent %v, want a decline to the granter that agreed", got)
	}
	u.Deliver(env, 6, Agree{0, 3}) // a stale period
	if got := env.take(); !slices.Equal(got, []string{"Decline{0 3}>6"}) {
		t.Fatalf("stale agree: sent %v", got)
	}
	// The window ends: the next attempt, all agree, enter with the request.
	for _, tm := range env.timers {
		if ut := tm.(UserTimer); ut.Phase == tWindow {
			u.Fire(env, ut)
		}
	}
	if got := env.take(); !slices.Equal(got, []string{"Win{1 1 0}>6", "Win{1 1 0}>8"}) {
		t.Fatalf("second attempt: sent %v", got)
	}
	u.Deliver(env, 8, Agree{1, 1})
	u.Deliver(env, 6, Agree{1, 1})
	if got := env.take(); !slices.Equal(got, []string{"Accept{1 1}>6", "Accept{1 1}>8"}) || len(env.events) != 1 ||
		!slices.Equal(env.events[0].Res, []proc.ResID{2, 0}) {
		t.Fatalf("sent %v, events %v", got, env.events)
	}
	u.Release(env)
	if got := env.take(); !slices.Equal(got, []string{"Release{1 1}>6", "Release{1 1}>8"}) {
		t.Fatalf("release: sent %v", got)
	}
}

package proc_test

import (
	"fmt"

	"math/rand/v2"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// lock is a toy exclusion subroutine: process 0 owns a token and passes it
// to whoever asks; holding the token is its critical region.
type lock struct {
	has, want bool
	queue     []proc.ID
}

type ask struct{}
type token struct{}

func (ask) Kind() string   { return "ask" }
func (token) Kind() string { return "token" }

func (l *lock) Start(env proc.Env)        { l.has = env.Self() == 0 }
func (l *lock) Fire(proc.Env, proc.Timer) {}
func (l *lock) Request(env proc.Env, _ proc.Request) {
	if l.want = true; l.has {
		env.Emit(proc.Event{Kind: proc.EvEnter})
		return
	}
	env.Send(0, ask{})
}
func (l *lock) Release(env proc.Env) {
	l.want = false
	if len(l.queue) > 0 {
		l.has = false
		env.Send(l.queue[0], token{})
		l.queue = l.queue[1:]
	}
}
func (l *lock) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch m.(type) {
	case ask:
		if l.has && !l.want {
			l.has = false
			env.Send(from, token{})
			return
		}
		l.queue = append(l.queue, from)
	case token:
		l.has = true
		env.Emit(proc.Event{Kind: proc.EvEnter})
	}
}

// parent hosts the lock as a subroutine: when the subroutine enters its
// critical region, the parent does its own work (here: it enters its own
// critical section and tells the application), then leaves the region.
type parent struct {
	sub lock
	res []proc.ResID
}

func (p *parent) env(env proc.Env) proc.SubEnv { return proc.SubEnv{Env: env, Parent: p} }

func (p *parent) Start(env proc.Env) { p.sub.Start(p.env(env)) }
func (p *parent) Request(env proc.Env, r proc.Request) {
	p.res = r.Res
	p.sub.Request(p.env(env), r)
}
func (p *parent) Release(env proc.Env) { p.sub.Release(p.env(env)) }
func (p *parent) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if !proc.Route(&p.sub, p.env(env), from, m) {
		panic("parent has no messages of its own")
	}
}
func (p *parent) Fire(env proc.Env, t proc.Timer) { proc.Route(&p.sub, p.env(env), 0, t) }

// SubEvent receives the subroutine's events instead of the application.
func (p *parent) SubEvent(env proc.Env, e proc.Event) {
	if e.Kind == proc.EvEnter {
		env.Emit(proc.Event{Kind: proc.EvEnter, Res: p.res})
	}
}

type printer struct{}

func (printer) Event(e proc.Event) { fmt.Println(e.Time, e.Kind, e.P, e.Res) }

// ExampleSubEnv hosts a subroutine inside a parent process: the
// subroutine's messages travel wrapped in the parent's (proc.Wrapped), and
// its enter reaches the parent (SubEvent), not the application.
func ExampleSubEnv() {
	pb := &algo.Problem{Kind: algo.Exclusive, Users: 2}
	procs := []proc.Process{&parent{}, &parent{}}
	res, err := sim.Run(sim.Config{Sink: printer{}, Net: sim.Network{Delay: dist.Const(1)}, Work: app.Workload{CS: dist.Const(5), PerUser: 1, Next: func(u proc.ID, _ *rand.Rand) proc.Request { return proc.Request{Res: []proc.ResID{7}} }}}, pb, procs)
	fmt.Println(res.ByKind, err)
	// Output:
	// 0 request 0 [7]
	// 0 enter 0 [7]
	// 0 request 1 [7]
	// 5 exit 0 []
	// 6 enter 1 [7]
	// 11 exit 1 []
	// map[ask:1 token:1] <nil>
}

package modular

import (
	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// lockAlg is a stand-in exclusion subroutine for the package's own tests: a
// global mutex kept by one helper process (so the hosting and id
// translation of helpers is exercised) whose users wait one tick on a
// timer before asking (so wrapped timers are exercised too).
var lockAlg = algo.Algorithm{
	Name: "testlock",
	Kind: algo.Exclusive,
	Build: func(pb *algo.Problem) ([]proc.Process, error) {
		coord := proc.ID(pb.Users)
		ps := make([]proc.Process, 0, pb.Users+1)
		for i := 0; i < pb.Users; i++ {
			ps = append(ps, &lockUser{coord: coord})
		}
		return append(ps, &lockCoord{}), nil
	},
}

type (
	lockReq   struct{}
	lockGrant struct{}
	lockRel   struct{}
	lockTick  struct{}
)

func (lockReq) Kind() string   { return "lock.req" }
func (lockGrant) Kind() string { return "lock.grant" }
func (lockRel) Kind() string   { return "lock.rel" }

type lockUser struct {
	coord proc.ID
	res   []proc.ResID
}

func (u *lockUser) Start(proc.Env) {}
func (u *lockUser) Request(env proc.Env, r proc.Request) {
	u.res = r.Res
	env.After(1, lockTick{})
}
func (u *lockUser) Fire(env proc.Env, t proc.Timer) { env.Send(u.coord, lockReq{}) }
func (u *lockUser) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if from != u.coord {
		panic("lock: grant from a stranger")
	}
	env.Emit(proc.Event{Kind: proc.EvEnter, Res: u.res})
}
func (u *lockUser) Release(env proc.Env) { env.Send(u.coord, lockRel{}) }

type lockCoord struct {
	busy bool
	q    []proc.ID
}

func (c *lockCoord) Start(env proc.Env) {
	if env.Self() < 0 {
		panic("lock: bad self")
	}
}
func (c *lockCoord) Fire(proc.Env, proc.Timer) {}
func (c *lockCoord) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch m.(type) {
	case lockReq:
		c.q = append(c.q, from)
	case lockRel:
		c.busy = false
	}
	if !c.busy && len(c.q) > 0 {
		c.busy = true
		env.Send(c.q[0], lockGrant{})
		c.q = c.q[1:]
	}
}

// freeAlg lets every user into its critical region at once: no exclusion.
// Rhee's algorithm relies on the subroutine's exclusion (Lemma 5.1), so
// modular-free must be caught.
var freeAlg = algo.Algorithm{
	Name: "testfree",
	Kind: algo.Exclusive,
	Build: func(pb *algo.Problem) ([]proc.Process, error) {
		ps := make([]proc.Process, pb.Users)
		for i := range ps {
			ps[i] = &freeUser{}
		}
		return ps, nil
	},
}

type freeUser struct{}

func (freeUser) Start(proc.Env)                          {}
func (freeUser) Fire(proc.Env, proc.Timer)               {}
func (freeUser) Deliver(proc.Env, proc.ID, proc.Message) {}
func (freeUser) Request(env proc.Env, r proc.Request) {
	env.Emit(proc.Event{Kind: proc.EvEnter, Res: r.Res})
}
func (freeUser) Release(proc.Env) {}

// Package central is the baseline a user builds without the papers: one
// coordinator process owns every resource and grants requests in arrival
// order.
//
//	user ──req{res}──> coordinator ──grant──> user ... user ──rel──> coordinator
//
// Three messages per critical section, whatever the conflict graph; the
// coordinator is a single point of failure (its crash starves everyone) and
// of load.
//
// Channels are unordered, so a user's next request can arrive before the
// release of its previous grant; the coordinator holds such a request back
// until the release arrives.
//
// Head-of-line policy: the coordinator keeps waiting requests in arrival
// order and, on every change, scans them from the oldest. A request is
// granted when each of its resources is free and not wanted by an older
// waiting request; otherwise its resources are reserved for it against
// younger requests. So a request overtakes only requests it does not
// conflict with, a request never waits for a younger one, and none starves.
//
// The coordinator needs no prior knowledge of users or their resource sets,
// so users may appear at any time and change their sets freely.
package central

import (
	"fmt"

	"allot/algo"
	"allot/proc"
)

// Algorithm is the catalogue entry.
var Algorithm = algo.Algorithm{
	Name:    "central",
	Kind:    algo.Exclusive,
	Summary: "one coordinator owns every resource, grants in arrival order",
	Build:   Build,
}

// Req asks the coordinator for resources.
type Req struct{ Res []proc.ResID }

// Grant tells a user it holds what it asked for.
type Grant struct{}

// Rel gives a user's resources back.
type Rel struct{}

func (Req) Kind() string   { return "req" }
func (Grant) Kind() string { return "grant" }
func (Rel) Kind() string   { return "rel" }

// Build returns the users followed by the coordinator (id Users).
func Build(pb *algo.Problem) ([]proc.Process, error) {
	if pb.Kind != algo.Exclusive {
		return nil, fmt.Errorf("central: solves exclusive problems, not %s", pb.Kind)
	}
	coord := proc.ID(pb.Users)
	ps := make([]proc.Process, pb.Users+1)
	users := make([]User, pb.Users)
	for u := range users {
		users[u].coord = coord
		ps[u] = &users[u]
	}
	ps[coord] = NewCoordinator()
	return ps, nil
}

// User is an application process.
type User struct {
	coord proc.ID
	res   []proc.ResID
}

func (u *User) Start(proc.Env)                       {}
func (u *User) Fire(proc.Env, proc.Timer)            {}
func (u *User) Release(env proc.Env)                 { env.Send(u.coord, Rel{}) }
func (u *User) Request(env proc.Env, r proc.Request) { u.res = r.Res; env.Send(u.coord, Req{r.Res}) }
func (u *User) Deliver(env proc.Env, _ proc.ID, m proc.Message) {
	if _, ok := m.(Grant); ok {
		env.Emit(proc.Event{Kind: proc.EvEnter, Res: u.res})
	}
}

// Coordinator owns the resources.
type Coordinator struct {
	owner   map[proc.ResID]proc.ID   // resource -> user holding it
	holding map[proc.ID][]proc.ResID // user -> resources held
	waiting []waiter                 // arrival order
}

type waiter struct {
	u   proc.ID
	res []proc.ResID
}

// NewCoordinator returns a coordinator owning nothing yet.
func NewCoordinator() *Coordinator {
	return &Coordinator{owner: map[proc.ResID]proc.ID{}, holding: map[proc.ID][]proc.ResID{}}
}

func (c *Coordinator) Start(proc.Env)            {}
func (c *Coordinator) Fire(proc.Env, proc.Timer) {}

func (c *Coordinator) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch m := m.(type) {
	case Req:
		c.waiting = append(c.waiting, waiter{from, m.Res})
	case Rel:
		for _, r := range c.holding[from] {
			delete(c.owner, r)
		}
		delete(c.holding, from)
	default:
		panic(fmt.Sprintf("central: coordinator got %T", m))
	}
	c.grant(env)
}

// grant serves waiting requests under the head-of-line policy.
func (c *Coordinator) grant(env proc.Env) {
	reserved := map[proc.ResID]bool{}
	kept := c.waiting[:0]
	for _, w := range c.waiting {
		// On unordered channels a user's next request may overtake the
		// release of its previous one: it waits for that release.
		_, early := c.holding[w.u]
		if !early && c.free(w.res, reserved) {
			for _, r := range w.res {
				c.owner[r] = w.u
			}
			c.holding[w.u] = w.res
			env.Send(w.u, Grant{})
			continue
		}
		for _, r := range w.res {
			reserved[r] = true
		}
		kept = append(kept, w)
	}
	clear(c.waiting[len(kept):])
	c.waiting = kept
}

// free reports whether every resource of res is unowned and unreserved.
func (c *Coordinator) free(res []proc.ResID, reserved map[proc.ResID]bool) bool {
	for _, r := range res {
		if _, held := c.owner[r]; held || reserved[r] {
			return false
		}
	}
	return true
}

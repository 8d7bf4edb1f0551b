// Package centralpool is the pool baseline a user builds without the paper
// (a counting semaphore behind one server, as Curator's and Consul's
// semaphores funnel every acquire through one place): one owner process
// holds all R units and grants them in the order the requests arrive.
//
//	user ──Acquire──> owner ──Grant{unit}──> user ... user ──Give{unit}──> owner
//
// Three messages per grant whatever the graph (the owner must reach every
// node directly: the communication graph is taken as complete); the owner
// is a single point of failure and of load. The owner is an extra process,
// id n, after the n users.
//
// Free units are handed out oldest-returned first (a first-in first-out
// list, initially 0..R-1), so a unit goes to whoever is first in line, not
// back to its last user: what a semaphore that does not track units does.
//
// Channels are unordered, so a user's next Acquire may overtake the Give of
// its previous unit; the owner holds such a request back until the unit is
// back.
package centralpool

import (
	"fmt"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is the catalogue entry.
var Algorithm = algo.Algorithm{
	Name:     "central-pool",
	Kind:     algo.Pool,
	Summary:  "one owner holds all R units, grants in arrival order",
	Messages: []proc.Message{Acquire{}, Grant{}, Give{}},
	Build:    Build,
}

// Build returns the users followed by the owner (id Users).
func Build(pb *algo.Problem) ([]proc.Process, error) {
	if pb.Kind != algo.Pool {
		return nil, fmt.Errorf("central-pool: solves pool problems, not %s", pb.Kind)
	}
	if pb.Units < 1 {
		return nil, fmt.Errorf("central-pool: needs at least one unit, got %d", pb.Units)
	}
	owner := proc.ID(pb.Users)
	ps := make([]proc.Process, pb.Users+1)
	users := make([]User, pb.Users)
	for u := range users {
		users[u].owner = owner
		ps[u] = &users[u]
	}
	ps[owner] = NewOwner(pb.Units)
	return ps, nil
}

// User is an application process.
type User struct {
	owner proc.ID
	unit  int32
}

func (u *User) Start(proc.Env)                       {}
func (u *User) Fire(proc.Env, proc.Timer)            {}
func (u *User) Request(env proc.Env, _ proc.Request) { env.Send(u.owner, Acquire{}) }
func (u *User) Release(env proc.Env)                 { env.Send(u.owner, Give{u.unit}) }
func (u *User) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if g, ok := m.(Grant); ok {
		u.unit = g.Unit
		env.Emit(proc.Event{Kind: proc.EvMove, Unit: g.Unit, Peer: from})
		env.Emit(proc.Event{Kind: proc.EvGrant, Unit: g.Unit})
	}
}

// Owner holds the units.
type Owner struct {
	free    []int32           // oldest returned first
	holder  map[proc.ID]int32 // user -> unit it holds
	waiting []proc.ID         // arrival order
}

// NewOwner returns an owner of units 0..units-1.
func NewOwner(units int) *Owner {
	o := &Owner{holder: map[proc.ID]int32{}}
	for r := range units {
		o.free = append(o.free, int32(r))
	}
	return o
}

func (o *Owner) Start(proc.Env)            {}
func (o *Owner) Fire(proc.Env, proc.Timer) {}

func (o *Owner) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch m := m.(type) {
	case Acquire:
		o.waiting = append(o.waiting, from)
	case Give:
		env.Emit(proc.Event{Kind: proc.EvMove, Unit: m.Unit, Peer: from})
		delete(o.holder, from)
		o.free = append(o.free, m.Unit)
	default:
		panic(fmt.Sprintf("central-pool: owner got %T", m))
	}
	o.grant(env)
}

// grant serves waiting users in arrival order while units are free. A user
// whose previous unit is not back yet keeps its place in line.
func (o *Owner) grant(env proc.Env) {
	kept := o.waiting[:0]
	for _, u := range o.waiting {
		if _, early := o.holder[u]; early || len(o.free) == 0 {
			kept = append(kept, u)
			continue
		}
		r := o.free[0]
		o.free = o.free[1:]
		o.holder[u] = r
		env.Send(u, Grant{r})
	}
	clear(o.waiting[len(kept):])
	o.waiting = kept
}

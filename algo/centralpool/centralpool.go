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
// The list is kept as a count and the units given back: 0..R-1 in order
// stand first in it until each has been handed out once, so the owner
// holds the units never handed out as one number, next, and a list of
// the ones given back after them. The order is the list's, and the
// owner's memory and start-up grow with the units in use, not with R:
// the service's semaphores of a million units are served this way.
//
// The users do not depend on one another or on R, so each process can be
// made alone (Process): the service makes a user per request in use, not
// a fixed set.
//
// Channels are unordered, so a user's next Acquire may overtake the Give of
// its previous unit; the owner holds such a request back until the unit is
// back.
package centralpool

import (
	"fmt"
	"math"

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
	Process:  Process,
}

// Build returns the users followed by the owner (id Users).
func Build(pb *algo.Problem) ([]proc.Process, error) {
	if err := check(pb); err != nil {
		return nil, err
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

// Process returns process id of the run Build returns, alone: user id
// (id < Users) or the owner (id Users).
func Process(pb *algo.Problem, id proc.ID) (proc.Process, error) {
	if err := check(pb); err != nil {
		return nil, err
	}
	switch {
	case id >= 0 && int(id) < pb.Users:
		return &User{owner: proc.ID(pb.Users)}, nil
	case int(id) == pb.Users:
		return NewOwner(pb.Units), nil
	}
	return nil, fmt.Errorf("central-pool: no process %d in a run of %d users and the owner", id, pb.Users)
}

func check(pb *algo.Problem) error {
	if pb.Kind != algo.Pool {
		return fmt.Errorf("central-pool: solves pool problems, not %s", pb.Kind)
	}
	if pb.Units < 1 || pb.Units > math.MaxInt32 {
		return fmt.Errorf("central-pool: needs 1 to %d units, got %d", math.MaxInt32, pb.Units)
	}
	return nil
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

// Owner holds the units. Its free list is units next..R-1, then back.
type Owner struct {
	next, units int32             // next: the first unit never handed out; units: R
	back        []int32           // given back, oldest first
	holder      map[proc.ID]int32 // user -> unit it holds
	waiting     []proc.ID         // arrival order
}

// NewOwner returns an owner of units 0..units-1.
func NewOwner(units int) *Owner {
	return &Owner{units: int32(units), holder: map[proc.ID]int32{}}
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
		o.back = append(o.back, m.Unit)
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
		if _, early := o.holder[u]; early || (o.next == o.units && len(o.back) == 0) {
			kept = append(kept, u)
			continue
		}
		r := o.next
		if o.next < o.units {
			o.next++
		} else {
			r, o.back = o.back[0], o.back[1:]
		}
		o.holder[u] = r
		env.Send(u, Grant{r})
	}
	clear(o.waiting[len(kept):])
	o.waiting = kept
}

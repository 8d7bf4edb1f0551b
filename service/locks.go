package service

import (
	"errors"
	"fmt"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/host"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/space"
	"github.com/allot-dev/allot/users"
)

// The lock instance of a view runs its algorithm on a virtual problem of
// lockRange users and lockRange resources, and makes a process only when
// it is first used (algo.Algorithm.Process): a user when a request of
// this node needs one, a resource manager or the coordinator when the
// first message for it comes (the transport's Open). Only the processes in
// use exist, so a node has no fixed pool of user slots: a request never
// waits for an unrelated one, only for the holders of its own names.
//
// Placement is a pure function of (view, id), the same on every node:
// user u on member u mod N (this node makes its users as rank + N·k);
// after the users, manager of resource k on member k mod N (a name's id
// is in its home's range, so its manager is at its home); after the
// managers, the subroutine's helper h on member h mod N. Under
// modular-ordered helper k is resource k's lock of the subroutine, so it
// too is at the name's home, and a Lock of independent names touches
// only their homes (and the session's node and backup); under
// modular-central helper 0 is the coordinator, on the first member.
//
// A user that answered is reused for the node's next request: a user
// requesting again is the algorithm's normal case (modular's doc: a
// report may overtake the previous release). So the users of a view are
// as many as the node's most requests at once, and the coordinator's
// tables, indexed by user, stay about N × that peak. Config.MaxLocks
// bounds them: one more request is RESOURCE_EXHAUSTED. How many users
// the node makes, at which ids, and when a request waits or is refused
// is package users' rule (users.Lazy), which the data plane's model
// (package dataplane) runs too; the slots, the channel of idle ones and
// the goroutines waiting on it are this package's.

// lockOwner is the member hosting process id of the lock instance of v.
func lockOwner(v space.View, id proc.ID) int {
	return v.Members.Nth(int(id%lockRange) % v.Members.Len())
}

// newLazyInstance builds this node's lock instance of sp, or a large
// semaphore's (semaphores.go), with no process yet. The lock has at most
// Config.MaxLocks users on the node, a semaphore Config.MaxSessions (its
// channel of idle users is made at that size, for each semaphore), both
// at most MaxMaxLocks so that the users' ids stay below lockRange.
func (n *Node) newLazyInstance(sp space.Space, pb *algo.Problem, a algo.Algorithm) (*instance, error) {
	if a.Process == nil { // Cluster.Complete refuses such a lock algorithm
		return nil, fmt.Errorf("%s cannot make its processes one at a time", a.Name)
	}
	most := n.cfg.MaxLocks
	if sp.Key.Kind == algo.Pool {
		most = min(n.cfg.MaxSessions, MaxMaxLocks)
	}
	// in.free holds the idle users: at most most, as users.Keep keeps
	// no more alive (putBack).
	in := &instance{
		instanceDeps: n.instanceDeps(), key: sp.Key, view: sp.View, kind: sp.Key.Kind, name: sp.String(),
		free: make(chan *slot, most), closed: make(chan struct{}),
		lazy: true, alg: a, pb: pb, made: map[proc.ID]bool{},
		users: users.New(sp.View.Members.Rank(n.self), sp.View.Members.Len(), most, lockRange),
	}
	var err error
	if in.h, err = n.newHost(in.name); err != nil {
		return nil, err
	}
	return in, nil
}

// errFull: the lazy instance has its most users (users.Full), all busy.
var errFull = errors.New("every user of the node is busy")

// grab returns an idle user slot of this node, or for the lock and a
// large semaphore a new one (users.Lazy.Ask). Nil and no error when a
// semaphore on the slots or a quota has none idle: the caller waits for
// one on in.free (idle). For a lazy instance, errFull at its most users,
// unless a user was given back and is not idle yet (an Unlock answers
// before its backup has it and the release runs: api.go): then nil, and
// claimed, the caller waiting for it. errRetiredView once the instance
// is closed (its view retired meanwhile).
//
// A regrant (held: a grant held in the view before, asked again) gets a
// new user past the most: the node reports ready only once its held
// grants are asked again, and nothing serves until it does, while a node
// that adopted a lost node's sessions holds their grants beside its own,
// more than its most perhaps (the cluster promised them, as it promised
// the sessions, which adoption lets past --max-sessions). Waiting for a
// user there, it would wait for as long as the holders hold, the whole
// cluster with it. Only the lock's users' ids bound it (below lockRange).
func (in *instance) grab(held bool) (s *slot, claimed bool, err error) {
	select {
	case s := <-in.free:
		in.idleAgain(s)
		return s, false, nil
	default:
	}
	if !in.lazy {
		return nil, false, nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	v, id := in.users.Ask(held)
	switch v {
	case users.Claim:
		return nil, true, nil
	case users.Full:
		return nil, false, errFull
	}
	p, err := in.alg.Process(in.pb, id)
	if err != nil {
		return nil, false, err
	}
	a, ok := p.(proc.Allocator)
	if !ok {
		return nil, false, fmt.Errorf("%s: user %d is not an allocator", in.alg.Name, id)
	}
	s = &slot{id: id, p: a, answer: make(chan answer, 1)}
	if err := in.h.Add(id, p, func(env proc.Env, e proc.Event) { in.follow(env, s, e) }); err != nil {
		if errors.Is(err, host.ErrClosed) {
			return nil, false, errRetiredView
		}
		return nil, false, err
	}
	in.users.Made()
	in.made[id] = true
	return s, false, nil
}

// givenBack notes that lock user s was given back (users.GivenBack): it
// is idle again once the backup has the give-back and the release ran.
func (in *instance) givenBack(s *slot) {
	if !in.lazy {
		return
	}
	in.mu.Lock()
	in.users.GivenBack(s.id)
	in.mu.Unlock()
}

// idleAgain notes that lock user s, taken from in.free, is no longer on
// its way back (users.Returned): only once taken, so that a request that
// found in.free empty before s got there may still claim it.
func (in *instance) idleAgain(s *slot) {
	if !in.lazy {
		return
	}
	in.mu.Lock()
	in.users.Returned(s.id)
	in.mu.Unlock()
}

// putBack makes user s idle for the node's next request. A lazy
// instance keeps a user only while it has at most its most alive
// (users.Keep): a user made past it for a regrant (grab) is dropped as
// it comes back (its id is not given again), so the node's users go back
// to its most as those grants go back, whatever requests took the idle
// ones meanwhile. A request waiting for a user given back (claimed) finds
// one kept.
func (in *instance) putBack(s *slot) {
	if in.lazy {
		in.mu.Lock()
		keep := in.users.Keep()
		if !keep {
			in.users.Dropped()
			in.users.Returned(s.id) // not on its way back any more
		}
		in.mu.Unlock()
		if !keep {
			return
		}
	}
	select {
	case in.free <- s:
	default:
		in.idleAgain(s) // not on its way back any more
	}
}

// unclaim ends a wait that grab counted on a user given back
// (users.Unclaim).
func (in *instance) unclaim() {
	in.mu.Lock()
	in.users.Unclaim()
	in.mu.Unlock()
}

// ensure makes the lock's helper process id (a resource manager, the
// coordinator) or a large semaphore's owner if it is this node's and not
// made yet: the transport asks for it when the first message for it comes. A message for a user this
// node never made is for no request of this run (dropped).
func (in *instance) ensure(id proc.ID) {
	if !in.lazy || id < lockRange || lockOwner(in.view, id) != in.self {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.made[id] {
		return
	}
	p, err := in.alg.Process(in.pb, id)
	if err != nil {
		in.log.Warn("link: message for no process of the lock", "instance", in.name, "process", id, "err", err)
		return
	}
	if err := in.h.Add(id, p, nil); err != nil {
		return // closed: the message is dropped with the instance
	}
	in.made[id] = true
}

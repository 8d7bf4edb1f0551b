// Package ordered is the baseline a user builds by hand from single locks:
// each resource is a lock process with a FIFO queue, and a user takes the
// locks of its request one at a time in increasing resource id, holding
// what it has while it waits for the next (Curator's InterProcessMultiLock
// and Redisson's MultiLock, used with care, do this). It is not an
// algorithm of the papers; it is what their algorithms are measured
// against.
//
//	user ──acq──> lock r1 ──granted──> user ──acq──> lock r2 ──granted──> user: enter
//	user: exit ──rel──> every lock it holds
//
// The global order makes a cycle of waiting impossible, so there is no
// deadlock, and each lock serves its queue in arrival order, so nobody
// starves. What the order does not prevent is a chain: a user holding r1
// while it waits for r2 blocks everyone behind it on r1, who may hold other
// locks in turn. A request of k resources costs 3k messages and at least k
// sequential round trips before it enters, whatever the contention. Those
// chains are what the papers' algorithms exist to avoid. The comparison
// with ordered locking is allot's, not the papers': Reif and Spirakis
// (§1.6, Example 3) set bidding's O(vk) lock time against the
// O(kv^{k+2}) of their own earlier static locking [RS82b], and never
// mention locks taken in a global order.
//
// Channels are unordered, so a user's next acq to a lock may overtake the
// rel of its previous hold: the lock queues it like any other, and grants
// it when the rel has arrived and the acq's turn has come.
//
// No lock needs to know the users or their resource sets in advance: users
// may appear at any time and ask for any resources.
package ordered

import (
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is the catalogue entry.
var Algorithm = algo.Algorithm{
	Name:        "ordered",
	Kind:        algo.Exclusive,
	Summary:     "baseline: one lock process per resource, a user takes its locks one by one in increasing id",
	PerResource: true,
	Build:       Build,
	Process:     Process,

	Messages: []proc.Message{Acq{}, Granted{}, Rel{}},
}

// Acq asks a lock for itself.
type Acq struct{}

// Granted tells a user it holds the lock.
type Granted struct{}

// Rel gives a lock back.
type Rel struct{}

func (Acq) Kind() string     { return "acq" }
func (Granted) Kind() string { return "granted" }
func (Rel) Kind() string     { return "rel" }

// AnyOrder is the broken variant the suites keep: each user walks its
// request from a different place (user u starts at its (u mod k)-th
// resource and wraps around), so two users can each hold what the other
// waits for. It is not in the catalogue; the explorer finds its deadlock
// (TestAnyOrderDeadlocks), which is what the global order prevents.
var AnyOrder = algo.Algorithm{
	Name:        "ordered/any-order",
	Kind:        algo.Exclusive,
	Summary:     "BROKEN on purpose: ordered locking without the order (each user starts its walk elsewhere)",
	PerResource: true,
	Build:       func(pb *algo.Problem) ([]proc.Process, error) { return build(pb, true) },

	Messages: Algorithm.Messages,
}

// Build returns the users followed by one lock per resource: resource r is
// process Users+r.
func Build(pb *algo.Problem) ([]proc.Process, error) { return build(pb, false) }

// Process returns process id of the run Build returns, alone: a user
// needs only where the locks start, a lock nothing, so a host can make
// them as they are first used (users may come at any time with any set).
func Process(pb *algo.Problem, id proc.ID) (proc.Process, error) {
	if pb.Kind != algo.Exclusive {
		return nil, fmt.Errorf("ordered: solves exclusive problems, not %s", pb.Kind)
	}
	switch {
	case id >= 0 && int(id) < pb.Users:
		return &User{first: proc.ID(pb.Users), resources: pb.Resources}, nil
	case int(id) >= pb.Users && int(id) < pb.Users+pb.Resources:
		return &Lock{}, nil
	}
	return nil, fmt.Errorf("ordered: no process %d in a run of %d users and %d resources", id, pb.Users, pb.Resources)
}

func build(pb *algo.Problem, anyOrder bool) ([]proc.Process, error) {
	if pb.Kind != algo.Exclusive {
		return nil, fmt.Errorf("ordered: solves exclusive problems, not %s", pb.Kind)
	}
	if pb.Users < 0 || pb.Resources < 0 {
		return nil, fmt.Errorf("ordered: %d users and %d resources", pb.Users, pb.Resources)
	}
	ps := make([]proc.Process, pb.Users+pb.Resources)
	users := make([]User, pb.Users)
	for u := range users {
		users[u] = User{first: proc.ID(pb.Users), resources: pb.Resources}
		if anyOrder {
			users[u].rotate = u + 1
		}
		ps[u] = &users[u]
	}
	locks := make([]Lock, pb.Resources)
	for r := range locks {
		ps[pb.Users+r] = &locks[r]
	}
	return ps, nil
}

// User is an application process: it walks its request in increasing
// resource id, one lock at a time.
type User struct {
	first     proc.ID // the lock of resource 0
	resources int
	res       []proc.ResID // the request, as the application named it
	order     []proc.ResID // the request sorted, duplicates dropped
	held      int          // order[:held] are held
	rotate    int          // the broken variant: user id + 1 (0: the order kept)
}

func (u *User) Start(proc.Env)            {}
func (u *User) Fire(proc.Env, proc.Timer) {}

// Request starts the walk at the lowest resource named.
func (u *User) Request(env proc.Env, r proc.Request) {
	for _, x := range r.Res {
		if x < 0 || int(x) >= u.resources {
			panic(fmt.Sprintf("ordered: resource %d out of range 0..%d", x, u.resources-1))
		}
	}
	u.res = r.Res
	u.order = slices.Compact(slices.Sorted(slices.Values(r.Res)))
	if n := len(u.order); u.rotate > 0 && n > 0 {
		i := (u.rotate - 1) % n
		u.order = slices.Concat(u.order[i:], u.order[:i])
	}
	u.held = 0
	u.next(env)
}

// next asks for the next lock of the walk, or enters when all are held.
func (u *User) next(env proc.Env) {
	if u.held == len(u.order) {
		env.Emit(proc.Event{Kind: proc.EvEnter, Res: u.res})
		return
	}
	env.Send(u.lock(u.order[u.held]), Acq{})
}

func (u *User) lock(r proc.ResID) proc.ID { return u.first + proc.ID(r) }

func (u *User) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if _, ok := m.(Granted); !ok {
		panic(fmt.Sprintf("ordered: user got %T", m))
	}
	if u.held == len(u.order) || from != u.lock(u.order[u.held]) {
		panic(fmt.Sprintf("ordered: user got a lock it did not ask for (from %d)", from))
	}
	u.held++
	u.next(env)
}

// Release gives back every lock of the request.
func (u *User) Release(env proc.Env) {
	for _, r := range u.order[:u.held] {
		env.Send(u.lock(r), Rel{})
	}
	u.held = 0
}

// Lock is one resource's lock: a holder and a FIFO queue of waiting users.
type Lock struct {
	holder proc.ID   // user + 1 (0: free)
	queue  []proc.ID // waiting users, oldest first
}

func (l *Lock) Start(proc.Env)            {}
func (l *Lock) Fire(proc.Env, proc.Timer) {}

func (l *Lock) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch m.(type) {
	case Acq:
		l.queue = append(l.queue, from)
	case Rel:
		if l.holder != from+1 {
			panic(fmt.Sprintf("ordered: lock released by %d, held by %d", from, l.holder-1))
		}
		l.holder = 0
	default:
		panic(fmt.Sprintf("ordered: lock got %T", m))
	}
	if l.holder == 0 && len(l.queue) > 0 {
		next := l.queue[0]
		// A fresh array when the queue empties keeps it from growing
		// without bound behind its head.
		if l.queue = l.queue[1:]; len(l.queue) == 0 {
			l.queue = nil
		}
		l.holder = next + 1
		env.Send(next, Granted{})
	}
}

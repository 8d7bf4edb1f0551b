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
	"cmp"
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/internal/dense"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is the catalogue entry.
var Algorithm = algo.Algorithm{
	Name:    "central",
	Kind:    algo.Exclusive,
	Summary: "one coordinator owns every resource, grants in arrival order",
	Build:   Build,
	Process: Process,
	// The coordinator's resource table (24 bytes a resource) doubles as ids
	// appear beyond the run's resources (in a service): at the last growth
	// the old table and the new one, twice as large, are both live. A
	// queue longer than two adds 8 bytes an entry, less than the request
	// that waits there.
	ResourceBytes: 3 * 24,

	Messages: []proc.Message{Req{}, Grant{}, Rel{}},
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
	c := NewCoordinator()
	// Sized once for the resources the run names, so that the table is
	// not copied as ids appear (a hint: more still grow it).
	c.res = make([]resource, 0, pb.Resources)
	ps[coord] = c
	return ps, nil
}

// Process returns process id of Build(pb) alone: a user below Users, the
// coordinator at Users. A user needs only the coordinator's id, and the
// coordinator knows nothing of users or resources beforehand.
func Process(pb *algo.Problem, id proc.ID) (proc.Process, error) {
	if pb.Kind != algo.Exclusive {
		return nil, fmt.Errorf("central: solves exclusive problems, not %s", pb.Kind)
	}
	switch {
	case id >= 0 && int(id) < pb.Users:
		return &User{coord: proc.ID(pb.Users)}, nil
	case int(id) == pb.Users:
		return NewCoordinator(), nil
	}
	return nil, fmt.Errorf("central: no process %d in a run of %d users", id, pb.Users)
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

// Coordinator owns the resources. It keeps, for each resource, the users
// waiting for it in arrival order: a request is granted when it heads the
// queue of every resource it names and all of them are free (and its
// user's previous grant has been released). That is the head-of-line
// policy above, in time linear in the request's size: only the requests an
// input can unblock are looked at (the new request; the heads of the queues
// of released resources; the releasing user's own early request), in
// arrival order, as a scan of every waiting request would grant them. Each
// waiting request counts the resources it heads while they are free, so
// that a candidate is looked at in constant time: a release of k resources
// names up to k candidates, and scanning each one's k resources made a
// release cost k² (on complete:5000, 25 million steps a release).
//
// A resource's state is one 24-byte record holding its owner and the
// first two users of its queue; longer queues go on in linked lists in one
// pool of entries. A request of k names touches k records, one cache line
// each (on a dining graph a queue never holds more than the edge's two
// ends), where a slice per queue cost a header, a separate array and an
// owner table apart (three misses a name: complete:5000 spent 11 of its
// 17 s there), and millions of small arrays for the collector to scan.
type Coordinator struct {
	res     []resource     // resource id -> its owner and queue
	ent     [][]entry      // the queues' entries, in blocks; entry 0 is unused
	free    int32          // first free entry (0: none), linked by next
	holding [][]proc.ResID // user -> resources held (nil: none)
	wait    []waiter       // user -> its waiting request
	seq     uint64         // arrival counter
	cand    []proc.ID      // scratch: users an input may unblock
}

// resource is a resource's owner and its queue of waiting users, oldest
// first: q[0], q[1], then the entries head..tail.
type resource struct {
	owner      proc.ID    // user holding it + 1 (0: free)
	n          int32      // users waiting
	q          [2]proc.ID // the first two
	head, tail int32      // the rest (0: none)
}

// last is the user at the tail of rs's queue, which is not empty.
func (c *Coordinator) last(rs *resource) proc.ID {
	if rs.n <= 2 {
		return rs.q[rs.n-1]
	}
	return c.at(rs.tail).u
}

// entry is one user's place in one resource's queue.
type entry struct {
	u    proc.ID
	next int32 // the entry behind it (0: none)
}

// Entries live in blocks of a fixed size, so that the pool grows without
// copying what it holds (complete:5000 queues 25 million entries at once).
const blockBits = 16

// at returns entry e.
func (c *Coordinator) at(e int32) *entry {
	return &c.ent[e>>blockBits][e&(1<<blockBits-1)]
}

type waiter struct {
	seq uint64 // arrival order + 1 (0: no waiting request)
	res []proc.ResID
	// need is the number of distinct resources in res; ready the number
	// of them this request heads the queue of while they are free. It is
	// grantable only when the two are equal.
	need, ready int
}

// NewCoordinator returns a coordinator owning nothing yet.
func NewCoordinator() *Coordinator { return &Coordinator{} }

func (c *Coordinator) Start(proc.Env)            {}
func (c *Coordinator) Fire(proc.Env, proc.Timer) {}

func (c *Coordinator) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	c.cand = c.cand[:0]
	u := int(from)
	c.wait = dense.Grow(c.wait, u)
	c.holding = dense.Grow(c.holding, u)
	switch m := m.(type) {
	case Req:
		c.seq++
		w := waiter{seq: c.seq, res: m.Res}
		for _, r := range m.Res {
			c.res = dense.Grow(c.res, int(r))
			rs := &c.res[r]
			// A user has one request waiting at a time, so its own id at
			// the tail is this request naming r twice.
			if rs.n == 0 || c.last(rs) != from {
				w.need++
				if rs.n == 0 && rs.owner == 0 {
					w.ready++
				}
			}
			c.push(rs, from)
		}
		c.wait[u] = w
		c.cand = append(c.cand, from)
	case Rel:
		for _, r := range c.holding[u] {
			rs := &c.res[r]
			if rs.owner == 0 {
				continue // named twice in the request
			}
			rs.owner = 0
			if rs.n > 0 {
				// Only a request now free on all it names is a candidate:
				// on complete:5000 a release frees 4999 heads, and
				// sorting them all cost more than the grants.
				w := &c.wait[rs.q[0]]
				w.ready++
				if w.ready == w.need {
					c.cand = append(c.cand, rs.q[0])
				}
			}
		}
		c.holding[u] = nil
		if c.wait[u].seq != 0 {
			c.cand = append(c.cand, from) // its request came early
		}
	default:
		panic(fmt.Sprintf("central: coordinator got %T", m))
	}
	slices.SortFunc(c.cand, func(a, b proc.ID) int { return cmp.Compare(c.wait[a].seq, c.wait[b].seq) })
	for i, w := range c.cand {
		if i > 0 && w == c.cand[i-1] {
			continue
		}
		if c.grantable(w) {
			c.grant(env, w)
		}
	}
}

// grantable reports whether user u's waiting request heads every queue it
// is in, on free resources, with u's previous grant released. On unordered
// channels a user's next request may overtake that release: it waits.
func (c *Coordinator) grantable(u proc.ID) bool {
	w := c.wait[u]
	if w.seq == 0 || c.holding[u] != nil || w.ready != w.need {
		return false
	}
	for _, r := range w.res {
		if rs := &c.res[r]; rs.owner != 0 || rs.q[0] != u {
			return false
		}
	}
	return true
}

func (c *Coordinator) grant(env proc.Env, u proc.ID) {
	w := c.wait[u]
	for _, r := range w.res {
		rs := &c.res[r]
		rs.owner = u + 1
		c.pop(rs)
	}
	c.holding[u] = w.res
	if c.holding[u] == nil {
		c.holding[u] = []proc.ResID{} // an empty request is held too
	}
	c.wait[u] = waiter{}
	env.Send(u, Grant{})
}

// push queues user u at the tail of rs.
func (c *Coordinator) push(rs *resource, u proc.ID) {
	if rs.n < 2 {
		rs.q[rs.n] = u
		rs.n++
		return
	}
	rs.n++
	e := c.free
	if e != 0 {
		c.free = c.at(e).next
		*c.at(e) = entry{u: u}
	} else {
		last := len(c.ent) - 1
		if last < 0 || len(c.ent[last]) == 1<<blockBits {
			c.ent = append(c.ent, make([]entry, 0, 1<<blockBits))
			last++
			if last == 0 {
				c.ent[0] = append(c.ent[0], entry{}) // entry 0 means none
			}
		}
		e = int32(last<<blockBits + len(c.ent[last]))
		c.ent[last] = append(c.ent[last], entry{u: u})
	}
	if rs.head == 0 {
		rs.head = e
	} else {
		c.at(rs.tail).next = e
	}
	rs.tail = e
}

// pop takes the oldest user off rs's queue, which is not empty.
func (c *Coordinator) pop(rs *resource) {
	rs.q[0] = rs.q[1]
	rs.n--
	if rs.n < 2 {
		return
	}
	e := rs.head
	rs.q[1] = c.at(e).u
	if rs.head = c.at(e).next; rs.head == 0 {
		rs.tail = 0
	}
	*c.at(e) = entry{next: c.free}
	c.free = e
}

package service

import (
	"context"
	"slices"
	"sync"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/lockname"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/names"
	"github.com/allot-dev/allot/service/internal/space"
	"github.com/allot-dev/allot/transport"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A lock's resources are its names (package service/internal/names): in
// each view a name has a home member, which hosts the name's resource
// manager and gives the name a resource id of its own range, rank + N·k
// (so the manager, placed on member id mod N, is at the home); a node
// locking a name homed elsewhere asks the home once per view and keeps
// the answer for the view. Ids are never given twice in a view, so two
// names never share a manager: they never contend, and their tokens are
// their own ("lock/" + name).
//
// The question goes over the node links, in a space of its own beside
// the instances ("names", one endpoint per node, as the control plane's
// "ctl"), not as a gRPC call of its own: it then needs no client
// connection, credentials or retries of its own, and it is reliable and
// in order as the algorithms' messages are. A question of a view the home
// has left goes unanswered: the asker's view is retired too, and its
// request starts over in the next one.
//
// A view's tables are given back when the node adopts the next view;
// nameCount says how many names the current view's tables hold.

// namesSpace is the link transport's space of the names' questions.
const namesSpace = "names"

// lockRange is the lock instance's users and resources: every node's
// users and every name's id of a view are below it (ids fit int32 with
// the managers after the users).
const lockRange = 1 << 24

// nameTables are this node's name tables, one per view it has heard of.
type nameTables struct {
	mu      sync.Mutex
	space   transport.Transport // the names space (set by Register)
	byEpoch map[uint64]*nameTable
}

// nameTable is one view's names at this node (lockname.Table: the ids it
// gave the names homed here, of its range below lockRange, and the
// answers of the other homes, -1 for a home whose range is used up), and
// its questions out.
type nameTable struct {
	v       space.View
	ids     *lockname.Table[string]
	waiting map[string]chan struct{} // closed when a question is answered
}

// table is the table of view v of node self (under t.mu), made on first
// use.
func (t *nameTables) table(v space.View, self int) *nameTable {
	if t.byEpoch == nil {
		t.byEpoch = map[uint64]*nameTable{}
	}
	tb := t.byEpoch[v.Epoch]
	if tb == nil {
		tb = &nameTable{v: v, ids: lockname.NewTable[string](v.Members.Rank(self), v.Members.Len(), lockRange), waiting: map[string]chan struct{}{}}
		t.byEpoch[v.Epoch] = tb
	}
	return tb
}

// forget gives back the tables of the views before epoch.
func (t *nameTables) forget(epoch uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for e := range t.byEpoch {
		if e < epoch {
			delete(t.byEpoch, e)
		}
	}
}

// nameCount is how many names this node's tables hold for its current
// view: those homed here and the answers it keeps. They are given back
// only at the next view change.
func (n *Node) nameCount() int {
	st := n.views.current()
	if st == nil {
		return 0
	}
	t := &n.names
	t.mu.Lock()
	defer t.mu.Unlock()
	tb := t.byEpoch[st.v.Epoch]
	if tb == nil {
		return 0
	}
	return tb.ids.Len()
}

// resolve returns the resource ids of names in view st, sorted and
// without repeats (distinct names have distinct ids), asking their homes
// where needed. It fails when st is retired meanwhile (errRetiredView:
// start over in the next view), when ctx ends or the session does, and
// when a home has given every id of its range in the view.
func (n *Node) resolve(ctx context.Context, st *epochState, done <-chan struct{}, ns []string) ([]proc.ResID, error) {
	out := make([]proc.ResID, 0, len(ns))
	t := &n.names
	for _, name := range ns {
		for {
			home := names.Home(name, st.v.Members)
			t.mu.Lock()
			tb := t.table(st.v, n.self)
			if home == n.self {
				r, ok := tb.ids.Assign(name)
				t.mu.Unlock()
				if !ok {
					n.wantRefresh() // a refresh gives the view's names back
					return nil, n.limitReached("names", "this view has its most lock names at this node, %d: they are given back at the next view change, which this node asks for", lockRange/st.v.Members.Len())
				}
				out = append(out, proc.ResID(r))
				break
			}
			if r, ok := tb.ids.Known(name); ok {
				if r < 0 { // the home's range is used up
					tb.ids.Forget(name)
					t.mu.Unlock()
					n.wantRefresh()
					return nil, n.limitReached("names", "this view has its most lock names at one node, %d: they are given back at the next view change, which this node asks for", lockRange/st.v.Members.Len())
				}
				t.mu.Unlock()
				out = append(out, proc.ResID(r))
				break
			}
			ch, asked := tb.waiting[name]
			if !asked {
				ch = make(chan struct{})
				tb.waiting[name] = ch
			}
			sp := t.space
			t.mu.Unlock()
			if !asked {
				q := names.Resolve{Epoch: st.v.Epoch, Members: uint64(st.v.Members), Name: name}
				if err := sp.Send(proc.ID(n.self), proc.ID(home), q); err != nil {
					n.log.Warn("names: asking a name's home", "home", home, "err", err)
				}
			}
			select {
			case <-ch:
				continue // answered: known now
			case <-st.retired:
				return nil, errRetiredView
			case <-ctx.Done():
				return nil, status.FromContextError(ctx.Err()).Err()
			case <-done:
				return nil, errExpired
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil // a name asked twice is locked once
}

// deliverNames takes a question or an answer of the names space. It runs
// on the transport's goroutine and does not wait.
func (n *Node) deliverNames(from proc.ID, m proc.Message) {
	t := &n.names
	switch m := m.(type) {
	case names.Resolve:
		v := space.View{Epoch: m.Epoch, Members: space.Set(m.Members)}
		if n.views.behind(v.Epoch) || names.Home(m.Name, v.Members) != n.self {
			return // a view this node has left (the asker's is retired too), or not ours to answer
		}
		t.mu.Lock()
		r, ok := t.table(v, n.self).ids.Assign(m.Name)
		sp := t.space
		t.mu.Unlock()
		if !ok {
			r = -1 // the range is used up: the asker is refused
		}
		if err := sp.Send(proc.ID(n.self), from, names.Resolved{Epoch: m.Epoch, Name: m.Name, Res: proc.ResID(r)}); err != nil {
			n.log.Warn("names: answering", "node", from, "err", err)
		}
	case names.Resolved:
		if n.views.behind(m.Epoch) {
			return
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		tb := t.byEpoch[m.Epoch]
		if tb == nil {
			return // not asked in this run
		}
		tb.ids.Learn(m.Name, int(m.Res))
		if ch := tb.waiting[m.Name]; ch != nil {
			close(ch)
			delete(tb.waiting, m.Name)
		}
	default:
		n.log.Warn("names: unexpected message", "kind", m.Kind(), "from", from)
	}
}

// Locate implements the Allot service: the home of a lock name in the
// view this node is in, where a Lock of the name alone takes no message
// between nodes.
func (n *Node) Locate(ctx context.Context, r *pb.LocateRequest) (*pb.LocateResponse, error) {
	if err := checkName("name", "lock", r.Name, false); err != nil {
		return nil, err
	}
	st := n.views.current()
	if st == nil {
		return nil, status.Error(codes.Unavailable, "this node is in no view yet")
	}
	home := names.Home(r.Name, st.v.Members)
	addr := n.members.addr(home)
	if addr == "" {
		return nil, status.Errorf(codes.Unavailable, "the home of the name, node %d, is not a member any more: the view is changing", home)
	}
	return &pb.LocateResponse{NodeAddr: addr, Epoch: st.v.Epoch}, nil
}

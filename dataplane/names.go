package dataplane

import (
	"slices"

	"github.com/allot-dev/allot/lockname"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/session"
)

// A lock's names are resolved to resource ids per view, as the service's
// names.go does: each name has a home among the view's members
// (lockname.Home, rendezvous hashing of the name as the records spell it),
// which gives it an id of its own range, rank + N·k, on its first
// question in the view; a node locking a name homed elsewhere asks the
// home (Resolve, on the links: resent until acknowledged, in order, as
// the service's link space "names") and keeps the answer (Resolved) for
// the view. The names are asked one at a time, in order, and the lock's
// instance is asked once every name has its id; a grant held in a view
// is resolved again in the next (regrant). A question of a view the home
// has left goes unanswered: the asker's view is retired too, and the
// request starts over in the next one. The service's range is bounded
// (lockRange); the model's few names never reach it, and its refusal is
// not modelled.

// nameTable is one view's names at this node (lockname.Table, the
// service's: the ids it gave the names homed here, and the answers of the
// other homes), the questions out (asked), and the grants waiting for an
// answer.
type nameTable struct {
	members []proc.ID // the view's, sorted
	ids     *lockname.Table[int32]
	asked   map[int32]bool
	waiting []*grant
}

// table is the table of view epoch of members, made on first use; its
// ids have no limit (the service's lockRange, which the model's few
// names never reach).
func (n *Node) table(epoch uint64, members []proc.ID) *nameTable {
	tb := n.tables[epoch]
	if tb == nil {
		rank, _ := slices.BinarySearch(members, n.cfg.Self)
		tb = &nameTable{members: slices.Clone(members), ids: lockname.NewTable[int32](rank, len(members), 0), asked: map[int32]bool{}}
		n.tables[epoch] = tb
	}
	return tb
}

// forget gives back the tables of the views before epoch (the service's
// nameTables.forget, at a view's adoption).
func (n *Node) forget(epoch uint64) {
	for e := range n.tables { // any order: it only deletes
		if e < epoch {
			delete(n.tables, e)
		}
	}
}

// home is name's home among members: the service's, of the name as the
// records spell it.
func home(name int32, members []proc.ID) proc.ID {
	ms := make([]int, len(members))
	for i, m := range members {
		ms[i] = int(m)
	}
	return proc.ID(lockname.Home(names([]proc.ResID{proc.ResID(name)})[0], ms))
}

// assign is the id of a name homed at this node in tb's view, given on
// its first question.
func assign(tb *nameTable, name int32) proc.ResID {
	id, _ := tb.ids.Assign(name) // no limit: always given
	return proc.ResID(id)
}

// resolve sets g.ids to its names' ids in view epoch, asking the home of
// the first name it lacks (once per view, whoever asks) and leaving g to
// wait for the answer (false).
func (n *Node) resolve(o *Out, g *grant, epoch uint64) bool {
	tb := n.tables[epoch]
	if tb == nil {
		tb = n.table(epoch, n.view.Members)
	}
	g.resolving = false
	ids := make([]proc.ResID, 0, len(g.res))
	for _, r := range g.res {
		name := int32(r)
		h := home(name, tb.members)
		if h == n.cfg.Self {
			ids = append(ids, assign(tb, name))
			continue
		}
		if id, ok := tb.ids.Known(name); ok {
			ids = append(ids, proc.ResID(id))
			continue
		}
		if !tb.asked[name] {
			tb.asked[name] = true
			o.Sends = append(o.Sends, Addressed{h, Resolve{Epoch: epoch, Members: tb.members, Name: name}})
		}
		g.at, g.placed, g.queued, g.entered, g.resolving = epoch, false, false, false, true
		tb.waiting = append(tb.waiting, g)
		return false
	}
	slices.Sort(ids)
	g.ids = slices.Compact(ids) // distinct names have distinct ids
	return true
}

// Resolve is a question of node from to this node, a name's home in
// r's view: answered with the name's id, unless this node has left the
// view (the asker's is retired too) or the name is not homed here.
func (n *Node) Resolve(o *Out, from proc.ID, r Resolve) {
	if r.Epoch < n.view.Epoch || home(r.Name, r.Members) != n.cfg.Self {
		return
	}
	id := assign(n.table(r.Epoch, r.Members), r.Name)
	o.Sends = append(o.Sends, Addressed{from, Resolved{Epoch: r.Epoch, Name: r.Name, Res: id}})
}

// Resolved is a home's answer: the grants waiting for it go on, each to
// its next name or to its user.
func (n *Node) Resolved(o *Out, r Resolved) {
	tb := n.tables[r.Epoch]
	if tb == nil {
		return // a view left (its requests start over), or not asked in this run
	}
	tb.ids.Learn(r.Name, int(r.Res))
	delete(tb.asked, r.Name)
	w := tb.waiting
	tb.waiting = nil
	for _, g := range w {
		if !g.resolving || g.at != r.Epoch {
			continue
		}
		g.resolving = false
		if g.State == session.Lost {
			continue // its session ended meanwhile: answered then
		}
		n.ask(o, g, r.Epoch)
	}
}

package check

import (
	"slices"

	"github.com/allot-dev/allot/internal/dense"
	"github.com/allot-dev/allot/proc"
)

// Control judges a control plane (a Raft log of views, each node serving
// its view under a lease) from its events alone: EvView and EvFence from
// the nodes, EvCrash, EvRestart, EvPause and EvResume from the driver, and
// EvPermit, EvGrant or EvEnter for a grant made at a node. The rules:
//
//   - one view per epoch: every node serving epoch E serves the same
//     members;
//   - a majority: every view served holds a majority of the configuration
//     (Nodes), and the node serving it is one of its members;
//   - epochs only grow at a node, across restarts: it never serves an
//     epoch below one it served before;
//   - no stale view: no node starts serving an epoch below the newest one
//     any node has served;
//   - one view at a time: when a node starts serving epoch E, no other
//     running node still serves another epoch (with leases, the old view
//     has stopped before the new one starts). A stopped node (between
//     EvPause and EvResume) acts on nothing, so its view is not held
//     against the new one; but once it resumes it must fence, crash or
//     move to the newest view before it does anything else;
//   - grants only in the view that serves: a grant at a node that serves
//     nothing, or serves an epoch below the newest served;
//   - at most Budget permits in the whole run (Budget 0: not judged).
//
// A crash ends what a node served (it grants nothing more); a restart
// starts it serving nothing. What it cannot see: a node's belief (a view
// applied but not served is invisible until it serves), messages lost or
// delayed (a cut is not an event), and the time between the last event of
// a node and its lease's real end.
type Control struct {
	Report
	Nodes  int // the configuration: processes 0..Nodes-1
	Budget int // M; 0: permits are not counted against a budget
	// Permits is the number of permits issued.
	Permits int
	members map[uint64][]proc.ID // the members of each epoch served
	newest  uint64               // the newest epoch served so far
	nodes   []ctlNode
}

type ctlNode struct {
	serving bool
	epoch   uint64 // the epoch served, while serving
	last    uint64 // the newest epoch this node ever served
	paused  bool
	// superseded: another view started while this node was stopped
	// serving: its next act must be a fence.
	superseded bool
}

// Event implements proc.Sink.
func (x *Control) Event(e proc.Event) {
	p := int(e.P)
	if p < 0 {
		return
	}
	x.nodes = dense.Grow(x.nodes, p)
	n := &x.nodes[p]
	if n.superseded && !n.paused {
		switch {
		case e.Kind == proc.EvFence, e.Kind == proc.EvCrash, e.Kind == proc.EvRestart,
			e.Kind == proc.EvSend, e.Kind == proc.EvDeliver:
		case e.Kind == proc.EvView && e.Epoch >= x.newest: // it moves to the newest view at once
		default:
			x.add("t=%d: p%d %s after resuming, still serving epoch %d superseded by epoch %d while it was stopped",
				e.Time, p, e.Kind, n.epoch, x.newest)
		}
		n.superseded = false
	}
	switch e.Kind {
	case proc.EvView:
		x.view(e, n)
	case proc.EvFence:
		if n.serving && e.Epoch != n.epoch {
			x.add("t=%d: p%d fences epoch %d while serving epoch %d", e.Time, p, e.Epoch, n.epoch)
		}
		n.serving = false
	case proc.EvCrash, proc.EvRestart:
		n.serving, n.paused, n.superseded = false, false, false
	case proc.EvPause:
		n.paused = true
	case proc.EvResume:
		n.paused = false
	case proc.EvPermit, proc.EvGrant, proc.EvEnter:
		switch {
		case !n.serving:
			x.add("t=%d: p%d %s while serving no view", e.Time, p, e.Kind)
		case n.epoch < x.newest:
			x.add("t=%d: p%d %s in epoch %d after epoch %d has served", e.Time, p, e.Kind, n.epoch, x.newest)
		}
		if e.Kind == proc.EvPermit {
			if x.Permits++; x.Budget > 0 && x.Permits == x.Budget+1 {
				x.add("t=%d: permit %d issued at p%d, the budget is %d", e.Time, x.Permits, p, x.Budget)
			}
		}
	}
}

func (x *Control) view(e proc.Event, n *ctlNode) {
	p := e.P
	if x.members == nil {
		x.members = map[uint64][]proc.ID{}
	}
	if m, ok := x.members[e.Epoch]; ok && !slices.Equal(m, e.Members) {
		x.add("t=%d: p%d serves epoch %d with members %v, another node served it with %v", e.Time, p, e.Epoch, e.Members, m)
	} else if !ok {
		x.members[e.Epoch] = slices.Clone(e.Members)
	}
	in := 0
	for i, m := range e.Members {
		if m >= 0 && int(m) < x.Nodes && (i == 0 || e.Members[i-1] != m) {
			in++
		}
	}
	if 2*in <= x.Nodes {
		x.add("t=%d: p%d serves epoch %d with members %v: %d of a configuration of %d is no majority",
			e.Time, p, e.Epoch, e.Members, in, x.Nodes)
	}
	if !slices.Contains(e.Members, p) {
		x.add("t=%d: p%d serves epoch %d with members %v, which leave it out", e.Time, p, e.Epoch, e.Members)
	}
	if e.Epoch < n.last {
		x.add("t=%d: p%d serves epoch %d after it served epoch %d: epochs went back", e.Time, p, e.Epoch, n.last)
	}
	if e.Epoch < x.newest {
		x.add("t=%d: p%d serves epoch %d after epoch %d has served", e.Time, p, e.Epoch, x.newest)
	}
	for q := range x.nodes {
		o := &x.nodes[q]
		if proc.ID(q) == p || !o.serving || o.epoch == e.Epoch {
			continue
		}
		if o.paused {
			o.superseded = true
			continue
		}
		x.add("t=%d: p%d serves epoch %d while p%d still serves epoch %d", e.Time, p, e.Epoch, q, o.epoch)
	}
	n.serving, n.epoch = true, e.Epoch
	n.last = max(n.last, e.Epoch)
	x.newest = max(x.newest, e.Epoch)
}

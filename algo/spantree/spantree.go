// Package spantree is the rooted spanning tree the quota algorithms run on,
// built by the algorithm itself, and broadcast-and-echo over it.
//
// The tree is built by a diffusing computation from the root (Dijkstra and
// Scholten; Afek et al. §3 assume "an auxiliary process which dynamically
// constructs a spanning tree"): the root sends Explore to every neighbour; a
// node takes the first sender as its parent, its depth D(v) one more than
// the sender's, and explores its other neighbours; every Explore is
// answered by an Ack saying whether the sender became a child. A node acks
// its parent once all its neighbours have answered, with the size of its
// subtree, so the root learns that the tree is complete and how many nodes
// it has (n). Channels need not be FIFO. The tree is whatever the delays
// make it (not necessarily breadth-first): Afek et al. need only some tree
// and each node's distance to the root along it.
//
//	root ──Explore{0}──> a ──Explore{1}──> b          a: parent root, D=1
//	     <──Ack{child,2}─  <──Ack{child,1}──           b: parent a,   D=2
//
// A node may act as soon as it has joined (it knows its parent and depth);
// it knows its children once its subtree is complete. Each tree edge costs
// two messages, each other edge up to four.
//
// Broadcast-and-echo (Wave) sends an operation down the complete tree and
// sums one number per node back up. It reads only a Node's Parent and
// Children, so it also runs on a tree an algorithm keeps itself in a Node
// (the main controller's tree of participants, package controller). A node's contribution is given when
// the algorithm says it is ready, so a node can hold its echo back until it
// has settled (the controllers wait until no answer is owed to them).
package spantree

import (
	"fmt"

	"github.com/allot-dev/allot/proc"
)

// Node is one node's part of the tree.
type Node struct {
	Parent   proc.ID // proc.None at the root and before joining
	Depth    int     // D(v), the distance to the root along the tree
	Children []proc.ID
	Joined   bool // the node knows its parent and depth
	Complete bool // every node of its subtree has joined and acked
	Size     int  // nodes in the subtree, once complete (at the root: n)

	nbrs    []proc.ID
	waiting int // acks still owed to this node
}

// Start begins the diffusing computation at the root; other nodes only
// remember their neighbours.
func (t *Node) Start(env proc.Env, nbrs []proc.ID, root bool) {
	t.nbrs, t.Parent = nbrs, proc.None
	if root {
		t.join(env, proc.None, 0)
	}
}

func (t *Node) join(env proc.Env, parent proc.ID, depth int) {
	t.Joined, t.Parent, t.Depth, t.Size = true, parent, depth, 1
	for _, q := range t.nbrs {
		if q != parent {
			env.Send(q, Explore{Depth: int32(depth)})
			t.waiting++
		}
	}
	t.maybeComplete(env)
}

func (t *Node) maybeComplete(env proc.Env) {
	if t.waiting > 0 || t.Complete {
		return
	}
	t.Complete = true
	if t.Parent != proc.None {
		env.Send(t.Parent, Ack{Child: true, Size: int32(t.Size)})
	}
}

// Handle takes the tree's messages. It reports whether m was one, whether
// this node joined on it, and whether it completed the whole tree (at the
// root only).
func (t *Node) Handle(env proc.Env, from proc.ID, m proc.Message) (ok, joined, built bool) {
	switch m := m.(type) {
	case Explore:
		if t.Joined {
			env.Send(from, Ack{})
			return true, false, false
		}
		t.join(env, from, int(m.Depth)+1)
		return true, true, false
	case Ack:
		if t.waiting == 0 {
			panic(fmt.Sprintf("spantree: unexpected ack from %d", from))
		}
		t.waiting--
		if m.Child {
			t.Children = append(t.Children, from)
			t.Size += int(m.Size)
		}
		t.maybeComplete(env)
		return true, false, t.Complete && t.Parent == proc.None
	}
	return false, false, false
}

// Wave is one node's part of broadcast-and-echo over a complete tree. One
// wave runs at a time; the root starts the next after the last has come
// back.
type Wave struct {
	seq     uint32
	active  bool // a broadcast reached this node and its echo is not sent
	ready   bool // the algorithm has given this node's contribution
	waiting int  // children whose echo is missing
	sum     int64
}

// Begin starts a wave at the root with operation op and argument arg.
// The root acts on it itself (the algorithm does so before or after).
func (w *Wave) Begin(env proc.Env, t *Node, op uint8, arg int64) {
	if w.active {
		panic("spantree: a wave begun while another runs")
	}
	w.seq++
	w.start(env, t, Bcast{Seq: w.seq, Op: op, Arg: arg})
}

func (w *Wave) start(env proc.Env, t *Node, b Bcast) {
	w.active, w.ready, w.waiting, w.sum = true, false, len(t.Children), 0
	for _, c := range t.Children {
		env.Send(c, b)
	}
}

// Active reports whether a wave has reached this node and its echo is
// still to be sent.
func (w *Wave) Active() bool { return w.active }

// Handle takes the wave's messages. For a broadcast it forwards it to the
// children and returns it, for the algorithm to act on; the node's echo
// then waits for Ready. For an echo it reports whether the wave is
// finished at the root, with the sum of every contribution.
func (w *Wave) Handle(env proc.Env, t *Node, from proc.ID, m proc.Message) (ok bool, b *Bcast, done bool, sum int64) {
	switch m := m.(type) {
	case Bcast:
		w.seq = m.Seq
		w.start(env, t, m)
		return true, &m, false, 0
	case Echo:
		if !w.active || m.Seq != w.seq || w.waiting == 0 {
			panic(fmt.Sprintf("spantree: stray echo %d from %d", m.Seq, from))
		}
		w.waiting--
		w.sum += m.Sum
		done, sum = w.finish(env, t)
		return true, nil, done, sum
	}
	return false, nil, false, 0
}

// Ready gives this node's contribution to the running wave. It reports
// whether the wave is finished at the root, with the total.
func (w *Wave) Ready(env proc.Env, t *Node, contribution int64) (done bool, sum int64) {
	if !w.active || w.ready {
		panic("spantree: ready outside a wave")
	}
	w.ready = true
	w.sum += contribution
	return w.finish(env, t)
}

func (w *Wave) finish(env proc.Env, t *Node) (bool, int64) {
	if !w.ready || w.waiting > 0 {
		return false, 0
	}
	w.active = false
	if t.Parent != proc.None {
		env.Send(t.Parent, Echo{Seq: w.seq, Sum: w.sum})
		return false, 0
	}
	return true, w.sum
}

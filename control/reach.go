package control

import (
	"slices"

	"github.com/allot-dev/allot/proc"
)

// Reach is a node's word to every other voter, every Lease/4: the voters
// it heard a message from within a lease (itself included), by id. It
// travels outside the Raft log, on the links the data plane uses, so it
// is both a report and a probe: a node that hears none from a peer for a
// lease no longer counts that peer heard. The leader chooses views whose
// members all heard each other (Node.Hear, proposeView).
type Reach struct{ Heard []int32 }

func (Reach) Kind() string { return "reach" }

// report is the last Reach a node sent this one, at the Raft tick at.
type report struct {
	at    int64
	heard []proc.ID // sorted
}

// Hear hands the node a Reach from node from.
func (n *Node) Hear(now proc.Time, from proc.ID, r Reach) {
	n.Tick(now)
	n.heard[from] = n.ticks
	heard := make([]proc.ID, 0, len(r.Heard))
	for _, id := range r.Heard {
		heard = append(heard, proc.ID(id))
	}
	slices.Sort(heard)
	n.reports[from] = report{at: n.ticks, heard: heard}
}

// reach is this node's Reach now: the voters it heard from within a
// lease. A node gives every voter the benefit of the doubt for its first
// lease (heard counts from tick 0), as a new leader does: no peer's
// Reach has had time to arrive.
func (n *Node) reach() Reach {
	var r Reach
	for _, id := range n.conf.Voters {
		p := procID(id)
		if p == n.cfg.Self || n.ticks-n.heard[p] <= LeaseTicks {
			r.Heard = append(r.Heard, int32(p))
		}
	}
	return r
}

// reachTo is the voters this node sends its Reach to: all but itself.
func (n *Node) reachTo() []proc.ID {
	var to []proc.ID
	for _, id := range n.conf.Voters {
		if p := procID(id); p != n.cfg.Self {
			to = append(to, p)
		}
	}
	return to
}

// hears reports whether node a heard node b within a lease, as this node
// knows: what it heard itself, for itself, a's last Reach for another
// node. Without the benefit of the doubt a new leader gives every node
// (alive): every node's Reach came to it within a lease, while it
// followed, so a node it has not heard from is away (crashed, or cut),
// and a node the others no longer hear is not kept in place of one they
// do. A node whose Reach is older than a lease (or that never sent one:
// a node of an older version) is taken to hear everyone: what it does not
// say cannot take it out of a view, and the leader's own failure detector
// still does.
func (n *Node) hears(a, b proc.ID) bool {
	if a == b {
		return true
	}
	if a == n.cfg.Self {
		return n.ticks-n.heard[b] <= LeaseTicks
	}
	r, ok := n.reports[a]
	if !ok || n.ticks-r.at > LeaseTicks {
		return true
	}
	_, found := slices.BinarySearch(r.heard, b)
	return found
}

// linked reports whether a and b heard each other: a one-way cut cuts
// the pair.
func (n *Node) linked(a, b proc.ID) bool { return n.hears(a, b) && n.hears(b, a) }

// clique chooses, among the candidates (sorted), the largest set that
// holds this node (if a candidate) and in which every two linked. Of
// sets of that size it prefers, in turn: the one whose members the other
// candidates hear most (a node some no longer hear is the likelier to be
// dying: of a crashed node, the others lose it one after the other, and
// in between it must not be kept in place of a live one; of a one-way
// cut, the side the other cannot hear goes); the one with the most
// members of cur (a steady cut keeps the view it led to); the first in
// the order of ids (every leader facing the same reports chooses the
// same). The search tries the candidates in that order, each set before
// those without its next member, and drops a branch that cannot reach
// the best size; the configurations it runs on are a few nodes, and when
// every pair is linked (the common case) it takes them all at once.
func (n *Node) clique(cands []proc.ID, cur View) []proc.ID {
	if n.allLinked(cands) {
		return cands
	}
	inCur := func(p proc.ID) bool { _, ok := slices.BinarySearch(cur.Members, p); return ok }
	heardBy := map[proc.ID]int{}
	for _, p := range cands {
		for _, q := range cands {
			if q != p && n.hears(q, p) {
				heardBy[p]++
			}
		}
	}
	order := []proc.ID{}
	for _, p := range cands {
		if p != n.cfg.Self && inCur(p) {
			order = append(order, p)
		}
	}
	for _, p := range cands {
		if p != n.cfg.Self && !inCur(p) {
			order = append(order, p)
		}
	}
	// score is what the sets of one size are told apart by.
	score := func(s []proc.ID) [2]int {
		var k [2]int
		for _, p := range s {
			k[0] += heardBy[p]
			if inCur(p) {
				k[1]++
			}
		}
		return k
	}
	var start []proc.ID
	if _, ok := slices.BinarySearch(cands, n.cfg.Self); ok {
		start = []proc.ID{n.cfg.Self}
	}
	best := slices.Clone(start)
	bestScore := score(best)
	var walk func(i int, in []proc.ID)
	walk = func(i int, in []proc.ID) {
		if k := score(in); len(in) > len(best) || len(in) == len(best) && slices.Compare(k[:], bestScore[:]) > 0 {
			best, bestScore = slices.Clone(in), k
		}
		for j := i; j < len(order) && len(in)+len(order)-j >= len(best); j++ {
			p := order[j]
			ok := true
			for _, q := range in {
				ok = ok && n.linked(p, q)
			}
			if ok {
				walk(j+1, append(in, p))
			}
		}
	}
	walk(0, start)
	// The members of cur among the candidates, if every two of them are
	// linked and they are as many as the best set, stay the view, whatever
	// the others' hearing says: a change of view costs a lease's wait,
	// and nothing is gained by one set of that size over another while
	// cur's own links hold. (After a cut heals, the side left out and the
	// side kept hear each other again at slightly different times: for up
	// to a Lease/4, one's last Reach names the other and not the reverse,
	// which scores the one left out above the one kept, and the view
	// swapped them, the kept node's sessions moving away just as the cut
	// ended.)
	var kept []proc.ID
	for _, p := range cands {
		if inCur(p) {
			kept = append(kept, p)
		}
	}
	_, self := slices.BinarySearch(cands, n.cfg.Self)
	if len(kept) == len(best) && (!self || slices.Contains(kept, n.cfg.Self)) && n.allLinked(kept) {
		return kept
	}
	slices.Sort(best)
	return best
}

// allLinked reports whether every two of s are linked.
func (n *Node) allLinked(s []proc.ID) bool {
	for i, a := range s {
		for _, b := range s[i+1:] {
			if !n.linked(a, b) {
				return false
			}
		}
	}
	return true
}

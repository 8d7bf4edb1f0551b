package control

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// cutBound is how long after a cut between two members a view without
// one of them serves, at most: a lease until the cut side stops counting
// the other heard, Lease/4 until its next Reach tells the leader, the
// wait of a run left out that still holds its lease (holdFor of a
// silence of 0: the leader hears it), and a tenth of a lease for the
// round trips (proposal, commit, readies) and the ticks between.
func cutBound(c *cluster) proc.Time {
	return lease + lease/4 + c.nodes[0].holdFor(0) + lease/10
}

// followers are the two members of a three-node cluster's view that do
// not lead, lower id first, and the leader.
func followers(t *testing.T, c *cluster) (a, b, ld proc.ID) {
	ld = c.nodes[0].Leader()
	var fs []proc.ID
	for i := range c.nodes {
		if proc.ID(i) != ld {
			fs = append(fs, proc.ID(i))
		}
	}
	if ld == proc.None || len(fs) != 2 {
		t.Fatalf("leader %d, followers %v", ld, fs)
	}
	return fs[0], fs[1], ld
}

// cutPair cuts (or mends) the link from a to b, and from b to a unless
// oneWay.
func (c *cluster) cutPair(a, b proc.ID, cut, oneWay bool) {
	c.cut[[2]proc.ID{a, b}] = cut
	if !oneWay {
		c.cut[[2]proc.ID{b, a}] = cut
	}
	c.logf("cut %d-%d %v (one way %v)", a, b, cut, oneWay)
}

// views counts the views adopted after epoch e (every node's adoptions
// of one view count once).
func (c *cluster) viewsAfter(e uint64) int {
	k := 0
	for ep := range c.views {
		if ep > e {
			k++
		}
	}
	return k
}

// TestFollowerCut: the link between the two followers of three is cut
// (both ways, or one way). The leader hears both, so its own failure
// detector never changes the view; their Reach reports do: a view
// without one of them (cut both ways, the higher id: the tie goes to the
// lower; one way, the one the other does not hear) serves
// within cutBound, the view stays put while the cut lasts, and once the
// link is mended both serve again within a lease, the one left out as a
// new run (a run once out never comes back: the service's backups take
// it for gone).
func TestFollowerCut(t *testing.T) {
	for _, oneWay := range []bool{false, true} {
		for seed := uint64(1); seed <= 5; seed++ {
			t.Run(fmt.Sprintf("oneway=%v/seed=%d", oneWay, seed), func(t *testing.T) {
				followerCut(t, seed, oneWay)
			})
		}
	}
}

func followerCut(t *testing.T, seed uint64, oneWay bool) {
	c := newCluster(t, 3, seed, 0)
	e := c.settle(20*lease, 3)
	c.run(3 * lease)
	a, b, ld := followers(t, c)
	// One way, b hears nothing from a: a goes.
	kept, gone := a, b
	if oneWay {
		kept, gone = b, a
	}
	gen := c.nodes[ld].State().View().Gens[gone]
	c.cutPair(a, b, true, oneWay)
	cutAt := c.now
	bound := cutBound(c)
	e2 := c.settle(bound, 2)
	took := c.now - cutAt
	t.Logf("a view without a cut follower served %d after the cut (bound %d, lease %d)", took, bound, lease)
	v := c.nodes[ld].State().View()
	if !slices.Equal(v.Members, slices.Sorted(slices.Values([]proc.ID{kept, ld}))) {
		t.Fatalf("view %v after cutting %d-%d (leader %d): want the leader and %d\n%s", v, a, b, ld, kept, strings.Join(c.log, "\n"))
	}
	// The cut lasts: the view does not move.
	c.run(20 * lease)
	if k := c.viewsAfter(e2); k != 0 || c.servingNow()[ld] != e2 {
		t.Fatalf("%d views after %d under a steady cut; serving %v\n%s", k, e2, c.servingNow(), strings.Join(c.log, "\n"))
	}
	c.cutPair(a, b, false, oneWay)
	healAt := c.now
	c.settle(lease, 3)
	t.Logf("all three served again %d after the heal", c.now-healAt)
	if g := c.nodes[ld].State().View().Gens[gone]; g <= gen {
		t.Fatalf("node %d back in %v as generation %d, was %d: the run left out came back", gone, c.nodes[ld].State().View(), g, gen)
	}
	if e2 <= e {
		t.Fatalf("epoch %d after %d", e2, e)
	}
	c.verify()
}

// TestFollowerCutFive: of five, two followers cut from each other leave
// a view of four (the other three, and the lower id of the two), within
// cutBound.
func TestFollowerCutFive(t *testing.T) {
	c := newCluster(t, 5, 7, 0)
	c.settle(20*lease, 5)
	c.run(3 * lease)
	ld := c.nodes[0].Leader()
	var fs []proc.ID
	for i := range c.nodes {
		if proc.ID(i) != ld {
			fs = append(fs, proc.ID(i))
		}
	}
	a, b := fs[1], fs[3]
	c.cutPair(a, b, true, false)
	cutAt := c.now
	c.settle(cutBound(c), 4)
	t.Logf("a view of four served %d after the cut", c.now-cutAt)
	if v := c.nodes[ld].State().View(); slices.Contains(v.Members, b) || !slices.Contains(v.Members, a) {
		t.Fatalf("view %v after cutting %d-%d: want %d out, %d in", v, a, b, b, a)
	}
	c.cutPair(a, b, false, false)
	c.settle(lease, 5)
	c.verify()
}

// TestFollowerCutWaitsForTheLease: the cut follower stops hearing the
// leader too, just before the leader learns of the cut (the leader still
// hears it), so it never applies the view that leaves it out and serves
// on until its lease, renewed just before, runs out: the view without it
// waits for that (holdFor of a silence of 0), and the checker finds no
// two views serving at once. Without the wait (NoWait) it does.
func TestFollowerCutWaitsForTheLease(t *testing.T) {
	for _, broken := range []Broken{0, NoWait} {
		c := newCluster(t, 3, 4, broken)
		e := c.settle(20*lease, 3)
		c.run(3 * lease)
		a, b, ld := followers(t, c)
		c.cutPair(a, b, true, false)
		cutAt := c.now
		c.run(lease * 7 / 10)
		c.cutPair(ld, b, true, true)
		c.settleAbove(cutBound(c)-(c.now-cutAt), 2, e)
		err := check(c.spans, len(c.nodes), c.now)
		switch {
		case broken == 0 && err != nil:
			t.Fatalf("%v\n%s", err, strings.Join(c.log, "\n"))
		case broken == NoWait && err == nil:
			t.Fatalf("NoWait: no two views served at once\n%s", strings.Join(c.log, "\n"))
		}
		t.Logf("broken %d: %v", broken, err)
	}
}

// TestDyingFollowerNotKept: a follower's link to the other follower goes
// quiet a little before it crashes (its last messages to the leader got
// out, those to the other did not): for a while the leader still hears
// it, the other no longer does. The view that leaves it out comes; the
// live follower is never left out in its place (it would lose its
// sessions), though the dying one has the lower id.
func TestDyingFollowerNotKept(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		c := newCluster(t, 3, seed, 0)
		e := c.settle(20*lease, 3)
		c.run(3 * lease)
		a, b, ld := followers(t, c)
		c.cutPair(a, b, true, true)
		c.run(lease / 4)
		c.crash(a)
		c.settleAbove(cutBound(c), 2, e)
		if c.lost[b] > 0 {
			t.Fatalf("seed %d: node %d, alive, fenced as lost in place of node %d, dying\n%s", seed, b, a, strings.Join(c.log, "\n"))
		}
		if v := c.nodes[ld].State().View(); slices.Contains(v.Members, a) {
			t.Fatalf("seed %d: view %v has the crashed node %d", seed, v, a)
		}
		c.verify()
	}
}

// TestCliqueKeepsTheViewAtTheHeal: a cut between followers 1 and 2 left
// 1 out (the view is {0, 2}); the link is mended, and 2's last Reach
// names 1 before 1's names 2. The largest set of linked members is still
// of two, and the view's own pair is linked: the view stays, rather than
// swap 2 for 1 (which 2's hearing scores higher) and move 2's sessions
// away as the cut ends.
func TestCliqueKeepsTheViewAtTheHeal(t *testing.T) {
	n := &Node{
		cfg:   Config{Self: 0},
		ticks: 100,
		heard: map[proc.ID]int64{1: 100, 2: 100},
		reports: map[proc.ID]report{
			1: {at: 95, heard: []proc.ID{0, 1}},     // sent before 2's Reach came
			2: {at: 100, heard: []proc.ID{0, 1, 2}}, // hears 1 again
		},
	}
	cur := View{Epoch: 10, Members: []proc.ID{0, 2}, Gens: []uint64{1, 1}}
	if got := n.clique([]proc.ID{0, 1, 2}, cur); !slices.Equal(got, cur.Members) {
		t.Fatalf("clique chose %v, want the view's %v, still linked", got, cur.Members)
	}
	// The view's own pair no longer linked (2 stops hearing 0): the
	// view moves on to the pair that is.
	n.reports[2] = report{at: 100, heard: []proc.ID{1, 2}}
	n.reports[1] = report{at: 100, heard: []proc.ID{0, 1, 2}}
	if got := n.clique([]proc.ID{0, 1, 2}, cur); !slices.Equal(got, []proc.ID{0, 1}) {
		t.Fatalf("clique chose %v, want [0 1]", got)
	}
}

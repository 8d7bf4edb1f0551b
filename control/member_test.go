package control

import (
	"errors"
	"slices"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// addrsOf is the members' addresses, by id.
func addrsOf(ms []Member) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Addr)
	}
	return out
}

// leaderOf is the node every up member takes for the leader, once they
// agree, within d.
func (c *cluster) leaderOf(d proc.Time) *Node {
	c.t.Helper()
	for end := c.now + d; c.now < end; c.step() {
		l := proc.None
		for i, nd := range c.nodes {
			switch {
			case !c.up[i] || nd.Removed():
			case l == proc.None:
				l = nd.Leader()
			case nd.Leader() != l:
				l = -2
			}
		}
		if l >= 0 {
			return c.nodes[l]
		}
	}
	c.t.Fatal("no leader")
	return nil
}

// applied runs until every up node has applied the membership want.
func (c *cluster) applied(d proc.Time, want ...string) {
	c.t.Helper()
	for end := c.now + d; c.now < end; c.step() {
		ok := true
		for i, nd := range c.nodes {
			ok = ok && (!c.up[i] || slices.Equal(addrsOf(nd.Members()), want))
		}
		if ok {
			return
		}
	}
	c.t.Fatalf("members %v on node 0, want %v", addrsOf(c.nodes[0].Members()), want)
}

func TestMemberAdd(t *testing.T) {
	c := newClusterOf(t, BootstrapAt([]string{"a", "b", "c"}), 3, 11, 0)
	e := c.settle(20*lease, 3)
	l := c.leaderOf(lease)
	id, err := l.ProposeAdd(c.now, "d")
	if err != nil || id != 3 {
		t.Fatalf("add: id %d, %v; want 3", id, err)
	}
	c.applied(5*lease, "a", "b", "c", "d")
	// The new node starts from the bootstrap state; the leader sends it
	// the log, and with it the members' addresses.
	c.start(c.grow(BootstrapAt([]string{"a", "b", "c"})))
	e2 := c.settle(30*lease, 4)
	if e2 <= e {
		t.Fatalf("epoch %d after %d", e2, e)
	}
	if got := addrsOf(c.nodes[3].Members()); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("the new node has the members %v", got)
	}
	c.verify()
	// Restarted on its disk, it knows the members without the leader.
	c.crash(3)
	c.start(3)
	c.step()
	if got := addrsOf(c.nodes[3].Members()); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("the new node restarted with the members %v", got)
	}
	c.settle(30*lease, 4)
	c.verify()
}

func TestMemberAddRefused(t *testing.T) {
	c := newClusterOf(t, BootstrapAt([]string{"a", "b", "c"}), 3, 12, 0)
	c.settle(20*lease, 3)
	l := c.leaderOf(lease)
	if _, err := l.ProposeAdd(c.now, "b"); !errors.Is(err, ErrMemberExists) {
		t.Fatalf("add of a member's address: %v, want ErrMemberExists", err)
	}
	if _, err := l.ProposeAdd(c.now, ""); !errors.Is(err, ErrBadAddress) {
		t.Fatalf("add of no address: %v, want ErrBadAddress", err)
	}
	for _, nd := range c.nodes {
		if nd != l {
			if _, err := nd.ProposeAdd(c.now, "d"); !errors.Is(err, ErrNotLeader) {
				t.Fatalf("add on a follower: %v, want ErrNotLeader", err)
			}
			break
		}
	}
	if _, err := l.ProposeAdd(c.now, "d"); err != nil {
		t.Fatal(err)
	}
	// One change at a time: the second would be dropped by Raft, and
	// its id is not known before the first applies.
	if _, err := l.ProposeAdd(c.now, "e"); !errors.Is(err, ErrConfBusy) {
		t.Fatalf("a second add at once: %v, want ErrConfBusy", err)
	}
	c.step()
	if err := l.ProposeRemove(c.now, 1); !errors.Is(err, ErrConfBusy) {
		t.Fatalf("a remove while the add is not applied: %v, want ErrConfBusy", err)
	}
	c.applied(5*lease, "a", "b", "c", "d")
	if _, err := l.ProposeAdd(c.now, "d"); !errors.Is(err, ErrMemberExists) {
		t.Fatalf("add of the new member's address: %v, want ErrMemberExists", err)
	}
	c.verify()
}

func TestMemberAddBound(t *testing.T) {
	c := newClusterOf(t, BootstrapAt([]string{"a", "b", "c"}), 3, 13, 0)
	c.settle(20*lease, 3)
	l := c.leaderOf(lease)
	l.cfg.MaxNodes = 3
	if _, err := l.ProposeAdd(c.now, "d"); !errors.Is(err, ErrTooMany) {
		t.Fatalf("add of id 3 with 3 ids: %v, want ErrTooMany", err)
	}
}

func TestMemberRemove(t *testing.T) {
	c := newClusterOf(t, BootstrapAt([]string{"a", "b", "c"}), 3, 14, 0)
	e := c.settle(20*lease, 3)
	l := c.leaderOf(lease)
	gone := (l.cfg.Self + 1) % 3 // a follower, still serving
	if err := l.ProposeRemove(c.now, gone); err != nil {
		t.Fatal(err)
	}
	at := c.now
	want := slices.Delete([]string{"a", "b", "c"}, int(gone), int(gone)+1)
	c.applied(5*lease, want...)
	e2 := c.settle(30*lease, 2)
	if e2 <= e {
		t.Fatalf("epoch %d after %d", e2, e)
	}
	if _, ok := c.servingNow()[gone]; ok || !c.nodes[gone].Removed() {
		t.Fatalf("node %d, removed, serves (%v) or does not know (removed %v)", gone, c.servingNow(), c.nodes[gone].Removed())
	}
	for _, s := range c.spans {
		if s.view.Epoch == e2 && s.start-at < lease {
			t.Fatalf("the view without node %d served %d after its removal, before its lease could end", gone, s.start-at)
		}
	}
	c.run(10 * lease)
	if _, ok := c.servingNow()[gone]; ok {
		t.Fatalf("node %d serves again after its removal", gone)
	}
	// The leader removes itself: it steps down, the other serves alone.
	l = c.leaderOf(5 * lease)
	if err := l.ProposeRemove(c.now, l.cfg.Self); err != nil {
		t.Fatal(err)
	}
	e3 := c.settle(40*lease, 1)
	if e3 <= e2 || !l.Removed() {
		t.Fatalf("epoch %d after %d, the old leader removed: %v", e3, e2, l.Removed())
	}
	last := c.leaderOf(5 * lease)
	if err := last.ProposeRemove(c.now, last.cfg.Self); !errors.Is(err, ErrLastMember) {
		t.Fatalf("remove of the last member: %v, want ErrLastMember", err)
	}
	c.verify()
}

func TestMemberRemoveKeepsMajority(t *testing.T) {
	c := newClusterOf(t, BootstrapAt([]string{"a", "b", "c"}), 3, 15, 0)
	c.settle(20*lease, 3)
	l := c.leaderOf(lease)
	down := (l.cfg.Self + 1) % 3
	other := (l.cfg.Self + 2) % 3
	c.crash(down)
	c.run(2 * lease)
	// The leader and other are the live majority: removing other would
	// leave the leader alone with a dead node, no live majority.
	if err := l.ProposeRemove(c.now, other); !errors.Is(err, ErrNoMajority) {
		t.Fatalf("remove of a live node beside a dead one: %v, want ErrNoMajority", err)
	}
	// Nor may a member be added: two live of four.
	if _, err := l.ProposeAdd(c.now, "d"); !errors.Is(err, ErrNoMajority) {
		t.Fatalf("add beside a dead node: %v, want ErrNoMajority", err)
	}
	if err := l.ProposeRemove(c.now, 7); !errors.Is(err, ErrNotMember) {
		t.Fatalf("remove of no member: %v, want ErrNotMember", err)
	}
	// Removing the dead node leaves a live majority of two.
	if err := l.ProposeRemove(c.now, down); err != nil {
		t.Fatal(err)
	}
	want := slices.Delete([]string{"a", "b", "c"}, int(down), int(down)+1)
	c.applied(5*lease, want...)
	c.run(5 * lease)
	if got := c.servingNow(); len(got) != 2 || got[l.cfg.Self] == 0 || got[other] == 0 {
		t.Fatalf("serving %v after the dead node's removal, want nodes %d and %d", got, l.cfg.Self, other)
	}
	c.verify()
}

// TestRemoveRightAfterAnElection: a leader elected after the old one
// died counts as live only the members it has heard from since: a
// remove proposed at once, which would leave it alone with the dead
// node, is refused. (It counted every member live for its first lease,
// and let the remove through: allot member remove right after a leader's
// kill left a cluster with no live majority.)
func TestRemoveRightAfterAnElection(t *testing.T) {
	c := newClusterOf(t, BootstrapAt([]string{"a", "b", "c"}), 3, 15, 0)
	c.settle(20*lease, 3)
	old := c.leaderOf(lease).cfg.Self
	c.crash(old)
	var l *Node
	for end := c.now + 20*lease; l == nil && c.now < end; c.step() {
		for i, nd := range c.nodes {
			if c.up[i] && nd.Leader() == proc.ID(i) {
				l = nd
			}
		}
	}
	if l == nil {
		t.Fatal("no new leader")
	}
	other := 3 - old - l.cfg.Self
	if err := l.ProposeRemove(c.now, other); !errors.Is(err, ErrNoMajority) {
		t.Fatalf("remove of the live node just after the election, beside the dead one: %v, want ErrNoMajority", err)
	}
	// Removing the dead node is allowed once the other has been heard.
	c.run(lease)
	if err := l.ProposeRemove(c.now, old); err != nil {
		t.Fatalf("remove of the dead node: %v", err)
	}
}

// TestRemovedNodeLearnsIt: the node removed has the entry that removes
// it but not the word that it is committed, which the leader sends it
// nothing more to carry once it applied the removal: the leader's
// farewell heartbeats tell it, and it stops for good. (Without them it
// never applies its removal: the test fails.)
func TestRemovedNodeLearnsIt(t *testing.T) {
	c := newClusterOf(t, BootstrapAt([]string{"a", "b", "c"}), 3, 16, 0)
	c.settle(20*lease, 3)
	l := c.leaderOf(lease)
	gone := (l.cfg.Self + 1) % 3
	if err := l.ProposeRemove(c.now, gone); err != nil {
		t.Fatal(err)
	}
	c.step()
	last, _ := l.storage.LastIndex()
	for c.now < 10*lease {
		if got, _ := c.nodes[gone].storage.LastIndex(); got >= last {
			break
		}
		c.step()
	}
	c.cut[[2]proc.ID{l.cfg.Self, gone}] = true
	for len(l.Members()) == 3 {
		c.step()
	}
	c.step()
	c.cut[[2]proc.ID{l.cfg.Self, gone}] = false
	c.run(5 * lease)
	if !c.nodes[gone].Removed() {
		t.Fatalf("node %d never learnt its removal (it has the log to %d, committed %d)", gone, last, c.nodes[gone].rn.Status().Commit)
	}
	c.verify()
}

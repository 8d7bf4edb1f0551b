package control

import (
	"fmt"
	"strings"
	"testing"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/allot-dev/allot/proc"
)

// The compaction tests run clusters whose nodes take a snapshot every
// few entries, keeping a tail of two: a node cut off for a while is
// behind the leader's first index, and comes back by a snapshot.
const (
	tinyEvery = 8
	tinyKeep  = 2
)

// leaderSeen is the leader node id sees (proc.None: none).
func (c *cluster) leaderSeen(id proc.ID) proc.ID { return c.nodes[id].Leader() }

// record proposes k semaphores through the leader node from sees, one
// entry each, and runs until they are applied there.
func (c *cluster) record(from proc.ID, k int) {
	c.t.Helper()
	for i := range k {
		name := fmt.Sprintf("s%d", c.now)
		for end := c.now + 5*lease; ; c.step() {
			if c.now > end {
				c.t.Fatalf("semaphore %d of %d not applied\n%s", i, k, strings.Join(c.log, "\n"))
			}
			if _, ok := c.nodes[from].State().Semaphore(name); ok {
				break
			}
			if l := c.leaderSeen(from); l != proc.None && c.now%10 == 0 {
				if err := c.nodes[l].RecordSemaphore(name, 1); err != nil {
					c.t.Fatal(err)
				}
			}
		}
	}
}

// reference is the State of a node that applied every entry up to index
// at, from the log of a node that never had to restore a snapshot (its
// full log runs from the bootstrap snapshot on).
func (c *cluster) reference(boot Disk, at uint64) *State {
	c.t.Helper()
	for _, d := range c.full {
		if len(d.Entries) == 0 || d.Entries[0].Index != boot.Snapshot.Metadata.Index+1 || d.Entries[len(d.Entries)-1].Index < at {
			continue
		}
		s, err := DecodeState(c.quotas, boot.Snapshot)
		if err != nil {
			c.t.Fatal(err)
		}
		for _, e := range d.Entries[:at-boot.Snapshot.Metadata.Index] {
			if e.Type == raftpb.EntryConfChange {
				var cc raftpb.ConfChange
				if err := cc.Unmarshal(e.Data); err != nil {
					c.t.Fatal(err)
				}
				s.applyConf(cc)
				s.applied = e.Index
			} else if err := s.Apply(e.Index, e.Data); err != nil {
				c.t.Fatal(err)
			}
		}
		return s
	}
	c.t.Fatalf("no node has the whole log up to %d", at)
	return nil
}

// sameAsWholeLog fails the test unless every up node's State is the
// State the whole log gives at the index it applied.
func (c *cluster) sameAsWholeLog(boot Disk) {
	c.t.Helper()
	for i, nd := range c.nodes {
		if !c.up[i] {
			continue
		}
		got := nd.State()
		if want := c.reference(boot, got.Applied()); !sameState(got, want) {
			c.t.Fatalf("node %d at %d:\n%+v\nthe whole log gives\n%+v", i, got.Applied(), got, want)
		}
	}
}

func ids3() Disk { return Bootstrap([]proc.ID{0, 1, 2}) }

// TestSnapshotCatchUp: a follower cut off while the others compact their
// logs past it is sent a snapshot when it is back (again, if the first is
// lost: nobody tells the leader), restores it, and reaches the State of a
// node that applied the whole log.
func TestSnapshotCatchUp(t *testing.T) {
	boot := ids3()
	c := newCompactingCluster(t, boot, 3, 21, tinyEvery, tinyKeep, 0)
	c.settle(20*lease, 3)
	lag := (c.leaderSeen(0) + 1) % 3
	other := (lag + 1) % 3
	c.isolate(lag, true)
	c.settle(20*lease, 2)
	behind := c.nodes[lag].State().Applied()
	c.record(other, 4*tinyEvery)
	for i := range c.nodes {
		if id := proc.ID(i); id != lag {
			if first := c.disks[i].Snapshot.Metadata.Index; first <= behind+tinyKeep {
				t.Fatalf("node %d's snapshot is at %d: not past node %d's %d", i, first, lag, behind)
			}
			if n := len(c.disks[i].Entries); n > 2*tinyEvery {
				t.Fatalf("node %d keeps %d entries on disk after its snapshot", i, n)
			}
		}
	}
	if c.snaps != 0 {
		t.Fatalf("%d snapshots sent before the cut healed", c.snaps)
	}
	c.lose = 1
	c.isolate(lag, false)
	c.settle(30*lease, 3)
	if c.snaps == 0 {
		t.Fatalf("node %d caught up without a snapshot", lag)
	}
	if at := c.disks[lag].Snapshot.Metadata.Index; at <= behind {
		t.Fatalf("node %d persisted no snapshot past %d (it has %d)", lag, behind, at)
	}
	c.run(lease)
	c.sameAsWholeLog(boot)
	c.verify()
}

// TestSnapshotRestart: nodes restarted on compacted disks (a snapshot
// and a short tail) rebuild the State the whole log gives, and the epochs
// go on growing across a restart of every node.
func TestSnapshotRestart(t *testing.T) {
	boot := ids3()
	c := newCompactingCluster(t, boot, 3, 22, tinyEvery, tinyKeep, 0)
	e := c.settle(20*lease, 3)
	c.record(0, 3*tinyEvery)
	for i := range 3 {
		if c.disks[i].Snapshot.Metadata.Index <= 1 {
			t.Fatalf("node %d never compacted", i)
		}
		c.crash(pid(i))
	}
	c.run(lease / 2)
	for i := range 3 {
		c.start(pid(i))
	}
	c.step()
	c.sameAsWholeLog(boot)
	e2 := c.settle(30*lease, 3)
	if e2 <= e {
		t.Fatalf("epoch %d after a full restart, was %d", e2, e)
	}
	// One node restarted alone, while the others go on.
	c.crash(1)
	c.record(0, 2*tinyEvery)
	c.start(1)
	c.settle(30*lease, 3)
	c.run(lease)
	c.sameAsWholeLog(boot)
	c.verify()
}

// TestSnapshotJoin: a node added after the log was compacted starts from
// the bootstrap state and is sent a snapshot that has it in the
// configuration (taken when its add was applied).
func TestSnapshotJoin(t *testing.T) {
	addrs := []string{"a", "b", "c"}
	boot := BootstrapAt(addrs)
	// A snapshot every 100 entries: the one the add takes is what the
	// new node gets, not one that comes a hundred entries later.
	c := newCompactingCluster(t, boot, 3, 23, 100, tinyKeep, 0)
	c.settle(20*lease, 3)
	c.record(0, 110)
	l := c.leaderOf(lease)
	if _, err := l.ProposeAdd(c.now, "d"); err != nil {
		t.Fatal(err)
	}
	c.applied(5*lease, "a", "b", "c", "d")
	c.start(c.grow(boot.Clone()))
	c.settle(5*lease, 4)
	// One snapshot, or two if the first was lost: one taken before the
	// add would be refused by the new node, and sent again and again.
	if c.snaps == 0 || c.snaps > 2 {
		t.Fatalf("the new node caught up after %d snapshots, want 1 or 2", c.snaps)
	}
	c.run(lease)
	c.sameAsWholeLog(boot)
	c.verify()
}

// TestRandomFaultsCompacting is TestRandomFaults with a snapshot every
// four entries, and none kept behind it: every node a little behind
// catches up by a snapshot, under crashes, cuts and pauses.
func TestRandomFaultsCompacting(t *testing.T) {
	seed := freshSeed(t)
	runs := 4
	if testing.Short() || *seedFlag != 0 {
		runs = 1
	}
	snaps := 0
	for r := range runs {
		s := seed + uint64(r)
		c := randomRunOf(t, s, 100*lease, 4, -1)
		c.verify()
		snaps += c.snaps
	}
	if snaps == 0 {
		t.Fatalf("seed %d: no snapshot sent in %d runs", seed, runs)
	}
}

// TestSnapshotRemoved: a node removed after the logs were compacted
// snapshots its own removal, and restarted on its disk knows it is
// removed, and serves nothing.
func TestSnapshotRemoved(t *testing.T) {
	c := newCompactingCluster(t, BootstrapAt([]string{"a", "b", "c"}), 3, 24, tinyEvery, tinyKeep, 0)
	c.settle(20*lease, 3)
	c.record(0, 2*tinyEvery)
	l := c.leaderOf(lease)
	gone := (l.cfg.Self + 1) % 3
	if err := l.ProposeRemove(c.now, gone); err != nil {
		t.Fatal(err)
	}
	for end := c.now + 5*lease; !c.nodes[gone].Removed(); c.step() {
		if c.now > end {
			t.Fatalf("node %d never learnt its removal", gone)
		}
	}
	c.step()
	if at, applied := c.disks[gone].Snapshot.Metadata.Index, c.nodes[gone].State().Applied(); at != applied {
		t.Fatalf("node %d's snapshot is at %d, its removal applied at %d", gone, at, applied)
	}
	c.crash(gone)
	c.start(gone)
	c.run(10 * lease)
	if _, ok := c.servingNow()[gone]; ok || !c.nodes[gone].Removed() {
		t.Fatalf("node %d, restarted after its removal, serves (%v) or does not know (removed %v)", gone, c.servingNow(), c.nodes[gone].Removed())
	}
	c.verify()
}

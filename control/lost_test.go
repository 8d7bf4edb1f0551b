package control

import (
	"errors"
	"testing"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/allot-dev/allot/proc"
)

// TestWipedLogStopsTheNode: a follower restarted on an empty disk (its
// data directory wiped) after the cluster ran. The leader's first
// heartbeat commits what the follower had acknowledged, past its empty
// log: Raft panics on it ("tocommit(…) is out of range"); the node
// returns ErrLogLost instead, and from then on votes for nobody and
// campaigns no more, while the two others go on serving.
func TestWipedLogStopsTheNode(t *testing.T) {
	c := newCluster(t, 3, 5, 0)
	c.settle(20*lease, 3)
	c.run(lease)
	lead := c.nodes[0].Leader()
	wiped := (lead + 1) % 3
	c.crash(wiped)
	c.disks[wiped] = Bootstrap([]proc.ID{0, 1, 2})
	c.start(wiped)
	c.run(3 * lease)
	if !errors.Is(c.stopped[wiped], ErrLogLost) {
		t.Fatalf("node %d, restarted on an empty disk, was not stopped (%v); its log is %d entries",
			wiped, c.stopped[wiped], len(c.disks[wiped].Entries))
	}
	t.Logf("node %d stopped: %v", wiped, c.stopped[wiped])
	if got := c.servingNow(); len(got) != 2 {
		t.Fatalf("serving %v, want the two others", got)
	}
	c.verify()

	// Stopped, it grants no vote, even to a candidate of a later term
	// with a log it would take as up to date, and never campaigns.
	nd := c.nodes[wiped]
	vote := raftpb.Message{Type: raftpb.MsgVote, From: raftID(lead), To: raftID(wiped), Term: 1000, Index: 1 << 20, LogTerm: 999}
	if err := nd.Step(c.now, vote); !errors.Is(err, ErrLogLost) {
		t.Fatalf("a vote request to the stopped node: %v, want ErrLogLost", err)
	}
	for range 10 * ElectionTicks {
		c.now += lease / LeaseTicks
		u, err := nd.Next(c.now)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range u.Messages {
			t.Fatalf("the stopped node sent %s to %d", m.Type, m.To)
		}
	}
}

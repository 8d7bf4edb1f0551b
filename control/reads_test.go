package control

import (
	"testing"

	"go.etcd.io/raft/v3/raftpb"
)

// TestLeaseReadsConfirmedTogether: in an idle cluster of 3 and 7 nodes
// the leader confirms the lease reads of every node with a few rounds a
// lease, not one heartbeat round per read: its heartbeats to each
// follower in 10 leases are its Raft ticks' plus at most 3 rounds every
// Lease/LeaseReads (a round per read: 6N a lease, 42 on 7 nodes). Every node's
// lease is renewed meanwhile: none fences, and every one still serves.
func TestLeaseReadsConfirmedTogether(t *testing.T) {
	for _, n := range []int{3, 7} {
		c := newCluster(t, n, 5, 0)
		c.settle(20*lease, n)
		c.run(2 * lease) // past the new leader's first Lease/2
		lead := c.nodes[0].Leader()
		lost := append([]int(nil), c.lost...)
		heartbeats := 0
		for range 10 * lease {
			c.step()
			for _, m := range c.net {
				if m.at == c.now+1 && m.reach == nil && m.m.Type == raftpb.MsgHeartbeat && procID(m.m.From) == lead {
					heartbeats++
				}
			}
		}
		ticks := 10 * lease / int(lease/LeaseTicks)
		perFollower := heartbeats / (n - 1)
		t.Logf("%d nodes: the leader sent %d heartbeats to each follower in 10 leases, %d Raft ticks", n, perFollower, ticks)
		if max := ticks + 10*(3*LeaseReads+1); perFollower > max {
			t.Errorf("%d nodes: %d heartbeats to each follower in 10 leases, want at most %d (%d ticks, and 3 rounds each Lease/%d)", n, perFollower, max, ticks, LeaseReads)
		}
		if got := len(c.servingNow()); got != n {
			t.Errorf("%d nodes: %d serve after 10 idle leases", n, got)
		}
		for i := range c.lost {
			if c.lost[i] != lost[i] {
				t.Errorf("%d nodes: node %d's lease ran out in an idle cluster", n, i)
			}
		}
		c.verify()
	}
}

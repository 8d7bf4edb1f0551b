package control

import (
	"errors"
	"fmt"

	"go.etcd.io/raft/v3/raftpb"
)

// ErrLogLost marks a node whose log lost entries it had acknowledged: its
// data directory was wiped, truncated or restored from an older copy
// after it ran. Such a node must neither vote nor campaign (a vote of
// a log that forgot committed entries can elect a leader without them),
// and Raft itself panics on the first heartbeat that proves it; the
// node stops instead (Step), and comes back only under a new id.
var ErrLogLost = errors.New("control: this node's log lost entries it had acknowledged")

// lostLog is the proof m gives that this node's log lost what it once
// acknowledged, or nil. A leader's heartbeat commits at most what the
// follower acknowledged having (Raft's sendHeartbeat: min(Match,
// committed)), and acknowledged entries up to the commit index are never
// cut from a follower's log: a heartbeat that commits past the end of it
// is proof. (An append is no proof: its entries may be a pipelined batch
// after one still on its way; Raft refuses it, and the leader probes.)
func (n *Node) lostLog(m raftpb.Message) error {
	if m.Type != raftpb.MsgHeartbeat {
		return nil
	}
	last, err := n.storage.LastIndex()
	if err != nil || m.Commit <= last {
		return nil
	}
	return fmt.Errorf("%w: node %d's heartbeat commits index %d, and this node's log ends at %d", ErrLogLost, procID(m.From), m.Commit, last)
}

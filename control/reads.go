package control

import (
	"encoding/binary"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
)

// Lease reads confirmed together. Every node renews its lease every
// Lease/LeaseReads (Lease/6) by a ReadIndex, and Raft's leader confirms
// each one it is sent with a heartbeat round of its own (ReadOnlySafe):
// N rounds of 2(N−1) messages every Lease/6, the idle cluster's cost
// growing as N². The
// leader instead keeps the reads its followers send (MsgReadIndex) and
// confirms them all with one ReadIndex of its own, started after they
// arrived, answering each with that read's index (MsgReadIndexResp, as
// Raft would). The follower is unchanged: it renews with the index once
// it has applied it.
//
// The lease argument (doc.go, Leases) holds as before. A follower's read
// starts at its time t, before the leader receives it; the leader's own
// read starts later still, so its index is at least the leader's commit
// index when the follower's read arrived, and the round confirms the
// leader was leader when it started: a view committed before the
// follower's read arrived is at or below the index, and one proposed
// after waits for a lease from the leader's last hearing of the node,
// which is after t. Waiting only makes the index newer.
//
// A round for the kept reads starts at the first Raft tick at least
// Lease/12 after the last round (the leader's own read, every Lease/6,
// takes them too): at most three rounds every Lease/6 whatever N, and a
// follower's read answered within Lease/12 and a round trip. A lease is
// thus renewed at most Lease/6 + Lease/12 + a round trip after it was
// last renewed: about three quarters of one is left when the leader
// crashes, more than the longest election (two thirds of one: node.go,
// The Raft timing). For its first Lease/2 a leader confirms kept reads
// at every tick: followers whose reads went to the old leader may have
// little of their leases left.

// keep holds a follower's read, on the leader, for the next round.
func (n *Node) keep(m raftpb.Message) {
	n.kept = append(n.kept, m)
}

// confirmKept starts a round for the kept reads if one is due (at a
// Raft tick of the leader).
func (n *Node) confirmKept() {
	if len(n.kept) == 0 {
		return
	}
	if n.lastStatus.RaftState != raft.StateLeader {
		n.kept = nil // the followers read again through the new leader
		return
	}
	if n.now-n.leaderAt >= n.cfg.Lease/2 && n.now-n.lastRound < n.cfg.Lease/(2*LeaseReads) {
		return
	}
	n.readFor(false)
}

// readFor starts a ReadIndex that answers the kept reads, and renews
// this node's lease too when own.
func (n *Node) readFor(own bool) {
	n.nextRd++
	r := &read{sent: n.now, own: own, term: n.lastStatus.Term}
	if n.lastStatus.RaftState == raft.StateLeader {
		r.answer, n.kept = n.kept, nil
		n.lastRound = n.now
	}
	n.reads[n.nextRd] = r
	// The leader tells reads apart by their context: it names the node
	// too.
	ctx := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(nil, uint32(n.cfg.Self)), n.nextRd)
	n.rn.ReadIndex(ctx)
	// Reads the leader never answered (it lost its quorum, or the
	// message) are forgotten after a lease.
	for id, r := range n.reads { // any order: it only deletes
		if n.now-r.sent > n.cfg.Lease {
			delete(n.reads, id)
		}
	}
}

// answerKept answers the reads r kept with index: Raft's own answer to
// a follower's read, sent in the next Update.
func (n *Node) answerKept(r *read, index uint64) {
	for _, m := range r.answer {
		n.extra = append(n.extra, raftpb.Message{Type: raftpb.MsgReadIndexResp, To: m.From, From: raftID(n.cfg.Self), Term: r.term, Index: index, Entries: m.Entries})
	}
	r.answer = nil
}

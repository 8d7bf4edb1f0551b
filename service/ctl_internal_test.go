package service

import (
	"log/slog"
	"strings"
	"testing"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
)

// TestPassedOnRaftMessages: a read's request that went to a node that was
// leader no more reaches the new leader from that node, with its first
// sender's From (Raft passes it on so, for the leader to answer the first
// sender): the node takes it. A message of any other type whose From is
// not the node that sent it is refused, and logged. (Every chaos run logged
// such reads as malformed, and dropped them: the first sender's lease
// waited for its next read.)
func TestPassedOnRaftMessages(t *testing.T) {
	var log syncBuffer
	nodes := inProcess(t, 3, Config{Log: slog.New(slog.NewTextHandler(&log, nil))})
	send := func(from int, m raftpb.Message) {
		t.Helper()
		b, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		nodes[0].ctl.deliver(proc.ID(from), control.Msg{Raft: b})
	}
	// Node 2 passes on node 1's read (Raft's ids are the nodes' + 1).
	send(2, raftpb.Message{Type: raftpb.MsgReadIndex, From: 2, To: 1, Entries: []raftpb.Entry{{Data: []byte("a read of node 1")}}})
	if strings.Contains(log.String(), "malformed") {
		t.Fatalf("a read's request passed on by another node was refused:\n%s", log.String())
	}
	// A heartbeat is its sender's own: one naming node 1, from node 2, is not.
	send(2, raftpb.Message{Type: raftpb.MsgHeartbeat, From: 2, To: 1})
	if !strings.Contains(log.String(), "malformed") {
		t.Fatalf("a heartbeat from node 2 naming node 1 was taken:\n%s", log.String())
	}
}

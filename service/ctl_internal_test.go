package service

import (
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestInputsGoTogether: the inputs that come while the control node is
// held (one input writing its update, fsync included) are stepped
// together by the next holder and written with one Save. One by one, a
// burst of 16 proposals (the first Acquire of 16 new semaphores) cost 16
// writes, and every renewal of the lease waited behind them all.
func TestInputsGoTogether(t *testing.T) {
	nodes := inProcess(t, 1, Config{})
	h := nodes[0].ctl
	const n = 16
	// The proposals are told from the ticks and other inputs queued
	// beside them by their function's code.
	code := reflect.ValueOf(proposal(h, 0)).Pointer()
	queued := func() int {
		h.cmu.Lock()
		defer h.cmu.Unlock()
		k := 0
		for _, c := range h.calls {
			if reflect.ValueOf(c.f).Pointer() == code {
				k++
			}
		}
		return k
	}
	h.mu.Lock() // an input writing
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() { errs <- h.input(proposal(h, k)) })
	}
	for deadline := time.Now().Add(10 * time.Second); queued() < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			h.mu.Unlock()
			t.Fatalf("%d of %d inputs queued after 10s", queued(), n)
		}
	}
	before := h.store.Saves()
	h.mu.Unlock()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// One write for the 16, and perhaps one of a tick's after them.
	if got := h.store.Saves() - before; got > 2 {
		t.Errorf("%d inputs queued behind a write took %d writes, want 1", n, got)
	}
}

// proposal is an input that proposes semaphore k. Not inlined: the
// function of every input it returns is one and the same.
//
//go:noinline
func proposal(h *ctlHost, k int) func(proc.Time) error {
	return func(proc.Time) error { return h.node.RecordSemaphore(fmt.Sprintf("s%d", k), 1) }
}

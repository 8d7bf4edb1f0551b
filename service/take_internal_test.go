package service

import (
	"context"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/proc"
)

// quotaNode starts three nodes with quota q of budget M and waste 4 (a
// chunk of one permit a node), and opens a session at node 2; ctx ends
// with the test, within 20s.
func quotaNode(t *testing.T, m int) (context.Context, *Node, *pb.OpenSessionResponse) {
	t.Helper()
	nodes := inProcess(t, 3, Config{Cluster: Cluster{Quotas: map[string]QuotaSpec{"q": {Budget: m, Waste: 4}}}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	n := nodes[2]
	ses, err := n.OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, n, ses
}

// TestTakeGivenUpIsCounted: a Take whose caller gives up while its request
// waits for the controller's messages leaves no permit uncounted. Node 2's
// first permit comes down the controller's tree from node 0, over a link
// held down here: the Take's deadline passes first, the link comes back,
// the controller issues the permit, and node 2 counts it on disk like the
// others, though nobody takes it. Left out, the node's counts would say
// one permit fewer than its view issued, and the view after would issue
// it again (the ledger's budget is what the nodes' counts leave).
func TestTakeGivenUpIsCounted(t *testing.T) {
	ctx, n, ses := quotaNode(t, 20)
	// A user of node 2 and one of each other node: the links node 2's
	// transport carries to them.
	st := n.views.current()
	slots := n.c.Slots
	self := proc.ID(st.v.Members.Rank(2) * slots)
	var others []proc.ID
	for _, k := range []int{0, 1} {
		others = append(others, proc.ID(st.v.Members.Rank(k)*slots))
	}
	for _, o := range others {
		n.members.transport().Cut(self, o)
	}
	// The links come back after the Take's deadline, while its request
	// still waits (the Take waits for the answer: the test must not).
	restore := time.AfterFunc(500*time.Millisecond, func() {
		for _, o := range others {
			n.members.transport().Restore(self, o)
		}
	})
	defer restore.Stop()
	short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err := n.Take(short, &pb.TakeRequest{Session: ses.Session, Name: "q", N: 1})
	stop()
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("the Take while node 2's links were down: %v, want DeadlineExceeded (its permit comes from another node)", err)
	}
	qs := n.ctl.quotas
	i, _ := slices.BinarySearch(qs, "q")
	for {
		c, err := n.ctl.store.Counts(qs)
		if err != nil {
			t.Fatal(err)
		}
		if c[i] == 1 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("node 2 counts %d permits of q on disk, want the 1 its controller issued after the Take gave up", c[i])
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestTakeGoesOnAcrossAViewChange: a view change in the middle of a Take
// does not cut it short: what the old view issued is on disk, and the rest
// is taken in the next view. With a chunk of one permit (waste 4 on three
// nodes) each permit of node 2 waits for its report to commit, so a Take
// of 20 spans many Raft rounds, and a refresh asked after its first permit
// lands in the middle.
func TestTakeGoesOnAcrossAViewChange(t *testing.T) {
	ctx, n, ses := quotaNode(t, 40)
	before := n.views.current().v.Epoch
	qs := n.ctl.quotas
	i, _ := slices.BinarySearch(qs, "q")
	done := make(chan error, 1)
	go func() {
		_, err := n.Take(ctx, &pb.TakeRequest{Session: ses.Session, Name: "q", N: 20})
		done <- err
	}()
	asked, during := false, false
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("a Take of 20 across a view change: %v", err)
			}
			if !during {
				t.Fatal("the Take ended before the view changed: nothing was tested")
			}
			c, _ := n.ctl.store.Counts(qs)
			if c[i] != 20 {
				t.Fatalf("node 2 counts %d permits on disk, want 20", c[i])
			}
			return
		case <-time.After(time.Millisecond):
		}
		c, err := n.ctl.store.Counts(qs)
		if err != nil {
			t.Fatal(err)
		}
		if !asked && c[i] >= 1 {
			asked = true
			n.ctl.proposeRefresh(before)
		}
		if st := n.views.current(); st != nil && st.v.Epoch > before && c[i] < 20 {
			during = true
		}
	}
}

package service

import (
	"context"
	"testing"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/proc"
)

// TestLockDelayOutlastsAViewChange: a session whose lease runs out holds
// its lock the lock-delay longer, and a view change within the delay (a
// refresh here) asks for the grant again, as for a live session's: another
// session's Lock of the name is granted in the new view, and not before
// the delay is over.
func TestLockDelayOutlastsAViewChange(t *testing.T) {
	const delay = 4 * time.Second
	nodes := inProcess(t, 3, Config{LockDelay: delay})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	open := func(n *Node) uint64 {
		t.Helper()
		r, err := n.OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 10000})
		if err != nil {
			t.Fatal(err)
		}
		return r.Session
	}
	a, b := open(nodes[0]), open(nodes[1])
	lock := &pb.LockRequest{Session: a, Resources: []string{"delayed"}}
	if _, err := nodes[0].Lock(ctx, lock); err != nil {
		t.Fatal(err)
	}
	// Ended as expiry ends a session whose lease ran out.
	ended := time.Now()
	nodes[0].end(nodes[0].sessions.get(a), delay, "lease expired", true)
	old := nodes[0].views.current().v.Epoch
	nodes[0].ctl.input(func(proc.Time) error { return nodes[0].ctl.node.ProposeRefresh(old) })
	lock.Session = b
	r, err := nodes[1].Lock(ctx, lock)
	if err != nil {
		t.Fatal(err)
	}
	waited := time.Since(ended)
	if e := r.Tokens[0].Epoch; e <= old {
		t.Fatalf("granted in view %d, not after the refresh of view %d (it took longer than the delay?)", e, old)
	}
	if waited < delay {
		t.Fatalf("granted %v after the session ended, in view %d after a view change: within its lock-delay of %v", waited.Round(time.Millisecond), r.Tokens[0].Epoch, delay)
	}
}

package service

import (
	"context"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
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
	nodes[0].ctl.proposeRefresh(old)
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

// reason is the code and the ErrorInfo reason of err.
func reason(err error) (codes.Code, string) {
	st := status.Convert(err)
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return st.Code(), info.Reason
		}
	}
	return st.Code(), ""
}

// TestHandedOverIsNotExpired: a node that stops serving (fence) drops its
// sessions without a recorded end, and their backup adopts them: neither
// a call in flight then nor a later one is told SESSION_EXPIRED, but
// UNAVAILABLE, SESSION_NOT_HERE (the client looks for the session's
// node); nor is a call of a session another node opened. A session closed
// here is SESSION_EXPIRED. (A node that stopped serving told its clients
// "expired" while another node adopted their sessions, grants and all.)
func TestHandedOverIsNotExpired(t *testing.T) {
	nodes := inProcess(t, 3, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	open := func() uint64 {
		t.Helper()
		r, err := nodes[0].OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 10000})
		if err != nil {
			t.Fatal(err)
		}
		return r.Session
	}
	a, b, closed := open(), open(), open()
	if _, err := nodes[0].CloseSession(ctx, &pb.CloseSessionRequest{Session: closed}); err != nil {
		t.Fatal(err)
	}
	_, err := nodes[0].KeepAlive(ctx, &pb.KeepAliveRequest{Session: closed})
	if code, why := reason(err); code != codes.NotFound || why != pb.ReasonSessionExpired {
		t.Errorf("KeepAlive of a closed session: %v, want NOT_FOUND, SESSION_EXPIRED", err)
	}
	_, err = nodes[2].KeepAlive(ctx, &pb.KeepAliveRequest{Session: a})
	if code, why := reason(err); code != codes.Unavailable || why != pb.ReasonSessionNotHere {
		t.Errorf("KeepAlive of another node's session: %v, want UNAVAILABLE, SESSION_NOT_HERE", err)
	}
	if _, err := nodes[0].Lock(ctx, &pb.LockRequest{Session: a, Resources: []string{"h"}}); err != nil {
		t.Fatal(err)
	}
	waiting := make(chan error, 1)
	go func() {
		_, err := nodes[0].Lock(ctx, &pb.LockRequest{Session: b, Resources: []string{"h"}})
		waiting <- err
	}()
	time.Sleep(200 * time.Millisecond) // b waits behind a
	nodes[0].fence(nodes[0].views.current().v.Epoch)
	err = <-waiting
	if code, why := reason(err); code != codes.Unavailable || why != pb.ReasonSessionNotHere {
		t.Errorf("a Lock in flight when its node stopped serving: %v, want UNAVAILABLE, SESSION_NOT_HERE", err)
	}
	for _, id := range []uint64{a, b} {
		_, err = nodes[0].KeepAlive(ctx, &pb.KeepAliveRequest{Session: id})
		if code, why := reason(err); code != codes.Unavailable || why != pb.ReasonSessionNotHere {
			t.Errorf("KeepAlive of a session its node handed to its backup: %v, want UNAVAILABLE, SESSION_NOT_HERE", err)
		}
	}
}

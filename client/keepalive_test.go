package client_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/client"
)

// fakeNode answers a session's keep-alives as a node of a cluster whose
// lease is short: as the session's node until frozen (then it answers
// nothing), or as its backup (SESSION_MOVING) until it adopts it.
type fakeNode struct {
	pb.UnimplementedAllotServer
	lease  time.Duration
	backup bool
	frozen atomic.Bool // the session's node: answers nothing from now on
	serves atomic.Bool // the backup: adopted the session
}

func (f *fakeNode) OpenSession(ctx context.Context, r *pb.OpenSessionRequest) (*pb.OpenSessionResponse, error) {
	return &pb.OpenSessionResponse{Session: 7, TtlMs: r.TtlMs, LeaseMs: f.lease.Milliseconds()}, nil
}

func (f *fakeNode) KeepAlive(ctx context.Context, r *pb.KeepAliveRequest) (*pb.KeepAliveResponse, error) {
	switch {
	case f.backup && !f.serves.Load():
		st, err := status.New(codes.Unavailable, "the session is served by another node").WithDetails(&errdetails.ErrorInfo{
			Domain: pb.ErrorDomain, Reason: pb.ReasonSessionMoving, Metadata: map[string]string{"lease_ms": "600"}})
		if err != nil {
			return nil, err
		}
		return nil, st.Err()
	case f.frozen.Load():
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &pb.KeepAliveResponse{TtlMs: 10000, LeaseMs: f.lease.Milliseconds()}, nil
}

func serveFake(t *testing.T, f pb.AllotServer) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	pb.RegisterAllotServer(s, f)
	go s.Serve(ln)
	t.Cleanup(s.Stop)
	return ln.Addr().String()
}

// TestFrozenNodeLeavesTimeToMove: the session's node freezes while its
// lease has 600 ms left at each renewal (a short lease, or renewals late
// under load). The keep-alive sent to the frozen node must give up in
// time to reach the backup before the session's count runs out; the
// backup's SESSION_MOVING answers keep it alive until it adopts the
// session, and the session moves there. (Seen as a session lost with a
// frozen node: the keep-alive waited 500 ms, more than the 400 ms left.)
func TestFrozenNodeLeavesTimeToMove(t *testing.T) {
	primary := &fakeNode{lease: 600 * time.Millisecond}
	backup := &fakeNode{lease: 600 * time.Millisecond, backup: true}
	addrs := []string{serveFake(t, primary), serveFake(t, backup)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.Session(ctx, client.WithTTL(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Orphan()
	time.Sleep(500 * time.Millisecond) // renewals at the primary
	primary.frozen.Store(true)
	frozen := time.Now()
	time.Sleep(1500 * time.Millisecond) // the cluster's view change
	backup.serves.Store(true)
	for s.Node() != addrs[1] {
		select {
		case <-s.Done():
			t.Fatalf("the session was lost %v after its node froze", time.Since(frozen).Round(time.Millisecond))
		case <-ctx.Done():
			t.Fatal("the session never moved to the node that adopted it")
		case <-time.After(10 * time.Millisecond):
		}
	}
	select {
	case <-s.Done():
		t.Fatal("the session was lost")
	default:
	}
}

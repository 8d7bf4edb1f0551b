package client_test

import (
	"context"
	"fmt"
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
			Domain: pb.ErrorDomain, Reason: pb.ReasonSessionMoving, Metadata: map[string]string{"lease_ms": fmt.Sprint(f.lease.Milliseconds())}})
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
	freezeAndMove(t, 600*time.Millisecond, 500*time.Millisecond, 1500*time.Millisecond)
}

// TestMoveOutlastsAFrozenNode: while the session moves, its backup's
// answers (SESSION_MOVING) carry it 450 ms each (the backup's lease:
// short, or late under load), less than a keep-alive's longest wait
// (500 ms). The frozen node, tried again among the others, must be given
// up in time to ask the backup again before that runs out. (Waited 500
// ms, it lost the session every time, about 0.75 s after the node
// froze.)
func TestMoveOutlastsAFrozenNode(t *testing.T) {
	freezeAndMove(t, 450*time.Millisecond, 300*time.Millisecond, 3*time.Second)
}

// freezeAndMove opens a session at a node of a 600 ms lease, freezes the
// node after renewals of before, has its backup (of backupLease) answer
// SESSION_MOVING for during, then adopt the session: the session is not
// lost meanwhile, and moves to the backup.
func freezeAndMove(t *testing.T, backupLease, before, during time.Duration) {
	primary := &fakeNode{lease: 600 * time.Millisecond}
	backup := &fakeNode{lease: backupLease, backup: true}
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
	time.Sleep(before) // renewals at the primary
	primary.frozen.Store(true)
	frozen := time.Now()
	lost := func() {
		t.Helper()
		t.Fatalf("the session was lost %v after its node froze", time.Since(frozen).Round(time.Millisecond))
	}
	select {
	case <-s.Done():
		lost()
	case <-time.After(during): // the cluster's view change
	}
	backup.serves.Store(true)
	for s.Node() != addrs[1] {
		select {
		case <-s.Done():
			lost()
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

// loneNode is a session's node that answers keep-alives from the second on
// with err, fails times of them (0: every one), then answers them again.
type loneNode struct {
	pb.UnimplementedAllotServer
	err   error
	times int32
	kas   atomic.Int32
}

func (f *loneNode) OpenSession(ctx context.Context, r *pb.OpenSessionRequest) (*pb.OpenSessionResponse, error) {
	return &pb.OpenSessionResponse{Session: 7, TtlMs: r.TtlMs, LeaseMs: 3000}, nil
}

func (f *loneNode) KeepAlive(ctx context.Context, r *pb.KeepAliveRequest) (*pb.KeepAliveResponse, error) {
	if k := f.kas.Add(1); k >= 2 && (f.times == 0 || k < 2+f.times) {
		return nil, f.err
	}
	return &pb.KeepAliveResponse{TtlMs: 600, LeaseMs: 3000}, nil
}

func reasoned(code codes.Code, reason string) error {
	st, err := status.New(code, "said so").WithDetails(&errdetails.ErrorInfo{Domain: pb.ErrorDomain, Reason: reason})
	if err != nil {
		panic(err)
	}
	return st.Err()
}

// TestOneAddressKeepAliveFails: a client that knows its session's node
// alone cannot move the session. It loses it at once when the node says
// the session ended (NOT_FOUND) or is not served there
// (SESSION_NOT_HERE); a keep-alive that fails otherwise (UNAVAILABLE: the
// node's backup did not take the keep-alive's record in time on a loaded
// machine, the node away for a moment) is tried again, and the session
// is lost only once it is past the bound of the last keep-alive
// answered. (Lost at once, a single UNAVAILABLE lost a live session:
// TestNodeCrashAndRejoin under load, "session expired" from a Take.)
func TestOneAddressKeepAliveFails(t *testing.T) {
	const ttl = 600 * time.Millisecond
	for _, c := range []struct {
		name  string
		err   error
		times int32
		lost  bool // at once (before the TTL)
		after bool // once the bound of the last keep-alive answered passed
	}{
		{name: "unavailable once", err: status.Error(codes.Unavailable, "the session's backup node did not answer"), times: 1},
		{name: "unavailable from then on", err: status.Error(codes.Unavailable, "down"), after: true},
		{name: "not found", err: status.Error(codes.NotFound, "session expired"), times: 1, lost: true},
		{name: "not here", err: reasoned(codes.Unavailable, pb.ReasonSessionNotHere), times: 1, lost: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &loneNode{err: c.err, times: c.times}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cl, err := client.Dial(ctx, serveFake(t, f))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			s, err := cl.Session(ctx, client.WithTTL(ttl))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Orphan()
			// The first keep-alive, after a third of the TTL, is
			// answered; the second fails.
			for f.kas.Load() < 2 {
				time.Sleep(time.Millisecond)
			}
			failed := time.Now()
			select {
			case <-s.Done():
				if !c.lost && !c.after {
					t.Fatalf("lost %v after a keep-alive failed", time.Since(failed).Round(time.Millisecond))
				}
				if c.after && time.Since(failed) < ttl/2 {
					t.Fatalf("lost %v after a keep-alive failed, before the last answered one's bound", time.Since(failed).Round(time.Millisecond))
				}
			case <-time.After(3 * ttl):
				if c.lost || c.after {
					t.Fatalf("not lost %v after a keep-alive failed", 3*ttl)
				}
				if f.kas.Load() < 4 {
					t.Fatalf("%d keep-alives in %v", f.kas.Load(), 3*ttl)
				}
			}
		})
	}
}

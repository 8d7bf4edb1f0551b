package client

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// fakeNode answers Lock and Unlock unary, and on the Calls stream as
// calls says (nil: the node has no Calls, as one of an earlier version).
type fakeNode struct {
	pb.UnimplementedAllotServer
	unaryLocks atomic.Int32
	streams    atomic.Int32
	calls      func(pb.Allot_CallsServer) error
}

func (f *fakeNode) Lock(context.Context, *pb.LockRequest) (*pb.LockResponse, error) {
	f.unaryLocks.Add(1)
	return &pb.LockResponse{Grant: 7}, nil
}

func (f *fakeNode) Calls(st pb.Allot_CallsServer) error {
	f.streams.Add(1)
	if f.calls == nil {
		return f.UnimplementedAllotServer.Calls(st)
	}
	return f.calls(st)
}

// serveFake serves f on loopback until the test ends, and returns its
// address.
func serveFake(t *testing.T, f pb.AllotServer) string {
	t.Helper()
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

// fakeCaller serves f on loopback and returns a caller of it.
func fakeCaller(t *testing.T, f *fakeNode) *caller {
	t.Helper()
	cc, err := grpc.NewClient(serveFake(t, f), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return newCaller(cc, nil)
}

// TestCallsToAnOlderNode: a node without Calls is called unary, from its
// first call on, and its stream is not tried again.
func TestCallsToAnOlderNode(t *testing.T) {
	f := &fakeNode{}
	c := fakeCaller(t, f)
	for i := range 3 {
		r, err := c.Lock(context.Background(), &pb.LockRequest{Session: 1, Resources: []string{"a"}})
		if err != nil || r.Grant != 7 {
			t.Fatalf("Lock %d: %v, %v", i, r, err)
		}
	}
	if f.unaryLocks.Load() != 3 || f.streams.Load() != 1 {
		t.Errorf("%d unary Locks and %d Calls streams, want 3 and 1", f.unaryLocks.Load(), f.streams.Load())
	}
}

// TestCallsAnswered: answers come by id, in any order, with their
// status and details; a stream that ends with a call open leaves it
// UNAVAILABLE (perhaps done: the session moves) and the next call opens
// a new stream.
func TestCallsAnswered(t *testing.T) {
	f := &fakeNode{}
	f.calls = func(st pb.Allot_CallsServer) error {
		first, err := st.Recv()
		if err != nil {
			return nil
		}
		if f.streams.Load() == 1 {
			return nil // the first stream breaks with its first call open
		}
		second, err := st.Recv()
		if err != nil {
			return nil
		}
		// The second call is answered first, with the node's status.
		s, _ := status.New(codes.NotFound, "not held").WithDetails(&errdetails.ErrorInfo{Domain: pb.ErrorDomain, Reason: pb.ReasonNotHeld})
		p := s.Proto()
		st.Send(&pb.CallResult{Id: second.Id, Error: &pb.CallError{Code: p.Code, Message: p.Message, Details: p.Details}})
		st.Send(&pb.CallResult{Id: first.Id, Response: &pb.CallResult_Lock{Lock: &pb.LockResponse{Grant: 9}}})
		<-st.Context().Done()
		return nil
	}
	c := fakeCaller(t, f)
	ctx := context.Background()
	_, err := c.Lock(ctx, &pb.LockRequest{Session: 1, Resources: []string{"a"}})
	if status.Code(err) != codes.Unavailable || !unavailable(err) {
		t.Fatalf("a Lock open when its stream broke: %v, want UNAVAILABLE", err)
	}
	var wg sync.WaitGroup
	var lock *pb.LockResponse
	var lockErr error
	wg.Go(func() { lock, lockErr = c.Lock(ctx, &pb.LockRequest{Session: 1, Resources: []string{"a"}}) })
	time.Sleep(50 * time.Millisecond) // the Lock goes first
	_, err = c.Unlock(ctx, &pb.UnlockRequest{Session: 1, Grant: 3})
	if !errors.Is(wrap(err), ErrNotHeld) {
		t.Errorf("Unlock answered NOT_HELD: %v, want ErrNotHeld", err)
	}
	wg.Wait()
	if lockErr != nil || lock.Grant != 9 {
		t.Errorf("Lock: %v, %v; want grant 9", lock, lockErr)
	}
	if f.streams.Load() != 2 || f.unaryLocks.Load() != 0 {
		t.Errorf("%d streams, %d unary Locks; want 2 and 0", f.streams.Load(), f.unaryLocks.Load())
	}
}

// TestCallsCancelled: a call whose context ends is answered with the
// context's code at once, and the node is told to give it up; a
// deadline goes to the node as the call's timeout.
func TestCallsCancelled(t *testing.T) {
	f := &fakeNode{}
	got := make(chan *pb.Call, 4)
	f.calls = func(st pb.Allot_CallsServer) error {
		for {
			c, err := st.Recv()
			if err != nil {
				return nil
			}
			got <- c // never answered
		}
	}
	c := fakeCaller(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Lock(ctx, &pb.LockRequest{Session: 1, Resources: []string{"a"}})
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("Lock past its deadline: %v, want DEADLINE_EXCEEDED", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("answered after %v", d)
	}
	call := <-got
	if call.TimeoutUs <= 0 || call.TimeoutUs > 100_000 {
		t.Errorf("the call's timeout: %d µs, want (0, 100000]", call.TimeoutUs)
	}
	select {
	case cancel := <-got:
		if cancel.Id != call.Id || !cancel.GetCancel() {
			t.Errorf("after the deadline the node got %v, want a cancel of %d", cancel, call.Id)
		}
	case <-time.After(5 * time.Second):
		t.Error("the node was not told to give the call up")
	}
	ctx, stop := context.WithCancel(context.Background())
	stop()
	if _, err := c.Unlock(ctx, &pb.UnlockRequest{Session: 1, Grant: 3}); status.Code(err) != codes.Canceled {
		t.Errorf("Unlock with its context done: %v, want CANCELED", err)
	}
}

// TestNearAnOlderNode: a node that cannot say where a name lives
// (UNIMPLEMENTED) leaves WithNear a session opened as without it.
func TestNearAnOlderNode(t *testing.T) {
	f := &openOnly{}
	c, err := Dial(context.Background(), serveFake(t, f))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.Session(context.Background(), WithNear("a"))
	if err != nil {
		t.Fatalf("a session near a name at a node without Locate: %v", err)
	}
	sess.Orphan()
	if f.opened.Load() != 1 {
		t.Errorf("%d sessions opened, want 1", f.opened.Load())
	}
}

// openOnly opens sessions and keeps them alive, and nothing else.
type openOnly struct {
	pb.UnimplementedAllotServer
	opened atomic.Int32
}

func (o *openOnly) OpenSession(context.Context, *pb.OpenSessionRequest) (*pb.OpenSessionResponse, error) {
	return &pb.OpenSessionResponse{Session: uint64(o.opened.Add(1)), TtlMs: 10000}, nil
}

func (o *openOnly) KeepAlive(context.Context, *pb.KeepAliveRequest) (*pb.KeepAliveResponse, error) {
	return &pb.KeepAliveResponse{TtlMs: 10000}, nil
}

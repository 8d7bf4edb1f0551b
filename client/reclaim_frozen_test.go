package client_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/client"
)

// relayNode is one of three nodes a session passes through: the first
// (rank 0) is lost in the middle of a Lock that its backup recorded; the
// second adopts the session, answers the keep-alive that sends the
// client there and freezes at the client's Holders (a node stopped, or
// cut off silently, after it answered); the third adopts the session
// from the second once it froze, holding the recorded grant 9.
type relayNode struct {
	pb.UnimplementedAllotServer
	rank   int
	nodes  *[3]*relayNode
	lost   atomic.Bool // rank 0: lost
	frozen atomic.Bool // rank 1: answers nothing any more
}

// serving reports whether the node serves the session now.
func (f *relayNode) serving() bool {
	switch f.rank {
	case 0:
		return !f.lost.Load()
	case 1:
		return f.nodes[0].lost.Load()
	}
	return f.nodes[1].frozen.Load()
}

// hold keeps a call of a frozen node until the caller gives up.
func (f *relayNode) hold(ctx context.Context) error {
	if f.frozen.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func (f *relayNode) OpenSession(ctx context.Context, r *pb.OpenSessionRequest) (*pb.OpenSessionResponse, error) {
	if f.rank != 0 {
		return nil, status.Error(codes.Unavailable, "sessions open at the first node in this test")
	}
	return &pb.OpenSessionResponse{Session: 7, TtlMs: r.TtlMs, LeaseMs: 2000}, nil
}

func (f *relayNode) KeepAlive(ctx context.Context, r *pb.KeepAliveRequest) (*pb.KeepAliveResponse, error) {
	if err := f.hold(ctx); err != nil {
		return nil, err
	}
	if !f.serving() {
		return nil, sessionMoving()
	}
	return &pb.KeepAliveResponse{TtlMs: 10000, LeaseMs: 2000}, nil
}

func (f *relayNode) Lock(ctx context.Context, r *pb.LockRequest) (*pb.LockResponse, error) {
	if err := f.hold(ctx); err != nil {
		return nil, err
	}
	if !f.serving() {
		return nil, sessionMoving()
	}
	if f.rank == 0 { // granted, recorded at the backup, never answered
		f.lost.Store(true)
		return nil, status.Error(codes.Unavailable, "error reading from server: EOF")
	}
	return &pb.LockResponse{Grant: 10, Tokens: []*pb.Token{{Resource: r.Resources[0], Epoch: 4, Counter: 1}}}, nil
}

func (f *relayNode) Holders(ctx context.Context, r *pb.HoldersRequest) (*pb.HoldersResponse, error) {
	if f.rank == 1 {
		f.frozen.Store(true)
	}
	if err := f.hold(ctx); err != nil {
		return nil, err
	}
	if !f.serving() {
		return nil, sessionMoving()
	}
	h := &pb.Holder{Session: 7, Grant: 9, Token: tokenOf9, Resources: []string{"a", "x"}, SinceUnixMs: time.Now().UnixMilli()}
	return &pb.HoldersResponse{Holders: []*pb.Holder{h}}, nil
}

// TestReclaimRidesOverAFrozenNode: the Holders that looks for a cut-off
// Lock's grant is given up when the session moves before its node
// answers, as any call of the session, and asked again at the session's
// new node, which finds the grant: the Lock returns it within the
// session's move, not at the end of its context (10 s here).
func TestReclaimRidesOverAFrozenNode(t *testing.T) {
	var nodes [3]*relayNode
	var addrs []string
	for i := range nodes {
		nodes[i] = &relayNode{rank: i, nodes: &nodes}
		addrs = append(addrs, serveFake(t, nodes[i]))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := fakeSession(t, ctx, addrs)
	start := time.Now()
	g, err := s.Lock(ctx, "x", "a")
	if err != nil {
		t.Fatalf("Lock cut off, its Holders held by a frozen node: %v after %v, want the grant the third node holds", err, time.Since(start).Round(time.Millisecond))
	}
	want := client.Token{Epoch: tokenOf9.Epoch, Counter: tokenOf9.Counter}
	if g.Token("x") != want || s.Node() != addrs[2] || !nodes[1].frozen.Load() {
		t.Errorf("Lock's token %v at %s (frozen: %v); want %v at %s, the second node frozen", g.Token("x"), s.Node(), nodes[1].frozen.Load(), want, addrs[2])
	}
	t.Logf("the grant found after %v", time.Since(start).Round(time.Millisecond))
}

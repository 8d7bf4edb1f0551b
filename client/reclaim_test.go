package client_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/client"
)

// cutNode is a session's node lost in the middle of a call (as primary)
// or the backup that adopts its session (as backup). The primary's first
// Lock or Acquire is granted and recorded at the backup, and the node is
// lost before it answers; its first Take is cut short after 2 permits.
// The backup serves the session once the primary is lost, holding the
// recorded grant 9 (Holders says so, unless noHolders: a node of an
// earlier version); a Lock or an Acquire there is granted anew (grant
// 10: the real cluster would make it wait behind grant 9).
type cutNode struct {
	pb.UnimplementedAllotServer
	backup    bool
	noHolders bool
	peer      *cutNode      // the backup's primary
	lost      atomic.Bool   // the primary: lost
	frozen    atomic.Bool   // the primary: lost, and answers nothing
	calls     atomic.Int32  // Lock and Acquire calls made here
	takeN     atomic.Int64  // the n of the last Take made here
	released  atomic.Uint64 // the grant a Release gave back here
}

var tokenOf9 = &pb.Token{Epoch: 3, Counter: 42}

func (f *cutNode) serving() bool {
	if f.backup {
		return f.peer.lost.Load()
	}
	return !f.lost.Load()
}

func (f *cutNode) notServing() error {
	if !f.backup {
		return status.Error(codes.Unavailable, "connection refused")
	}
	return sessionMoving()
}

// sessionMoving is a backup's answer to a call of a session it keeps
// for another node: SESSION_MOVING, with a lease of 2 s.
func sessionMoving() error {
	st, err := status.New(codes.Unavailable, "the session is served by another node").WithDetails(&errdetails.ErrorInfo{
		Domain: pb.ErrorDomain, Reason: pb.ReasonSessionMoving, Metadata: map[string]string{"lease_ms": "2000"}})
	if err != nil {
		return err
	}
	return st.Err()
}

func (f *cutNode) OpenSession(ctx context.Context, r *pb.OpenSessionRequest) (*pb.OpenSessionResponse, error) {
	if f.backup {
		return nil, status.Error(codes.Unavailable, "sessions open at the other node in this test")
	}
	return &pb.OpenSessionResponse{Session: 7, TtlMs: r.TtlMs, LeaseMs: 2000}, nil
}

// freeze holds a call of a frozen primary until the caller gives up.
func (f *cutNode) freeze(ctx context.Context) error {
	if f.frozen.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func (f *cutNode) KeepAlive(ctx context.Context, r *pb.KeepAliveRequest) (*pb.KeepAliveResponse, error) {
	if err := f.freeze(ctx); err != nil {
		return nil, err
	}
	if !f.serving() {
		return nil, f.notServing()
	}
	return &pb.KeepAliveResponse{TtlMs: 10000, LeaseMs: 2000}, nil
}

// grant is a Lock's or an Acquire's: the primary's first is recorded and
// lost with the node.
func (f *cutNode) grant() (uint64, error) {
	if !f.serving() {
		return 0, f.notServing()
	}
	f.calls.Add(1)
	if !f.backup {
		f.lost.Store(true)
		return 0, status.Error(codes.Unavailable, "error reading from server: EOF")
	}
	return 10, nil
}

func (f *cutNode) Lock(ctx context.Context, r *pb.LockRequest) (*pb.LockResponse, error) {
	if err := f.freeze(ctx); err != nil {
		return nil, err
	}
	id, err := f.grant()
	if err != nil {
		return nil, err
	}
	return &pb.LockResponse{Grant: id, Tokens: []*pb.Token{{Resource: r.Resources[0], Epoch: 4, Counter: 1}}}, nil
}

func (f *cutNode) Acquire(ctx context.Context, r *pb.AcquireRequest) (*pb.AcquireResponse, error) {
	id, err := f.grant()
	if err != nil {
		return nil, err
	}
	return &pb.AcquireResponse{Grant: id, Unit: 0, Token: &pb.Token{Epoch: 4, Counter: 1}}, nil
}

func (f *cutNode) Release(ctx context.Context, r *pb.ReleaseRequest) (*pb.ReleaseResponse, error) {
	if !f.serving() {
		return nil, f.notServing()
	}
	f.released.Store(r.Grant)
	return &pb.ReleaseResponse{}, nil
}

func (f *cutNode) Holders(ctx context.Context, r *pb.HoldersRequest) (*pb.HoldersResponse, error) {
	if f.noHolders {
		return f.UnimplementedAllotServer.Holders(ctx, r)
	}
	if !f.serving() {
		return nil, f.notServing()
	}
	h := &pb.Holder{Session: 7, Grant: 9, Token: tokenOf9, SinceUnixMs: time.Now().UnixMilli()}
	if r.Semaphore {
		h.Unit = 2
	} else {
		h.Resources = []string{"a", "x"}
	}
	return &pb.HoldersResponse{Holders: []*pb.Holder{h}}, nil
}

func (f *cutNode) Take(ctx context.Context, r *pb.TakeRequest) (*pb.TakeResponse, error) {
	if !f.serving() {
		return nil, f.notServing()
	}
	f.takeN.Store(r.N)
	if f.backup {
		return &pb.TakeResponse{Permits: r.N}, nil
	}
	f.lost.Store(true)
	st, err := status.New(codes.Unavailable, "quota q: this node stopped serving (2 of 5 permits taken)").WithDetails(&errdetails.ErrorInfo{
		Domain: pb.ErrorDomain, Reason: pb.ReasonCutShort, Metadata: map[string]string{"taken": "2", "asked": "5"}})
	if err != nil {
		return nil, err
	}
	return nil, st.Err()
}

// cutPair serves a primary and its backup, and opens a session on the
// primary.
func cutPair(t *testing.T, noHolders bool) (primary, backup *cutNode, s *client.Session, ctx context.Context) {
	t.Helper()
	primary = &cutNode{}
	backup = &cutNode{backup: true, peer: primary, noHolders: noHolders}
	addrs := []string{serveFake(t, primary), serveFake(t, backup)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err = c.Session(ctx, client.WithTTL(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Orphan)
	if s.Node() != addrs[0] {
		t.Fatalf("the session opened at %s, want the primary %s", s.Node(), addrs[0])
	}
	return primary, backup, s, ctx
}

// TestCutLockFoundHeld: a Lock granted and recorded at the backup, whose
// node is lost before it answers, returns the grant the adopted session
// holds (its id, its token), found with Holders at the backup: it is not
// made again (it would wait behind its own grant until the session ends).
func TestCutLockFoundHeld(t *testing.T) {
	_, backup, s, ctx := cutPair(t, false)
	g, err := s.Lock(ctx, "x", "a")
	if err != nil {
		t.Fatalf("Lock cut off by its node's loss: %v, want the grant the adopter holds", err)
	}
	want := client.Token{Epoch: tokenOf9.Epoch, Counter: tokenOf9.Counter}
	if g.Token("x") != want || g.Token("a") != want || backup.calls.Load() != 0 {
		t.Errorf("Lock's tokens %v, %v after %d Lock calls at the adopter; want %v for both and none made there",
			g.Token("x"), g.Token("a"), backup.calls.Load(), want)
	}
}

// TestCutAcquireFoundHeld: as TestCutLockFoundHeld, for an Acquire; the
// unit found held is the one the Release gives back.
func TestCutAcquireFoundHeld(t *testing.T) {
	_, backup, s, ctx := cutPair(t, false)
	m := s.Semaphore("pool", 3)
	g, err := m.AcquireUnit(ctx)
	if err != nil {
		t.Fatalf("Acquire cut off by its node's loss: %v, want the unit the adopter holds", err)
	}
	if g.Unit() != 2 || g.Token("pool").Counter != tokenOf9.Counter || backup.calls.Load() != 0 {
		t.Errorf("Acquire's unit %d, token %v after %d Acquire calls at the adopter; want unit 2, token %v, none made there",
			g.Unit(), g.Token("pool"), backup.calls.Load(), tokenOf9)
	}
	if err := m.Release(ctx); err != nil || backup.released.Load() != 9 {
		t.Errorf("Release: %v, gave back grant %d; want grant 9 given back", err, backup.released.Load())
	}
}

// TestCutLockAtAnOlderNode: where the adopter cannot say what the
// session holds (no Holders: an earlier version), a Lock cut off is
// ErrUnavailable, as it was, and is not made again.
func TestCutLockAtAnOlderNode(t *testing.T) {
	_, backup, s, ctx := cutPair(t, true)
	if _, err := s.Lock(ctx, "x"); !errors.Is(err, client.ErrUnavailable) || backup.calls.Load() != 0 {
		t.Errorf("Lock cut off, the adopter without Holders: %v after %d Lock calls there; want ErrUnavailable, none made",
			err, backup.calls.Load())
	}
}

// TestCutTakeTakesTheRest: a Take of 5 cut short after 2 permits by its
// node's loss takes the other 3 where the session moved, and succeeds.
func TestCutTakeTakesTheRest(t *testing.T) {
	primary, backup, s, ctx := cutPair(t, false)
	if err := s.Quota("q").Take(ctx, 5); err != nil {
		t.Fatalf("Take cut short by its node's loss: %v, want the rest taken at the adopter", err)
	}
	if primary.takeN.Load() != 5 || backup.takeN.Load() != 3 {
		t.Errorf("Take asked %d at the primary, %d at the adopter; want 5, then 3", primary.takeN.Load(), backup.takeN.Load())
	}
}

// TestLockAtAFrozenNode: a Lock sent to a node that freezes (it answers
// nothing, and its backup adopts the session) is given up when the
// session moves, and answered where it moved, within a few keep-alive
// intervals, not at the end of the caller's context.
func TestLockAtAFrozenNode(t *testing.T) {
	primary, _, s, ctx := cutPair(t, false)
	primary.frozen.Store(true)
	primary.lost.Store(true)
	start := time.Now()
	if _, err := s.Lock(ctx, "x", "a"); err != nil {
		t.Fatalf("Lock at a frozen node: %v after %v, want it answered where the session moved", err, time.Since(start))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Lock at a frozen node answered after %v; want within 5s", d)
	}
}

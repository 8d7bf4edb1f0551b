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

// olderNode is a node of an earlier version, which answers NOT_FOUND
// (SESSION_EXPIRED) for every session it does not serve: as the
// session's node until it forgets it (restarted: a new run), or as its
// backup (SESSION_MOVING) until it adopts it.
type olderNode struct {
	pb.UnimplementedAllotServer
	backup   bool
	forgot   atomic.Bool   // the session's node: restarted
	serves   atomic.Bool   // the backup: adopted the session
	unlocked atomic.Uint64 // the grant an Unlock gave back here
}

func (f *olderNode) serving() bool {
	return f.backup && f.serves.Load() || !f.backup && !f.forgot.Load()
}

func (f *olderNode) notServing() error {
	if f.backup {
		st, err := status.New(codes.Unavailable, "the session is served by another node").WithDetails(&errdetails.ErrorInfo{
			Domain: pb.ErrorDomain, Reason: pb.ReasonSessionMoving, Metadata: map[string]string{"lease_ms": "2000"}})
		if err != nil {
			return err
		}
		return st.Err()
	}
	st, err := status.New(codes.NotFound, "session expired").WithDetails(&errdetails.ErrorInfo{Domain: pb.ErrorDomain, Reason: pb.ReasonSessionExpired})
	if err != nil {
		return err
	}
	return st.Err()
}

func (f *olderNode) OpenSession(ctx context.Context, r *pb.OpenSessionRequest) (*pb.OpenSessionResponse, error) {
	return &pb.OpenSessionResponse{Session: 7, TtlMs: r.TtlMs, LeaseMs: 2000}, nil
}

func (f *olderNode) KeepAlive(ctx context.Context, r *pb.KeepAliveRequest) (*pb.KeepAliveResponse, error) {
	if !f.serving() {
		return nil, f.notServing()
	}
	return &pb.KeepAliveResponse{TtlMs: 10000, LeaseMs: 2000}, nil
}

func (f *olderNode) Lock(ctx context.Context, r *pb.LockRequest) (*pb.LockResponse, error) {
	if !f.serving() {
		return nil, f.notServing()
	}
	return &pb.LockResponse{Grant: 9}, nil
}

func (f *olderNode) Unlock(ctx context.Context, r *pb.UnlockRequest) (*pb.UnlockResponse, error) {
	if !f.serving() {
		return nil, f.notServing()
	}
	f.unlocked.Store(r.Grant)
	return &pb.UnlockResponse{}, nil
}

// fakeSession is a session of 10 s on the fake nodes at addrs, able to
// move between them; it is orphaned, and its client closed, at the end.
func fakeSession(t *testing.T, ctx context.Context, addrs []string) *client.Session {
	t.Helper()
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := c.Session(ctx, client.WithTTL(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Orphan)
	return s
}

// TestExpiredOnlyOnceDone: the session's node, of an earlier version,
// restarts and says SESSION_EXPIRED of the session, which its backup
// adopts a moment later. While the client keeps the session alive, a
// Lock waits for the move (here it does not come within the Lock's
// context, whose end it returns), never ErrSessionExpired, and an Unlock
// waits for the move and gives the grant back at the adopter. (Seen as Unlock and
// Release answering ErrSessionExpired after node kills, the grant held
// until the TTL ran out.)
func TestExpiredOnlyOnceDone(t *testing.T) {
	primary, backup := &olderNode{}, &olderNode{backup: true}
	addrs := []string{serveFake(t, primary), serveFake(t, backup)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := fakeSession(t, ctx, addrs)
	g, err := s.Lock(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	primary.forgot.Store(true)
	lctx, lcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	if _, err := s.Lock(lctx, "y"); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, client.ErrSessionExpired) {
		t.Errorf("Lock at a node that forgot the live session: %v, want it to wait for the move until its context ends", err)
	}
	lcancel()
	time.AfterFunc(300*time.Millisecond, func() { backup.serves.Store(true) })
	if err := g.Unlock(ctx); err != nil {
		t.Fatalf("Unlock while the session moves: %v, want it given back at the adopter", err)
	}
	if got := backup.unlocked.Load(); got != 9 || s.Node() != addrs[1] {
		t.Errorf("Unlock gave back grant %d at %s, want grant 9 at the adopter %s", got, s.Node(), addrs[1])
	}
	select {
	case <-s.Done():
		t.Error("the session was lost")
	default:
	}
}

// notHereNode serves a session until it no longer does: then it answers
// as a node of this version that handed it to its backup does
// (UNAVAILABLE, SESSION_NOT_HERE).
type notHereNode struct {
	olderNode
}

func (f *notHereNode) notServing() error {
	st, err := status.New(codes.Unavailable, "this node does not serve the session").WithDetails(&errdetails.ErrorInfo{Domain: pb.ErrorDomain, Reason: pb.ReasonSessionNotHere})
	if err != nil {
		return err
	}
	return st.Err()
}

func (f *notHereNode) Lock(ctx context.Context, r *pb.LockRequest) (*pb.LockResponse, error) {
	if !f.serving() {
		return nil, f.notServing()
	}
	return &pb.LockResponse{Grant: 9}, nil
}

// TestNotHereLosesAOneNodeClient: a client given one node's address
// cannot move its session: when that node says it does not serve the
// session any more (SESSION_NOT_HERE), the session is lost at once (Done
// closes) and the call is ErrSessionExpired, as before that reason.
func TestNotHereLosesAOneNodeClient(t *testing.T) {
	n := &notHereNode{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, serveFake(t, n))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.Session(ctx, client.WithTTL(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Orphan()
	n.forgot.Store(true)
	if _, err := s.Lock(ctx, "x"); !errors.Is(err, client.ErrSessionExpired) {
		t.Errorf("Lock at the one node known, which no longer serves the session: %v, want ErrSessionExpired", err)
	}
	select {
	case <-s.Done():
	default:
		t.Error("the session's Done is open: its client cannot reach the node that serves it")
	}
}

// givenBackNode is the session's node that gives a grant back and is
// lost before its answer (UNAVAILABLE), then its backup, which adopted
// the session with the give-back recorded: it says the grant is not
// held.
type givenBackNode struct {
	olderNode
	asked atomic.Int32
}

func (f *givenBackNode) Unlock(ctx context.Context, r *pb.UnlockRequest) (*pb.UnlockResponse, error) {
	f.asked.Add(1)
	if !f.backup {
		f.forgot.Store(true) // lost with the answer
		return nil, status.Error(codes.Unavailable, "connection refused")
	}
	if !f.serving() {
		return nil, f.notServing()
	}
	st, err := status.New(codes.NotFound, "grant not held").WithDetails(&errdetails.ErrorInfo{Domain: pb.ErrorDomain, Reason: pb.ReasonNotHeld})
	if err != nil {
		return nil, err
	}
	return nil, st.Err()
}

// TestUnlockCutOffAfterItsGiveBack: an Unlock whose node gave the grant
// back and was lost before answering is made again at the adopter, which
// says the grant is not held: the Unlock is done, not ErrNotHeld. An
// Unlock of a grant given back already, not cut off, is still ErrNotHeld.
func TestUnlockCutOffAfterItsGiveBack(t *testing.T) {
	primary, backup := &givenBackNode{}, &givenBackNode{olderNode: olderNode{backup: true}}
	addrs := []string{serveFake(t, primary), serveFake(t, backup)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := fakeSession(t, ctx, addrs)
	g, err := s.Lock(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, func() { backup.serves.Store(true) })
	if err := g.Unlock(ctx); err != nil {
		t.Fatalf("Unlock cut off after its give-back: %v, want it done", err)
	}
	if primary.asked.Load() != 1 || backup.asked.Load() < 1 || s.Node() != addrs[1] {
		t.Errorf("asked %d at the node and %d at the adopter, the session at %s: want once, then at the adopter %s", primary.asked.Load(), backup.asked.Load(), s.Node(), addrs[1])
	}
	if err := g.Unlock(ctx); !errors.Is(err, client.ErrNotHeld) {
		t.Errorf("a second Unlock: %v, want ErrNotHeld", err)
	}
}

package service

import (
	"context"
	"math"

	"github.com/allot-dev/allot/algo"
	pb "github.com/allot-dev/allot/api/allot/v1"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/space"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// lockKey is the key of lock name's fencing tokens in the event log.
func lockKey(name string) string { return "lock/" + name }

// Lock implements the Allot service.
func (n *Node) Lock(ctx context.Context, r *pb.LockRequest) (*pb.LockResponse, error) {
	if err := checkLock(r.Resources); err != nil {
		return nil, err
	}
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	g, err := n.acquire(ctx, s, space.Lock, proc.Request{}, r.Resources, r.TryLock, r.Call)
	if err != nil {
		return nil, s.gone(err)
	}
	// One counter fences every resource of the grant: it is above the
	// counter of every earlier holder of each. One token per distinct
	// name, in the order asked.
	out := make([]*pb.Token, 0, len(r.Resources))
	seen := make(map[string]bool, len(r.Resources))
	for _, name := range r.Resources {
		if !seen[name] {
			seen[name] = true
			out = append(out, &pb.Token{Resource: name, Epoch: g.epoch, Counter: g.counter})
		}
	}
	return &pb.LockResponse{Grant: g.ID, Tokens: out}, nil
}

// Unlock implements the Allot service.
func (n *Node) Unlock(ctx context.Context, r *pb.UnlockRequest) (*pb.UnlockResponse, error) {
	return &pb.UnlockResponse{}, n.giveBack(r.Session, r.Grant)
}

func (n *Node) giveBack(sid, gid uint64) error {
	s, err := n.session(sid)
	if err != nil {
		return err
	}
	g := s.take(gid)
	if g == nil {
		return errNotHeld(gid)
	}
	// Recorded at the backup before it goes back: the backup must never
	// adopt a grant someone else may hold by then (the view adopting it
	// would wait for both). The give-back is decided here: it happens once
	// the backup has it, or once the backup moved (the view that moves it
	// records the session again). The caller is answered now, not once
	// the backup has it: the session's next Lock is recorded after it on
	// the same stream, and nobody else can be granted the resources
	// before the release. Lost with the node before the backup has it,
	// the grant is adopted still held: the client gives it back again
	// where the session moves (client.Session), or it goes with the
	// session's end.
	g.givenBack()
	n.rep.recordLater(s, g.release)
	return nil
}

// Acquire implements the Allot service.
func (n *Node) Acquire(ctx context.Context, r *pb.AcquireRequest) (*pb.AcquireResponse, error) {
	if err := checkName("name", "semaphore", r.Name, true); err != nil {
		return nil, err
	}
	// Any positive int32: a large semaphore has no user per unit
	// (semaphores.go).
	if r.Units <= 0 {
		return nil, badInput("units", "a semaphore has 1 to %d units, got %d", math.MaxInt32, r.Units)
	}
	if _, ok := n.algs[algo.Pool]; !ok {
		return nil, status.Error(codes.Unavailable, "no algorithm serves semaphores in this cluster")
	}
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	key := space.Sem(r.Name, int(r.Units))
	if err := key.Check(); err != nil {
		return nil, badInput("name", "%v", err)
	}
	g, err := n.acquire(ctx, s, key, proc.Request{}, nil, r.TryAcquire, r.Call)
	if err != nil {
		return nil, s.gone(err)
	}
	// The unit its token names: the view may have changed while the
	// answer waited for the backup, and moved the grant to a unit of
	// the new view.
	tok := &pb.Token{Resource: unitKey(key, g.tokenUnit, g.epoch), Epoch: g.epoch, Counter: g.counter}
	return &pb.AcquireResponse{Grant: g.ID, Unit: g.tokenUnit, Token: tok}, nil
}

// Release implements the Allot service.
func (n *Node) Release(ctx context.Context, r *pb.ReleaseRequest) (*pb.ReleaseResponse, error) {
	return &pb.ReleaseResponse{}, n.giveBack(r.Session, r.Grant)
}

package service

import (
	"context"
	"slices"
	"strconv"

	pb "github.com/allot-dev/allot/api/allot/v1"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// resources maps names onto the lock namespace, sorted and without
// repeats.
func (n *Node) resources(names []string) []proc.ResID {
	rs := make([]proc.ResID, 0, len(names))
	for _, s := range names {
		rs = append(rs, n.c.resource(s))
	}
	slices.Sort(rs)
	return slices.Compact(rs)
}

func lockKey(r proc.ResID) string { return "lock/" + strconv.Itoa(int(r)) }

// Lock implements the Allot service.
func (n *Node) Lock(ctx context.Context, r *pb.LockRequest) (*pb.LockResponse, error) {
	if len(r.Resources) == 0 {
		return nil, status.Error(codes.InvalidArgument, "lock of no resources")
	}
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	g, err := n.acquire(ctx, s, "lock", proc.Request{Res: n.resources(r.Resources)}, r.TryLock)
	if err != nil {
		return nil, err
	}
	// One counter fences every resource of the grant: it is above the
	// counter of every earlier holder of each.
	out := make([]*pb.Token, len(r.Resources))
	for i, name := range r.Resources {
		out[i] = &pb.Token{Resource: name, Epoch: g.epoch, Counter: g.counter}
	}
	return &pb.LockResponse{Grant: g.id, Tokens: out}, nil
}

// Unlock implements the Allot service.
func (n *Node) Unlock(_ context.Context, r *pb.UnlockRequest) (*pb.UnlockResponse, error) {
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
	g.release()
	return nil
}

// Acquire implements the Allot service.
func (n *Node) Acquire(ctx context.Context, r *pb.AcquireRequest) (*pb.AcquireResponse, error) {
	if r.Units <= 0 {
		return nil, status.Errorf(codes.InvalidArgument, "a semaphore needs units > 0, got %d", r.Units)
	}
	if r.Name == "" {
		return nil, status.Error(codes.InvalidArgument, "a semaphore needs a name")
	}
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	key := semKey(r.Name, int(r.Units))
	if _, err := parseKey(key); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if _, _, err := n.problem(spec{kind: algo.Pool, name: r.Name, units: int(r.Units)}, len(n.c.Nodes)*n.c.Slots); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	g, err := n.acquire(ctx, s, key, proc.Request{}, r.TryAcquire)
	if err != nil {
		return nil, err
	}
	tok := &pb.Token{Resource: unitKey(key, g.unit, g.epoch), Epoch: g.epoch, Counter: g.counter}
	return &pb.AcquireResponse{Grant: g.id, Unit: g.unit, Token: tok}, nil
}

// Release implements the Allot service.
func (n *Node) Release(_ context.Context, r *pb.ReleaseRequest) (*pb.ReleaseResponse, error) {
	return &pb.ReleaseResponse{}, n.giveBack(r.Session, r.Grant)
}

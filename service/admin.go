package service

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
)

// admin serves the Admin API (allot member): the membership, listed from
// this node's log, changed through the leader. A change is proposed on
// the leader, where the refusals are decided (package control: an
// address already a member, no live majority left, the last member, one
// change at a time); a node that does not lead forwards the call to the
// leader once. In a secure cluster it is a node service: only a node
// certificate may call it (secure.go).
type admin struct {
	pb.UnimplementedAdminServer
	members memberLister
	ctl     memberCtl
	// What the node is, fixed once New returns (Node.admin).
	self   int
	c      Cluster
	status string            // where the node's /status is served (Config.StatusAddr)
	wait   time.Duration     // how long a change proposed may take to apply
	dial   []grpc.DialOption // to the leader (nil: plaintext)
	log    *slog.Logger
}

// memberLister is what the Admin API reads of the node's membership:
// the members as the node applied the log, with their addresses, and the
// newest view's epoch (membership.list).
type memberLister interface {
	list() ([]MemberInfo, uint64)
}

// memberCtl is what the Admin API needs of the node's control host: how
// far it applied the log and how long the node may serve, and its
// control node to propose changes on (package control decides the
// refusals; control.ErrNotLeader sends the call on).
type memberCtl interface {
	appliedIndex() uint64
	leaseLeft() time.Duration
	proposeAdd(addr string) (proc.ID, error)
	proposeRemove(id proc.ID) error
}

// admin is the node's Admin API.
func (n *Node) admin() admin {
	return admin{members: &n.members, ctl: n.ctl, self: n.self, c: n.c, status: n.cfg.StatusAddr, wait: 5 * n.cfg.Suspect, dial: n.cfg.DialOptions, log: n.log}
}

// forwarded marks a call a node forwarded to the leader: the leader
// answers it, or says it no longer leads, and never forwards it again.
const forwarded = "allot-forwarded"

func (a admin) ListMembers(context.Context, *pb.ListMembersRequest) (*pb.ListMembersResponse, error) {
	ms, epoch := a.members.list()
	applied := a.ctl.appliedIndex()
	return &pb.ListMembersResponse{Members: pbMembers(ms), Epoch: epoch, Cluster: specOf(a.c), Applied: applied,
		LeaseLeftMs: a.ctl.leaseLeft().Milliseconds(), StatusAddress: a.status}, nil
}

func (a admin) AddMember(ctx context.Context, r *pb.AddMemberRequest) (*pb.AddMemberResponse, error) {
	if _, _, err := net.SplitHostPort(r.Address); err != nil || r.Address == "" {
		return nil, status.Errorf(codes.InvalidArgument, "member address %q: want host:port", r.Address)
	}
	id, err := a.ctl.proposeAdd(r.Address)
	if errors.Is(err, control.ErrNotLeader) {
		return forward(ctx, a, func(c pb.AdminClient, ctx context.Context) (*pb.AddMemberResponse, error) {
			return c.AddMember(ctx, r)
		})
	}
	if err != nil {
		return nil, changeStatus(err)
	}
	ms, err := a.applied(ctx, func(ms []MemberInfo) bool {
		for _, m := range ms {
			if m.ID == int(id) {
				return m.Addr == r.Address
			}
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	a.log.Info("member added", "member", id, "addr", r.Address)
	return &pb.AddMemberResponse{Id: uint32(id), Members: pbMembers(ms)}, nil
}

func (a admin) RemoveMember(ctx context.Context, r *pb.RemoveMemberRequest) (*pb.RemoveMemberResponse, error) {
	if r.Id >= MaxNodes {
		return nil, status.Errorf(codes.NotFound, "node %d is not a member: ids are below %d", r.Id, MaxNodes)
	}
	err := a.ctl.proposeRemove(proc.ID(r.Id))
	if errors.Is(err, control.ErrNotLeader) {
		return forward(ctx, a, func(c pb.AdminClient, ctx context.Context) (*pb.RemoveMemberResponse, error) {
			return c.RemoveMember(ctx, r)
		})
	}
	if err != nil {
		return nil, changeStatus(err)
	}
	ms, err := a.applied(ctx, func(ms []MemberInfo) bool {
		for _, m := range ms {
			if m.ID == int(r.Id) {
				return false
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	a.log.Info("member removed", "member", r.Id)
	return &pb.RemoveMemberResponse{Members: pbMembers(ms)}, nil
}

// changeStatus is the gRPC status of a change the control plane refused.
func changeStatus(err error) error {
	code := codes.Unavailable // no leader, another change in progress
	switch {
	case errors.Is(err, control.ErrMemberExists):
		code = codes.AlreadyExists
	case errors.Is(err, control.ErrNotMember):
		code = codes.NotFound
	case errors.Is(err, control.ErrLastMember), errors.Is(err, control.ErrNoMajority), errors.Is(err, control.ErrTooMany):
		code = codes.FailedPrecondition
	case errors.Is(err, control.ErrBadAddress):
		code = codes.InvalidArgument
	}
	return status.Error(code, err.Error())
}

// applied waits until the membership this node applied satisfies done
// (the change proposed is applied), for at most a few leases: a change
// lost with a leadership is not applied, and the caller is told to look.
func (a admin) applied(ctx context.Context, done func([]MemberInfo) bool) ([]MemberInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, a.wait)
	defer cancel()
	for {
		ms, _ := a.members.list()
		if done(ms) {
			return ms, nil
		}
		select {
		case <-ctx.Done():
			return nil, status.Error(codes.Unavailable, "the change was proposed but not applied in time (a leader change may have lost it): list the members to see")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// forward makes call on the leader, once: a call forwarded already, or
// with no leader known, is Unavailable.
func forward[R any](ctx context.Context, a admin, call func(pb.AdminClient, context.Context) (R, error)) (R, error) {
	var zero R
	if md, _ := metadata.FromIncomingContext(ctx); len(md.Get(forwarded)) > 0 {
		return zero, status.Error(codes.Unavailable, "the node this was forwarded to no longer leads: try again")
	}
	var addr string
	ms, _ := a.members.list()
	for _, m := range ms {
		if m.Leader && m.ID != a.self {
			addr = m.Addr
		}
	}
	if addr == "" {
		return zero, status.Error(codes.Unavailable, "no leader: try again once the cluster has one")
	}
	opts := a.dial
	if opts == nil {
		opts = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	conn, err := grpc.NewClient(addr, opts...)
	if err != nil {
		return zero, status.Errorf(codes.Unavailable, "the leader at %s: %v", addr, err)
	}
	defer conn.Close()
	ctx = metadata.AppendToOutgoingContext(ctx, forwarded, "1")
	return call(pb.NewAdminClient(conn), ctx)
}

// pbMembers is ms on the wire.
func pbMembers(ms []MemberInfo) []*pb.Member {
	var out []*pb.Member
	for _, m := range ms {
		out = append(out, &pb.Member{Id: uint32(m.ID), Address: m.Addr, Voter: m.Voter, InView: m.InView, Leader: m.Leader, Rejoins: m.Rejoins})
	}
	return out
}

// specOf is cluster c's description, as a joining node is started with.
func specOf(c Cluster) *pb.ClusterSpec {
	s := &pb.ClusterSpec{Bootstrap: c.Nodes, Lock: c.Lock, Semaphore: c.Semaphore, Quota: c.Quota,
		Slots: int32(c.Slots), Resources: int32(c.Resources), Epoch: c.Epoch, Quotas: map[string]*pb.QuotaSpec{}}
	for name, q := range c.Quotas {
		s.Quotas[name] = &pb.QuotaSpec{Budget: int64(q.Budget), Waste: int64(q.Waste)}
	}
	return s
}

// ClusterOf is the cluster a spec describes: what a node joining it is
// started with.
func ClusterOf(s *pb.ClusterSpec) Cluster {
	c := Cluster{Nodes: s.GetBootstrap(), Lock: s.GetLock(), Semaphore: s.GetSemaphore(), Quota: s.GetQuota(),
		Slots: int(s.GetSlots()), Resources: int(s.GetResources()), Epoch: s.GetEpoch()}
	for name, q := range s.GetQuotas() {
		if c.Quotas == nil {
			c.Quotas = map[string]QuotaSpec{}
		}
		c.Quotas[name] = QuotaSpec{Budget: int(q.GetBudget()), Waste: int(q.GetWaste())}
	}
	return c
}

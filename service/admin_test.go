package service_test

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// TestAdminCodes: the Admin service through a node that is not the
// leader (it forwards) and through the leader: each refusal has its
// code, and an add and a remove are applied before they answer.
func TestAdminCodes(t *testing.T) {
	nodes := opsCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	admins := make([]pb.AdminClient, 3)
	leader := -1
	for i, nd := range nodes {
		admins[i] = pb.NewAdminClient(dialRaw(t, nd.addr))
		r, err := admins[i].ListMembers(ctx, &pb.ListMembersRequest{})
		if err != nil || len(r.Members) != 3 || len(r.Cluster.GetBootstrap()) != 3 {
			t.Fatalf("list on node %d: %v, %v", i, r, err)
		}
		for _, m := range r.Members {
			if m.Leader {
				leader = int(m.Id)
			}
		}
	}
	if leader < 0 {
		t.Fatal("no leader listed")
	}
	follower := admins[(leader+1)%3]
	for _, tc := range []struct {
		name string
		call func() error
		want codes.Code
	}{
		{"add a member's address", func() error {
			_, err := follower.AddMember(ctx, &pb.AddMemberRequest{Address: nodes[2].addr})
			return err
		}, codes.AlreadyExists},
		{"add no address", func() error {
			_, err := follower.AddMember(ctx, &pb.AddMemberRequest{Address: "nohost"})
			return err
		}, codes.InvalidArgument},
		{"remove no member", func() error {
			_, err := follower.RemoveMember(ctx, &pb.RemoveMemberRequest{Id: 9})
			return err
		}, codes.NotFound},
		{"remove an id past the bound", func() error {
			_, err := admins[leader].RemoveMember(ctx, &pb.RemoveMemberRequest{Id: 1 << 20})
			return err
		}, codes.NotFound},
	} {
		if got := status.Code(tc.call()); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// An add through a follower, of a node never started: 3 of the 4
	// members are live, a majority.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	r, err := follower.AddMember(ctx, &pb.AddMemberRequest{Address: ln.Addr().String()})
	if err != nil || r.Id != 3 || len(r.Members) != 4 {
		t.Fatalf("add: %v, %v", r, err)
	}
	if _, err := admins[leader].AddMember(ctx, &pb.AddMemberRequest{Address: ln.Addr().String()}); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("the same add again: %v, want AlreadyExists", err)
	}
	if _, err := follower.RemoveMember(ctx, &pb.RemoveMemberRequest{Id: 3}); err != nil {
		t.Fatalf("remove of the node never started: %v", err)
	}
	got, err := admins[leader].ListMembers(ctx, &pb.ListMembersRequest{})
	if err != nil || len(got.Members) != 3 {
		t.Fatalf("list after the remove: %v, %v", got, err)
	}
}

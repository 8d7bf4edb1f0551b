package service

import (
	"context"
	"testing"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/service/internal/names"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestLocate: every node names the same home for a name, the member that
// hosts the name's resource manager in the view (names.Home over its
// members), at that member's address; the homes of 20 names are not all
// one node; a bad name is INVALID_ARGUMENT.
func TestLocate(t *testing.T) {
	nodes := inProcess(t, 3, Config{Cluster: Cluster{Slots: 4}})
	ctx := context.Background()
	homes := map[int]bool{}
	for i := range 20 {
		name := string(rune('a'+i)) + "/x"
		v := nodes[0].views.current().v
		want := names.Home(name, v.Members)
		homes[want] = true
		for k, nd := range nodes {
			r, err := nd.Locate(ctx, &pb.LocateRequest{Name: name})
			if err != nil {
				t.Fatalf("node %d: Locate(%q): %v", k, name, err)
			}
			if r.NodeAddr != nd.c.Nodes[want] || r.Epoch != v.Epoch {
				t.Errorf("node %d: Locate(%q) = %s in view %d, want node %d (%s) in view %d", k, name, r.NodeAddr, r.Epoch, want, nd.c.Nodes[want], v.Epoch)
			}
		}
	}
	if len(homes) < 2 {
		t.Errorf("20 names all at home on %v", homes)
	}
	if _, err := nodes[1].Locate(ctx, &pb.LocateRequest{}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("Locate of no name: %v, want INVALID_ARGUMENT", err)
	}
}

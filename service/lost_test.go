package service

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// startedAdmin answers ListMembers as a node of a cluster whose log has
// started node 1.
type startedAdmin struct {
	pb.UnimplementedAdminServer
	nodes []string
}

func (a startedAdmin) ListMembers(context.Context, *pb.ListMembersRequest) (*pb.ListMembersResponse, error) {
	return &pb.ListMembersResponse{
		Members: []*pb.Member{{Id: 0, Rejoins: 1}, {Id: 1, Rejoins: 1}, {Id: 2, Rejoins: 1}},
		Cluster: &pb.ClusterSpec{Bootstrap: a.nodes}, Applied: 7,
	}, nil
}

// TestWipedNodeRefusedWithoutWaiting: node 1 starts on an empty data
// directory; node 0's log has a start of it, node 2 listens but never
// answers (a process still starting, or hung). The refusal comes with
// node 0's answer, not after node 2's time is out.
func TestWipedNodeRefusedWithoutWaiting(t *testing.T) {
	var lns []net.Listener
	var nodes []string
	for range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		lns = append(lns, ln)
		nodes = append(nodes, ln.Addr().String())
	}
	s := grpc.NewServer()
	pb.RegisterAdminServer(s, startedAdmin{nodes: nodes})
	go s.Serve(lns[0])
	defer s.Stop()
	lns[1].Close() // node 1 is the one starting; node 2's listener accepts and says nothing

	const suspect = 10 * time.Second // the check waits for half of it
	start := time.Now()
	n, err := New(Config{Cluster: Cluster{Nodes: nodes}, Self: 1, DataDir: t.TempDir(), Suspect: suspect})
	if err == nil {
		n.Shutdown(context.Background())
		t.Fatal("node 1 started a new log while node 0's log has a start of it")
	}
	if !errors.Is(err, ErrDataLost) {
		t.Fatalf("New: %v, want ErrDataLost", err)
	}
	if d := time.Since(start); d > suspect/4 {
		t.Errorf("refused after %v: it waited for the silent node 2 (its time is out at %v)", d, suspect/2)
	}
}

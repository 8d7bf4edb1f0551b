package service_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/service"
)

// TestStaleNodeListRefused: a node restarted on its data dir with the
// node list it was first started with, once the log has added a member,
// is refused with ErrStaleMembership (it would dial the wrong peers);
// restarted from its log alone (FromLog), it starts.
func TestStaleNodeListRefused(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	nodes := opsCluster(t, 3, func(c *service.Config) { c.DataDir = dirs[c.Self] })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	// 3 of the 4 members live: a majority.
	if _, err := pb.NewAdminClient(dialRaw(t, nodes[1].addr)).AddMember(ctx, &pb.AddMemberRequest{Address: ln.Addr().String()}); err != nil {
		t.Fatal(err)
	}
	ms, _ := nodes[0].n.Members()
	for len(ms) != 4 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
		ms, _ = nodes[0].n.Members()
	}
	nodes[0].stop()
	first := service.Cluster{Nodes: []string{nodes[0].addr, nodes[1].addr, nodes[2].addr}}
	if stale, err := service.New(service.Config{Cluster: first, Self: 0, DataDir: dirs[0]}); !errors.Is(err, service.ErrStaleMembership) {
		if stale != nil {
			stale.Shutdown(ctx)
		}
		t.Fatalf("restarted with the first node list after an add: %v, want %v", err, service.ErrStaleMembership)
	}
	nd, err := service.New(service.Config{Cluster: first, Self: 0, DataDir: dirs[0], FromLog: true})
	if err != nil {
		t.Fatalf("restarted from its log: %v", err)
	}
	nd.Shutdown(ctx)
}

package client_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/client"
)

// TestWithNear: a session opened near a name is served by the node every
// node names as the name's home (asked here of another node than the
// first the client tries), for names at home on different nodes; a bad
// name is refused before anything is sent.
func TestWithNear(t *testing.T) {
	addrs, stop := cluster(t, 3, 0)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cc, err := grpc.NewClient(addrs[2], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	raw := pb.NewAllotClient(cc)
	at := map[string]bool{}
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		r, err := raw.Locate(ctx, &pb.LocateRequest{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Session(ctx, client.WithNear(name))
		if err != nil {
			t.Fatal(err)
		}
		if s.Node() != r.NodeAddr {
			t.Errorf("session near %q on %s, want its home %s", name, s.Node(), r.NodeAddr)
		}
		at[s.Node()] = true
		g, err := s.Lock(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		s.Close(ctx)
	}
	if len(at) < 2 {
		t.Errorf("12 names' sessions all on %v", at)
	}
	if _, err := c.Session(ctx, client.WithNear("")); err == nil {
		t.Error("a session near the empty name: no error")
	}
}

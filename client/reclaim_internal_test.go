package client

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// holdersNode serves session 7, which holds grant 9 of lock x.
type holdersNode struct {
	pb.UnimplementedAllotServer
}

func (holdersNode) OpenSession(_ context.Context, r *pb.OpenSessionRequest) (*pb.OpenSessionResponse, error) {
	return &pb.OpenSessionResponse{Session: 7, TtlMs: r.TtlMs}, nil
}

func (holdersNode) KeepAlive(context.Context, *pb.KeepAliveRequest) (*pb.KeepAliveResponse, error) {
	return &pb.KeepAliveResponse{TtlMs: 10000}, nil
}

func (holdersNode) Holders(_ context.Context, r *pb.HoldersRequest) (*pb.HoldersResponse, error) {
	return &pb.HoldersResponse{Holders: []*pb.Holder{{Session: 7, Grant: 9, Resources: []string{"x"}, Token: &pb.Token{Epoch: 2, Counter: 5}}}}, nil
}

// TestReclaimClaimsOnlyWhatIsTheCalls: a grant of the session found held
// is a cut-off Lock's only if the client was never answered it, did not
// give it back, it holds the Lock's names exactly, and no other Lock of
// those names is on its way (whose answer it could be: ambiguous); and
// it is claimed once.
func TestReclaimClaimsOnlyWhatIsTheCalls(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, serveFake(t, holdersNode{}), serveFake(t, holdersNode{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Orphan()
	reclaim := func(names ...string) (uint64, error) {
		h, err := s.reclaim(ctx, &flight{names: names})
		return h.GetGrant(), err
	}
	s.mu.Lock()
	s.flying[&flight{names: []string{"y", "x"}}] = true
	s.mu.Unlock()
	if g, err := reclaim("x"); err != errAmbiguous {
		t.Errorf("another Lock of x on its way: grant %d, %v; want errAmbiguous", g, err)
	}
	s.mu.Lock()
	clear(s.flying)
	s.flying[&flight{names: []string{"z"}}] = true // of other names
	s.given = append(s.given, givenBack{grant: 9, seq: 1})
	s.mu.Unlock()
	if g, err := reclaim("x"); g != 0 || err != nil {
		t.Errorf("grant 9 given back (not yet again at this node): claimed %d, %v; want none", g, err)
	}
	s.mu.Lock()
	s.given = nil
	s.mu.Unlock()
	if g, err := reclaim("x", "w"); g != 0 || err != nil {
		t.Errorf("a Lock of x and w: claimed %d, %v; want none (grant 9 holds x alone)", g, err)
	}
	if g, err := reclaim("x", "x"); g != 9 || err != nil {
		t.Errorf("a Lock of x: claimed %d, %v; want grant 9", g, err)
	}
	if g, err := reclaim("x"); g != 0 || err != nil {
		t.Errorf("a second Lock of x: claimed %d, %v; want none (grant 9 is the first's)", g, err)
	}
}

// TestHoldersWithANodeDown: Holders lists the holders the nodes that
// answer know, and names in an ErrUnavailable the node that did not.
func TestHoldersWithANodeDown(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close() // nobody listens there
	c, err := Dial(ctx, serveFake(t, holdersNode{}), down)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hs, err := c.Holders(ctx, "x")
	if len(hs) != 1 || hs[0].Grant != 9 || hs[0].Session != 7 || hs[0].Token != (Token{2, 5}) || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), down) {
		t.Errorf("Holders with a node down: %+v, %v; want grant 9 of session 7, and ErrUnavailable naming %s", hs, err, down)
	}
	if _, err := c.Holders(ctx, ""); !errors.Is(err, ErrBadName) {
		t.Errorf("Holders of no name: %v, want ErrBadName", err)
	}
}
